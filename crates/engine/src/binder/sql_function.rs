//! Calls of SQL functions (CREATE FUNCTION ... LANGUAGE sql): overload resolution, DEFAULT
//! and named arguments, and the body bound in place of the call, as PostgreSQL plans a
//! string body each time it runs it (so a table it reads may be dropped; the call fails then).
//!
//! The body is bound with the parameters as the columns of an enclosing row (by name, or as
//! `$n`), so they are outer columns wherever the body reads them. A scalar body that is one
//! `SELECT expr` is inlined as that expression with the arguments put in place of the
//! parameters, when PostgreSQL's inline_function would: no subquery, and every volatile
//! argument used exactly once. Any other body runs as a subquery laterally over a one-row
//! VALUES of the arguments, so each argument is evaluated once; a scalar call keeps the first
//! row (PostgreSQL returns the first row of the final query, NULL for none), a set-returning
//! call in FROM every row. STRICT skips the body when an argument is NULL.
//! A body that is not one query (several statements, a write, a void result) runs statement
//! by statement instead (`function_body.rs`).

use std::sync::Arc;

use sqlparser::ast::{self, Expr, ObjectName, Statement};

use super::expr::{AGGREGATE_REF_BASE, WINDOW_REF_BASE};
use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::{FunctionArg, FunctionDef, FunctionReturn, ParamMode};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::{ColumnInfo, LogicalPlan, ScalarExpr, SubqueryKind};
use crate::types::{DataType, ScalarValue};

/// A call's arguments as written: positional ones first, then `name => value` ones.
pub(super) struct WrittenArgs<'e> {
    pub positional: Vec<&'e Expr>,
    pub named: Vec<(String, &'e Expr)>,
    /// The last positional argument was written `VARIADIC array`: it is the array of the
    /// VARIADIC parameter, not one of its elements.
    pub variadic: bool,
}

/// A function chosen for a call, with its arguments bound, coerced and completed with the
/// defaults, in declared order.
pub(super) struct SqlCall {
    pub function: Arc<FunctionDef>,
    pub args: Vec<ScalarExpr>,
}

