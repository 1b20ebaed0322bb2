//! Temporary tables: the session's temporary schema (`pg_temp_N`, N the session's number),
//! made by the first statement that creates a table in it and dropped with everything in
//! it when the session ends; and ON COMMIT DELETE ROWS / DROP, applied by each COMMIT.
//!
//! The schema is an ordinary one in the shared catalog, so other sessions see its tables in
//! pg_class (as in PostgreSQL) but never resolve a name to them and cannot read them
//! (`binder/names.rs`); `durability/` leaves it out of the log and the checkpoints.

use sqlparser::ast::{SetExpr, Statement};

use super::Session;
use crate::catalog::{temp_schema_name, AclMode, ObjectKind, PG_TEMP};
use crate::error::{Error, Result, SqlState};
use crate::exec::{ddl, schema, truncate};
use crate::parser::Parsed;
use crate::plan::OnCommitAction;
use crate::storage::{RelationKind, Transaction};

/// What the session knows of its temporary tables.
#[derive(Debug, Default)]
pub(super) struct TempTables {
    /// Whether the session has created its temporary schema (it may have been rolled back
    /// since): only then does its search path look for it.
    schema_created: bool,
    /// The ON COMMIT actions of the tables created with one, by OID; a table that no longer
    /// exists (dropped, or its creation rolled back) is forgotten at the next COMMIT.
    on_commit: Vec<(u32, OnCommitAction)>,
}

/// Whether `parsed` creates a relation in the temporary schema, which must then exist
/// before it is bound: CREATE TEMP TABLE / VIEW / SEQUENCE, CREATE TABLE pg_temp.name,
/// SELECT ... INTO TEMP.
pub(super) fn creates_temp_relation(parsed: &Parsed) -> bool {
    match parsed.statement.sql() {
        Some(Statement::CreateView(create)) => create.temporary,
        Some(Statement::CreateSequence { temporary, .. }) => *temporary,
        Some(Statement::CreateTable(create)) => {
            create.temporary
                || create.name.0.len() == 2
                    && create.name.0[0]
                        .as_ident()
                        .is_some_and(|schema| schema.value == PG_TEMP)
        }
        Some(Statement::Query(query)) => match query.body.as_ref() {
            SetExpr::Select(select) => select.into.as_ref().is_some_and(|into| into.temporary),
            _ => false,
        },
        _ => false,
    }
}

impl Session {
    /// The name of the session's temporary schema, once the session has created it.
    pub(super) fn temp_schema(&self) -> Option<String> {
        self.temp_tables
            .schema_created
            .then(|| temp_schema_name(self.lock_owner))
    }

    /// Creates the temporary schema in the transaction if a statement about to be bound
    /// needs it and it does not exist (as PostgreSQL's InitTempTableNamespace does).
    pub(super) fn prepare_temp_schema(&mut self, parsed: &Parsed) -> Result<()> {
        if !creates_temp_relation(parsed) {
            return Ok(());
        }
        let name = temp_schema_name(self.lock_owner);
        let owner = self.identity.user.clone();
        if self.transaction().view().schema_by_name(&name).is_none() {
            self.require_temporary_privilege()?;
            let txn = self.transaction();
            schema::create_schema(txn, &name, &owner, true, &mut Vec::new())?;
        }
        self.temp_tables.schema_created = true;
        Ok(())
    }

    /// 42501 unless the current role may create temporary tables in the database, which
    /// PostgreSQL asks once, as it makes the session's temporary schema.
    fn require_temporary_privilege(&mut self) -> Result<()> {
        let role = self.current_identity()?.role_oid;
        let held = {
            let state = self.transaction().view();
            let roles = &state.roles;
            let database = roles.database_privileges();
            roles.privileges_of(role, ObjectKind::Database, &database).0
        };
        match held.contains(AclMode::TEMPORARY) {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "permission denied to create temporary tables in database \"{}\"",
                    self.identity.database
                ),
            )),
        }
    }

    pub(super) fn register_on_commit(&mut self, oid: u32, action: OnCommitAction) {
        self.temp_tables.on_commit.push((oid, action));
    }

    /// At the end of the session: drops the temporary schema with its tables, in a
    /// transaction of its own after rolling back whatever was open.
    pub(super) fn drop_temp_schema(&mut self) {
        let Some(name) = self.temp_schema() else {
            return;
        };
        self.rollback_transaction();
        let txn = self.transaction();
        // Nothing can be reported from a session that is going away: a failure (a database
        // already closed) leaves the schema to vanish at the next restart.
        let dropped = schema::drop_schemas(txn, &[name], true, true, &[], &mut Vec::new());
        match dropped {
            Ok(()) => {
                let _ = self.commit_transaction();
            }
            Err(_) => self.rollback_transaction(),
        }
    }
}

