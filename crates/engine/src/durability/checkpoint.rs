//! Checkpoints: the committed state written as files, so that start-up reads them instead
//! of the whole log.
//!
//! A checkpoint takes the newest committed state and starts a new log segment at the same
//! moment (commits paused for that instant only), then writes, while reads and writes go
//! on, one file per table that changed since the last checkpoint and a manifest naming
//! them with the catalog. Renaming the manifest into place is the moment the checkpoint
//! exists; only after that are the log segments before it and the table files it no longer
//! names deleted. A crash at any point leaves the previous checkpoint and its log intact.

use std::path::Path;
use std::sync::Arc;

use super::bytes::{corrupt, Decoder, Encoder, Persist};
use super::encode_catalog::{
    decode_user_mappings, encode_user_mappings, read_wide_section, section, write_wide_section,
    MIN_COMPOSITE_TYPE_BYTES, MIN_EXTENSION_BYTES, MIN_FOREIGN_SERVER_BYTES,
};
use super::encode_vector::{decode_table_data, encode_table_data};
use super::io::{io_error, write_durably, Disk};
use super::record::{decode_sequence, encode_sequence, unindexed_entry};
use crate::catalog::{
    ColumnPrivileges, CompositeType, Domain, EnumType, Extension, ForeignServer, FunctionDef,
    PrivilegeCatalog, QualifiedName, RoleCatalog, RoleSettings, SchemaDef, TableSchema, ViewDef,
};
use crate::error::{Error, Result, SqlState};
use crate::storage::{DbState, Map, Sequence, TableData};

const MANIFEST_MAGIC: &[u8; 8] = b"KESTRELC";
const TABLE_MAGIC: &[u8; 8] = b"KESTRELT";
pub const MANIFEST: &str = "checkpoint";
/// Present after a clean shutdown until the next start-up removes it.
pub const CLEAN_SHUTDOWN: &str = "clean_shutdown";
pub const TABLES: &str = "tables";

/// What the last checkpoint wrote: where the log after it starts, and each table's file
/// with the generation it holds, so the next checkpoint rewrites only what changed.
#[derive(Debug, Default, Clone)]
pub struct Written {
    pub lsn: u64,
    pub number: u64,
    pub files: Map<u32, (u64, String)>,
}

/// The state a checkpoint writes: captured with commits paused.
pub struct Capture {
    pub state: Arc<DbState>,
    pub next_oid: u32,
    pub lsn: u64,
    /// Sequence counters as of `lsn`.
    pub counters: Vec<(QualifiedName, i64, bool)>,
    /// A clean shutdown's checkpoint keeps the rows of unlogged tables, which a restart
    /// after it keeps too (as PostgreSQL's do).
    pub shutdown: bool,
}

fn with_checksum(mut out: Encoder) -> Vec<u8> {
    let crc = crc32fast::hash(&out.buf);
    out.u32(crc);
    out.buf
}

/// The body of a file written by [`with_checksum`], or an error naming the file.
fn checked<'a>(path: &Path, bytes: &'a [u8], magic: &[u8; 8]) -> Result<&'a [u8]> {
    let damaged = || {
        Error::new(
            SqlState::DataCorrupted,
            format!("checkpoint file \"{}\" is corrupt", path.display()),
        )
        .with_hint(
            "The data directory was damaged outside KestrelDB. Restore it from a backup; \
             KestrelDB will not start on data it cannot trust.",
        )
    };
    if bytes.len() < magic.len() + 4 || &bytes[..magic.len()] != magic {
        return Err(damaged());
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let crc = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if crc32fast::hash(body) != crc {
        return Err(damaged());
    }
    Ok(&body[magic.len()..])
}

