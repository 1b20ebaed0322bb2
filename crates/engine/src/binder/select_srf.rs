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

use super::ident_name;
use crate::error::{Error, Result};
use crate::function::{AggregateFunction, TableFunction};

/// The name of the FROM function that runs its arguments (set-returning calls) in
/// lockstep; no SQL function can have it.
pub(super) const LOCKSTEP: &str = "?lockstep?";

/// The FROM alias of the moved calls.
const ALIAS: &str = "?srf?";

/// The select with its set-returning calls moved into FROM, if it has any.
pub(super) fn move_srfs_to_from(select: &Select) -> Option<Select> {
    let mut calls = Vec::new();
    let mut projection = select.projection.clone();
    let mut wildcard = false;
    for item in &mut projection {
        match item {
            SelectItem::UnnamedExpr(expr) => {
                // The column keeps the name of what was written.
                let name = super::select::column_name(expr);
                let before = calls.len();
                let replaced = replace_calls(expr.clone(), &mut calls);
                if calls.len() > before {
                    *item = SelectItem::ExprWithAlias {
                        expr: replaced,
                        alias: Ident::with_quote('"', name),
                    };
                }
            }
            SelectItem::ExprWithAlias { expr, .. } => {
                *expr = replace_calls(expr.clone(), &mut calls);
            }
            // `t.*` names its FROM item, never the moved calls'.
            SelectItem::Wildcard(_) => wildcard = true,
            SelectItem::QualifiedWildcard(..) | SelectItem::ExprWithAliases { .. } => {}
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

/// `expr` with each set-returning call it holds (through operators and casts) moved to
/// `calls` and replaced by a reference to its column.
fn replace_calls(expr: Expr, calls: &mut Vec<Expr>) -> Expr {
    if function_parts(&expr).is_some() {
        let reference =
            Expr::CompoundIdentifier(vec![Ident::with_quote('"', ALIAS), column(calls.len())]);
        calls.push(expr);
        return reference;
    }
    let mut replace = |inner: Box<Expr>| Box::new(replace_calls(*inner, calls));
    match expr {
        Expr::Nested(inner) => Expr::Nested(replace(inner)),
        // PostgreSQL refuses a set as an argument of NOT, AND and OR (42804).
        Expr::UnaryOp {
            op: op @ (ast::UnaryOperator::Minus | ast::UnaryOperator::Plus),
            expr,
        } => Expr::UnaryOp {
            op,
            expr: replace(expr),
        },
        Expr::BinaryOp { left, op, right }
            if !matches!(
                op,
                ast::BinaryOperator::And | ast::BinaryOperator::Or | ast::BinaryOperator::Xor
            ) =>
        {
            let left = replace(left);
            Expr::BinaryOp {
                left,
                op,
                right: replace(right),
            }
        }
        Expr::Cast {
            kind,
            expr,
            data_type,
            format,
        } => Expr::Cast {
            kind,
            expr: replace(expr),
            data_type,
            format,
        },
        Expr::Function(mut function) if is_scalar_call(&function) => {
            if let FunctionArguments::List(list) = &mut function.args {
                for arg in &mut list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(arg)) = arg {
                        *arg = replace_calls(arg.clone(), calls);
                    }
                }
            }
            Expr::Function(function)
        }
        other => other,
    }
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
pub(super) fn call_parts(expr: &Expr) -> Result<(String, Vec<&Expr>)> {
    function_parts(expr).ok_or_else(|| Error::internal("a moved set-returning call"))
}

/// The name and arguments of a plain call of a set-returning function; `None` for anything
/// else, including calls with clauses (FILTER, OVER, ORDER BY, DISTINCT), which the normal
/// path rejects.
fn function_parts(expr: &Expr) -> Option<(String, Vec<&Expr>)> {
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
    let [ast::ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
        return None;
    };
    let name = ident_name(ident);
    let plain = !*uses_odbc_syntax
        && matches!(parameters, FunctionArguments::None)
        && filter.is_none()
        && null_treatment.is_none()
        && over.is_none()
        && within_group.is_empty()
        && TableFunction::by_name(&name).is_some();
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
