//! The rows of one table version: a list of chunks of at most [`BATCH_SIZE`] rows, each
//! holding one vector per column and a deletion bitmap. Chunks and their column vectors sit
//! behind `Arc`s, so a new version shares everything it does not change, and a change copies
//! only the (chunk, column) pairs it touches. A row's id is its position: chunk index times
//! BATCH_SIZE plus its offset; every chunk but the last is full.

use std::sync::Arc;

use super::TableChanges;
use crate::error::Result;
use crate::types::DataType;
use crate::vector::{Batch, Bitmap, Vector, BATCH_SIZE};

/// The column index that stands for each row's id (an int8) where a scan or index lookup
/// lists the columns it reads: what SELECT ... FOR UPDATE locks rows by.
pub const ROW_ID_COLUMN: usize = usize::MAX;

#[derive(Debug, Clone)]
pub struct Chunk {
    pub columns: Vec<Arc<Vector>>,
    /// Bit set = row deleted. `None` when no row of the chunk is deleted.
    pub deleted: Option<Arc<Bitmap>>,
    pub len: usize,
}

impl Chunk {
    fn empty(types: &[DataType]) -> Chunk {
        Chunk {
            columns: types
                .iter()
                .map(|t| Arc::new(Vector::with_capacity(t.physical(), BATCH_SIZE)))
                .collect(),
            deleted: None,
            len: 0,
        }
    }

    #[inline]
    pub fn is_deleted(&self, row: usize) -> bool {
        self.deleted.as_ref().is_some_and(|d| d.get(row))
    }

    pub fn live_rows(&self) -> usize {
        self.len - self.deleted.as_ref().map_or(0, |d| d.count_ones())
    }

    /// Column `column` of the rows at `offsets` of this chunk, which is chunk `chunk_idx`
    /// ([`ROW_ID_COLUMN`]: the rows' ids).
    pub fn gather_column(&self, chunk_idx: usize, column: usize, offsets: &[u32]) -> Arc<Vector> {
        if column != ROW_ID_COLUMN {
            return Arc::new(self.columns[column].gather(offsets));
        }
        let base = (chunk_idx * BATCH_SIZE) as i64;
        let ids = offsets.iter().map(|&o| base + i64::from(o)).collect();
        Arc::new(Vector::new(crate::vector::VectorData::Int64(ids), None))
    }

    /// The live rows of chunk `chunk_idx` (this one) as a batch of the columns at
    /// `projection`, which may ask for [`ROW_ID_COLUMN`].
    pub fn to_batch_with_row_ids(&self, chunk_idx: usize, projection: &[usize]) -> Batch {
        let live: Vec<u32> = (0..self.len as u32)
            .filter(|&r| !self.is_deleted(r as usize))
            .collect();
        let columns = projection
            .iter()
            .map(|&c| self.gather_column(chunk_idx, c, &live))
            .collect();
        Batch::new(columns, live.len())
    }

    /// The chunk's live rows as a batch of the columns at `projection`.
    pub fn to_batch(&self, projection: &[usize]) -> Batch {
        match &self.deleted {
            None => Batch::new(
                projection
                    .iter()
                    .map(|&c| self.columns[c].clone())
                    .collect(),
                self.len,
            ),
            Some(deleted) => {
                let live: Vec<u32> = (0..self.len as u32)
                    .filter(|&r| !deleted.get(r as usize))
                    .collect();
                Batch::new(
                    projection
                        .iter()
                        .map(|&c| Arc::new(self.columns[c].gather(&live)))
                        .collect(),
                    live.len(),
                )
            }
        }
    }
}

/// The column for appending to: a column shared with another version is copied once into a
/// vector with room for a full chunk, rather than cloned at its length and then grown (two
/// copies and a reallocation for every single-row INSERT into a shared last chunk).
fn unshared_with_room(column: &mut Arc<Vector>) -> &mut Vector {
    if Arc::get_mut(column).is_none() {
        let mut copy = Vector::with_capacity(column.data.physical(), BATCH_SIZE);
        copy.extend(column)
            .expect("invariant: a copy has the physical type of its original");
        *column = Arc::new(copy);
    }
    Arc::make_mut(column)
}

/// The chunks of a table version. Every chunk but the last is full and sits in one shared
/// list: a version that only appends shares that list whole, so cloning a version and
/// appending a row cost the same for a table of one chunk or of a thousand (they were linear
/// in the chunk count, which made single-row inserts slow down as a table grew).
#[derive(Debug, Clone)]
pub struct TableData {
    sealed: Arc<Vec<Arc<Chunk>>>,
    /// The last chunk, full or not.
    tail: Option<Arc<Chunk>>,
    /// Rows deleted but still stored: what compaction would reclaim.
    deleted_rows: usize,
    /// What changed since the committed version this one was copied from.
    changes: TableChanges,
}

