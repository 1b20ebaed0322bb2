//! AST expressions → typed [`ScalarExpr`]s: names resolved in a [`Scope`], literals typed,
//! operators and functions resolved with PostgreSQL's rules, aggregates collected.

use sqlparser::ast::{
    self, BinaryOperator, CastKind, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, UnaryOperator, Value,
};

use super::array::ARRAY_FUNCTIONS;
use super::coerce::{common_type, union_type};
use super::data_type::bind_data_type;
use super::position::{about_a_literal, about_a_name, placed};
use super::scope::Scope;
use super::window::WindowCallSyntax;
use super::{ident_name, Binder};
use crate::catalog::{system, AclMode};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::function::{
    AggregateFunction, ArrayFunction, PatternSyntax, ScalarFunction, TableFunction,
};
use std::sync::Arc;

use crate::plan::{
    AggregateCall, ArithmeticOp, BoolTest, ColumnInfo, CompareOp, LogicalPlan, Quantifier,
    ScalarExpr, SequenceFunction, SessionInfo, SortKey, Subquery, SubqueryKind,
};
use crate::types::{bit_string, text_io, DataType, Decimal, OidKind, ScalarValue};

/// Aggregate calls met while binding a select list, HAVING or ORDER BY. Each call is replaced
/// by a reference [`AGGREGATE_REF_BASE`] + its position, which the select binder maps to the
/// aggregate's output column.
#[derive(Default)]
pub struct AggregateCollector {
    pub calls: Vec<AggregateCall>,
    /// The arguments of each `grouping(...)` call, referenced as [`GROUPING_REF_BASE`] + i.
    pub groupings: Vec<Vec<ScalarExpr>>,
}

/// Column indexes at or above this refer to collected aggregates, not input columns.
pub const AGGREGATE_REF_BASE: usize = usize::MAX / 2;
/// Column indexes at or above this (and below [`WINDOW_REF_BASE`]) refer to grouping() calls.
pub const GROUPING_REF_BASE: usize = usize::MAX / 8 * 5;
/// Column indexes at or above this refer to collected window function calls.
pub const WINDOW_REF_BASE: usize = usize::MAX / 4 * 3;

