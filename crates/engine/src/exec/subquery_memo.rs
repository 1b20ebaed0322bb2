//! Reusing a correlated subquery's rows, as PostgreSQL's Memoize node does: outer rows that
//! agree on every value the subquery reads get the rows it returned for the first of them.
//! A subquery the optimizer could not turn into a join (`decorrelate.rs`) otherwise runs
//! once per outer row; with few distinct correlation values this makes it run once per
//! value, which is what keeps nested EXISTS over a join from running for hours.
//!
//! Only a subquery whose result is a function of the values it reads is kept: nothing
//! volatile (random(), sequences, clock_timestamp(), set_config()) anywhere in it, and every value it
//! reads of a type whose key bytes are equal only for identical values (integers,
//! booleans, strings, dates and times): 1.5 and 1.50 are equal numerics that print
//! differently, so a numeric or float correlation value is not a key.
//! (A recursive CTE's work table, which changes from round to round, cannot be read in a
//! subquery: 42P19.)

use std::sync::Arc;

use hashbrown::HashMap;

use super::ExecContext;
use crate::error::Result;
use crate::plan::{LogicalPlan, ScalarExpr, Subquery};
use crate::types::{DataType, PhysicalType};
use crate::vector::{encode_row_key, Batch, Vector};

/// Outer rows remembered per subquery; past this the memo stops growing (the subquery
/// then runs per row as before for new values).
const MAX_ENTRIES: usize = 1 << 16;

/// What a subquery's result depends on besides its own tables.
pub(super) struct MemoKey {
    /// Columns of the outer row it is evaluated for.
    columns: Vec<usize>,
    /// Values of rows further out: (how many rows beyond the outer row, column).
    enclosing: Vec<(usize, usize, DataType)>,
}

impl MemoKey {
    /// The key of `subquery`, or `None` if its result is not a function of it.
    pub(super) fn of(subquery: &Subquery) -> Option<MemoKey> {
        let mut key = MemoKey {
            columns: Vec::new(),
            enclosing: Vec::new(),
        };
        key.collect(&subquery.plan, 0).then_some(key)
    }

    /// Collects the outer values `plan` reads, `level` subqueries deep inside the memoized
    /// one; false if it is volatile or reads a value that cannot be a key.
    fn collect(&mut self, plan: &LogicalPlan, level: usize) -> bool {
        let mut keyable = true;
        for expr in plan.expressions() {
            expr.visit(&mut |e| match e {
                ScalarExpr::OuterColumn { depth, index, ty } if *depth == level + 1 => {
                    keyable &= exact_key(*ty);
                    if !self.columns.contains(index) {
                        self.columns.push(*index);
                    }
                }
                ScalarExpr::OuterColumn { depth, index, ty } if *depth > level + 1 => {
                    keyable &= exact_key(*ty);
                    self.enclosing.push((depth - level - 1, *index, *ty));
                }
                ScalarExpr::Subquery(inner) => keyable &= self.collect(&inner.plan, level + 1),
                // Sequences; and set_config(), advisory locks and the other functions of the
                // catalog, some of which act on the session.
                ScalarExpr::SequenceCall { .. } | ScalarExpr::CatalogCall { .. } => keyable = false,
                ScalarExpr::Function { func, .. } if func.is_volatile() => keyable = false,
                ScalarExpr::DateTimeFunction { func, .. } if func.is_volatile() => keyable = false,
                _ => {}
            });
        }
        match plan {
            // The right side runs with the left row pushed as one more outer row.
            LogicalPlan::LateralJoin { left, right, .. } => {
                keyable && self.collect(left, level) && self.collect(right, level + 1)
            }
            _ => {
                keyable
                    && plan
                        .inputs()
                        .into_iter()
                        .all(|input| self.collect(input, level))
            }
        }
    }

    /// The key bytes of outer row `row` of `batch`, after the enclosing rows' values (which
    /// do not change while one batch is evaluated).
    fn encode(&self, prefix: &[u8], batch: &Batch, row: usize, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(prefix);
        for &column in &self.columns {
            encode_row_key(&[batch.columns[column].as_ref()], row, out);
        }
    }

