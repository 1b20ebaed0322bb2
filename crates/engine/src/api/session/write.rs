//! INSERT, UPDATE and DELETE in the session's transaction, and their RETURNING rows.

use super::Session;
use crate::api::StatementResult;
use crate::catalog::QualifiedName;
use crate::error::{Error, Result};
use crate::exec::expression::evaluate;
use crate::exec::{modify, on_conflict, ExecContext};
use crate::plan::{BoundStatement, LogicalPlan, OnConflict, Returning, RowCheck, ScalarExpr};
use crate::vector::Batch;

/// The result of INSERT/UPDATE/DELETE: its tag, and with RETURNING its rows.
fn written_result(
    tag: String,
    rows: Vec<Batch>,
    returning: Option<Returning>,
    ctx: &ExecContext,
) -> Result<StatementResult> {
    let Some(returning) = returning else {
        return Ok(StatementResult::command(tag));
    };
    let mut batches = Vec::with_capacity(rows.len());
    for batch in &rows {
        let columns = returning
            .exprs
            .iter()
            .map(|e| evaluate(e, batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        batches.push(Batch::new(columns, batch.len()));
    }
    Ok(StatementResult::rows(returning.columns, batches, tag))
}

impl Session {
    /// INSERT into `(name, oid)` the rows of `source`.
    pub(super) fn run_insert(
        &mut self,
        target: (&QualifiedName, u32),
        source: &LogicalPlan,
        on_conflict: Option<&OnConflict>,
        checks: &[RowCheck],
        returning: Option<Returning>,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        let txn = self.transaction();
        let keep = returning.is_some();
        let modified = match on_conflict {
            None => modify::insert(txn, target, source, checks, keep, ctx)?,
            Some(on_conflict) => {
                on_conflict::insert(txn, target, source, on_conflict, checks, keep, ctx)?
            }
        };
        let tag = format!("INSERT 0 {}", modified.count);
        written_result(tag, modified.rows, returning, ctx)
    }

    pub(super) fn run_update(
        &mut self,
        target: &modify::Target,
        assignments: &[(usize, ScalarExpr)],
        checks: &[RowCheck],
        returning: Option<Returning>,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        let keep = returning.is_some();
        let txn = self.transaction();
        let modified = modify::update(txn, target, assignments, checks, keep, ctx)?;
        let tag = format!("UPDATE {}", modified.count);
        written_result(tag, modified.rows, returning, ctx)
    }

    pub(super) fn run_delete(
        &mut self,
        target: &modify::Target,
        returning: Option<Returning>,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        let keep = returning.is_some();
        let modified = modify::delete(self.transaction(), target, keep, ctx)?;
        let tag = format!("DELETE {}", modified.count);
        written_result(tag, modified.rows, returning, ctx)
    }

    /// INSERT, UPDATE or DELETE.
    pub(super) fn run_write(
        &mut self,
        bound: BoundStatement,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        match bound {
            BoundStatement::Insert {
                table_name,
                table_oid,
                source,
                returning,
                on_conflict,
                checks,
            } => {
                let target = (&table_name, table_oid);
                let on_conflict = on_conflict.as_ref();
                self.run_insert(target, &source, on_conflict, &checks, returning, ctx)
            }
            BoundStatement::Update {
                table_name,
                table_oid,
                source,
                filter,
                assignments,
                returning,
                checks,
            } => {
                let target = modify::Target {
                    name: &table_name,
                    oid: table_oid,
                    source: source.as_ref(),
                    filter: filter.as_ref(),
                };
                self.run_update(&target, &assignments, &checks, returning, ctx)
            }
            BoundStatement::Delete {
                table_name,
                table_oid,
                source,
                filter,
                returning,
            } => {
                let target = modify::Target {
                    name: &table_name,
                    oid: table_oid,
                    source: source.as_ref(),
                    filter: filter.as_ref(),
                };
                self.run_delete(&target, returning, ctx)
            }
            // `run_bound` sends only the statements above here; its match is exhaustive.
            _ => Err(Error::internal("run_write got a statement it does not run")),
        }
    }
}
