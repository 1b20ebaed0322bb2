//! Evaluates constant subexpressions while planning, as PostgreSQL's eval_const_expressions
//! does, and like it raises their errors then: `SELECT CAST(1e10 AS int) FROM empty` fails
//! although no row reaches the cast. This is semantics, not an optional rewrite, so it runs
//! before the switchable rules and whichever of them are off.
//!
//! It follows eval_const_expressions' order: a node's arguments first, then the node once
//! they are all constants. Where that order skips an argument, so does folding, and its
//! error is never raised: AND and OR stop at the first constant that decides them, CASE
//! drops a branch whose condition is a constant FALSE or NULL (and everything after a
//! constant TRUE one), COALESCE stops at its first constant that is not NULL, a strict
//! node with an argument that folded to NULL is NULL, and EXISTS ignores its subquery's
//! select list. Every expression of every plan node is folded, the
//! plans of subqueries included (PostgreSQL plans them with the query).
//!
//! A filter whose condition folds to FALSE or NULL gets no input, as PostgreSQL's one-time
//! filter never runs its plan.
//!
//! Only data exceptions (SQLSTATE class 22: overflow, division by zero, bad input) are
//! raised at plan time; any other failure leaves the expression in place, so an error that
//! comes from evaluating without the statement's context is raised only if a row reaches it.

use std::sync::Arc;

use super::{map_expressions, map_inputs};
use crate::error::Result;
use crate::plan::{
    BoundStatement, ConflictAction, LogicalPlan, OnConflict, Returning, ScalarExpr, Subquery,
    SubqueryKind,
};
use crate::storage::DbState;
use crate::types::{DataType, ScalarValue};

/// Folds the expressions a data-modifying statement keeps outside its plans, in the order
/// PostgreSQL's subquery_planner preprocesses them: the target list (UPDATE's SET), then
/// RETURNING, then WHERE. `UPDATE t SET n = 1234` into a numeric(3,1) column fails on an
/// empty table too, as in PostgreSQL. The statement's plans are folded by [`fold_plan`].
pub(crate) fn fold_statement(bound: BoundStatement) -> Result<BoundStatement> {
    let fold_all = |exprs: Vec<ScalarExpr>| exprs.into_iter().map(fold).collect::<Result<_>>();
    let fold_assignments = |assignments: Vec<(usize, ScalarExpr)>| {
        assignments
            .into_iter()
            .map(|(column, e)| Ok((column, fold(e)?)))
            .collect::<Result<Vec<_>>>()
    };
    let fold_returning = |returning: Option<Returning>| {
        returning
            .map(|r| {
                Ok::<_, crate::error::Error>(Returning {
                    exprs: fold_all(r.exprs)?,
                    columns: r.columns,
                })
            })
            .transpose()
    };
    Ok(match bound {
        BoundStatement::Update {
            table_name,
            table_oid,
            source,
            filter,
            assignments,
            returning,
            checks,
        } => {
            let assignments = fold_assignments(assignments)?;
            let returning = fold_returning(returning)?;
            BoundStatement::Update {
                table_name,
                table_oid,
                source,
                filter: filter.map(fold).transpose()?,
                assignments,
                returning,
                checks,
            }
        }
        BoundStatement::Delete {
            table_name,
            table_oid,
            source,
            filter,
            returning,
        } => {
            let returning = fold_returning(returning)?;
            BoundStatement::Delete {
                table_name,
                table_oid,
                source,
                filter: filter.map(fold).transpose()?,
                returning,
            }
        }
        BoundStatement::Insert {
            table_name,
            table_oid,
            source,
            returning,
            on_conflict,
            checks,
        } => {
            let on_conflict = match on_conflict {
                Some(OnConflict {
                    arbiters,
                    action:
                        ConflictAction::Update {
                            assignments,
                            filter,
                        },
                }) => Some(OnConflict {
                    arbiters,
                    action: ConflictAction::Update {
                        assignments: fold_assignments(assignments)?,
                        filter: filter.map(fold).transpose()?,
                    },
                }),
                other => other,
            };
            BoundStatement::Insert {
                table_name,
                table_oid,
                source,
                returning: fold_returning(returning)?,
                on_conflict,
                checks,
            }
        }
        BoundStatement::WithWrites { writes, main } => BoundStatement::WithWrites {
            writes: writes
                .into_iter()
                .map(|(id, write)| Ok((id, fold_statement(write)?)))
                .collect::<Result<_>>()?,
            main: Box::new(fold_statement(*main)?),
        },
        other => other,
    })
}