    /// The key bytes of the enclosing rows' values; `None` if an enclosing row is missing.
    fn prefix(&self, ctx: &ExecContext) -> Result<Option<Vec<u8>>> {
        let outer = ctx.outer_rows.borrow();
        let mut prefix = Vec::new();
        for &(beyond, index, ty) in &self.enclosing {
            let value = outer
                .len()
                .checked_sub(beyond)
                .and_then(|level| outer[level].get(index));
            let Some(value) = value else {
                return Ok(None);
            };
            let vector = Vector::from_scalar(value, ty, 1)?;
            encode_row_key(&[&vector], 0, &mut prefix);
        }
        Ok(Some(prefix))
    }
}

/// Whether equal key bytes of a `ty` value mean identical values.
fn exact_key(ty: DataType) -> bool {
    matches!(
        ty.physical(),
        PhysicalType::Bool
            | PhysicalType::Int16
            | PhysicalType::Int32
            | PhysicalType::Int64
            | PhysicalType::Text
            | PhysicalType::Bytes
            | PhysicalType::Uuid
            | PhysicalType::Date
            | PhysicalType::Time
            | PhysicalType::TimeTz
            | PhysicalType::Timestamp
            | PhysicalType::TimestampTz
    )
}

/// One subquery's plan (kept alive here, so its address names it for the whole statement)
/// and its rows by key.
type KeptRows = (Arc<LogicalPlan>, HashMap<Vec<u8>, Arc<Batch>>);

/// The rows correlated subqueries returned, by key, for one statement.
#[derive(Default)]
pub struct SubqueryMemo {
    /// By the address of the subquery's plan.
    plans: std::cell::RefCell<HashMap<usize, KeptRows>>,
}

/// One batch's use of the memo for one subquery.
pub(super) struct MemoUse<'a> {
    key: MemoKey,
    prefix: Vec<u8>,
    subquery: &'a Subquery,
    scratch: Vec<u8>,
}

impl<'a> MemoUse<'a> {
    /// The memo for `subquery` over a batch evaluated now, if its result can be kept.
    pub(super) fn start(
        subquery: &'a Subquery,
        batch: &Batch,
        ctx: &ExecContext,
    ) -> Result<Option<Self>> {
        let Some(key) = MemoKey::of(subquery) else {
            return Ok(None);
        };
        if key
            .columns
            .iter()
            .any(|&column| column >= batch.columns.len())
        {
            return Ok(None);
        }
        let Some(prefix) = key.prefix(ctx)? else {
            return Ok(None);
        };
        Ok(Some(MemoUse {
            key,
            prefix,
            subquery,
            scratch: Vec::new(),
        }))
    }

    /// The rows kept for outer row `row` of `batch`, if any; sets the key for [`Self::keep`].
    pub(super) fn find(
        &mut self,
        batch: &Batch,
        row: usize,
        ctx: &ExecContext,
    ) -> Option<Arc<Batch>> {
        self.key.encode(&self.prefix, batch, row, &mut self.scratch);
        let plans = ctx.subquery_memo.plans.borrow();
        let (_, rows) = plans.get(&plan_address(self.subquery))?;
        rows.get(&self.scratch).cloned()
    }

    /// Keeps `rows` for the key of the last [`Self::find`], charged to the statement.
    pub(super) fn keep(&self, rows: &Arc<Batch>, ctx: &ExecContext) -> Result<()> {
        let mut plans = ctx.subquery_memo.plans.borrow_mut();
        let (_, kept) = plans
            .entry(plan_address(self.subquery))
            .or_insert_with(|| (self.subquery.plan.clone(), HashMap::new()));
        if kept.len() >= MAX_ENTRIES {
            return Ok(());
        }
        ctx.memory
            .charge(rows.approximate_bytes() + self.scratch.len())?;
        kept.insert(self.scratch.clone(), rows.clone());
        Ok(())
    }
}

fn plan_address(subquery: &Subquery) -> usize {
    Arc::as_ptr(&subquery.plan) as usize
}