impl Default for TableData {
    fn default() -> Self {
        TableData {
            sealed: Arc::default(),
            tail: None,
            deleted_rows: 0,
            changes: TableChanges::fresh(0),
        }
    }
}

impl TableData {
    /// A table version of `chunks` read back from disk: every chunk but the last full,
    /// every column and deletion bitmap as long as its chunk, else XX001.
    pub fn from_chunks(types: &[DataType], chunks: Vec<Chunk>) -> Result<TableData> {
        let count = chunks.len();
        let mut deleted_rows = 0;
        for (index, chunk) in chunks.iter().enumerate() {
            let full = chunk.len == BATCH_SIZE;
            let shaped = chunk.len <= BATCH_SIZE
                && (full || index + 1 == count)
                && chunk.len > 0
                && chunk.columns.len() == types.len()
                && chunk
                    .columns
                    .iter()
                    .zip(types)
                    .all(|(c, t)| c.len() == chunk.len && c.data.physical() == t.physical())
                && chunk.deleted.as_ref().is_none_or(|d| d.len() == chunk.len);
            if !shaped {
                return Err(crate::durability::corrupt(format!(
                    "chunk {index} of {count} does not have the table's shape"
                )));
            }
            deleted_rows += chunk.len - chunk.live_rows();
        }
        let rows = chunks.iter().map(|c| c.len).sum();
        let mut chunks: Vec<Arc<Chunk>> = chunks.into_iter().map(Arc::new).collect();
        let tail = chunks.pop();
        Ok(TableData {
            sealed: Arc::new(chunks),
            tail,
            deleted_rows,
            changes: TableChanges::fresh(rows),
        })
    }

    /// What changed since the committed version this one was copied from.
    pub fn changes(&self) -> &TableChanges {
        &self.changes
    }

    /// This version as committed: the next transaction's changes start from it.
    pub fn as_committed(&self) -> TableData {
        TableData {
            changes: self.changes.committed(self.row_capacity()),
            ..self.clone()
        }
    }

    pub fn chunk_count(&self) -> usize {
        self.sealed.len() + usize::from(self.tail.is_some())
    }

    pub fn chunk(&self, index: usize) -> Option<&Arc<Chunk>> {
        match index.cmp(&self.sealed.len()) {
            std::cmp::Ordering::Less => self.sealed.get(index),
            std::cmp::Ordering::Equal => self.tail.as_ref(),
            std::cmp::Ordering::Greater => None,
        }
    }

    pub fn chunks(&self) -> impl Iterator<Item = &Arc<Chunk>> {
        self.sealed.iter().chain(self.tail.iter())
    }

    /// Chunk `index` for writing; unshares the list of full chunks when it is one of them.
    fn chunk_mut(&mut self, index: usize) -> Option<&mut Arc<Chunk>> {
        if index < self.sealed.len() {
            Arc::make_mut(&mut self.sealed).get_mut(index)
        } else if index == self.sealed.len() {
            self.tail.as_mut()
        } else {
            None
        }
    }

    /// Chunk `index` for writing, unshared; an internal error when there is no such chunk.
    fn writable_chunk(&mut self, index: usize) -> Result<&mut Chunk> {
        match self.chunk_mut(index) {
            Some(chunk) => Ok(Arc::make_mut(chunk)),
            None => Err(crate::error::Error::internal(format!(
                "chunk {index} out of range"
            ))),
        }
    }

    /// Every chunk for writing (ALTER TABLE rewrites them all).
    pub fn chunks_mut(&mut self) -> impl Iterator<Item = &mut Arc<Chunk>> {
        self.changes.rewritten = true;
        Arc::make_mut(&mut self.sealed)
            .iter_mut()
            .chain(self.tail.iter_mut())
    }

    /// Rows deleted but still stored.
    pub fn deleted_rows(&self) -> usize {
        self.deleted_rows
    }

    /// The live rows alone, in order, in fresh chunks: deleted rows reclaimed. Row ids
    /// change, so whatever maps row ids (the unique indexes) must be rebuilt with it.
    pub fn compacted(&self, types: &[DataType]) -> Result<TableData> {
        let all: Vec<usize> = (0..types.len()).collect();
        let mut out = TableData::default();
        for chunk in self.chunks() {
            let batch = chunk.to_batch(&all);
            if !batch.is_empty() {
                out.append(types, &batch)?;
            }
        }
        Ok(out)
    }