impl<'a> Binder<'a> {
    /// The SQL functions a call of `name` may mean, or `None` when no SQL function has that
    /// name (then it is a built-in one): those of its schema when qualified, else those
    /// along the search path.
    pub(super) fn sql_functions_named(
        &self,
        name: &ObjectName,
    ) -> Result<Option<Vec<Arc<FunctionDef>>>> {
        if self.state.functions.is_empty() {
            return Ok(None);
        }
        // Not `written_name`: built-in functions may be named by reserved words (ARRAY).
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|part| part.as_ident().map(ident_name))
            .collect();
        let (schemas, function_name) = match parts.as_slice() {
            [function_name] => (self.searched.clone(), function_name),
            [schema, _] if schema == "pg_catalog" => return Ok(None),
            [schema, function_name] => (vec![self.schema(schema)?.oid], function_name),
            _ => return Ok(None),
        };
        let found: Vec<Arc<FunctionDef>> = self
            .state
            .functions
            .values()
            .filter(|f| f.name.name == *function_name && schemas.contains(&f.name.schema))
            .cloned()
            .collect();
        match (found.is_empty(), parts.len()) {
            (true, 1) => Ok(None),
            _ => Ok(Some(found)),
        }
    }

    /// Binds the arguments and picks the candidate they fit best: an implicit coercion to
    /// every parameter given, a default for every one left out; among those, the most
    /// arguments of exactly the parameter's type. `None`: no candidate fits.
    pub(super) fn resolve_sql_call(
        &mut self,
        shown_name: &str,
        candidates: &[Arc<FunctionDef>],
        written: &WrittenArgs<'_>,
        scope: &Scope,
    ) -> Result<Option<SqlCall>> {
        let positional = written
            .positional
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        let mut named = Vec::with_capacity(written.named.len());
        for (name, expr) in &written.named {
            named.push((name.as_str(), self.bind_expr(expr, scope)?));
        }
        let mut best: Option<(MatchScore, &Arc<FunctionDef>, ArgSlots)> = None;
        let mut tied = false;
        for candidate in candidates {
            let Some(slots) = place_args(candidate, &positional, &named, written.variadic) else {
                continue;
            };
            let fits = slots
                .iter()
                .zip(candidate.inputs())
                .all(|(slot, arg)| match slot {
                    Slot::Given(value) => can_cast(value.ty(), arg.ty, CastContext::Implicit),
                    Slot::Spread(values) => arg.ty.element().is_some_and(|element| {
                        values
                            .iter()
                            .all(|v| can_cast(v.ty(), element, CastContext::Implicit))
                    }),
                    Slot::Default => arg.default.is_some(),
                });
            if !fits {
                continue;
            }
            let exact = match_score(&slots, candidate);
            match &best {
                Some((score, _, _)) if *score > exact => {}
                Some((score, _, _)) if *score == exact => tied = true,
                _ => {
                    tied = false;
                    best = Some((exact, candidate, slots));
                }
            }
        }
        let Some((_, function, slots)) = best else {
            return Ok(None);
        };
        if tied {
            let types: Vec<&str> = positional
                .iter()
                .chain(named.iter().map(|(_, e)| e))
                .map(|e| e.ty().name())
                .collect();
            return Err(Error::new(
                SqlState::AmbiguousFunction,
                format!("function {shown_name}({}) is not unique", types.join(", ")),
            )
            .with_hint(
                "Could not choose a best candidate function. You might need to add explicit \
                 type casts.",
            ));
        }
        let function = function.clone();
        self.functions_called.push(function.oid);
        self.require_execute(function.oid, &function.name.name)?;
        let mut args = Vec::with_capacity(slots.len());
        for (slot, arg) in slots.into_iter().zip(function.inputs()) {
            let value = match (slot, &arg.default) {
                (Slot::Given(value), _) => value,
                (Slot::Spread(values), _) => self.variadic_array(values, arg.ty)?,
                (Slot::Default, Some(default)) => self.bind_default(default)?,
                (Slot::Default, None) => {
                    return Err(Error::internal("a parameter without a value"))
                }
            };
            let value = self.coerce(value, arg.ty, CastContext::Implicit)?;
            args.push(self.assign_to_domain(value, arg.domain)?);
        }
        Ok(Some(SqlCall { function, args }))
    }

    /// The arguments a VARIADIC parameter collects, as an array of its type.
    fn variadic_array(&mut self, values: Vec<ScalarExpr>, ty: DataType) -> Result<ScalarExpr> {
        let element = ty
            .element()
            .ok_or_else(|| Error::internal("a VARIADIC parameter that is not an array"))?;
        let elements = values
            .into_iter()
            .map(|v| self.coerce(v, element, CastContext::Implicit))
            .collect::<Result<Vec<_>>>()?;
        Ok(super::array::construct_array(elements, ty))
    }

    /// A parameter's DEFAULT expression, bound where no column is visible.
    pub(super) fn bind_default(&mut self, default: &str) -> Result<ScalarExpr> {
        let expr = parse_expression(default)?;
        self.without_positions(|binder| binder.bind_expr(&expr, &Scope::default()))
    }

    /// A scalar call in an expression: the inlined body, or a subquery running it.
    pub(super) fn bind_sql_call(&mut self, call: SqlCall) -> Result<ScalarExpr> {
        let SqlCall { function, args } = call;
        let ty = match &function.returns {
            FunctionReturn::Scalar(ty) => *ty,
            FunctionReturn::Row(columns) => {
                return self.bind_sql_row_call(&function, columns, args)
            }
            FunctionReturn::SetOf(_) | FunctionReturn::Table(_) => {
                return Err(Error::unsupported(format!(
                    "calling set-returning function {} outside FROM",
                    function.name.name
                )))
            }
            FunctionReturn::Void => return Err(super::function_body::not_alone(&function)),
        };
        let (plan, columns) = self.bind_sql_body(&function)?;
        let outputs = body_outputs(&function, &columns, self)?;
        if let Some(inlined) = inline(&function, &plan, &outputs, &args) {
            return Ok(inlined);
        }
        self.call_subquery(&function, args, plan, outputs, ty)
    }

    /// The body's first row of `outputs` (one value of type `ty`) as a scalar subquery
    /// over the arguments.
    fn call_subquery(
        &mut self,
        function: &FunctionDef,
        args: Vec<ScalarExpr>,
        body: LogicalPlan,
        outputs: Vec<ScalarExpr>,
        ty: DataType,
    ) -> Result<ScalarExpr> {
        let shifted = args
            .into_iter()
            .map(into_subquery)
            .collect::<Result<Vec<_>>>()?;
        let correlated = function.volatility == crate::catalog::Volatility::Volatile
            || !shifted.iter().all(ScalarExpr::is_constant);
        let plan = call_plan(function, shifted, body, outputs, true);
        Ok(self.subquery(plan, correlated, SubqueryKind::Scalar(ty)))
    }

    /// A call of a function of several OUT parameters in an expression: its one row as a
    /// record of those parameters (NULL when the body gives no row), so `f(1)` prints
    /// `(1,2)` and `(f(1)).a` reads a field.
    fn bind_sql_row_call(
        &mut self,
        function: &FunctionDef,
        columns: &[(String, DataType)],
        args: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let (plan, body_columns) = self.bind_sql_body(function)?;
        let outputs = body_outputs(function, &body_columns, self)?;
        let names = columns.iter().map(|(name, _)| name.clone());
        let record = super::record::row_of(names.zip(outputs).collect())?;
        let ty = record.ty();
        self.call_subquery(function, args, plan, vec![record], ty)
    }

    /// A call in FROM: the body's rows (every one) and the names of its columns. The
    /// arguments are bound where the FROM item's own are (a lateral left side is visible).
    pub(super) fn bind_sql_call_in_from(
        &mut self,
        call: SqlCall,
    ) -> Result<(LogicalPlan, Vec<(String, DataType)>)> {
        let SqlCall { function, args } = call;
        let (plan, columns) = self.bind_sql_body(&function)?;
        let outputs = body_outputs(&function, &columns, self)?;
        let names = match &function.returns {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => {
                let name = function.out_param_name().unwrap_or(&function.name.name);
                vec![(name.to_string(), *ty)]
            }
            FunctionReturn::Table(columns) | FunctionReturn::Row(columns) => columns.clone(),
            FunctionReturn::Void => return Err(super::function_body::not_alone(&function)),
        };
        if function.returns.returns_set() {
            return Ok((call_plan(&function, args, plan, outputs, false), names));
        }
        // A function of one value or one row is one row, NULL when the body gives none
        // (or STRICT skips it):
        // the call runs laterally on the right of a left join with one empty row.
        let args = args
            .into_iter()
            .map(into_subquery)
            .collect::<Result<Vec<_>>>()?;
        let call = call_plan(&function, args, plan, outputs, true);
        let one_row = LogicalPlan::Values {
            rows: Arc::new(vec![Vec::new()]),
            types: Vec::new(),
        };
        let plan = LogicalPlan::LateralJoin {
            left: Box::new(one_row),
            right: Box::new(call),
            kind: crate::plan::JoinKind::Left,
            condition: None,
        };
        Ok((plan, names))
    }

    /// The body's one query bound with the parameters as an enclosing row: at CREATE (to
    /// validate it, as check_function_bodies does) and at every call.
    pub(super) fn bind_sql_body(
        &mut self,
        function: &FunctionDef,
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        if function.oid != 0 && self.expanding_functions.contains(&function.oid) {
            return Err(Error::unsupported(format!(
                "recursive SQL function {}",
                function.name.name
            )));
        }
        let (query, exclusions) = match super::function_body::parse_body(function)? {
            super::function_body::Body::Query(query, exclusions) => (*query, exclusions),
            super::function_body::Body::Statements(_) => {
                return Err(super::function_body::not_alone(function))
            }
        };
        let params = Scope::of_computed(
            &function.name.name,
            function
                .inputs()
                .map(|a| (a.name.clone().unwrap_or_default(), a.ty)),
        );
        let function_params = self.function_params.replace(function.inputs().count());
        self.expanding_functions.push(function.oid);
        let bound = self.bind_apart(&query, vec![(params, false)], exclusions);
        self.expanding_functions.pop();
        self.function_params = function_params;
        bound
    }

    /// `$n` in a function body: column n of the parameter row, the outermost scope.
    pub(super) fn function_param(&mut self, number: usize) -> Result<Option<ScalarExpr>> {
        let Some(count) = self.function_params else {
            return Ok(None);
        };
        let ty = match self.outer_scopes.first() {
            Some((params, _)) if number <= count => params.columns[number - 1].ty,
            _ => {
                return Err(Error::new(
                    SqlState::UndefinedParameter,
                    format!("there is no parameter ${number}"),
                ))
            }
        };
        for (_, correlated) in &mut self.outer_scopes {
            *correlated = true;
        }
        Ok(Some(ScalarExpr::OuterColumn {
            depth: self.outer_scopes.len(),
            index: number - 1,
            ty,
        }))
    }
}

