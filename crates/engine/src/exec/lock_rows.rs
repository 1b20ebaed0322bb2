//! SELECT ... FOR UPDATE / SHARE: locks the table row behind each row that passes through,
//! one row at a time so that a LIMIT above locks only the rows it returns (PostgreSQL's
//! LockRows node sits under LIMIT the same way). The locks are the transaction's until it
//! ends; the session takes them over from the [`RowLocker`] once the statement has run.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Duration;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::plan::RowLockWait;
use crate::storage::{row_lock_name, LockMode, Store, Wait};
use crate::vector::{Batch, VectorData};

/// The statement's transaction, as far as row locks go.
pub struct RowLocker {
    pub store: Arc<Store>,
    /// The transaction's id.
    pub owner: u64,
    pub timeout: Option<Duration>,
    /// The locks taken, which the transaction holds from then on.
    pub taken: RefCell<Vec<String>>,
    /// Whether a lock had to be waited for: the rows read before may have changed since,
    /// so the session runs the statement again on the newest state.
    pub waited: Cell<bool>,
}

impl RowLocker {
    /// Locks `name`; `Ok(false)` when another transaction holds it and `wait` says not to
    /// wait.
    fn lock(&self, name: String, mode: LockMode, wait: RowLockWait) -> Result<bool> {
        let locks = self.store.locks();
        if !locks.acquire(self.owner, &name, mode, Wait::No)? {
            if wait != RowLockWait::Block {
                return Ok(false);
            }
            self.waited.set(true);
            locks.acquire(self.owner, &name, mode, Wait::Block(self.timeout))?;
        }
        let mut taken = self.taken.borrow_mut();
        if !taken.contains(&name) {
            taken.push(name);
        }
        Ok(true)
    }
}

pub struct LockRowsExec {
    input: BoxedOperator,
    table_oid: u32,
    table_name: String,
    mode: LockMode,
    wait: RowLockWait,
    /// The input batch being locked and its next row.
    current: Option<(Batch, usize)>,
}

impl LockRowsExec {
    pub fn new(
        input: BoxedOperator,
        table_oid: u32,
        table_name: String,
        exclusive: bool,
        wait: RowLockWait,
    ) -> LockRowsExec {
        LockRowsExec {
            input,
            table_oid,
            table_name,
            mode: if exclusive {
                LockMode::Exclusive
            } else {
                LockMode::Share
            },
            wait,
            current: None,
        }
    }
}

impl Operator for LockRowsExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let locker = ctx.row_locker.as_ref().ok_or_else(|| {
            Error::internal("invariant: a statement that locks rows runs with a row locker")
        })?;
        loop {
            let (batch, row) = match self.current.take() {
                Some((batch, row)) if row < batch.len() => (batch, row),
                _ => match self.input.next(ctx)? {
                    Some(batch) => (batch, 0),
                    None => return Ok(None),
                },
            };
            let width = batch.columns.len();
            let row_id = match batch.columns.last().map(|c| &c.data) {
                Some(VectorData::Int64(ids)) => ids.get(row).copied(),
                _ => None,
            }
            .ok_or_else(|| Error::internal("invariant: LockRows's last input column is row ids"))?;
            let name = row_lock_name(self.table_oid, row_id as u64);
            let locked = locker.lock(name, self.mode, self.wait)?;
            let out = batch.gather(&[row as u32]);
            self.current = Some((batch, row + 1));
            if locked {
                return Ok(Some(Batch::new(out.columns[..width - 1].to_vec(), 1)));
            }
            if self.wait == RowLockWait::NoWait {
                return Err(Error::new(
                    SqlState::LockNotAvailable,
                    format!(
                        "could not obtain lock on row in relation \"{}\"",
                        self.table_name
                    ),
                ));
            }
        }
    }
}
