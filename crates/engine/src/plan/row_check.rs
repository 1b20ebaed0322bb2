//! A table's CHECK constraints bound over its full row: what every row an INSERT, UPDATE or
//! COPY writes must pass, in PostgreSQL's order (by name), so the first one a row fails is
//! the one PostgreSQL reports.

use super::ScalarExpr;

#[derive(Debug, Clone, PartialEq)]
pub struct RowCheck {
    pub name: String,
    /// Boolean, over the table's columns by position; a row fails where it is false.
    pub expr: ScalarExpr,
}
