//! Whole-row references to the side an outer join pads with NULLs (`SELECT t2 FROM t1
//! LEFT JOIN t2 ON ...`, `count(t2.*)`): in PostgreSQL NULL where the row was padded and
//! the row of its columns elsewhere, even when they are all NULL. The columns alone cannot
//! tell the two apart; a witness can: a column non-NULL wherever its FROM item's row is
//! present, so NULL exactly where it was padded. A table's NOT NULL columns are witnesses,
//! and so are the columns a join condition compares (`=`, `<`, `IS NOT NULL`, ... at its
//! top level) on the side the join may drop rows of: every row there met the condition.
//! Without a witness the reference stays 0A000.

use super::scope::{Scope, ScopeColumn};
use crate::error::{Error, Result};
use crate::plan::{JoinKind, ScalarExpr};

/// Marks the columns `condition` (over the join's `scope`, the left side's `left_width`
/// columns first) proves non-NULL in every row the join keeps from its side.
pub(super) fn mark_witnesses(
    scope: &mut Scope,
    left_width: usize,
    kind: JoinKind,
    condition: &ScalarExpr,
) {
    let mut compared = Vec::new();
    compared_columns(condition, &mut compared);
    for index in compared {
        // A side whose unmatched rows an outer join keeps may hold rows that failed it.
        let filtered = match kind {
            JoinKind::Inner => true,
            JoinKind::Left => index >= left_width,
            JoinKind::Right => index < left_width,
            JoinKind::Full => false,
        };
        if let (true, Some(column)) = (filtered, scope.columns.get_mut(index)) {
            column.padding_witness = true;
        }
    }
}

/// The columns a row meeting `condition` has non-NULL: those its top-level conjuncts
/// compare, through casts (all strict).
fn compared_columns(condition: &ScalarExpr, found: &mut Vec<usize>) {
    match condition {
        ScalarExpr::And(left, right) => {
            compared_columns(left, found);
            compared_columns(right, found);
        }
        ScalarExpr::Compare { left, right, .. } => {
            found.extend(column_under_casts(left));
            found.extend(column_under_casts(right));
        }
        ScalarExpr::IsNull {
            input,
            negated: true,
        } => found.extend(column_under_casts(input)),
        _ => {}
    }
}

fn column_under_casts(expr: &ScalarExpr) -> Option<usize> {
    match expr {
        ScalarExpr::Column { index, .. } => Some(*index),
        ScalarExpr::Cast { input, .. } => column_under_casts(input),
        _ => None,
    }
}

/// How to tell a padded row of the FROM item of `columns`: `None` when no outer join pads
/// it, else the test of its witness (true where padded); 0A000 when it has none.
pub(super) fn padded_test(columns: &[(usize, &ScopeColumn)]) -> Result<Option<ScalarExpr>> {
    if !columns.iter().any(|(_, c)| c.null_extended) {
        return Ok(None);
    }
    let witness = columns.iter().find(|(_, c)| c.padding_witness);
    let Some(&(index, witness)) = witness else {
        return Err(Error::unsupported(
            "a whole-row reference to the NULL-padded side of an outer join whose rows \
             have no column known to be non-NULL",
        ));
    };
    Ok(Some(ScalarExpr::IsNull {
        input: Box::new(ScalarExpr::Column {
            index,
            ty: witness.ty,
        }),
        negated: false,
    }))
}

/// `row`, NULL where `padded` holds.
pub(super) fn null_where_padded(row: ScalarExpr, padded: Option<ScalarExpr>) -> ScalarExpr {
    let Some(padded) = padded else {
        return row;
    };
    let ty = row.ty();
    ScalarExpr::Case {
        whens: vec![(padded, ScalarExpr::null(ty))],
        else_result: Some(Box::new(row)),
        ty,
    }
}
