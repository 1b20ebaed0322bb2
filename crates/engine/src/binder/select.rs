//! Queries: SELECT (FROM, WHERE, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT/OFFSET) and
//! VALUES, with PostgreSQL's rules for output names, ordinals and aliases.

use std::sync::Arc;

use sqlparser::ast::{
    self, Expr, GroupByExpr, LimitClause, OrderByKind, Query, Select, SelectFlavor, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Value, WildcardAdditionalOptions,
};

use super::data_type::type_column_name;
use super::expr::{AggregateCollector, AGGREGATE_REF_BASE, GROUPING_REF_BASE, WINDOW_REF_BASE};
use super::grouping::{grouping_calls, BoundGroupBy};
use super::position::grouping_error_at;
use super::record::is_row_expansion;
use super::scope::{Scope, ScopeColumn};
use super::{ident_name, Binder};
use crate::catalog::AclMode;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::{BoundStatement, ColumnInfo, LogicalPlan, ScalarExpr, SortKey};
use crate::types::{DataType, ScalarValue};

/// How many entries a select list may have after `*` expands: PostgreSQL's
/// MaxTupleAttributeNumber.
const MAX_TARGET_ENTRIES: usize = 1664;

/// A select-list entry: its expression over the input (or the aggregate output) and name.
pub(super) struct OutputItem {
    pub(super) expr: ScalarExpr,
    pub(super) name: String,
    pub(super) table_oid: u32,
    pub(super) attnum: i16,
    /// Where the item is written, if it is a bare column reference: what a grouping error
    /// about it points at.
    pub(super) position: Option<u32>,
}

