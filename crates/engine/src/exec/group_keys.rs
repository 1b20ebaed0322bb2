//! The groups of a hash aggregation: each row's dense group id per grouping set, and the key
//! values of every group (NULL for keys outside the group's set).
//!
//! Group ids come from one of three indexes, chosen once per query. A single integer-like
//! key (the common `GROUP BY k`) maps values straight to ids: through a vector indexed by
//! `value - base` while the values span a small range, through a `HashMap<i64, u32>` once
//! they do not. A single text key hashes the string and compares against the stored group
//! keys. Everything else (several keys, grouping sets) encodes the keys into bytes. None of
//! them allocates per row.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use super::join_cache::partition_of;
use crate::error::{Error, Result};
use crate::types::PhysicalType;
use crate::vector::{encode_row_key, Vector, VectorData};

/// Widest value range the direct index covers (4 bytes per slot: 1 MiB). Wide enough for
/// 100K-group keys, where the hash map's cache-missing probes made the whole aggregate
/// 4.7× slower (bench/PROFILE.md).
const DIRECT_SPAN_MAX: u64 = 1 << 18;
const NO_GROUP: u32 = u32::MAX;

pub(super) struct Groups {
    /// Key values of every group, one vector per GROUP BY key.
    pub(super) keys: Vec<Vector>,
    /// The grouping set of every group.
    pub(super) set_of_group: Vec<u32>,
    index: Index,
    /// Several grouping sets: their index is part of the encoded key.
    tag_sets: bool,
    key_buf: Vec<u8>,
}

enum Index {
    Int(IntIndex),
    Text(TextIndex),
    Encoded(HashMap<Box<[u8]>, u32>),
}