impl Binder<'_> {
    /// Binds one expression; the stack grows as the recursion needs.
    #[recursive::recursive]
    pub(super) fn bind_expr(&mut self, expr: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        // A statement of a hundred thousand terms takes seconds to bind.
        crate::interrupt::check_running()?;
        let bound = self.nested(|binder| binder.bind_expr_node(expr, scope));
        self.subexpression_failed = bound.is_err();
        Ok(bound?.fold_strict_nulls())
    }

    /// Runs `bind` one level deeper. Expressions and set operations nesting deeper than
    /// [`MAX_NESTING_DEPTH`] are 54001, as PostgreSQL's stack limit makes them: every later
    /// pass recurses over the same depth.
    pub(super) fn nested<T>(&mut self, bind: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.nesting_depth >= MAX_NESTING_DEPTH {
            return Err(
                Error::new(SqlState::StatementTooComplex, "stack depth limit exceeded")
                    .with_hint("The statement nests too deeply; split it up."),
            );
        }
        self.nesting_depth += 1;
        let bound = bind(self);
        self.nesting_depth -= 1;
        bound
    }

    fn bind_expr_node(&mut self, expr: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        match expr {
            Expr::Identifier(ident) => {
                let name = ident_name(ident);
                // Keywords in PostgreSQL's grammar: no column can be named this unquoted.
                if ident.quote_style.is_none()
                    && matches!(
                        name.as_str(),
                        "current_role" | "current_schema" | "current_catalog"
                    )
                {
                    if name == "current_schema" {
                        return Ok(self.current_schema());
                    }
                    if let Some(info) = session_info(&name) {
                        return Ok(ScalarExpr::SessionInfo(info));
                    }
                }
                self.located(
                    |binder| binder.resolve_column(scope, None, &name),
                    |binder, error| about_a_name(error).then(|| binder.ident_position(ident))?,
                )
            }
            Expr::CompoundIdentifier(parts) => self.located(
                |binder| match parts.as_slice() {
                    [table, column] => {
                        binder.resolve_column(scope, Some(&ident_name(table)), &ident_name(column))
                    }
                    [schema, table, column] => {
                        let table = ident_name(table);
                        binder.check_schema_qualifier(scope, &ident_name(schema), &table)?;
                        binder.resolve_column(scope, Some(&table), &ident_name(column))
                    }
                    _ => Err(Error::unsupported(format!("the name {expr}"))),
                },
                |binder, error| about_a_name(error).then(|| binder.ident_position(&parts[0]))?,
            ),
            Expr::Subquery(query) => {
                let (plan, columns, correlated) = self.bind_subquery(query, scope)?;
                let ty = single_column(&columns)?;
                Ok(self.subquery(plan, correlated, SubqueryKind::Scalar(ty)))
            }
            Expr::Exists { subquery, negated } => {
                let (plan, _, correlated) = self.bind_subquery(subquery, scope)?;
                let exists = self.subquery(plan, correlated, SubqueryKind::Exists);
                Ok(if *negated {
                    ScalarExpr::Not(Box::new(exists))
                } else {
                    exists
                })
            }
            Expr::InSubquery {
                expr: inner,
                subquery,
                negated,
            } => {
                let any =
                    self.bind_quantified(inner, subquery, CompareOp::Eq, Quantifier::Any, scope)?;
                Ok(if *negated {
                    ScalarExpr::Not(Box::new(any))
                } else {
                    any
                })
            }
            Expr::AnyOp {
                left,
                compare_op,
                right,
                is_some: _,
            }
            | Expr::AllOp {
                left,
                compare_op,
                right,
            } => {
                let all = matches!(expr, Expr::AllOp { .. });
                let (like, regex) = (PatternSyntax::Like, PatternSyntax::Regex);
                let pattern = match compare_op {
                    BinaryOperator::PGLikeMatch => Some((like, false, false)),
                    BinaryOperator::PGNotLikeMatch => Some((like, true, false)),
                    BinaryOperator::PGILikeMatch => Some((like, false, true)),
                    BinaryOperator::PGNotILikeMatch => Some((like, true, true)),
                    BinaryOperator::PGRegexMatch => Some((regex, false, false)),
                    BinaryOperator::PGRegexNotMatch => Some((regex, true, false)),
                    BinaryOperator::PGRegexIMatch => Some((regex, false, true)),
                    BinaryOperator::PGRegexNotIMatch => Some((regex, true, true)),
                    _ => None,
                };
                if let Some((syntax, negated, case_insensitive)) = pattern {
                    let quantified = (syntax, negated, case_insensitive, all);
                    return self.bind_quantified_match(left, right, quantified, scope);
                }
                let op = compare_operator(compare_op).ok_or_else(|| {
                    Error::unsupported(format!("the operator {compare_op} with ANY/ALL"))
                })?;
                let Expr::Subquery(subquery) = right.as_ref() else {
                    return self.bind_array_quantified(left, op, right, all, scope);
                };
                let quantifier = if all {
                    Quantifier::All
                } else {
                    Quantifier::Any
                };
                self.bind_quantified(left, subquery, op, quantifier, scope)
            }
            Expr::Value(value) => self.bind_value(&value.value),
            Expr::TypedString(typed) => {
                let ty = bind_data_type(&typed.data_type)?;
                let text = match &typed.value.value {
                    Value::SingleQuotedString(s) => s.clone(),
                    other => return Err(Error::unsupported(format!("typed literal {other}"))),
                };
                self.located(
                    |binder| match binder.relative_datetime_literal(&text, ty) {
                        Some(bound) => bound,
                        None => Ok(ScalarExpr::literal(text_io::parse_text(&text, ty)?, ty)),
                    },
                    |binder, error| {
                        about_a_literal(error).then(|| binder.value_position(&typed.value))?
                    },
                )
            }
            Expr::Nested(inner) => self.bind_expr(inner, scope),
            Expr::UnaryOp { op, expr: inner } => self.located(
                |binder| binder.bind_unary(*op, inner, scope),
                |binder, error| match error.state {
                    SqlState::UndefinedFunction => {
                        binder.prefix_operator_position(&op.to_string(), inner)
                    }
                    _ => None,
                },
            ),
            Expr::BinaryOp { left, op, right } => self.located(
                |binder| binder.bind_binary(left, op, right, scope),
                |binder, error| match error.state {
                    SqlState::UndefinedFunction | SqlState::AmbiguousFunction => {
                        binder.operator_position(left, op)
                    }
                    _ if about_a_literal(error) => {
                        binder.sole_literal_position([left.as_ref(), right.as_ref()])
                    }
                    _ => None,
                },
            ),
            Expr::Cast {
                kind,
                expr: inner,
                data_type,
                format,
            } => {
                if format.is_some() || matches!(kind, CastKind::TryCast | CastKind::SafeCast) {
                    return Err(Error::unsupported(format!("the cast {expr}")));
                }
                if super::record::is_record_type_name(data_type) {
                    return self.cast_to_record(inner, scope);
                }
                let (to, domain) = self.bind_column_type(data_type)?;
                let value = self.located(
                    |binder| {
                        // Under a cast, ARRAY[...]'s elements are cast to the element type.
                        let input = match (&**inner, to) {
                            (Expr::Array(array), DataType::Array(_)) => {
                                binder.bind_array_constructor(array, Some(to), scope)?
                            }
                            _ => binder.bind_expr_for(inner, to, scope)?,
                        };
                        binder.coerce(input, to, CastContext::Explicit)
                    },
                    |binder, error| match error.state {
                        SqlState::CannotCoerce if *kind == CastKind::DoubleColon => {
                            binder.cast_position(inner)
                        }
                        _ if about_a_literal(error) => binder.literal_position(inner),
                        _ => None,
                    },
                )?;
                match domain {
                    Some(domain) => self.coerce_to_domain(value, domain),
                    None => Ok(value),
                }
            }
            Expr::IsNull(inner) | Expr::IsNotNull(inner) => {
                let input = self.bind_expr(inner, scope)?;
                Ok(self.null_test(input, matches!(expr, Expr::IsNotNull(_))))
            }
            Expr::Tuple(fields) => {
                let fields: Vec<&Expr> = fields.iter().collect();
                self.bind_row_value(&fields, scope)
            }
            Expr::IsTrue(inner) => self.bind_bool_test(inner, BoolTest::IsTrue, scope),
            Expr::IsNotTrue(inner) => self.bind_bool_test(inner, BoolTest::IsNotTrue, scope),
            Expr::IsFalse(inner) => self.bind_bool_test(inner, BoolTest::IsFalse, scope),
            Expr::IsNotFalse(inner) => self.bind_bool_test(inner, BoolTest::IsNotFalse, scope),
            Expr::IsUnknown(inner) => self.bind_bool_test(inner, BoolTest::IsUnknown, scope),
            Expr::IsNotUnknown(inner) => self.bind_bool_test(inner, BoolTest::IsNotUnknown, scope),
            Expr::IsDistinctFrom(l, r) | Expr::IsNotDistinctFrom(l, r) => {
                let negated = matches!(expr, Expr::IsNotDistinctFrom(..));
                if let Some(rows) = self.bind_row_distinct(l, r, negated, scope)? {
                    return Ok(rows);
                }
                let (left, right) = (self.bind_expr(l, scope)?, self.bind_expr(r, scope)?);
                let (left, right, _) = self.coerce_pair(left, right, "=")?;
                Ok(ScalarExpr::IsDistinctFrom {
                    left: Box::new(left),
                    right: Box::new(right),
                    negated,
                })
            }
            Expr::InList {
                expr: inner,
                list,
                negated,
            } => self.bind_in_list(inner, list, *negated, scope),
            Expr::Between {
                expr: inner,
                negated,
                low,
                high,
            } => {
                let value = self.bind_expr(inner, scope)?;
                let low = self.bind_expr(low, scope)?;
                let high = self.bind_expr(high, scope)?;
                let (lo_op, hi_op) = if *negated {
                    (CompareOp::Lt, CompareOp::Gt)
                } else {
                    (CompareOp::GtEq, CompareOp::LtEq)
                };
                let above = self.compare(lo_op, value.clone(), low)?;
                let below = self.compare(hi_op, value, high)?;
                Ok(if *negated {
                    ScalarExpr::Or(Box::new(above), Box::new(below))
                } else {
                    ScalarExpr::And(Box::new(above), Box::new(below))
                })
            }
            Expr::Like {
                negated,
                any,
                expr: inner,
                pattern,
                escape_char,
            }
            | Expr::ILike {
                negated,
                any,
                expr: inner,
                pattern,
                escape_char,
            } => {
                let case_insensitive = matches!(expr, Expr::ILike { .. });
                let quantified = match (*any, like_all_operand(pattern)) {
                    (true, _) => Some((pattern.as_ref(), false)),
                    (false, Some(array)) => Some((array, true)),
                    (false, None) => None,
                };
                if let Some((array, all)) = quantified {
                    if escape_char.is_some() {
                        return Err(Error::syntax("syntax error at or near \"ESCAPE\""));
                    }
                    let like = (PatternSyntax::Like, *negated, case_insensitive, all);
                    return self.bind_quantified_match(inner, array, like, scope);
                }
                let like = self.bind_like(inner, pattern, *negated, case_insensitive, scope)?;
                match escape_char {
                    None => Ok(like),
                    Some(escape) => with_like_escape(like, escape),
                }
            }
            Expr::Collate {
                expr: inner,
                collation,
            } => {
                let bound = self.bind_expr(inner, scope)?;
                let name = match collation.0.as_slice() {
                    [ast::ObjectNamePart::Identifier(ident)] => ident.value.clone(),
                    [ast::ObjectNamePart::Identifier(schema), ast::ObjectNamePart::Identifier(ident)]
                        if schema.value == "pg_catalog" =>
                    {
                        ident.value.clone()
                    }
                    _ => String::new(),
                };
                // Text compares by bytes everywhere, which is what these collations mean.
                if !matches!(name.as_str(), "C" | "POSIX" | "default" | "ucs_basic") {
                    return Err(Error::unsupported(format!("the collation {collation}")));
                }
                let ty = bound.ty();
                if !(ty.is_string() || ty == DataType::Unknown) {
                    return Err(Error::new(
                        SqlState::DatatypeMismatch,
                        format!("collations are not supported by type {ty}"),
                    ));
                }
                Ok(bound)
            }
            Expr::SimilarTo {
                negated,
                expr: inner,
                pattern,
                escape_char,
            } => self.bind_similar_to(inner, pattern, escape_char.as_deref(), *negated, scope),
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                scope,
            ),
            Expr::Function(function) => self.located(
                |binder| binder.bind_function(function, scope),
                |binder, error| match error.state {
                    SqlState::UndefinedFunction
                    | SqlState::AmbiguousFunction
                    | SqlState::GroupingError
                    | SqlState::WindowingError => binder.name_position(&function.name),
                    SqlState::UndefinedObject => match &function.over {
                        Some(ast::WindowType::NamedWindow(window)) => binder.ident_position(window),
                        _ => None,
                    },
                    _ => None,
                },
            ),
            // `t.*` inside an expression (not expanded in a select list): t's whole row.
            Expr::QualifiedWildcard(name, _) => match name.0.as_slice() {
                [ast::ObjectNamePart::Identifier(ident)] => {
                    let table = ident_name(ident);
                    match self.whole_row_reference(scope, &table) {
                        Some(row) => row,
                        None => {
                            let error = self.missing_from_entry(scope, &table);
                            Err(placed(error, self.ident_position(ident)))
                        }
                    }
                }
                _ => Err(Error::unsupported(format!("the expression {name}.*"))),
            },
            Expr::Prefixed { prefix, .. } if prefix.value == "VARIADIC" => {
                Err(Error::syntax("syntax error at or near \"VARIADIC\""))
            }
            other => match self.bind_special_function(other, scope) {
                Some(bound) => bound,
                None => match self.bind_datetime_syntax(other, scope) {
                    Some(bound) => bound,
                    None => match self.bind_array_syntax(other, scope) {
                        Some(bound) => bound,
                        None => Err(Error::unsupported(format!("the expression {other}"))),
                    },
                },
            },
        }
    }

    /// Binds an expression whose value goes to type `target`. A numeric literal bound for a
    /// float is read as a float directly, so literals beyond NUMERIC's 38 digits such as
    /// `1e308::float8` still work.
    pub(super) fn bind_expr_for(
        &mut self,
        expr: &Expr,
        target: DataType,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        if matches!(target, DataType::Float32 | DataType::Float64) {
            let (negative, inner) = match expr {
                Expr::UnaryOp {
                    op: UnaryOperator::Minus,
                    expr,
                } => (true, expr.as_ref()),
                other => (false, other),
            };
            if let Expr::Value(v) = inner {
                if let Value::Number(text, _) = &v.value {
                    let text = if negative {
                        format!("-{text}")
                    } else {
                        text.clone()
                    };
                    let value = crate::types::float::parse_f64(&text)?;
                    // The literal is an integer or NUMERIC, neither of which has a negative
                    // zero: `CAST(-0 AS real)` is 0 in PostgreSQL, not -0.
                    let value = if value == 0.0 { 0.0 } else { value };
                    return Ok(ScalarExpr::literal(
                        ScalarValue::Float64(value),
                        DataType::Float64,
                    ));
                }
            }
        }
        self.bind_expr(expr, scope)
    }

    /// A column of the current scope, else of an enclosing query (a correlated reference).
    fn resolve_column(
        &mut self,
        scope: &Scope,
        table: Option<&str>,
        name: &str,
    ) -> Result<ScalarExpr> {
        let error = match scope.resolve(table, name) {
            Ok(column) => {
                if let ScalarExpr::Column { index, .. } = &column {
                    self.note_column_use(&scope.columns[*index], AclMode::SELECT);
                }
                return Ok(column);
            }
            Err(e) if e.state == SqlState::UndefinedColumn && name == "tableoid" => {
                let partitioned = (scope.relation_oid(table))
                    .and_then(|oid| self.state.tables.get(&oid))
                    .is_some_and(|t| t.schema.partition_key.is_some());
                if partitioned {
                    // Each row's partition is not carried through the scan yet.
                    return Err(Error::unsupported("tableoid of a partitioned table"));
                }
                match self.table_oid_column(scope, table) {
                    Some(column) => return Ok(column),
                    None => e,
                }
            }
            Err(e)
                if matches!(
                    e.state,
                    SqlState::UndefinedColumn | SqlState::UndefinedTable
                ) =>
            {
                e
            }
            Err(e) => return Err(e),
        };
        let levels = self.outer_scopes.len();
        for depth in 1..=levels {
            let level = levels - depth;
            if let Ok(ScalarExpr::Column { index, ty }) =
                self.outer_scopes[level].0.resolve(table, name)
            {
                let column = &self.outer_scopes[level].0.columns[index];
                let (oid, attnum) = (column.table_oid, column.attnum);
                self.note_attribute_use(oid, attnum, AclMode::SELECT);
                // Every subquery between here and that scope reads outside itself.
                for (_, correlated) in &mut self.outer_scopes[level..] {
                    *correlated = true;
                }
                return Ok(ScalarExpr::OuterColumn { depth, index, ty });
            }
        }
        // As PostgreSQL: a name that is no column at any level may name a FROM item.
        if error.state == SqlState::UndefinedColumn && table.is_none() {
            if let Some(row) = self.whole_row_reference(scope, name) {
                return row;
            }
        }
        match table {
            Some(table) if error.state == SqlState::UndefinedTable => {
                Err(self.missing_from_entry(scope, table))
            }
            None if error.state == SqlState::UndefinedColumn => {
                Err(self.with_out_of_reach_column_hint(error, name))
            }
            _ => Err(error),
        }
    }

    /// The system column `tableoid` of a table or catalog table in `scope` (pg_dump reads
    /// it from every catalog it lists): the relation's OID, the same on every row since
    /// there is no inheritance. Views and subqueries have no system columns.
    fn table_oid_column(&self, scope: &Scope, table: Option<&str>) -> Option<ScalarExpr> {
        let oid = scope.relation_oid(table)?;
        let is_table = self.state.tables.contains_key(&oid)
            || system::RELATIONS
                .iter()
                .any(|r| r.oid == oid && r.kind == b'r');
        is_table.then(|| {
            ScalarExpr::literal(
                ScalarValue::Int64(i64::from(oid)),
                DataType::Oid(OidKind::Oid),
            )
        })
    }

    /// Binds a subquery with `scope` visible to it as its enclosing query; also says whether
    /// it reads that (or an outer) query's row.
    pub(super) fn bind_subquery(
        &mut self,
        query: &ast::Query,
        scope: &Scope,
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>, bool)> {
        self.outer_scopes.push((scope.clone(), false));
        // The enclosing select list's window calls too: the subquery's own select list
        // collects its own, and leaves none behind.
        let saved = (
            self.aggregates.take(),
            self.aggregate_forbidden_in.take(),
            self.windows.take(),
        );
        self.sublink_depth += 1;
        let bound = self.bind_query(query);
        self.sublink_depth -= 1;
        (self.aggregates, self.aggregate_forbidden_in, self.windows) = saved;
        let correlated = self.outer_scopes.pop().is_some_and(|(_, c)| c);
        let (plan, columns) = bound?;
        Ok((plan, columns, correlated))
    }

    pub(super) fn subquery(
        &mut self,
        plan: LogicalPlan,
        correlated: bool,
        kind: SubqueryKind,
    ) -> ScalarExpr {
        self.subquery_count += 1;
        ScalarExpr::Subquery(Box::new(Subquery {
            id: self.subquery_count,
            plan: Arc::new(plan),
            correlated,
            kind,
        }))
    }

    /// nextval('seq'), currval('seq'), setval('seq', n [, is_called]), lastval().
    fn bind_sequence_call(
        &mut self,
        func: SequenceFunction,
        name: &str,
        args: &[&Expr],
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let arity_ok = match func {
            SequenceFunction::NextVal | SequenceFunction::CurrVal => args.len() == 1,
            SequenceFunction::SetVal => (2..=3).contains(&args.len()),
            SequenceFunction::LastVal => args.is_empty(),
            // Never called by name: they read a sequence in FROM.
            SequenceFunction::ReadLastValue
            | SequenceFunction::ReadLogCount
            | SequenceFunction::ReadIsCalled => false,
        };
        if !arity_ok {
            return Err(self.undefined_function(name, &[]));
        }
        let sequence = match args.first() {
            None => None,
            Some(first) => {
                let Some(text) = sequence_name_argument(first) else {
                    return Err(Error::unsupported(format!(
                        "{name} of a computed sequence name"
                    )));
                };
                let sequence = self.relation_name(&super::names::regclass_name(&text)?)?;
                let Some(oid) = self.state.sequences.get(&sequence).map(|s| s.oid) else {
                    return Err(Error::new(
                        SqlState::UndefinedTable,
                        format!("relation \"{sequence}\" does not exist"),
                    ));
                };
                self.require_sequence(&sequence, oid, func.privileges_needed(), true)?;
                Some(sequence)
            }
        };
        let mut bound = Vec::new();
        for (i, arg) in args.iter().enumerate().skip(1) {
            let value = self.bind_expr(arg, scope)?;
            let ty = if i == 1 {
                DataType::Int64
            } else {
                DataType::Bool
            };
            bound.push(self.coerce(value, ty, CastContext::Implicit)?);
        }
        Ok(ScalarExpr::SequenceCall {
            func,
            sequence,
            args: bound,
        })
    }

    /// `input op ANY/ALL (subquery)`, IN, and `(a, b) op (subquery)`. A row constructor on
    /// the left compares its fields with the subquery's columns, which must be as many.
    pub(super) fn bind_quantified(
        &mut self,
        input: &Expr,
        query: &ast::Query,
        op: CompareOp,
        quantifier: Quantifier,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let fields = super::row::row_fields(input).unwrap_or_else(|| vec![input]);
        let inputs = fields
            .into_iter()
            .map(|field| self.bind_expr(field, scope))
            .collect::<Result<Vec<_>>>()?;
        let (plan, columns, correlated) = self.bind_subquery(query, scope)?;
        match columns.len().cmp(&inputs.len()) {
            std::cmp::Ordering::Greater => {
                return Err(Error::syntax("subquery has too many columns"))
            }
            std::cmp::Ordering::Less => return Err(Error::syntax("subquery has too few columns")),
            std::cmp::Ordering::Equal => {}
        }
        let mut coerced_inputs = Vec::with_capacity(inputs.len());
        let mut coerced_columns = Vec::with_capacity(inputs.len());
        for (index, (input, column)) in inputs.into_iter().zip(&columns).enumerate() {
            let column_ty = column.data_type;
            let Some(common) = common_type(input.ty(), column_ty) else {
                return Err(self.operator_error(op.symbol(), input.ty(), column_ty));
            };
            coerced_inputs.push(self.coerce(input, common, CastContext::Implicit)?);
            let column = ScalarExpr::Column {
                index,
                ty: column_ty,
            };
            coerced_columns.push(self.coerce(column, common, CastContext::Implicit)?);
        }
        let unchanged = coerced_columns
            .iter()
            .zip(&columns)
            .all(|(coerced, column)| coerced.ty() == column.data_type);
        let plan = if unchanged {
            plan
        } else {
            LogicalPlan::Project {
                input: Box::new(plan),
                exprs: coerced_columns,
            }
        };
        Ok(self.subquery(
            plan,
            correlated,
            SubqueryKind::Quantified {
                inputs: coerced_inputs,
                op,
                quantifier,
            },
        ))
    }

    /// Binds and requires a boolean (WHERE, HAVING, CASE WHEN, AND/OR/NOT operands).
    pub(super) fn bind_condition(
        &mut self,
        expr: &Expr,
        scope: &Scope,
        clause: &str,
    ) -> Result<ScalarExpr> {
        let bound = self.bind_expr(expr, scope)?;
        self.located(
            |binder| binder.require_bool(bound, clause),
            |binder, error| match error.state {
                SqlState::DatatypeMismatch => binder.expr_position(expr),
                _ if about_a_literal(error) => binder.literal_position(expr),
                _ => None,
            },
        )
    }

    fn require_bool(&mut self, bound: ScalarExpr, clause: &str) -> Result<ScalarExpr> {
        match bound.ty() {
            DataType::Bool => Ok(bound),
            DataType::Unknown => self.coerce(bound, DataType::Bool, CastContext::Implicit),
            other => Err(Error::new(
                SqlState::DatatypeMismatch,
                format!("argument of {clause} must be type boolean, not type {other}"),
            )),
        }
    }

    fn bind_value(&mut self, value: &Value) -> Result<ScalarExpr> {
        match value {
            Value::Number(text, _) => number_literal(text),
            Value::SingleQuotedString(s)
            | Value::EscapedStringLiteral(s)
            | Value::UnicodeStringLiteral(s) => Ok(ScalarExpr::literal(
                ScalarValue::Text(s.clone()),
                DataType::Unknown,
            )),
            Value::DollarQuotedString(s) => Ok(ScalarExpr::literal(
                ScalarValue::Text(s.value.clone()),
                DataType::Unknown,
            )),
            Value::Boolean(b) => Ok(ScalarExpr::literal(ScalarValue::Bool(*b), DataType::Bool)),
            // B'1010' and X'1F' are bit strings, written as bit_in reads them.
            Value::SingleQuotedByteStringLiteral(digits) => bit_literal("b", digits),
            Value::HexStringLiteral(digits) => bit_literal("x", digits),
            Value::Null => Ok(ScalarExpr::null(DataType::Unknown)),
            Value::Placeholder(name) => self.bind_param(name),
            other => Err(Error::unsupported(format!("the literal {other}"))),
        }
    }

    fn bind_param(&mut self, name: &str) -> Result<ScalarExpr> {
        let number: usize = name
            .strip_prefix('$')
            .and_then(|n| n.parse().ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| Error::syntax(format!("syntax error at or near \"{name}\"")))?;
        if number > u16::MAX as usize {
            return Err(Error::new(
                SqlState::UndefinedParameter,
                format!("there is no parameter ${number}"),
            ));
        }
        if let Some(param) = self.function_param(number)? {
            return Ok(param);
        }
        if self.params.len() < number {
            self.params.resize(number, DataType::Unknown);
        }
        let ty = self.params[number - 1];
        Ok(match ty.enum_oid() {
            Some(oid) => super::enum_type::enum_param(number - 1, oid, ty),
            None => ScalarExpr::Param {
                index: number - 1,
                ty,
            },
        })
    }

    fn bind_unary(&mut self, op: UnaryOperator, inner: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        match op {
            UnaryOperator::Minus => {
                // Unary minus binds tighter than `^` in PostgreSQL (`-2 ^ 2` is 4), but the
                // parser nests the power inside the minus: move the minus to the base.
                if let Expr::BinaryOp {
                    left,
                    op: BinaryOperator::PGExp,
                    right,
                } = inner
                {
                    let base = Expr::UnaryOp {
                        op,
                        expr: left.clone(),
                    };
                    return self.bind_binary(&base, &BinaryOperator::PGExp, right, scope);
                }
                // PostgreSQL folds a minus into a numeric literal, so -2147483648 is an
                // integer, and so every minus of a chain over one (parentheses vanish in
                // its grammar): `- -2147483648` is the bigint 2147483648.
                if let Some((negative, text)) = negated_number(inner) {
                    let sign = if negative { "" } else { "-" };
                    return number_literal(&format!("{sign}{text}"));
                }
                let input = self.bind_expr(inner, scope)?;
                let input = match input.ty() {
                    // Numbers and intervals have a prefix minus: an untyped operand is both.
                    DataType::Unknown => {
                        return Err(Error::new(
                            SqlState::AmbiguousFunction,
                            "operator is not unique: - unknown",
                        ))
                    }
                    DataType::Oid(_) => return Err(prefix_operator_error("-", input.ty())),
                    ty if ty.category() == crate::types::TypeCategory::Numeric => input,
                    DataType::Interval(_) => {
                        return Ok(super::datetime_ops::negate_interval(input))
                    }
                    ty => return Err(prefix_operator_error("-", ty)),
                };
                Ok(ScalarExpr::Negate(Box::new(input)))
            }
            UnaryOperator::Plus => {
                // Only numbers have a prefix plus: an untyped operand is double precision.
                let input = self.bind_expr(inner, scope)?;
                match input.ty() {
                    DataType::Unknown => {
                        self.coerce(input, DataType::Float64, CastContext::Implicit)
                    }
                    DataType::Oid(_) => Err(prefix_operator_error("+", input.ty())),
                    ty if ty.category() == crate::types::TypeCategory::Numeric => Ok(input),
                    ty => Err(prefix_operator_error("+", ty)),
                }
            }
            UnaryOperator::BitwiseNot
            | UnaryOperator::PGSquareRoot
            | UnaryOperator::PGCubeRoot
            | UnaryOperator::PGAbs => {
                let operand = self.bind_expr(inner, scope)?;
                self.bind_operator_function(&op.to_string(), vec![operand])
            }
            // PostgreSQL 14 removed the factorial operators `!` and `!!`.
            UnaryOperator::PGPostfixFactorial | UnaryOperator::PGPrefixFactorial => {
                Err(Error::syntax(format!("syntax error at or near \"{op}\"")))
            }
            UnaryOperator::Not => {
                let input = self.bind_condition(inner, scope, "NOT")?;
                Ok(ScalarExpr::Not(Box::new(input)))
            }
            other => Err(Error::unsupported(format!("the operator {other}"))),
        }
    }

    fn bind_binary(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        if let BinaryOperator::PGCustomBinaryOperator(parts) = op {
            return match qualified_operator(parts) {
                Some(op) => self.bind_binary(left, &op, right, scope),
                None => Err(Error::unsupported(format!("the operator {op}"))),
            };
        }
        let arithmetic = match op {
            BinaryOperator::Plus => Some((ArithmeticOp::Add, "+")),
            BinaryOperator::Minus => Some((ArithmeticOp::Sub, "-")),
            BinaryOperator::Multiply => Some((ArithmeticOp::Mul, "*")),
            BinaryOperator::Divide => Some((ArithmeticOp::Div, "/")),
            BinaryOperator::Modulo => Some((ArithmeticOp::Mod, "%")),
            _ => None,
        };
        if let Some((op, symbol)) = arithmetic {
            let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
            // jsonb - key | index | keys; vector + - * vector; inet ± bigint, inet - inet.
            let own = |t: DataType| {
                matches!(
                    t,
                    DataType::FloatVector(_) | DataType::Inet | DataType::Cidr
                )
            };
            if (op == ArithmeticOp::Sub && l.ty() == DataType::Jsonb) || own(l.ty()) || own(r.ty())
            {
                return self.bind_operator_function(symbol, vec![l, r]);
            }
            return self.arithmetic(op, symbol, l, r);
        }
        let compare = match op {
            BinaryOperator::Eq => Some(CompareOp::Eq),
            BinaryOperator::NotEq => Some(CompareOp::NotEq),
            BinaryOperator::Lt => Some(CompareOp::Lt),
            BinaryOperator::LtEq => Some(CompareOp::LtEq),
            BinaryOperator::Gt => Some(CompareOp::Gt),
            BinaryOperator::GtEq => Some(CompareOp::GtEq),
            _ => None,
        };
        if let Some(op) = compare {
            if let Some(rows) = self.bind_row_compare(left, op, right, scope)? {
                return Ok(rows);
            }
            let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
            return self.compare(op, l, r);
        }
        match op {
            BinaryOperator::And | BinaryOperator::Or => {
                let and = *op == BinaryOperator::And;
                let clause = if and { "AND" } else { "OR" };
                // Generated SQL chains thousands of ORs: bind the chain's operands in a loop
                // and combine them as a balanced tree, so no later pass recurses per operand.
                let mut operands = Vec::new();
                let mut pending = vec![right, left];
                while let Some(e) = pending.pop() {
                    match e {
                        Expr::BinaryOp {
                            left: l,
                            op: o,
                            right: r,
                        } if o == op => {
                            pending.push(r);
                            pending.push(l);
                        }
                        _ => operands.push(self.bind_condition(e, scope, clause)?),
                    }
                }
                let combine = if and { ScalarExpr::And } else { ScalarExpr::Or };
                balanced(operands, &|l, r| combine(Box::new(l), Box::new(r)))
            }
            BinaryOperator::StringConcat => {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                let (lt, rt) = (l.ty(), r.ty());
                if matches!(lt, DataType::Array(_)) || matches!(rt, DataType::Array(_)) {
                    return self.bind_array_concat(l, r);
                }
                // bytea || bytea, jsonb || jsonb, vector || vector and bit strings' bitcat
                // are their own operators.
                let own = |a: DataType, b: DataType| match a {
                    DataType::Bytea | DataType::Jsonb | DataType::FloatVector(_) => {
                        b.physical() == a.physical() || b == DataType::Unknown
                    }
                    DataType::Bit(_) | DataType::VarBit(_) => matches!(
                        b,
                        DataType::Bit(_) | DataType::VarBit(_) | DataType::Unknown
                    ),
                    _ => false,
                };
                if own(lt, rt) || own(rt, lt) {
                    return self.bind_operator_function("||", vec![l, r]);
                }
                // text || anynonarray: the non-text side goes through its output function.
                if !(lt.is_string()
                    || rt.is_string()
                    || lt == DataType::Unknown
                    || rt == DataType::Unknown)
                {
                    return Err(self.operator_error("||", lt, rt));
                }
                let l = self.coerce(l, DataType::Text, CastContext::Explicit)?;
                let r = self.coerce(r, DataType::Text, CastContext::Explicit)?;
                Ok(ScalarExpr::Concat(Box::new(l), Box::new(r)))
            }
            BinaryOperator::PGRegexMatch => self.bind_regex_match(left, right, false, false, scope),
            BinaryOperator::PGRegexIMatch => self.bind_regex_match(left, right, true, false, scope),
            BinaryOperator::PGRegexNotMatch => {
                self.bind_regex_match(left, right, false, true, scope)
            }
            BinaryOperator::PGRegexNotIMatch => {
                self.bind_regex_match(left, right, true, true, scope)
            }
            BinaryOperator::PGLikeMatch | BinaryOperator::PGNotLikeMatch => self.bind_like(
                left,
                right,
                *op == BinaryOperator::PGNotLikeMatch,
                false,
                scope,
            ),
            BinaryOperator::PGILikeMatch | BinaryOperator::PGNotILikeMatch => self.bind_like(
                left,
                right,
                *op == BinaryOperator::PGNotILikeMatch,
                true,
                scope,
            ),
            BinaryOperator::AtArrow | BinaryOperator::ArrowAt | BinaryOperator::PGOverlap => {
                let func = match op {
                    BinaryOperator::AtArrow => ArrayFunction::Contains,
                    BinaryOperator::ArrowAt => ArrayFunction::ContainedBy,
                    _ => ArrayFunction::Overlap,
                };
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                let own =
                    |t: DataType| matches!(t, DataType::Jsonb | DataType::Inet | DataType::Cidr);
                if own(l.ty()) || own(r.ty()) {
                    return self.bind_operator_function(&op.to_string(), vec![l, r]);
                }
                self.bind_array_operator(func, l, r)
            }
            BinaryOperator::Arrow
            | BinaryOperator::LongArrow
            | BinaryOperator::HashArrow
            | BinaryOperator::HashLongArrow
            | BinaryOperator::Question
            | BinaryOperator::QuestionAnd
            | BinaryOperator::QuestionPipe
            | BinaryOperator::HashMinus => {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                let member = matches!(
                    op,
                    BinaryOperator::Arrow
                        | BinaryOperator::LongArrow
                        | BinaryOperator::HashArrow
                        | BinaryOperator::HashLongArrow
                );
                if l.ty() == DataType::Json && !member {
                    // json keeps its text verbatim, which these would have to cut out.
                    return Err(Error::unsupported(format!(
                        "the operator {op} on json (cast the value to jsonb)"
                    )));
                }
                self.bind_operator_function(&op.to_string(), vec![l, r])
            }
            BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight
            | BinaryOperator::PGExp => {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                self.bind_operator_function(&op.to_string(), vec![l, r])
            }
            // pgvector's distances: `<->`, `<=>`, `<#>` and `<+>`.
            BinaryOperator::LtDashGt | BinaryOperator::Spaceship => {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                self.bind_operator_function(&op.to_string(), vec![l, r])
            }
            // pgvector's `<#>` and `<+>`; inet's `<<=` and `>>=`.
            BinaryOperator::Custom(symbol)
                if matches!(symbol.as_str(), "<#>" | "<+>" | "<<=" | ">>=") =>
            {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                self.bind_operator_function(symbol, vec![l, r])
            }
            BinaryOperator::AtQuestion | BinaryOperator::AtAt => {
                let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
                self.bind_operator_function(&op.to_string(), vec![l, r])
            }
            other => Err(Error::unsupported(format!("the operator {other}"))),
        }
    }

    pub(super) fn arithmetic(
        &mut self,
        op: ArithmeticOp,
        symbol: &str,
        l: ScalarExpr,
        r: ScalarExpr,
    ) -> Result<ScalarExpr> {
        if let Some(bound) = self.datetime_arithmetic(op, symbol, &l, &r) {
            return bound;
        }
        let (lt, rt) = (l.ty(), r.ty());
        // The OID types are in the numeric category but have no arithmetic operators.
        let numeric = |t: DataType| {
            (t.category() == crate::types::TypeCategory::Numeric && !matches!(t, DataType::Oid(_)))
                || t == DataType::Unknown
        };
        if !numeric(lt) || !numeric(rt) || (lt == DataType::Unknown && rt == DataType::Unknown) {
            return Err(self.operator_error(symbol, lt, rt));
        }
        let (l, r, ty) = self.coerce_pair(l, r, symbol)?;
        if op == ArithmeticOp::Mod && matches!(ty, DataType::Float32 | DataType::Float64) {
            return Err(self.operator_error(symbol, lt, rt));
        }
        Ok(ScalarExpr::Arithmetic {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty,
        })
    }

    pub(super) fn compare(
        &mut self,
        op: CompareOp,
        l: ScalarExpr,
        r: ScalarExpr,
    ) -> Result<ScalarExpr> {
        let (mut l, mut r, common) = self.coerce_pair(l, r, op.symbol())?;
        if super::coerce::lacks_comparison(common) {
            return Err(self.operator_error(op.symbol(), common, common));
        }
        if let DataType::Char(_) = common {
            // character comparisons ignore trailing blanks: compare the texts without them.
            l = self.coerce(l, DataType::Text, CastContext::Implicit)?;
            r = self.coerce(r, DataType::Text, CastContext::Implicit)?;
        }
        Ok(ScalarExpr::Compare {
            op,
            left: Box::new(l),
            right: Box::new(r),
        })
    }

    fn bind_bool_test(
        &mut self,
        inner: &Expr,
        test: BoolTest,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let clause = match test {
            BoolTest::IsTrue | BoolTest::IsNotTrue => "IS TRUE",
            BoolTest::IsFalse | BoolTest::IsNotFalse => "IS FALSE",
            BoolTest::IsUnknown | BoolTest::IsNotUnknown => "IS UNKNOWN",
        };
        let input = self.bind_condition(inner, scope, clause)?;
        Ok(ScalarExpr::BoolTest {
            input: Box::new(input),
            test,
        })
    }

    fn bind_in_list(
        &mut self,
        inner: &Expr,
        list: &[Expr],
        negated: bool,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        if let Some(rows) = self.bind_row_in_list(inner, list, negated, scope)? {
            return Ok(rows);
        }
        let value = self.bind_expr(inner, scope)?;
        let items = list
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        let mut types = vec![value.ty()];
        types.extend(items.iter().map(|e| e.ty()));
        let Ok(common) = union_type(&types, "IN") else {
            return self.in_list_as_comparisons(value, items, negated);
        };
        if super::coerce::lacks_comparison(common) {
            return Err(self.operator_error("=", common, common));
        }
        // As for `=`: character values compare as texts without their trailing blanks.
        let compared = match common {
            DataType::Char(_) => DataType::Text,
            other => other,
        };
        let mut coerce = |e| {
            let e = self.coerce(e, common, CastContext::Implicit)?;
            self.coerce(e, compared, CastContext::Implicit)
        };
        let value = coerce(value)?;
        let items = items.into_iter().map(coerce).collect::<Result<Vec<_>>>()?;
        Ok(ScalarExpr::InList {
            input: Box::new(value),
            list: items,
            negated,
        })
    }

    /// An IN list whose items have no common type is, as in PostgreSQL, `x = a OR x = b ...`
    /// (`x <> a AND ...` for NOT IN), each comparison typed on its own; an error is then the
    /// comparison operator's.
    fn in_list_as_comparisons(
        &mut self,
        value: ScalarExpr,
        items: Vec<ScalarExpr>,
        negated: bool,
    ) -> Result<ScalarExpr> {
        let op = if negated {
            CompareOp::NotEq
        } else {
            CompareOp::Eq
        };
        let mut combined: Option<ScalarExpr> = None;
        for item in items {
            let compared = self.compare(op, value.clone(), item)?;
            combined = Some(match combined {
                None => compared,
                Some(left) if negated => ScalarExpr::And(Box::new(left), Box::new(compared)),
                Some(left) => ScalarExpr::Or(Box::new(left), Box::new(compared)),
            });
        }
        combined.ok_or_else(|| Error::internal("IN with an empty list"))
    }

    /// `x [NOT] [I]LIKE ANY | ALL (array)` and `x ~ ANY | ALL (array)` with the regex
    /// operator's siblings: the value against each pattern of a text array. A subquery
    /// gives its rows as that array, as `ARRAY(subquery)` would: ANY and ALL then combine
    /// the matches exactly as over the rows.
    fn bind_quantified_match(
        &mut self,
        inner: &Expr,
        array: &Expr,
        (syntax, negated, case_insensitive, all): (PatternSyntax, bool, bool, bool),
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let value = self.bind_expr(inner, scope)?;
        let op = match (syntax, negated, case_insensitive) {
            (PatternSyntax::Like, false, false) => "~~",
            (PatternSyntax::Like, true, false) => "!~~",
            (PatternSyntax::Like, false, true) => "~~*",
            (PatternSyntax::Like, true, true) => "!~~*",
            (PatternSyntax::Regex, false, false) => "~",
            (PatternSyntax::Regex, true, false) => "!~",
            (PatternSyntax::Regex, false, true) => "~*",
            (PatternSyntax::Regex, true, true) => "!~*",
        };
        let patterns = match array {
            Expr::Subquery(query) => {
                let (plan, columns, correlated) = self.bind_subquery(query, scope)?;
                let [column] = columns.as_slice() else {
                    return Err(Error::syntax("subquery has too many columns"));
                };
                let element = column.data_type;
                if element.element().is_some() {
                    return Err(self.operator_error(op, value.ty(), element));
                }
                self.array_subquery(plan, element, correlated)?
            }
            array => self.bind_expr(array, scope)?,
        };
        let element = match patterns.ty() {
            DataType::Unknown => DataType::Text,
            ty => ty.element().unwrap_or(ty),
        };
        for ty in [value.ty(), element] {
            if !(ty.is_string() || ty == DataType::Unknown) {
                return Err(self.operator_error(op, value.ty(), element));
            }
        }
        let text_array = DataType::Array(&DataType::Text);
        if patterns.ty() != DataType::Unknown && patterns.ty().element().is_none() {
            return Err(Error::new(
                SqlState::WrongObjectType,
                "op ANY/ALL (array) requires array on right side",
            ));
        }
        let value = self.coerce(value, DataType::Text, CastContext::Implicit)?;
        let patterns = self.coerce(patterns, text_array, CastContext::Implicit)?;
        Ok(super::array::array_call(
            ArrayFunction::QuantifiedMatch {
                syntax,
                negated,
                case_insensitive,
                all,
            },
            vec![value, patterns],
            DataType::Bool,
        ))
    }

    fn bind_like(
        &mut self,
        inner: &Expr,
        pattern: &Expr,
        negated: bool,
        case_insensitive: bool,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let value = self.bind_expr(inner, scope)?;
        let pattern = self.bind_expr(pattern, scope)?;
        let op = if case_insensitive { "~~*" } else { "~~" };
        for ty in [value.ty(), pattern.ty()] {
            if !(ty.is_string() || ty == DataType::Unknown) {
                return Err(self.operator_error(op, value.ty(), pattern.ty()));
            }
        }
        let value = self.coerce(value, DataType::Text, CastContext::Implicit)?;
        let pattern = self.coerce(pattern, DataType::Text, CastContext::Implicit)?;
        Ok(ScalarExpr::Like {
            input: Box::new(value),
            pattern: Box::new(pattern),
            negated,
            case_insensitive,
        })
    }

    fn bind_case(
        &mut self,
        operand: Option<&Expr>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&Expr>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let operand = operand.map(|o| self.bind_expr(o, scope)).transpose()?;
        let mut whens = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len());
        for when in conditions {
            let condition = match &operand {
                // Simple CASE: `CASE x WHEN v` is `CASE WHEN x = v`.
                Some(operand) => {
                    let value = self.bind_expr(&when.condition, scope)?;
                    self.compare(CompareOp::Eq, operand.clone(), value)?
                }
                None => self.bind_condition(&when.condition, scope, "CASE/WHEN")?,
            };
            whens.push(condition);
            results.push(self.bind_expr(&when.result, scope)?);
        }
        let else_result = else_result.map(|e| self.bind_expr(e, scope)).transpose()?;
        let mut types: Vec<DataType> = results.iter().map(|r| r.ty()).collect();
        types.extend(else_result.iter().map(|e| e.ty()));
        let ty = union_type(&types, "CASE")?;
        let mut bound = Vec::with_capacity(whens.len());
        for (when, result) in whens.into_iter().zip(results) {
            bound.push((when, self.coerce(result, ty, CastContext::Implicit)?));
        }
        let else_result = match else_result {
            Some(e) => Some(Box::new(self.coerce(e, ty, CastContext::Implicit)?)),
            None => None,
        };
        Ok(ScalarExpr::Case {
            whens: bound,
            else_result,
            ty,
        })
    }

    /// `ARRAY(SELECT x ...)`: the rows' single column as an array, in the subquery's order
    /// (of one dimension more when the column is an array, of the same type).
    fn bind_array_subquery(&mut self, query: &ast::Query, scope: &Scope) -> Result<ScalarExpr> {
        let (plan, columns, correlated) = self.bind_subquery(query, scope)?;
        let element = single_column(&columns)?;
        self.array_subquery(plan, element, correlated)
    }

    /// A bound single-column subquery as `ARRAY(subquery)` gives it.
    fn array_subquery(
        &mut self,
        plan: LogicalPlan,
        element: DataType,
        correlated: bool,
    ) -> Result<ScalarExpr> {
        let element = element.element().unwrap_or(element);
        let Some(ty) = DataType::array_of_values(element) else {
            return Err(Error::unsupported(format!("arrays of type {element}")));
        };
        Ok(self.subquery(plan, correlated, SubqueryKind::Array(ty)))
    }

    fn bind_function(&mut self, function: &ast::Function, scope: &Scope) -> Result<ScalarExpr> {
        if let Some(function) = self.with_whole_row_arguments(function, scope) {
            return self.bind_function(&function, scope);
        }
        if let Some(fields) = super::row::row_call_fields(function) {
            return self.bind_row_value(&fields, scope);
        }
        let ast::Function {
            name,
            uses_odbc_syntax,
            parameters,
            args,
            within_group,
            filter,
            null_treatment,
            over,
        } = function;
        if *uses_odbc_syntax
            || !matches!(parameters, FunctionArguments::None)
            || null_treatment.is_some()
        {
            return Err(Error::unsupported(format!("the function call {function}")));
        }
        if let Some(bound) = self.bind_sql_function_call(function, scope)? {
            return Ok(bound);
        }
        let name_parts = name.0.as_slice();
        let name = match name_parts {
            [ast::ObjectNamePart::Identifier(ident)] => ident_name(ident),
            [ast::ObjectNamePart::Identifier(schema), ast::ObjectNamePart::Identifier(ident)]
                if ident_name(schema) == "pg_catalog" =>
            {
                ident_name(ident)
            }
            _ => return Err(Error::unsupported(format!("the function {name}"))),
        };
        let mut order_by: &[ast::OrderByExpr] = &[];
        let (arg_exprs, distinct, star, variadic) = match args {
            FunctionArguments::None => (Vec::new(), false, false, None),
            FunctionArguments::Subquery(query) if name == "array" => {
                if within_group.is_empty() && filter.is_none() && over.is_none() {
                    return self.bind_array_subquery(query, scope);
                }
                return Err(Error::unsupported(format!("the function call {function}")));
            }
            FunctionArguments::Subquery(_) => {
                return Err(Error::unsupported("a subquery as function argument"))
            }
            FunctionArguments::List(list) => {
                match list.clauses.as_slice() {
                    [] => {}
                    [ast::FunctionArgumentClause::OrderBy(items)] => order_by = items,
                    _ => return Err(Error::unsupported(format!("the function call {function}"))),
                }
                let distinct =
                    matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
                let mut exprs = Vec::new();
                let mut star = false;
                let mut variadic = None;
                for arg in &list.args {
                    if variadic.is_some() {
                        return Err(variadic_not_last());
                    }
                    match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                            match super::variadic::variadic_array(e) {
                                Some(array) => variadic = Some(array),
                                None => exprs.push(e),
                            }
                        }
                        FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => star = true,
                        other => {
                            return Err(Error::unsupported(format!(
                                "the function argument {other}"
                            )))
                        }
                    }
                }
                (exprs, distinct, star, variadic)
            }
        };
        if let Some(array) = variadic {
            if distinct
                || star
                || over.is_some()
                || filter.is_some()
                || !order_by.is_empty()
                || !within_group.is_empty()
            {
                return Err(Error::unsupported(format!("the function call {function}")));
            }
            return self.bind_variadic_call(&name, &arg_exprs, array, scope);
        }
        if arg_exprs.is_empty() && !star && over.is_none() && filter.is_none() {
            if name == "current_schema" {
                return Ok(self.current_schema());
            }
            if let Some(info) = session_info(&name) {
                return Ok(ScalarExpr::SessionInfo(info));
            }
        }
        if let ("current_schemas", [implicit], false, None, None) =
            (name.as_str(), arg_exprs.as_slice(), star, over, filter)
        {
            return self.current_schemas(implicit, scope);
        }
        if !distinct && !star && over.is_none() && filter.is_none() && order_by.is_empty() {
            if let Some(bound) = self.bind_catalog_call(&name, &arg_exprs, scope) {
                return bound;
            }
            if let Some(bound) = self.bind_enum_function(&name, &arg_exprs, scope) {
                return bound;
            }
        }
        // rank and the others are hypothetical-set aggregates only with WITHIN GROUP.
        // Called with arguments, they resolve to the aggregate whatever the clauses.
        let hypothetical = !within_group.is_empty() || !arg_exprs.is_empty();
        let ordered_set = AggregateFunction::ordered_set_by_name(&name).or_else(|| {
            hypothetical
                .then(|| AggregateFunction::hypothetical_by_name(&name))
                .flatten()
        });
        if !within_group.is_empty() || ordered_set.is_some() {
            if ordered_set.is_none() {
                // PostgreSQL looks for an aggregate of the direct and the ordered arguments.
                let mut types = Vec::new();
                for e in arg_exprs
                    .iter()
                    .copied()
                    .chain(within_group.iter().map(|o| &o.expr))
                {
                    types.push(self.bind_expr(e, scope)?.ty());
                }
                let plain = AggregateFunction::by_name(&name)
                    .is_some_and(|f| f.signature(&types).is_some());
                if plain {
                    return Err(Error::new(
                        SqlState::WrongObjectType,
                        format!(
                            "{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"
                        ),
                    ));
                }
                return Err(self.undefined_function(&name, &types));
            }
            if within_group.is_empty() {
                return Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("WITHIN GROUP is required for ordered-set aggregate {name}"),
                ));
            }
            if over.is_some() {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("OVER is not supported for ordered-set aggregate {name}"),
                ));
            }
            if star || distinct || !order_by.is_empty() {
                return Err(Error::syntax(format!("syntax error in the call of {name}")));
            }
        }
        if let Some(over) = over {
            if !order_by.is_empty() {
                return Err(Error::unsupported(
                    "aggregate ORDER BY for window functions",
                ));
            }
            if distinct {
                return Err(Error::unsupported(
                    "DISTINCT is not implemented for window functions",
                ));
            }
            // The parser keys a frame EXCLUDE by where the function name starts.
            let owner = match name_parts.first() {
                Some(ast::ObjectNamePart::Identifier(ident)) => ident.span.start,
                _ => sqlparser::tokenizer::Location::empty(),
            };
            let call = WindowCallSyntax {
                name: &name,
                args: &arg_exprs,
                filter: filter.as_deref(),
                over,
                owner,
            };
            return self.bind_window_function(call, scope);
        }
        if name == "grouping" && !star && !distinct && filter.is_none() && order_by.is_empty() {
            return self.bind_grouping(&arg_exprs, scope);
        }
        // An ordered-set aggregate orders by its WITHIN GROUP clause.
        let aggregate = match ordered_set {
            Some(func) => Some((func, within_group.as_slice())),
            None => AggregateFunction::by_name(&name).map(|func| (func, order_by)),
        };
        if let Some((func, order_by)) = aggregate {
            let call = AggregateSyntax {
                func,
                args: &arg_exprs,
                star,
                distinct,
                filter: filter.as_deref(),
                order_by,
            };
            return self.bind_aggregate(call, scope);
        }
        if !order_by.is_empty() {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!("ORDER BY specified, but {name} is not an aggregate function"),
            ));
        }
        if star || distinct || filter.is_some() {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!("{name} is not an aggregate function"),
            ));
        }
        if let Some(func) = sequence_function(&name) {
            return self.bind_sequence_call(func, &name, &arg_exprs, scope);
        }
        let mut bound = arg_exprs
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        match name.as_str() {
            "coalesce" => {
                let types: Vec<DataType> = bound.iter().map(|e| e.ty()).collect();
                let ty = union_type(&types, "COALESCE")?;
                let args = bound
                    .into_iter()
                    .map(|e| self.coerce(e, ty, CastContext::Implicit))
                    .collect::<Result<Vec<_>>>()?;
                Ok(ScalarExpr::Coalesce { args, ty })
            }
            "nullif" if bound.len() == 2 => {
                // NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END, typed as a.
                let b = bound.pop().ok_or_else(|| Error::internal("nullif arity"))?;
                let a = bound.pop().ok_or_else(|| Error::internal("nullif arity"))?;
                // The result has the type `a` is compared as: its own where PostgreSQL has a
                // cross-type `=` (integers with integers, floats with floats), else the
                // numbers' common type (NULLIF(1, 1.0) is numeric).
                let numeric = |t: DataType| t.category() == crate::types::TypeCategory::Numeric;
                let integer =
                    |t: DataType| matches!(t, DataType::Int16 | DataType::Int32 | DataType::Int64);
                let float = |t: DataType| matches!(t, DataType::Float32 | DataType::Float64);
                let ty = match (a.ty(), b.ty()) {
                    (DataType::Unknown, b) => {
                        common_type(DataType::Unknown, b).unwrap_or(DataType::Text)
                    }
                    (a, b)
                        if numeric(a)
                            && numeric(b)
                            && !(integer(a) && integer(b))
                            && !(float(a) && float(b)) =>
                    {
                        union_type(&[a, b], "NULLIF")?
                    }
                    (a, _) => a,
                };
                let a = self.coerce(a, ty, CastContext::Implicit)?;
                let equal = self.compare(CompareOp::Eq, a.clone(), b)?;
                Ok(ScalarExpr::Case {
                    whens: vec![(equal, ScalarExpr::null(ty))],
                    else_result: Some(Box::new(a)),
                    ty,
                })
            }
            _ => self.bind_builtin_call(&name, bound),
        }
    }

    /// A call of the built-in scalar function `name` (other than COALESCE and NULLIF) with
    /// the bound arguments `bound`.
    pub(super) fn bind_builtin_call(
        &mut self,
        name: &str,
        bound: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let types: Vec<DataType> = bound.iter().map(|e| e.ty()).collect();
        if TableFunction::by_name(name).is_some() {
            return Err(self.misplaced_set_returning_call(name));
        }
        if ARRAY_FUNCTIONS.contains(&name) {
            if let Some(bound) = self.bind_array_function(name, bound) {
                return bound;
            }
            return Err(self.undefined_function(name, &types));
        }
        if matches!(name, "json_populate_record" | "jsonb_populate_record") {
            return self.bind_populate_record_value(name, bound);
        }
        if matches!(name, "num_nulls" | "num_nonnulls") && !bound.is_empty() {
            return Ok(super::variadic::count_nulls(name == "num_nulls", bound));
        }
        if let Some(op) = bool_comparison(name) {
            return self.bind_bool_comparison(name, op, bound);
        }
        let Some((func, arg_types, ty)) = ScalarFunction::resolve_checked(name, &types)? else {
            if let Some(called) = self.bind_datetime_function(name, bound.clone()) {
                return called;
            }
            return self.function_style_cast(name, bound, &types);
        };
        self.scalar_call((func, arg_types, ty), bound)
    }

    /// `booleq(a, b)` and the other functions behind the boolean comparison operators.
    fn bind_bool_comparison(
        &mut self,
        name: &str,
        op: CompareOp,
        bound: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let types: Vec<DataType> = bound.iter().map(|e| e.ty()).collect();
        let castable = |t: &DataType| can_cast(*t, DataType::Bool, CastContext::Implicit);
        let (Ok([left, right]), true) = (<[_; 2]>::try_from(bound), types.iter().all(castable))
        else {
            return Err(undefined_function(name, &types));
        };
        let left = self.coerce(left, DataType::Bool, CastContext::Implicit)?;
        let right = self.coerce(right, DataType::Bool, CastContext::Implicit)?;
        self.compare(op, left, right)
    }

    /// `float8(x)`, `text(x)`: a call of one argument that no function takes, named after a
    /// type, is a cast to it, as PostgreSQL's func_get_detail resolves it (every explicit
    /// cast but a record's to a string type).
    fn function_style_cast(
        &mut self,
        name: &str,
        bound: Vec<ScalarExpr>,
        types: &[DataType],
    ) -> Result<ScalarExpr> {
        let target = super::data_type::type_named(name);
        match (<[_; 1]>::try_from(bound), target) {
            (Ok([arg]), Some(target))
                if can_cast(arg.ty(), target, CastContext::Explicit)
                    && !(matches!(arg.ty(), DataType::Record(_)) && target.is_string()) =>
            {
                self.coerce(arg, target, CastContext::Explicit)
            }
            _ => Err(self.undefined_function(name, types)),
        }
    }

    fn bind_aggregate(&mut self, call: AggregateSyntax<'_>, scope: &Scope) -> Result<ScalarExpr> {
        if call.distinct && call.star {
            return Err(Error::syntax("syntax error at or near \"*\""));
        }
        let Some(mut collector) = self.aggregates.take() else {
            let state = SqlState::GroupingError;
            return Err(Error::new(
                state,
                match self.aggregate_forbidden_in {
                    Some(clause) => format!("aggregate functions are not allowed in {clause}"),
                    None => "aggregate function calls cannot be nested".to_string(),
                },
            ));
        };
        // Arguments are bound without aggregates: nested calls are an error.
        let saved_clause = self.aggregate_forbidden_in.take();
        let bound = self.bind_aggregate_call(&call, scope);
        self.aggregate_forbidden_in = saved_clause;
        let result = bound.map(|bound| {
            let ty = bound.ty;
            collector.calls.push(bound);
            ScalarExpr::Column {
                index: AGGREGATE_REF_BASE + collector.calls.len() - 1,
                ty,
            }
        });
        self.aggregates = Some(collector);
        result
    }

    /// json_object_agg's value goes through `to_json`, its key is cast to text.
    fn json_object_aggregate_args(
        &mut self,
        mut args: Vec<ScalarExpr>,
        distinct: bool,
    ) -> Result<Vec<ScalarExpr>> {
        if distinct {
            // DISTINCT would have to compare the values by their own types' order.
            return Err(Error::unsupported("DISTINCT in json aggregates"));
        }
        let value = args.pop().map(super::coerce::to_json);
        if let Some(key) = args.pop() {
            super::coerce::require_scalar_key(key.ty())?;
            args.push(self.coerce(key, DataType::Text, CastContext::Explicit)?);
        }
        args.extend(value);
        Ok(args)
    }

    fn bind_aggregate_call(
        &mut self,
        call: &AggregateSyntax<'_>,
        scope: &Scope,
    ) -> Result<AggregateCall> {
        if let AggregateFunction::Hypothetical(_) = call.func {
            return self.bind_hypothetical_call(call, scope);
        }
        if let AggregateFunction::OrderedSet(_) = call.func {
            return self.bind_ordered_set_call(call, scope);
        }
        let func = match (call.func, call.star, call.args.len()) {
            (AggregateFunction::Count, true, 0) => AggregateFunction::CountStar,
            (f, false, n) if n > 0 => f,
            (f, _, _) => return Err(self.undefined_function(f.name(), &[])),
        };
        let mut raw = Vec::with_capacity(call.args.len());
        for arg in call.args {
            let bound = self.bind_expr(arg, scope)?;
            // min/max over varchar resolve to the text versions, as in PostgreSQL.
            raw.push(match bound.ty() {
                DataType::Varchar(_)
                    if !matches!(func, AggregateFunction::Count | AggregateFunction::ArrayAgg) =>
                {
                    self.coerce(bound, DataType::Text, CastContext::Implicit)?
                }
                _ => bound,
            });
        }
        if func.renders_arguments() {
            raw = super::present::present_all(raw)?;
        }
        let types: Vec<DataType> = raw.iter().map(|a| a.ty()).collect();
        let (arg_types, ty) = match func.signature(&types) {
            Some(signature) => signature,
            // Arrays of arrays and of types without an array type here.
            None if func == AggregateFunction::ArrayAgg && types == [DataType::Unknown] => {
                return Err(Error::new(
                    SqlState::AmbiguousFunction,
                    "function array_agg(unknown) is not unique",
                ))
            }
            None if func == AggregateFunction::ArrayAgg => {
                return Err(Error::unsupported(format!(
                    "array_agg over {}",
                    types
                        .first()
                        .map_or("no argument".to_string(), ToString::to_string)
                )))
            }
            None => return Err(self.undefined_function(func.name(), &types)),
        };
        let args = raw
            .iter()
            .zip(arg_types)
            .map(|(a, t)| self.coerce(a.clone(), t, CastContext::Implicit))
            .collect::<Result<Vec<_>>>()?;
        if call.distinct {
            for arg in &args {
                super::coerce::require_json_free(arg.ty(), false)?;
            }
        }
        let args = match func {
            AggregateFunction::JsonAgg { .. } if call.distinct => {
                // DISTINCT would have to compare the values by their own types' order.
                return Err(Error::unsupported("DISTINCT in json aggregates"));
            }
            AggregateFunction::JsonObjectAgg { .. } => {
                self.json_object_aggregate_args(args, call.distinct)?
            }
            _ => args,
        };
        let filter = call
            .filter
            .map(|f| self.bind_condition(f, scope, "FILTER"))
            .transpose()?;
        let mut order_by = Vec::with_capacity(call.order_by.len());
        for item in call.order_by {
            if item.with_fill.is_some() {
                return Err(Error::unsupported("WITH FILL"));
            }
            let expr = self.bind_expr(&item.expr, scope)?;
            // PostgreSQL's DISTINCT sorts by the arguments, so it can only order by them.
            if call.distinct && !raw.contains(&expr) && !args.contains(&expr) {
                return Err(Error::new(
                    SqlState::InvalidColumnReference,
                    "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
                ));
            }
            order_by.push(super::select::sort_key(expr, &item.options)?);
        }
        let order_sensitive = func.order_sensitive(types.first().copied().unwrap_or(ty));
        if !order_sensitive {
            order_by.clear();
        } else if call.distinct {
            // Duplicates must be adjacent: sort by the remaining arguments after the keys.
            for arg in &args {
                if !order_by.iter().any(|k| k.expr == *arg) {
                    order_by.push(SortKey {
                        expr: arg.clone(),
                        descending: false,
                        nulls_first: false,
                    });
                }
            }
        }
        Ok(AggregateCall {
            func,
            args,
            distinct: call.distinct,
            filter,
            order_by,
            ty,
        })
    }
}

