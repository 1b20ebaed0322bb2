//! CREATE, DROP and ALTER SCHEMA inside a transaction. Each holds the lock of the schema
//! names it reads or takes, so two transactions never both create one; DROP ... CASCADE
//! drops every relation of the schema and the views elsewhere that read them.

use std::sync::Arc;

use crate::api::Notice;
use crate::catalog::{FunctionDef, QualifiedName, SchemaDef};
use crate::error::{Error, Result, SqlState};
use crate::storage::{DbState, RelationKind, Transaction};

pub fn create_schema(
    txn: &mut Transaction,
    name: &str,
    owner: &str,
    if_not_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    txn.lock_schema_name(name)?;
    if txn.view().schema_by_name(name).is_some() {
        if if_not_exists {
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::DuplicateSchema,
                message: format!("schema \"{name}\" already exists, skipping"),
                detail: None,
            });
            return Ok(());
        }
        return Err(already_exists(name));
    }
    let oid = txn.allocate_oid();
    txn.put_schema(
        oid,
        Some(SchemaDef {
            oid,
            name: name.to_string(),
            owner: owner.to_string(),
            comment: None,
        }),
    );
    Ok(())
}

pub fn rename_schema(txn: &mut Transaction, name: &str, new_name: &str) -> Result<()> {
    txn.lock_schema_name(name)?;
    txn.lock_schema_name(new_name)?;
    let state = txn.view();
    let schema = existing(&state, name)?;
    if schema.is_system() {
        return Err(Error::unsupported(format!("renaming schema {name}")));
    }
    if state.schema_by_name(new_name).is_some() {
        return Err(already_exists(new_name));
    }
    let mut renamed = (**schema).clone();
    renamed.name = new_name.to_string();
    txn.put_schema(renamed.oid, Some(renamed));
    Ok(())
}

/// DROP SCHEMA: `searched` is the statement's search path, which decides whether messages
/// name a relation with its schema (as PostgreSQL does for relations not visible on it).
pub fn drop_schemas(
    txn: &mut Transaction,
    names: &[String],
    if_exists: bool,
    cascade: bool,
    searched: &[u32],
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let mut dropped: Vec<Arc<SchemaDef>> = Vec::with_capacity(names.len());
    for name in names {
        txn.lock_schema_name(name)?;
        let state = txn.view();
        match state.schema_by_name(name) {
            Some(schema) if schema.is_system() => {
                return Err(Error::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                        "cannot drop schema {name} because it is required by the database system"
                    ),
                ))
            }
            Some(schema) => dropped.push(schema.clone()),
            None if if_exists => notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::SuccessfulCompletion,
                message: format!("schema \"{name}\" does not exist, skipping"),
                detail: None,
            }),
            None => return Err(missing(name)),
        }
    }
    let state = txn.view();
    check_no_types(&state, &dropped, cascade)?;
    let functions = functions_in(&state, &dropped);
    let objects = contents(&state, &dropped);
    if !cascade {
        if let Some(error) = function_dependency_error(&functions) {
            return Err(error);
        }
    }
    if !objects.is_empty() || !functions.is_empty() {
        if !cascade {
            let schema = &dropped[0].name;
            return Err(dependency_error(&state, searched, schema, &objects));
        }
        let dropped: Vec<String> =
            (objects.iter())
                .map(|object| describe_relation(&state, searched, &object.name, &object.kind))
                .chain((functions.iter()).map(|(schema, function)| {
                    format!("function {schema}.{}", function.signature())
                }))
                .collect();
        notices.push(super::drop_dependents::cascade_notice(&dropped));
    }
    for (_, function) in &functions {
        txn.lock_name(&function.name)?;
        txn.put_function(function.oid, None);
    }
    for Dropped { name, kind, .. } in &objects {
        txn.lock_name(name)?;
        match kind {
            RelationKind::View => txn.put_view(name, None),
            RelationKind::Sequence => txn.put_sequence(name, None),
            RelationKind::Table | RelationKind::MaterializedView | RelationKind::ForeignTable => {
                if let Some(entry) = txn.table_for_write(name)? {
                    txn.drop_table(name, entry.schema.oid);
                }
            }
            // A table's indexes go with it.
            RelationKind::Index { .. } => {}
            RelationKind::CompositeType => {
                if let Some(composite) = txn.view().composite_type_named(name).cloned() {
                    txn.put_composite_type(composite.oid, None);
                }
            }
        }
    }
    for schema in &dropped {
        // The sequences of SERIAL and identity columns, listed under their tables.
        for (name, kind) in state.relations_in(schema.oid) {
            if kind == RelationKind::Sequence {
                txn.lock_name(&name)?;
                txn.put_sequence(&name, None);
            }
        }
        txn.put_schema(schema.oid, None);
    }
    Ok(())
}