/// Writes the checkpoint of `capture` into `dir`; returns what it wrote. `previous` is
/// the last checkpoint's.
pub fn write_checkpoint(
    disk: &dyn Disk,
    dir: &Path,
    capture: &Capture,
    previous: &Written,
) -> Result<Written> {
    let number = previous.number + 1;
    let tables_dir = dir.join(TABLES);
    let mut written = Written {
        lsn: capture.lsn,
        number,
        files: Map::default(),
    };
    let mut new_files = false;
    for (&oid, entry) in &capture.state.tables {
        if let Some((generation, file)) = previous.files.get(&oid) {
            // An unlogged table's file is rewritten every time: whether it holds the rows
            // depends on whether this checkpoint is a shutdown's.
            if *generation == entry.generation && !entry.schema.unlogged {
                written.files.insert(oid, (*generation, file.clone()));
                continue;
            }
        }
        let name = format!("{oid}_{number}.tbl");
        let mut out = Encoder::default();
        out.buf.extend_from_slice(TABLE_MAGIC);
        out.u32(oid);
        // An unlogged table comes back empty after a crash.
        let empty = entry.schema.unlogged && !capture.shutdown;
        let data = if empty {
            &TableData::default()
        } else {
            &*entry.data
        };
        encode_table_data(&mut out, data);
        let path = tables_dir.join(&name);
        let mut file = disk
            .create(&path)
            .map_err(|e| io_error("create", &path, &e))?;
        file.write_all(&with_checksum(out))
            .map_err(|e| io_error("write to", &path, &e))?;
        file.sync().map_err(|e| io_error("fsync", &path, &e))?;
        new_files = true;
        written.files.insert(oid, (entry.generation, name));
    }
    if new_files {
        disk.sync_dir(&tables_dir)
            .map_err(|e| io_error("sync directory", &tables_dir, &e))?;
    }
    let manifest = encode_manifest(capture, &written);
    let path = dir.join(MANIFEST);
    write_durably(disk, &path, &manifest).map_err(|e| io_error("write", &path, &e))?;
    Ok(written)
}

fn encode_manifest(capture: &Capture, written: &Written) -> Vec<u8> {
    let state = &capture.state;
    let mut out = Encoder::default();
    out.buf.extend_from_slice(MANIFEST_MAGIC);
    out.u64(capture.lsn);
    out.u32(capture.next_oid);
    out.u64(written.number);
    out.len(state.schemas.len());
    for schema in state.schemas.values() {
        schema.encode(&mut out);
    }
    out.len(state.names.len());
    for (name, oid) in state.names.iter() {
        name.encode(&mut out);
        out.u32(*oid);
    }
    out.len(state.tables.len());
    for (oid, entry) in &state.tables {
        out.u32(*oid);
        entry.schema.encode(&mut out);
        let (_, file) = written
            .files
            .get(oid)
            .expect("invariant: every table of the checkpoint has a file");
        out.str(file);
    }
    out.len(state.sequences.len());
    for (name, sequence) in state.sequences.iter() {
        let counter = capture
            .counters
            .iter()
            .find(|(n, _, _)| n == name)
            .map_or_else(|| sequence.counter(), |(_, l, c)| (*l, *c));
        encode_sequence(&mut out, sequence, counter);
    }
    out.len(state.views.len());
    for view in state.views.values() {
        view.encode(&mut out);
    }
    // Last, so that checkpoints written before enum types existed still read.
    out.len(state.enum_types.len());
    for enum_type in state.enum_types.values() {
        enum_type.encode(&mut out);
    }
    // Then tagged sections (see record.rs).
    out.u8(section::ROLES);
    state.roles.encode(&mut out);
    if !state.roles.privileges.objects.is_empty() {
        out.u8(section::PRIVILEGES);
        state.roles.privileges.encode(&mut out);
    }
    if !state.roles.privileges.columns.0.is_empty() {
        out.u8(section::COLUMN_PRIVILEGES);
        state.roles.privileges.columns.encode(&mut out);
    }
    if !state.roles.settings.0.is_empty() {
        out.u8(section::ROLE_SETTINGS);
        state.roles.settings.encode(&mut out);
    }
    if !state.functions.is_empty() {
        out.u8(section::FUNCTIONS);
        out.len(state.functions.len());
        for function in state.functions.values() {
            function.encode(&mut out);
        }
    }
    // Always: a database whose plpgsql was dropped has none.
    out.u8(section::EXTENSIONS);
    out.items(
        &state.extensions.values().collect::<Vec<_>>(),
        |out, extension| extension.encode(out),
    );
    if !state.foreign_servers.is_empty() {
        out.u8(section::FOREIGN_SERVERS);
        out.items(
            &state.foreign_servers.values().collect::<Vec<_>>(),
            |out, server| server.encode(out),
        );
        out.u8(section::USER_MAPPINGS);
        encode_user_mappings(&mut out, state.foreign_servers.values().map(|s| &**s));
    }
    if !state.domains.is_empty() {
        out.u8(section::DOMAINS);
        out.len(state.domains.len());
        for domain in state.domains.values() {
            domain.encode(&mut out);
        }
    }
    if !state.composite_types.is_empty() {
        write_wide_section(&mut out, section::COMPOSITE_TYPES);
        out.items(
            &state.composite_types.values().collect::<Vec<_>>(),
            |out, composite| composite.encode(out),
        );
    }
    with_checksum(out)
}