/// How well arguments fit a candidate, compared in order as PostgreSQL's
/// func_select_candidate does: arguments of exactly the parameter's type, then parameters
/// of the preferred type of their category (text for an untyped literal, float8 among
/// numbers).
type MatchScore = (usize, usize);

/// A candidate's input parameters, each with what the call gives it.
type ArgSlots = Vec<Slot>;

#[derive(Clone)]
enum Slot {
    Given(ScalarExpr),
    /// The trailing positional arguments a VARIADIC parameter collects into an array.
    Spread(Vec<ScalarExpr>),
    /// Its DEFAULT.
    Default,
}

fn match_score(slots: &[Slot], function: &FunctionDef) -> MatchScore {
    let mut exact = 0;
    let mut preferred = 0;
    for (slot, arg) in slots.iter().zip(function.inputs()) {
        let (values, ty) = match slot {
            Slot::Given(value) => (std::slice::from_ref(value), arg.ty),
            Slot::Spread(values) => (values.as_slice(), arg.ty.element().unwrap_or(arg.ty)),
            Slot::Default => continue,
        };
        for value in values {
            if value.ty() == ty {
                exact += 1;
            } else if matches!(
                ty,
                DataType::Text | DataType::Float64 | DataType::TimestampTz(_)
            ) {
                preferred += 1;
            }
        }
    }
    (exact, preferred)
}