impl Binder<'_> {
    /// `f(direct args) WITHIN GROUP (ORDER BY value)`: the value is the call's first
    /// argument and its sort key; the direct arguments follow it.
    fn bind_ordered_set_call(
        &mut self,
        call: &AggregateSyntax<'_>,
        scope: &Scope,
    ) -> Result<AggregateCall> {
        let mut raw = Vec::with_capacity(call.args.len() + 1);
        let item = match call.order_by {
            [item] => item,
            _ => {
                for arg in call.args {
                    raw.push(self.bind_expr(arg, scope)?.ty());
                }
                return Err(self.undefined_function(call.func.name(), &raw));
            }
        };
        let mut bound = vec![self.bind_expr(&item.expr, scope)?];
        for arg in call.args {
            bound.push(self.bind_direct_argument(arg, scope)?);
        }
        let types: Vec<DataType> = bound.iter().map(ScalarExpr::ty).collect();
        let (arg_types, ty) = call.func.signature(&types).ok_or_else(|| {
            let mut shown = types[1..].to_vec();
            shown.push(types[0]);
            self.undefined_function(call.func.name(), &shown)
        })?;
        let args = self.coerce_args(bound, arg_types)?;
        let order_by = vec![super::select::sort_key(args[0].clone(), &item.options)?];
        self.within_group_call(call, (args, order_by, ty), scope)
    }

    /// A WITHIN GROUP call of its bound arguments, sort keys and result type, with its
    /// FILTER bound; such calls take no DISTINCT.
    fn within_group_call(
        &mut self,
        call: &AggregateSyntax<'_>,
        (args, order_by, ty): (Vec<ScalarExpr>, Vec<SortKey>, DataType),
        scope: &Scope,
    ) -> Result<AggregateCall> {
        let filter = call
            .filter
            .map(|f| self.bind_condition(f, scope, "FILTER"))
            .transpose()?;
        Ok(AggregateCall {
            func: call.func,
            args,
            distinct: false,
            filter,
            order_by,
            ty,
        })
    }
}