/// The SQL functions of the schemas, each with its schema's name, in creation order.
fn functions_in(state: &DbState, schemas: &[Arc<SchemaDef>]) -> Vec<(String, Arc<FunctionDef>)> {
    let mut functions: Vec<(String, Arc<FunctionDef>)> = state
        .functions
        .values()
        .filter_map(|f| {
            let schema = schemas.iter().find(|s| s.oid == f.name.schema)?;
            Some((schema.name.clone(), f.clone()))
        })
        .collect();
    functions.sort_by_key(|(_, f)| f.oid);
    functions
}

/// DROP SCHEMA without CASCADE of a schema holding SQL functions: PostgreSQL's 2BP01.
fn function_dependency_error(functions: &[(String, Arc<FunctionDef>)]) -> Option<Error> {
    let (schema, _) = functions.first()?;
    let lines: Vec<String> = functions
        .iter()
        .map(|(schema, f)| {
            format!(
                "function {schema}.{} depends on schema {schema}",
                f.signature()
            )
        })
        .collect();
    Some(super::drop_dependents::dependents_still_exist(
        &format!("schema {schema}"),
        &lines,
    ))
}

/// Enum and composite types and domains are dropped with their schema by no CASCADE here: a schema
/// holding one is PostgreSQL's 2BP01 without CASCADE, and 0A000 with it.
fn check_no_types(state: &DbState, schemas: &[Arc<SchemaDef>], cascade: bool) -> Result<()> {
    let mut lines = Vec::new();
    for schema in schemas {
        let enum_types = state.enum_types.values().map(|t| &t.name);
        let composite_types = state.composite_types.values().map(|c| &c.name);
        let domains = state.domains.values().map(|d| &d.name);
        for name in enum_types.chain(composite_types).chain(domains) {
            if name.schema == schema.oid {
                lines.push(format!(
                    "type {}.{} depends on schema {}",
                    schema.name, name.name, schema.name
                ));
            }
        }
    }
    match (lines.is_empty(), cascade) {
        (true, _) => Ok(()),
        (false, true) => Err(Error::unsupported(
            "DROP SCHEMA ... CASCADE of a schema holding types",
        )),
        (false, false) => Err(super::drop_dependents::dependents_still_exist(
            &format!("schema {}", schemas[0].name),
            &lines,
        )),
    }
}

/// DROP SCHEMA without CASCADE of a schema holding `objects`: PostgreSQL's 2BP01, with a
/// line per object saying what it depends on.
fn dependency_error(state: &DbState, searched: &[u32], schema: &str, objects: &[Dropped]) -> Error {
    let describe =
        |name: &QualifiedName, kind: &RelationKind| describe_relation(state, searched, name, kind);
    let lines: Vec<String> = objects
        .iter()
        .map(|object| {
            let on = match &object.depends_on {
                None => match state.schemas.get(&object.name.schema) {
                    Some(schema) => format!("schema {}", schema.name),
                    None => String::new(),
                },
                Some(on) => describe(on, &state.relation_kind(on).unwrap_or(RelationKind::Table)),
            };
            format!("{} depends on {on}", describe(&object.name, &object.kind))
        })
        .collect();
    super::drop_dependents::dependents_still_exist(&format!("schema {schema}"), &lines)
}

/// A relation dropped with its schema, and what it depends on: its schema (`None`), or a
/// relation of the schema that a view of another schema reads.
struct Dropped {
    name: QualifiedName,
    kind: RelationKind,
    depends_on: Option<QualifiedName>,
}

/// What dropping `schemas` drops with them, in creation order: their tables, views and
/// sequences (not those owned by a column: they go with their table), each followed by the
/// views of other schemas reading it, as PostgreSQL lists them.
fn contents(state: &DbState, schemas: &[Arc<SchemaDef>]) -> Vec<Dropped> {
    let mut objects: Vec<(u32, QualifiedName, RelationKind)> = Vec::new();
    for schema in schemas {
        for (name, kind) in state.relations_in(schema.oid) {
            let oid = match &kind {
                RelationKind::Table
                | RelationKind::MaterializedView
                | RelationKind::ForeignTable => state.table_by_name(&name).map(|t| t.schema.oid),
                RelationKind::Sequence => state
                    .sequences
                    .get(&name)
                    .filter(|s| s.owned_by.is_none())
                    .map(|s| s.oid),
                RelationKind::View => state.views.get(&name).map(|v| v.oid),
                RelationKind::CompositeType => state.composite_type_named(&name).map(|c| c.oid),
                RelationKind::Index { .. } => None,
            };
            if let Some(oid) = oid {
                objects.push((oid, name, kind));
            }
        }
    }
    objects.sort_by_key(|(oid, _, _)| *oid);
    let mut found: Vec<Dropped> = Vec::with_capacity(objects.len());
    for (_, name, kind) in objects {
        let readers = state.dependent_views(std::slice::from_ref(&name));
        found.push(Dropped {
            name,
            kind,
            depends_on: None,
        });
        for (view, on) in readers {
            let reader = view.qualified_name();
            let outside = !schemas.iter().any(|s| s.oid == reader.schema);
            if outside && !found.iter().any(|d| d.name == reader) {
                found.push(Dropped {
                    name: reader,
                    kind: RelationKind::View,
                    depends_on: Some(on),
                });
            }
        }
    }
    found
}