/// Folds the node's own expressions before its inputs': PostgreSQL folds a query's select
/// list before its WHERE, so when both fail the select list's error is the one raised.
#[recursive::recursive]
pub(super) fn fold_plan(plan: LogicalPlan) -> Result<LogicalPlan> {
    let plan = map_expressions(plan, &mut fold)?;
    let plan = map_inputs(plan, &mut fold_plan)?;
    Ok(match plan {
        // A condition folded to FALSE or NULL: PostgreSQL plans a one-time filter that never
        // runs its input, so the input's rows raise no error (its constants did, above).
        LogicalPlan::Filter {
            input,
            predicate:
                predicate @ ScalarExpr::Literal {
                    value: ScalarValue::Bool(false) | ScalarValue::Null,
                    ..
                },
        } => LogicalPlan::Filter {
            input: Box::new(LogicalPlan::Values {
                rows: Arc::new(Vec::new()),
                types: input.output_types(),
            }),
            predicate,
        },
        other => other,
    })
}

/// `expr` with its constant subexpressions evaluated.
#[recursive::recursive]
fn fold(expr: ScalarExpr) -> Result<ScalarExpr> {
    // A statement of a hundred thousand terms takes seconds to fold.
    crate::interrupt::check_running()?;
    let expr = match expr {
        ScalarExpr::Literal { .. }
        | ScalarExpr::Column { .. }
        | ScalarExpr::Param { .. }
        | ScalarExpr::OuterColumn { .. } => return Ok(expr),
        ScalarExpr::And(..) | ScalarExpr::Or(..) => fold_connective(expr)?,
        ScalarExpr::Case {
            whens,
            else_result,
            ty,
        } => fold_case(whens, else_result.map(|e| *e), ty)?,
        ScalarExpr::Coalesce { args, ty } => fold_coalesce(args, ty)?,
        ScalarExpr::Subquery(subquery) => {
            let subquery = fold_subquery(*subquery)?;
            ScalarExpr::Subquery(Box::new(subquery)).try_map_children(&mut fold)?
        }
        other => other.try_map_children(&mut fold)?,
    };
    // An argument that folded to NULL makes a strict node NULL, its other arguments never
    // evaluated: `(a * 2) / NULLIF(0, 0)` cannot overflow (the binder did the same for the
    // NULLs written as such).
    if expr.is_strict_over_null() {
        return Ok(ScalarExpr::null(expr.ty()));
    }
    evaluate_if_constant(expr)
}

/// `expr` as a literal when it reads nothing that varies (its arguments are folded already,
/// so this evaluates one node), raising a data exception.
fn evaluate_if_constant(expr: ScalarExpr) -> Result<ScalarExpr> {
    if matches!(expr, ScalarExpr::Literal { .. }) || !foldable(&expr) {
        return Ok(expr);
    }
    match evaluate_alone(&expr) {
        Ok(value) => Ok(ScalarExpr::Literal {
            value,
            ty: expr.ty(),
        }),
        Err(error) if error.sqlstate().starts_with("22") => Err(error),
        Err(_) => Ok(expr),
    }
}