    /// Rows ever stored, deleted ones included: the next row id.
    pub fn row_capacity(&self) -> usize {
        self.sealed.len() * BATCH_SIZE + self.tail.as_ref().map_or(0, |t| t.len)
    }

    pub fn live_rows(&self) -> usize {
        self.chunks().map(|c| c.live_rows()).sum()
    }

    /// Whether row `row_id` was stored and is not deleted.
    pub fn is_live(&self, row_id: u64) -> bool {
        let (chunk, offset) = (row_id as usize / BATCH_SIZE, row_id as usize % BATCH_SIZE);
        self.chunk(chunk)
            .is_some_and(|c| offset < c.len && !c.is_deleted(offset))
    }

    /// Appends the rows of `batch` (already of the table's column types); returns the row id
    /// of the first appended row.
    pub fn append(&mut self, types: &[DataType], batch: &Batch) -> Result<usize> {
        // A row narrower or wider than the table (a statement bound against another schema)
        // would leave chunks whose columns disagree on their length.
        if batch.columns.len() != types.len() {
            return Err(crate::error::Error::internal(format!(
                "invariant: a row of {} columns appended to a table of {}",
                batch.columns.len(),
                types.len()
            )));
        }
        let first_row_id = self.row_capacity();
        if self.adopt_whole_chunk(types, batch) {
            return Ok(first_row_id);
        }
        let mut row = 0;
        while row < batch.len() {
            let tail = match &mut self.tail {
                Some(tail) if tail.len < BATCH_SIZE => tail,
                full_or_none => {
                    if let Some(full) = full_or_none.take() {
                        Arc::make_mut(&mut self.sealed).push(full);
                    }
                    full_or_none.insert(Arc::new(Chunk::empty(types)))
                }
            };
            let chunk = Arc::make_mut(tail);
            let take = (BATCH_SIZE - chunk.len).min(batch.len() - row);
            for (column, source) in chunk.columns.iter_mut().zip(&batch.columns) {
                let column = unshared_with_room(column);
                for r in row..row + take {
                    column.push_from(source, r)?;
                }
            }
            if let Some(deleted) = &mut chunk.deleted {
                let deleted = Arc::make_mut(deleted);
                for _ in 0..take {
                    deleted.push(false);
                }
            }
            chunk.len += take;
            row += take;
        }
        Ok(first_row_id)
    }

    /// A batch of exactly one chunk's rows, appended after a full last chunk (or to an empty
    /// table), becomes a chunk of its own that shares the batch's vectors: a bulk load
    /// (COPY, INSERT ... SELECT) stores its column vectors without copying them value by
    /// value. False (nothing done) for any other batch.
    fn adopt_whole_chunk(&mut self, types: &[DataType], batch: &Batch) -> bool {
        let fits = batch.len() == BATCH_SIZE
            && self.tail.as_ref().is_none_or(|tail| tail.len == BATCH_SIZE)
            && batch.columns.iter().zip(types).all(|(column, ty)| {
                column.len() == BATCH_SIZE && column.data.physical() == ty.physical()
            });
        if !fits {
            return false;
        }
        if let Some(full) = self.tail.take() {
            Arc::make_mut(&mut self.sealed).push(full);
        }
        self.tail = Some(Arc::new(Chunk {
            columns: batch.columns.clone(),
            deleted: None,
            len: BATCH_SIZE,
        }));
        true
    }

    /// The live rows of this version from row id `first` on, a batch per chunk.
    pub fn rows_from(&self, first: u64) -> Vec<Batch> {
        let first_chunk = first as usize / BATCH_SIZE;
        let mut batches = Vec::new();
        for (chunk_idx, chunk) in self.chunks().enumerate().skip(first_chunk) {
            let start = if chunk_idx == first_chunk {
                first as usize % BATCH_SIZE
            } else {
                0
            };
            if start == 0 && chunk.deleted.is_none() {
                // A chunk the statement filled: its columns as they are, no copy.
                batches.push(Batch::new(chunk.columns.clone(), chunk.len));
                continue;
            }
            let offsets: Vec<u32> = (start..chunk.len)
                .filter(|&r| !chunk.is_deleted(r))
                .map(|r| r as u32)
                .collect();
            let columns = chunk.columns.iter().map(|c| Arc::new(c.gather(&offsets)));
            batches.push(Batch::new(columns.collect(), offsets.len()));
        }
        batches
    }

