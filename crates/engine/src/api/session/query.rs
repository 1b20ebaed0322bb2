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

/// Text columns with these names: the result columns of SHOW and EXPLAIN.
fn text_columns(names: &[&str]) -> Arc<[ColumnInfo]> {
    (names.iter())
        .map(|name| ColumnInfo {
            name: name.to_string(),
            data_type: DataType::Text,
            table_oid: 0,
            column_attnum: 0,
            presented_from: None,
        })
        .collect()
}

/// EXPLAIN's result column.
pub(super) fn explain_columns() -> Arc<[ColumnInfo]> {
    text_columns(&["QUERY PLAN"])
}

/// SHOW ALL's result columns, as PostgreSQL names them.
const SHOW_ALL_COLUMNS: [&str; 3] = ["name", "setting", "description"];

/// A result of text columns, given as each column's values.
fn text_result(columns: Arc<[ColumnInfo]>, values: &[Vec<String>], tag: &str) -> StatementResult {
    let rows = values.first().map_or(0, Vec::len);
    let vectors = (values.iter())
        .map(|lines| {
            let mut text = StringVec::default();
            for line in lines {
                text.push(line);
            }
            Arc::new(Vector::new(VectorData::Text(text), None))
        })
        .collect();
    StatementResult::rows(columns, vec![Batch::new(vectors, rows)], tag)
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
        Ok(text_result(explain_columns(), &[lines], "EXPLAIN"))
    }

    pub(super) fn run_show(&mut self, name: &str) -> Result<StatementResult> {
        let columns = self.show_columns(name)?;
        if name == "all" {
            return self.run_show_all(columns);
        }
        let value = self.shown(name)?;
        Ok(text_result(columns, &[vec![value]], "SHOW"))
    }

    /// The value SHOW shows for setting `name`.
    fn shown(&self, name: &str) -> Result<String> {
        let (canonical, value) = self.settings.get(name)?;
        // Outside a block, the transaction a SHOW runs in has the defaults.
        if self.block == super::Block::None
            && super::transaction_control::TRANSACTION_SETTINGS.contains(&canonical)
        {
            return Ok(self.settings.get(&format!("default_{canonical}"))?.1);
        }
        Ok(value)
    }

    /// SHOW ALL: the settings pg_settings lists, in PostgreSQL's order (by name, case
    /// ignored), each as SHOW shows it, with its short description.
    fn run_show_all(&self, columns: Arc<[ColumnInfo]>) -> Result<StatementResult> {
        let rows = self.settings.rows();
        let mut listed: Vec<_> = (rows.iter())
            .filter_map(|row| Some((&row.name, row.listed.as_ref()?.short_desc)))
            .collect();
        listed.sort_by_key(|(name, _)| name.to_ascii_lowercase());
        let mut values = vec![Vec::new(), Vec::new(), Vec::new()];
        for (name, description) in listed {
            values[0].push(name.clone());
            values[1].push(self.shown(name)?);
            values[2].push(description.to_string());
        }
        Ok(text_result(columns, &values, "SHOW"))
    }

    /// SHOW's one column, named after the setting as PostgreSQL spells it; SHOW ALL's three.
    pub(super) fn show_columns(&self, name: &str) -> Result<Arc<[ColumnInfo]>> {
        if name == "all" {
            return Ok(text_columns(&SHOW_ALL_COLUMNS));
        }
        let (canonical, _) = self.settings.get(name)?;
        let column = if canonical.is_empty() {
            name
        } else {
            canonical
        };
        Ok(text_columns(&[column]))
    }
}