/// The arguments of `function` by position, from those written by position and by name;
/// `None` if they do not fit its parameters.
fn place_args(
    function: &FunctionDef,
    positional: &[ScalarExpr],
    named: &[(&str, ScalarExpr)],
    variadic: bool,
) -> Option<ArgSlots> {
    let inputs: Vec<&FunctionArg> = function.inputs().collect();
    let mut slots: Vec<Slot> = vec![Slot::Default; inputs.len()];
    let variadic_last = inputs
        .last()
        .is_some_and(|last| last.mode == ParamMode::Variadic);
    // `VARIADIC array` gives the VARIADIC parameter its array, and only that parameter.
    if variadic && !(variadic_last && positional.len() == inputs.len()) {
        return None;
    }
    // A VARIADIC parameter takes every positional argument from its position on (one at
    // least), unless one is named.
    let spread_from = match inputs.last() {
        Some(_) if variadic_last && named.is_empty() && !variadic => {
            Some(inputs.len() - 1).filter(|&from| positional.len() > from)
        }
        _ => None,
    };
    let fixed = match spread_from {
        Some(from) => {
            slots[from] = Slot::Spread(positional[from..].to_vec());
            &positional[..from]
        }
        None => positional,
    };
    if fixed.len() + named.len() > inputs.len() {
        return None;
    }
    for (slot, value) in slots.iter_mut().zip(fixed) {
        *slot = Slot::Given(value.clone());
    }
    for (name, value) in named {
        let index = inputs
            .iter()
            .position(|a| a.name.as_deref() == Some(*name))?;
        if !matches!(slots[index], Slot::Default) {
            return None;
        }
        slots[index] = Slot::Given(value.clone());
    }
    Some(slots)
}

