//! INSERT ... ON CONFLICT: each proposed row, in order, is checked against the arbiter
//! indexes; a row already there is skipped (DO NOTHING) or updated (DO UPDATE), any other
//! row is inserted. Rows run one at a time because each one sees the rows the statement
//! wrote before it: a later duplicate of an inserted row is skipped, or under DO UPDATE is
//! PostgreSQL's 21000 ("cannot affect row a second time").

use std::collections::HashSet;
use std::sync::Arc;

use super::expression::evaluate;
use super::filter::selected_rows;
use super::modify::{check_not_null, check_unique, writable, Modified};
use super::{collect, ExecContext};
use crate::error::{Error, Result, SqlState};
use crate::physical::create_operator;
use crate::plan::{ConflictAction, LogicalPlan, OnConflict, ScalarExpr};
use crate::storage::{TableEntry, Transaction};
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

pub fn insert(
    txn: &mut Transaction,
    name: &str,
    oid: u32,
    source: &LogicalPlan,
    on_conflict: &OnConflict,
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    let batches = collect(create_operator(source, &ctx.state).as_mut(), ctx)?;
    let mut entry = writable(txn, name, oid)?;
    let types = entry.schema.column_types();
    let oldest = super::modify::oldest_sharing_indexes(txn, &entry);
    let mut modified = Modified::default();
    // Rows this statement inserted or updated.
    let mut written: HashSet<u64> = HashSet::new();
    for batch in &batches {
        ctx.check_cancelled()?;
        for row in 0..batch.len() as u32 {
            let proposed = batch.gather(&[row]);
            check_not_null(&entry.schema, &proposed, None)?;
            let row = match conflicting_row(&entry, &on_conflict.arbiters, &proposed) {
                None => {
                    let data = Arc::make_mut(&mut entry.data);
                    let row_id = data.append(&types, &proposed)? as u64;
                    check_unique(&entry, &[row_id], &proposed, None, oldest.as_deref())?;
                    written.insert(row_id);
                    proposed
                }
                Some(row_id) => match &on_conflict.action {
                    ConflictAction::Nothing => continue,
                    ConflictAction::Update {
                        assignments,
                        filter,
                    } => {
                        if written.contains(&row_id) {
                            return Err(Error::new(
                                SqlState::CardinalityViolation,
                                "ON CONFLICT DO UPDATE command cannot affect row a second time",
                            )
                            .with_hint(
                                "Ensure that no rows proposed for insertion within the same \
                                 command have duplicate constrained values.",
                            ));
                        }
                        let update = DoUpdate {
                            assignments,
                            filter: filter.as_ref(),
                        };
                        match update.apply(&mut entry, row_id, &proposed, ctx)? {
                            Some(new_row) => {
                                written.insert(row_id);
                                new_row
                            }
                            None => continue,
                        }
                    }
                },
            };
            modified.count += 1;
            if keep_rows {
                modified.rows.push(row);
            }
        }
    }
    txn.put_table(entry);
    Ok(modified)
}

/// The existing row an arbiter index finds for the proposed row, if any.
fn conflicting_row(entry: &TableEntry, arbiters: &[usize], proposed: &Batch) -> Option<u64> {
    let mut key = Vec::new();
    arbiters.iter().find_map(|&arbiter| {
        let unique = &entry.schema.unique_keys[arbiter];
        let columns: Vec<&Vector> = unique
            .columns
            .iter()
            .map(|&c| proposed.columns[c].as_ref())
            .collect();
        key.clear();
        if encode_row_key(&columns, 0, &mut key) {
            return None; // NULLs never conflict.
        }
        entry.unique_indexes[arbiter].lookup(&key, &entry.data, &unique.columns)
    })
}

/// DO UPDATE SET ... WHERE ...
struct DoUpdate<'a> {
    assignments: &'a [(usize, ScalarExpr)],
    filter: Option<&'a ScalarExpr>,
}

impl DoUpdate<'_> {
    /// Updates row `row_id` with the proposed row as `excluded`; the new row, or `None`
    /// when WHERE rejects it.
    fn apply(
        &self,
        entry: &mut TableEntry,
        row_id: u64,
        proposed: &Batch,
        ctx: &ExecContext,
    ) -> Result<Option<Batch>> {
        let chunk_idx = row_id as usize / BATCH_SIZE;
        let offset = (row_id as usize % BATCH_SIZE) as u32;
        let chunk = entry
            .data
            .chunk(chunk_idx)
            .ok_or_else(|| Error::internal(format!("conflicting row {row_id} out of range")))?;
        let mut columns: Vec<Arc<Vector>> = chunk
            .columns
            .iter()
            .map(|c| Arc::new(c.gather(&[offset])))
            .collect();
        let width = columns.len();
        columns.extend(proposed.columns.iter().cloned());
        let combined = Batch::new(columns, 1);
        if let Some(filter) = self.filter {
            if selected_rows(&combined, filter, ctx)?.is_empty() {
                return Ok(None);
            }
        }
        let mut new_columns = combined.columns[..width].to_vec();
        for (column, value) in self.assignments {
            new_columns[*column] = evaluate(value, &combined, ctx)?;
        }
        let new_row = Batch::new(new_columns, 1);
        let assigned: Vec<usize> = self.assignments.iter().map(|(c, _)| *c).collect();
        check_not_null(&entry.schema, &new_row, Some(&assigned))?;
        let data = Arc::make_mut(&mut entry.data);
        for &column in &assigned {
            data.update_column(chunk_idx, column, &[offset], &new_row.columns[column])?;
        }
        check_unique(entry, &[row_id], &new_row, Some(&assigned), None)?;
        Ok(Some(new_row))
    }
}