    /// Marks the rows at `offsets` of chunk `chunk_idx` deleted.
    pub fn delete_rows(&mut self, chunk_idx: usize, offsets: &[u32]) -> Result<()> {
        self.changes.record_delete(chunk_idx, offsets);
        let chunk = self.writable_chunk(chunk_idx)?;
        let len = chunk.len;
        let deleted = Arc::make_mut(
            chunk
                .deleted
                .get_or_insert_with(|| Arc::new(Bitmap::new(len, false))),
        );
        let mut newly_deleted = 0;
        for &offset in offsets {
            if !deleted.get(offset as usize) {
                deleted.set(offset as usize, true);
                newly_deleted += 1;
            }
        }
        self.deleted_rows += newly_deleted;
        Ok(())
    }

    /// Overwrites column `column_idx` at `offsets` of chunk `chunk_idx` with the rows of
    /// `values` (same physical type, one value per offset).
    pub fn update_column(
        &mut self,
        chunk_idx: usize,
        column_idx: usize,
        offsets: &[u32],
        values: &Vector,
    ) -> Result<()> {
        self.changes.record_update(chunk_idx, column_idx, offsets);
        let chunk = self.writable_chunk(chunk_idx)?;
        // Copy-on-write at (chunk, column) granularity.
        let rebuilt = chunk.columns[column_idx].with_rows_replaced(offsets, values)?;
        chunk.columns[column_idx] = Arc::new(rebuilt);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::TableData;
    use crate::types::{DataType, ScalarValue};
    use crate::vector::{Batch, Vector};

    fn row(id: i32, note: Option<&str>) -> Batch {
        let mut ids = Vector::with_capacity(DataType::Int32.physical(), 1);
        assert!(ids.push_scalar(&ScalarValue::Int32(id)).is_ok());
        let mut notes = Vector::with_capacity(DataType::Text.physical(), 1);
        let note = note.map_or(ScalarValue::Null, |n| ScalarValue::Text(n.into()));
        assert!(notes.push_scalar(&note).is_ok());
        Batch::new(vec![Arc::new(ids), Arc::new(notes)], 1)
    }

    #[test]
    fn an_append_to_a_shared_last_chunk_leaves_the_other_version_as_it_was() {
        let types = [DataType::Int32, DataType::Text];
        let mut committed = TableData::default();
        for (id, note) in [(1, Some("a")), (2, None), (3, Some("c"))] {
            assert!(committed.append(&types, &row(id, note)).is_ok());
        }
        assert!(committed.delete_rows(0, &[1]).is_ok());
        let mut private = committed.clone();
        assert_eq!(private.append(&types, &row(4, Some("d"))).ok(), Some(3));

        let Some(old) = committed.chunk(0) else {
            panic!("the committed chunk is gone");
        };
        assert_eq!((old.len, old.live_rows()), (3, 2));
        assert_eq!(old.columns[1].len(), 3);
        let Some(new) = private.chunk(0) else {
            panic!("the private chunk is gone");
        };
        assert_eq!((new.len, new.live_rows()), (4, 3));
        let values = |c: usize| -> Vec<ScalarValue> {
            (0..4).map(|r| new.columns[c].get_scalar(r)).collect()
        };
        assert_eq!(values(0), [1, 2, 3, 4].map(ScalarValue::Int32).to_vec());
        assert_eq!(
            values(1),
            vec![
                ScalarValue::Text("a".into()),
                ScalarValue::Null,
                ScalarValue::Text("c".into()),
                ScalarValue::Text("d".into()),
            ]
        );
        assert!(new.is_deleted(1) && !new.is_deleted(3));
    }

    #[test]
    fn versions_that_append_one_row_at_a_time_share_their_full_chunks() {
        let types = [DataType::Int32, DataType::Text];
        let mut versions = vec![TableData::default()];
        for id in 0..5000 {
            let mut next = versions[versions.len() - 1].clone();
            assert_eq!(next.append(&types, &row(id, None)).ok(), Some(id as usize));
            versions.push(next);
        }
        let last = &versions[5000];
        assert_eq!((last.chunk_count(), last.row_capacity()), (3, 5000));
        assert!(last.chunks().take(2).all(|c| c.len == super::BATCH_SIZE));
        // An older version still has exactly its rows, and shares the full chunks it has.
        let older = &versions[3000];
        assert_eq!((older.chunk_count(), older.row_capacity()), (2, 3000));
        assert!(matches!((older.chunk(0), last.chunk(0)), (Some(a), Some(b)) if Arc::ptr_eq(a, b)));
        assert_eq!(
            last.chunk(2).map(|c| c.columns[0].get_scalar(903)),
            Some(ScalarValue::Int32(4999))
        );
        assert!(last.chunk(3).is_none());
    }
}
