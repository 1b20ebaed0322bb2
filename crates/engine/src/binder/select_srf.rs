//! Set-returning functions in the select list (`SELECT generate_series(1, 3)`, `SELECT id,
//! unnest(tags) FROM t`), as PostgreSQL 10+ runs them: bound as the same SELECT over
//! `FROM ..., <the calls>` (implicitly lateral), where the calls run in lockstep, the
//! shorter ones padded with NULL. That gives PostgreSQL's rows: each input row repeated
//! per output row of its calls, none when they all return nothing. A call may sit inside
//! operators, casts and scalar functions (`upper(unnest(names))`); one inside CASE,
//! COALESCE, an aggregate, AND/OR/NOT or a subquery, another one's arguments, next to
//! a bare `*`, or next to aggregates or window functions is not moved, and is refused when bound.

use sqlparser::ast::{
    self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, Select,
    SelectItem, TableAlias, TableAliasColumnDef, TableFactor, TableWithJoins,
};

use super::expand_array::{is_expand_array, EXPAND_ARRAY};
use super::ident_name;
use super::record::is_row_expansion;
use crate::error::{Error, Result};
use crate::function::{AggregateFunction, JsonItems, TableFunction};

/// The name of the FROM function that runs its arguments (set-returning calls) in
/// lockstep; no SQL function can have it.
pub(super) const LOCKSTEP: &str = "?lockstep?";

/// The FROM alias of the moved calls.
const ALIAS: &str = "?srf?";

/// The select with its set-returning calls moved into FROM, if it has any. `sql` names
/// the set-returning SQL functions (CREATE FUNCTION ... RETURNS SETOF).
pub(super) fn move_srfs_to_from(select: &Select, sql: &[String]) -> Option<Select> {
    // Most selects have none: they are neither copied nor rewritten.
    let any_call = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
            holds_call(expr, sql)
        }
        _ => false,
    });
    if !any_call {
        return None;
    }
    let mut calls = Vec::new();
    let mut projection = select.projection.clone();
    let mut wildcard = false;
    for item in &mut projection {
        match item {
            // `(f(x)).*` expands to the call's fields, each named after its own.
            SelectItem::UnnamedExpr(expr) if expands_row(expr) && holds_call(expr, sql) => {
                replace_calls(expr, &mut calls, sql)
            }
            SelectItem::UnnamedExpr(expr) if holds_call(expr, sql) => {
                // The column keeps the name of what was written.
                let alias = Ident::with_quote('"', super::select::column_name(expr));
                let mut expr = expr.clone();
                replace_calls(&mut expr, &mut calls, sql);
                *item = SelectItem::ExprWithAlias { expr, alias };
            }
            SelectItem::ExprWithAlias { expr, .. } => replace_calls(expr, &mut calls, sql),
            // `t.*` names its FROM item, never the moved calls'.
            SelectItem::Wildcard(_) => wildcard = true,
            SelectItem::UnnamedExpr(_)
            | SelectItem::QualifiedWildcard(..)
            | SelectItem::ExprWithAliases { .. } => {}
        }
    }
    // The moved columns would show up in a bare `*`.
    if calls.is_empty() || wildcard {
        return None;
    }
    let columns = (0..calls.len())
        .map(|i| TableAliasColumnDef {
            name: column(i),
            data_type: None,
        })
        .collect();
    let mut rewritten = select.clone();
    rewritten.projection = projection;
    rewritten.from.push(TableWithJoins {
        relation: TableFactor::Function {
            lateral: true,
            name: ObjectName::from(vec![Ident::with_quote('"', LOCKSTEP)]),
            args: calls
                .into_iter()
                .map(|call| FunctionArg::Unnamed(FunctionArgExpr::Expr(call)))
                .collect(),
            with_ordinality: false,
            alias: Some(TableAlias {
                explicit: true,
                name: Ident::with_quote('"', ALIAS),
                columns,
                at: None,
            }),
        },
        joins: Vec::new(),
    });
    Some(rewritten)
}

fn column(i: usize) -> Ident {
    Ident::with_quote('"', format!("?srf{i}?"))
}

/// Whether `expr` holds a set-returning call where [`replace_calls`] moves it from.
#[recursive::recursive]
fn holds_call(expr: &Expr, sql: &[String]) -> bool {
    function_parts(expr, sql).is_some()
        || operands(expr)
            .into_iter()
            .any(|operand| holds_call(operand, sql))
}

/// Moves each set-returning call `expr` holds to `calls`, leaving a reference to its
/// column in its place.
#[recursive::recursive]
fn replace_calls(expr: &mut Expr, calls: &mut Vec<Expr>, sql: &[String]) {
    if function_parts(expr, sql).is_some() {
        let reference =
            Expr::CompoundIdentifier(vec![Ident::with_quote('"', ALIAS), column(calls.len())]);
        calls.push(std::mem::replace(expr, reference));
        return;
    }
    for operand in operands_mut(expr) {
        replace_calls(operand, calls, sql);
    }
}