impl Binder<'_> {
    pub(super) fn bind_query_statement(&mut self, query: &Query) -> Result<BoundStatement> {
        // SELECT ... INTO table: CREATE TABLE table AS SELECT ...
        if let SetExpr::Select(select) = query.body.as_ref() {
            if let Some(into) = &select.into {
                let parts = match into.targets.as_slice() {
                    [Expr::Identifier(ident)] => vec![ident.clone()],
                    [Expr::CompoundIdentifier(parts)] => parts.clone(),
                    _ => return Err(Error::unsupported(format!("SELECT {into}"))),
                };
                let name =
                    self.relation_creation_name(&ast::ObjectName::from(parts), into.temporary)?;
                let mut query = query.clone();
                if let SetExpr::Select(select) = query.body.as_mut() {
                    select.into = None;
                }
                return self.bind_table_from_query(name, false, into.unlogged, &query, Vec::new());
            }
        }
        if let Some(call) = self.bind_function_call_statement(query)? {
            return Ok(call);
        }
        self.writes_allowed = query.with.is_some();
        if let Some(statement) = super::modifying_cte::written_statement(&query.body) {
            return self.bind_statement_after_with(query, statement);
        }
        let (plan, columns) = self.bind_query(query)?;
        self.writes_allowed = false;
        let (plan, columns) =
            super::present::present_columns(plan, columns, super::present::Output::Text)?;
        Ok(BoundStatement::Query {
            plan,
            columns: columns.into(),
        })
    }

    pub(super) fn bind_query(&mut self, query: &Query) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let ctes_before = self.ctes.len();
        let result = match &query.with {
            Some(with) => self
                .bind_with(with)
                .and_then(|()| self.bind_query_body(query)),
            None => self.bind_query_body(query),
        };
        self.ctes.truncate(ctes_before);
        result
    }

    fn bind_query_body(&mut self, query: &Query) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let Query {
            with: _,
            body,
            order_by,
            limit_clause,
            fetch,
            locks,
            for_clause,
            settings,
            format_clause,
            pipe_operators,
        } = query;
        if for_clause.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || !pipe_operators.is_empty()
        {
            return Err(Error::unsupported(format!("the query clause in {query}")));
        }
        let order_by = match order_by {
            None => &[][..],
            Some(ast::OrderBy {
                kind: OrderByKind::Expressions(exprs),
                interpolate: None,
            }) => exprs.as_slice(),
            Some(other) => return Err(Error::unsupported(format!("{other}"))),
        };
        let (plan, columns) = match body.as_ref() {
            SetExpr::Select(select) => self.bind_select(select, order_by)?,
            SetExpr::Values(values) => {
                let (plan, columns) = self.bind_values(values)?;
                self.order_outputs(plan, columns, order_by)?
            }
            SetExpr::Query(inner) => {
                let (plan, columns) = self.bind_query(inner)?;
                self.order_outputs(plan, columns, order_by)?
            }
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let (plan, columns) = self.bind_set_operation(left, op, set_quantifier, right)?;
                self.order_outputs(plan, columns, order_by)?
            }
            other => return Err(Error::unsupported(format!("the query {other}"))),
        };
        let plan = match self.row_locking(locks)? {
            Some(locking) => super::row_locking::lock_rows(plan, &locking)?,
            None => plan,
        };
        let plan = self.bind_limit(plan, limit_clause.as_ref(), fetch.as_ref(), order_by)?;
        Ok((plan, columns))
    }

    /// ORDER BY over the output columns of VALUES or a parenthesized query.
    fn order_outputs(
        &mut self,
        plan: LogicalPlan,
        columns: Vec<ColumnInfo>,
        order_by: &[ast::OrderByExpr],
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        if order_by.is_empty() {
            return Ok((plan, columns));
        }
        let scope = Scope {
            columns: columns
                .iter()
                .map(|c| ScopeColumn {
                    table: None,
                    name: c.name.clone(),
                    ty: c.data_type,
                    table_oid: 0,
                    attnum: 0,
                    qualified_only: false,
                    null_extended: false,
                    padding_witness: false,
                    from_relation: false,
                })
                .collect(),
            ..Scope::default()
        };
        let mut keys = Vec::new();
        for item in order_by {
            let expr = match ordinal(&item.expr)? {
                Some(n) => output_by_position(&columns, n)?,
                None => self.bind_expr(&item.expr, &scope)?,
            };
            keys.push(sort_key(expr, &item.options)?);
        }
        Ok((
            LogicalPlan::Sort {
                input: Box::new(plan),
                keys,
            },
            columns,
        ))
    }

    pub(super) fn bind_values(
        &mut self,
        values: &ast::Values,
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let empty = Scope::default();
        let mut rows = Vec::with_capacity(values.rows.len());
        for row in &values.rows {
            let bound = row
                .content
                .iter()
                .map(|e| self.bind_expr(e, &empty))
                .collect::<Result<Vec<_>>>()?;
            if rows
                .first()
                .is_some_and(|first: &Vec<ScalarExpr>| first.len() != bound.len())
            {
                return Err(Error::syntax("VALUES lists must all be the same length"));
            }
            rows.push(bound);
        }
        let width = rows.first().map_or(0, |r| r.len());
        let mut types = Vec::with_capacity(width);
        for column in 0..width {
            let column_types: Vec<DataType> = rows.iter().map(|r| r[column].ty()).collect();
            types.push(super::coerce::union_type(&column_types, "VALUES")?);
        }
        for row in &mut rows {
            for (value, ty) in row.iter_mut().zip(&types) {
                let taken = std::mem::replace(value, ScalarExpr::null(*ty));
                *value = self.coerce(taken, *ty, CastContext::Implicit)?;
            }
        }
        let columns = types
            .iter()
            .enumerate()
            .map(|(i, ty)| ColumnInfo {
                name: format!("column{}", i + 1),
                data_type: *ty,
                table_oid: 0,
                column_attnum: 0,
                presented_from: None,
            })
            .collect();
        let rows = Arc::new(rows);
        Ok((LogicalPlan::Values { rows, types }, columns))
    }

    fn bind_limit(
        &mut self,
        plan: LogicalPlan,
        limit: Option<&LimitClause>,
        fetch: Option<&ast::Fetch>,
        order_by: &[ast::OrderByExpr],
    ) -> Result<LogicalPlan> {
        let (limit, offset) = match limit {
            None if fetch.is_none() => return Ok(plan),
            None => (None, None),
            Some(LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return Err(Error::unsupported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            Some(LimitClause::OffsetCommaLimit { .. }) => {
                return Err(Error::syntax("LIMIT #,# syntax is not supported"))
            }
        };
        let empty = Scope::default();
        let bind_count = |expr: Option<&Expr>, binder: &mut Self| -> Result<Option<ScalarExpr>> {
            let Some(expr) = expr else { return Ok(None) };
            // LIMIT ALL is no limit.
            if let Expr::Identifier(ident) = expr {
                if ident.value.eq_ignore_ascii_case("all") {
                    return Ok(None);
                }
            }
            let bound = binder.bind_expr(expr, &empty).map_err(|e| {
                if e.state == SqlState::UndefinedColumn {
                    Error::new(
                        SqlState::InvalidColumnReference,
                        "argument of LIMIT must not contain variables",
                    )
                } else {
                    e
                }
            })?;
            Ok(Some(binder.coerce(
                bound,
                DataType::Int64,
                CastContext::Implicit,
            )?))
        };
        let limit = match fetch {
            None => bind_count(limit, self)?,
            Some(_) if limit.is_some() => {
                return Err(Error::syntax("multiple LIMIT clauses not allowed"))
            }
            Some(fetch) => self.bind_fetch(fetch, order_by, &empty)?,
        };
        let offset = bind_count(offset, self)?;
        if fetch.is_some_and(|f| f.with_ties) {
            return limit_with_ties(plan, limit, offset);
        }
        Ok(LogicalPlan::Limit {
            input: Box::new(plan),
            limit,
            offset,
            ties: Vec::new(),
        })
    }

    /// `FETCH FIRST [n] ROW[S] ONLY | WITH TIES`: LIMIT n, one row when n is left out.
    fn bind_fetch(
        &mut self,
        fetch: &ast::Fetch,
        order_by: &[ast::OrderByExpr],
        empty: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        let ast::Fetch {
            with_ties,
            percent,
            quantity,
        } = fetch;
        if *percent {
            return Err(Error::syntax("syntax error at or near \"PERCENT\""));
        }
        if *with_ties && order_by.is_empty() {
            return Err(Error::new(
                SqlState::SyntaxError,
                "WITH TIES cannot be specified without ORDER BY clause",
            ));
        }
        let count = match quantity {
            Some(expr) => self.bind_expr(expr, empty)?,
            None => ScalarExpr::literal(ScalarValue::Int64(1), DataType::Int64),
        };
        // PostgreSQL refuses a NULL written as the count; a NULL parameter means no limit.
        if let (true, ScalarExpr::Literal { value, .. }) = (*with_ties, &count) {
            if value.is_null() {
                return Err(Error::new(
                    SqlState::InvalidRowCountInLimitClause,
                    "row count cannot be null in FETCH FIRST ... WITH TIES clause",
                ));
            }
        }
        Ok(Some(self.coerce(
            count,
            DataType::Int64,
            CastContext::Implicit,
        )?))
    }

    pub(super) fn bind_select(
        &mut self,
        select: &Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let untyped_outputs_kept = std::mem::take(&mut self.untyped_outputs_kept);
        let Select {
            select_token: _,
            optimizer_hints,
            distinct,
            select_modifiers,
            top,
            top_before_distinct: _,
            projection,
            exclude,
            into,
            from,
            lateral_views,
            prewhere,
            selection,
            connect_by,
            group_by,
            cluster_by,
            distribute_by,
            sort_by,
            having,
            named_window,
            qualify,
            window_before_qualify: _,
            value_table_mode,
            flavor,
        } = select;
        if !optimizer_hints.is_empty()
            || select_modifiers.is_some()
            || top.is_some()
            || exclude.is_some()
            || into.is_some()
            || !lateral_views.is_empty()
            || prewhere.is_some()
            || !connect_by.is_empty()
            || !cluster_by.is_empty()
            || !distribute_by.is_empty()
            || !sort_by.is_empty()
            || qualify.is_some()
            || value_table_mode.is_some()
            || *flavor != SelectFlavor::Standard
        {
            return Err(Error::unsupported(format!("the SELECT form {select}")));
        }
        let srfs_moved = std::mem::take(&mut self.select_srfs_moved);
        let sql_srfs = self.set_returning_sql_functions();
        if let Some(rewritten) = super::select_srf::move_srfs_to_from(select, &sql_srfs) {
            self.select_srfs_moved = true;
            return self.bind_select(&rewritten, order_by);
        }
        let distinct_on_written = match distinct {
            Some(ast::Distinct::On(exprs)) => exprs.as_slice(),
            None | Some(ast::Distinct::All | ast::Distinct::Distinct) => &[],
        };
        let distinct = matches!(distinct, Some(ast::Distinct::Distinct));
        // With the select list's set-returning calls last in FROM, WHERE filters before them.
        let filter_first = srfs_moved && from.len() > 1;
        let (mut plan, scope) = match filter_first {
            true => self.bind_from_where(from, selection.as_ref())?,
            false => self.bind_from(from)?,
        };
        if let (Some(condition), false) = (selection, filter_first) {
            self.aggregate_forbidden_in = Some("WHERE");
            let predicate = self.bind_condition(condition, &scope, "WHERE")?;
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate,
            };
        }

        // Select list, HAVING and ORDER BY may contain aggregates; the select list and ORDER
        // BY window functions.
        self.set_named_windows(named_window)?;
        self.aggregates = Some(AggregateCollector::default());
        self.windows = Some(Vec::new());
        // A FROM item may have no columns (`SELECT * FROM t` of a zero-column table); no
        // FROM at all is PostgreSQL's error.
        if from.is_empty()
            && projection
                .iter()
                .any(|i| matches!(i, SelectItem::Wildcard(_)))
        {
            return Err(Error::syntax(
                "SELECT * with no tables specified is not valid",
            ));
        }
        let mut outputs = self.bind_projection(projection, &scope)?;
        let group_exprs = match group_by {
            GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => exprs,
            // MySQL's `GROUP BY a WITH ROLLUP` is not PostgreSQL syntax.
            GroupByExpr::Expressions(_, _) => {
                return Err(Error::syntax("syntax error at or near \"WITH\""))
            }
            other => return Err(Error::unsupported(format!("{other}"))),
        };
        let (saved_aggregates, saved_windows) = (self.aggregates.take(), self.windows.take());
        self.aggregate_forbidden_in = Some("GROUP BY");
        let BoundGroupBy {
            keys: group_by,
            sets: grouping_sets,
            outputs: key_outputs,
        } = self.bind_group_by(group_exprs, &scope, &outputs, projection)?;
        self.aggregates = saved_aggregates;
        self.aggregate_forbidden_in = Some("HAVING");
        let having = having
            .as_ref()
            .map(|h| self.bind_condition(h, &scope, "HAVING"))
            .transpose()?;
        self.windows = saved_windows;
        let mut distinct_on = distinct_on_written
            .iter()
            .map(|e| self.bind_output_target(e, &scope, &outputs, "DISTINCT ON"))
            .collect::<Result<Vec<_>>>()?;
        let mut order_keys = Vec::with_capacity(order_by.len());
        for item in order_by {
            order_keys.push(self.bind_order_item(item, &scope, &outputs)?);
        }
        let collector = self.aggregates.take().unwrap_or_default();
        let grouping_calls = grouping_calls(&collector, &group_by)?;
        let aggregates = collector.calls;
        let mut windows = self.windows.take().unwrap_or_default();
        self.aggregate_forbidden_in = None;

        let grouped = !aggregates.is_empty()
            || !group_by.is_empty()
            || !grouping_sets.is_empty()
            || !grouping_calls.is_empty()
            || having.is_some();
        if srfs_moved && (grouped || !windows.is_empty()) {
            // PostgreSQL expands the set after grouping and windows; moving it into FROM
            // would expand it before.
            return Err(Error::unsupported(
                "a set-returning function in a select list with aggregates or window functions",
            ));
        }
        // Group keys are the first output columns of the aggregate (and PostgreSQL numbers
        // them first among the sort and group keys, which orders the windows).
        let group_keys: Vec<ScalarExpr> = match grouped {
            true => group_by
                .iter()
                .enumerate()
                .map(|(index, key)| ScalarExpr::Column {
                    index,
                    ty: key.ty(),
                })
                .collect(),
            false => Vec::new(),
        };
        if grouped {
            let outputs_before = GroupedOutputs {
                group_by: &group_by,
                aggregates: aggregates.len(),
            };
            let rewrite = |e: ScalarExpr| rewrite_grouped(e, &outputs_before, &scope);
            for (position, output) in outputs.iter_mut().enumerate() {
                output.expr = match key_outputs.iter().position(|o| *o == Some(position)) {
                    Some(index) => ScalarExpr::Column {
                        index,
                        ty: output.expr.ty(),
                    },
                    None => rewrite(output.expr.clone())
                        .map_err(|error| grouping_error_at(error, output.position))?,
                };
            }
            let having = having.map(rewrite).transpose()?;
            let written = (order_by.iter().map(|item| &item.expr)).chain(distinct_on_written);
            for (target, written) in (order_keys.iter_mut().map(|k| &mut k.0))
                .chain(&mut distinct_on)
                .zip(written)
            {
                if let OrderTarget::Expr(e) = target {
                    *e = rewrite(e.clone()).map_err(|error| {
                        grouping_error_at(error, self.column_reference_position(written))
                    })?;
                }
            }
            for call in &mut windows {
                call.args = call.args.drain(..).map(rewrite).collect::<Result<_>>()?;
                call.partition_by = call
                    .partition_by
                    .drain(..)
                    .map(rewrite)
                    .collect::<Result<_>>()?;
                call.filter = call.filter.take().map(rewrite).transpose()?;
                for key in &mut call.order_by {
                    key.expr = rewrite(key.expr.clone())?;
                }
            }
            // PostgreSQL's degenerate grouping: HAVING with no GROUP BY and no aggregate is
            // one group whatever the input holds, so the input is never read (nor its WHERE
            // evaluated); nothing above reads its columns, which would be a grouping error.
            let degenerate = group_by.is_empty()
                && grouping_sets.is_empty()
                && aggregates.is_empty()
                && grouping_calls.is_empty();
            if degenerate {
                plan = LogicalPlan::Values {
                    rows: std::sync::Arc::new(vec![Vec::new()]),
                    types: Vec::new(),
                };
            }
            plan = LogicalPlan::Aggregate {
                input: Box::new(plan),
                group_by,
                aggregates,
                grouping_sets,
                grouping_calls,
            };
            if let Some(predicate) = having {
                plan = LogicalPlan::Filter {
                    input: Box::new(plan),
                    predicate,
                };
            }
        }

        if !windows.is_empty() {
            let width = plan.output_types().len();
            for output in &mut outputs {
                output.expr = window_refs_to_columns(output.expr.clone(), width);
            }
            for target in order_keys
                .iter_mut()
                .map(|k| &mut k.0)
                .chain(&mut distinct_on)
            {
                if let OrderTarget::Expr(e) = target {
                    *e = window_refs_to_columns(e.clone(), width);
                }
            }
            let output_order = match order_keys.is_empty() {
                true => super::window::evaluation_order(&windows, group_keys),
                false => Vec::new(),
            };
            plan = LogicalPlan::Window {
                input: Box::new(plan),
                calls: windows,
                output_order,
            };
        }

        // Untyped literals in the output are text, as in PostgreSQL, except in a plain
        // branch of a set operation or INSERT source, whose caller decides their type.
        let keep_unknown =
            untyped_outputs_kept && !distinct && distinct_on.is_empty() && order_keys.is_empty();
        for output in &mut outputs {
            if output.expr.ty() == DataType::Unknown && !keep_unknown {
                let expr = std::mem::replace(&mut output.expr, ScalarExpr::null(DataType::Text));
                output.expr = self.coerce(expr, DataType::Text, CastContext::Implicit)?;
            }
        }
        let distinct = match (distinct, distinct_on.is_empty()) {
            (true, _) => Distinctness::All,
            (false, true) => Distinctness::None,
            (false, false) => Distinctness::On(distinct_on),
        };
        let mut exprs = Vec::with_capacity(outputs.len());
        let columns = outputs
            .into_iter()
            .map(|o| {
                let column = ColumnInfo {
                    data_type: o.expr.ty(),
                    name: o.name,
                    table_oid: o.table_oid,
                    column_attnum: o.attnum,
                    presented_from: None,
                };
                // Moved, not cloned: a deep expression (`1 + 1 + ...`) copies recursively.
                exprs.push(o.expr);
                column
            })
            .collect();
        let plan = order_and_deduplicate(plan, exprs, order_keys, distinct)?;
        Ok((plan, columns))
    }

    pub(super) fn bind_projection(
        &mut self,
        projection: &[SelectItem],
        scope: &Scope,
    ) -> Result<Vec<OutputItem>> {
        let mut outputs = Vec::new();
        for item in projection {
            match item {
                // PostgreSQL ignores an alias of `(t).*`.
                SelectItem::UnnamedExpr(Expr::CompoundFieldAccess { root, access_chain })
                | SelectItem::ExprWithAlias {
                    expr: Expr::CompoundFieldAccess { root, access_chain },
                    ..
                } if is_row_expansion(access_chain) => {
                    let fields = self.bind_row_expansion(root, access_chain, scope)?;
                    outputs.extend(
                        fields
                            .into_iter()
                            .map(|(name, field)| output_item(field, name, scope, None)),
                    );
                }
                SelectItem::UnnamedExpr(expr) => {
                    let bound = self.bind_expr(expr, scope)?;
                    let position = self.column_reference_position(expr);
                    outputs.push(output_item(bound, column_name(expr), scope, position));
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    let bound = self.bind_expr(expr, scope)?;
                    let position = self.column_reference_position(expr);
                    outputs.push(output_item(bound, ident_name(alias), scope, position));
                }
                SelectItem::Wildcard(options) => {
                    check_wildcard_options(options)?;
                    outputs.extend(self.wildcard(scope, None));
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(name),
                    options,
                ) => {
                    check_wildcard_options(options)?;
                    let written = self.written_name(name)?;
                    if let Some(schema) = &written.schema {
                        self.check_schema_qualifier(scope, schema, &written.name)?;
                    }
                    let table = written.name;
                    let mut items = self.wildcard(scope, Some(&table));
                    if items.is_empty() {
                        items = self.enclosing_wildcard(&table);
                    }
                    if items.is_empty() {
                        let error = self.missing_from_entry(scope, &table);
                        let position = match name.0.first() {
                            Some(ast::ObjectNamePart::Identifier(ident)) => {
                                self.ident_position(ident)
                            }
                            _ => None,
                        };
                        return Err(super::position::placed(error, position));
                    }
                    outputs.extend(items);
                }
                other => return Err(Error::unsupported(format!("the select item {other}"))),
            }
        }
        if outputs.len() > MAX_TARGET_ENTRIES {
            return Err(Error::new(
                SqlState::TooManyColumns,
                format!("target lists can have at most {MAX_TARGET_ENTRIES} entries"),
            ));
        }
        Ok(outputs)
    }

    pub(super) fn bind_group_item(
        &mut self,
        expr: &Expr,
        scope: &Scope,
        outputs: &[OutputItem],
        projection: &[SelectItem],
    ) -> Result<(ScalarExpr, Option<usize>)> {
        if let Some(n) = ordinal(expr)? {
            let item = outputs.get(n.wrapping_sub(1)).ok_or_else(|| {
                let error = Error::new(
                    SqlState::InvalidColumnReference,
                    format!("GROUP BY position {n} is not in select list"),
                );
                self.at_expr(error, expr)
            })?;
            if contains_aggregate(&item.expr) {
                return Err(Error::new(
                    SqlState::GroupingError,
                    "aggregate functions are not allowed in GROUP BY",
                ));
            }
            return Ok((item.expr.clone(), Some(n - 1)));
        }
        // A bare name is an input column first, an output alias second.
        if let Expr::Identifier(ident) = expr {
            let name = ident_name(ident);
            if scope.resolve(None, &name).is_err() {
                let alias = projection.iter().zip(outputs).position(|(item, _)| {
                    matches!(item, SelectItem::ExprWithAlias { alias, .. } if ident_name(alias) == name)
                });
                if let Some(position) = alias {
                    return Ok((outputs[position].expr.clone(), Some(position)));
                }
            }
        }
        Ok((self.bind_expr(expr, scope)?, None))
    }

    fn bind_order_item(
        &mut self,
        item: &ast::OrderByExpr,
        scope: &Scope,
        outputs: &[OutputItem],
    ) -> Result<(OrderTarget, ast::OrderByOptions)> {
        if item.with_fill.is_some() {
            return Err(Error::unsupported("WITH FILL"));
        }
        let target = self.bind_output_target(&item.expr, scope, outputs, "ORDER BY")?;
        Ok((target, item.options.clone()))
    }

    /// An ORDER BY or DISTINCT ON item (`clause`): a select-list position, an output name,
    /// or an expression over the input.
    fn bind_output_target(
        &mut self,
        expr: &Expr,
        scope: &Scope,
        outputs: &[OutputItem],
        clause: &str,
    ) -> Result<OrderTarget> {
        if let Some(n) = ordinal(expr)? {
            if n == 0 || n > outputs.len() {
                let error = Error::new(
                    SqlState::InvalidColumnReference,
                    format!("{clause} position {n} is not in select list"),
                );
                return Err(self.at_expr(error, expr));
            }
            return Ok(OrderTarget::Output(n - 1));
        }
        // A bare name matching an output column refers to it (PostgreSQL's SQL-92 rule).
        if let Expr::Identifier(ident) = expr {
            let name = ident_name(ident);
            let matches: Vec<usize> = outputs
                .iter()
                .enumerate()
                .filter(|(_, o)| o.name == name)
                .map(|(i, _)| i)
                .collect();
            if let Some(&first) = matches.first() {
                if matches
                    .iter()
                    .any(|&i| outputs[i].expr != outputs[first].expr)
                {
                    return Err(Error::new(
                        SqlState::AmbiguousColumn,
                        format!("{clause} \"{name}\" is ambiguous"),
                    ));
                }
                return Ok(OrderTarget::Output(first));
            }
        }
        Ok(OrderTarget::Expr(self.bind_expr(expr, scope)?))
    }
}

