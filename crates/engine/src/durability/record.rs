//! The write-ahead log's record of one commit, and its replay.
//!
//! A record is logical redo: for each table it changed, either the rows it appended, the
//! older rows it deleted and the new values of the cells it overwrote (a delta over the
//! version before it), or, after a rewrite (CREATE, TRUNCATE, ALTER, compaction), the whole
//! new version; then the schemas, names, sequences and views it created or dropped, and the
//! sequence counters that moved. Replaying the records in order from a checkpoint rebuilds
//! the committed state exactly, row ids included, so each delta applies where it was made.

use std::sync::Arc;

use super::bytes::{corrupt, Decoder, Encoder, Persist};
use super::encode_catalog::{
    decode_user_mappings, encode_user_mappings, read_wide_section, section, write_wide_section,
};
use super::encode_vector::{decode_table_data, decode_vector_of, encode_table_data};
use crate::catalog::{
    ColumnPrivileges, CompositeType, Domain, EnumType, Extension, ForeignServer, FunctionDef,
    PrivilegeCatalog, QualifiedName, RoleCatalog, RoleSettings, SchemaDef, TableSchema, ViewDef,
};
use crate::error::Result;
use crate::storage::{
    type_max, type_min, CommitChanges, DbState, Sequence, SequenceOptions, TableData, TableEntry,
};
use crate::types::DataType;
use crate::vector::{Batch, Vector, BATCH_SIZE};

/// The first byte of a commit record's payload.
const COMMIT: u8 = 1;

/// Table change tags (part of the on-disk format: never reuse a number).
const DROPPED: u8 = 0;
const IMAGE: u8 = 1;
const DELTA: u8 = 2;

