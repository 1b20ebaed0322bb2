//! Lookups through an index: `WHERE key = constant` finds its rows without a scan — at most
//! one through a unique key, any number through a CREATE INDEX index.

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::filter::selected_rows;
use super::{ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::plan::ScalarExpr;
use crate::storage::{ChunkRows, TableEntry};
use crate::types::DataType;
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

/// The values an index's key columns are pinned to.
pub struct KeyProbe {
    /// The table columns of the index key, in key order.
    pub columns: Vec<usize>,
    /// One constant or parameter per key column, with the column's type.
    pub values: Vec<(ScalarExpr, DataType)>,
}

pub enum IndexAccess {
    /// The table's unique key number `key`.
    Unique { key: usize, probe: KeyProbe },
    /// CREATE INDEX indexes that can each answer; the one with the fewest candidate rows for
    /// the values at hand is used.
    Secondary(Vec<KeyProbe>),
}

pub struct IndexLookupExec {
    table_oid: u32,
    table_name: String,
    columns: Vec<usize>,
    access: IndexAccess,
    residual: Option<ScalarExpr>,
    /// Rows found and not yet returned, by chunk; `None` until the lookup has run.
    pending: Option<std::vec::IntoIter<(usize, Vec<u32>)>>,
}

impl IndexLookupExec {
    pub fn new(
        table_oid: u32,
        table_name: String,
        columns: Vec<usize>,
        access: IndexAccess,
        residual: Option<ScalarExpr>,
    ) -> IndexLookupExec {
        IndexLookupExec {
            table_oid,
            table_name,
            columns,
            access,
            residual,
            pending: None,
        }
    }

    fn find(&self, entry: &TableEntry, ctx: &ExecContext) -> Result<ChunkRows> {
        match &self.access {
            IndexAccess::Unique { key, probe } => {
                let Some(bytes) = probe.key(ctx)? else {
                    return Ok(Vec::new());
                };
                let (Some(unique), Some(index)) = (
                    entry.schema.unique_keys.get(*key),
                    entry.unique_indexes.get(*key),
                ) else {
                    return Err(Error::internal("index lookup on a missing unique key"));
                };
                Ok(index
                    .lookup(&bytes, &entry.data, &unique.columns)
                    .map(|row| {
                        let row = row as usize;
                        (row / BATCH_SIZE, vec![(row % BATCH_SIZE) as u32])
                    })
                    .into_iter()
                    .collect())
            }
            IndexAccess::Secondary(probes) => {
                let indexes = &entry.secondary_indexes;
                let mut best: Option<(usize, &KeyProbe, Vec<u8>)> = None;
                for probe in probes {
                    let Some(bytes) = probe.key(ctx)? else {
                        return Ok(Vec::new());
                    };
                    let candidates = match probes.len() {
                        1 => 0,
                        _ => indexes.candidates(&entry.data, &probe.columns, &bytes),
                    };
                    if best
                        .as_ref()
                        .is_none_or(|(fewest, ..)| candidates < *fewest)
                    {
                        best = Some((candidates, probe, bytes));
                    }
                }
                Ok(match best {
                    Some((_, probe, bytes)) => indexes.lookup(&entry.data, &probe.columns, &bytes),
                    None => Vec::new(),
                })
            }
        }
    }
}

impl KeyProbe {
    /// The key bytes of the probe's values; `None` when one is NULL, which `=` never matches.
    fn key(&self, ctx: &ExecContext) -> Result<Option<Vec<u8>>> {
        let mut vectors = Vec::with_capacity(self.values.len());
        for (value, ty) in &self.values {
            let value = evaluate_constant(value, ctx)?;
            if value.is_null() {
                return Ok(None);
            }
            vectors.push(Vector::from_scalar(&value, *ty, 1)?);
        }
        let vectors: Vec<&Vector> = vectors.iter().collect();
        let mut key = Vec::new();
        encode_row_key(&vectors, 0, &mut key);
        Ok(Some(key))
    }
}

impl Operator for IndexLookupExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let entry = ctx.state.tables.get(&self.table_oid).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{}\" does not exist", self.table_name),
            )
        })?;
        if self.pending.is_none() {
            self.pending = Some(self.find(entry, ctx)?.into_iter());
        }
        let Some(pending) = self.pending.as_mut() else {
            return Ok(None);
        };
        for (chunk_idx, offsets) in pending.by_ref() {
            let Some(chunk) = entry.data.chunk(chunk_idx) else {
                return Err(Error::internal("index lookup past the table's chunks"));
            };
            let batch = Batch::new(
                self.columns
                    .iter()
                    .map(|&c| Arc::new(chunk.columns[c].gather(&offsets)))
                    .collect(),
                offsets.len(),
            );
            let Some(residual) = &self.residual else {
                return Ok(ctx.read_rows(Some(batch)));
            };
            let selected = selected_rows(&batch, residual, ctx)?;
            if selected.len() == batch.len() {
                return Ok(ctx.read_rows(Some(batch)));
            }
            if !selected.is_empty() {
                return Ok(ctx.read_rows(Some(batch.gather(&selected))));
            }
        }
        Ok(None)
    }
}
