//! Rebasing a transaction's version of a table onto a newer committed one. Under READ
//! COMMITTED, writers of rows of a table hold its lock in ROW EXCLUSIVE mode together, so
//! another one may commit after this transaction copied the table. Its changes are then
//! made again over that newer version (at COMMIT, when the transaction next takes the
//! table's lock, and for each READ COMMITTED statement, which sees what was committed
//! before it started): the rows it deleted are deleted there, the cells it updated are
//! copied there, and the rows it appended are appended there under new row ids. The rows it
//! deleted or updated are locked by it (a row lock, named by the row id, which a rebase never
//! changes for rows older than the transaction) and were read again in their newest version
//! once locked (see `exec/modify.rs`), so nobody else changed them since.

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
    let same_rows = Arc::ptr_eq(&newest.schema, &mine.schema)
        && Arc::ptr_eq(&newest.unique_indexes, &mine.unique_indexes)
        && changes.lineage == newest.data.changes().lineage
        && !changes.rewritten
        && changes.base_rows <= newest.data.row_capacity();
    if !same_rows {
        // The lock rules make this unreachable; refusing beats losing either side's rows.
        return Err(concurrent_update());
    }
    let types = mine.schema.column_types();
    let mut data = (*newest.data).clone();
    for (&chunk, offsets) in changes.deleted.iter() {
        let offsets = live_in(&newest.data, chunk, offsets)?;
        data.delete_rows(chunk, &offsets)?;
    }
    for (&(chunk, column), offsets) in changes.updated.iter() {
        let offsets = live_in(&newest.data, chunk, offsets)?;
        let values = match mine.data.chunk(chunk) {
            Some(changed) => changed.columns[column].gather(&offsets),
            None => return Err(Error::internal(format!("chunk {chunk} out of range"))),
        };
        data.update_column(chunk, column, &offsets, &values)?;
    }
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

/// `offsets` of chunk `chunk`, each once, in order; 40001 if one of them is deleted in `data`
/// (another transaction deleted a row this one changed: its row lock rules that out).
fn live_in(data: &TableData, chunk: usize, offsets: &[u32]) -> Result<Vec<u32>> {
    let mut offsets = offsets.to_vec();
    offsets.sort_unstable();
    offsets.dedup();
    let live = data.chunk(chunk).is_some_and(|c| {
        offsets
            .iter()
            .all(|&o| (o as usize) < c.len && !c.is_deleted(o as usize))
    });
    match live {
        true => Ok(offsets),
        false => Err(concurrent_update()),
    }
}

fn concurrent_update() -> Error {
    Error::new(
        SqlState::SerializationFailure,
        "could not serialize access due to concurrent update",
    )
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