/// SELECT's duplicate elimination.
enum Distinctness {
    None,
    All,
    /// DISTINCT ON: the first row (in ORDER BY order) per value of these.
    On(Vec<OrderTarget>),
}

/// Projects the select list (plus hidden ORDER BY / DISTINCT ON columns), deduplicates and
/// sorts, then drops the hidden columns. DISTINCT deduplicates before sorting; DISTINCT ON
/// after, keeping the first row of each group in ORDER BY order.
fn order_and_deduplicate(
    plan: LogicalPlan,
    mut exprs: Vec<ScalarExpr>,
    order_keys: Vec<(OrderTarget, ast::OrderByOptions)>,
    distinct: Distinctness,
) -> Result<LogicalPlan> {
    let visible = exprs.len();
    let all = matches!(distinct, Distinctness::All);
    let position_of = |target: OrderTarget, exprs: &mut Vec<ScalarExpr>| match target {
        OrderTarget::Output(i) => Some(i),
        OrderTarget::Expr(e) => match exprs.iter().position(|x| *x == e) {
            Some(i) => Some(i),
            None if all => None,
            None => {
                exprs.push(e);
                Some(exprs.len() - 1)
            }
        },
    };
    let mut sort_keys = Vec::with_capacity(order_keys.len());
    for (target, options) in order_keys {
        let position = position_of(target, &mut exprs).ok_or_else(|| {
            Error::new(
                SqlState::InvalidColumnReference,
                "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
            )
        })?;
        let ty = exprs[position].ty();
        sort_keys.push(sort_key(
            ScalarExpr::Column {
                index: position,
                ty,
            },
            &options,
        )?);
    }
    let on = match distinct {
        Distinctness::On(targets) => {
            let mut on = Vec::with_capacity(targets.len());
            for target in targets {
                on.extend(position_of(target, &mut exprs));
            }
            for &position in &on {
                super::coerce::require_json_free(exprs[position].ty(), false)?;
            }
            check_distinct_on_order(&on, &sort_keys)?;
            Some(on)
        }
        Distinctness::None | Distinctness::All => None,
    };
    let hidden = exprs.len() > visible;
    let types: Vec<DataType> = exprs.iter().map(|e| e.ty()).collect();
    let mut plan = LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
    };
    if all {
        for ty in &types {
            super::coerce::require_json_free(*ty, false)?;
        }
        plan = LogicalPlan::Distinct {
            input: Box::new(plan),
            on: Vec::new(),
        };
    }
    if !sort_keys.is_empty() {
        plan = LogicalPlan::Sort {
            input: Box::new(plan),
            keys: sort_keys,
        };
    }
    if let Some(on) = on {
        plan = LogicalPlan::Distinct {
            input: Box::new(plan),
            on,
        };
    }
    if hidden {
        plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs: (0..visible)
                .map(|index| ScalarExpr::Column {
                    index,
                    ty: types[index],
                })
                .collect(),
        };
    }
    Ok(plan)
}

