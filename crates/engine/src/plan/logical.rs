//! Logical plans: relational operators over bound expressions, and bound statements.

use std::sync::Arc;

use super::ScalarExpr;
use crate::catalog::system::SystemRelation;
use crate::catalog::{QualifiedName, TableSchema};
use crate::function::{AggregateFunction, TableFunction, WindowFunction};
use crate::storage::SequenceOptions;
use crate::types::DataType;

/// One output column of a statement, as RowDescription describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnInfo {
    pub name: String,
    pub data_type: DataType,
    /// OID of the table the column comes from, 0 if it is computed.
    pub table_oid: u32,
    /// Attribute number in that table (1-based), 0 if computed.
    pub column_attnum: i16,
    /// The column's type before its values were presented as text (an enum, an OID alias,
    /// an array of enum values; `binder/present.rs`): the type clients are told of.
    pub presented_from: Option<DataType>,
}

impl ColumnInfo {
    /// The type RowDescription names: PostgreSQL's, whatever form the values take here.
    pub fn wire_type(&self) -> DataType {
        self.presented_from.unwrap_or(self.data_type)
    }

    /// Whether the values can be sent in binary (as [`ColumnInfo::wire_type`]): not an OID
    /// alias presented as its name, whose binary form (oidsend) is the OID. An enum's
    /// (enum_send) is its label's text, also as an array's element.
    pub fn has_binary_output(&self) -> bool {
        self.presented_from.is_none_or(|ty| ty.enum_oid().is_some())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AggregateCall {
    pub func: AggregateFunction,
    /// The arguments; none for `count(*)`.
    pub args: Vec<ScalarExpr>,
    /// Each distinct argument tuple counts once per group.
    pub distinct: bool,
    /// `FILTER (WHERE ...)`: only rows where it is true count.
    pub filter: Option<ScalarExpr>,
    /// The order rows reach the aggregate in (ORDER BY inside the call); empty when the
    /// order cannot change the result. A DISTINCT call of an order-sensitive aggregate
    /// sorts by its arguments, as PostgreSQL's sort-based DISTINCT does.
    pub order_by: Vec<SortKey>,
    pub ty: DataType,
}

/// Which rows around the current one a window function sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
    Groups,
}

/// A frame edge. An offset is a constant expression evaluated when the window runs (as
/// PostgreSQL does): a row or group count (bigint) for ROWS and GROUPS, a distance of the
/// in_range offset type (the ORDER BY key's type, or interval for datetimes) for RANGE.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(ScalarExpr),
    CurrentRow,
    Following(ScalarExpr),
    UnboundedFollowing,
}

/// The parser recognises EXCLUDE (sqlparser does not); the plan carries its value.
pub use crate::parser::FrameExclusion;

