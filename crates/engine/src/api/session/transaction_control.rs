//! BEGIN, COMMIT, ROLLBACK, savepoints and SET: the statements that move the session
//! between transaction block states (PostgreSQL's warnings included) or change its
//! settings, which a ROLLBACK (TO SAVEPOINT) undoes.

use super::{Block, Session};
use crate::api::settings::Settings;
use crate::api::StatementResult;
use crate::error::{Error, Result, SqlState};
use crate::exec::SettingChange;
use crate::plan::{SavepointAction, SetVariable};
use crate::storage::TransactionMark;

/// A SAVEPOINT: what ROLLBACK TO it goes back to.
pub(super) struct Savepoint {
    name: String,
    changes: TransactionMark,
    settings: Settings,
}

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

    /// SAVEPOINT, RELEASE and ROLLBACK TO, as PostgreSQL runs them: a name may be defined
    /// again (the newest wins), RELEASE also releases the savepoints defined after it, and
    /// ROLLBACK TO keeps its savepoint and makes a failed block usable again.
    pub(super) fn run_savepoint(
        &mut self,
        action: SavepointAction,
        name: String,
    ) -> Result<StatementResult> {
        let statement = match action {
            SavepointAction::Define => "SAVEPOINT",
            SavepointAction::Release => "RELEASE SAVEPOINT",
            SavepointAction::RollbackTo => "ROLLBACK TO SAVEPOINT",
        };
        if matches!(self.block, Block::None | Block::Implicit) {
            return Err(Error::new(
                SqlState::NoActiveSqlTransaction,
                format!("{statement} can only be used in transaction blocks"),
            ));
        }
        match action {
            SavepointAction::Define => {
                let changes = self.transaction().mark();
                self.savepoints.push(Savepoint {
                    name,
                    changes,
                    settings: self.settings.clone(),
                });
                Ok(StatementResult::command("SAVEPOINT"))
            }
            SavepointAction::Release => {
                let position = self.savepoint_position(&name)?;
                self.savepoints.truncate(position);
                Ok(StatementResult::command("RELEASE"))
            }
            SavepointAction::RollbackTo => {
                let position = self.savepoint_position(&name)?;
                self.savepoints.truncate(position + 1);
                let savepoint = &self.savepoints[position];
                let (changes, settings) = (savepoint.changes.clone(), savepoint.settings.clone());
                self.transaction().rollback_to(changes);
                self.settings.restore(settings);
                self.block = Block::Explicit;
                Ok(StatementResult::command("ROLLBACK"))
            }
        }
    }

    /// Where the newest savepoint called `name` is.
    fn savepoint_position(&self, name: &str) -> Result<usize> {
        self.savepoints
            .iter()
            .rposition(|s| s.name == name)
            .ok_or_else(|| {
                Error::new(
                    SqlState::InvalidSavepointSpecification,
                    format!("savepoint \"{name}\" does not exist"),
                )
            })
    }

    /// SET / RESET. SET is transactional: inside a block ROLLBACK undoes it; SET LOCAL
    /// lasts until the transaction ends (outside a block, with a warning, the statement).
    /// SET CONSTRAINTS: changes the transaction's modes; the checks of constraints now
    /// IMMEDIATE that were waiting run at once, as in PostgreSQL.
    pub(super) fn run_set_constraints(
        &mut self,
        names: Option<&[String]>,
        deferred: bool,
    ) -> Result<StatementResult> {
        if self.block == Block::None {
            self.warn(
                SqlState::NoActiveSqlTransaction,
                "SET CONSTRAINTS can only be used in transaction blocks",
            );
        }
        let txn = self.transaction();
        match names {
            None => txn.constraint_checks.set_all(deferred),
            Some(names) => names
                .iter()
                .for_each(|name| txn.constraint_checks.set_named(name, deferred)),
        }
        if !deferred {
            crate::exec::foreign_key::check_deferred(txn, false)?;
        }
        Ok(StatementResult::command("SET CONSTRAINTS"))
    }

    pub(super) fn run_set(&mut self, set: &SetVariable) -> Result<StatementResult> {
        if self.block != Block::None {
            self.transaction();
        }
        match (&set.name, set.local) {
            (Some(name), true) => {
                if self.block == Block::None {
                    self.warn(
                        SqlState::NoActiveSqlTransaction,
                        "SET LOCAL can only be used in transaction blocks",
                    );
                }
                self.settings.set_local(name, set.value.as_deref())?;
            }
            (Some(name), false) => self.settings.set(name, set.value.as_deref())?,
            (None, _) => self.settings.reset_all(),
        }
        Ok(StatementResult::command(if set.value.is_none() {
            "RESET"
        } else {
            "SET"
        }))
    }

    /// The settings a statement changed through set_config(), applied as SET (or SET
    /// LOCAL) would apply them, once it has run.
    pub(super) fn apply_setting_changes(&mut self, changes: Vec<SettingChange>) -> Result<()> {
        for change in changes {
            // A local change outside a transaction block would end with the statement.
            if change.local && self.block == Block::None {
                continue;
            }
            let set = SetVariable {
                name: Some(change.name),
                value: Some(change.value),
                local: change.local,
            };
            self.run_set(&set)?;
        }
        Ok(())
    }
}
