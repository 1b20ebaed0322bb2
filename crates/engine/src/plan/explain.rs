//! EXPLAIN: the plan as an indented tree, one operator a line, named after the physical
//! operator that runs it; with ANALYZE each line also gets its rows and time.

use super::{JoinKind, LogicalPlan, SetOperator};
use crate::physical::parallel::{
    is_gather_point, parallel_aggregate_input, parallel_pipeline, ForceParallel, Parallelism,
};
use crate::storage::DbState;

/// One operator's EXPLAIN ANALYZE counters once the plan has run, as the caller read them
/// from the executor's.
#[derive(Debug, Clone, Copy, Default)]
pub struct OperatorActuals {
    pub rows: u64,
    /// Time in the operator and its inputs, summed over the workers that ran it.
    pub nanos: u64,
    /// Helpers a parallel operator was given ("workers launched").
    pub workers: u64,
}

/// The lines of EXPLAIN. `stats` are EXPLAIN ANALYZE's per-operator counters in the plan's
/// pre-order (as `physical::create_instrumented` builds them); `parallelism` the session's,
/// which decides where a Gather runs its pipeline in parallel.
pub fn explain_lines(
    plan: &LogicalPlan,
    state: &DbState,
    parallelism: &Parallelism,
    stats: Option<&[OperatorActuals]>,
) -> Vec<String> {
    let mut render = Render {
        state,
        parallelism,
        stats,
        next_stat: 0,
        in_pipeline: false,
        lines: Vec::new(),
    };
    render.node(plan, &Above::default(), 0);
    render.lines
}

/// Walks the plan as `physical` lowers it, taking the counters in the same order.
struct Render<'a> {
    state: &'a DbState,
    parallelism: &'a Parallelism,
    stats: Option<&'a [OperatorActuals]>,
    next_stat: usize,
    in_pipeline: bool,
    lines: Vec<String>,
}

/// What the nodes above a node decided about it.
#[derive(Default)]
struct Above {
    /// A constant LIMIT reaches it through projections: a Sort runs as a top-N of these rows.
    limit_rows: Option<usize>,
    /// A top-N above reads through this hnsw index, which replaces the scan below.
    nearest_index: Option<String>,
}

fn join_kind(kind: JoinKind) -> &'static str {
    match kind {
        JoinKind::Inner => "Inner",
        JoinKind::Left => "Left",
        JoinKind::Right => "Right",
        JoinKind::Full => "Full",
    }
}

/// The line describing `plan`'s top operator, and its inputs in the order they are built.
fn describe(plan: &LogicalPlan) -> (String, Vec<&LogicalPlan>) {
    match plan {
        LogicalPlan::Scan {
            table_name,
            columns,
            ..
        } => (
            format!("Seq Scan on {table_name} ({} columns)", columns.len()),
            vec![],
        ),
        LogicalPlan::Values { rows, types } if types.is_empty() && rows.len() == 1 => {
            ("Result".into(), vec![])
        }
        LogicalPlan::Values { rows, .. } => (format!("Values ({} rows)", rows.len()), vec![]),
        LogicalPlan::SystemScan { relation, .. } => (
            format!("System Scan on {}", relation.qualified_name()),
            vec![],
        ),
        LogicalPlan::TableFunction { calls, .. } => {
            let funcs: Vec<String> = calls.iter().map(|c| format!("{:?}", c.func)).collect();
            (format!("Function Scan on {}", funcs.join(", ")), vec![])
        }
        LogicalPlan::WorkTable { .. } => ("WorkTable Scan".into(), vec![]),
        LogicalPlan::FileScan {
            source, columns, ..
        } => (
            format!(
                "File Scan on {} ({} columns)",
                source.paths.join(", "),
                columns.len()
            ),
            vec![],
        ),
        LogicalPlan::Filter { input, .. } => ("Filter".into(), vec![input]),
        LogicalPlan::Project { input, exprs } => {
            (format!("Project ({} columns)", exprs.len()), vec![input])
        }
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls: _,
        } => {
            let names: Vec<&str> = aggregates.iter().map(|a| a.func.name()).collect();
            let line = if !grouping_sets.is_empty() {
                format!(
                    "MixedAggregate (keys: {}; sets: {}; {})",
                    group_by.len(),
                    grouping_sets.len(),
                    names.join(", ")
                )
            } else if group_by.is_empty() {
                format!("Aggregate ({})", names.join(", "))
            } else {
                format!(
                    "HashAggregate (keys: {}; {})",
                    group_by.len(),
                    names.join(", ")
                )
            };
            (line, vec![input])
        }
        LogicalPlan::Sort { input, keys } => (format!("Sort (keys: {})", keys.len()), vec![input]),
        LogicalPlan::LockRows { input, .. } => ("LockRows".into(), vec![input]),
        LogicalPlan::Limit { input, ties, .. } if ties.is_empty() => ("Limit".into(), vec![input]),
        LogicalPlan::Limit { input, .. } => ("Limit (with ties)".into(), vec![input]),
        LogicalPlan::Distinct { input, on } if on.is_empty() => {
            ("HashDistinct".into(), vec![input])
        }
        LogicalPlan::Distinct { input, on } => (
            format!("Unique (DISTINCT ON {} columns)", on.len()),
            vec![input],
        ),
        LogicalPlan::SharedCte { .. } => ("CTE Scan".into(), vec![]),
        LogicalPlan::LateralJoin { left, kind, .. } => (
            format!("Nested Loop {} Join Lateral", join_kind(*kind)),
            vec![left],
        ),
        LogicalPlan::Window { input, calls, .. } => (
            format!("WindowAgg ({} functions)", calls.len()),
            vec![input],
        ),
        LogicalPlan::SetOperation {
            left,
            right,
            op,
            all,
        } => {
            let name = match op {
                SetOperator::Union => "Union",
                SetOperator::Intersect => "Intersect",
                SetOperator::Except => "Except",
            };
            let all = if *all { " All" } else { "" };
            (format!("HashSetOp {name}{all}"), vec![left, right])
        }
        LogicalPlan::RecursiveCte { all, .. } => {
            let all = if *all { " All" } else { "" };
            (format!("Recursive Union{all}"), vec![])
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => {
            let width = left.output_types().len();
            let keys = crate::physical::join_key_count(condition.clone(), width);
            let line = if keys > 0 {
                format!("Hash {} Join (keys: {keys})", join_kind(*kind))
            } else {
                format!("Nested Loop {} Join", join_kind(*kind))
            };
            (line, vec![left, right])
        }
    }
}

