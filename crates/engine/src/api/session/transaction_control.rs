//! BEGIN, COMMIT, ROLLBACK, savepoints and SET: the statements that move the session
//! between transaction block states (PostgreSQL's warnings included) or change its
//! settings, which a ROLLBACK (TO SAVEPOINT) undoes.

use super::{Block, Session};
use crate::api::settings::Settings;
use crate::api::StatementResult;
use crate::error::{Error, Result, SqlState};
use crate::exec::SettingChange;
use crate::plan::{BoundStatement, SavepointAction, SetVariable, TransactionModes};

/// The settings of the open transaction, each starting from its `default_` setting.
pub(super) const TRANSACTION_SETTINGS: [&str; 3] = [
    "transaction_isolation",
    "transaction_read_only",
    "transaction_deferrable",
];
use crate::catalog::QualifiedName;

/// The values of the [`TRANSACTION_SETTINGS`] of a block that AND CHAIN carries over.
type Characteristics = Vec<(&'static str, Option<String>)>;
use crate::storage::{LockMode, TransactionMark};

/// A SAVEPOINT: what ROLLBACK TO it goes back to.
pub(super) struct Savepoint {
    name: String,
    changes: TransactionMark,
    settings: Settings,
}

impl Session {
    /// Transaction control, LOCK TABLE, SET and SET CONSTRAINTS.
    pub(super) fn run_transaction_control(
        &mut self,
        bound: BoundStatement,
    ) -> Result<StatementResult> {
        match bound {
            BoundStatement::Begin { modes } => self.run_begin(&modes),
            BoundStatement::LockTable {
                tables,
                share,
                nowait,
            } => self.run_lock_table(&tables, share, nowait),
            BoundStatement::SetTransaction { modes, session } => {
                self.run_set_transaction(&modes, session)
            }
            BoundStatement::Commit { chain } => self.run_commit(chain),
            BoundStatement::Rollback { chain } => self.run_rollback(chain),
            BoundStatement::Savepoint { action, name } => self.run_savepoint(action, name),
            BoundStatement::Set(set) => self.run_set(&set),
            BoundStatement::SetConstraints { names, deferred } => {
                self.run_set_constraints(names.as_deref(), deferred)
            }
            // `run_bound` sends only the statements above here; its match is exhaustive.
            _ => Err(Error::internal(
                "run_transaction_control got a statement it does not run",
            )),
        }
    }

    pub(super) fn run_begin(&mut self, modes: &TransactionModes) -> Result<StatementResult> {
        match self.block {
            Block::Explicit => self.warn(
                SqlState::ActiveSqlTransaction,
                "there is already a transaction in progress",
            ),
            Block::None => {
                self.block = Block::Explicit;
                self.transaction();
                self.start_characteristics()?;
            }
            Block::Implicit => self.block = Block::Explicit,
            Block::Failed => {}
        }
        self.transaction();
        for (name, value) in modes {
            self.set_transaction_setting(name, value)?;
        }
        Ok(StatementResult::command("BEGIN"))
    }

    /// A new transaction block's isolation level and access mode: the session's defaults.
    pub(super) fn start_characteristics(&mut self) -> Result<()> {
        for name in TRANSACTION_SETTINGS {
            let default = self
                .settings
                .value(&format!("default_{name}"))
                .map(str::to_string);
            self.settings.set_local(name, default.as_deref())?;
        }
        Ok(())
    }

    /// LOCK TABLE: only in a transaction block, where the locks last until it ends.
    pub(super) fn run_lock_table(
        &mut self,
        tables: &[QualifiedName],
        share: bool,
        nowait: bool,
    ) -> Result<StatementResult> {
        if self.block != Block::Explicit {
            return Err(Error::new(
                SqlState::NoActiveSqlTransaction,
                "LOCK TABLE can only be used in transaction blocks",
            ));
        }
        let mode = if share {
            LockMode::Share
        } else {
            LockMode::Exclusive
        };
        let txn = self.transaction();
        for name in tables {
            if !txn.lock_table(name, mode, nowait)? {
                return Err(Error::new(
                    SqlState::LockNotAvailable,
                    format!("could not obtain lock on relation \"{}\"", name.name),
                ));
            }
        }
        Ok(StatementResult::command("LOCK TABLE"))
    }

    /// SET TRANSACTION, or SET SESSION CHARACTERISTICS AS TRANSACTION (`session`).
    pub(super) fn run_set_transaction(
        &mut self,
        modes: &TransactionModes,
        session: bool,
    ) -> Result<StatementResult> {
        if session {
            for (name, value) in modes {
                self.settings.set(&format!("default_{name}"), Some(value))?;
            }
        } else if self.block == Block::None {
            self.warn(
                SqlState::NoActiveSqlTransaction,
                "SET TRANSACTION can only be used in transaction blocks",
            );
        } else {
            for (name, value) in modes {
                self.set_transaction_setting(name, value)?;
            }
        }
        Ok(StatementResult::command("SET"))
    }

    /// Sets one of the open transaction's [`TRANSACTION_SETTINGS`] with PostgreSQL's
    /// checks: the isolation level, deferrability, and a change back to read-write, only
    /// before the transaction's first query and outside a savepoint (25001).
    pub(super) fn set_transaction_setting(&mut self, name: &str, value: &str) -> Result<()> {
        let before = self.settings.value(name).map(str::to_string);
        self.settings.set_local(name, Some(value))?;
        let after = self.settings.value(name).map(str::to_string);
        if before == after {
            return Ok(());
        }
        let queried = self.txn.as_ref().is_some_and(|t| t.has_snapshot());
        let in_savepoint = !self.savepoints.is_empty();
        let refusal = match name {
            "transaction_isolation" if in_savepoint => {
                Some("SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction")
            }
            "transaction_isolation" if queried => {
                Some("SET TRANSACTION ISOLATION LEVEL must be called before any query")
            }
            "transaction_read_only" if after.as_deref() == Some("off") && in_savepoint => {
                Some("cannot set transaction read-write mode inside a read-only transaction")
            }
            "transaction_read_only" if after.as_deref() == Some("off") && queried => {
                Some("transaction read-write mode must be set before any query")
            }
            "transaction_deferrable" if in_savepoint => {
                Some("SET TRANSACTION [NOT] DEFERRABLE cannot be called within a subtransaction")
            }
            "transaction_deferrable" if queried => {
                Some("SET TRANSACTION [NOT] DEFERRABLE must be called before any query")
            }
            _ => None,
        };
        match refusal {
            Some(message) => {
                self.settings.set_local(name, before.as_deref())?;
                Err(Error::new(SqlState::ActiveSqlTransaction, message))
            }
            None => Ok(()),
        }
    }

    /// COMMIT [AND CHAIN]; a failed block rolls back (and says so in its tag).
    pub(super) fn run_commit(&mut self, chain: bool) -> Result<StatementResult> {
        let chained = self.chained_characteristics(chain, "COMMIT AND CHAIN")?;
        let tag = match self.block {
            Block::Failed => {
                self.rollback_transaction();
                "ROLLBACK"
            }
            Block::Explicit => {
                self.commit_transaction()?;
                "COMMIT"
            }
            // An implicit block (several statements of one query) commits, with the same
            // warning as outside any block.
            Block::Implicit | Block::None => {
                self.warn(
                    SqlState::NoActiveSqlTransaction,
                    "there is no transaction in progress",
                );
                if self.block == Block::Implicit {
                    self.commit_transaction()?;
                }
                "COMMIT"
            }
        };
        self.begin_chained(chained)?;
        Ok(StatementResult::command(tag))
    }

    /// ROLLBACK [AND CHAIN].
    pub(super) fn run_rollback(&mut self, chain: bool) -> Result<StatementResult> {
        let chained = self.chained_characteristics(chain, "ROLLBACK AND CHAIN")?;
        if matches!(self.block, Block::None | Block::Implicit) {
            self.warn(
                SqlState::NoActiveSqlTransaction,
                "there is no transaction in progress",
            );
        }
        self.rollback_transaction();
        self.begin_chained(chained)?;
        Ok(StatementResult::command("ROLLBACK"))
    }

    /// For AND CHAIN, the ending block's isolation level and access modes, which the next
    /// block starts with; only an explicit block can chain (25P01, as in PostgreSQL, where
    /// a plain COMMIT outside one only warns).
    fn chained_characteristics(
        &self,
        chain: bool,
        statement: &str,
    ) -> Result<Option<Characteristics>> {
        if !chain {
            return Ok(None);
        }
        if matches!(self.block, Block::None | Block::Implicit) {
            return Err(Error::new(
                SqlState::NoActiveSqlTransaction,
                format!("{statement} can only be used in transaction blocks"),
            ));
        }
        let values = TRANSACTION_SETTINGS
            .iter()
            .map(|&name| (name, self.settings.value(name).map(str::to_string)))
            .collect();
        Ok(Some(values))
    }

    /// Opens the block AND CHAIN asks for, with the characteristics of the one just ended.
    fn begin_chained(&mut self, chained: Option<Characteristics>) -> Result<()> {
        let Some(values) = chained else {
            return Ok(());
        };
        self.block = Block::Explicit;
        self.transaction();
        for (name, value) in values {
            self.settings.set_local(name, value.as_deref())?;
        }
        Ok(())
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
                self.cursors.release_savepoint(position);
                Ok(StatementResult::command("RELEASE"))
            }
            SavepointAction::RollbackTo => {
                let position = self.savepoint_position(&name)?;
                self.savepoints.truncate(position + 1);
                let savepoint = &self.savepoints[position];
                let (changes, settings) = (savepoint.changes.clone(), savepoint.settings.clone());
                self.transaction().rollback_to(changes);
                self.settings.restore(settings);
                self.cursors.rollback_to_savepoint(position);
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
        // SET ROLE: a role the session's user may become (checked again per statement,
        // as set_config() may set it too).
        if let (Some("role"), Some(role)) = (set.name.as_deref(), set.value.as_deref()) {
            if role != "none" {
                self.role_to_set(role)?;
            }
        }
        match (&set.name, set.local) {
            // As SET TRANSACTION; outside a block the transaction it would set ends at once.
            (Some(name), _) if TRANSACTION_SETTINGS.contains(&name.as_str()) => {
                if let (Some(value), true) = (&set.value, self.block != Block::None) {
                    self.set_transaction_setting(name, value)?;
                }
            }
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
