//! SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE [OF t] [NOWAIT | SKIP LOCKED]:
//! the query's plan gets the row id of its table carried up from the scan to a LockRows node
//! under LIMIT. One table, read by a plain SELECT (filters, ORDER BY, LIMIT); what
//! PostgreSQL refuses (DISTINCT, GROUP BY, aggregates, window functions, set operations) is
//! refused with its message, and joins and subqueries in FROM are 0A000 here. A foreign
//! table's rows are not locked, as file_fdw locks none.

use sqlparser::ast::{LockClause, LockType, NonBlock};

use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::plan::{LogicalPlan, RowLockWait, ScalarExpr};
use crate::storage::ROW_ID_COLUMN;
use crate::types::DataType;

/// A query's locking clause, bound.
pub(super) struct RowLocking {
    exclusive: bool,
    wait: RowLockWait,
    /// `FOR UPDATE`, as messages name the clause.
    clause: &'static str,
}

impl Binder<'_> {
    /// The locking clause of a query, if any (one clause only).
    pub(super) fn row_locking(&self, locks: &[LockClause]) -> Result<Option<RowLocking>> {
        let lock = match locks {
            [] => return Ok(None),
            [lock] => lock,
            _ => return Err(Error::unsupported("more than one locking clause")),
        };
        let LockClause {
            lock_type,
            of: _,
            nonblock,
        } = lock;
        // A single table is locked, so OF can only name it.
        let (exclusive, clause) = match lock_type {
            LockType::Update => (true, "FOR UPDATE"),
            LockType::Share => (false, "FOR SHARE"),
        };
        let wait = match nonblock {
            None => RowLockWait::Block,
            Some(NonBlock::Nowait) => RowLockWait::NoWait,
            Some(NonBlock::SkipLocked) => RowLockWait::SkipLocked,
        };
        Ok(Some(RowLocking {
            exclusive,
            wait,
            clause,
        }))
    }
}

/// `plan` with a LockRows node on top that locks the rows it returns.
pub(super) fn lock_rows(plan: LogicalPlan, locking: &RowLocking) -> Result<LogicalPlan> {
    // A foreign table's rows are a file's, which nothing here writes: as with file_fdw,
    // there is nothing to lock.
    if reads_one_file(&plan) {
        return Ok(plan);
    }
    let (plan, table) = with_row_ids(plan, locking.clause)?;
    let (table_oid, table_name) = table;
    Ok(LogicalPlan::LockRows {
        input: Box::new(plan),
        table_oid,
        table_name,
        exclusive: locking.exclusive,
        wait: locking.wait,
    })
}

fn not_allowed(clause: &str, with: &str) -> Error {
    Error::new(
        SqlState::FeatureNotSupported,
        format!("{clause} is not allowed with {with}"),
    )
}

/// Whether `plan` is a file's scan under filters, sorts and projections only.
fn reads_one_file(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::FileScan { .. } => true,
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Project { input, .. } => reads_one_file(input),
        _ => false,
    }
}

/// `plan` with the row id of its one table as an extra last column, and that table.
fn with_row_ids(plan: LogicalPlan, clause: &str) -> Result<(LogicalPlan, (u32, String))> {
    Ok(match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            mut columns,
            mut types,
        } => {
            columns.push(ROW_ID_COLUMN);
            types.push(DataType::Int64);
            let table = (table_oid, table_name.clone());
            let plan = LogicalPlan::Scan {
                table_oid,
                table_name,
                columns,
                types,
            };
            (plan, table)
        }
        LogicalPlan::Filter { input, predicate } => {
            let (input, table) = with_row_ids(*input, clause)?;
            let plan = LogicalPlan::Filter {
                input: Box::new(input),
                predicate,
            };
            (plan, table)
        }
        LogicalPlan::Sort { input, keys } => {
            let (input, table) = with_row_ids(*input, clause)?;
            let plan = LogicalPlan::Sort {
                input: Box::new(input),
                keys,
            };
            (plan, table)
        }
        LogicalPlan::Project { input, mut exprs } => {
            let (input, table) = with_row_ids(*input, clause)?;
            exprs.push(ScalarExpr::Column {
                index: input.output_types().len() - 1,
                ty: DataType::Int64,
            });
            let plan = LogicalPlan::Project {
                input: Box::new(input),
                exprs,
            };
            (plan, table)
        }
        LogicalPlan::Distinct { .. } => return Err(not_allowed(clause, "DISTINCT clause")),
        LogicalPlan::Aggregate { group_by, .. } if !group_by.is_empty() => {
            return Err(not_allowed(clause, "GROUP BY clause"))
        }
        LogicalPlan::Aggregate { .. } => return Err(not_allowed(clause, "aggregate functions")),
        LogicalPlan::Window { .. } => return Err(not_allowed(clause, "window functions")),
        LogicalPlan::SetOperation { .. } => {
            return Err(not_allowed(clause, "UNION/INTERSECT/EXCEPT"))
        }
        LogicalPlan::Values { .. }
        | LogicalPlan::SystemScan { .. }
        | LogicalPlan::FileScan { .. }
        | LogicalPlan::Limit { .. }
        | LogicalPlan::LockRows { .. }
        | LogicalPlan::Join { .. }
        | LogicalPlan::LateralJoin { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::RecursiveCte { .. }
        | LogicalPlan::WorkTable { .. }
        | LogicalPlan::SharedCte { .. } => {
            return Err(Error::unsupported(format!(
                "{clause} of anything but one table"
            )))
        }
    })
}
