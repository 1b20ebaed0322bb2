//! DDL and maintenance statements whose work is more than one call into `exec`: CREATE
//! TABLE [AS], ALTER TABLE, ANALYZE / VACUUM, and the notices catalog changes raise.

use super::{Block, Session};
use crate::api::{Notice, StatementResult};
use crate::catalog::{QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::exec::{alter_table, ddl, modify, ExecContext};
use crate::plan::{AlterTable, LogicalPlan};
use crate::storage::{SequenceOptions, Transaction};

impl Session {
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
            alter_table::alter_table(self.transaction(), alter, ctx)?;
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
