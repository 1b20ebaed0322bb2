//! INSERT ... ON CONFLICT, a batch of proposed rows at a time. The arbiter indexes are probed
//! for the whole batch, and DO UPDATE's WHERE and SET are evaluated for every conflicting row
//! at once. A pass in proposed order then decides each row's fate from those results, so each
//! row still sees the rows the statement wrote before it: a later duplicate of an inserted or
//! updated row is skipped, or under DO UPDATE is PostgreSQL's 21000 ("cannot affect row a
//! second time"). Last, the updates are written with one column update per (chunk, column) and
//! the inserts with one append.

use hashbrown::HashSet;
use std::sync::Arc;

use super::expression::evaluate;
use super::filter::selected_rows;
use super::modify::{
    check_new_rows, check_unique, insertable_without_conflicts, writable, Modified,
};
use super::{materialize, ExecContext};
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::physical::create_operator;
use crate::plan::{ConflictAction, LogicalPlan, OnConflict, RowCheck};
use crate::storage::{TableEntry, Transaction};
use crate::vector::{concat_batches, encode_row_key, Batch, Vector, BATCH_SIZE};

pub fn insert(
    txn: &mut Transaction,
    (name, oid): (&QualifiedName, u32),
    source: &LogicalPlan,
    on_conflict: &OnConflict,
    checks: &[RowCheck],
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    let batches = materialize(create_operator(source, &ctx.state).as_mut(), ctx)?;
    let mut entry = match on_conflict.action {
        ConflictAction::Nothing => insertable_without_conflicts(txn, name, oid, &batches)?,
        ConflictAction::Update { .. } => writable(txn, name, oid)?,
    };
    let oldest = super::modify::oldest_sharing_indexes(txn, &entry);
    let mut modified = Modified::default();
    // Rows this statement inserted or updated in earlier batches.
    let mut written: HashSet<u64> = HashSet::new();
    for batch in &batches {
        ctx.check_cancelled()?;
        // Proposed rows pass the constraints before they are compared with existing ones.
        check_new_rows(&entry.schema, checks, batch, None, ctx)?;
        let fates = Resolver::new(&entry, on_conflict, batch, ctx)?.resolve(&written)?;
        let written_now = fates.write(
            &mut entry,
            batch,
            Written {
                modified: &mut modified,
                keep_rows,
                oldest: oldest.as_deref(),
                checks,
                ctx,
            },
        )?;
        written.extend(written_now);
    }
    let schema = entry.schema.clone();
    txn.put_table(entry);
    super::foreign_key::check_upserted(txn, &schema, on_conflict)?;
    Ok(modified)
}

/// What becomes of one proposed row.
#[derive(Clone, Copy)]
enum Fate {
    Skip,
    Insert,
    /// Replaces existing row `row_id` with row `new_row` of [`Updates::new_rows`].
    Update {
        row_id: u64,
        new_row: u32,
    },
}

/// DO UPDATE's WHERE and SET, evaluated for (proposed row, existing row) pairs.
struct Updates {
    /// The pairs, by proposed row.
    pairs: Vec<(u32, u64)>,
    /// Per pair, its row in `new_rows`; `None` where WHERE rejected it.
    new_row: Vec<Option<u32>>,
    /// Whole table rows: the existing row with SET applied.
    new_rows: Batch,
    /// Per arbiter, per row of `new_rows`: its key, `None` when NULL.
    new_keys: Vec<Vec<Option<Vec<u8>>>>,
}

/// Where [`Fates::write`] counts and keeps what it writes, and what it checks.
struct Written<'a> {
    modified: &'a mut Modified,
    keep_rows: bool,
    oldest: Option<&'a TableEntry>,
    checks: &'a [RowCheck],
    ctx: &'a ExecContext,
}

/// Every row's fate, in proposed order.
struct Fates {
    fates: Vec<Fate>,
    updates: Option<Updates>,
    /// The columns DO UPDATE assigns.
    assigned: Vec<usize>,
}

struct Resolver<'a> {
    entry: &'a TableEntry,
    on_conflict: &'a OnConflict,
    batch: &'a Batch,
    ctx: &'a ExecContext,
    /// Per arbiter, per proposed row: its key, `None` when NULL (which never conflicts).
    keys: Vec<Vec<Option<Vec<u8>>>>,
    /// Per proposed row, per arbiter: the existing row with that key when the batch began.
    hits: Vec<Vec<Option<u64>>>,
}