impl Binder<'_> {
    /// A direct argument of an ordered-set aggregate, which is evaluated once per statement.
    fn bind_direct_argument(&mut self, arg: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        let direct = self.bind_expr(arg, scope)?;
        let mut reads_columns = false;
        direct.visit(&mut |e| reads_columns |= matches!(e, ScalarExpr::Column { .. }));
        if reads_columns {
            return Err(Error::unsupported(
                "direct arguments of an ordered-set aggregate that read columns",
            ));
        }
        Ok(direct)
    }

    /// `rank(args) WITHIN GROUP (ORDER BY keys)` and the other hypothetical-set
    /// aggregates: one direct argument per key, each pair brought to its common type as
    /// PostgreSQL's unify_hypothetical_args does. The call's arguments are the keys, then
    /// the direct arguments; it is ordered by the keys.
    fn bind_hypothetical_call(
        &mut self,
        call: &AggregateSyntax<'_>,
        scope: &Scope,
    ) -> Result<AggregateCall> {
        let name = call.func.name();
        let mut direct = Vec::with_capacity(call.args.len());
        for arg in call.args {
            direct.push(self.bind_direct_argument(arg, scope)?);
        }
        let mut keys = Vec::with_capacity(call.order_by.len());
        for item in call.order_by {
            keys.push(self.bind_expr(&item.expr, scope)?);
        }
        if direct.len() != keys.len() {
            let types: Vec<DataType> = direct.iter().chain(&keys).map(ScalarExpr::ty).collect();
            return Err(self.undefined_function(name, &types).with_hint(format!(
                "To use the hypothetical-set aggregate {name}, the number of hypothetical direct arguments (here {}) must match the number of ordering columns (here {}).",
                direct.len(),
                keys.len()
            )));
        }
        let mut args = Vec::with_capacity(2 * keys.len());
        let mut coerced_direct = Vec::with_capacity(direct.len());
        for (key, value) in keys.into_iter().zip(direct) {
            let common = super::coerce::union_type(&[key.ty(), value.ty()], "WITHIN GROUP")?;
            args.push(self.coerce(key, common, CastContext::Implicit)?);
            coerced_direct.push(self.coerce(value, common, CastContext::Implicit)?);
        }
        let mut order_by = Vec::with_capacity(args.len());
        for (key, item) in args.iter().zip(call.order_by) {
            super::coerce::require_json_free(key.ty(), true)?;
            order_by.push(super::select::sort_key(key.clone(), &item.options)?);
        }
        args.extend(coerced_direct);
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let (_, ty) = call
            .func
            .signature(&types)
            .ok_or_else(|| self.undefined_function(name, &types))?;
        self.within_group_call(call, (args, order_by, ty), scope)
    }
}