/// FETCH ... WITH TIES goes right above the ORDER BY's Sort (or the DISTINCT ON over it),
/// where the sort keys are columns; a Project dropping the hidden ORDER BY columns stays on
/// top, as it keeps every row.
fn limit_with_ties(
    plan: LogicalPlan,
    limit: Option<ScalarExpr>,
    offset: Option<ScalarExpr>,
) -> Result<LogicalPlan> {
    let ties = match &plan {
        LogicalPlan::Project { input, exprs } => {
            let input = limit_with_ties(input.as_ref().clone(), limit, offset)?;
            return Ok(LogicalPlan::Project {
                input: Box::new(input),
                exprs: exprs.clone(),
            });
        }
        LogicalPlan::Sort { keys, .. } => keys.clone(),
        LogicalPlan::Distinct { input, on } if !on.is_empty() => match input.as_ref() {
            LogicalPlan::Sort { keys, .. } => keys.clone(),
            _ => return Err(Error::unsupported("FETCH ... WITH TIES over this query")),
        },
        _ => return Err(Error::unsupported("FETCH ... WITH TIES over this query")),
    };
    Ok(LogicalPlan::Limit {
        input: Box::new(plan),
        limit,
        offset,
        ties,
    })
}

/// PostgreSQL's rule: the DISTINCT ON columns must be the leading ORDER BY columns (in any
/// order among themselves); ORDER BY may continue with others, and DISTINCT ON columns
/// missing from ORDER BY are fine only when no ORDER BY column precedes them unmatched.
fn check_distinct_on_order(on: &[usize], sort_keys: &[SortKey]) -> Result<()> {
    let mismatch = || {
        Error::new(
            SqlState::InvalidColumnReference,
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
        )
    };
    let mut skipped = false;
    let mut sorted = Vec::with_capacity(sort_keys.len());
    for key in sort_keys {
        let ScalarExpr::Column { index, .. } = key.expr else {
            continue;
        };
        sorted.push(index);
        if on.contains(&index) {
            if skipped {
                return Err(mismatch());
            }
        } else {
            skipped = true;
        }
    }
    if skipped && on.iter().any(|i| !sorted.contains(i)) {
        return Err(mismatch());
    }
    Ok(())
}

