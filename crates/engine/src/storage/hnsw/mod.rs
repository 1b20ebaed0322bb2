//! The hnsw indexes of CREATE INDEX ... USING hnsw: one graph per index, shared by every
//! version of its table (inside [`super::SecondaryIndexes`]), kept in memory only and
//! rebuilt from the table's rows after a restart.
//!
//! Writes never touch the graph. Like the hash indexes, it checks itself against the version
//! it is read with: per chunk it remembers the column vector whose rows all have a node
//! (keeping it alive, so an equal pointer means equal contents), and a search first adds a
//! node for each row of a chunk whose vector changed since (an INSERT, an UPDATE) and has no
//! node with its position and value yet. A search then accepts a node only where the version
//! holds that very value at that position, live: deleted rows, rolled-back rows and old
//! values of updated rows stay in the graph as waypoints and never come out of it.
//!
//! NULL vectors, and zero vectors under cosine distance (which has no direction), are not in
//! the graph, as in pgvector; see [`HnswIndex::search`] for how they still come out.

mod graph;

use std::sync::{Arc, RwLock};

use crate::catalog::{HnswOptions, VectorOpClass};
use crate::error::{Error, Result};
use crate::function::vector_kernels as kernels;
use crate::vector::{Vector, VectorData, BATCH_SIZE};

use super::TableData;
use graph::{Distance, HnswGraph};

/// No node (a position's first node list ends here).
const NO_NODE: u32 = u32::MAX;

pub struct HnswIndex {
    column: usize,
    opclass: VectorOpClass,
    state: RwLock<Indexed>,
}

struct Indexed {
    graph: HnswGraph,
    /// Per chunk, the column vector all of whose rows have a node.
    covered: Vec<Option<Arc<Vector>>>,
    /// The newest node of each row id (`NO_NODE`: none), and for each node the previous one
    /// of its row id: a position gets a node per value it has held.
    newest_at: Vec<u32>,
    previous: Vec<u32>,
}

/// What a search found: row ids, nearest first.
pub struct Nearest {
    pub row_ids: Vec<u64>,
    /// The search ran out of nodes before it found `ef` rows: every indexed row is among
    /// `row_ids`, and the rows the graph leaves out belong to the answer too.
    pub exhausted: bool,
}

impl std::fmt::Debug for HnswIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HnswIndex")
            .field("column", &self.column)
            .field("opclass", &self.opclass)
            .finish_non_exhaustive()
    }
}

impl HnswIndex {
    pub fn new(column: usize, dims: usize, options: &HnswOptions) -> HnswIndex {
        let graph = HnswGraph::new(
            dims,
            graph_distance(options.opclass),
            options.m(),
            options.ef_construction(),
        );
        HnswIndex {
            column,
            opclass: options.opclass,
            state: RwLock::new(Indexed {
                graph,
                covered: Vec::new(),
                newest_at: Vec::new(),
                previous: Vec::new(),
            }),
        }
    }

    /// `vector` as the graph keeps it (unit length under cosine distance); `None` when the
    /// graph cannot hold it (the wrong length, or no direction for cosine).
    fn indexed_form(&self, vector: &[f32], dims: usize) -> Option<Vec<f32>> {
        if vector.len() != dims {
            return None;
        }
        match self.opclass {
            VectorOpClass::Cosine => {
                let norm = kernels::norm(vector);
                (norm > 0.0).then(|| {
                    vector
                        .iter()
                        .map(|&x| (f64::from(x) / norm) as f32)
                        .collect()
                })
            }
            VectorOpClass::L2 | VectorOpClass::InnerProduct | VectorOpClass::L1 => {
                Some(vector.to_vec())
            }
        }
    }

    /// Whether a node storing `stored` stands for a row holding `value`.
    fn holds(&self, stored: &[f32], value: &[f32], dims: usize) -> bool {
        match self.opclass {
            VectorOpClass::Cosine => self
                .indexed_form(value, dims)
                .is_some_and(|v| same_values(&v, stored)),
            // Stored as they are: compared without a copy, once per candidate of a search.
            VectorOpClass::L2 | VectorOpClass::InnerProduct | VectorOpClass::L1 => {
                same_values(value, stored)
            }
        }
    }

    /// Adds a node for every row of `data` that has none for its value.
    pub fn sync(&self, data: &TableData) -> Result<()> {
        if self.read()?.covers(data, self.column) {
            return Ok(());
        }
        let mut indexed = self
            .state
            .write()
            .map_err(|_| Error::internal("hnsw index lock poisoned"))?;
        let dims = indexed.graph.dims();
        for (chunk_idx, chunk) in data.chunks().enumerate() {
            let column = &chunk.columns[self.column];
            if indexed.chunk_covered(chunk_idx, column) {
                continue;
            }
            let VectorData::FloatVector(values) = &column.data else {
                return Err(Error::internal(
                    "hnsw index over a column that is not vector",
                ));
            };
            // Deleted rows too: an older version sharing this vector may still see them.
            for offset in (0..chunk.len).filter(|&o| column.is_valid(o)) {
                let Some(vector) = self.indexed_form(values.get(offset), dims) else {
                    continue;
                };
                let row_id = (chunk_idx * BATCH_SIZE + offset) as u64;
                if indexed.node_with(row_id, &vector).is_none() {
                    indexed.insert(row_id, &vector);
                }
            }
            if indexed.covered.len() <= chunk_idx {
                indexed.covered.resize(chunk_idx + 1, None);
            }
            indexed.covered[chunk_idx] = Some(column.clone());
        }
        Ok(())
    }

