//! Evaluates constant subexpressions once at plan time instead of once per batch. A constant
//! that fails to evaluate is left in place, so its error is raised only if a row reaches it.

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;

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