/// What an ORDER BY item sorts by: an output column or another expression.
enum OrderTarget {
    Output(usize),
    Expr(ScalarExpr),
}

pub(super) fn sort_key(expr: ScalarExpr, options: &ast::OrderByOptions) -> Result<SortKey> {
    let descending = match options.sort {
        None | Some(ast::OrderBySort::Asc) => false,
        Some(ast::OrderBySort::Desc) => true,
        Some(ast::OrderBySort::Using(_)) => return Err(Error::unsupported("ORDER BY USING")),
    };
    super::coerce::require_json_free(expr.ty(), true)?;
    Ok(SortKey {
        expr,
        descending,
        // PostgreSQL: NULLs sort as larger than any value unless told otherwise.
        nulls_first: options.nulls_first.unwrap_or(descending),
    })
}

fn output_by_position(columns: &[ColumnInfo], n: usize) -> Result<ScalarExpr> {
    match columns.get(n.wrapping_sub(1)) {
        Some(c) => Ok(ScalarExpr::Column {
            index: n - 1,
            ty: c.data_type,
        }),
        None => Err(Error::new(
            SqlState::InvalidColumnReference,
            format!("ORDER BY position {n} is not in select list"),
        )),
    }
}

/// `n` if `expr` is an integer literal (a select-list position).
fn ordinal(expr: &Expr) -> Result<Option<usize>> {
    if let Expr::Value(v) = expr {
        if let Value::Number(text, _) = &v.value {
            if text.bytes().all(|b| b.is_ascii_digit()) {
                return Ok(Some(text.parse().unwrap_or(usize::MAX)));
            }
        }
    }
    Ok(None)
}