/// The body's output columns coerced to the declared result (as an assignment), or
/// PostgreSQL's 42P13 when they do not fit it.
pub(super) fn body_outputs(
    function: &FunctionDef,
    columns: &[ColumnInfo],
    binder: &mut Binder<'_>,
) -> Result<Vec<ScalarExpr>> {
    let declared = function.returns.column_types();
    let mismatch = |detail: String| {
        Error::new(
            SqlState::InvalidFunctionDefinition,
            format!(
                "return type mismatch in function declared to return {}",
                function.returns_shown()
            ),
        )
        .with_detail(detail)
    };
    let table = function.returns.columns().is_some();
    if !table && columns.len() != 1 {
        return Err(mismatch(
            "Final statement must return exactly one column.".into(),
        ));
    }
    if table && columns.len() != declared.len() {
        return Err(mismatch(match columns.len() > declared.len() {
            true => "Final statement returns too many columns.".into(),
            false => "Final statement returns too few columns.".into(),
        }));
    }
    let mut outputs = Vec::with_capacity(declared.len());
    for (index, (column, ty)) in columns.iter().zip(declared).enumerate() {
        let actual = column.data_type;
        if !can_cast(actual, ty, CastContext::Assignment) {
            return Err(mismatch(match table {
                false => format!("Actual return type is {}.", actual.name()),
                true => format!(
                    "Final statement returns {} instead of {} at column {}.",
                    actual.name(),
                    ty.name(),
                    index + 1
                ),
            }));
        }
        let value = ScalarExpr::Column { index, ty: actual };
        let value = binder.coerce(value, ty, CastContext::Assignment)?;
        outputs.push(binder.assign_to_domain(value, function.returns_domain)?);
    }
    Ok(outputs)
}

/// The body `SELECT expr` with the arguments in place of the parameters, when that gives
/// what running it would: no subquery in it, each volatile argument read exactly once, and
/// for STRICT only arguments that may be read twice (a NULL test, then the body).
fn inline(
    function: &FunctionDef,
    plan: &LogicalPlan,
    outputs: &[ScalarExpr],
    args: &[ScalarExpr],
) -> Option<ScalarExpr> {
    let LogicalPlan::Project { input, exprs } = plan else {
        return None;
    };
    let LogicalPlan::Values { rows, .. } = input.as_ref() else {
        return None;
    };
    let ([expr], [row], [output]) = (exprs.as_slice(), rows.as_slice(), outputs) else {
        return None;
    };
    if !row.is_empty() {
        return None;
    }
    let mut uses = vec![0usize; args.len()];
    let mut subquery = false;
    expr.visit(&mut |e| match e {
        ScalarExpr::OuterColumn {
            depth: 1, index, ..
        } => {
            if let Some(count) = uses.get_mut(*index) {
                *count += 1;
            }
        }
        ScalarExpr::Subquery(_) | ScalarExpr::OuterColumn { .. } => subquery = true,
        _ => {}
    });
    let twice_unsafe = |arg: &ScalarExpr| arg.is_volatile();
    let unsafe_use = uses
        .iter()
        .zip(args)
        .any(|(&count, arg)| count != 1 && twice_unsafe(arg));
    if subquery || unsafe_use || (function.strict && args.iter().any(twice_unsafe)) {
        return None;
    }
    let body = substitute(expr.clone(), args);
    // The output coerces column 0 of the body's row: put the body there.
    let value = substitute_column(output.clone(), &body);
    if !function.strict {
        return Some(value);
    }
    let null_tests: Vec<ScalarExpr> = args
        .iter()
        .filter(|a| !matches!(a, ScalarExpr::Literal { value, .. } if !value.is_null()))
        .map(|a| ScalarExpr::IsNull {
            input: Box::new(a.clone()),
            negated: false,
        })
        .collect();
    let ty = value.ty();
    Some(
        match null_tests
            .into_iter()
            .reduce(|l, r| ScalarExpr::Or(Box::new(l), Box::new(r)))
        {
            None => value,
            Some(any_null) => ScalarExpr::Case {
                whens: vec![(any_null, ScalarExpr::null(ty))],
                else_result: Some(Box::new(value)),
                ty,
            },
        },
    )
}

/// `expr` with parameter `i` (outer column `i` of depth 1) replaced by `args[i]`.
fn substitute(expr: ScalarExpr, args: &[ScalarExpr]) -> ScalarExpr {
    match expr {
        ScalarExpr::OuterColumn {
            depth: 1, index, ..
        } if index < args.len() => args[index].clone(),
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(substitute(e, args)))
                .unwrap_or(fallback)
        }
    }
}

