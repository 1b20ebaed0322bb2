//! Splits a join condition into equality keys between the two sides and a residual.

use super::{ColumnSide, CompareOp, ScalarExpr};

pub struct SplitCondition {
    /// Key expressions over the left input's columns.
    pub left_keys: Vec<ScalarExpr>,
    /// The matching keys over the right input's columns (indexes local to the right input).
    pub right_keys: Vec<ScalarExpr>,
    /// What remains, over the joined row.
    pub residual: Option<ScalarExpr>,
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
    let mut rest = Vec::new();
    for part in condition.into_conjuncts() {
        if let ScalarExpr::Compare {
            op: CompareOp::Eq,
            left,
            right,
        } = &part
        {
            match (left.side(left_width), right.side(left_width)) {
                (ColumnSide::Left, ColumnSide::Right) => {
                    split.left_keys.push((**left).clone());
                    split
                        .right_keys
                        .push((**right).clone().shift_columns_left(left_width));
                    continue;
                }
                (ColumnSide::Right, ColumnSide::Left) => {
                    split.left_keys.push((**right).clone());
                    split
                        .right_keys
                        .push((**left).clone().shift_columns_left(left_width));
                    continue;
                }
                _ => {}
            }
        }
        rest.push(part);
    }
    split.residual = ScalarExpr::conjunction(rest);
    split
}
