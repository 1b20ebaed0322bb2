//! A helper's own [`ExecContext`]: the statement's parameters, snapshot, cancel flag, join
//! cache, identity, settings and working-memory account are shared; what an operator keeps
//! while it runs (RefCells) is the helper's. The session's time zone and date styles, and
//! the statement's interrupt, are thread-locals, installed on the helper before it runs
//! anything.

use std::sync::Arc;

use crate::exec::ExecContext;
use crate::physical::parallel::Parallelism;
use crate::types::datetime_style::{self, Styles};
use crate::types::timezone::{self, Zone};

/// What a helper's context is made of, taken from the statement's on its own thread.
pub(super) struct WorkerSeed {
    params: Vec<crate::types::ScalarValue>,
    state: Arc<crate::storage::DbState>,
    interrupt: Arc<crate::interrupt::Interrupt>,
    sequences: crate::exec::SharedSessionSequences,
    join_cache: Arc<crate::exec::JoinCache>,
    session: Arc<crate::exec::SessionIdentity>,
    settings: Option<Arc<Vec<crate::exec::SettingRow>>>,
    search_path: Option<Arc<crate::catalog::SearchPath>>,
    clock: crate::function::datetime_functions::StatementClock,
    memory: crate::exec::memory::QueryMemory,
    max_recursive_rounds: u64,
    zone: Arc<Zone>,
    styles: Styles,
}

impl WorkerSeed {
    pub(super) fn of(ctx: &ExecContext) -> WorkerSeed {
        WorkerSeed {
            params: ctx.params.clone(),
            state: ctx.state.clone(),
            interrupt: ctx.interrupt.clone(),
            sequences: ctx.sequences.clone(),
            join_cache: ctx.join_cache.clone(),
            session: ctx.session.clone(),
            settings: ctx.settings.clone(),
            search_path: ctx.search_path.clone(),
            clock: ctx.clock,
            memory: ctx.memory.clone(),
            max_recursive_rounds: ctx.max_recursive_rounds,
            zone: timezone::installed(),
            styles: datetime_style::current(),
        }
    }

    /// A context for the calling helper thread (whose thread-locals it sets).
    pub(super) fn context(&self) -> ExecContext {
        timezone::install(&self.zone);
        datetime_style::install(self.styles);
        crate::interrupt::install(&self.interrupt, self.memory.budget());
        let mut ctx = ExecContext::new(
            self.params.clone(),
            self.state.clone(),
            self.interrupt.clone(),
            self.sequences.clone(),
        );
        ctx.join_cache = self.join_cache.clone();
        ctx.session = self.session.clone();
        ctx.settings = self.settings.clone();
        ctx.search_path = self.search_path.clone();
        ctx.clock = self.clock;
        ctx.memory = self.memory.clone();
        ctx.max_recursive_rounds = self.max_recursive_rounds;
        // A helper runs its pipeline serially: no helper asks the pool for more.
        ctx.parallelism = Parallelism::SERIAL;
        ctx
    }
}