/// Makes a decoding error of the checkpoint file `path` say which file it is.
fn in_file(path: &Path) -> impl Fn(Error) -> Error + Copy + '_ {
    move |e| {
        Error::new(
            SqlState::DataCorrupted,
            format!(
                "checkpoint file \"{}\" is corrupt: {}",
                path.display(),
                e.message
            ),
        )
    }
}

/// The last checkpoint read back: the state, the next OID, and what it wrote. `None` when
/// the directory has none yet.
pub fn read_checkpoint(disk: &dyn Disk, dir: &Path) -> Result<Option<(DbState, u32, Written)>> {
    let path = dir.join(MANIFEST);
    if !disk.exists(&path) {
        return Ok(None);
    }
    let bytes = disk.read(&path).map_err(|e| io_error("read", &path, &e))?;
    let body = checked(&path, &bytes, MANIFEST_MAGIC)?;
    let named = in_file(&path);
    let mut input = Decoder::new(body);
    let lsn = input.u64().map_err(named)?;
    let next_oid = input.u32().map_err(named)?;
    let number = input.u64().map_err(named)?;
    let mut state = DbState::default();
    let mut written = Written {
        lsn,
        number,
        files: Map::default(),
    };
    let mut schemas = Map::default();
    for _ in 0..input.len(20).map_err(named)? {
        let schema = SchemaDef::decode(&mut input).map_err(named)?;
        schemas.insert(schema.oid, Arc::new(schema));
    }
    state.schemas = Arc::new(schemas);
    let mut names = Map::default();
    for _ in 0..input.len(16).map_err(named)? {
        let name = QualifiedName::decode(&mut input).map_err(named)?;
        names.insert(name, input.u32().map_err(named)?);
    }
    state.names = Arc::new(names);
    let mut tables: Vec<(u32, TableSchema, String)> = Vec::new();
    for _ in 0..input.len(12).map_err(named)? {
        let oid = input.u32().map_err(named)?;
        let schema = TableSchema::decode(&mut input).map_err(named)?;
        let file = input.string().map_err(named)?;
        tables.push((oid, schema, file));
    }
    let mut sequences = Map::default();
    for _ in 0..input.len(9).map_err(named)? {
        let sequence: Sequence = decode_sequence(&mut input).map_err(named)?;
        sequences.insert(sequence.name.clone(), Arc::new(sequence));
    }
    state.sequences = Arc::new(sequences);
    let mut views = Map::default();
    for _ in 0..input.len(9).map_err(named)? {
        let view = ViewDef::decode(&mut input).map_err(named)?;
        views.insert(view.qualified_name(), Arc::new(view));
    }
    state.views = Arc::new(views);
    if !input.is_empty() {
        let mut enum_types = Map::default();
        for _ in 0..input.len(9).map_err(named)? {
            let enum_type = EnumType::decode(&mut input).map_err(named)?;
            enum_types.insert(enum_type.oid, Arc::new(enum_type));
        }
        state.enum_types = Arc::new(enum_types);
    }
    while !input.is_empty() {
        match input.u8().map_err(named)? {
            section::ROLES => {
                state.roles = Arc::new(RoleCatalog::decode(&mut input).map_err(named)?);
            }
            section::PRIVILEGES => {
                Arc::make_mut(&mut state.roles).privileges =
                    PrivilegeCatalog::decode(&mut input).map_err(named)?;
            }
            section::COLUMN_PRIVILEGES => {
                Arc::make_mut(&mut state.roles).privileges.columns =
                    ColumnPrivileges::decode(&mut input).map_err(named)?;
            }
            section::ROLE_SETTINGS => {
                Arc::make_mut(&mut state.roles).settings =
                    RoleSettings::decode(&mut input).map_err(named)?;
            }
            section::FUNCTIONS => {
                let mut functions = Map::default();
                for _ in 0..input.len(9).map_err(named)? {
                    let function = FunctionDef::decode(&mut input).map_err(named)?;
                    functions.insert(function.oid, Arc::new(function));
                }
                state.functions = Arc::new(functions);
            }
            section::EXTENSIONS => {
                let extensions = input
                    .items(MIN_EXTENSION_BYTES, Extension::decode)
                    .map_err(named)?;
                state.extensions = Arc::new(
                    extensions
                        .into_iter()
                        .map(|e| (e.name.clone(), Arc::new(e)))
                        .collect(),
                );
            }
            section::FOREIGN_SERVERS => {
                let servers = input
                    .items(MIN_FOREIGN_SERVER_BYTES, ForeignServer::decode)
                    .map_err(named)?;
                state.foreign_servers = Arc::new(
                    servers
                        .into_iter()
                        .map(|s| (s.name.clone(), Arc::new(s)))
                        .collect(),
                );
            }
            section::USER_MAPPINGS => {
                decode_user_mappings(&mut input, Arc::make_mut(&mut state.foreign_servers))
                    .map_err(named)?;
            }
            section::DOMAINS => {
                let mut domains = Map::default();
                for _ in 0..input.len(9).map_err(named)? {
                    let domain = Domain::decode(&mut input).map_err(named)?;
                    domains.insert(domain.oid, Arc::new(domain));
                }
                state.domains = Arc::new(domains);
            }
            section::COMPOSITE_TYPES_FIRST => {
                read_wide_section(&mut input, section::COMPOSITE_TYPES).map_err(named)?;
                let composite_types = input
                    .items(MIN_COMPOSITE_TYPE_BYTES, CompositeType::decode)
                    .map_err(named)?;
                state.composite_types = Arc::new(
                    composite_types
                        .into_iter()
                        .map(|c| (c.oid, Arc::new(c)))
                        .collect(),
                );
            }
            other => return Err(named(corrupt(format!("manifest section {other}")))),
        }
    }
    for (oid, schema, file) in tables {
        let data_path = dir.join(TABLES).join(&file);
        let data = read_table_file(disk, &data_path, oid, &schema)?;
        // Generation 1 for everything loaded: the caller renumbers as it replays.
        written.files.insert(oid, (1, file));
        state
            .tables
            .insert(oid, Arc::new(unindexed_entry(schema, data, 1)));
    }
    Ok(Some((state, next_oid, written)))
}