/// "table s.t" or "view v": PostgreSQL names a relation with its schema unless the search
/// path finds it by its name alone.
fn describe_relation(
    state: &DbState,
    searched: &[u32],
    name: &QualifiedName,
    kind: &RelationKind,
) -> String {
    let noun = match kind {
        RelationKind::Table => "table",
        RelationKind::Sequence => "sequence",
        RelationKind::View => "view",
        RelationKind::MaterializedView => "materialized view",
        RelationKind::ForeignTable => "foreign table",
        RelationKind::Index { .. } => "index",
        RelationKind::CompositeType => "type",
    };
    let visible = searched
        .iter()
        .map(|&oid| QualifiedName::new(oid, name.name.as_str()))
        .find(|q| state.relation_kind(q).is_some())
        .is_some_and(|q| q == *name);
    match state.schemas.get(&name.schema) {
        Some(schema) if !visible => format!("{noun} {}.{}", schema.name, name.name),
        _ => format!("{noun} {}", name.name),
    }
}

fn existing<'a>(state: &'a DbState, name: &str) -> Result<&'a Arc<SchemaDef>> {
    state.schema_by_name(name).ok_or_else(|| missing(name))
}

fn missing(name: &str) -> Error {
    Error::new(
        SqlState::InvalidSchemaName,
        format!("schema \"{name}\" does not exist"),
    )
}

fn already_exists(name: &str) -> Error {
    Error::new(
        SqlState::DuplicateSchema,
        format!("schema \"{name}\" already exists"),
    )
}

#[cfg(test)]
mod tests {
    use crate::api::Database;

    /// (OID, name, owner) of every schema, as the catalog snapshot lists them.
    fn schemas(db: &Database) -> Vec<(u32, String, String)> {
        db.store()
            .snapshot()
            .schema_list()
            .iter()
            .map(|s| (s.oid, s.name.clone(), s.owner.clone()))
            .collect()
    }

    /// DROP SCHEMA sees only committed relations; a transaction creating one in the schema
    /// meanwhile fails at COMMIT instead of leaving it in no schema.
    #[test]
    fn creating_in_a_schema_dropped_meanwhile_fails_at_commit() {
        let db = Database::new();
        let mut creator = db.connect();
        let mut dropper = db.connect();
        assert!(creator.execute("CREATE SCHEMA s").is_ok());
        assert!(creator
            .execute("BEGIN; CREATE TABLE s.t (a integer); INSERT INTO s.t VALUES (1)")
            .is_ok());
        assert!(dropper.execute("DROP SCHEMA s").is_ok());
        let commit = creator.execute("COMMIT").err().map(|e| e.sqlstate());
        assert_eq!(commit, Some("3F000"));
        assert!(db.store().snapshot().names.is_empty());
        assert!(creator
            .execute("CREATE SCHEMA s; CREATE TABLE s.t (a integer)")
            .is_ok());
    }

    /// Schema OIDs, names and owners survive a restart, both from the log alone and from a
    /// checkpoint, and so do the relations of a renamed schema.
    #[test]
    fn schemas_keep_their_oids_across_restarts() {
        let dir = std::env::temp_dir().join(format!("kestrel-schemas-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let open = || Database::open(&dir).expect("a fresh data directory opens");
        let db = open();
        let mut session = db.connect();
        let setup = "CREATE SCHEMA a; CREATE SCHEMA b; CREATE TABLE b.t (x integer); \
                     INSERT INTO b.t VALUES (1); ALTER SCHEMA b RENAME TO c; DROP SCHEMA a";
        assert!(session.execute(setup).is_ok());
        let before = schemas(&db);
        assert_eq!(before.len(), 4);
        drop(session);
        drop(db);
        let db = open();
        assert_eq!(schemas(&db), before);
        assert!(db.checkpoint().is_ok());
        drop(db);
        let db = open();
        assert_eq!(schemas(&db), before);
        let mut session = db.connect();
        let rows = session
            .execute("SELECT x FROM c.t")
            .map(|r| r[0].text_lines())
            .unwrap_or_default();
        assert_eq!(rows, ["1"]);
        drop(session);
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