/// `expr` (over a one-column row) with its column 0 replaced by `value`.
fn substitute_column(expr: ScalarExpr, value: &ScalarExpr) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index: 0, .. } => value.clone(),
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(substitute_column(e, value)))
                .unwrap_or(fallback)
        }
    }
}

/// An argument bound in the calling query, moved into the subquery running the body: its
/// columns become outer columns one level up. Aggregates, window functions and correlated
/// subqueries there would need their own rewriting: 0A000.
fn into_subquery(arg: ScalarExpr) -> Result<ScalarExpr> {
    let mut refused = None;
    arg.visit(&mut |e| match e {
        ScalarExpr::Column { index, .. } if *index >= AGGREGATE_REF_BASE.min(WINDOW_REF_BASE) => {
            refused = Some("an aggregate or window function")
        }
        ScalarExpr::Subquery(s) if s.correlated => refused = Some("a correlated subquery"),
        _ => {}
    });
    if let Some(what) = refused {
        return Err(Error::unsupported(format!(
            "{what} as the argument of a SQL function that is not inlined"
        )));
    }
    Ok(shift_outward(arg, 1))
}

/// `expr` moved `levels` queries further in: its columns become references that many levels
/// out, and its outer references reach that much further.
pub(super) fn shift_outward(expr: ScalarExpr, levels: usize) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index, ty } => ScalarExpr::OuterColumn {
            depth: levels,
            index,
            ty,
        },
        ScalarExpr::OuterColumn { depth, index, ty } => ScalarExpr::OuterColumn {
            depth: depth + levels,
            index,
            ty,
        },
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(shift_outward(e, levels)))
                .unwrap_or(fallback)
        }
    }
}

/// The body run laterally over the one row of the arguments (none when STRICT meets a
/// NULL), giving the outputs; `limit_one` keeps its first row.
fn call_plan(
    function: &FunctionDef,
    args: Vec<ScalarExpr>,
    body: LogicalPlan,
    outputs: Vec<ScalarExpr>,
    limit_one: bool,
) -> LogicalPlan {
    let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
    let arg_count = args.len();
    let mut left = LogicalPlan::Values {
        rows: Arc::new(vec![args]),
        types: types.clone(),
    };
    let not_null = types
        .iter()
        .enumerate()
        .map(|(index, &ty)| ScalarExpr::IsNull {
            input: Box::new(ScalarExpr::Column { index, ty }),
            negated: true,
        });
    if let Some(predicate) = ScalarExpr::conjunction(not_null.collect()).filter(|_| function.strict)
    {
        left = LogicalPlan::Filter {
            input: Box::new(left),
            predicate,
        };
    }
    let mut right = body;
    if limit_one {
        right = LogicalPlan::Limit {
            input: Box::new(right),
            limit: Some(ScalarExpr::literal(ScalarValue::Int64(1), DataType::Int64)),
            offset: None,
            ties: Vec::new(),
        };
    }
    let result_types: Vec<DataType> = outputs.iter().map(ScalarExpr::ty).collect();
    right = LogicalPlan::Project {
        input: Box::new(right),
        exprs: outputs,
    };
    LogicalPlan::Project {
        input: Box::new(LogicalPlan::LateralJoin {
            left: Box::new(left),
            right: Box::new(right),
            kind: crate::plan::JoinKind::Inner,
            condition: None,
        }),
        exprs: result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| ScalarExpr::Column {
                index: arg_count + i,
                ty,
            })
            .collect(),
    }
}

/// One expression of SQL text (a stored DEFAULT).
fn parse_expression(text: &str) -> Result<Expr> {
    let mut statements = crate::parser::parse_stored(&format!("SELECT {text}"))?;
    let select = match statements.pop().map(|p| p.statement) {
        Some(crate::parser::Statement::Sql(Statement::Query(query))) => match *query.body {
            ast::SetExpr::Select(select) => Some(*select),
            _ => None,
        },
        _ => None,
    };
    match select.map(|s| s.projection) {
        Some(mut items) if items.len() == 1 => match items.pop() {
            Some(ast::SelectItem::UnnamedExpr(expr)) => Ok(expr),
            _ => Err(Error::internal(format!("stored default {text}"))),
        },
        _ => Err(Error::internal(format!("stored default {text}"))),
    }
}