/// The payload of `changes`' record. What is in a temporary schema is left out: temporary
/// tables are gone after a restart, so nothing of them is ever logged.
pub fn encode_commit(changes: &CommitChanges<'_>) -> Result<Vec<u8>> {
    let mut temporary = changes.before.temporary_schemas();
    temporary.extend(
        changes
            .schemas
            .iter()
            .filter(|(_, schema)| schema.as_ref().is_some_and(|s| s.is_temporary()))
            .map(|(oid, _)| *oid),
    );
    let logged = |name: &QualifiedName| !temporary.contains(&name.schema);
    let mut out = Encoder::default();
    out.u8(COMMIT);
    out.u32(changes.next_oid);
    let schemas: Vec<_> = changes
        .schemas
        .iter()
        .filter(|(oid, _)| !temporary.contains(oid))
        .collect();
    out.len(schemas.len());
    for (oid, schema) in schemas {
        out.u32(*oid);
        out.option(schema.as_ref(), |out, schema| schema.encode(out));
    }
    let names: Vec<_> = changes.names.iter().filter(|(n, _)| logged(n)).collect();
    out.len(names.len());
    for (name, oid) in names {
        name.encode(&mut out);
        out.option(oid.as_ref(), |out, oid| out.u32(*oid));
    }
    let tables: Vec<_> = changes
        .tables
        .iter()
        .filter(|(oid, entry)| {
            let before = changes.before.tables.get(*oid);
            let schema = entry.as_ref().or(before).map(|e| e.schema.namespace);
            schema.is_none_or(|schema| !temporary.contains(&schema))
        })
        .collect();
    out.len(tables.len());
    for (oid, entry) in tables {
        out.u32(*oid);
        encode_table_change(&mut out, changes.before.tables.get(oid), entry.as_deref())?;
    }
    let sequences: Vec<_> = changes
        .sequences
        .iter()
        .filter(|(n, _)| logged(n))
        .collect();
    out.len(sequences.len());
    for (name, sequence) in sequences {
        name.encode(&mut out);
        out.option(sequence.as_ref(), |out, sequence| {
            // The counter read now is at least what any committed row used; taking it also
            // clears the flag, so the next commit does not log it again.
            let counter = sequence.take_unlogged();
            encode_sequence(out, sequence, counter.unwrap_or_else(|| sequence.counter()))
        });
    }
    let moved: Vec<(&QualifiedName, (i64, bool))> = changes
        .before
        .sequences
        .iter()
        .filter(|(name, _)| !changes.sequences.contains_key(*name))
        .filter_map(|(name, sequence)| Some((name, sequence.take_unlogged()?)))
        // Taken all the same, so that a temporary sequence does not make every commit log.
        .filter(|(name, _)| logged(name))
        .collect();
    out.len(moved.len());
    for (name, (last, is_called)) in moved {
        name.encode(&mut out);
        out.i64(last);
        out.bool(is_called);
    }
    let views: Vec<_> = changes.views.iter().filter(|(n, _)| logged(n)).collect();
    out.len(views.len());
    for (name, view) in views {
        name.encode(&mut out);
        out.option(view.as_ref(), |out, view| view.encode(out));
    }
    // Last, so that records written before enum types existed still read.
    let enum_types: Vec<_> = changes
        .enum_types
        .iter()
        .filter(|(oid, enum_type)| {
            let before = changes.before.enum_types.get(*oid);
            enum_type
                .as_ref()
                .or(before)
                .is_none_or(|t| logged(&t.name))
        })
        .collect();
    out.len(enum_types.len());
    for (oid, enum_type) in enum_types {
        out.u32(*oid);
        out.option(enum_type.as_ref(), |out, enum_type| enum_type.encode(out));
    }
    // Then tagged sections, each present only when it changed.
    if let Some(roles) = changes.roles {
        out.u8(section::ROLES);
        roles.encode(&mut out);
        if !roles.privileges.objects.is_empty() {
            out.u8(section::PRIVILEGES);
            roles.privileges.encode(&mut out);
        }
        if !roles.privileges.columns.0.is_empty() {
            out.u8(section::COLUMN_PRIVILEGES);
            roles.privileges.columns.encode(&mut out);
        }
        if !roles.settings.0.is_empty() {
            out.u8(section::ROLE_SETTINGS);
            roles.settings.encode(&mut out);
        }
    }
    // A tagged section, written only when the commit changed a function, so that records
    // of other commits read as before.
    if !changes.functions.is_empty() {
        out.u8(section::FUNCTIONS);
        out.len(changes.functions.len());
        for (oid, function) in changes.functions {
            out.u32(*oid);
            out.option(function.as_ref(), |out, function| function.encode(out));
        }
    }
    if !changes.extensions.is_empty() {
        out.u8(section::EXTENSIONS);
        out.len(changes.extensions.len());
        for (name, extension) in changes.extensions {
            out.str(name);
            out.option(extension.as_ref(), |out, extension| extension.encode(out));
        }
    }
    if !changes.foreign_servers.is_empty() {
        out.u8(section::FOREIGN_SERVERS);
        out.len(changes.foreign_servers.len());
        for (name, server) in changes.foreign_servers {
            out.str(name);
            out.option(server.as_ref(), |out, server| server.encode(out));
        }
        out.u8(section::USER_MAPPINGS);
        encode_user_mappings(
            &mut out,
            changes
                .foreign_servers
                .values()
                .filter_map(|s| s.as_deref()),
        );
    }
    let domains: Vec<_> = changes
        .domains
        .iter()
        .filter(|(oid, domain)| {
            let before = changes.before.domains.get(*oid);
            domain.as_ref().or(before).is_none_or(|d| logged(&d.name))
        })
        .collect();
    if !domains.is_empty() {
        out.u8(section::DOMAINS);
        out.len(domains.len());
        for (oid, domain) in domains {
            out.u32(*oid);
            out.option(domain.as_ref(), |out, domain| domain.encode(out));
        }
    }
    let composite_types: Vec<_> = changes
        .composite_types
        .iter()
        .filter(|(oid, composite)| {
            let before = changes.before.composite_types.get(*oid);
            composite
                .as_ref()
                .or(before)
                .is_none_or(|c| logged(&c.name))
        })
        .collect();
    if !composite_types.is_empty() {
        write_wide_section(&mut out, section::COMPOSITE_TYPES);
        out.len(composite_types.len());
        for (oid, composite) in composite_types {
            out.u32(*oid);
            out.option(composite.as_ref(), |out, composite| composite.encode(out));
        }
    }
    Ok(out.buf)
}

/// A sequence's definition with its counter `(last, is_called)`.
pub fn encode_sequence(out: &mut Encoder, sequence: &Sequence, (last, is_called): (i64, bool)) {
    sequence.name.encode(out);
    out.u32(sequence.oid);
    sequence.options.encode(out);
    out.option(sequence.owned_by.as_ref(), |out, (table, column)| {
        out.str(table);
        out.str(column);
    });
    out.i64(last);
    out.bool(is_called);
    for byte in SEQUENCE_TYPE {
        out.u8(byte);
    }
    out.u8(sequence_type_width(sequence.options.data_type));
    out.option(sequence.comment.as_ref(), |out, text| out.str(text));
}