/// An aggregate call as written: `func(DISTINCT args ORDER BY ...) FILTER (WHERE ...)`;
/// for an ordered-set aggregate `order_by` is its WITHIN GROUP clause.
struct AggregateSyntax<'a> {
    func: AggregateFunction,
    args: &'a [&'a Expr],
    star: bool,
    distinct: bool,
    filter: Option<&'a Expr>,
    order_by: &'a [ast::OrderByExpr],
}

/// `LIKE pattern ESCAPE e`: rewrites a constant pattern into the default backslash escaping,
/// so the matcher has one escape rule. ESCAPE '' means no escape character.
fn with_like_escape(like: ScalarExpr, escape: &Expr) -> Result<ScalarExpr> {
    let escape = match escape {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => s.clone(),
            _ => return Err(Error::unsupported("a non-literal ESCAPE")),
        },
        _ => return Err(Error::unsupported("a non-literal ESCAPE")),
    };
    let mut escape_chars = escape.chars();
    let escape = match (escape_chars.next(), escape_chars.next()) {
        (None, _) => None,
        (Some(c), None) => Some(c),
        _ => {
            return Err(
                Error::new(SqlState::InvalidEscapeSequence, "invalid escape string")
                    .with_hint("Escape string must be empty or one character."),
            )
        }
    };
    let ScalarExpr::Like {
        input,
        pattern,
        negated,
        case_insensitive,
    } = like
    else {
        return Err(Error::internal("LIKE did not bind to a LIKE"));
    };
    let text = match *pattern {
        ScalarExpr::Literal {
            value: ScalarValue::Text(text),
            ..
        } => text,
        ScalarExpr::Literal {
            value: ScalarValue::Null,
            ..
        } => return Ok(ScalarExpr::null(DataType::Bool)),
        _ => return Err(Error::unsupported("ESCAPE with a non-constant pattern")),
    };
    let mut rewritten = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            match chars.next() {
                Some(next) => {
                    rewritten.push('\\');
                    rewritten.push(next);
                }
                None => {
                    return Err(Error::new(
                        SqlState::InvalidEscapeSequence,
                        "LIKE pattern must not end with escape character",
                    ))
                }
            }
        } else if c == '\\' {
            rewritten.push_str("\\\\");
        } else {
            rewritten.push(c);
        }
    }
    Ok(ScalarExpr::Like {
        input,
        pattern: Box::new(ScalarExpr::literal(
            ScalarValue::Text(rewritten),
            DataType::Text,
        )),
        negated,
        case_insensitive,
    })
}

