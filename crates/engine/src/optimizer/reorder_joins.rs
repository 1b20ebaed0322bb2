//! Orders each tree of inner (and cross) joins by estimated size instead of by the order the
//! query wrote its tables in. The tree is flattened into a join graph — its inputs, and the
//! conjuncts of every join condition over one numbering of all their columns — and rebuilt
//! greedily: at each step the two parts whose join is estimated smallest are joined, choosing
//! only among parts a condition connects while any are, so no cross product appears where an
//! edge exists. The larger part of each join is its left (probe) input. A projection on top
//! restores the written column order. Outer and lateral joins are inputs of a graph, never
//! reordered across; a tree with a volatile or subquery condition keeps its shape.

use super::cardinality::{estimate_rows, FILTER_SELECTIVITY};
use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::{CompareOp, JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::types::DataType;

pub struct ReorderJoins;

impl Rule for ReorderJoins {
    fn name(&self) -> &'static str {
        "reorder_joins"
    }

    fn apply(&self, plan: LogicalPlan, state: &DbState) -> Result<LogicalPlan> {
        reorder(plan, state)
    }
}

/// Graphs with more inputs keep their written order: input sets are bit masks.
const INPUTS_MAX: usize = 64;

fn reorder(plan: LogicalPlan, state: &DbState) -> Result<LogicalPlan> {
    if !is_reorderable(&plan) {
        return map_inputs(plan, &mut |p| reorder(p, state));
    }
    let mut graph = JoinGraph::default();
    graph.collect(plan, state)?;
    Ok(graph.build())
}

/// An inner join tree of at least three inputs whose conditions may move between joins.
fn is_reorderable(plan: &LogicalPlan) -> bool {
    fn walk(plan: &LogicalPlan, inputs: &mut usize) -> bool {
        match plan {
            LogicalPlan::Join {
                left,
                right,
                kind: JoinKind::Inner,
                condition,
            } => {
                condition.as_ref().is_none_or(|c| !c.is_volatile())
                    && walk(left, inputs)
                    && walk(right, inputs)
            }
            _ => {
                *inputs += 1;
                true
            }
        }
    }
    let mut inputs = 0;
    matches!(
        plan,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        }
    ) && walk(plan, &mut inputs)
        && (3..=INPUTS_MAX).contains(&inputs)
}

/// A joined subset of the graph's inputs.
struct Part {
    plan: LogicalPlan,
    /// The graph inputs it covers, one bit each.
    inputs: u64,
    /// Its output columns, as graph column numbers.
    columns: Vec<usize>,
    rows: f64,
}

#[derive(Default)]
struct JoinGraph {
    parts: Vec<Part>,
    /// Per input: its rows before its filters, standing in for the number of distinct
    /// values of its join keys (a key is assumed unique on the smaller side of an edge).
    base_rows: Vec<f64>,
    /// Per graph column: the input it comes from, and its type.
    column_input: Vec<usize>,
    types: Vec<DataType>,
    /// Condition conjuncts over graph columns.
    conjuncts: Vec<ScalarExpr>,
}

impl JoinGraph {
    fn collect(&mut self, plan: LogicalPlan, state: &DbState) -> Result<()> {
        match plan {
            LogicalPlan::Join {
                left,
                right,
                kind: JoinKind::Inner,
                condition,
            } => {
                let offset = self.types.len();
                self.collect(*left, state)?;
                self.collect(*right, state)?;
                let conjuncts = condition.map(ScalarExpr::into_conjuncts);
                for conjunct in conjuncts.unwrap_or_default() {
                    self.conjuncts
                        .push(conjunct.map_columns(&|index| index + offset));
                }
            }
            other => {
                let plan = reorder(other, state)?;
                let input = self.parts.len();
                let first = self.types.len();
                self.types.extend(plan.output_types());
                self.column_input.resize(self.types.len(), input);
                self.base_rows
                    .push(estimate_rows(unfiltered(&plan), state).max(1.0));
                self.parts.push(Part {
                    rows: estimate_rows(&plan, state).max(1.0),
                    inputs: 1 << input,
                    columns: (first..self.types.len()).collect(),
                    plan,
                });
            }
        }
        Ok(())
    }

    /// The inputs whose columns `expr` reads.
    fn inputs_read(&self, expr: &ScalarExpr) -> u64 {
        let mut inputs = 0;
        expr.visit(&mut |e| {
            if let ScalarExpr::Column { index, .. } = e {
                inputs |= 1 << self.column_input[*index];
            }
        });
        inputs
    }