impl<'a> Render<'a> {
    /// The next operator's counters as EXPLAIN ANALYZE shows them.
    fn take_stats(&mut self) -> Option<&'a OperatorActuals> {
        let stats = self.stats.and_then(|s| s.get(self.next_stat));
        self.next_stat += 1;
        stats
    }

    fn push(&mut self, depth: usize, description: &str, stats: Option<&OperatorActuals>) {
        let indent = if depth == 0 {
            String::new()
        } else {
            format!("{}->  ", "      ".repeat(depth - 1))
        };
        let actual = stats.map(|s| {
            let millis = s.nanos as f64 / 1e6;
            format!("  (actual rows={} time={millis:.3} ms)", s.rows)
        });
        self.lines.push(format!(
            "{indent}{description}{}",
            actual.unwrap_or_default()
        ));
    }

    fn node(&mut self, plan: &LogicalPlan, above: &Above, mut depth: usize) {
        // Under a top-N read through an hnsw index nothing is gathered (physical::build_nearest).
        if !self.in_pipeline && above.nearest_index.is_none() && is_gather_point(plan, self.state) {
            // The Gather's counters come first, as physical::gather builds them.
            let stats = self.take_stats().map(|s| (s, s.workers));
            let planned = parallel_pipeline(plan, self.state, self.parallelism)
                .map(|_| self.parallelism.workers - 1);
            if let (Some(planned), false) =
                (planned, self.parallelism.forced == ForceParallel::Regress)
            {
                let launched = stats
                    .map(|(_, workers)| format!(", launched: {workers}"))
                    .unwrap_or_default();
                let line = format!("Gather (workers planned: {planned}{launched})");
                self.push(depth, &line, stats.map(|(s, _)| s));
                depth += 1;
            }
            self.in_pipeline = true;
            self.node(plan, above, depth);
            self.in_pipeline = false;
            return;
        }
        let (mut description, mut inputs) = describe(plan);
        if let LogicalPlan::Filter { input, predicate } = plan {
            if let (Some(_), LogicalPlan::Scan { table_name, .. }) = (
                crate::physical::index_lookup(input, predicate, self.state),
                input.as_ref(),
            ) {
                description = format!("Index Lookup on {table_name}");
                inputs.clear();
            }
        }
        if let (
            LogicalPlan::Scan {
                table_name,
                columns,
                ..
            },
            Some(index),
        ) = (plan, &above.nearest_index)
        {
            description = format!(
                "Index Scan using {index} on {table_name} ({} columns)",
                columns.len()
            );
        }
        if matches!(plan, LogicalPlan::Sort { .. }) && above.limit_rows.is_some() {
            description = format!("Top-N {description}");
        }
        // An aggregate that can run on the workers reads its pipeline without a Gather, as
        // physical/ lowers it; it says when it will.
        let parallel_input = parallel_aggregate_input(plan, self.state);
        let stats = self.take_stats();
        if let Some(input) = parallel_input {
            if parallel_pipeline(input, self.state, self.parallelism).is_some()
                && self.parallelism.forced != ForceParallel::Regress
            {
                let planned = self.parallelism.workers - 1;
                let launched = stats
                    .map(|s| format!(", launched: {}", s.workers))
                    .unwrap_or_default();
                description =
                    format!("Parallel {description} (workers planned: {planned}{launched})");
            }
        }
        self.push(depth, &description, stats);
        let in_pipeline = self.in_pipeline;
        self.in_pipeline |= parallel_input.is_some();
        // As physical::build_top_n runs them: a Sort under a constant LIMIT (through
        // projections) as a top-N, reading from an hnsw index where one answers its order.
        let state = self.state;
        let below = match plan {
            LogicalPlan::Limit {
                limit,
                offset,
                ties,
                ..
            } => Above {
                limit_rows: crate::physical::top_n_rows(limit, offset).filter(|_| ties.is_empty()),
                nearest_index: None,
            },
            LogicalPlan::Project { .. } => Above {
                limit_rows: above.limit_rows,
                nearest_index: above.nearest_index.clone(),
            },
            LogicalPlan::Sort { input, keys } => Above {
                limit_rows: None,
                nearest_index: above.limit_rows.and_then(|k| {
                    crate::physical::nearest_probe(input, keys, k, state).map(|(_, name)| name)
                }),
            },
            LogicalPlan::Filter { .. } => Above {
                limit_rows: None,
                nearest_index: above.nearest_index.clone(),
            },
            _ => Above::default(),
        };
        for input in inputs {
            self.node(input, &below, depth + 1);
        }
        self.in_pipeline = in_pipeline;
    }
}