impl<'a> Resolver<'a> {
    fn new(
        entry: &'a TableEntry,
        on_conflict: &'a OnConflict,
        batch: &'a Batch,
        ctx: &'a ExecContext,
    ) -> Result<Resolver<'a>> {
        let keys: Vec<Vec<Option<Vec<u8>>>> = on_conflict
            .arbiters
            .iter()
            .map(|&arbiter| arbiter_keys(entry, arbiter, batch))
            .collect();
        let hits = (0..batch.len())
            .map(|row| {
                on_conflict
                    .arbiters
                    .iter()
                    .zip(&keys)
                    .map(|(&arbiter, keys)| {
                        let columns = &entry.schema.unique_keys[arbiter].columns;
                        let key = keys[row].as_ref()?;
                        entry.unique_indexes[arbiter].lookup(key, &entry.data, columns)
                    })
                    .collect()
            })
            .collect();
        Ok(Resolver {
            entry,
            on_conflict,
            batch,
            ctx,
            keys,
            hits,
        })
    }

    /// Decides each row in proposed order. `written` holds the rows earlier batches wrote;
    /// keys this batch gave a row are `claimed`, and existing rows it updated are `moved`:
    /// such a row holds only its new keys, which are claimed.
    fn resolve(&self, written: &HashSet<u64>) -> Result<Fates> {
        let (mut updates, assigned) = match &self.on_conflict.action {
            ConflictAction::Nothing => (None, Vec::new()),
            ConflictAction::Update { assignments, .. } => {
                // Each row against its first conflict; a row whose first conflict this batch
                // updates is evaluated again against its next.
                let pairs = (0..self.batch.len())
                    .filter_map(|row| Some((row as u32, self.hits[row].iter().find_map(|h| *h)?)))
                    .collect();
                let assigned = assignments.iter().map(|(c, _)| *c).collect();
                (Some(self.evaluate(pairs)?), assigned)
            }
        };
        let mut claimed: Vec<HashSet<Vec<u8>>> = vec![HashSet::new(); self.keys.len()];
        let mut moved: HashSet<u64> = HashSet::new();
        let mut fates = Vec::with_capacity(self.batch.len());
        for row in 0..self.batch.len() {
            let claimed_before = self
                .keys
                .iter()
                .zip(&claimed)
                .any(|(keys, claimed)| keys[row].as_ref().is_some_and(|k| claimed.contains(k)));
            let target = self.hits[row]
                .iter()
                .flatten()
                .find(|r| !moved.contains(*r))
                .copied();
            let fate = match (updates.as_mut(), claimed_before, target) {
                (_, false, None) => Fate::Insert,
                (None, _, _) => Fate::Skip,
                (Some(_), true, _) => return Err(affected_twice()),
                (Some(_), false, Some(row_id)) if written.contains(&row_id) => {
                    return Err(affected_twice())
                }
                (Some(updates), false, Some(row_id)) => match updates.find(row as u32, row_id) {
                    Some(found) => found,
                    None => updates.add(self.evaluate(vec![(row as u32, row_id)])?)?,
                }
                .map_or(Fate::Skip, |new_row| Fate::Update { row_id, new_row }),
            };
            let new_keys = match fate {
                Fate::Skip => Vec::new(),
                Fate::Insert => self.keys.iter().map(|keys| keys[row].clone()).collect(),
                Fate::Update { row_id, new_row } => {
                    moved.insert(row_id);
                    updates
                        .as_ref()
                        .map_or_else(Vec::new, |u| u.keys_of(new_row))
                }
            };
            for (key, claimed) in new_keys.into_iter().zip(claimed.iter_mut()) {
                claimed.extend(key);
            }
            fates.push(fate);
        }
        Ok(Fates {
            fates,
            updates,
            assigned,
        })
    }

    /// DO UPDATE for `pairs` (sorted by proposed row): WHERE over the existing row followed
    /// by the proposed one (`excluded`), then SET for the rows it passes.
    fn evaluate(&self, pairs: Vec<(u32, u64)>) -> Result<Updates> {
        let ConflictAction::Update {
            assignments,
            filter,
        } = &self.on_conflict.action
        else {
            return Err(Error::internal(
                "ON CONFLICT DO NOTHING has no SET to evaluate",
            ));
        };
        let types = self.entry.schema.column_types();
        let mut columns = Vec::with_capacity(types.len() * 2);
        for (column, ty) in types.iter().enumerate() {
            let mut existing = Vector::with_capacity(ty.physical(), pairs.len());
            for &(_, row_id) in &pairs {
                let chunk = self.entry.data.chunk(row_id as usize / BATCH_SIZE);
                let chunk = chunk.ok_or_else(|| {
                    Error::internal(format!("conflicting row {row_id} out of range"))
                })?;
                existing.push_from(&chunk.columns[column], row_id as usize % BATCH_SIZE)?;
            }
            columns.push(Arc::new(existing));
        }
        let proposed: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        columns.extend(self.batch.gather(&proposed).columns);
        let combined = Batch::new(columns, pairs.len());
        let passed: Vec<u32> = match filter {
            Some(filter) if !pairs.is_empty() => selected_rows(&combined, filter, self.ctx)?,
            _ => (0..pairs.len() as u32).collect(),
        };
        let passing = combined.gather(&passed);
        let mut new_columns = passing.columns[..types.len()].to_vec();
        if !passed.is_empty() {
            for (column, value) in assignments {
                new_columns[*column] = evaluate(value, &passing, self.ctx)?;
            }
        }
        let new_rows = Batch::new(new_columns, passed.len());
        let mut new_row = vec![None; pairs.len()];
        for (i, &pair) in passed.iter().enumerate() {
            new_row[pair as usize] = Some(i as u32);
        }
        let new_keys = self
            .on_conflict
            .arbiters
            .iter()
            .map(|&arbiter| arbiter_keys(self.entry, arbiter, &new_rows))
            .collect();
        Ok(Updates {
            pairs,
            new_row,
            new_rows,
            new_keys,
        })
    }
}

