//! Logical plans and bound expressions: what the binder produces and the optimizer rewrites.
//! After binding there are no names left to resolve: columns are positions, tables OIDs.

mod access;
mod copy;
mod ddl;
mod deparse;
mod explain;
mod expr;
mod join_keys;
mod logical;
mod on_conflict;
mod role;
mod row_check;
mod strict_null;

pub use copy::{
    CopyColumn, CopyDirection, CopyEndpoint, CopyFormat, CopyHeader, CopyOptions, CopyStatement,
};
pub use ddl::{
    AlterDomain, AlterEnum, AlterSequence, AlterTable, CommentTarget, CreateIndex, DomainColumn,
    DomainColumnCheck, ExtensionChange, ForeignDataChange, FunctionChange, MappingChange,
    OnCommitAction, RowChange, TypeChange,
};
pub use deparse::{deparse_domain_check, deparse_expr};
pub use explain::{explain_lines, OperatorActuals};
pub use expr::{
    ArithmeticOp, BoolTest, ColumnSide, CompareOp, Quantifier, ScalarExpr, SequenceFunction,
    SessionInfo, Subquery, SubqueryKind,
};
pub use join_keys::{split_condition, SplitCondition};
pub use logical::{
    AggregateCall, BoundStatement, ColumnInfo, FrameBound, FrameExclusion, FrameUnits,
    FunctionCall, JoinKind, LogicalPlan, Returning, RowLockWait, SavepointAction, SetOperator,
    SetVariable, SortKey, TableFunctionCall, TransactionModes, WindowCall, WindowFrame,
};
pub use on_conflict::{ConflictAction, OnConflict};
pub use role::{
    ColumnTarget, PrivilegeChange, PrivilegeTarget, RoleChange, RoleOptions, SettingChange,
};
pub use row_check::{CheckKind, RowCheck};