fn read_table_file(
    disk: &dyn Disk,
    path: &Path,
    oid: u32,
    schema: &TableSchema,
) -> Result<TableData> {
    let bytes = disk.read(path).map_err(|e| io_error("read", path, &e))?;
    let body = checked(path, &bytes, TABLE_MAGIC)?;
    let named = in_file(path);
    let mut input = Decoder::new(body);
    if input.u32().map_err(named)? != oid {
        return Err(named(corrupt("it holds another table")));
    }
    let data = decode_table_data(&mut input, &schema.column_types()).map_err(named)?;
    if !input.is_empty() {
        return Err(named(corrupt("trailing bytes")));
    }
    Ok(data)
}

/// Deletes the table files `written` does not name (left by older checkpoints, or by one
/// that crashed before its manifest).
pub fn remove_unused_files(disk: &dyn Disk, dir: &Path, written: &Written) -> Result<()> {
    let tables_dir = dir.join(TABLES);
    let names = disk
        .list(&tables_dir)
        .map_err(|e| io_error("list", &tables_dir, &e))?;
    for name in names {
        if !written.files.values().any(|(_, file)| *file == name) {
            let path = tables_dir.join(&name);
            disk.remove(&path)
                .map_err(|e| io_error("remove", &path, &e))?;
        }
    }
    Ok(())
}