/// AND (decided by a FALSE argument) or OR (by TRUE): arguments fold left to right, and one
/// that folds to the deciding constant is the result, the arguments after it unfolded.
fn fold_connective(expr: ScalarExpr) -> Result<ScalarExpr> {
    let (left, right, deciding) = match expr {
        ScalarExpr::And(left, right) => (left, right, false),
        ScalarExpr::Or(left, right) => (left, right, true),
        other => return Ok(other),
    };
    let decides = |e: &ScalarExpr| matches!(e, ScalarExpr::Literal { value: ScalarValue::Bool(b), .. } if *b == deciding);
    let left = fold(*left)?;
    if decides(&left) {
        return Ok(left);
    }
    let right = fold(*right)?;
    if decides(&right) {
        return Ok(right);
    }
    let (left, right) = (Box::new(left), Box::new(right));
    Ok(if deciding {
        ScalarExpr::Or(left, right)
    } else {
        ScalarExpr::And(left, right)
    })
}

/// A searched CASE: a branch whose condition folds to FALSE or NULL is dropped unfolded, one
/// whose condition folds to TRUE becomes the ELSE and ends the list; the other results fold
/// whether or not a row will take them, as in PostgreSQL.
fn fold_case(
    whens: Vec<(ScalarExpr, ScalarExpr)>,
    else_result: Option<ScalarExpr>,
    ty: DataType,
) -> Result<ScalarExpr> {
    let mut kept = Vec::new();
    let mut decided = None;
    for (when, then) in whens {
        match fold(when)? {
            ScalarExpr::Literal {
                value: ScalarValue::Bool(false) | ScalarValue::Null,
                ..
            } => {}
            ScalarExpr::Literal {
                value: ScalarValue::Bool(true),
                ..
            } => {
                decided = Some(fold(then)?);
                break;
            }
            when => kept.push((when, fold(then)?)),
        }
    }
    let else_result = match decided {
        Some(result) => Some(result),
        None => else_result.map(fold).transpose()?,
    };
    if kept.is_empty() {
        return Ok(else_result.unwrap_or_else(|| ScalarExpr::null(ty)));
    }
    Ok(ScalarExpr::Case {
        whens: kept,
        else_result: else_result.map(Box::new),
        ty,
    })
}

/// COALESCE: NULL constants are dropped, and the first other constant ends the list.
fn fold_coalesce(args: Vec<ScalarExpr>, ty: DataType) -> Result<ScalarExpr> {
    let mut kept = Vec::new();
    for arg in args {
        match fold(arg)? {
            ScalarExpr::Literal {
                value: ScalarValue::Null,
                ..
            } => {}
            arg @ ScalarExpr::Literal { .. } => {
                kept.push(arg);
                break;
            }
            arg => kept.push(arg),
        }
    }
    Ok(match kept.len() {
        0 => ScalarExpr::null(ty),
        1 if matches!(kept[0], ScalarExpr::Literal { .. }) => kept.remove(0),
        _ => ScalarExpr::Coalesce { args: kept, ty },
    })
}

/// A subquery with its plan folded; EXISTS never evaluates its select list.
fn fold_subquery(mut subquery: Subquery) -> Result<Subquery> {
    let plan = Arc::unwrap_or_clone(subquery.plan);
    let plan = match (plan, &subquery.kind) {
        (LogicalPlan::Project { input, exprs }, SubqueryKind::Exists) => LogicalPlan::Project {
            input: Box::new(fold_plan(*input)?),
            exprs,
        },
        (plan, _) => fold_plan(plan)?,
    };
    subquery.plan = Arc::new(plan);
    Ok(subquery)
}

fn foldable(expr: &ScalarExpr) -> bool {
    let mut ok = expr.is_constant() && !expr.is_volatile();
    expr.visit(&mut |e| {
        if matches!(e, ScalarExpr::Param { .. } | ScalarExpr::OuterColumn { .. }) {
            ok = false;
        }
    });
    ok
}

fn evaluate_alone(expr: &ScalarExpr) -> Result<ScalarValue> {
    let ctx = crate::exec::ExecContext::new(
        Vec::new(),
        Arc::new(DbState::default()),
        Arc::default(),
        Default::default(),
    );
    crate::exec::expression::evaluate_constant(expr, &ctx)
}
