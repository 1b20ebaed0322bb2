//! A table's CHECK constraints bound over its full row: what every row an INSERT, UPDATE or
//! COPY writes must pass, in PostgreSQL's order (by name), so the first one a row fails is
//! the one PostgreSQL reports; after them, the conditions of the views WITH CHECK OPTION
//! the write goes through, innermost view first.

use super::ScalarExpr;

#[derive(Debug, Clone, PartialEq)]
pub struct RowCheck {
    /// The constraint's name, or the view's.
    pub name: String,
    pub kind: CheckKind,
    /// Boolean, over the table's columns by position; a row fails where it is false.
    pub expr: ScalarExpr,
}

/// What a failed check reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckKind {
    /// 23514, a CHECK constraint of the table.
    Constraint,
    /// 44000, the condition of a view WITH CHECK OPTION.
    ViewCheckOption,
    /// 23514, a CHECK of the domain named here (as format_type prints it) that the value
    /// is cast to.
    Domain(String),
    /// 23502, the NOT NULL of the domain named here.
    DomainNotNull(String),
}
