//! DDL and maintenance statements: each kind dispatched to `exec` in the session's
//! transaction (with the owner of what it creates and the notices it raises), and those
//! whose work is more than one call into `exec`: CREATE TABLE [AS], ALTER TABLE, ANALYZE /
//! VACUUM.

use super::{Block, Session};
use crate::api::{Notice, StatementResult};
use crate::catalog::password::PasswordEncryption;
use crate::catalog::{ObjectKind, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::exec::{
    alter_table, ddl, enum_type, index, modify, role, schema, sql_function, truncate, view,
    ExecContext,
};
use crate::plan::{AlterTable, BoundStatement, LogicalPlan, RoleChange};
use crate::storage::{RelationKind, SequenceOptions, Transaction};

impl Session {
    /// A statement that changes the catalog (DDL, roles, COMMENT, TRUNCATE) or maintains
    /// tables (VACUUM, ANALYZE, REFRESH MATERIALIZED VIEW); what it creates is owned by the
    /// current role.
    pub(super) fn run_catalog_change(
        &mut self,
        bound: BoundStatement,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        match bound {
            BoundStatement::CreateTable {
                schema,
                if_not_exists,
                sequences,
                source,
                on_commit,
            } => {
                let name = schema.qualified_name();
                let existed = self.view().table_by_name(&name).is_some();
                let sequence_names: Vec<QualifiedName> =
                    sequences.iter().map(|(name, ..)| name.clone()).collect();
                let result =
                    self.run_create_table(schema, if_not_exists, sequences, source, ctx)?;
                if !existed {
                    let oid = self
                        .transaction()
                        .table_for_write(&name)?
                        .map(|t| t.schema.oid);
                    if let Some(oid) = oid {
                        self.record_owner(ObjectKind::Relation, &[oid])?;
                        let sequence_oids = self.sequence_oids(sequence_names.iter());
                        self.record_owner(ObjectKind::Sequence, &sequence_oids)?;
                        if let Some(action) = on_commit {
                            self.register_on_commit(oid, action);
                        }
                    }
                }
                Ok(result)
            }
            BoundStatement::DropTable {
                names,
                if_exists,
                cascade,
                kind,
            } => {
                let tag = match kind {
                    RelationKind::MaterializedView => "DROP MATERIALIZED VIEW",
                    RelationKind::ForeignTable => "DROP FOREIGN TABLE",
                    RelationKind::Table
                    | RelationKind::Sequence
                    | RelationKind::Index { .. }
                    | RelationKind::View
                    | RelationKind::CompositeType => "DROP TABLE",
                };
                self.with_notices(tag, |txn, notices| {
                    ddl::drop_tables(txn, &names, if_exists, cascade, &kind, notices)
                })
            }
            BoundStatement::CreateIndex(spec) => {
                if spec.concurrently {
                    self.outside_transaction_block("CREATE INDEX CONCURRENTLY")?;
                }
                self.with_notices("CREATE INDEX", |txn, notices| {
                    index::create_index(txn, spec, notices)
                })
            }
            BoundStatement::AlterTable {
                alter,
                notices,
                tag,
            } => self.run_alter_table(alter.as_deref(), notices, tag, ctx),
            BoundStatement::CreateView { view, or_replace } => {
                let name = view.qualified_name();
                let existed = self.view().views.contains_key(&name);
                view::create_view(self.transaction(), view, or_replace)?;
                let oid = self.transaction().view().views.get(&name).map(|v| v.oid);
                if let Some(oid) = oid.filter(|_| !existed) {
                    self.record_owner(ObjectKind::Relation, &[oid])?;
                }
                Ok(StatementResult::command("CREATE VIEW"))
            }
            BoundStatement::DropView {
                names,
                if_exists,
                cascade,
            } => self.with_notices("DROP VIEW", |txn, notices| {
                view::drop_views(txn, &names, if_exists, cascade, notices)
            }),
            BoundStatement::ChangeRole(mut change) => {
                let tag = change.tag();
                if let RoleChange::Setting { change, .. } = &mut change {
                    self.check_kept_setting(change)?;
                }
                let session = self.current_identity()?.session_role();
                let encryption = PasswordEncryption::from_setting(
                    self.settings
                        .value("password_encryption")
                        .unwrap_or_default(),
                );
                let actor = role::RoleActor {
                    session: &session,
                    session_user: self.identity.role_oid,
                    encryption,
                };
                self.with_notices(tag, |txn, notices| {
                    role::change_role(txn, change, &actor, notices)
                })
            }
            BoundStatement::ChangeType(change) => {
                let tag = change.tag();
                self.with_notices(tag, |txn, notices| {
                    enum_type::change_type(txn, change, notices, ctx)
                })
            }
            BoundStatement::ChangeFunction(change) => {
                let tag = change.tag();
                let before: Vec<u32> = self.view().functions.keys().copied().collect();
                let result = self.with_notices(tag, |txn, notices| {
                    sql_function::change_function(txn, change, notices)
                })?;
                let made: Vec<u32> = (self.transaction().view().functions.keys())
                    .filter(|oid| !before.contains(oid))
                    .copied()
                    .collect();
                self.record_owner(ObjectKind::Function, &made)?;
                Ok(result)
            }
            BoundStatement::ChangeExtension(change) => {
                let tag = change.tag();
                let session = self.identity.session_role();
                self.with_notices(tag, |txn, notices| {
                    crate::exec::extension::change_extension(txn, change, &session, notices)
                })
            }
            BoundStatement::ChangeForeignData(change) => {
                let tag = change.tag();
                let session = self.identity.session_role();
                self.with_notices(tag, |txn, notices| {
                    crate::exec::foreign_server::change_foreign_server(
                        txn, change, &session, notices,
                    )
                })
            }
            BoundStatement::Truncate {
                tables,
                restart_identity,
                cascade,
            } => self.with_notices("TRUNCATE TABLE", |txn, notices| {
                truncate::truncate(txn, &tables, restart_identity, cascade, notices)
            }),
            BoundStatement::DropIndex {
                names,
                if_exists,
                concurrently,
            } => {
                if concurrently {
                    self.outside_transaction_block("DROP INDEX CONCURRENTLY")?;
                }
                self.with_notices("DROP INDEX", |txn, notices| {
                    index::drop_indexes(txn, &names, if_exists, notices)
                })
            }
            BoundStatement::CreateSequence {
                name,
                options,
                if_not_exists,
                owned_by,
            } => {
                let existed = self.view().sequences.contains_key(&name);
                let result = self.with_notices("CREATE SEQUENCE", |txn, notices| {
                    ddl::create_sequence(txn, &name, options, owned_by, if_not_exists, notices)
                })?;
                if !existed {
                    let oids = self.sequence_oids(std::iter::once(&name));
                    self.record_owner(ObjectKind::Sequence, &oids)?;
                }
                Ok(result)
            }
            BoundStatement::Comment { target, comment } => {
                crate::exec::comment::comment(self.transaction(), &target, comment)?;
                Ok(StatementResult::command("COMMENT"))
            }
            BoundStatement::AlterSequence { alter, notices } => {
                self.notices
                    .extend(notices.into_iter().map(Notice::skipped));
                self.with_notices("ALTER SEQUENCE", |txn, notices| match alter {
                    Some(alter) => ddl::alter_sequence(txn, &alter, notices),
                    None => Ok(()),
                })
            }
            BoundStatement::DropSequence { names, if_exists } => self
                .with_notices("DROP SEQUENCE", |txn, notices| {
                    ddl::drop_sequences(txn, &names, if_exists, notices)
                }),
            BoundStatement::CreateSchema {
                name,
                owner,
                if_not_exists,
            } => self.with_notices("CREATE SCHEMA", |txn, notices| {
                schema::create_schema(txn, &name, &owner, if_not_exists, notices)
            }),
            BoundStatement::DropSchema {
                names,
                if_exists,
                cascade,
                searched,
            } => self.with_notices("DROP SCHEMA", |txn, notices| {
                schema::drop_schemas(txn, &names, if_exists, cascade, &searched, notices)
            }),
            BoundStatement::RenameSchema { name, new_name } => {
                schema::rename_schema(self.transaction(), &name, &new_name)?;
                Ok(StatementResult::command("ALTER SCHEMA"))
            }
            BoundStatement::Maintenance { tag, tables } => self.run_maintenance(tag, &tables),
            BoundStatement::RefreshMaterializedView { name, oid, source } => {
                self.run_refresh(&name, oid, source.as_ref(), ctx)
            }
            // `run_bound` sends only the statements above here; its match is exhaustive.
            _ => Err(Error::internal(
                "run_catalog_change got a statement it does not run",
            )),
        }
    }

    /// The OIDs of the sequences `names` that exist in the transaction's view.
    fn sequence_oids<'n>(&mut self, names: impl Iterator<Item = &'n QualifiedName>) -> Vec<u32> {
        let view = self.transaction().view();
        names
            .filter_map(|name| view.sequences.get(name).map(|s| s.oid))
            .collect()
    }

    /// Runs a catalog change that may raise notices in the session's transaction.
    pub(super) fn with_notices(
        &mut self,
        tag: &str,
        change: impl FnOnce(&mut Transaction, &mut Vec<Notice>) -> Result<()>,
    ) -> Result<StatementResult> {
        let mut notices = Vec::new();
        change(self.transaction(), &mut notices)?;
        self.notices.extend(notices);
        Ok(StatementResult::command(tag))
    }

    pub(super) fn run_create_table(
        &mut self,
        schema: TableSchema,
        if_not_exists: bool,
        sequences: Vec<(QualifiedName, SequenceOptions, String)>,
        source: Option<LogicalPlan>,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        let name = schema.qualified_name();
        let materialized = schema.materialized.is_some();
        let foreign = schema.foreign.is_some();
        let mut notices = Vec::new();
        let txn = self.transaction();
        if let Some(foreign) = &schema.foreign {
            crate::exec::foreign_server::check_server(txn, &foreign.server)?;
        }
        // IF NOT EXISTS of an existing relation creates and fills nothing.
        let existed = ddl::relation_exists(txn, &name)?;
        ddl::create_table(txn, schema, if_not_exists, sequences, &mut notices)?;
        let tag = match source {
            _ if materialized && (existed || source.is_none()) => {
                "CREATE MATERIALIZED VIEW".to_string()
            }
            None if foreign => "CREATE FOREIGN TABLE".to_string(),
            None => "CREATE TABLE".to_string(),
            Some(_) if existed => "CREATE TABLE AS".to_string(),
            Some(source) => {
                let oid = txn
                    .table_for_write(&name)?
                    .map(|t| t.schema.oid)
                    .ok_or_else(|| Error::internal("created table is missing"))?;
                let modified = modify::insert(txn, (&name, oid), &source, &[], false, ctx)?;
                format!("SELECT {}", modified.count)
            }
        };
        self.notices.extend(notices);
        Ok(StatementResult::command(tag))
    }

    /// REFRESH MATERIALIZED VIEW.
    pub(super) fn run_refresh(
        &mut self,
        name: &QualifiedName,
        oid: u32,
        source: Option<&LogicalPlan>,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        crate::exec::refresh::refresh(self.transaction(), (name, oid), source, ctx)?;
        Ok(StatementResult::command("REFRESH MATERIALIZED VIEW"))
    }

    /// ALTER TABLE (`None`: IF EXISTS of a missing table), with the notices of subcommands
    /// skipped by IF [NOT] EXISTS.
    pub(super) fn run_alter_table(
        &mut self,
        alter: Option<&AlterTable>,
        notices: Vec<String>,
        tag: &'static str,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        if let Some(alter) = alter {
            let txn = self.transaction();
            let old = alter_table::alter_table(txn, alter, ctx)?;
            // DDL-time validation, in PostgreSQL's order: the views reading the table must
            // still bind to it before the new foreign keys are checked.
            crate::binder::check_views_after_alter(&txn.view(), &old, &alter.schema)?;
            alter_table::finish_alter_table(txn, alter)?;
        }
        self.notices
            .extend(notices.into_iter().map(Notice::skipped));
        Ok(StatementResult::command(tag))
    }

    /// ANALYZE has nothing to gather; VACUUM reclaims deleted rows, outside any block.
    pub(super) fn run_maintenance(
        &mut self,
        tag: &'static str,
        tables: &[(QualifiedName, u32)],
    ) -> Result<StatementResult> {
        if tag == "VACUUM" {
            self.outside_transaction_block("VACUUM")?;
            crate::exec::vacuum::vacuum(self.transaction(), tables)?;
        }
        Ok(StatementResult::command(tag))
    }

    /// PostgreSQL's PreventInTransactionBlock: 25001 for `statement` (VACUUM, CREATE INDEX
    /// CONCURRENTLY, ...) inside a transaction block.
    pub(super) fn outside_transaction_block(&self, statement: &str) -> Result<()> {
        match self.block {
            Block::None => Ok(()),
            _ => Err(Error::new(
                SqlState::ActiveSqlTransaction,
                format!("{statement} cannot run inside a transaction block"),
            )),
        }
    }
}