impl Groups {
    pub(super) fn new(key_types: &[PhysicalType], sets: &[&[usize]]) -> Groups {
        let single = match (sets, key_types) {
            ([set], [ty]) if set.len() == 1 => Some(*ty),
            _ => None,
        };
        let index = match single {
            Some(
                PhysicalType::Int16
                | PhysicalType::Int32
                | PhysicalType::Int64
                | PhysicalType::Date
                | PhysicalType::Timestamp
                | PhysicalType::TimestampTz
                | PhysicalType::Time
                | PhysicalType::TimeTz,
            ) => Index::Int(IntIndex::default()),
            Some(PhysicalType::Text) => Index::Text(TextIndex::default()),
            Some(
                PhysicalType::Bool
                | PhysicalType::Float32
                | PhysicalType::Float64
                | PhysicalType::Interval
                | PhysicalType::Numeric
                | PhysicalType::Bytes
                | PhysicalType::Uuid
                | PhysicalType::Inet
                | PhysicalType::Jsonb
                | PhysicalType::List(_)
                | PhysicalType::Struct(_)
                | PhysicalType::FloatVector,
            )
            | None => Index::Encoded(HashMap::new()),
        };
        Groups {
            keys: key_types
                .iter()
                .map(|&ty| Vector::with_capacity(ty, 0))
                .collect(),
            set_of_group: Vec::new(),
            index,
            tag_sets: sets.len() > 1,
            key_buf: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.set_of_group.len()
    }

    /// A group of set `set` whose keys are all absent (NULL): the one group of a set
    /// without keys.
    pub(super) fn add_absent(&mut self, set: usize) -> u32 {
        self.keys.iter_mut().for_each(Vector::push_null);
        self.set_of_group.push(set as u32);
        self.set_of_group.len() as u32 - 1
    }

    /// The groups of each of `partitioner`'s partitions, which equal keys share in
    /// whichever table they are: a partitioned merge folds partition p of every worker's
    /// table apart from the others.
    pub(super) fn partitions(&self, partitioner: &Partitioner) -> Result<Vec<Vec<u32>>> {
        let count = partitioner.count();
        let mut lists = vec![Vec::with_capacity(self.len() / count); count];
        match (partitioner, &self.index) {
            (Partitioner::Range { low, width, .. }, Index::Int(index)) => {
                // The slots hold the groups in key order: each partition is a stretch of
                // them, found without reading, hashing or dividing any key.
                lists[0].extend(index.null_group);
                if let Some((base, slots)) = &index.direct {
                    let mut start = 0;
                    for (p, list) in lists.iter_mut().enumerate() {
                        let next_low = low + (p as i128 + 1) * width;
                        let end = match p + 1 == count {
                            true => slots.len(),
                            false => (next_low - i128::from(*base))
                                .clamp(start as i128, slots.len() as i128)
                                as usize,
                        };
                        list.extend(slots[start..end].iter().filter(|&&id| id != NO_GROUP));
                        start = end;
                    }
                }
            }
            (Partitioner::Range { .. }, Index::Text(_) | Index::Encoded(_)) => {
                return Err(Error::internal(
                    "range partitions of keys that are not integers",
                ))
            }
            (Partitioner::Hash { .. }, _) => {
                let keys: Vec<&Vector> = self.keys.iter().collect();
                let mut partitions = Vec::with_capacity(self.len());
                hash_partitions(&keys, self.len(), count, &mut partitions);
                for (group, &partition) in partitions.iter().enumerate() {
                    lists[partition as usize].push(group as u32);
                }
            }
        }
        Ok(lists)
    }

    /// Whether the keys are a single integer key held in a direct index: a table lookups
    /// of which cost an array read, which partitioning the rows would only slow down.
    pub(super) fn is_direct(&self) -> bool {
        matches!(
            &self.index,
            Index::Int(IntIndex {
                direct: Some(_),
                ..
            })
        )
    }

    /// The range of the keys of a single integer key held in a direct index (an empty
    /// range when there is none yet); None when the keys are in a hash map or not integers.
    fn direct_range(&self) -> Option<(i128, i128)> {
        let Index::Int(index) = &self.index else {
            return None;
        };
        match &index.direct {
            Some((base, slots)) if !slots.is_empty() => {
                let base = i128::from(*base);
                Some((base, base + slots.len() as i128 - 1))
            }
            Some(_) => Some(EMPTY_RANGE),
            None if index.map.is_empty() => Some(EMPTY_RANGE),
            None => None,
        }
    }

    /// Makes room for `groups` groups of partition `partition` of `partitioner`, in a table
    /// that has none yet: a range partition's keys get a direct index over the range, so
    /// none of them re-bases or grows it.
    pub(super) fn reserve(&mut self, partitioner: &Partitioner, partition: usize, groups: usize) {
        self.set_of_group.reserve(groups);
        match (&mut self.index, partitioner.range_of(partition)) {
            (Index::Int(index), Some((low, high))) => {
                let span = high - low + 1;
                let fresh = index.direct.is_none() && index.map.is_empty();
                if fresh && (1..=DIRECT_SPAN_MAX as i128).contains(&span) {
                    let base = i64::try_from(low).ok();
                    index.direct = base.map(|base| (base, vec![NO_GROUP; span as usize]));
                }
            }
            (Index::Int(index), None) => index.map.reserve(groups),
            (Index::Encoded(ids), _) => ids.reserve(groups),
            // Its hash table needs the stored keys to grow: it grows as they come.
            (Index::Text(_), _) => {}
        }
    }

    /// Appends to `out` the group id in set `set` (keys `set_keys`) of each of `rows` rows
    /// whose key values are `key_values`, creating groups as needed.
    pub(super) fn assign(
        &mut self,
        set: usize,
        set_keys: &[usize],
        key_values: &[Arc<Vector>],
        rows: usize,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        if set_keys
            .iter()
            .any(|&k| self.keys[k].data.physical() != key_values[k].data.physical())
        {
            return Err(key_type_mismatch());
        }
        match &mut self.index {
            Index::Int(index) => {
                let column = &key_values[set_keys[0]];
                let mut new_group = NewGroup {
                    key: &mut self.keys[set_keys[0]],
                    set_of_group: &mut self.set_of_group,
                    set,
                    column,
                };
                match &column.data {
                    VectorData::Int16(v) => index.assign(v, &mut new_group, out),
                    VectorData::Int32(v) | VectorData::Date(v) => {
                        index.assign(v, &mut new_group, out)
                    }
                    VectorData::Int64(v)
                    | VectorData::Timestamp(v)
                    | VectorData::TimestampTz(v)
                    | VectorData::Time(v)
                    | VectorData::TimeTz(v) => index.assign(v, &mut new_group, out),
                    VectorData::Bool(_)
                    | VectorData::Interval(_)
                    | VectorData::Float32(_)
                    | VectorData::Float64(_)
                    | VectorData::Numeric(_)
                    | VectorData::Text(_)
                    | VectorData::Bytes(_)
                    | VectorData::Uuid(_)
                    | VectorData::Inet(_)
                    | VectorData::Jsonb(_)
                    | VectorData::List(_)
                    | VectorData::Struct(_)
                    | VectorData::FloatVector(_) => return Err(key_type_mismatch()),
                }
            }
            Index::Text(index) => {
                let column = &key_values[set_keys[0]];
                let key = &mut self.keys[set_keys[0]];
                let VectorData::Text(values) = &column.data else {
                    return Err(key_type_mismatch());
                };
                let mut new_group = NewGroup {
                    key,
                    set_of_group: &mut self.set_of_group,
                    set,
                    column,
                };
                for row in 0..rows {
                    let id = if column.is_valid(row) {
                        index.find_or_add(values.get_bytes(row), row, &mut new_group)
                    } else {
                        match index.null_group {
                            Some(id) => id,
                            None => *index.null_group.insert(new_group.add(row)),
                        }
                    };
                    out.push(id);
                }
            }
            Index::Encoded(ids) => {
                let set_values: Vec<&Vector> =
                    set_keys.iter().map(|&k| key_values[k].as_ref()).collect();
                for row in 0..rows {
                    self.key_buf.clear();
                    if self.tag_sets {
                        self.key_buf.extend_from_slice(&(set as u32).to_le_bytes());
                    }
                    encode_row_key(&set_values, row, &mut self.key_buf);
                    let id = match ids.get(self.key_buf.as_slice()) {
                        Some(&id) => id,
                        None => {
                            let id = self.set_of_group.len() as u32;
                            ids.insert(self.key_buf.as_slice().into(), id);
                            self.set_of_group.push(set as u32);
                            for (k, key) in self.keys.iter_mut().enumerate() {
                                if set_keys.contains(&k) {
                                    key.push_from(&key_values[k], row).expect(
                                        "invariant: key types are checked on entry to assign",
                                    );
                                } else {
                                    key.push_null();
                                }
                            }
                            id
                        }
                    };
                    out.push(id);
                }
            }
        }
        Ok(())
    }
}

/// How a partitioned merge splits the groups of the workers' tables.
pub(super) enum Partitioner {
    /// A single integer key that every table holds in a direct index: partition p holds
    /// the keys `low + p * width` up to the next partition's, so each partition's merged
    /// table is a small direct index again and no key is hashed. NULL goes to partition 0.
    Range {
        low: i128,
        high: i128,
        width: i128,
        count: usize,
    },
    /// Anything else: by a hash of the encoded keys.
    Hash { count: usize },
}

/// Appends to `out` the hash partition, of `count`, of each of `rows` rows of the key
/// columns `keys`: equal keys share a partition whichever vectors hold them, so rows and
/// the groups of any table split alike. A single integer-like key hashes its value (NULL
/// goes to partition 0); other keys hash their encoded bytes.
pub(super) fn hash_partitions(keys: &[&Vector], rows: usize, count: usize, out: &mut Vec<u32>) {
    fn of_values<T: Copy + Into<i64>>(
        column: &Vector,
        values: &[T],
        count: usize,
        out: &mut Vec<u32>,
    ) {
        out.extend(values.iter().enumerate().map(|(row, &value)| {
            let value: i64 = value.into();
            if column.is_valid(row) {
                partition_of(&value, count) as u32
            } else {
                0
            }
        }));
    }
    if let [column] = keys {
        match &column.data {
            VectorData::Int16(v) => return of_values(column, v, count, out),
            VectorData::Int32(v) | VectorData::Date(v) => return of_values(column, v, count, out),
            VectorData::Int64(v)
            | VectorData::Timestamp(v)
            | VectorData::TimestampTz(v)
            | VectorData::Time(v)
            | VectorData::TimeTz(v) => return of_values(column, v, count, out),
            VectorData::Bool(_)
            | VectorData::Interval(_)
            | VectorData::Float32(_)
            | VectorData::Float64(_)
            | VectorData::Numeric(_)
            | VectorData::Text(_)
            | VectorData::Bytes(_)
            | VectorData::Uuid(_)
            | VectorData::Inet(_)
            | VectorData::Jsonb(_)
            | VectorData::List(_)
            | VectorData::Struct(_)
            | VectorData::FloatVector(_) => {}
        }
    }
    let mut key = Vec::new();
    out.extend((0..rows).map(|row| {
        key.clear();
        encode_row_key(keys, row, &mut key);
        partition_of(key.as_slice(), count) as u32
    }));
}

/// The range of a direct index without keys: neutral for the union of ranges.
const EMPTY_RANGE: (i128, i128) = (i128::MAX, i128::MIN);

impl Partitioner {
    /// `count` partitions of the groups of `tables`.
    pub(super) fn new<'a>(tables: impl Iterator<Item = &'a Groups>, count: usize) -> Partitioner {
        let count = count.max(1);
        let mut range = Some(EMPTY_RANGE);
        for groups in tables {
            range = range
                .zip(groups.direct_range())
                .map(|((low, high), (l, h))| (low.min(l), high.max(h)));
        }
        match range {
            Some((low, high)) if low <= high => Partitioner::Range {
                low,
                high,
                width: (high - low + count as i128) / count as i128,
                count,
            },
            _ => Partitioner::Hash { count },
        }
    }