fn check_wildcard_options(options: &WildcardAdditionalOptions) -> Result<()> {
    let WildcardAdditionalOptions {
        wildcard_token: _,
        opt_ilike,
        opt_exclude,
        opt_except,
        opt_replace,
        opt_rename,
        opt_alias,
    } = options;
    if opt_ilike.is_some()
        || opt_exclude.is_some()
        || opt_except.is_some()
        || opt_replace.is_some()
        || opt_rename.is_some()
        || opt_alias.is_some()
    {
        return Err(Error::unsupported(format!("the wildcard {options}")));
    }
    Ok(())
}

impl Binder<'_> {
    /// `table.*` naming a FROM item of an enclosing query (as a LATERAL subquery names the
    /// items left of it): its columns as outer references, the subqueries between reading
    /// outside themselves.
    fn enclosing_wildcard(&mut self, table: &str) -> Vec<OutputItem> {
        let levels = self.outer_scopes.len();
        for depth in 1..=levels {
            let level = levels - depth;
            let columns: Vec<(usize, ScopeColumn)> = (self.outer_scopes[level].0.columns.iter())
                .enumerate()
                .filter(|(_, c)| c.table.as_deref() == Some(table))
                .map(|(index, c)| (index, c.clone()))
                .collect();
            if columns.is_empty() {
                continue;
            }
            for (_, correlated) in &mut self.outer_scopes[level..] {
                *correlated = true;
            }
            let mut items = Vec::with_capacity(columns.len());
            for (index, c) in columns {
                self.note_attribute_use(c.table_oid, c.attnum, AclMode::SELECT);
                items.push(OutputItem {
                    expr: ScalarExpr::OuterColumn {
                        depth,
                        index,
                        ty: c.ty,
                    },
                    name: c.name,
                    table_oid: c.table_oid,
                    attnum: c.attnum,
                    position: None,
                });
            }
            return items;
        }
        Vec::new()
    }

    /// The columns `*` (or `table.*`) stands for, each noted as read.
    fn wildcard(&mut self, scope: &Scope, table: Option<&str>) -> Vec<OutputItem> {
        let mut items = Vec::new();
        for (index, c) in scope.columns.iter().enumerate() {
            let named = match table {
                None => !c.qualified_only,
                Some(t) => c.table.as_deref() == Some(t),
            };
            if named {
                self.note_column_use(c, AclMode::SELECT);
                items.push(OutputItem {
                    expr: ScalarExpr::Column { index, ty: c.ty },
                    name: c.name.clone(),
                    table_oid: c.table_oid,
                    attnum: c.attnum,
                    position: None,
                });
            }
        }
        items
    }
}

