//! Queries with FOR UPDATE / SHARE: they wait for the writers of their table, run on the
//! newest committed state with a row locker, and hand the row locks to the transaction.
//! A row lock that had to be waited for means another transaction may have changed the
//! rows since they were read: the query then runs again on the newest state (its locks
//! already held), which is how PostgreSQL's READ COMMITTED re-checks a locked row.

use std::cell::{Cell, RefCell};

use super::Session;
use crate::api::StatementResult;
use crate::error::{Error, Result, SqlState};
use crate::exec::RowLocker;
use crate::plan::{BoundStatement, LogicalPlan};
use crate::types::ScalarValue;

/// How often a query is run again because a lock it waited for may have changed its rows.
const RERUNS_MAX: usize = 100;

/// The tables a query locks rows of, if it does.
pub(super) fn tables_row_locked(bound: &BoundStatement) -> Vec<u32> {
    let BoundStatement::Query { plan, .. } = bound else {
        return Vec::new();
    };
    let mut tables = Vec::new();
    plan.visit_all(&mut |p| {
        if let LogicalPlan::LockRows { table_oid, .. } = p {
            if !tables.contains(table_oid) {
                tables.push(*table_oid);
            }
        }
    });
    tables
}

impl Session {
    pub(super) fn run_locking_query(
        &mut self,
        bound: BoundStatement,
        tables: &[u32],
        params: &[ScalarValue],
    ) -> Result<StatementResult> {
        for _ in 0..RERUNS_MAX {
            let state = self.view();
            for oid in tables {
                let Some(entry) = state.tables.get(oid) else {
                    continue;
                };
                let name = entry.schema.qualified_name();
                self.transaction().wait_for_writers(&name, *oid)?;
            }
            let view = self.transaction().view_for_locking();
            let mut ctx = self.statement_context(&bound, view, params);
            let store = self.store.clone();
            let txn = self.transaction();
            ctx.row_locker = Some(RowLocker {
                store,
                owner: txn.id(),
                timeout: txn.lock_timeout(),
                taken: RefCell::default(),
                waited: Cell::new(false),
            });
            let BoundStatement::Query { plan, columns } = bound.clone() else {
                return Err(Error::internal("invariant: only queries lock rows"));
            };
            let result = self.run_query(&plan, columns, &ctx, None);
            let locker = ctx.row_locker.take();
            let waited = locker.as_ref().is_some_and(|l| l.waited.get());
            if let Some(locker) = locker {
                self.transaction().adopt_locks(locker.taken.into_inner());
            }
            if !waited || result.is_err() {
                return result;
            }
        }
        Err(Error::new(
            SqlState::SerializationFailure,
            "could not serialize access due to concurrent update",
        ))
    }
}
