//! The transaction block rules every statement runs under: which block the session is in
//! (none, implicit, explicit or failed), 25P02 in a failed block, the snapshot a statement
//! takes, READ ONLY and SERIALIZABLE access, and how a statement's outcome ends (commits,
//! rolls back or fails) the transaction it ran in.

use sqlparser::ast::Statement;

use super::{temp_tables, Block, Session, Work};
use crate::error::{Error, Result, SqlState};
use crate::parser;
use crate::plan::BoundStatement;
use crate::storage::{Isolation, Transaction};

/// Whether a statement takes the transaction's snapshot, after which its isolation level is
/// fixed: all but transaction control, SET and SHOW (and LOCK), as in PostgreSQL.
fn takes_snapshot(work: &Work<'_>) -> bool {
    match work {
        Work::Bound(_) => true,
        Work::Parsed(parsed) => !matches!(
            parsed.statement.sql(),
            Some(
                Statement::StartTransaction { .. }
                    | Statement::Commit { .. }
                    | Statement::Rollback { .. }
                    | Statement::Savepoint { .. }
                    | Statement::ReleaseSavepoint { .. }
                    | Statement::Set(_)
                    | Statement::ShowVariable { .. }
                    | Statement::Lock(_)
            )
        ),
    }
}

pub(super) fn failed_block_error() -> Error {
    Error::new(
        SqlState::InFailedSqlTransaction,
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

impl Session {
    /// 25P02 for a statement a failed block does not accept: all but COMMIT and ROLLBACK.
    pub(super) fn check_runnable(&self, work: &Work<'_>) -> Result<()> {
        match work {
            Work::Parsed(parsed) => self.check_not_failed(&parsed.statement),
            Work::Bound(_) if self.block == Block::Failed => Err(failed_block_error()),
            Work::Bound(_) => Ok(()),
        }
    }

    pub(super) fn check_not_failed(&self, statement: &parser::Statement) -> Result<()> {
        if self.block == Block::Failed
            && !matches!(
                statement.sql(),
                Some(Statement::Commit { .. } | Statement::Rollback { .. })
            )
        {
            return Err(failed_block_error());
        }
        Ok(())
    }

    /// 25006 for a write in a READ ONLY transaction; notes what a SERIALIZABLE one reads.
    pub(super) fn check_access(&mut self, bound: &BoundStatement) -> Result<()> {
        let read_only = match self.block {
            Block::None => "default_transaction_read_only",
            Block::Implicit | Block::Explicit | Block::Failed => "transaction_read_only",
        };
        if self.settings.value(read_only) == Some("on") {
            if let Some(command) = bound.write_command() {
                return Err(Error::new(
                    SqlState::ReadOnlySqlTransaction,
                    format!("cannot execute {command} in a read-only transaction"),
                ));
            }
        }
        if self.block != Block::None
            && self.settings.value("transaction_isolation") == Some("serializable")
        {
            let tables = bound.tables_read();
            self.transaction().note_reads(&tables);
        }
        Ok(())
    }

    /// Commits the transaction. One the log could not make durable is an error, and is
    /// gone all the same (its changes never become visible), as in PostgreSQL.
    pub(super) fn commit_transaction(&mut self) -> Result<()> {
        let outcome = match self.txn.take() {
            // ON COMMIT actions and foreign keys deferred to COMMIT come first; a
            // violation rolls back.
            Some(mut txn) => match temp_tables::apply_on_commit(&mut self.temp_tables, &mut txn)
                .and_then(|()| crate::exec::foreign_key::check_deferred(&mut txn, true))
            {
                Ok(()) => txn.commit(self.synchronous_commit()),
                Err(error) => {
                    txn.rollback();
                    Err(error)
                }
            },
            // A statement that wrote nothing may still have moved a sequence (SELECT
            // nextval): a durable store logs the counter before the value is answered.
            None if self.store.is_durable() => self.store.begin().commit(self.synchronous_commit()),
            None => Ok(()),
        };
        self.leave_transaction(outcome.is_err());
        outcome
    }

    /// An error in a transaction block: the block waits for ROLLBACK, but (as in PostgreSQL)
    /// the transaction is over, its changes gone and its locks released at once, unless a
    /// savepoint can still take it back to where it was.
    pub(super) fn fail_block(&mut self) {
        self.block = Block::Failed;
        if self.savepoints.is_empty() {
            if let Some(txn) = self.txn.take() {
                txn.rollback();
            }
        }
    }

    pub(super) fn rollback_transaction(&mut self) {
        if let Some(txn) = self.txn.take() {
            txn.rollback();
        }
        self.leave_transaction(true);
    }

    /// Back to no transaction; a rolled-back one takes its SETs with it.
    pub(super) fn leave_transaction(&mut self, rolled_back: bool) {
        let saved = self.settings_at_begin.take();
        match (rolled_back, saved) {
            (true, Some(saved)) => self.settings.restore(saved),
            _ => self.settings.end_transaction(),
        }
        self.block = Block::None;
        self.savepoints.clear();
        self.cursors.end_transaction(rolled_back);
        self.transaction_micros = None;
        self.advisory.end_transaction();
    }

    pub(super) fn transaction(&mut self) -> &mut Transaction {
        let txn = match self.txn.take() {
            Some(txn) => txn,
            None => {
                if self.settings_at_begin.is_none() {
                    self.settings_at_begin = Some(self.settings.clone());
                }
                let mut txn = self.store.begin_for(self.lock_owner);
                txn.set_lock_timeout(self.lock_timeout());
                txn
            }
        };
        self.txn.insert(txn)
    }

    /// Before a statement runs: the current `lock_timeout` for its lock waits, and in a
    /// transaction block the snapshot it takes (at the isolation level then in force).
    pub(super) fn enter_statement(&mut self, work: &Work<'_>) {
        let lock_timeout = self.lock_timeout();
        if let Some(txn) = self.txn.as_mut() {
            txn.set_lock_timeout(lock_timeout);
        }
        self.advisory.set_timeout(lock_timeout);
        if self.block != Block::None && takes_snapshot(work) {
            let isolation = Isolation::from_setting(
                self.settings
                    .value("transaction_isolation")
                    .unwrap_or_default(),
            );
            self.transaction().take_snapshot(isolation);
        }
    }

    /// After a statement ran: outside a block its transaction commits (or rolls back on
    /// an error); an error in an explicit block fails the block.
    pub(super) fn finish_statement<T>(&mut self, outcome: Result<T>) -> Result<T> {
        match outcome {
            Ok(result) => {
                if self.block == Block::None {
                    self.commit_transaction()?;
                }
                Ok(result)
            }
            Err(error) => {
                match self.block {
                    Block::Explicit => self.fail_block(),
                    Block::None => self.rollback_transaction(),
                    Block::Implicit | Block::Failed => {}
                }
                Err(error)
            }
        }
    }
}