/// The name a SQL function is shown with in messages about a call: qualified as written.
pub(super) fn shown_call_name(name: &ObjectName) -> String {
    name.0
        .iter()
        .filter_map(|part| part.as_ident().map(ident_name))
        .collect::<Vec<_>>()
        .join(".")
}

/// The arguments of a call as written, for a SQL function: positional ones, then named ones
/// (`name => value` or `name := value`).
pub(super) fn written_args(args: &[ast::FunctionArg]) -> Result<WrittenArgs<'_>> {
    let mut written = WrittenArgs {
        positional: Vec::new(),
        named: Vec::new(),
        variadic: false,
    };
    for arg in args {
        if written.variadic {
            return Err(super::expr::variadic_not_last());
        }
        let arrow = |operator: &ast::FunctionArgOperator| {
            matches!(
                operator,
                ast::FunctionArgOperator::RightArrow | ast::FunctionArgOperator::Assignment
            )
        };
        match arg {
            // `name := value` arrives as an assignment expression.
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Expr::BinaryOp {
                left,
                op: ast::BinaryOperator::Assignment,
                right,
            })) if matches!(left.as_ref(), Expr::Identifier(_)) => {
                if let Expr::Identifier(name) = left.as_ref() {
                    written.named.push((ident_name(name), right));
                }
            }
            ast::FunctionArg::ExprNamed {
                name: Expr::Identifier(name),
                arg: ast::FunctionArgExpr::Expr(expr),
                operator,
            } if arrow(operator) => written.named.push((ident_name(name), expr)),
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(expr)) => {
                if !written.named.is_empty() {
                    return Err(Error::syntax(
                        "positional argument cannot follow named argument",
                    ));
                }
                match super::variadic::variadic_array(expr) {
                    Some(array) => {
                        written.positional.push(array);
                        written.variadic = true;
                    }
                    None => written.positional.push(expr),
                }
            }
            ast::FunctionArg::Named {
                name,
                arg: ast::FunctionArgExpr::Expr(expr),
                operator,
            } if arrow(operator) => written.named.push((ident_name(name), expr)),
            other => {
                return Err(Error::unsupported(format!(
                    "the argument {other} of a SQL function"
                )))
            }
        }
    }
    Ok(written)
}

/// The argument types of a call no SQL function fits, for 42883.
pub(super) fn no_such_function(
    binder: &mut Binder<'_>,
    shown: &str,
    written: &WrittenArgs<'_>,
    scope: &Scope,
) -> Error {
    let mut types = Vec::new();
    for expr in written
        .positional
        .iter()
        .chain(written.named.iter().map(|(_, e)| e))
    {
        match binder.bind_expr(expr, scope) {
            Ok(bound) => types.push(bound.ty()),
            Err(e) => return e,
        }
    }
    super::expr::undefined_function(shown, &types)
}

impl<'a> Binder<'a> {
    /// A call in an expression of a SQL function, or `None` when it names none (or, for
    /// an unqualified name, none fits and a built-in function may).
    pub(super) fn bind_sql_function_call(
        &mut self,
        function: &ast::Function,
        scope: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        let Some(candidates) = self.sql_functions_named(&function.name)? else {
            return Ok(None);
        };
        let shown = shown_call_name(&function.name);
        let args: &[ast::FunctionArg] = match &function.args {
            ast::FunctionArguments::None => &[],
            ast::FunctionArguments::List(list)
                if list.clauses.is_empty()
                    && list.duplicate_treatment.is_none()
                    && function.over.is_none()
                    && function.filter.is_none()
                    && function.within_group.is_empty() =>
            {
                &list.args
            }
            _ if candidates.is_empty() => return Ok(None),
            _ => {
                return Err(Error::unsupported(format!(
                    "the call {function} of a SQL function"
                )))
            }
        };
        let written = written_args(args)?;
        let qualified = function.name.0.len() > 1;
        match self.resolve_sql_call(&shown, &candidates, &written, scope)? {
            Some(call) => self.bind_sql_call(call).map(Some),
            None if qualified => Err(no_such_function(self, &shown, &written, scope)),
            None => Ok(None),
        }
    }
}

