//! Vectorized operators. Each pulls batches from its input and returns batches of at most
//! `BATCH_SIZE` rows; the plan is immutable and each operator keeps its own run state.

mod aggregate;
mod aggregate_parallel;
pub mod alter_table;
mod check;
pub mod comment;
mod composite_type;
pub mod copy_from;
pub mod copy_from_binary;
pub mod copy_to;
pub mod ddl;
mod distinct;
mod dml_join;
pub mod domain;
mod drop_dependents;
pub mod enum_type;
pub mod expression;
pub mod extension;
mod file_scan;
mod filter;
pub mod foreign_key;
pub mod foreign_server;
mod generate_series;
mod group_keys;
mod hash_join;
mod in_list;
pub mod index;
mod index_lookup;
mod instrumented;
mod join;
mod join_cache;
mod lateral_join;
mod limit;
mod lock_rows;
mod lockstep;
pub mod memory;
pub mod modify;
mod nearest;
mod nested_loop_join;
pub mod on_conflict;
mod ordinality;
pub mod parallel;
mod partition;
mod partitioned_rows;
pub mod privilege;
mod project;
mod recursive_cte;
pub mod refresh;
pub mod role;
mod scan;
pub mod schema;
mod sequence;
mod session_info;
mod set_operation;
mod shared_cte;
mod sort;
mod sort_key;
mod sorted_runs;
pub mod sql_function;
mod subquery;
mod subquery_memo;
mod system_scan;
mod top_n;
pub mod truncate;
mod type_dependents;
mod unnest;
pub mod vacuum;
mod values;
pub mod view;
mod window;
mod window_frame;
mod window_sliding;
mod worker_input;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

pub use aggregate::{AggregateExec, AggregateSpec};
pub use aggregate_parallel::{distinct_spec, ParallelInput};
pub use distinct::DistinctExec;
pub use file_scan::FileScanExec;
pub use filter::FilterExec;
pub use generate_series::GenerateSeriesExec;
pub use hash_join::{HashJoinExec, HashJoinSpec, SharedBuild};
pub use in_list::{ConstantSet, InListSets};
pub use index_lookup::{IndexAccess, IndexLookupExec, KeyProbe};
pub use instrumented::{InstrumentedExec, OperatorStats};
pub use join_cache::JoinCache;
pub use lateral_join::LateralJoinExec;
pub use limit::LimitExec;
pub use lock_rows::{LockRowsExec, RowLocker};
pub use lockstep::LockstepExec;
pub use nearest::NearestProbe;
pub use nested_loop_join::NestedLoopJoinExec;
pub use ordinality::OrdinalityExec;
pub use project::ProjectExec;
pub use recursive_cte::{RecursiveCteExec, WorkTableExec};
pub use scan::ScanExec;
pub use sequence::{SessionSequences, SharedSessionSequences};
pub use session_info::{
    CursorRow, ListedSetting, PreparedStatementRow, SessionIdentity, SettingChange, SettingRow,
};
pub use set_operation::SetOperationExec;
pub use shared_cte::SharedCteExec;
pub use sort::SortExec;
pub use system_scan::SystemScanExec;
pub use top_n::TopNExec;
pub use unnest::UnnestExec;
pub use values::ValuesExec;
pub use window::WindowExec;
pub use worker_input::WorkerInput;

use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::storage::DbState;
use crate::types::ScalarValue;
use crate::vector::Batch;

