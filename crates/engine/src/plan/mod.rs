//! Logical plans and bound expressions: what the binder produces and the optimizer rewrites.
//! After binding there are no names left to resolve: columns are positions, tables OIDs.

mod copy;
mod ddl;
mod explain;
mod expr;
mod join_keys;
mod logical;
mod on_conflict;
mod strict_null;

pub use copy::{
    CopyColumn, CopyDirection, CopyEndpoint, CopyFormat, CopyHeader, CopyOptions, CopyStatement,
};
pub use ddl::{AlterSequence, AlterTable, CommentTarget, CreateIndex, RowChange};
pub use explain::explain_lines;
pub use expr::{
    ArithmeticOp, BoolTest, ColumnSide, CompareOp, ScalarExpr, SequenceFunction, SessionInfo,
    Subquery, SubqueryKind,
};
pub use join_keys::{split_condition, SplitCondition};
pub use logical::{
    AggregateCall, BoundStatement, ColumnInfo, FrameBound, FrameExclusion, FrameUnits, JoinKind,
    LogicalPlan, Returning, SavepointAction, SetOperator, SetVariable, SortKey, TableFunctionCall,
    WindowCall, WindowFrame,
};
pub use on_conflict::{ConflictAction, OnConflict};