fn output_item(expr: ScalarExpr, name: String, scope: &Scope, position: Option<u32>) -> OutputItem {
    let (table_oid, attnum) = match &expr {
        ScalarExpr::Column { index, .. } if *index < scope.columns.len() => (
            scope.columns[*index].table_oid,
            scope.columns[*index].attnum,
        ),
        _ => (0, 0),
    };
    OutputItem {
        expr,
        name,
        table_oid,
        attnum,
        position,
    }
}

fn contains_aggregate(expr: &ScalarExpr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        if matches!(e, ScalarExpr::Column { index, .. } if *index >= AGGREGATE_REF_BASE) {
            found = true;
        }
    });
    found
}

/// What an expression over a grouped query's input becomes after aggregation: the group
/// keys, then the aggregates, then the grouping() calls.
struct GroupedOutputs<'a> {
    group_by: &'a [ScalarExpr],
    aggregates: usize,
}

/// Rewrites an expression over the input rows into one over the aggregate's output: group
/// keys become their key column (a constant only as a whole select-list item), aggregate and grouping() references their result column;
/// any other input column is PostgreSQL's grouping error.
fn rewrite_grouped(
    expr: ScalarExpr,
    outputs: &GroupedOutputs<'_>,
    scope: &Scope,
) -> Result<ScalarExpr> {
    let group_by = outputs.group_by;
    if let Some(i) = group_by.iter().position(|g| *g == expr) {
        return Ok(ScalarExpr::Column {
            index: i,
            ty: expr.ty(),
        });
    }
    match expr {
        window @ ScalarExpr::Column { index, .. } if index >= WINDOW_REF_BASE => Ok(window),
        ScalarExpr::Column { index, ty } if index >= GROUPING_REF_BASE => Ok(ScalarExpr::Column {
            index: group_by.len() + outputs.aggregates + (index - GROUPING_REF_BASE),
            ty,
        }),
        ScalarExpr::Column { index, ty } if index >= AGGREGATE_REF_BASE => Ok(ScalarExpr::Column {
            index: group_by.len() + (index - AGGREGATE_REF_BASE),
            ty,
        }),
        ScalarExpr::Column { index, .. } => {
            let column = &scope.columns[index];
            let name = match &column.table {
                Some(t) => format!("{t}.{}", column.name),
                None => column.name.clone(),
            };
            Err(Error::new(
                SqlState::GroupingError,
                format!("column \"{name}\" must appear in the GROUP BY clause or be used in an aggregate function"),
            ))
        }
        ScalarExpr::Subquery(subquery) if subquery.correlated => Err(Error::unsupported(
            "a correlated subquery in a grouped query's output",
        )),
        // A constant inside an expression stays a constant, though a group key is the same
        // constant: grouping sets make the key NULL where it is not grouped, and PostgreSQL
        // never replaces a Const by a key (`HAVING count(*) > 0` beside the key `0::bigint`).
        other => other.try_map_children(&mut |e| match e {
            literal @ ScalarExpr::Literal { .. } => Ok(literal),
            e => rewrite_grouped(e, outputs, scope),
        }),
    }
}