    pub(super) fn count(&self) -> usize {
        match self {
            Partitioner::Range { count, .. } | Partitioner::Hash { count } => *count,
        }
    }

    /// The keys partition `partition` holds, when they are a range.
    fn range_of(&self, partition: usize) -> Option<(i128, i128)> {
        match self {
            Partitioner::Range {
                low, high, width, ..
            } => {
                let first = low + width * partition as i128;
                Some((first, (first + width - 1).min(*high)))
            }
            Partitioner::Hash { .. } => None,
        }
    }
}

/// The index was chosen from the key's type, so another type is a bug of ours.
fn key_type_mismatch() -> Error {
    Error::internal("group key vector does not match its type")
}

/// Integer-like single keys.
#[derive(Default)]
struct IntIndex {
    /// While every key seen lies in `[base, base + slots.len())`: group id by `key - base`.
    direct: Option<(i64, Vec<u32>)>,
    /// Once the keys span too wide a range.
    map: HashMap<i64, u32>,
    null_group: Option<u32>,
}

impl IntIndex {
    fn assign<T: Copy + Into<i64>>(
        &mut self,
        values: &[T],
        new_group: &mut NewGroup<'_>,
        out: &mut Vec<u32>,
    ) {
        let column = new_group.column;
        if self.direct.is_none() && self.map.is_empty() {
            self.direct = Some((0, Vec::new()));
        }
        for (row, &value) in values.iter().enumerate() {
            if !column.is_valid(row) {
                let id = match self.null_group {
                    Some(id) => id,
                    None => *self.null_group.insert(new_group.add(row)),
                };
                out.push(id);
                continue;
            }
            let value: i64 = value.into();
            if let Some((base, slots)) = &self.direct {
                let offset = value.wrapping_sub(*base) as u64;
                if let Some(&id) = slots.get(offset as usize).filter(|&&id| id != NO_GROUP) {
                    out.push(id);
                    continue;
                }
            }
            out.push(self.find_or_add(value, row, new_group));
        }
    }

