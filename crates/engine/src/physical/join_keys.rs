//! Splits a join condition into equality keys between the two sides and a residual.

use crate::plan::{CompareOp, ScalarExpr};

pub struct SplitCondition {
    /// Key expressions over the left input's columns.
    pub left_keys: Vec<ScalarExpr>,
    /// The matching keys over the right input's columns (indexes local to the right input).
    pub right_keys: Vec<ScalarExpr>,
    /// What remains, over the joined row.
    pub residual: Option<ScalarExpr>,
}

/// Which side of the join an expression reads.
#[derive(PartialEq)]
enum Side {
    Neither,
    Left,
    Right,
    Both,
}

fn side(expr: &ScalarExpr, left_width: usize) -> Side {
    let mut side = Side::Neither;
    expr.visit(&mut |e| {
        if let ScalarExpr::Subquery(subquery) = e {
            if subquery.correlated {
                side = Side::Both;
            }
        }
        if let ScalarExpr::Column { index, .. } = e {
            let this = if *index < left_width {
                Side::Left
            } else {
                Side::Right
            };
            side = match (&side, this) {
                (Side::Neither, s) => s,
                (s, t) if *s == t => t,
                _ => Side::Both,
            };
        }
    });
    side
}

fn shift_left(expr: ScalarExpr, by: usize) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index, ty } => ScalarExpr::Column {
            index: index - by,
            ty,
        },
        other => other
            .clone()
            .try_map_children(&mut |e| Ok(shift_left(e, by)))
            .unwrap_or(other),
    }
}

fn conjuncts(expr: ScalarExpr, out: &mut Vec<ScalarExpr>) {
    match expr {
        ScalarExpr::And(l, r) => {
            conjuncts(*l, out);
            conjuncts(*r, out);
        }
        other => out.push(other),
    }
}

pub fn split_condition(condition: Option<ScalarExpr>, left_width: usize) -> SplitCondition {
    let mut split = SplitCondition {
        left_keys: Vec::new(),
        right_keys: Vec::new(),
        residual: None,
    };
    let Some(condition) = condition else {
        return split;
    };
    let mut parts = Vec::new();
    conjuncts(condition, &mut parts);
    let mut rest = Vec::new();
    for part in parts {
        if let ScalarExpr::Compare {
            op: CompareOp::Eq,
            left,
            right,
        } = &part
        {
            match (side(left, left_width), side(right, left_width)) {
                (Side::Left, Side::Right) => {
                    split.left_keys.push((**left).clone());
                    split
                        .right_keys
                        .push(shift_left((**right).clone(), left_width));
                    continue;
                }
                (Side::Right, Side::Left) => {
                    split.left_keys.push((**right).clone());
                    split
                        .right_keys
                        .push(shift_left((**left).clone(), left_width));
                    continue;
                }
                _ => {}
            }
        }
        rest.push(part);
    }
    split.residual = rest
        .into_iter()
        .reduce(|a, b| ScalarExpr::And(Box::new(a), Box::new(b)));
    split
}