    /// The rows of `data` nearest to `query`: up to `ef` of them found through the graph,
    /// after adding what `data` holds and the graph lacks.
    pub fn search(&self, data: &TableData, query: &[f32], ef: usize) -> Result<Nearest> {
        self.sync(data)?;
        let indexed = self.read()?;
        let dims = indexed.graph.dims();
        let Some(query) = self.indexed_form(query, dims) else {
            return Err(Error::internal("hnsw search with a vector it cannot index"));
        };
        let graph = &indexed.graph;
        let live_value = |node: u32| {
            let row_id = graph.row_id(node) as usize;
            let (chunk_idx, offset) = (row_id / BATCH_SIZE, row_id % BATCH_SIZE);
            let Some(chunk) = data.chunk(chunk_idx) else {
                return false;
            };
            let column = &chunk.columns[self.column];
            if offset >= chunk.len || chunk.is_deleted(offset) || !column.is_valid(offset) {
                return false;
            }
            let VectorData::FloatVector(values) = &column.data else {
                return false;
            };
            self.holds(graph.vector(node), values.get(offset), dims)
        };
        let found = graph.search(&query, ef, &live_value);
        Ok(Nearest {
            exhausted: found.len() < ef,
            row_ids: found.iter().map(|n| graph.row_id(n.node)).collect(),
        })
    }

    /// The live rows of `data` the graph leaves out (NULL vectors, and zero vectors under
    /// cosine distance), which a seq scan sorts after or among the others.
    pub fn unindexed_rows(&self, data: &TableData) -> Result<Vec<u64>> {
        let dims = self.read()?.graph.dims();
        let mut rows = Vec::new();
        for (chunk_idx, chunk) in data.chunks().enumerate() {
            let column = &chunk.columns[self.column];
            let VectorData::FloatVector(values) = &column.data else {
                return Err(Error::internal(
                    "hnsw index over a column that is not vector",
                ));
            };
            rows.extend(
                (0..chunk.len)
                    .filter(|&o| !chunk.is_deleted(o))
                    .filter(|&o| {
                        !column.is_valid(o) || self.indexed_form(values.get(o), dims).is_none()
                    })
                    .map(|o| (chunk_idx * BATCH_SIZE + o) as u64),
            );
        }
        Ok(rows)
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, Indexed>> {
        self.state
            .read()
            .map_err(|_| Error::internal("hnsw index lock poisoned"))
    }
}

impl Indexed {
    fn covers(&self, data: &TableData, column: usize) -> bool {
        data.chunks()
            .enumerate()
            .all(|(chunk_idx, chunk)| self.chunk_covered(chunk_idx, &chunk.columns[column]))
    }

    fn chunk_covered(&self, chunk_idx: usize, column: &Arc<Vector>) -> bool {
        self.covered
            .get(chunk_idx)
            .and_then(Option::as_ref)
            .is_some_and(|covered| Arc::ptr_eq(covered, column))
    }

    /// The node of row `row_id` holding `vector`, if there is one.
    fn node_with(&self, row_id: u64, vector: &[f32]) -> Option<u32> {
        let mut node = *self.newest_at.get(row_id as usize)?;
        while node != NO_NODE {
            if same_values(self.graph.vector(node), vector) {
                return Some(node);
            }
            node = self.previous[node as usize];
        }
        None
    }

    fn insert(&mut self, row_id: u64, vector: &[f32]) {
        let node = self.graph.len() as u32;
        self.graph.insert(row_id, vector);
        let row = row_id as usize;
        if self.newest_at.len() <= row {
            self.newest_at.resize(row + 1, NO_NODE);
        }
        self.previous.push(self.newest_at[row]);
        self.newest_at[row] = node;
    }
}

/// Bit-for-bit equality, so that a value is found again exactly (and -0 is not 0).
fn same_values(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The distance the graph orders by: one that ranks as the operator class's does. L2 skips
/// the square root, cosine compares unit vectors by their inner product.
fn graph_distance(opclass: VectorOpClass) -> Distance {
    match opclass {
        VectorOpClass::L2 => kernels::l2_squared,
        VectorOpClass::InnerProduct => |a, b| -kernels::inner_product(a, b),
        VectorOpClass::Cosine => |a, b| 1.0 - kernels::inner_product(a, b),
        VectorOpClass::L1 => kernels::l1,
    }
}