    /// The slow path: a new key, or one outside the direct range.
    fn find_or_add(&mut self, value: i64, row: usize, new_group: &mut NewGroup<'_>) -> u32 {
        if let Some((base, slots)) = &mut self.direct {
            let (low, high) = if slots.is_empty() {
                (value, value)
            } else {
                (
                    (*base).min(value),
                    // The highest key, which the base plus the length passes at i64::MAX.
                    (*base + (slots.len() as i64 - 1)).max(value),
                )
            };
            let span = (high as i128 - low as i128 + 1) as u64;
            if span <= DIRECT_SPAN_MAX {
                if low < *base || slots.is_empty() {
                    // Re-base: shift the existing slots up.
                    let shift = if slots.is_empty() {
                        0
                    } else {
                        (*base - low) as usize
                    };
                    let mut rebased = vec![NO_GROUP; shift];
                    rebased.extend_from_slice(slots);
                    *slots = rebased;
                    *base = low;
                }
                slots.resize(span as usize, NO_GROUP);
                let slot = (value - *base) as usize;
                if slots[slot] == NO_GROUP {
                    slots[slot] = new_group.add(row);
                }
                return slots[slot];
            }
            // Too wide: move every key to the hash map for good.
            for (offset, &id) in slots.iter().enumerate() {
                if id != NO_GROUP {
                    self.map.insert(*base + offset as i64, id);
                }
            }
            self.direct = None;
        }
        *self.map.entry(value).or_insert_with(|| new_group.add(row))
    }
}