/// Applies the ON COMMIT actions of `temp` to the transaction about to commit.
pub(super) fn apply_on_commit(temp: &mut TempTables, txn: &mut Transaction) -> Result<()> {
    if temp.on_commit.is_empty() {
        return Ok(());
    }
    let view = txn.view();
    temp.on_commit
        .retain(|(oid, _)| view.tables.contains_key(oid));
    let mut notices = Vec::new();
    for &(oid, action) in &temp.on_commit {
        let Some(table) = view.tables.get(&oid) else {
            continue;
        };
        let name = table.schema.qualified_name();
        match action {
            // An empty table needs no new version.
            OnCommitAction::DeleteRows if table.data.row_capacity() > 0 => {
                truncate::truncate(txn, &[(name, oid)], false, false, &mut notices)?;
            }
            OnCommitAction::DeleteRows => {}
            OnCommitAction::Drop => ddl::drop_tables(
                txn,
                &[name],
                true,
                false,
                &RelationKind::Table,
                &mut notices,
            )?,
        }
    }
    temp.on_commit
        .retain(|(_, action)| *action != OnCommitAction::Drop);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::api::{Database, Session};

    fn lines(session: &mut Session, sql: &str) -> Vec<String> {
        match session.execute(sql) {
            Ok(results) => results.last().map(|r| r.text_lines()).unwrap_or_default(),
            Err(e) => vec![e.sqlstate().to_string()],
        }
    }

    const TEMP_SCHEMAS: &str = "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pg_temp_%'";

    /// Another session cannot read a temporary table even by its qualified name, and the
    /// end of the session drops its schema with everything in it.
    #[test]
    fn a_session_end_drops_its_temporary_schema() {
        let db = Database::new();
        let mut owner = db.connect();
        let mut other = db.connect();
        assert!(owner
            .execute(
                "CREATE TEMP TABLE t (a serial PRIMARY KEY); INSERT INTO t DEFAULT VALUES; \
                 CREATE TEMP VIEW v AS SELECT a FROM t; CREATE TEMP SEQUENCE s"
            )
            .is_ok());
        let schemas = lines(&mut other, TEMP_SCHEMAS);
        assert_eq!(schemas.len(), 1);
        let qualified = format!("SELECT * FROM {}.t", schemas[0]);
        assert_eq!(lines(&mut owner, &qualified), ["1"]);
        assert_eq!(lines(&mut other, &qualified), ["0A000"]);
        drop(owner);
        assert!(lines(&mut other, TEMP_SCHEMAS).is_empty());
        assert!(db.store().snapshot().tables.is_empty());
        assert!(db.store().snapshot().sequences.is_empty());
        assert!(db.store().snapshot().views.is_empty());
    }

    #[test]
    fn temporary_tables_need_the_temporary_privilege() {
        let db = Database::new();
        let mut admin = db.connect();
        let database = lines(&mut admin, "SELECT current_database()").join("");
        let revoke =
            format!("CREATE ROLE tt_user; REVOKE TEMPORARY ON DATABASE \"{database}\" FROM PUBLIC");
        let revoked = admin.execute(&revoke).err().map(|e| e.message);
        assert_eq!(revoked, None);
        let mut user = db.connect();
        let create = "SET ROLE tt_user; CREATE TEMP TABLE t (a int)";
        let denied = user
            .execute(create)
            .err()
            .map(|e| (e.sqlstate(), e.message));
        let message =
            format!("permission denied to create temporary tables in database \"{database}\"");
        assert_eq!(denied, Some(("42501", message)));
        let grant = format!("GRANT TEMPORARY ON DATABASE \"{database}\" TO tt_user");
        assert!(admin.execute(&grant).is_ok());
        assert!(user.execute(create).is_ok());
    }

    fn files_contain(dir: &Path, needle: &[u8]) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|entry| {
            let path = entry.path();
            if path.is_dir() {
                return files_contain(&path, needle);
            }
            std::fs::read(&path).is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
        })
    }

    /// Neither the log nor a checkpoint holds anything of a temporary table.
    #[test]
    fn temporary_tables_never_reach_the_data_directory() {
        let dir = std::env::temp_dir().join(format!("kestrel-temp-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = Database::open(&dir).expect("a fresh data directory opens");
        let mut session = db.connect();
        let setup = "CREATE TEMP TABLE temp_marker_table (v text); \
                     INSERT INTO temp_marker_table VALUES ('temp-marker-value'); \
                     CREATE TABLE kept_marker_table (v text); \
                     INSERT INTO kept_marker_table VALUES ('kept-marker-value')";
        assert!(session.execute(setup).is_ok());
        assert!(files_contain(&dir, b"kept-marker-value"));
        assert!(db.checkpoint().is_ok());
        assert!(session
            .execute("UPDATE temp_marker_table SET v = 'temp-marker-update'")
            .is_ok());
        for needle in [
            "temp_marker_table",
            "temp-marker-value",
            "temp-marker-update",
            "pg_temp_",
        ] {
            assert!(
                !files_contain(&dir, needle.as_bytes()),
                "{needle} was written"
            );
        }
        drop(session);
        drop(db);
        let db = Database::open(&dir).expect("the data directory opens again");
        let mut session = db.connect();
        assert_eq!(lines(&mut session, TEMP_SCHEMAS), Vec::<String>::new());
        assert_eq!(
            lines(&mut session, "SELECT v FROM kept_marker_table"),
            ["kept-marker-value"]
        );
        drop(session);
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
