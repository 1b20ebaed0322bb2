//! INSERT, UPDATE and DELETE against a transaction's private table versions, enforcing
//! NOT NULL and UNIQUE constraints.

use std::sync::Arc;

use super::expression::evaluate;
use super::filter::selected_rows;
use super::{collect, ExecContext};
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::physical::create_operator;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::{TableData, TableEntry, Transaction};
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

/// Locks the table for writing and returns a private copy of its newest version.
fn writable(txn: &mut Transaction, name: &str, oid: u32) -> Result<TableEntry> {
    match txn.table_for_write(name)? {
        Some(entry) if entry.schema.oid == oid => Ok((*entry).clone()),
        // Dropped (or dropped and re-created) between planning and now.
        _ => Err(Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )),
    }
}

pub fn insert(
    txn: &mut Transaction,
    name: &str,
    oid: u32,
    source: &LogicalPlan,
    ctx: &ExecContext,
) -> Result<u64> {
    let batches = collect(create_operator(source).as_mut(), ctx)?;
    let mut entry = writable(txn, name, oid)?;
    let types = entry.schema.column_types();
    let mut inserted = 0u64;
    for batch in &batches {
        check_not_null(&entry.schema, batch, None)?;
        let data = Arc::make_mut(&mut entry.data);
        let first_row_id = data.append(&types, batch)?;
        check_unique(&entry, data_of(&entry), first_row_id as u64, batch, None)?;
        inserted += batch.len() as u64;
    }
    txn.put_table(entry);
    Ok(inserted)
}

fn data_of(entry: &TableEntry) -> &TableData {
    &entry.data
}

pub fn update(
    txn: &mut Transaction,
    name: &str,
    oid: u32,
    filter: Option<&ScalarExpr>,
    assignments: &[(usize, ScalarExpr)],
    ctx: &ExecContext,
) -> Result<u64> {
    let mut entry = writable(txn, name, oid)?;
    let assigned: Vec<usize> = assignments.iter().map(|(c, _)| *c).collect();
    let mut updated = 0u64;
    let mut changed: Vec<(u64, Batch)> = Vec::new();
    for chunk_idx in 0..entry.data.chunks.len() {
        ctx.check_cancelled()?;
        let (batch, offsets) = live_rows(&entry.data, chunk_idx);
        let rows = match filter {
            Some(f) => selected_rows(&batch, f, ctx)?,
            None => (0..batch.len() as u32).collect(),
        };
        if rows.is_empty() {
            continue;
        }
        let matched = batch.gather(&rows);
        let values = assignments
            .iter()
            .map(|(_, e)| evaluate(e, &matched, ctx))
            .collect::<Result<Vec<_>>>()?;
        let chunk_offsets: Vec<u32> = rows.iter().map(|&r| offsets[r as usize]).collect();
        let mut new_rows = matched.columns.clone();
        for ((column, _), value) in assignments.iter().zip(&values) {
            new_rows[*column] = value.clone();
        }
        let new_rows = Batch::new(new_rows, matched.len());
        check_not_null(&entry.schema, &new_rows, Some(&assigned))?;
        let data = Arc::make_mut(&mut entry.data);
        for ((column, _), value) in assignments.iter().zip(&values) {
            data.update_column(chunk_idx, *column, &chunk_offsets, value);
        }
        updated += rows.len() as u64;
        let base = (chunk_idx * BATCH_SIZE) as u64;
        for (i, &offset) in chunk_offsets.iter().enumerate() {
            changed.push((base + offset as u64, new_rows.gather(&[i as u32])));
        }
    }
    for (row_id, row) in &changed {
        check_unique(&entry, data_of(&entry), *row_id, row, Some(&assigned))?;
    }
    txn.put_table(entry);
    Ok(updated)
}