impl Updates {
    /// The evaluation of (`row`, `row_id`), if made: its new row, or `None` if WHERE failed.
    fn find(&self, row: u32, row_id: u64) -> Option<Option<u32>> {
        let pair = self.pairs.binary_search_by_key(&row, |p| p.0).ok()?;
        (self.pairs[pair].1 == row_id).then_some(self.new_row[pair])
    }

    /// Takes in the evaluation of one more pair (rare: only when an update of this batch
    /// took a row's first conflict away); the pair's new row, if WHERE passed.
    fn add(&mut self, more: Updates) -> Result<Option<u32>> {
        let base = self.new_rows.len() as u32;
        let physical: Vec<_> = self
            .new_rows
            .columns
            .iter()
            .map(|c| c.data.physical())
            .collect();
        self.new_rows = concat_batches(&physical, &[self.new_rows.clone(), more.new_rows])?;
        for (keys, more) in self.new_keys.iter_mut().zip(more.new_keys) {
            keys.extend(more);
        }
        Ok(more.new_row.first().copied().flatten().map(|r| base + r))
    }

    /// The arbiter keys of row `new_row`.
    fn keys_of(&self, new_row: u32) -> Vec<Option<Vec<u8>>> {
        self.new_keys
            .iter()
            .map(|keys| keys[new_row as usize].clone())
            .collect()
    }
}

