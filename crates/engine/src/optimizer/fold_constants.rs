//! Evaluates constant subexpressions once at plan time instead of once per batch. A constant
//! that fails to evaluate is left in place, so its error is raised only if a row reaches it.
//! AND and OR stop at the first constant that decides them, as PostgreSQL's
//! eval_const_expressions does: `false AND <anything>` is false without evaluating the
//! rest, so a failing argument after it raises nothing there either.

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::types::ScalarValue;

pub struct FoldConstants;

impl Rule for FoldConstants {
    fn name(&self) -> &'static str {
        "fold_constants"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        fold_plan(plan)
    }
}

fn fold_plan(plan: LogicalPlan) -> Result<LogicalPlan> {
    let plan = map_inputs(plan, &mut fold_plan)?;
    Ok(match plan {
        LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
            input,
            predicate: fold(predicate),
        },
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input,
            exprs: exprs.into_iter().map(fold).collect(),
        },
        other => other,
    })
}

/// Folds the largest constant, deterministic, parameter-free subtrees into literals. An
/// error during folding leaves the expression as it is: it is raised when (and if) it runs.
fn fold(expr: ScalarExpr) -> ScalarExpr {
    match &expr {
        ScalarExpr::Literal { .. } | ScalarExpr::Column { .. } => return expr,
        ScalarExpr::And(..) | ScalarExpr::Or(..) => return fold_connective(expr),
        _ => {}
    }
    if foldable(&expr) {
        let ty = expr.ty();
        return match evaluate_alone(&expr) {
            Some(value) => ScalarExpr::Literal { value, ty },
            None => expr,
        };
    }
    let fallback = expr.clone();
    expr.try_map_children(&mut |e| Ok(fold(e)))
        .unwrap_or(fallback)
}

/// AND (decided by a FALSE argument) or OR (by TRUE): arguments fold left to right, and
/// one that folds to the deciding constant is the result. After an argument that is
/// constant but fails to evaluate, nothing is decided at plan time (PostgreSQL would raise
/// its error there; here it is raised when a row reaches it).
fn fold_connective(expr: ScalarExpr) -> ScalarExpr {
    let (left, right, deciding) = match expr {
        ScalarExpr::And(left, right) => (left, right, false),
        ScalarExpr::Or(left, right) => (left, right, true),
        other => return other,
    };
    let rebuild = |left: ScalarExpr, right: ScalarExpr| {
        if deciding {
            ScalarExpr::Or(Box::new(left), Box::new(right))
        } else {
            ScalarExpr::And(Box::new(left), Box::new(right))
        }
    };
    let decides = |e: &ScalarExpr| matches!(e, ScalarExpr::Literal { value: ScalarValue::Bool(b), .. } if *b == deciding);
    let left = fold(*left);
    if decides(&left) {
        return left;
    }
    let left_failed = foldable(&left) && !matches!(left, ScalarExpr::Literal { .. });
    let right = fold(*right);
    if decides(&right) && !left_failed {
        return right;
    }
    let both = rebuild(left, right);
    match foldable(&both).then(|| evaluate_alone(&both)).flatten() {
        Some(value) => ScalarExpr::Literal {
            value,
            ty: both.ty(),
        },
        None => both,
    }
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

fn evaluate_alone(expr: &ScalarExpr) -> Option<crate::types::ScalarValue> {
    use std::sync::Arc;
    let ctx = crate::exec::ExecContext::new(
        Vec::new(),
        Arc::new(crate::storage::DbState::default()),
        Arc::default(),
        Default::default(),
    );
    crate::exec::expression::evaluate_constant(expr, &ctx).ok()
}
