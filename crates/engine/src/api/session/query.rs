//! Statements that return rows without writing: queries (and whether the result cache keeps
//! their result), EXPLAIN [ANALYZE] and SHOW.

use std::sync::Arc;

use super::Session;
use crate::api::query_cache::CacheKey;
use crate::api::{ColumnInfo, StatementResult};
use crate::error::Result;
use crate::exec::{collect, materialize, ExecContext};
use crate::physical::create_operator;
use crate::plan::LogicalPlan;
use crate::types::DataType;
use crate::vector::{Batch, StringVec, Vector, VectorData};

/// One text column named `name`: the result columns of SHOW and EXPLAIN.
fn text_column(name: &str) -> Arc<[ColumnInfo]> {
    Arc::from(vec![ColumnInfo {
        name: name.to_string(),
        data_type: DataType::Text,
        table_oid: 0,
        column_attnum: 0,
        presented_from: None,
    }])
}

/// EXPLAIN's result column.
pub(super) fn explain_columns() -> Arc<[ColumnInfo]> {
    text_column("QUERY PLAN")
}

/// A one-column text result.
fn text_result(columns: Arc<[ColumnInfo]>, lines: &[String], tag: &str) -> StatementResult {
    let mut text = StringVec::default();
    for line in lines {
        text.push(line);
    }
    let vector = Vector::new(VectorData::Text(text), None);
    let batches = vec![Batch::new(vec![Arc::new(vector)], lines.len())];
    StatementResult::rows(columns, batches, tag)
}

impl Session {
    /// Runs a query; its result is kept in the result cache when the statement has a cache
    /// key, the caches may serve this session, and the plan is deterministic.
    pub(super) fn run_query(
        &mut self,
        plan: &LogicalPlan,
        columns: Arc<[ColumnInfo]>,
        ctx: &ExecContext,
        cache_key: Option<CacheKey<'_>>,
    ) -> Result<StatementResult> {
        let batches = materialize(create_operator(plan, &ctx.state).as_mut(), ctx)?;
        let rows: usize = batches.iter().map(|b| b.len()).sum();
        let result = StatementResult::rows(columns, batches, format!("SELECT {rows}"));
        Ok(match cache_key {
            Some(key)
                if self.caches_usable()
                    && self.result_cache_on()
                    && plan.is_deterministic()
                    && !crate::physical::may_search_hnsw(plan, &ctx.state) =>
            {
                let tables = plan.tables_read();
                self.cache.store_result(
                    key.result_key(),
                    result,
                    ctx.rows_read.get(),
                    &tables,
                    &ctx.state,
                )
            }
            _ => result,
        })
    }

    pub(super) fn run_explain(
        &mut self,
        plan: &LogicalPlan,
        analyze: bool,
        ctx: &ExecContext,
    ) -> Result<StatementResult> {
        let lines = if analyze {
            let start = std::time::Instant::now();
            let (mut operator, stats) = crate::physical::create_instrumented(plan, &ctx.state);
            collect(operator.as_mut(), ctx)?;
            // Read once the plan has run: explain/ knows nothing of the executor.
            let actuals: Vec<_> = stats.iter().map(|s| s.actuals()).collect();
            let mut lines =
                crate::plan::explain_lines(plan, &ctx.state, &ctx.parallelism, Some(&actuals));
            let millis = start.elapsed().as_secs_f64() * 1e3;
            lines.push(format!("Execution Time: {millis:.3} ms"));
            lines
        } else {
            crate::plan::explain_lines(plan, &ctx.state, &ctx.parallelism, None)
        };
        Ok(text_result(explain_columns(), &lines, "EXPLAIN"))
    }

    pub(super) fn run_show(&mut self, name: &str) -> Result<StatementResult> {
        let columns = self.show_columns(name)?;
        let (canonical, mut value) = self.settings.get(name)?;
        // Outside a block, the transaction a SHOW runs in has the defaults.
        if self.block == super::Block::None
            && super::transaction_control::TRANSACTION_SETTINGS.contains(&canonical)
        {
            value = self.settings.get(&format!("default_{canonical}"))?.1;
        }
        Ok(text_result(columns, &[value], "SHOW"))
    }

    /// SHOW's one column, named after the setting as PostgreSQL spells it.
    pub(super) fn show_columns(&self, name: &str) -> Result<Arc<[ColumnInfo]>> {
        let (canonical, _) = self.settings.get(name)?;
        let column = if canonical.is_empty() {
            name
        } else {
            canonical
        };
        Ok(text_column(column))
    }
}