/// Window call references become the window operator's output columns after `width`.
fn window_refs_to_columns(expr: ScalarExpr, width: usize) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index, ty } if index >= WINDOW_REF_BASE => ScalarExpr::Column {
            index: width + (index - WINDOW_REF_BASE),
            ty,
        },
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(window_refs_to_columns(e, width)))
                .unwrap_or(fallback)
        }
    }
}

/// The name a cast to `data_type` gives its column: as PostgreSQL takes it from the
/// written type name, its last part (a domain, an enum, a composite type, `name`, a
/// schema-qualified type), a built-in type's SQL-syntax name as the grammar spells it
/// (`int4`, `varchar`), with no typmod and no array bounds (`int[]` is named `int4`).
fn cast_type_name(data_type: &ast::DataType) -> Option<String> {
    match data_type {
        ast::DataType::Array(
            ast::ArrayElemTypeDef::SquareBracket(element, _)
            | ast::ArrayElemTypeDef::AngleBracket(element)
            | ast::ArrayElemTypeDef::Parenthesis(element),
        ) => cast_type_name(element),
        ast::DataType::Custom(name, _) => match name.0.last() {
            Some(ast::ObjectNamePart::Identifier(ident)) => Some(ident_name(ident)),
            _ => None,
        },
        _ => super::bind_data_type(data_type)
            .ok()
            .map(|ty| type_column_name(ty).to_string()),
    }
}

/// PostgreSQL's FigureColname: the name of an unaliased select-list expression.
pub(super) fn column_name(expr: &Expr) -> String {
    figure_colname(expr).map_or_else(|| "?column?".into(), |(name, _)| name)
}

/// A name and whether it is strong (a column, function or subquery's name) rather than a
/// fallback (a cast's type name, `case`): PostgreSQL's FigureColnameInternal strengths.
fn figure_colname(expr: &Expr) -> Option<(String, bool)> {
    let strong = |name: String| Some((name, true));
    match expr {
        Expr::Identifier(ident) => strong(ident_name(ident)),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| (ident_name(p), true)),
        // `t.*` as a value is named after t.
        Expr::QualifiedWildcard(name, _) => match name.0.last() {
            Some(ast::ObjectNamePart::Identifier(ident)) => strong(ident_name(ident)),
            _ => None,
        },
        Expr::Function(f) => match f.name.0.last() {
            Some(ast::ObjectNamePart::Identifier(ident)) => strong(ident_name(ident)),
            _ => None,
        },
        Expr::Cast {
            expr: inner,
            data_type,
            ..
        } => match figure_colname(inner) {
            Some((name, true)) => strong(name),
            _ => cast_type_name(data_type).map(|name| (name, false)),
        },
        Expr::Nested(inner) | Expr::Collate { expr: inner, .. } => figure_colname(inner),
        // A subscript is named after what it subscripts, a field access after the field.
        Expr::CompoundFieldAccess { root, access_chain } => match access_chain.last() {
            Some(ast::AccessExpr::Dot(field)) => figure_colname(field),
            Some(ast::AccessExpr::Subscript(_)) | None => figure_colname(root),
        },
        Expr::Array(_) => strong("array".into()),
        Expr::Tuple(_) => strong("row".into()),
        // SQL-syntax calls are named after the function PostgreSQL's grammar turns them into.
        Expr::Substring {
            shorthand: true, ..
        } => strong("substr".into()),
        Expr::Substring { .. } => strong("substring".into()),
        Expr::Position { .. } => strong("position".into()),
        Expr::Overlay { .. } => strong("overlay".into()),
        Expr::Extract { .. } => strong("extract".into()),
        Expr::Ceil { .. } => strong("ceil".into()),
        Expr::Floor { .. } => strong("floor".into()),
        Expr::Trim { trim_where, .. } => strong(
            match trim_where {
                Some(ast::TrimWhereField::Leading) => "ltrim",
                Some(ast::TrimWhereField::Trailing) => "rtrim",
                Some(ast::TrimWhereField::Both) | None => "btrim",
            }
            .into(),
        ),
        // `date '...'` and `interval '...'` are casts of a literal: named after the type.
        Expr::TypedString(typed) => cast_type_name(&typed.data_type).map(|name| (name, false)),
        Expr::Interval(_) => Some(("interval".into(), false)),
        // Named after its ELSE result when that has a strong name, else `case`.
        Expr::Case { else_result, .. } => match else_result.as_deref().and_then(figure_colname) {
            Some((name, true)) => strong(name),
            _ => Some(("case".into(), false)),
        },
        Expr::Exists { .. } => strong("exists".into()),
        // A scalar subquery is named after its single output column.
        Expr::Subquery(query) => match query.body.as_ref() {
            SetExpr::Select(select) => match select.projection.first() {
                Some(SelectItem::UnnamedExpr(e)) => strong(column_name(e)),
                Some(SelectItem::ExprWithAlias { alias, .. }) => strong(ident_name(alias)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}
