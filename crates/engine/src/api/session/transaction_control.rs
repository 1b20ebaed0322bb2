//! BEGIN, COMMIT, ROLLBACK and SET: the statements that move the session between
//! transaction block states (PostgreSQL's warnings included) or change its settings, which
//! a ROLLBACK undoes.

use super::{Block, Session};
use crate::api::StatementResult;
use crate::error::{Result, SqlState};
use crate::plan::SetVariable;

impl Session {
    pub(super) fn run_begin(&mut self) -> StatementResult {
        match self.block {
            Block::Explicit => self.warn(
                SqlState::ActiveSqlTransaction,
                "there is already a transaction in progress",
            ),
            Block::None | Block::Implicit => self.block = Block::Explicit,
            Block::Failed => {}
        }
        self.transaction();
        StatementResult::command("BEGIN")
    }

    /// COMMIT; a failed block rolls back (and says so in its tag).
    pub(super) fn run_commit(&mut self) -> Result<StatementResult> {
        let tag = match self.block {
            Block::Failed => {
                self.rollback_transaction();
                "ROLLBACK"
            }
            Block::Explicit | Block::Implicit => {
                self.commit_transaction()?;
                "COMMIT"
            }
            Block::None => {
                self.warn(
                    SqlState::NoActiveSqlTransaction,
                    "there is no transaction in progress",
                );
                "COMMIT"
            }
        };
        Ok(StatementResult::command(tag))
    }

    pub(super) fn run_rollback(&mut self) -> StatementResult {
        if self.block == Block::None {
            self.warn(
                SqlState::NoActiveSqlTransaction,
                "there is no transaction in progress",
            );
        }
        self.rollback_transaction();
        StatementResult::command("ROLLBACK")
    }

    /// SET / RESET. SET is transactional: inside a block ROLLBACK undoes it.
    pub(super) fn run_set(&mut self, set: &SetVariable) -> Result<StatementResult> {
        if self.block != Block::None {
            self.transaction();
        }
        match &set.name {
            Some(name) => self.settings.set(name, set.value.as_deref())?,
            None => self.settings.reset_all(),
        }
        Ok(StatementResult::command(if set.value.is_none() {
            "RESET"
        } else {
            "SET"
        }))
    }
}