/// A single text key: group ids in a hash table keyed by the stored key strings.
#[derive(Default)]
struct TextIndex {
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
    null_group: Option<u32>,
}

impl TextIndex {
    fn find_or_add(&mut self, value: &[u8], row: usize, new_group: &mut NewGroup<'_>) -> u32 {
        let hash = self.hasher.hash_one(value);
        if let Some(&id) = self
            .table
            .find(hash, |&id| stored_text(new_group.key, id) == value)
        {
            return id;
        }
        let id = new_group.add(row);
        let (hasher, key) = (&self.hasher, &*new_group.key);
        self.table
            .insert_unique(hash, id, |&id| hasher.hash_one(stored_text(key, id)));
        id
    }
}

/// The stored text key of group `id`.
fn stored_text(key: &Vector, id: u32) -> &[u8] {
    match &key.data {
        VectorData::Text(strings) => strings.get_bytes(id as usize),
        VectorData::Bool(_)
        | VectorData::Int16(_)
        | VectorData::Int32(_)
        | VectorData::Int64(_)
        | VectorData::Float32(_)
        | VectorData::Float64(_)
        | VectorData::Numeric(_)
        | VectorData::Date(_)
        | VectorData::Timestamp(_)
        | VectorData::TimestampTz(_)
        | VectorData::Time(_)
        | VectorData::TimeTz(_)
        | VectorData::Interval(_)
        | VectorData::Bytes(_)
        | VectorData::Uuid(_)
        | VectorData::Inet(_)
        | VectorData::Jsonb(_)
        | VectorData::List(_)
        | VectorData::Struct(_)
        | VectorData::FloatVector(_) => &[],
    }
}

/// Creates groups of one grouping set with a single key: stores the key value of the row
/// that opened the group and the group's set.
struct NewGroup<'a> {
    key: &'a mut Vector,
    set_of_group: &'a mut Vec<u32>,
    set: usize,
    column: &'a Vector,
}

