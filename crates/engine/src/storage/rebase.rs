//! Rebasing a transaction's version of a table onto a newer committed one. Inserters of a
//! table hold its lock in ROW EXCLUSIVE mode together, so another one may commit after this
//! transaction copied the table: its rows are then appended to that newer version (at COMMIT,
//! and for each READ COMMITTED statement, which sees what was committed before it started).
//! Only appends are ever rebased: a transaction that deleted or updated rows held the table
//! exclusively from then on, so nobody committed to it since (it was rebased when it took
//! that lock).

use std::sync::Arc;

use super::{TableData, TableEntry};
use crate::error::{Error, Result, SqlState};
use crate::vector::{encode_row_key, Batch, Vector};

/// `mine` (a transaction's version of a table) over `newest` (the table's newest committed
/// version), or `None` when `mine` already builds on it (or the table is this
/// transaction's own). The appended rows take new row ids after `newest`'s, entered in the
/// unique indexes under them; the result's changes are those appends over `newest`, which
/// is what COMMIT logs.
pub(super) fn rebase(
    mine: &TableEntry,
    newest: Option<&Arc<TableEntry>>,
) -> Result<Option<TableEntry>> {
    let Some(newest) = newest else {
        return Ok(None);
    };
    if newest.generation == mine.generation {
        return Ok(None);
    }
    let changes = mine.data.changes();
    let appends_only = Arc::ptr_eq(&newest.schema, &mine.schema)
        && Arc::ptr_eq(&newest.unique_indexes, &mine.unique_indexes)
        && changes.lineage == newest.data.changes().lineage
        && changes.is_empty()
        && changes.base_rows <= newest.data.row_capacity();
    if !appends_only {
        // The lock rules make this unreachable; refusing beats losing either side's rows.
        return Err(Error::new(
            SqlState::SerializationFailure,
            "could not serialize access due to concurrent update",
        ));
    }
    let types = mine.schema.column_types();
    let mut data = (*newest.data).clone();
    for batch in mine.data.rows_from(changes.base_rows as u64) {
        let first = data.append(&types, &batch)? as u64;
        index_appended(newest, &data, &batch, first)?;
    }
    Ok(Some(TableEntry {
        schema: newest.schema.clone(),
        data: Arc::new(data),
        generation: newest.generation,
        unique_indexes: newest.unique_indexes.clone(),
        secondary_indexes: newest.secondary_indexes.clone(),
    }))
}

/// Enters the rows of `batch`, appended to `data` from row id `first` on, in `entry`'s
/// unique indexes; 23505 if a live row already has one of their keys (the unique key locks
/// of the inserters rule that out).
fn index_appended(entry: &TableEntry, data: &TableData, batch: &Batch, first: u64) -> Result<()> {
    let mut key = Vec::new();
    for (unique, index) in entry
        .schema
        .unique_keys
        .iter()
        .zip(entry.unique_indexes.iter())
    {
        let columns: Vec<&Vector> = unique.columns.iter().map(|&c| &*batch.columns[c]).collect();
        for row in 0..batch.len() {
            key.clear();
            if encode_row_key(&columns, row, &mut key) {
                continue; // NULLs never conflict.
            }
            if !index.insert(&key, first + row as u64, data, &unique.columns, None) {
                return Err(Error::new(
                    SqlState::UniqueViolation,
                    format!(
                        "duplicate key value violates unique constraint \"{}\"",
                        unique.name
                    ),
                ));
            }
        }
    }
    Ok(())
}