impl<'a> Binder<'a> {
    /// A SQL function in FROM, or `None` when `name` names none (or, unqualified, none
    /// fits). Like any function in FROM it may read the FROM items left of it.
    pub(super) fn bind_sql_function_in_from(
        &mut self,
        name: &ObjectName,
        args: &[ast::FunctionArg],
        alias: Option<&ast::TableAlias>,
        ordinality: bool,
    ) -> Result<Option<(LogicalPlan, Scope)>> {
        let Some(candidates) = self.sql_functions_named(name)? else {
            return Ok(None);
        };
        let shown = shown_call_name(name);
        let written = written_args(args)?;
        let lateral = self.enter_lateral();
        let empty = Scope::default();
        let resolved = self.resolve_sql_call(&shown, &candidates, &written, &empty);
        let resolved = match resolved {
            Ok(None) if name.0.len() > 1 => Err(no_such_function(self, &shown, &written, &empty)),
            other => other,
        };
        let left = self.leave_lateral(lateral);
        let Some(call) = resolved? else {
            self.lateral_scope = left;
            return Ok(None);
        };
        if ordinality {
            return Err(Error::unsupported("WITH ORDINALITY on a SQL function"));
        }
        // A scalar or SETOF function's one column is named after the alias, if any, unless
        // a named OUT parameter names it.
        let named_by_alias = alias.is_some()
            && call.function.returns.columns().is_none()
            && call.function.out_param_name().is_none();
        let (plan, columns) = self.bind_sql_call_in_from(call)?;
        let visible = alias.map_or_else(|| columns_owner(name), |a| ident_name(&a.name));
        let default_names = columns
            .iter()
            .map(|(column, _)| match named_by_alias {
                true => visible.clone(),
                false => column.clone(),
            })
            .collect();
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let names = super::from::alias_names(&visible, column_aliases, default_names)?;
        let types = columns.into_iter().map(|(_, ty)| ty);
        Ok(Some((
            plan,
            Scope::of_computed(&visible, names.into_iter().zip(types)),
        )))
    }
}

/// The unqualified name of a function, which names its FROM item.
fn columns_owner(name: &ObjectName) -> String {
    name.0
        .last()
        .and_then(|part| part.as_ident())
        .map(ident_name)
        .unwrap_or_default()
}

impl<'a> Binder<'a> {
    /// The names of the set-returning SQL functions, which `select_srf.rs` moves out of a
    /// select list.
    pub(super) fn set_returning_sql_functions(&self) -> Vec<String> {
        self.state
            .functions
            .values()
            .filter(|f| f.returns.returns_set())
            .map(|f| f.name.name.clone())
            .collect()
    }

    /// The select list's set-returning calls moved into FROM, when one names a SQL
    /// function: alone, it runs as it would in FROM, where a lateral join gives the rows of
    /// PostgreSQL's ProjectSet. `None` when none does.
    pub(super) fn bind_sql_srf_in_select_list(
        &mut self,
        calls: &[(String, Vec<&Expr>)],
        alias: Option<&ast::TableAlias>,
        sql: &[String],
    ) -> Result<Option<(LogicalPlan, Scope)>> {
        if !calls.iter().any(|(name, _)| sql.contains(name)) {
            return Ok(None);
        }
        let [(name, args)] = calls else {
            return Err(Error::unsupported(
                "a set-returning SQL function next to another set-returning function in the \
                 select list",
            ));
        };
        let args: Vec<ast::FunctionArg> = args
            .iter()
            .map(|arg| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr((*arg).clone())))
            .collect();
        let name = ObjectName::from(vec![ast::Ident::with_quote('"', name.as_str())]);
        match self.bind_sql_function_in_from(&name, &args, alias, false)? {
            Some((_, scope)) if scope.columns.len() > 1 => Err(Error::unsupported(
                "a set-returning function of several columns in the select list",
            )),
            bound => Ok(bound),
        }
    }
}
