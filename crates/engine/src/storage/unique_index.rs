//! A unique index: key bytes → candidate row ids. One index serves every version of its
//! table; only the transaction holding the table's write lock changes it. Entries are hints:
//! a candidate counts only if the row is live in the version being checked and still has the
//! key, so entries left behind by rolled-back or updated rows do no harm. A candidate whose
//! row is deleted in the oldest version anyone still reads is deleted in every version
//! (row ids are never reused within one index), so an insertion drops it: a key deleted and
//! inserted again does not pile up candidates.

use std::sync::Mutex;

use hashbrown::hash_map::EntryRef;
use hashbrown::HashMap;

use super::table_data::TableData;
use super::value_text::{key_text, EnumTypes};
use crate::catalog::{TableSchema, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::types::DataType;
use crate::vector::{encode_row_key, Vector, BATCH_SIZE};

#[derive(Debug, Default)]
pub struct UniqueIndex {
    entries: Mutex<HashMap<Box<[u8]>, Vec<u64>>>,
}

impl UniqueIndex {
    /// Records `row_id` under `key` unless a live row of `data` other than `row_id` already
    /// has that key; returns false on such a conflict. `oldest` is the oldest version still
    /// read that uses this index: candidates deleted there are dropped.
    pub fn insert(
        &self,
        key: &[u8],
        row_id: u64,
        data: &TableData,
        columns: &[usize],
        oldest: Option<&TableData>,
    ) -> bool {
        let mut entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut scratch = Vec::new();
        if let Some(candidates) = entries.get_mut(key) {
            if let Some(oldest) = oldest {
                candidates.retain(|&c| !is_deleted(oldest, c));
            }
            // Entries that do not hold in this version are kept: they may hold in another
            // (an older snapshot, or after this transaction rolls back).
            if candidates
                .iter()
                .any(|&c| c != row_id && row_has_key(data, c, columns, key, &mut scratch))
            {
                return false;
            }
            if !candidates.contains(&row_id) {
                candidates.push(row_id);
            }
            return true;
        }
        entries.insert(key.into(), vec![row_id]);
        true
    }

    /// The most candidates any key has (tests check that churn does not pile them up).
    #[cfg(test)]
    pub fn most_candidates(&self) -> usize {
        let entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        entries.values().map(Vec::len).max().unwrap_or(0)
    }

    /// The row of `data` with `key`, if a live one has it.
    pub fn lookup(&self, key: &[u8], data: &TableData, columns: &[usize]) -> Option<u64> {
        let entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut scratch = Vec::new();
        entries
            .get(key)?
            .iter()
            .copied()
            .find(|&c| row_has_key(data, c, columns, key, &mut scratch))
    }
}

impl UniqueIndex {
    /// The first of `keys` (each with its row) that no live row of `data` has, under one
    /// lock for them all: a foreign key checks a batch of references with this.
    pub fn first_missing<'k>(
        &self,
        keys: impl Iterator<Item = (usize, &'k [u8])>,
        data: &TableData,
        columns: &[usize],
    ) -> Option<usize> {
        let entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut scratch = Vec::new();
        for (row, key) in keys {
            let present = entries.get(key).is_some_and(|candidates| {
                candidates
                    .iter()
                    .any(|&c| row_has_key(data, c, columns, key, &mut scratch))
            });
            if !present {
                return Some(row);
            }
        }
        None
    }
}

/// Whether row `row_id` is stored in `data` and deleted there.
fn is_deleted(data: &TableData, row_id: u64) -> bool {
    let offset = row_id as usize % BATCH_SIZE;
    data.chunk(row_id as usize / BATCH_SIZE)
        .is_some_and(|chunk| offset < chunk.len && chunk.is_deleted(offset))
}

/// Whether row `row_id` is live in `data` and its key over `columns` is `key`.
fn row_has_key(
    data: &TableData,
    row_id: u64,
    columns: &[usize],
    key: &[u8],
    scratch: &mut Vec<u8>,
) -> bool {
    if !data.is_live(row_id) {
        return false;
    }
    let (chunk_idx, offset) = (row_id as usize / BATCH_SIZE, row_id as usize % BATCH_SIZE);
    let Some(chunk) = data.chunk(chunk_idx) else {
        return false;
    };
    let vectors: Vec<&crate::vector::Vector> =
        columns.iter().map(|&c| &*chunk.columns[c]).collect();
    scratch.clear();
    encode_row_key(&vectors, offset, scratch);
    scratch.as_slice() == key
}

/// Unique indexes over the live rows of `data`, one per key of `schema`; 23505 `could not
/// create unique index` when two rows share a key (`enums` print its DETAIL).
pub fn build_unique_indexes(
    schema: &TableSchema,
    data: &TableData,
    enums: &EnumTypes,
) -> Result<Vec<UniqueIndex>> {
    let mut indexes = Vec::with_capacity(schema.unique_keys.len());
    let mut key = Vec::new();
    for unique in &schema.unique_keys {
        // One version's live rows: a key seen twice is a duplicate, no candidate needs
        // checking. Sized up front and filled under one lock with one hash per key, this
        // is what start-up spends most of its time on (2 M keys took 1 s before).
        let mut entries: HashMap<Box<[u8]>, Vec<u64>> = HashMap::with_capacity(data.live_rows());
        for (chunk_idx, chunk) in data.chunks().enumerate() {
            let columns: Vec<&Vector> =
                unique.columns.iter().map(|&c| &*chunk.columns[c]).collect();
            for row in (0..chunk.len).filter(|&r| !chunk.is_deleted(r)) {
                key.clear();
                if encode_row_key(&columns, row, &mut key) {
                    continue; // NULLs never conflict.
                }
                let row_id = (chunk_idx * BATCH_SIZE + row) as u64;
                match entries.entry_ref(key.as_slice()) {
                    EntryRef::Occupied(_) => {
                        return Err(duplicated(schema, unique, &columns, row, enums))
                    }
                    EntryRef::Vacant(vacant) => {
                        vacant.insert(vec![row_id]);
                    }
                }
            }
        }
        indexes.push(UniqueIndex {
            entries: Mutex::new(entries),
        });
    }
    Ok(indexes)
}

/// `(k)=(v)` for the key of `unique` in `columns` (its columns' values) at `row`.
pub(crate) fn unique_key_text(
    schema: &TableSchema,
    unique: &UniqueKey,
    columns: &[&Vector],
    row: usize,
    enums: &EnumTypes,
) -> String {
    let names: Vec<&str> = (unique.columns.iter())
        .map(|&c| schema.columns[c].name.as_str())
        .collect();
    let values: Vec<(&Vector, &DataType)> = (unique.columns.iter())
        .zip(columns)
        .map(|(&c, &column)| (column, &schema.columns[c].data_type))
        .collect();
    key_text(&names, &values, row, enums)
}

fn duplicated(
    schema: &TableSchema,
    unique: &UniqueKey,
    columns: &[&Vector],
    row: usize,
    enums: &EnumTypes,
) -> Error {
    Error::new(
        SqlState::UniqueViolation,
        format!("could not create unique index \"{}\"", unique.name),
    )
    .with_detail(format!(
        "Key {} is duplicated.",
        unique_key_text(schema, unique, columns, row, enums)
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::types::{DataType, ScalarValue};
    use crate::vector::{int_key, Batch, Vector};

    use super::{TableData, UniqueIndex};

    fn table(values: &[i32]) -> TableData {
        let mut data = TableData::default();
        let mut vector = Vector::with_capacity(DataType::Int32.physical(), values.len());
        for v in values {
            assert!(vector.push_scalar(&ScalarValue::Int32(*v)).is_ok());
        }
        let batch = Batch::new(vec![Arc::new(vector)], values.len());
        assert!(data.append(&[DataType::Int32], &batch).is_ok());
        data
    }

    #[test]
    fn an_entry_that_does_not_hold_in_one_version_survives_for_the_others(
    ) -> crate::error::Result<()> {
        let index = UniqueIndex::default();
        let committed = table(&[7]);
        assert!(index.insert(&int_key(7), 0, &committed, &[0], None));
        // A transaction deletes row 0 and inserts 7 again as row 1, then rolls back.
        let mut private = committed.clone();
        assert!(private.delete_rows(0, &[0]).is_ok());
        assert!(private
            .append(
                &[DataType::Int32],
                &Batch::new(
                    vec![Arc::new(Vector::from_scalar(
                        &ScalarValue::Int32(7),
                        DataType::Int32,
                        1
                    )?)],
                    1
                )
            )
            .is_ok());
        assert!(index.insert(&int_key(7), 1, &private, &[0], Some(&committed)));
        // The committed version still finds its row, and still refuses a second 7.
        assert_eq!(index.lookup(&int_key(7), &committed, &[0]), Some(0));
        let mut other = committed.clone();
        assert!(other
            .append(
                &[DataType::Int32],
                &Batch::new(
                    vec![Arc::new(Vector::from_scalar(
                        &ScalarValue::Int32(7),
                        DataType::Int32,
                        1
                    )?)],
                    1
                )
            )
            .is_ok());
        assert!(!index.insert(&int_key(7), 1, &other, &[0], Some(&committed)));
        Ok(())
    }
}