pub fn delete(
    txn: &mut Transaction,
    name: &str,
    oid: u32,
    filter: Option<&ScalarExpr>,
    ctx: &ExecContext,
) -> Result<u64> {
    let mut entry = writable(txn, name, oid)?;
    let mut deleted = 0u64;
    for chunk_idx in 0..entry.data.chunks.len() {
        ctx.check_cancelled()?;
        let (batch, offsets) = live_rows(&entry.data, chunk_idx);
        let rows = match filter {
            Some(f) => selected_rows(&batch, f, ctx)?,
            None => (0..batch.len() as u32).collect(),
        };
        if rows.is_empty() {
            continue;
        }
        let chunk_offsets: Vec<u32> = rows.iter().map(|&r| offsets[r as usize]).collect();
        Arc::make_mut(&mut entry.data).delete_rows(chunk_idx, &chunk_offsets);
        deleted += rows.len() as u64;
    }
    txn.put_table(entry);
    Ok(deleted)
}

/// The live rows of a chunk with every column, and each row's offset in the chunk.
fn live_rows(data: &TableData, chunk_idx: usize) -> (Batch, Vec<u32>) {
    let chunk = &data.chunks[chunk_idx];
    let all: Vec<usize> = (0..chunk.columns.len()).collect();
    let offsets: Vec<u32> = (0..chunk.len as u32)
        .filter(|&r| !chunk.is_deleted(r as usize))
        .collect();
    (chunk.to_batch(&all), offsets)
}

/// 23502 if a NOT NULL column (among `columns`, or all) gets a NULL.
fn check_not_null(schema: &TableSchema, batch: &Batch, columns: Option<&[usize]>) -> Result<()> {
    for (index, def) in schema.columns.iter().enumerate() {
        if !def.not_null || columns.is_some_and(|c| !c.contains(&index)) {
            continue;
        }
        let column = &batch.columns[index];
        if let Some(row) = (0..batch.len()).find(|&r| !column.is_valid(r)) {
            return Err(Error::new(
                SqlState::NotNullViolation,
                format!(
                    "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                    def.name, schema.name
                ),
            )
            .with_detail(format!("Failing row contains ({}).", row_text(batch, row))));
        }
    }
    Ok(())
}

/// 23505 if a row of `batch` (stored from `first_row_id` on) duplicates a key of another live
/// row. With `columns`, only keys over one of those columns are checked.
fn check_unique(
    entry: &TableEntry,
    data: &TableData,
    first_row_id: u64,
    batch: &Batch,
    columns: Option<&[usize]>,
) -> Result<()> {
    let mut key = Vec::new();
    for (unique, index) in entry
        .schema
        .unique_keys
        .iter()
        .zip(entry.unique_indexes.iter())
    {
        if columns.is_some_and(|c| !unique.columns.iter().any(|k| c.contains(k))) {
            continue;
        }
        let key_columns: Vec<&Vector> = unique
            .columns
            .iter()
            .map(|&c| batch.columns[c].as_ref())
            .collect();
        for row in 0..batch.len() {
            key.clear();
            if encode_row_key(&key_columns, row, &mut key) {
                continue; // NULLs never conflict.
            }
            if !index.insert(&key, first_row_id + row as u64, data, &unique.columns) {
                let names: Vec<&str> = unique
                    .columns
                    .iter()
                    .map(|&c| entry.schema.columns[c].name.as_str())
                    .collect();
                let mut values = Vec::new();
                for (i, column) in key_columns.iter().enumerate() {
                    if i > 0 {
                        values.extend_from_slice(b", ");
                    }
                    column.write_text(row, &mut values);
                }
                return Err(Error::new(
                    SqlState::UniqueViolation,
                    format!(
                        "duplicate key value violates unique constraint \"{}\"",
                        unique.name
                    ),
                )
                .with_detail(format!(
                    "Key ({})=({}) already exists.",
                    names.join(", "),
                    String::from_utf8_lossy(&values)
                )));
            }
        }
    }
    Ok(())
}

/// A row as PostgreSQL prints it in "Failing row contains (...)".
fn row_text(batch: &Batch, row: usize) -> String {
    let mut out = Vec::new();
    for (i, column) in batch.columns.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        if !column.write_text(row, &mut out) {
            out.extend_from_slice(b"null");
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