/// Tag 275, two bytes little-endian, marks a sequence's type (AS): its byte width, 2, 4
/// or 8. A definition written before it has the comment's option byte (0 or 1) there
/// instead, and takes the type its bounds imply.
const SEQUENCE_TYPE: [u8; 2] = 275u16.to_le_bytes();

fn sequence_type_width(ty: DataType) -> u8 {
    match ty {
        DataType::Int16 => 2,
        DataType::Int32 => 4,
        _ => 8,
    }
}

fn decode_sequence_type(input: &mut Decoder<'_>, options: &mut SequenceOptions) -> Result<()> {
    if input.peek_u8() != Some(SEQUENCE_TYPE[0]) {
        return Ok(());
    }
    if input.u8()? != SEQUENCE_TYPE[0] || input.u8()? != SEQUENCE_TYPE[1] {
        return Err(corrupt("sequence type tag"));
    }
    options.data_type = match input.u8()? {
        2 => DataType::Int16,
        4 => DataType::Int32,
        8 => DataType::Int64,
        other => return Err(corrupt(format!("sequence type width {other}"))),
    };
    let (min, max) = (type_min(options.data_type), type_max(options.data_type));
    if options.min < min || options.max > max {
        return Err(corrupt(format!("sequence options {options:?}")));
    }
    Ok(())
}

pub fn decode_sequence(input: &mut Decoder<'_>) -> Result<Sequence> {
    let name = QualifiedName::decode(input)?;
    let oid = input.u32()?;
    let mut options = SequenceOptions::decode(input)?;
    let owned_by = input.option(|input| Ok((input.string()?, input.string()?)))?;
    let (last, is_called) = (input.i64()?, input.bool()?);
    decode_sequence_type(input, &mut options)?;
    let comment = input.option(Decoder::string)?;
    let sequence = Sequence::new(name, oid, options, owned_by).with_comment(comment);
    sequence.restore_counter(last, is_called);
    Ok(sequence)
}

fn encode_table_change(
    out: &mut Encoder,
    before: Option<&Arc<TableEntry>>,
    after: Option<&TableEntry>,
) -> Result<()> {
    let Some(after) = after else {
        out.u8(DROPPED);
        return Ok(());
    };
    let changes = after.data.changes();
    let delta_base = before.filter(|before| {
        let base = before.data.changes();
        base.lineage == changes.lineage
            && !changes.rewritten
            && changes.base_rows == before.data.row_capacity()
            && before.schema.column_types() == after.schema.column_types()
    });
    let Some(before) = delta_base else {
        out.u8(IMAGE);
        after.schema.encode(out);
        // An unlogged table comes back empty: its rows are never logged.
        let logged = if after.schema.unlogged {
            &TableData::default()
        } else {
            &*after.data
        };
        encode_table_data(out, logged);
        return Ok(());
    };
    out.u8(DELTA);
    let schema_changed = !Arc::ptr_eq(&before.schema, &after.schema);
    out.option(schema_changed.then_some(&*after.schema), |out, schema| {
        schema.encode(out)
    });
    if after.schema.unlogged {
        for _none in 0..3 {
            out.len(0); // appended rows, deleted rows, updated cells
        }
        return Ok(());
    }
    encode_appended(out, &after.data, changes.base_rows)?;
    out.len(changes.deleted.len());
    for (&chunk, offsets) in changes.deleted.iter() {
        out.len(chunk);
        encode_offsets(out, offsets);
    }
    out.len(changes.updated.len());
    for (&(chunk, column), offsets) in changes.updated.iter() {
        out.len(chunk);
        out.len(column);
        let offsets = sorted_unique(offsets);
        encode_offsets(out, &offsets);
        let Some(stored) = after.data.chunk(chunk) else {
            return Err(crate::error::Error::internal(format!(
                "invariant: updated chunk {chunk} is missing"
            )));
        };
        stored.columns[column].gather(&offsets).encode(out);
    }
    Ok(())
}