#[derive(Debug, Clone, PartialEq)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
    pub exclusion: FrameExclusion,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowCall {
    pub func: WindowFunction,
    pub args: Vec<ScalarExpr>,
    pub partition_by: Vec<ScalarExpr>,
    pub order_by: Vec<SortKey>,
    pub frame: WindowFrame,
    pub ty: DataType,
    /// An aggregate's FILTER (WHERE ...): the frame's rows it rejects are not aggregated.
    pub filter: Option<ScalarExpr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    pub expr: ScalarExpr,
    pub descending: bool,
    pub nulls_first: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LogicalPlan {
    /// The live rows of a table, the columns at `columns`.
    Scan {
        table_oid: u32,
        table_name: String,
        columns: Vec<usize>,
        types: Vec<DataType>,
    },
    /// The rows of a system catalog relation, computed from the statement's snapshot when
    /// the scan runs.
    SystemScan {
        relation: &'static SystemRelation,
        types: Vec<DataType>,
    },
    /// Literal rows; one row of no columns is the input of `SELECT` without FROM.
    Values {
        /// Shared: a cached INSERT plan is cloned and built for every execution.
        rows: Arc<Vec<Vec<ScalarExpr>>>,
        types: Vec<DataType>,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: ScalarExpr,
    },
    Project {
        input: Box<LogicalPlan>,
        exprs: Vec<ScalarExpr>,
    },
    /// Output: the group keys, then the aggregates, then one int4 per grouping() call.
    Aggregate {
        input: Box<LogicalPlan>,
        group_by: Vec<ScalarExpr>,
        aggregates: Vec<AggregateCall>,
        /// GROUPING SETS: the `group_by` positions of each set; a key outside a row's set
        /// is NULL in it. Empty for a plain GROUP BY (one set of every key).
        grouping_sets: Vec<Vec<usize>>,
        /// grouping(...) calls as the `group_by` positions they test, most significant bit
        /// first: a bit is 1 when that key is not in the row's grouping set.
        grouping_calls: Vec<Vec<usize>>,
    },
    Sort {
        input: Box<LogicalPlan>,
        keys: Vec<SortKey>,
    },
    /// SELECT ... FOR UPDATE / SHARE: locks the row of table `table_oid` behind each input
    /// row, whose id is the input's last column (dropped from the output), as the rows are
    /// pulled, so a LIMIT above locks only the rows it returns.
    LockRows {
        input: Box<LogicalPlan>,
        table_oid: u32,
        table_name: String,
        /// FOR UPDATE and FOR NO KEY UPDATE; FOR SHARE and FOR KEY SHARE share the lock.
        exclusive: bool,
        wait: RowLockWait,
    },
    /// LIMIT and OFFSET are expressions so that `$n` works; they are evaluated once.
    Limit {
        input: Box<LogicalPlan>,
        limit: Option<ScalarExpr>,
        offset: Option<ScalarExpr>,
        /// FETCH ... WITH TIES: the ORDER BY keys (over the input's columns) whose ties with
        /// the last row within the limit come too. Empty for a plain limit.
        ties: Vec<SortKey>,
    },
    /// The first row of each set of rows equal in the columns `on` (all columns when
    /// empty); DISTINCT ON relies on the input being sorted to make "first" meaningful.
    Distinct {
        input: Box<LogicalPlan>,
        on: Vec<usize>,
    },
    /// Set-returning functions in FROM; their arguments read no column of this query (at
    /// most the left row of a lateral join). Several (the select list's) run in lockstep,
    /// one column each, the shorter ones padded with NULL. `WITH ORDINALITY` adds a
    /// bigint row number.
    TableFunction {
        calls: Vec<TableFunctionCall>,
        ordinality: bool,
    },
    /// `left [LEFT] JOIN LATERAL right`: `right` reads the current left row (as outer
    /// columns of depth 1) and runs once per left row.
    LateralJoin {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinKind,
        condition: Option<ScalarExpr>,
    },
    /// A WITH query: computed once per statement however often it is read.
    SharedCte { id: usize, input: Box<LogicalPlan> },
    /// WITH RECURSIVE: `base`, then `recursive` run over the rows the previous round added
    /// (read through `WorkTable { id }`) until a round adds none.
    RecursiveCte {
        id: usize,
        base: Box<LogicalPlan>,
        recursive: Box<LogicalPlan>,
        /// UNION ALL keeps duplicates; UNION drops rows seen before.
        all: bool,
    },
    /// The rows of the current round of recursive CTE `id`.
    WorkTable { id: usize, types: Vec<DataType> },
    /// Output: the input columns, then one column per window function call.
    Window {
        input: Box<LogicalPlan>,
        calls: Vec<WindowCall>,
        /// The calls whose sorts (PARTITION BY then ORDER BY), applied one after the other
        /// and stably, order the output as PostgreSQL's stacked WindowAggs do. Empty keeps
        /// the input order, for a query that sorts its result anyway.
        output_order: Vec<usize>,
    },
    /// UNION / INTERSECT / EXCEPT of inputs with the same column types; `all` keeps
    /// duplicates (bag semantics).
    SetOperation {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        op: SetOperator,
        all: bool,
    },
    /// Output: the left columns, then the right ones. `condition` is over that row.
    Join {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinKind,
        condition: Option<ScalarExpr>,
    },
    /// The rows of files read in place (read_parquet, read_csv): the source's columns at
    /// `columns`. A filter right above it also skips Parquet row groups (`physical/`).
    FileScan {
        source: Arc<crate::files::FileSource>,
        columns: Vec<usize>,
        types: Vec<DataType>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOperator {
    Union,
    Intersect,
    Except,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
}

impl LogicalPlan {
    #[recursive::recursive]
    pub fn output_types(&self) -> Vec<DataType> {
        match self {
            LogicalPlan::Scan { types, .. }
            | LogicalPlan::Values { types, .. }
            | LogicalPlan::SystemScan { types, .. }
            | LogicalPlan::FileScan { types, .. } => types.clone(),
            LogicalPlan::SetOperation { left, .. } => left.output_types(),
            LogicalPlan::TableFunction { calls, ordinality } => {
                let mut types: Vec<DataType> = calls.iter().map(|c| c.ty).collect();
                if *ordinality {
                    types.push(DataType::Int64);
                }
                types
            }
            LogicalPlan::RecursiveCte { base, .. } => base.output_types(),
            LogicalPlan::SharedCte { input, .. } => input.output_types(),
            LogicalPlan::WorkTable { types, .. } => types.clone(),
            LogicalPlan::Window { input, calls, .. } => {
                let mut types = input.output_types();
                types.extend(calls.iter().map(|c| c.ty));
                types
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::Distinct { input, .. } => input.output_types(),
            LogicalPlan::LockRows { input, .. } => {
                let mut types = input.output_types();
                types.pop();
                types
            }
            LogicalPlan::Project { exprs, .. } => exprs.iter().map(|e| e.ty()).collect(),
            LogicalPlan::Join { left, right, .. }
            | LogicalPlan::LateralJoin { left, right, .. } => {
                let mut types = left.output_types();
                types.extend(right.output_types());
                types
            }
            LogicalPlan::Aggregate {
                group_by,
                aggregates,
                grouping_calls,
                ..
            } => group_by
                .iter()
                .map(|e| e.ty())
                .chain(aggregates.iter().map(|a| a.ty))
                .chain(grouping_calls.iter().map(|_| DataType::Int32))
                .collect(),
        }
    }
}

/// One set-returning function call of a [`LogicalPlan::TableFunction`].
#[derive(Debug, Clone, PartialEq)]
pub struct TableFunctionCall {
    pub func: TableFunction,
    pub args: Vec<ScalarExpr>,
    /// The type of its single column.
    pub ty: DataType,
}

/// What a savepoint statement does with the savepoint it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavepointAction {
    Define,
    Release,
    RollbackTo,
}

/// `SET name = value` / `RESET name` / `SET name TO DEFAULT`.
#[derive(Debug, Clone, PartialEq)]
pub struct SetVariable {
    /// `None` for RESET ALL.
    pub name: Option<String>,
    /// `None` resets to the default.
    pub value: Option<String>,
    /// SET LOCAL: until the end of the transaction.
    pub local: bool,
}

/// What SELECT ... FOR UPDATE does at a row another transaction has locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowLockWait {
    Block,
    /// NOWAIT: fail with 55P03.
    NoWait,
    /// SKIP LOCKED: leave the row out.
    SkipLocked,
}

/// The modes of BEGIN and SET TRANSACTION as the settings they set, in the order written:
/// (`transaction_isolation`, `repeatable read`), (`transaction_read_only`, `on`), ...
pub type TransactionModes = Vec<(&'static str, &'static str)>;

/// `RETURNING ...`: expressions over the full rows written (or deleted).
#[derive(Debug, Clone)]
pub struct Returning {
    pub exprs: Vec<ScalarExpr>,
    pub columns: Arc<[ColumnInfo]>,
}

/// A statement after binding.
#[derive(Debug, Clone)]
pub enum BoundStatement {
    Query {
        plan: LogicalPlan,
        columns: Arc<[ColumnInfo]>,
    },
    /// `source` yields full rows of the table's column types, defaults filled in.
    Insert {
        table_name: QualifiedName,
        table_oid: u32,
        source: LogicalPlan,
        returning: Option<Returning>,
        on_conflict: Option<super::OnConflict>,
        /// The table's CHECK constraints, which inserted and conflict-updated rows pass.
        checks: Vec<super::RowCheck>,
    },
    /// Expressions are over the table's full rows, followed by the columns of `source`
    /// (UPDATE ... FROM) when there is one.
    Update {
        table_name: QualifiedName,
        table_oid: u32,
        source: Option<LogicalPlan>,
        filter: Option<ScalarExpr>,
        assignments: Vec<(usize, ScalarExpr)>,
        returning: Option<Returning>,
        /// The table's CHECK constraints over the new rows.
        checks: Vec<super::RowCheck>,
    },
    /// Data-modifying WITH queries (INSERT, UPDATE or DELETE, with their RETURNING), run in
    /// order before `main`, each once; `main` reads each one's RETURNING rows as the work
    /// table of its id. All of them read the statement's one snapshot.
    WithWrites {
        writes: Vec<(usize, BoundStatement)>,
        main: Box<BoundStatement>,
    },
    /// As Update; `source` is DELETE ... USING.
    Delete {
        table_name: QualifiedName,
        table_oid: u32,
        source: Option<LogicalPlan>,
        filter: Option<ScalarExpr>,
        returning: Option<Returning>,
    },
    CreateTable {
        schema: TableSchema,
        if_not_exists: bool,
        /// Sequences behind SERIAL and identity columns: (name, options, owning column).
        sequences: Vec<(QualifiedName, SequenceOptions, String)>,
        /// CREATE TABLE ... AS: the rows to fill it with.
        source: Option<LogicalPlan>,
        /// A temporary table's ON COMMIT, unless PRESERVE ROWS.
        on_commit: Option<super::OnCommitAction>,
    },
    CreateSequence {
        name: QualifiedName,
        options: SequenceOptions,
        if_not_exists: bool,
        /// OWNED BY: the (table, column) it is dropped with.
        owned_by: Option<(String, String)>,
    },
    /// COMMENT ON; `None` removes the comment.
    Comment {
        target: super::CommentTarget,
        comment: Option<String>,
    },
    /// `None`: IF EXISTS of a missing sequence, with its notice.
    AlterSequence {
        alter: Option<Box<super::AlterSequence>>,
        notices: Vec<String>,
    },
    DropSequence {
        names: Vec<QualifiedName>,
        if_exists: bool,
    },
    DropTable {
        names: Vec<QualifiedName>,
        if_exists: bool,
        /// Also drop the views that depend on the tables.
        cascade: bool,
        /// What the names must be: tables, materialized views or foreign tables.
        kind: crate::storage::RelationKind,
    },
    /// `view.oid` is allocated when it runs.
    CreateView {
        view: crate::catalog::ViewDef,
        or_replace: bool,
    },
    DropView {
        names: Vec<QualifiedName>,
        if_exists: bool,
        cascade: bool,
    },
    CreateIndex(super::CreateIndex),
    /// CREATE TYPE ... AS ENUM, ALTER TYPE, DROP TYPE.
    ChangeType(super::TypeChange),
    /// CREATE / ALTER / DROP ROLE, GRANT / REVOKE role.
    ChangeRole(super::RoleChange),
    /// CREATE FUNCTION, DROP FUNCTION.
    ChangeFunction(super::FunctionChange),
    /// CREATE EXTENSION, DROP EXTENSION.
    ChangeExtension(super::ExtensionChange),
    /// CREATE SERVER, DROP SERVER and ALTER FOREIGN TABLE ... OPTIONS.
    ChangeForeignData(super::ForeignDataChange),
    CreateSchema {
        name: String,
        owner: String,
        if_not_exists: bool,
    },
    DropSchema {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
        /// The schemas the statement's search path looks in (messages name a relation
        /// with its schema unless the path finds it).
        searched: Vec<u32>,
    },
    RenameSchema {
        name: String,
        new_name: String,
    },
    /// `None`: ALTER TABLE IF EXISTS of a missing table. `notices`: subcommands skipped by
    /// IF [NOT] EXISTS.
    AlterTable {
        alter: Option<Box<super::AlterTable>>,
        notices: Vec<String>,
        /// The command tag: ALTER TABLE, or ALTER MATERIALIZED VIEW as written.
        tag: &'static str,
    },
    Truncate {
        /// (name, OID) of each table, once each.
        tables: Vec<(QualifiedName, u32)>,
        restart_identity: bool,
        /// CASCADE: tables referencing them by foreign keys are truncated too.
        cascade: bool,
    },
    DropIndex {
        names: Vec<QualifiedName>,
        if_exists: bool,
        /// CONCURRENTLY: refused inside a transaction block.
        concurrently: bool,
    },
    /// ANALYZE, VACUUM and ALTER ... OWNER TO. ANALYZE has nothing to gather (the planner
    /// reads sizes from the tables themselves); VACUUM reclaims deleted rows of `tables`
    /// (every table if none was named); OWNER TO names the only role, which owns everything.
    Maintenance {
        tag: &'static str,
        tables: Vec<(QualifiedName, u32)>,
    },
    Begin {
        modes: TransactionModes,
    },
    /// LOCK TABLE: `share` for SHARE mode (which writers wait for but other SHARE holders
    /// do not), otherwise the tables' write locks; ACCESS SHARE and ROW SHARE, which no
    /// writer waits for, lock nothing (readers never wait here).
    LockTable {
        tables: Vec<QualifiedName>,
        share: bool,
        nowait: bool,
    },
    /// SET TRANSACTION, or with `session` SET SESSION CHARACTERISTICS AS TRANSACTION.
    SetTransaction {
        modes: TransactionModes,
        session: bool,
    },
    /// COMMIT, with `chain` COMMIT AND CHAIN.
    Commit {
        chain: bool,
    },
    /// ROLLBACK, with `chain` ROLLBACK AND CHAIN.
    Rollback {
        chain: bool,
    },
    /// SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO [SAVEPOINT] `name`.
    Savepoint {
        action: SavepointAction,
        name: String,
    },
    Set(SetVariable),
    /// SET CONSTRAINTS: `names` (`None` for ALL) deferred or immediate.
    SetConstraints {
        names: Option<Vec<String>>,
        deferred: bool,
    },
    Show {
        name: String,
    },
    Explain {
        plan: LogicalPlan,
        analyze: bool,
    },
    Copy(Box<super::CopyStatement>),
    /// REFRESH MATERIALIZED VIEW: `source`'s rows (none: WITH NO DATA) replace its rows.
    RefreshMaterializedView {
        name: QualifiedName,
        oid: u32,
        source: Option<LogicalPlan>,
    },
    /// `SELECT f(...)` alone, of a SQL function whose body runs statement by statement.
    FunctionCall(FunctionCall),
}

/// A call the session runs one body statement at a time (binder/function_body.rs).
#[derive(Debug, Clone)]
pub struct FunctionCall {
    pub function: Arc<crate::catalog::FunctionDef>,
    /// The arguments in declared order, defaults filled in; they read no columns.
    pub args: Vec<ScalarExpr>,
    /// The one result column, named after the function (or the alias).
    pub columns: Arc<[ColumnInfo]>,
}

impl BoundStatement {
    /// The columns of the rows the statement returns when binding decides them: a query's,
    /// and the RETURNING list of INSERT, UPDATE and DELETE. `None` for the others (SHOW and
    /// EXPLAIN have fixed columns the session supplies).
    pub fn result_columns(&self) -> Option<&Arc<[ColumnInfo]>> {
        match self {
            BoundStatement::Query { columns, .. } => Some(columns),
            BoundStatement::WithWrites { main, .. } => main.result_columns(),
            BoundStatement::Insert { returning, .. }
            | BoundStatement::Update { returning, .. }
            | BoundStatement::Delete { returning, .. } => {
                returning.as_ref().map(|returning| &returning.columns)
            }
            BoundStatement::FunctionCall(call) => Some(&call.columns),
            _ => None,
        }
    }

    /// Whether running the statement only reads tables, so that an equal earlier result
    /// may stand in for it (the result cache). Returning rows does not make a statement
    /// read-only: INSERT ... RETURNING writes each time it runs.
    pub fn is_read_only(&self) -> bool {
        matches!(self, BoundStatement::Query { .. })
    }

    /// Rebuilds the statement with `f` applied to each of its query plans (a query's, an
    /// EXPLAIN's, the source of INSERT and CREATE TABLE AS, the FROM items of UPDATE and
    /// DELETE).
    pub fn try_map_plans(
        self,
        f: &mut dyn FnMut(LogicalPlan) -> crate::error::Result<LogicalPlan>,
    ) -> crate::error::Result<BoundStatement> {
        Ok(match self {
            BoundStatement::Query { plan, columns } => BoundStatement::Query {
                plan: f(plan)?,
                columns,
            },
            BoundStatement::WithWrites { writes, main } => BoundStatement::WithWrites {
                writes: writes
                    .into_iter()
                    .map(|(id, write)| Ok((id, write.try_map_plans(&mut *f)?)))
                    .collect::<crate::error::Result<_>>()?,
                main: Box::new(main.try_map_plans(f)?),
            },
            BoundStatement::Explain { plan, analyze } => BoundStatement::Explain {
                plan: f(plan)?,
                analyze,
            },
            BoundStatement::Copy(mut copy) => {
                if let super::CopyDirection::To { plan, columns } = copy.direction {
                    copy.direction = super::CopyDirection::To {
                        plan: f(plan)?,
                        columns,
                    };
                }
                BoundStatement::Copy(copy)
            }
            BoundStatement::Insert {
                table_name,
                table_oid,
                source,
                returning,
                on_conflict,
                checks,
            } => BoundStatement::Insert {
                table_name,
                table_oid,
                source: f(source)?,
                returning,
                on_conflict,
                checks,
            },
            BoundStatement::Update {
                table_name,
                table_oid,
                source,
                filter,
                assignments,
                returning,
                checks,
            } => BoundStatement::Update {
                table_name,
                table_oid,
                source: source.map(&mut *f).transpose()?,
                filter,
                assignments,
                returning,
                checks,
            },
            BoundStatement::Delete {
                table_name,
                table_oid,
                source,
                filter,
                returning,
            } => BoundStatement::Delete {
                table_name,
                table_oid,
                source: source.map(&mut *f).transpose()?,
                filter,
                returning,
            },
            BoundStatement::CreateTable {
                schema,
                if_not_exists,
                sequences,
                source,
                on_commit,
            } => BoundStatement::CreateTable {
                schema,
                if_not_exists,
                sequences,
                source: source.map(&mut *f).transpose()?,
                on_commit,
            },
            BoundStatement::RefreshMaterializedView { name, oid, source } => {
                BoundStatement::RefreshMaterializedView {
                    name,
                    oid,
                    source: source.map(&mut *f).transpose()?,
                }
            }
            other => other,
        })
    }

    /// The tables whose rows or schema the statement changes, as they were named when it
    /// was bound. Their write locks are taken before it runs, and it is bound again if the
    /// catalog changed meanwhile: PostgreSQL locks a statement's tables before it plans it.
    pub fn tables_written(&self) -> Vec<&QualifiedName> {
        match self {
            BoundStatement::Insert { table_name, .. }
            | BoundStatement::Update { table_name, .. }
            | BoundStatement::Delete { table_name, .. } => vec![table_name],
            BoundStatement::WithWrites { writes, main } => {
                let mut tables: Vec<&QualifiedName> = Vec::new();
                for statement in writes.iter().map(|(_, w)| w).chain([main.as_ref()]) {
                    for table in statement.tables_written() {
                        if !tables.contains(&table) {
                            tables.push(table);
                        }
                    }
                }
                tables
            }
            BoundStatement::CreateIndex(index) => vec![&index.table_name],
            BoundStatement::Copy(copy) => match &copy.direction {
                super::CopyDirection::From { table_name, .. } => vec![table_name],
                super::CopyDirection::To { .. } => Vec::new(),
            },
            BoundStatement::AlterTable {
                alter: Some(alter), ..
            } => vec![&alter.table_name],
            BoundStatement::Truncate { tables, .. } => {
                tables.iter().map(|(name, _)| name).collect()
            }
            BoundStatement::RefreshMaterializedView { name, .. } => vec![name],
            // These lock what they change as they run, and depend on no bound schema.
            BoundStatement::AlterTable { alter: None, .. }
            | BoundStatement::Query { .. }
            | BoundStatement::CreateTable { .. }
            | BoundStatement::CreateSequence { .. }
            | BoundStatement::AlterSequence { .. }
            | BoundStatement::Comment { .. }
            | BoundStatement::DropSequence { .. }
            | BoundStatement::DropTable { .. }
            | BoundStatement::CreateView { .. }
            | BoundStatement::DropView { .. }
            | BoundStatement::ChangeType(_)
            | BoundStatement::ChangeRole(_)
            | BoundStatement::ChangeFunction(_)
            | BoundStatement::ChangeExtension(_)
            | BoundStatement::ChangeForeignData(_)
            | BoundStatement::DropIndex { .. }
            | BoundStatement::CreateSchema { .. }
            | BoundStatement::DropSchema { .. }
            | BoundStatement::RenameSchema { .. }
            | BoundStatement::Maintenance { .. }
            | BoundStatement::Begin { .. }
            | BoundStatement::SetTransaction { .. }
            | BoundStatement::LockTable { .. }
            | BoundStatement::Commit { .. }
            | BoundStatement::Rollback { .. }
            | BoundStatement::Savepoint { .. }
            | BoundStatement::Set(_)
            | BoundStatement::SetConstraints { .. }
            | BoundStatement::Show { .. }
            | BoundStatement::Explain { .. }
            // Each statement of the body locks what it writes when it runs.
            | BoundStatement::FunctionCall(_) => Vec::new(),
        }
    }
}

impl LogicalPlan {
    /// Whether this is VALUES rows of literals only (a plain INSERT's source).
    pub fn is_literal_values(&self) -> bool {
        match self {
            LogicalPlan::Values { rows, .. } => rows
                .iter()
                .flatten()
                .all(|e| matches!(e, ScalarExpr::Literal { .. })),
            _ => false,
        }
    }

    /// The direct inputs.
    pub fn inputs(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::Scan { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::SystemScan { .. }
            | LogicalPlan::FileScan { .. }
            | LogicalPlan::TableFunction { .. }
            | LogicalPlan::WorkTable { .. } => vec![],
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::LockRows { input, .. }
            | LogicalPlan::Distinct { input, .. }
            | LogicalPlan::SharedCte { input, .. }
            | LogicalPlan::Window { input, .. } => vec![input],
            LogicalPlan::SetOperation { left, right, .. }
            | LogicalPlan::Join { left, right, .. }
            | LogicalPlan::LateralJoin { left, right, .. } => vec![left, right],
            LogicalPlan::RecursiveCte {
                base, recursive, ..
            } => vec![base, recursive],
        }
    }

    /// The expressions this node evaluates (not those of its inputs).
    pub fn expressions(&self) -> Vec<&ScalarExpr> {
        match self {
            LogicalPlan::Scan { .. }
            | LogicalPlan::SystemScan { .. }
            | LogicalPlan::FileScan { .. }
            | LogicalPlan::WorkTable { .. }
            | LogicalPlan::Distinct { .. }
            | LogicalPlan::LockRows { .. }
            | LogicalPlan::SharedCte { .. }
            | LogicalPlan::SetOperation { .. }
            | LogicalPlan::RecursiveCte { .. } => vec![],
            LogicalPlan::Values { rows, .. } => rows.iter().flatten().collect(),
            LogicalPlan::TableFunction { calls, .. } => {
                calls.iter().flat_map(|c| &c.args).collect()
            }
            LogicalPlan::Filter { predicate, .. } => vec![predicate],
            LogicalPlan::Project { exprs, .. } => exprs.iter().collect(),
            LogicalPlan::Aggregate {
                group_by,
                aggregates,
                ..
            } => group_by
                .iter()
                .chain(aggregates.iter().flat_map(|a| {
                    a.args
                        .iter()
                        .chain(a.filter.iter())
                        .chain(a.order_by.iter().map(|k| &k.expr))
                }))
                .collect(),
            LogicalPlan::Sort { keys, .. } => keys.iter().map(|k| &k.expr).collect(),
            LogicalPlan::Limit {
                limit,
                offset,
                ties,
                ..
            } => limit
                .iter()
                .chain(offset.iter())
                .chain(ties.iter().map(|k| &k.expr))
                .collect(),
            LogicalPlan::Window { calls, .. } => calls
                .iter()
                .flat_map(|c| {
                    c.args
                        .iter()
                        .chain(c.filter.iter())
                        .chain(c.partition_by.iter())
                        .chain(c.order_by.iter().map(|k| &k.expr))
                })
                .collect(),
            LogicalPlan::Join { condition, .. } | LogicalPlan::LateralJoin { condition, .. } => {
                condition.iter().collect()
            }
        }
    }

    /// Calls `f` on every plan node, including the plans of subqueries in expressions.
    #[recursive::recursive]
    pub fn visit_all(&self, f: &mut dyn FnMut(&LogicalPlan)) {
        f(self);
        for expr in self.expressions() {
            expr.visit(&mut |e| {
                if let ScalarExpr::Subquery(subquery) = e {
                    subquery.plan.visit_all(f);
                }
            });
        }
        for input in self.inputs() {
            input.visit_all(f);
        }
    }

    /// Whether the plan reads a file: its columns were found when it was bound, so it is
    /// bound again rather than cached (the file may have changed since).
    pub fn reads_files(&self) -> bool {
        let mut found = false;
        self.visit_all(&mut |p| found |= matches!(p, LogicalPlan::FileScan { .. }));
        found
    }

    /// The OIDs of the tables the plan reads.
    pub fn tables_read(&self) -> Vec<u32> {
        let mut tables = Vec::new();
        self.visit_all(&mut |p| {
            if let LogicalPlan::Scan { table_oid, .. } = p {
                if !tables.contains(table_oid) {
                    tables.push(*table_oid);
                }
            }
        });
        tables
    }

    /// Whether running the plan twice over the same tables gives the same rows: no volatile
    /// function or sequence anywhere in it, and no system relation (some list sessions or
    /// sequence counters, which no table generation tracks) or file (its data is cached
    /// by the file's identity instead, `files/cache.rs`).
    pub fn is_deterministic(&self) -> bool {
        let mut deterministic = true;
        self.visit_all(&mut |p| {
            if let LogicalPlan::SystemScan { .. } | LogicalPlan::FileScan { .. } = p {
                deterministic = false;
            }
            for expr in p.expressions() {
                expr.visit(&mut |e| match e {
                    ScalarExpr::Function { func, .. } if func.is_volatile() => {
                        deterministic = false
                    }
                    ScalarExpr::DateTimeFunction { func, .. } if func.is_volatile() => {
                        deterministic = false
                    }
                    ScalarExpr::CatalogCall { func, .. } if func.is_catalog_deterministic() => {}
                    ScalarExpr::SequenceCall { .. }
                    | ScalarExpr::SessionInfo(_)
                    | ScalarExpr::CatalogCall { .. } => deterministic = false,
                    _ => {}
                });
            }
        });
        deterministic
    }
}