    fn build(mut self) -> LogicalPlan {
        let mut conjuncts: Vec<(ScalarExpr, u64)> = std::mem::take(&mut self.conjuncts)
            .into_iter()
            .map(|c| {
                let inputs = self.inputs_read(&c);
                (c, inputs)
            })
            .collect();
        while self.parts.len() > 1 {
            let (a, b) = self.cheapest_pair(&conjuncts);
            // b > a: removing b first leaves a's position alone.
            let second = self.parts.swap_remove(b);
            let first = self.parts.swap_remove(a);
            let joined = self.join(first, second, &mut conjuncts);
            self.parts.push(joined);
        }
        let part = self
            .parts
            .pop()
            .expect("invariant: a join graph has at least three inputs");
        if part.columns.iter().enumerate().all(|(i, c)| i == *c) {
            return part.plan;
        }
        let positions = positions(&part.columns);
        let exprs = self
            .types
            .iter()
            .enumerate()
            .map(|(column, ty)| ScalarExpr::Column {
                index: positions[column],
                ty: *ty,
            })
            .collect();
        LogicalPlan::Project {
            input: Box::new(part.plan),
            exprs,
        }
    }

    /// The pair of parts to join next: connected by a condition if any pair is, then the
    /// smallest estimated result, then the smallest side to build.
    fn cheapest_pair(&self, conjuncts: &[(ScalarExpr, u64)]) -> (usize, usize) {
        let mut best = (0, 1);
        let mut best_key = (true, f64::INFINITY, f64::INFINITY);
        for a in 0..self.parts.len() {
            for b in a + 1..self.parts.len() {
                let (connected, rows) =
                    self.estimate_join(&self.parts[a], &self.parts[b], conjuncts);
                let build = self.parts[a].rows.min(self.parts[b].rows);
                let key = (!connected, rows, build);
                if key.partial_cmp(&best_key) == Some(std::cmp::Ordering::Less) {
                    best = (a, b);
                    best_key = key;
                }
            }
        }
        best
    }

    /// Whether a conjunct links `a` and `b`, and the estimated rows of their join: the
    /// product, divided by the key's distinct count along the most selective equality.
    fn estimate_join(&self, a: &Part, b: &Part, conjuncts: &[(ScalarExpr, u64)]) -> (bool, f64) {
        let both = a.inputs | b.inputs;
        let mut connected = false;
        let mut divisor: f64 = 1.0;
        for (conjunct, inputs) in conjuncts {
            let links = inputs & a.inputs != 0 && inputs & b.inputs != 0 && inputs & !both == 0;
            if !links {
                continue;
            }
            connected = true;
            if let ScalarExpr::Compare {
                op: CompareOp::Eq,
                left,
                right,
            } = conjunct
            {
                let (l, r) = (self.inputs_read(left), self.inputs_read(right));
                if l != 0 && r != 0 && l & r == 0 {
                    divisor = divisor.max(self.key_rows(l).min(self.key_rows(r)));
                }
            }
        }
        let mut rows = a.rows * b.rows / divisor;
        if connected && divisor == 1.0 {
            rows *= FILTER_SELECTIVITY;
        }
        (connected, rows.max(1.0))
    }

    /// The distinct values assumed for a key over `inputs`.
    fn key_rows(&self, inputs: u64) -> f64 {
        (0..self.base_rows.len())
            .filter(|i| inputs & (1 << i) != 0)
            .map(|i| self.base_rows[i])
            .fold(1.0, f64::max)
    }

    /// Joins two parts under every remaining conjunct they cover, the larger part probing.
    fn join(&self, a: Part, b: Part, conjuncts: &mut Vec<(ScalarExpr, u64)>) -> Part {
        let (_, rows) = self.estimate_join(&a, &b, conjuncts);
        let (left, right) = if a.rows >= b.rows { (a, b) } else { (b, a) };
        let inputs = left.inputs | right.inputs;
        let mut columns = left.columns;
        columns.extend(right.columns);
        let positions = positions_in(&columns, self.types.len());
        let (applied, rest): (Vec<_>, Vec<_>) = std::mem::take(conjuncts)
            .into_iter()
            .partition(|(_, read)| read & !inputs == 0);
        *conjuncts = rest;
        let condition = ScalarExpr::conjunction(
            applied
                .into_iter()
                .map(|(c, _)| c.map_columns(&|column| positions[column]))
                .collect(),
        );
        Part {
            plan: LogicalPlan::Join {
                left: Box::new(left.plan),
                right: Box::new(right.plan),
                kind: JoinKind::Inner,
                condition,
            },
            inputs,
            columns,
            rows,
        }
    }
}

/// The position of each graph column in `columns`, which holds every graph column.
fn positions(columns: &[usize]) -> Vec<usize> {
    positions_in(columns, columns.len())
}

/// The position of each graph column (of `width`) in `columns`; absent ones map past the end.
fn positions_in(columns: &[usize], width: usize) -> Vec<usize> {
    let mut positions = vec![usize::MAX; width];
    for (position, column) in columns.iter().enumerate() {
        positions[*column] = position;
    }
    positions
}

/// `plan` without the filters on top of it.
fn unfiltered(mut plan: &LogicalPlan) -> &LogicalPlan {
    while let LogicalPlan::Filter { input, .. } = plan {
        plan = input;
    }
    plan
}