/// The operands a set-returning call is moved out of: those of operators, casts and scalar
/// functions. PostgreSQL refuses a set as an argument of NOT, AND and OR (42804).
fn operands(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => vec![inner],
        Expr::CompoundFieldAccess { root, access_chain } if reads_parts(access_chain) => {
            vec![root]
        }
        Expr::UnaryOp { op, expr } if sign(op) => vec![expr],
        Expr::BinaryOp { left, op, right } if !logical(op) => vec![left, right],
        Expr::Function(function) if is_scalar_call(function) => match &function.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)) => Some(arg),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// [`operands`], to change them.
fn operands_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
        Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => vec![inner],
        Expr::CompoundFieldAccess { root, access_chain } if reads_parts(access_chain) => {
            vec![root]
        }
        Expr::UnaryOp { op, expr } if sign(op) => vec![expr],
        Expr::BinaryOp { left, op, right } if !logical(op) => vec![left, right],
        Expr::Function(function) if is_scalar_call(function) => match &mut function.args {
            FunctionArguments::List(list) => list
                .args
                .iter_mut()
                .filter_map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)) => Some(arg),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn expands_row(expr: &Expr) -> bool {
    matches!(expr, Expr::CompoundFieldAccess { access_chain, .. } if is_row_expansion(access_chain))
}

/// Whether an access chain selects fields (`(f(x)).a.b`, or all of them, `(f(x)).*`) and
/// array elements (`(regexp_matches(s, p))[1]`) only: a set-returning call is moved out of
/// it, and its column read.
fn reads_parts(access_chain: &[ast::AccessExpr]) -> bool {
    let fields = match access_chain.split_last() {
        Some((_, fields)) if is_row_expansion(access_chain) => fields,
        _ => access_chain,
    };
    fields.iter().all(|access| {
        matches!(
            access,
            ast::AccessExpr::Dot(Expr::Identifier(_)) | ast::AccessExpr::Subscript(_)
        )
    })
}

fn sign(op: &ast::UnaryOperator) -> bool {
    matches!(op, ast::UnaryOperator::Minus | ast::UnaryOperator::Plus)
}

fn logical(op: &ast::BinaryOperator) -> bool {
    matches!(
        op,
        ast::BinaryOperator::And | ast::BinaryOperator::Or | ast::BinaryOperator::Xor
    )
}

/// Whether a set-returning call may sit among `function`'s arguments: a plain scalar call.
/// PostgreSQL refuses one inside an aggregate, a window function or COALESCE.
fn is_scalar_call(function: &ast::Function) -> bool {
    let [ast::ObjectNamePart::Identifier(ident)] = function.name.0.as_slice() else {
        return false;
    };
    let name = ident_name(ident);
    matches!(function.parameters, FunctionArguments::None)
        && function.filter.is_none()
        && function.over.is_none()
        && function.within_group.is_empty()
        && AggregateFunction::by_name(&name).is_none()
        && name != "coalesce"
}

/// The name and arguments of a moved call.
pub(super) fn call_parts<'e>(expr: &'e Expr, sql: &[String]) -> Result<(String, Vec<&'e Expr>)> {
    function_parts(expr, sql).ok_or_else(|| Error::internal("a moved set-returning call"))
}

/// The name and arguments of a plain call of a set-returning function; `None` for anything
/// else, including calls with clauses (FILTER, OVER, ORDER BY, DISTINCT), which the normal
/// path rejects.
fn function_parts<'e>(expr: &'e Expr, sql: &[String]) -> Option<(String, Vec<&'e Expr>)> {
    let Expr::Function(function) = expr else {
        return None;
    };
    let ast::Function {
        name,
        uses_odbc_syntax,
        parameters,
        args,
        filter,
        null_treatment,
        over,
        within_group,
    } = function;
    let name = match name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(ident)] => ident_name(ident),
        [ast::ObjectNamePart::Identifier(schema), ast::ObjectNamePart::Identifier(ident)]
            if ident_name(schema) == "pg_catalog" =>
        {
            ident_name(ident)
        }
        [ast::ObjectNamePart::Identifier(schema), ast::ObjectNamePart::Identifier(ident)]
            if is_expand_array(&ident_name(schema), &ident_name(ident)) =>
        {
            EXPAND_ARRAY.to_string()
        }
        _ => return None,
    };
    let plain = !*uses_odbc_syntax
        && matches!(parameters, FunctionArguments::None)
        && filter.is_none()
        && null_treatment.is_none()
        && over.is_none()
        && within_group.is_empty()
        && (TableFunction::by_name(&name).is_some()
            || name == EXPAND_ARRAY
            || JsonItems::columns(&name).is_some()
            || sql.contains(&name));
    let FunctionArguments::List(list) = args else {
        return None;
    };
    if !plain || list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    let args = list
        .args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)) => Some(arg),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((name, args))
}