fn sequence_function(name: &str) -> Option<SequenceFunction> {
    Some(match name {
        "nextval" => SequenceFunction::NextVal,
        "currval" => SequenceFunction::CurrVal,
        "setval" => SequenceFunction::SetVal,
        "lastval" => SequenceFunction::LastVal,
        _ => return None,
    })
}

/// The sequence named by a regclass argument: `'name'` or `'name'::regclass`.
fn sequence_name_argument(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Cast {
            expr, data_type, ..
        } if data_type.to_string().eq_ignore_ascii_case("regclass") => sequence_name_argument(expr),
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A subquery used as a value must return exactly one column.
fn single_column(columns: &[ColumnInfo]) -> Result<DataType> {
    match columns {
        [column] => Ok(column.data_type),
        _ => Err(Error::syntax("subquery must return only one column")),
    }
}

/// The comparison a function behind a boolean operator makes.
fn bool_comparison(name: &str) -> Option<CompareOp> {
    Some(match name {
        "booleq" => CompareOp::Eq,
        "boolne" => CompareOp::NotEq,
        "boollt" => CompareOp::Lt,
        "boolle" => CompareOp::LtEq,
        "boolgt" => CompareOp::Gt,
        "boolge" => CompareOp::GtEq,
        _ => return None,
    })
}

fn compare_operator(op: &BinaryOperator) -> Option<CompareOp> {
    Some(match op {
        BinaryOperator::Eq => CompareOp::Eq,
        BinaryOperator::NotEq => CompareOp::NotEq,
        BinaryOperator::Lt => CompareOp::Lt,
        BinaryOperator::LtEq => CompareOp::LtEq,
        BinaryOperator::Gt => CompareOp::Gt,
        BinaryOperator::GtEq => CompareOp::GtEq,
        _ => return None,
    })
}

fn prefix_operator_error(symbol: &str, ty: DataType) -> Error {
    Error::new(
        SqlState::UndefinedFunction,
        format!("operator does not exist: {symbol} {ty}"),
    )
    .with_hint(
        "No operator matches the given name and argument type. You might need to add an explicit type cast.",
    )
}

/// How deeply expressions and set operations may nest.
const MAX_NESTING_DEPTH: usize = 2000;

/// `items` combined pairwise, level by level, into a tree of logarithmic depth.
fn balanced(
    mut items: Vec<ScalarExpr>,
    combine: &dyn Fn(ScalarExpr, ScalarExpr) -> ScalarExpr,
) -> Result<ScalarExpr> {
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut iter = items.into_iter();
        while let Some(left) = iter.next() {
            next.push(match iter.next() {
                Some(right) => combine(left, right),
                None => left,
            });
        }
        items = next;
    }
    items
        .pop()
        .ok_or_else(|| Error::internal("a boolean chain without operands"))
}