fn sorted_unique(offsets: &[u32]) -> Vec<u32> {
    let mut offsets = offsets.to_vec();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

fn encode_offsets(out: &mut Encoder, offsets: &[u32]) {
    out.len(offsets.len());
    for &offset in offsets {
        out.u32(offset);
    }
}

fn decode_offsets(input: &mut Decoder<'_>) -> Result<Vec<u32>> {
    let n = input.len(4)?;
    (0..n)
        .map(|_| {
            let offset = input.u32()?;
            if offset as usize >= BATCH_SIZE {
                return Err(corrupt(format!("row offset {offset} in a chunk")));
            }
            Ok(offset)
        })
        .collect()
}

/// The rows from row id `from` on: their count, one vector per column, and which of them
/// are already deleted.
fn encode_appended(out: &mut Encoder, data: &TableData, from: usize) -> Result<()> {
    let rows = data.row_capacity().saturating_sub(from);
    out.len(rows);
    if rows == 0 {
        return Ok(());
    }
    let first_chunk = from / BATCH_SIZE;
    let chunks: Vec<_> = data.chunks().skip(first_chunk).collect();
    let width = chunks.first().map_or(0, |c| c.columns.len());
    let mut deleted = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let start = if i == 0 { from % BATCH_SIZE } else { 0 };
        for row in start..chunk.len {
            if chunk.is_deleted(row) {
                deleted.push(((first_chunk + i) * BATCH_SIZE + row - from) as u64);
            }
        }
    }
    for column in 0..width {
        let mut values: Option<Vector> = None;
        for (i, chunk) in chunks.iter().enumerate() {
            let start = if i == 0 { from % BATCH_SIZE } else { 0 };
            let rows: Vec<u32> = (start as u32..chunk.len as u32).collect();
            let part = chunk.columns[column].gather(&rows);
            match &mut values {
                None => values = Some(part),
                Some(values) => values.extend(&part)?,
            }
        }
        match values {
            Some(values) => values.encode(out),
            None => {
                return Err(crate::error::Error::internal(
                    "invariant: no appended chunk",
                ))
            }
        }
    }
    out.len(deleted.len());
    for row in deleted {
        out.u64(row);
    }
    Ok(())
}

