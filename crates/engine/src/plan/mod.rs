//! Logical plans and bound expressions: what the binder produces and the optimizer rewrites.
//! After binding there are no names left to resolve: columns are positions, tables OIDs.

mod explain;
mod expr;
mod logical;

pub use explain::explain_lines;
pub use expr::{
    ArithmeticOp, BoolTest, ColumnSide, CompareOp, ScalarExpr, SequenceFunction, Subquery,
    SubqueryKind,
};
pub use logical::{
    AggregateCall, BoundStatement, ColumnInfo, FrameBound, FrameUnits, JoinKind, LogicalPlan,
    Returning, SetOperator, SetVariable, SortKey, WindowCall, WindowFrame,
};