/// What a running statement needs besides its plan.
pub struct ExecContext {
    pub params: Vec<ScalarValue>,
    /// The database version the statement reads.
    pub state: Arc<DbState>,
    /// Cancel and statement_timeout, looked at once per batch.
    pub interrupt: Arc<Interrupt>,
    /// The rows of enclosing queries while a correlated subquery runs, innermost last.
    pub outer_rows: RefCell<Vec<Vec<ScalarValue>>>,
    /// Results of uncorrelated subqueries, by subquery id.
    pub subquery_results: RefCell<HashMap<usize, Arc<Batch>>>,
    /// Results of correlated subqueries, by the outer values they read.
    pub subquery_memo: subquery_memo::SubqueryMemo,
    /// The session's currval / lastval memory.
    pub sequences: SharedSessionSequences,
    /// The rows of each running recursive CTE's current round, by CTE id.
    pub work_tables: RefCell<HashMap<usize, Arc<Vec<Batch>>>>,
    /// `kestrel.max_recursive_iterations`: a runaway WITH RECURSIVE errors instead of hanging.
    pub max_recursive_rounds: u64,
    /// Hash join build sides kept across queries (the database's, or a private one).
    pub join_cache: Arc<JoinCache>,
    /// Rows of WITH queries already computed in this statement, by CTE id.
    pub shared_ctes: RefCell<HashMap<usize, Arc<Vec<Batch>>>>,
    /// Who the statement runs for (current_user, current_database(), ...).
    pub session: Arc<SessionIdentity>,
    /// The session's settings (pg_settings, current_setting()); `None` outside a session.
    pub settings: Option<Arc<Vec<SettingRow>>>,
    /// The session's search path (pg_table_is_visible); `None` outside a session.
    pub search_path: Option<Arc<crate::catalog::SearchPath>>,
    /// The settings the statement changed through set_config(), in call order.
    pub setting_changes: RefCell<Vec<SettingChange>>,
    /// What now() and statement_timestamp() return.
    pub clock: crate::function::datetime_functions::StatementClock,
    /// Rows the statement's leaves produced (scans, index lookups, table functions, VALUES,
    /// recursive work tables): how much work its result stands for, which decides whether
    /// the result cache keeps it.
    pub rows_read: std::cell::Cell<u64>,
    /// The hash sets of constant IN lists built so far in this execution.
    pub in_list_sets: InListSets,
    /// The transaction's row locks, for a statement with FOR UPDATE / SHARE.
    pub row_locker: Option<RowLocker>,
    /// The session's advisory locks; `None` outside a session.
    pub advisory: Option<Arc<crate::storage::AdvisoryLocks>>,
    /// The statement's working memory, charged by the operators that keep batches.
    pub memory: memory::QueryMemory,
    /// The session's cursors, for pg_cursors.
    pub cursors: Vec<CursorRow>,
    /// The session's named prepared statements, for pg_prepared_statements.
    pub prepared_statements: Arc<[PreparedStatementRow]>,
    /// How many workers the statement's pipelines may run on (see `exec/parallel`).
    pub parallelism: crate::physical::parallel::Parallelism,
}

impl ExecContext {
    pub fn new(
        params: Vec<ScalarValue>,
        state: Arc<DbState>,
        interrupt: Arc<Interrupt>,
        sequences: SharedSessionSequences,
    ) -> ExecContext {
        ExecContext {
            params,
            state,
            interrupt,
            sequences,
            work_tables: RefCell::new(HashMap::new()),
            max_recursive_rounds: 1_000_000,
            join_cache: Arc::default(),
            shared_ctes: RefCell::new(HashMap::new()),
            session: SessionIdentity::shared_default(),
            settings: None,
            search_path: None,
            setting_changes: RefCell::default(),
            outer_rows: RefCell::new(Vec::new()),
            subquery_results: RefCell::new(HashMap::new()),
            subquery_memo: subquery_memo::SubqueryMemo::default(),
            clock: crate::function::datetime_functions::StatementClock::starting_now(),
            rows_read: std::cell::Cell::new(0),
            in_list_sets: InListSets::default(),
            row_locker: None,
            advisory: None,
            memory: memory::QueryMemory::unlimited(),
            cursors: Vec::new(),
            prepared_statements: Arc::from([]),
            parallelism: crate::physical::parallel::Parallelism::SERIAL,
        }
    }

    /// Counts rows a leaf operator produced (see `rows_read`), and passes its batch on.
    pub fn read_rows(&self, batch: Option<Batch>) -> Option<Batch> {
        if let Some(batch) = &batch {
            self.rows_read
                .set(self.rows_read.get() + batch.len() as u64);
        }
        batch
    }

    /// 57014 once the statement was cancelled (CancelRequest) or timed out.
    #[inline]
    pub fn check_cancelled(&self) -> Result<()> {
        self.interrupt.check()
    }
}

/// A running operator.
pub trait Operator {
    /// The next batch, or `None` when the input is exhausted.
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>>;
}

pub type BoxedOperator = Box<dyn Operator>;

/// Runs an operator to the end, keeping the non-empty batches.
pub fn collect(op: &mut dyn Operator, ctx: &ExecContext) -> Result<Vec<Batch>> {
    collect_into(op, ctx, false)
}

/// [`collect`] for batches kept for the rest of the statement (a result, a sort's or a
/// window's input, a hash table's build side, CTE rows, a subquery's rows): each is charged
/// to its working memory as it arrives, so a result of any size fails with 53200 instead
/// of exhausting the server. (A correlated subquery gives its rows back after each outer
/// row.)
pub fn materialize(op: &mut dyn Operator, ctx: &ExecContext) -> Result<Vec<Batch>> {
    collect_into(op, ctx, true)
}

fn collect_into(op: &mut dyn Operator, ctx: &ExecContext, charged: bool) -> Result<Vec<Batch>> {
    let mut batches = Vec::new();
    while let Some(batch) = op.next(ctx)? {
        if !batch.is_empty() {
            if charged {
                ctx.memory.charge(batch.approximate_bytes())?;
            }
            batches.push(batch);
        }
    }
    Ok(batches)
}
