//! Gather: runs a pipeline on the statement's thread and its helpers and returns its
//! batches in exactly the serial order. Each worker runs whole morsels; the helpers send
//! each morsel's batches through a bounded channel, and the gather hands morsels on in
//! number order, keeping those that arrive early. While the next morsel is still being
//! run elsewhere, the statement's thread runs one itself instead of waiting.
//!
//! Whether the pipeline runs in parallel is decided when the gather first runs, from the
//! statement's settings; otherwise it is the serial operators, built beside it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use super::pipeline::{worker_panicked, PipelineCounters, PipelineRun, WorkerStream};
use super::pool::Admission;
use crate::error::{Error, Result, SqlState};
use crate::exec::{BoxedOperator, ExecContext, Operator};
use crate::physical::parallel::parallel_pipeline;
use crate::plan::LogicalPlan;
use crate::vector::Batch;

/// Morsels a gather keeps ahead of the one it hands on before its own thread stops
/// taking more (the helpers are held back by the channel's bound).
const MORSELS_AHEAD_MAX: usize = 16;

type MorselOutput = (u64, Result<Vec<Batch>>);

pub struct GatherExec {
    plan: Arc<LogicalPlan>,
    /// The pipeline's operators as they run serially.
    serial: BoxedOperator,
    stats: Option<PipelineCounters>,
    run: Run,
}

enum Run {
    NotStarted,
    Serial,
    Parallel(Box<Gathering>),
    Done,
}

struct Gathering {
    run: Arc<PipelineRun>,
    receiver: Receiver<MorselOutput>,
    early: BTreeMap<u64, Result<Vec<Batch>>>,
    ready: VecDeque<Batch>,
    next_morsel: u64,
    /// The statement's place in the pool, held while it gathers.
    _admission: Admission,
}

impl GatherExec {
    pub fn new(
        plan: LogicalPlan,
        serial: BoxedOperator,
        stats: Option<PipelineCounters>,
    ) -> GatherExec {
        GatherExec {
            plan: Arc::new(plan),
            serial,
            stats,
            run: Run::NotStarted,
        }
    }

    fn start(&mut self, ctx: &ExecContext) -> Result<()> {
        if parallel_pipeline(&self.plan, &ctx.state, &ctx.parallelism).is_none() {
            self.run = Run::Serial;
            return Ok(());
        }
        let pipeline_stats = self.stats.as_ref().map(|(_, s)| s.clone());
        let run = Arc::new(PipelineRun::start(ctx, self.plan.clone(), pipeline_stats)?);
        let mut admission = Admission::request(ctx.parallelism.workers.saturating_sub(1));
        let helpers = admission.helpers();
        if let Some((gather, _)) = &self.stats {
            gather.workers.fetch_add(helpers as u64, Ordering::Relaxed);
        }
        let (sender, receiver) = sync_channel::<MorselOutput>(2 * helpers);
        for _ in 0..helpers {
            let (run, sender) = (run.clone(), sender.clone());
            admission.spawn(move || {
                let worker = run.seed.context();
                while let Some(morsel) = run.dispenser.take() {
                    let output = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        WorkerStream::new(&run, &worker).run_morsel(morsel)
                    }))
                    .unwrap_or_else(|_| Err(worker_panicked()));
                    run.count_helper_rows(&worker);
                    if sender.send((morsel, output)).is_err() {
                        run.dispenser.stop();
                        return;
                    }
                }
            });
        }
        self.run = Run::Parallel(Box::new(Gathering {
            run,
            receiver,
            early: BTreeMap::new(),
            ready: VecDeque::new(),
            next_morsel: 0,
            _admission: admission,
        }));
        Ok(())
    }
}

impl Gathering {
    /// The next batch in serial order; None once every morsel was handed on.
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            if let Some(output) = self.early.remove(&self.next_morsel) {
                self.next_morsel += 1;
                self.ready.extend(output?);
                continue;
            }
            if self.next_morsel >= self.run.dispenser.morsel_count() {
                self.run.add_helper_rows_to(ctx);
                return Ok(None);
            }
            if let Ok((morsel, output)) = self.receiver.try_recv() {
                self.early.insert(morsel, output);
                continue;
            }
            if self.early.len() < MORSELS_AHEAD_MAX {
                if let Some(morsel) = self.run.dispenser.take() {
                    let output = WorkerStream::new(&self.run, ctx).run_morsel(morsel);
                    self.early.insert(morsel, output);
                    continue;
                }
            }
            ctx.check_cancelled()?;
            match self.receiver.recv() {
                Ok((morsel, output)) => {
                    self.early.insert(morsel, output);
                }
                // Every helper is gone, and the morsel it had with it.
                Err(_) if self.early.contains_key(&self.next_morsel) => {}
                Err(_) => return Err(worker_panicked()),
            }
        }
    }
}

impl Drop for Gathering {
    fn drop(&mut self) {
        // A consumer that stopped early (LIMIT) or failed: the helpers stop at their next
        // morsel, or when they find the channel closed.
        self.run.dispenser.stop();
    }
}

impl Operator for GatherExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Run::NotStarted = self.run {
            self.start(ctx)?;
        }
        match &mut self.run {
            Run::Serial => self.serial.next(ctx),
            Run::Parallel(gathering) => {
                let next = gathering.next(ctx);
                if !matches!(next, Ok(Some(_))) {
                    self.run = Run::Done;
                }
                next
            }
            Run::Done => Ok(None),
            Run::NotStarted => Err(Error::new(
                SqlState::InternalError,
                "a gather ran before it started",
            )),
        }
    }
}