impl NewGroup<'_> {
    fn add(&mut self, row: usize) -> u32 {
        self.key
            .push_from(self.column, row)
            .expect("invariant: key types are checked on entry to Groups::assign");
        self.set_of_group.push(self.set as u32);
        self.set_of_group.len() as u32 - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ScalarValue;

    /// Group ids of `values` (None: NULL) through a single-key index of type `ty`, in
    /// batches of `batch` rows.
    fn ids(ty: PhysicalType, values: &[ScalarValue], batch: usize) -> (Vec<u32>, Groups) {
        let mut groups = Groups::new(&[ty], &[&[0]]);
        let mut out = Vec::new();
        for chunk in values.chunks(batch) {
            let mut column = Vector::with_capacity(ty, chunk.len());
            chunk
                .iter()
                .for_each(|v| assert!(column.push_scalar(v).is_ok()));
            groups
                .assign(0, &[0], &[Arc::new(column)], chunk.len(), &mut out)
                .expect("invariant: key types match");
        }
        (out, groups)
    }

    /// Equal values share an id, different ones do not, and each group stores its value.
    fn check(ty: PhysicalType, values: &[ScalarValue]) {
        for batch in [1, 3, values.len()] {
            let (out, groups) = ids(ty, values, batch);
            for (i, a) in values.iter().enumerate() {
                assert_eq!(groups.keys[0].get_scalar(out[i] as usize), *a);
                for (j, b) in values.iter().enumerate() {
                    assert_eq!(a == b, out[i] == out[j], "{a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn integer_keys_rebase_then_spill_to_the_map() {
        let values: Vec<ScalarValue> = [
            5,
            3,
            5,
            -2,
            i64::MIN,
            70000,
            3,
            -2,
            1 << 40,
            70000,
            i64::MIN,
        ]
        .iter()
        .map(|&v| {
            if v == i64::MIN {
                ScalarValue::Null
            } else {
                ScalarValue::Int64(v)
            }
        })
        .collect();
        check(PhysicalType::Int64, &values);
    }

    #[test]
    fn equal_keys_of_different_tables_share_a_partition() {
        let values = |order: &[i64]| -> Vec<ScalarValue> {
            order
                .iter()
                .map(|&v| match v {
                    0 => ScalarValue::Null,
                    v => ScalarValue::Int64(v),
                })
                .collect()
        };
        let (_, first) = ids(PhysicalType::Int64, &values(&[5, 0, 900_000, 17, 3]), 2);
        let (_, second) = ids(PhysicalType::Int64, &values(&[3, 17, 0, 5, 900_000]), 3);
        let partition = |groups: &Groups, key: &ScalarValue, partitioner: &Partitioner| {
            let lists = groups.partitions(partitioner).expect("integer keys");
            assert_eq!(lists.iter().map(Vec::len).sum::<usize>(), groups.len());
            let group = (0..groups.len()).find(|&g| groups.keys[0].get_scalar(g) == *key)?;
            lists.iter().position(|l| l.contains(&(group as u32)))
        };
        // 900,000 is past the direct index's span: the keys are hashed.
        let hashed = Partitioner::new([&first, &second].into_iter(), 8);
        assert!(matches!(hashed, Partitioner::Hash { .. }));
        for key in values(&[5, 0, 900_000, 17, 3]) {
            assert_eq!(
                partition(&first, &key, &hashed),
                partition(&second, &key, &hashed),
                "{key:?}"
            );
        }
        // Keys in direct indexes split by range, in key order, NULL first.
        let (_, third) = ids(PhysicalType::Int64, &values(&[40, 0, -3, 17]), 3);
        let (_, fourth) = ids(PhysicalType::Int64, &values(&[12, 17, 60, 0]), 2);
        let ranges = Partitioner::new([&third, &fourth].into_iter(), 4);
        assert!(matches!(ranges, Partitioner::Range { .. }));
        for key in values(&[0, 17]) {
            let part = partition(&third, &key, &ranges);
            assert!(part.is_some(), "{key:?}");
            assert_eq!(part, partition(&fourth, &key, &ranges), "{key:?}");
        }
        let keys_in_order = |groups: &Groups| -> Vec<ScalarValue> {
            let lists = groups.partitions(&ranges).expect("integer keys");
            lists
                .iter()
                .flatten()
                .map(|&g| groups.keys[0].get_scalar(g as usize))
                .collect()
        };
        assert_eq!(keys_in_order(&third), values(&[0, -3, 17, 40]));
        assert_eq!(keys_in_order(&fourth), values(&[0, 12, 17, 60]));
    }

    /// A row goes to the partition of its key's group in any table (the partitioned
    /// rows of a parallel aggregate meet the groups of the workers' tables there).
    #[test]
    fn rows_and_groups_split_alike() {
        let ints: Vec<ScalarValue> = [7, 0, 123_456_789, -4, 7, 0, 65_536]
            .iter()
            .map(|&v| match v {
                0 => ScalarValue::Null,
                v => ScalarValue::Int64(v),
            })
            .collect();
        let texts: Vec<ScalarValue> = ["a", "", "zz", "a"]
            .iter()
            .map(|s| ScalarValue::Text(s.to_string()))
            .chain([ScalarValue::Null])
            .collect();
        for (ty, values) in [(PhysicalType::Int64, ints), (PhysicalType::Text, texts)] {
            let (ids, groups) = ids(ty, &values, 2);
            let lists = groups
                .partitions(&Partitioner::Hash { count: 5 })
                .expect("hash partitions");
            let mut column = Vector::with_capacity(ty, values.len());
            values
                .iter()
                .for_each(|v| assert!(column.push_scalar(v).is_ok()));
            let mut rows = Vec::new();
            hash_partitions(&[&column], values.len(), 5, &mut rows);
            for (row, &partition) in rows.iter().enumerate() {
                assert!(
                    lists[partition as usize].contains(&ids[row]),
                    "{ty:?} row {row}"
                );
            }
        }
    }

    #[test]
    fn text_keys_with_null() {
        let values: Vec<ScalarValue> = ["b", "a", "", "b", "", "c", "a"]
            .iter()
            .map(|s| ScalarValue::Text(s.to_string()))
            .chain([
                ScalarValue::Null,
                ScalarValue::Text("c".into()),
                ScalarValue::Null,
            ])
            .collect();
        check(PhysicalType::Text, &values);
    }
}
