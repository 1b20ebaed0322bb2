//! EXPLAIN: the plan as an indented tree, one operator a line, named after the physical
//! operator that runs it; with ANALYZE each line also gets its rows and time.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{JoinKind, LogicalPlan, SetOperator};
use crate::exec::OperatorStats;
use crate::storage::DbState;

/// The lines of EXPLAIN. `stats` are EXPLAIN ANALYZE's per-operator counters in the plan's
/// pre-order (as `physical::create_instrumented` builds them).
pub fn explain_lines(
    plan: &LogicalPlan,
    state: &DbState,
    stats: Option<&[Arc<OperatorStats>]>,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut next_stat = 0;
    let above = Above::default();
    render(plan, state, &above, 0, stats, &mut next_stat, &mut lines);
    lines
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

fn render(
    plan: &LogicalPlan,
    state: &DbState,
    above: &Above,
    depth: usize,
    stats: Option<&[Arc<OperatorStats>]>,
    next_stat: &mut usize,
    lines: &mut Vec<String>,
) {
    let (mut description, mut inputs) = describe(plan);
    if let LogicalPlan::Filter { input, predicate } = plan {
        if let (Some(_), LogicalPlan::Scan { table_name, .. }) = (
            crate::physical::index_lookup(input, predicate, state),
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
    let indent = if depth == 0 {
        String::new()
    } else {
        format!("{}->  ", "      ".repeat(depth - 1))
    };
    let actual = stats.and_then(|s| s.get(*next_stat)).map(|s| {
        let millis = s.nanos.load(Ordering::Relaxed) as f64 / 1e6;
        format!(
            "  (actual rows={} time={millis:.3} ms)",
            s.rows.load(Ordering::Relaxed)
        )
    });
    *next_stat += 1;
    lines.push(format!(
        "{indent}{description}{}",
        actual.unwrap_or_default()
    ));
    // As physical::build_top_n runs them: a Sort under a constant LIMIT (through
    // projections) as a top-N, reading from an hnsw index where one answers its order.
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
        render(input, state, &below, depth + 1, stats, next_stat, lines);
    }
}