/// The session facts a function name without arguments reads.
/// The operator `OPERATOR(pg_catalog.op)` names (psql writes its queries so).
fn qualified_operator(parts: &[String]) -> Option<BinaryOperator> {
    let symbol = match parts {
        [symbol] => symbol,
        [schema, symbol] if schema == "pg_catalog" => symbol,
        _ => return None,
    };
    Some(match symbol.as_str() {
        "=" => BinaryOperator::Eq,
        "<>" | "!=" => BinaryOperator::NotEq,
        "<" => BinaryOperator::Lt,
        "<=" => BinaryOperator::LtEq,
        ">" => BinaryOperator::Gt,
        ">=" => BinaryOperator::GtEq,
        "+" => BinaryOperator::Plus,
        "-" => BinaryOperator::Minus,
        "*" => BinaryOperator::Multiply,
        "/" => BinaryOperator::Divide,
        "%" => BinaryOperator::Modulo,
        "||" => BinaryOperator::StringConcat,
        "~" => BinaryOperator::PGRegexMatch,
        "~*" => BinaryOperator::PGRegexIMatch,
        "!~" => BinaryOperator::PGRegexNotMatch,
        "!~*" => BinaryOperator::PGRegexNotIMatch,
        "~~" => BinaryOperator::PGLikeMatch,
        "!~~" => BinaryOperator::PGNotLikeMatch,
        "~~*" => BinaryOperator::PGILikeMatch,
        "!~~*" => BinaryOperator::PGNotILikeMatch,
        _ => return None,
    })
}

