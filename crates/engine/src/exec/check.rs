//! CHECK constraints over a batch of new rows: each constraint's expression is evaluated
//! once over the whole batch, then the rows are scanned in order, so the error names the
//! first row that fails and, of its failed constraints, the first by name, as PostgreSQL's
//! row-at-a-time ExecConstraints reports it.

use std::sync::Arc;

use super::expression::evaluate;
use super::modify::{live_rows, row_text};
use super::ExecContext;
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::plan::{CheckKind, RowCheck};
use crate::storage::TableData;
use crate::vector::{Batch, Vector, VectorData};

/// 23514 unless every row of `batch` (full rows of `table`) passes every check: a row fails
/// where a check is false (NULL passes).
pub(super) fn check_rows(
    schema: &TableSchema,
    checks: &[RowCheck],
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<()> {
    match first_failure(checks, batch, ctx)? {
        None => Ok(()),
        Some((row, check)) => Err(violation(&schema.name, check, || {
            row_text(schema, batch, row, &ctx.state.enum_types)
        })),
    }
}

/// The first row (and the first of its checks by name) that fails.
fn first_failure<'a>(
    checks: &'a [RowCheck],
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Option<(usize, &'a RowCheck)>> {
    if checks.is_empty() || batch.is_empty() {
        return Ok(None);
    }
    let results = checks
        .iter()
        .map(|check| evaluate(&check.expr, batch, ctx))
        .collect::<Result<Vec<_>>>()?;
    let mut values = Vec::with_capacity(results.len());
    for result in &results {
        match &result.data {
            VectorData::Bool(v) => values.push(v.as_slice()),
            _ => return Err(Error::internal("check constraint is not boolean")),
        }
    }
    let fails = |result: &Vector, values: &[bool], row: usize| !values[row] && result.is_valid(row);
    // The common case, every row passing, is one branch-free pass per check.
    let any_fails = results
        .iter()
        .zip(&values)
        .any(|(result, values)| match &result.validity {
            None => values.iter().fold(false, |any, &v| any | !v),
            Some(_) => (0..values.len()).any(|row| fails(result, values, row)),
        });
    if !any_fails {
        return Ok(None);
    }
    for row in 0..batch.len() {
        for ((check, result), values) in checks.iter().zip(&results).zip(&values) {
            if fails(result, values, row) {
                return Ok(Some((row, check)));
            }
        }
    }
    Ok(None)
}

/// 23514 unless every live row of `data` passes every check (ADD CONSTRAINT, VALIDATE
/// CONSTRAINT, a rewrite by ALTER TABLE), with PostgreSQL's message for rows already there.
pub(super) fn check_existing_rows(
    table: &str,
    checks: &[RowCheck],
    data: &TableData,
    ctx: &ExecContext,
) -> Result<()> {
    if checks.is_empty() {
        return Ok(());
    }
    for chunk_idx in 0..data.chunk_count() {
        ctx.check_cancelled()?;
        let (batch, _) = live_rows(data, chunk_idx, None)?;
        if let Some((_, check)) = first_failure(checks, &batch, ctx)? {
            return Err(Error::new(
                SqlState::CheckViolation,
                format!(
                    "check constraint \"{}\" of relation \"{table}\" is violated by some row",
                    check.name
                ),
            ));
        }
    }
    Ok(())
}

/// 23514 or 23502 unless every value of `values` (a column of `len` rows) passes the
/// checks of the domain it is cast to, each bound over a one-column row.
pub(super) fn check_domain_values(
    checks: &[RowCheck],
    values: &Arc<Vector>,
    len: usize,
    ctx: &ExecContext,
) -> Result<()> {
    let batch = Batch::new(vec![values.clone()], len);
    match first_failure(checks, &batch, ctx)? {
        None => Ok(()),
        // A domain's errors name no row.
        Some((_, check)) => Err(violation("", check, String::new)),
    }
}

/// 23514 or 23502 unless every live row of `data` passes `check`, a domain's constraint
/// bound over column `column` of `table`, with ALTER DOMAIN's message for rows already
/// there.
pub(super) fn check_existing_domain_values(
    (table, column): (&str, &str),
    check: &RowCheck,
    data: &TableData,
    ctx: &ExecContext,
) -> Result<()> {
    for chunk_idx in 0..data.chunk_count() {
        ctx.check_cancelled()?;
        let (batch, _) = live_rows(data, chunk_idx, None)?;
        if first_failure(std::slice::from_ref(check), &batch, ctx)?.is_some() {
            let (state, what) = match check.kind {
                CheckKind::DomainNotNull(_) => (SqlState::NotNullViolation, "null values"),
                _ => (
                    SqlState::CheckViolation,
                    "values that violate the new constraint",
                ),
            };
            return Err(Error::new(
                state,
                format!("column \"{column}\" of table \"{table}\" contains {what}"),
            ));
        }
    }
    Ok(())
}

/// The error for `check` failing on a row of `table`, whose text `failing_row` makes.
fn violation(table: &str, check: &RowCheck, failing_row: impl FnOnce() -> String) -> Error {
    let name = &check.name;
    match &check.kind {
        // A domain's errors name no row, as PostgreSQL's domain_check does.
        CheckKind::Domain(domain) => {
            return Error::new(
                SqlState::CheckViolation,
                format!("value for domain {domain} violates check constraint \"{name}\""),
            )
        }
        CheckKind::DomainNotNull(domain) => {
            return Error::new(
                SqlState::NotNullViolation,
                format!("domain {domain} does not allow null values"),
            )
        }
        CheckKind::Constraint => Error::new(
            SqlState::CheckViolation,
            format!("new row for relation \"{table}\" violates check constraint \"{name}\""),
        ),
        CheckKind::ViewCheckOption => Error::new(
            SqlState::WithCheckOptionViolation,
            format!("new row violates check option for view \"{name}\""),
        ),
    }
    .with_detail(format!("Failing row contains ({}).", failing_row()))
}
