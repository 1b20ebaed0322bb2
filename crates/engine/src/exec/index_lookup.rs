//! Lookups through an index: `WHERE key = constant` or `WHERE key IN (constants)` finds its
//! rows without a scan, one lookup per distinct key value — at most one row per value through
//! a unique key, any number through a CREATE INDEX index; and the candidates an hnsw index
//! finds nearest to a vector.

use super::expression::evaluate_constant;
use super::filter::selected_rows;
use super::nearest::NearestProbe;
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
    /// Per key column, the constants or parameters it may equal (one for `=`, the items of
    /// `IN`), with the column's type.
    pub values: Vec<(Vec<ScalarExpr>, DataType)>,
}

pub enum IndexAccess {
    /// The table's unique key number `key`.
    Unique { key: usize, probe: KeyProbe },
    /// CREATE INDEX indexes that can each answer; the one with the fewest candidate rows for
    /// the values at hand is used.
    Secondary(Vec<KeyProbe>),
    /// An hnsw index: the rows nearest to a vector.
    Nearest(NearestProbe),
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
                let (Some(unique), Some(index)) = (
                    entry.schema.unique_keys.get(*key),
                    entry.unique_indexes.get(*key),
                ) else {
                    return Err(Error::internal("index lookup on a missing unique key"));
                };
                // Distinct keys of a unique index find distinct rows.
                let mut row_ids: Vec<u64> = probe
                    .keys(ctx)?
                    .iter()
                    .filter_map(|key| index.lookup(key, &entry.data, &unique.columns))
                    .collect();
                row_ids.sort_unstable();
                Ok(by_chunk(&row_ids))
            }
            IndexAccess::Secondary(probes) => {
                let indexes = &entry.secondary_indexes;
                let mut best: Option<(usize, &KeyProbe, Vec<Vec<u8>>)> = None;
                for probe in probes {
                    let keys = probe.keys(ctx)?;
                    if keys.is_empty() {
                        return Ok(Vec::new());
                    }
                    let candidates = match probes.len() {
                        1 => 0,
                        _ => indexes.candidates(&entry.data, &probe.columns, &keys),
                    };
                    if best
                        .as_ref()
                        .is_none_or(|(fewest, ..)| candidates < *fewest)
                    {
                        best = Some((candidates, probe, keys));
                    }
                }
                Ok(match best {
                    Some((_, probe, keys)) => indexes.lookup(&entry.data, &probe.columns, &keys),
                    None => Vec::new(),
                })
            }
            IndexAccess::Nearest(probe) => probe.find(entry, ctx),
        }
    }
}

/// Ascending row ids grouped by chunk.
pub(super) fn by_chunk(row_ids: &[u64]) -> ChunkRows {
    let mut rows: ChunkRows = Vec::new();
    for &row in row_ids {
        let (chunk_idx, offset) = (
            row as usize / BATCH_SIZE,
            (row as usize % BATCH_SIZE) as u32,
        );
        match rows.last_mut() {
            Some((last, offsets)) if *last == chunk_idx => offsets.push(offset),
            _ => rows.push((chunk_idx, vec![offset])),
        }
    }
    rows
}

impl KeyProbe {
    /// The distinct key bytes of every combination of the probe's values, sorted. Values
    /// that are NULL are left out, since `=` never matches them; no keys means no rows.
    fn keys(&self, ctx: &ExecContext) -> Result<Vec<Vec<u8>>> {
        let mut keys: Vec<Vec<u8>> = vec![Vec::new()];
        for (values, ty) in &self.values {
            let mut longer = Vec::with_capacity(keys.len() * values.len());
            for value in values {
                let value = evaluate_constant(value, ctx)?;
                if value.is_null() {
                    continue;
                }
                let vector = Vector::from_scalar(&value, *ty, 1)?;
                for prefix in &keys {
                    let mut key = prefix.clone();
                    encode_row_key(&[&vector], 0, &mut key);
                    longer.push(key);
                }
            }
            keys = longer;
        }
        keys.sort_unstable();
        keys.dedup();
        Ok(keys)
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
                    .map(|&c| chunk.gather_column(chunk_idx, c, &offsets))
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