fn session_info(name: &str) -> Option<SessionInfo> {
    Some(match name {
        "current_user" | "user" | "current_role" => SessionInfo::User,
        "session_user" => SessionInfo::SessionUser,
        "current_database" | "current_catalog" => SessionInfo::Database,
        "version" => SessionInfo::Version,
        "pg_backend_pid" => SessionInfo::BackendPid,
        _ => return None,
    })
}

/// PostgreSQL's grammar takes VARIADIC only on a call's last argument.
pub(super) fn variadic_not_last() -> Error {
    Error::syntax("syntax error at or near \",\"")
}

impl Binder<'_> {
    /// PostgreSQL's 42883 for a call no function takes, naming enum and row types by their
    /// names as the catalog does (not as anyenum).
    pub(super) fn undefined_function(&self, name: &str, args: &[DataType]) -> Error {
        let shown: Vec<String> = args.iter().map(|&t| self.type_display_be(t)).collect();
        undefined_function_named(name, &shown)
    }
}

pub(super) fn undefined_function(name: &str, args: &[DataType]) -> Error {
    // format_type_be: the types without their modifiers.
    let args: Vec<String> = args.iter().map(|t| t.name().to_string()).collect();
    undefined_function_named(name, &args)
}

fn undefined_function_named(name: &str, args: &[String]) -> Error {
    Error::new(
        SqlState::UndefinedFunction,
        format!("function {name}({}) does not exist", args.join(", ")),
    )
    .with_hint(
        "No function matches the given name and argument types. You might need to add explicit type casts.",
    )
}

/// A numeric literal: integer if it fits int4, then int8, else numeric.
fn bit_literal(prefix: &str, digits: &str) -> Result<ScalarExpr> {
    let bits = bit_string::parse_bits(&format!("{prefix}{digits}"))?;
    Ok(ScalarExpr::literal(
        ScalarValue::Text(bits),
        DataType::Bit(None),
    ))
}

fn number_literal(text: &str) -> Result<ScalarExpr> {
    let is_integer = text
        .trim_start_matches('-')
        .bytes()
        .all(|b| b.is_ascii_digit());
    if is_integer {
        if let Ok(v) = text.parse::<i32>() {
            return Ok(ScalarExpr::literal(ScalarValue::Int32(v), DataType::Int32));
        }
        if let Ok(v) = text.parse::<i64>() {
            return Ok(ScalarExpr::literal(ScalarValue::Int64(v), DataType::Int64));
        }
    }
    Ok(ScalarExpr::literal(
        ScalarValue::Numeric(Decimal::parse(text)?),
        DataType::Numeric(None),
    ))
}

/// For the operand of a unary minus: the numeric literal under a chain of further minuses
/// and parentheses, and whether that chain is itself negative (an odd number of minuses).
fn negated_number(expr: &Expr) -> Option<(bool, &str)> {
    let mut negative = false;
    let mut expr = expr;
    loop {
        match expr {
            Expr::Nested(inner) => expr = inner,
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr: inner,
            } => {
                negative = !negative;
                expr = inner;
            }
            Expr::Value(v) => {
                return match &v.value {
                    Value::Number(text, _) => Some((negative, text.as_str())),
                    _ => None,
                }
            }
            _ => return None,
        }
    }
}

impl Binder<'_> {
    /// A set-returning call where it cannot run: PostgreSQL's 0A000 where it forbids one
    /// (WHERE, JOIN conditions, DEFAULT: clauses that forbid aggregates too, which is when
    /// the clause recorded is current), ours where it allows one that we do not run (inside
    /// CASE, in ORDER BY, next to aggregates; `select_srf.rs`).
    fn misplaced_set_returning_call(&self, name: &str) -> Error {
        let clause = self
            .aggregates
            .is_none()
            .then_some(self.aggregate_forbidden_in)
            .flatten();
        match clause {
            Some(place @ ("WHERE" | "JOIN conditions" | "DEFAULT expressions")) => Error::new(
                SqlState::FeatureNotSupported,
                format!("set-returning functions are not allowed in {place}"),
            ),
            _ => Error::unsupported(format!("the set-returning function {name} here")),
        }
    }
}

/// The array of `x LIKE ALL (array)`, which sqlparser reads as a call of a function `all`
/// (a reserved word in PostgreSQL, so no function has that name).
fn like_all_operand(pattern: &Expr) -> Option<&Expr> {
    let Expr::Function(function) = pattern else {
        return None;
    };
    let [ast::ObjectNamePart::Identifier(name)] = function.name.0.as_slice() else {
        return None;
    };
    if name.quote_style.is_some() || !name.value.eq_ignore_ascii_case("all") {
        return None;
    }
    let ast::FunctionArguments::List(list) = &function.args else {
        return None;
    };
    match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(array))]
            if list.duplicate_treatment.is_none() && list.clauses.is_empty() =>
        {
            Some(array)
        }
        _ => None,
    }
}