impl Fates {
    /// Writes the updates, then the inserts (an update moving a row off a key frees it for
    /// a later row of the batch). Returns the row ids written.
    fn write(self, entry: &mut TableEntry, batch: &Batch, out: Written) -> Result<Vec<u64>> {
        let Written {
            modified,
            keep_rows,
            oldest,
            checks,
            ctx,
        } = out;
        let mut updated: Vec<(u64, u32)> = self
            .fates
            .iter()
            .filter_map(|fate| match fate {
                Fate::Update { row_id, new_row } => Some((*row_id, *new_row)),
                Fate::Skip | Fate::Insert => None,
            })
            .collect();
        updated.sort_unstable();
        let mut row_ids: Vec<u64> = updated.iter().map(|u| u.0).collect();
        if let Some(updates) = self.updates.as_ref().filter(|_| !updated.is_empty()) {
            let rows: Vec<u32> = updated.iter().map(|u| u.1).collect();
            let values = updates.new_rows.gather(&rows);
            check_new_rows(&entry.schema, checks, &values, Some(&self.assigned), ctx)?;
            write_updates(entry, &row_ids, &values, &self.assigned)?;
            let enums = &ctx.state.enum_types;
            check_unique(
                entry,
                &row_ids,
                &values,
                Some(&self.assigned),
                oldest,
                enums,
            )?;
        }
        let inserted: Vec<u32> = (0..batch.len() as u32)
            .filter(|&row| matches!(self.fates[row as usize], Fate::Insert))
            .collect();
        if !inserted.is_empty() {
            let rows = batch.gather(&inserted);
            let types = entry.schema.column_types();
            let first = Arc::make_mut(&mut entry.data).append(&types, &rows)? as u64;
            let ids: Vec<u64> = (first..first + rows.len() as u64).collect();
            check_unique(entry, &ids, &rows, None, oldest, &ctx.state.enum_types)?;
            row_ids.extend(ids);
        }
        modified.count += row_ids.len() as u64;
        if keep_rows {
            self.returning(batch, modified);
        }
        Ok(row_ids)
    }

    /// RETURNING's rows in proposed order: each run of inserted or updated rows as a batch.
    fn returning(&self, batch: &Batch, modified: &mut Modified) {
        let mut run: Option<(bool, Vec<u32>)> = None;
        let mut flush = |run: Option<(bool, Vec<u32>)>| match (run, &self.updates) {
            (Some((true, rows)), Some(updates)) => {
                modified.rows.push(updates.new_rows.gather(&rows));
            }
            (Some((false, rows)), _) => modified.rows.push(batch.gather(&rows)),
            (Some((true, _)), None) | (None, _) => {}
        };
        for (row, fate) in self.fates.iter().enumerate() {
            let (is_update, index) = match *fate {
                Fate::Skip => continue,
                Fate::Insert => (false, row as u32),
                Fate::Update { new_row, .. } => (true, new_row),
            };
            match run.as_mut() {
                Some((kind, rows)) if *kind == is_update => rows.push(index),
                _ => flush(run.replace((is_update, vec![index]))),
            }
        }
        flush(run);
    }
}

/// Overwrites the `assigned` columns of rows `row_ids` (ascending) with the rows of `values`:
/// one column update per (chunk, column).
fn write_updates(
    entry: &mut TableEntry,
    row_ids: &[u64],
    values: &Batch,
    assigned: &[usize],
) -> Result<()> {
    let data = Arc::make_mut(&mut entry.data);
    let mut start = 0;
    while start < row_ids.len() {
        let chunk_idx = row_ids[start] as usize / BATCH_SIZE;
        let end = start
            + row_ids[start..]
                .iter()
                .take_while(|&&id| id as usize / BATCH_SIZE == chunk_idx)
                .count();
        let offsets: Vec<u32> = row_ids[start..end]
            .iter()
            .map(|&id| (id as usize % BATCH_SIZE) as u32)
            .collect();
        let positions: Vec<u32> = (start as u32..end as u32).collect();
        for &column in assigned {
            let column_values = values.columns[column].gather(&positions);
            data.update_column(chunk_idx, column, &offsets, &column_values)?;
        }
        start = end;
    }
    Ok(())
}

/// Per row of `rows` (whole table rows), its key over unique key `arbiter`; `None` when a
/// key column is NULL.
fn arbiter_keys(entry: &TableEntry, arbiter: usize, rows: &Batch) -> Vec<Option<Vec<u8>>> {
    let columns: Vec<&Vector> = entry.schema.unique_keys[arbiter]
        .columns
        .iter()
        .map(|&c| rows.columns[c].as_ref())
        .collect();
    (0..rows.len())
        .map(|row| {
            let mut key = Vec::new();
            (!encode_row_key(&columns, row, &mut key)).then_some(key)
        })
        .collect()
}

fn affected_twice() -> Error {
    Error::new(
        SqlState::CardinalityViolation,
        "ON CONFLICT DO UPDATE command cannot affect row a second time",
    )
    .with_hint(
        "Ensure that no rows proposed for insertion within the same command have duplicate \
         constrained values.",
    )
}