/// Replays one record onto `state`. Tables it touches get `generation`; their unique
/// indexes are left empty for the caller to build once replay is done.
pub fn apply_commit(
    state: &mut DbState,
    payload: &[u8],
    next_oid: &mut u32,
    generation: u64,
) -> Result<()> {
    let mut input = Decoder::new(payload);
    if input.u8()? != COMMIT {
        return Err(corrupt("unknown record type"));
    }
    *next_oid = (*next_oid).max(input.u32()?);
    state.catalog_version += 1;
    for _ in 0..input.len(5)? {
        let oid = input.u32()?;
        let schema = input.option(SchemaDef::decode)?;
        let schemas = Arc::make_mut(&mut state.schemas);
        match schema {
            Some(schema) => schemas.insert(oid, Arc::new(schema)),
            None => schemas.remove(&oid),
        };
    }
    for _ in 0..input.len(9)? {
        let name = QualifiedName::decode(&mut input)?;
        let names = Arc::make_mut(&mut state.names);
        match input.option(|input| input.u32())? {
            Some(oid) => names.insert(name, oid),
            None => names.remove(&name),
        };
    }
    for _ in 0..input.len(5)? {
        let oid = input.u32()?;
        apply_table_change(state, oid, &mut input, generation)?;
    }
    for _ in 0..input.len(13)? {
        let name = QualifiedName::decode(&mut input)?;
        let sequence = input.option(decode_sequence)?;
        let sequences = Arc::make_mut(&mut state.sequences);
        match sequence {
            Some(sequence) => sequences.insert(name, Arc::new(sequence)),
            None => sequences.remove(&name),
        };
    }
    for _ in 0..input.len(21)? {
        let name = QualifiedName::decode(&mut input)?;
        let (last, is_called) = (input.i64()?, input.bool()?);
        // A counter logged by a commit before the sequence was dropped by a later one.
        if let Some(sequence) = state.sequences.get(&name) {
            sequence.restore_counter(last, is_called);
        }
    }
    for _ in 0..input.len(13)? {
        let name = QualifiedName::decode(&mut input)?;
        let view = input.option(ViewDef::decode)?;
        let views = Arc::make_mut(&mut state.views);
        match view {
            Some(view) => views.insert(name, Arc::new(view)),
            None => views.remove(&name),
        };
    }
    if !input.is_empty() {
        for _ in 0..input.len(5)? {
            let oid = input.u32()?;
            let enum_type = input.option(EnumType::decode)?;
            let enum_types = Arc::make_mut(&mut state.enum_types);
            match enum_type {
                Some(enum_type) => enum_types.insert(oid, Arc::new(enum_type)),
                None => enum_types.remove(&oid),
            };
        }
    }
    while !input.is_empty() {
        match input.u8()? {
            section::ROLES => state.roles = Arc::new(RoleCatalog::decode(&mut input)?),
            section::PRIVILEGES => {
                Arc::make_mut(&mut state.roles).privileges = PrivilegeCatalog::decode(&mut input)?;
            }
            section::COLUMN_PRIVILEGES => {
                Arc::make_mut(&mut state.roles).privileges.columns =
                    ColumnPrivileges::decode(&mut input)?;
            }
            section::ROLE_SETTINGS => {
                Arc::make_mut(&mut state.roles).settings = RoleSettings::decode(&mut input)?;
            }
            section::FUNCTIONS => {
                for _ in 0..input.len(5)? {
                    let oid = input.u32()?;
                    let function = input.option(FunctionDef::decode)?;
                    let functions = Arc::make_mut(&mut state.functions);
                    match function {
                        Some(function) => functions.insert(oid, Arc::new(function)),
                        None => functions.remove(&oid),
                    };
                }
            }
            section::EXTENSIONS => {
                for _ in 0..input.len(5)? {
                    let name = input.string()?;
                    let extension = input.option(Extension::decode)?;
                    let extensions = Arc::make_mut(&mut state.extensions);
                    match extension {
                        Some(extension) => extensions.insert(name, Arc::new(extension)),
                        None => extensions.remove(&name),
                    };
                }
            }
            section::FOREIGN_SERVERS => {
                for _ in 0..input.len(5)? {
                    let name = input.string()?;
                    let server = input.option(ForeignServer::decode)?;
                    let servers = Arc::make_mut(&mut state.foreign_servers);
                    match server {
                        Some(server) => servers.insert(name, Arc::new(server)),
                        None => servers.remove(&name),
                    };
                }
            }
            section::USER_MAPPINGS => {
                decode_user_mappings(&mut input, Arc::make_mut(&mut state.foreign_servers))?;
            }
            section::DOMAINS => {
                for _ in 0..input.len(5)? {
                    let oid = input.u32()?;
                    let domain = input.option(Domain::decode)?;
                    let domains = Arc::make_mut(&mut state.domains);
                    match domain {
                        Some(domain) => domains.insert(oid, Arc::new(domain)),
                        None => domains.remove(&oid),
                    };
                }
            }
            section::COMPOSITE_TYPES_FIRST => {
                read_wide_section(&mut input, section::COMPOSITE_TYPES)?;
                for _ in 0..input.len(5)? {
                    let oid = input.u32()?;
                    let composite = input.option(CompositeType::decode)?;
                    let composite_types = Arc::make_mut(&mut state.composite_types);
                    match composite {
                        Some(composite) => composite_types.insert(oid, Arc::new(composite)),
                        None => composite_types.remove(&oid),
                    };
                }
            }
            other => return Err(corrupt(format!("commit record section {other}"))),
        }
    }
    Ok(())
}

/// A table entry of `schema` and `data` whose indexes are still to be built.
pub fn unindexed_entry(schema: TableSchema, data: TableData, generation: u64) -> TableEntry {
    TableEntry {
        schema: Arc::new(schema),
        data: Arc::new(data),
        generation,
        unique_indexes: Arc::default(),
        secondary_indexes: Arc::default(),
    }
}

