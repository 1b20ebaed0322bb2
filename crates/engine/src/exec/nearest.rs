//! The rows an hnsw index offers for `ORDER BY column <op> query LIMIT k`: the nearest ones
//! its graph finds (`hnsw.ef_search` of them, or k if more), which the top-N above sorts by
//! their exact distance, after any WHERE filter, as pgvector filters an index scan's rows.
//!
//! Where the index cannot rank the rows (a NULL query, one of another length, a zero query
//! under cosine distance), every row is offered, so the answer is the seq scan's. When the
//! graph holds fewer rows than were asked for, the rows it leaves out (NULL vectors) are
//! offered too: a seq scan would sort them last, so a small table gets the seq scan's
//! answer exactly rather than pgvector's shorter one.

use super::expression::evaluate_constant;
use super::ExecContext;
use crate::catalog::{HnswOptions, VectorOpClass};
use crate::error::Result;
use crate::plan::ScalarExpr;
use crate::storage::{ChunkRows, TableEntry};
use crate::types::ScalarValue;

/// `hnsw.ef_search` when the statement runs outside a session.
const EF_SEARCH_DEFAULT: usize = 40;

/// An hnsw index search for the rows nearest to a constant or parameter.
#[derive(Debug, Clone)]
pub struct NearestProbe {
    /// The table column the index covers, and its dimensions.
    pub column: usize,
    pub dims: usize,
    pub options: HnswOptions,
    pub query: ScalarExpr,
    /// LIMIT + OFFSET: the search finds at least this many rows.
    pub rows: usize,
}

impl NearestProbe {
    pub(super) fn find(&self, entry: &TableEntry, ctx: &ExecContext) -> Result<ChunkRows> {
        let query = match evaluate_constant(&self.query, ctx)? {
            ScalarValue::FloatVector(query) if self.ranks(&query) => query,
            _ => return Ok(every_row(entry)),
        };
        let index = entry
            .secondary_indexes
            .hnsw(self.column, self.dims, &self.options);
        let ef = ef_search(ctx).max(self.rows);
        let found = index.search(&entry.data, &query, ef)?;
        let mut row_ids = found.row_ids;
        if found.exhausted {
            row_ids.extend(index.unindexed_rows(&entry.data)?);
        }
        row_ids.sort_unstable();
        Ok(super::index_lookup::by_chunk(&row_ids))
    }

    /// Whether the index orders rows by their distance to `query`.
    fn ranks(&self, query: &[f32]) -> bool {
        query.len() == self.dims
            && (self.options.opclass != VectorOpClass::Cosine || query.iter().any(|&x| x != 0.0))
    }
}

/// `hnsw.ef_search` of the statement's session.
fn ef_search(ctx: &ExecContext) -> usize {
    ctx.settings
        .as_ref()
        .and_then(|rows| rows.iter().find(|r| r.name == "hnsw.ef_search"))
        .and_then(|row| row.setting.parse().ok())
        .unwrap_or(EF_SEARCH_DEFAULT)
}

/// Every live row of the table.
fn every_row(entry: &TableEntry) -> ChunkRows {
    entry
        .data
        .chunks()
        .enumerate()
        .map(|(chunk_idx, chunk)| {
            let live = (0..chunk.len as u32).filter(|&o| !chunk.is_deleted(o as usize));
            (chunk_idx, live.collect::<Vec<u32>>())
        })
        .filter(|(_, offsets)| !offsets.is_empty())
        .collect()
}