fn apply_table_change(
    state: &mut DbState,
    oid: u32,
    input: &mut Decoder<'_>,
    generation: u64,
) -> Result<()> {
    match input.u8()? {
        DROPPED => {
            state.tables.remove(&oid);
        }
        IMAGE => {
            let schema = TableSchema::decode(input)?;
            let data = decode_table_data(input, &schema.column_types())?;
            state
                .tables
                .insert(oid, Arc::new(unindexed_entry(schema, data, generation)));
        }
        DELTA => {
            let Some(before) = state.tables.get(&oid) else {
                return Err(corrupt(format!(
                    "a change of table {oid}, which does not exist"
                )));
            };
            let mut entry = (**before).clone();
            if let Some(schema) = input.option(TableSchema::decode)? {
                entry.schema = Arc::new(schema);
            }
            let types = entry.schema.column_types();
            let data = Arc::make_mut(&mut entry.data);
            let from = data.row_capacity();
            let rows = input.index()?;
            if rows > 0 {
                // Read as their columns' types: a record vector's fields are known by its type.
                let columns = (types.iter())
                    .map(|ty| {
                        let vector = decode_vector_of(input, ty.physical())?;
                        if vector.len() != rows {
                            return Err(corrupt("appended columns of different lengths"));
                        }
                        Ok(Arc::new(vector))
                    })
                    .collect::<Result<Vec<_>>>()?;
                data.append(&types, &Batch::new(columns, rows))
                    .map_err(|e| corrupt(e.message))?;
                for _ in 0..input.len(8)? {
                    let row = usize::try_from(input.u64()?)
                        .ok()
                        .filter(|&r| r < rows)
                        .ok_or_else(|| corrupt("a deleted appended row out of range"))?;
                    let id = from + row;
                    data.delete_rows(id / BATCH_SIZE, &[(id % BATCH_SIZE) as u32])?;
                }
            }
            for _ in 0..input.len(9)? {
                let chunk = input.index()?;
                let offsets = decode_offsets(input)?;
                check_rows(data, chunk, &offsets)?;
                data.delete_rows(chunk, &offsets)?;
            }
            for _ in 0..input.len(17)? {
                let chunk = input.index()?;
                let column = input.index()?;
                let offsets = decode_offsets(input)?;
                let expected = (types.get(column).map(|t| t.physical()))
                    .ok_or_else(|| corrupt("updated values of a column out of range"))?;
                let values = decode_vector_of(input, expected)?;
                check_rows(data, chunk, &offsets)?;
                if values.len() != offsets.len() || expected != values.data.physical() {
                    return Err(corrupt("updated values do not fit their column"));
                }
                data.update_column(chunk, column, &offsets, &values)?;
            }
            entry.data = Arc::new(data.as_committed());
            entry.generation = generation;
            state.tables.insert(oid, Arc::new(entry));
        }
        other => return Err(corrupt(format!("table change tag {other}"))),
    }
    Ok(())
}

/// A corrupt record must not index past a chunk.
fn check_rows(data: &TableData, chunk: usize, offsets: &[u32]) -> Result<()> {
    let len = data.chunk(chunk).map_or(0, |c| c.len);
    if offsets.iter().all(|&o| (o as usize) < len) {
        Ok(())
    } else {
        Err(corrupt(format!("rows past the end of chunk {chunk}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::PUBLIC_OID;

    fn sequence_bytes(data_type: DataType, max: i64) -> Vec<u8> {
        let options = SequenceOptions {
            max,
            ..SequenceOptions::ascending(data_type)
        };
        let sequence = Sequence::new(QualifiedName::new(PUBLIC_OID, "s"), 16390, options, None);
        let mut out = Encoder::default();
        encode_sequence(&mut out, &sequence, (1, false));
        out.buf
    }

    #[test]
    fn sequence_type_is_kept_and_older_definitions_take_the_type_their_bounds_imply() {
        let bytes = sequence_bytes(DataType::Int32, 1000);
        let decoded = decode_sequence(&mut Decoder::new(&bytes));
        assert!(decoded.is_ok_and(|s| s.data_type() == DataType::Int32));
        // Without the tag (as written before it), the bounds decide: 1000 is no type's limit.
        let tag_at = bytes.len() - 4;
        let older = [&bytes[..tag_at], &bytes[tag_at + 3..]].concat();
        let decoded = decode_sequence(&mut Decoder::new(&older));
        assert!(decoded.is_ok_and(|s| s.data_type() == DataType::Int64));
        let older = [
            &sequence_bytes(DataType::Int16, i64::from(i16::MAX))[..tag_at],
            &[0],
        ]
        .concat();
        let decoded = decode_sequence(&mut Decoder::new(&older));
        assert!(decoded.is_ok_and(|s| s.data_type() == DataType::Int16));
        // A width no type has, or bounds beyond the type, are corrupt.
        let mut bad = bytes.clone();
        bad[tag_at + 2] = 3;
        assert!(decode_sequence(&mut Decoder::new(&bad)).is_err());
        let too_wide = sequence_bytes(DataType::Int16, 100_000);
        assert!(decode_sequence(&mut Decoder::new(&too_wide)).is_err());
    }
}
