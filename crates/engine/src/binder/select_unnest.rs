//! `SELECT ..., unnest(a) [AS x], ... FROM ...` with a single unnest call as a whole select
//! item: bound as the same SELECT over `FROM ..., unnest(a)` (implicitly lateral), which
//! gives PostgreSQL's rows: each input row repeated per element, none for a NULL or empty
//! array. Several set-returning calls, one inside an expression, `*` next to it, or one
//! next to aggregates or window functions keep answering 0A000.

use sqlparser::ast::{
    self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, Select,
    SelectItem, TableAlias, TableFactor, TableWithJoins,
};

/// The FROM alias (and column) of the moved call; no SQL name can clash with it.
const ALIAS: &str = "?unnest?";

/// The select with its one top-level unnest moved into FROM, if it has exactly one.
pub(super) fn move_unnest_to_from(select: &Select) -> Option<Select> {
    let mut found = None;
    for (i, item) in select.projection.iter().enumerate() {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(expr) => (expr, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias)),
            // The moved column would show up in `*`.
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => return None,
            SelectItem::ExprWithAliases { .. } => continue,
        };
        if let Some(arg) = unnest_argument(expr) {
            if found.is_some() {
                return None;
            }
            found = Some((i, arg.clone(), alias.cloned()));
        }
    }
    let (i, arg, alias) = found?;
    let name = Ident::with_quote('"', ALIAS);
    let mut rewritten = select.clone();
    rewritten.from.push(TableWithJoins {
        relation: TableFactor::Function {
            lateral: true,
            name: ObjectName::from(vec![Ident::new("unnest")]),
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
            with_ordinality: false,
            alias: Some(TableAlias {
                explicit: true,
                name: name.clone(),
                columns: Vec::new(),
                at: None,
            }),
        },
        joins: Vec::new(),
    });
    rewritten.projection[i] = SelectItem::ExprWithAlias {
        expr: Expr::CompoundIdentifier(vec![name.clone(), name]),
        alias: alias.unwrap_or_else(|| Ident::new("unnest")),
    };
    Some(rewritten)
}

/// The argument of a plain `unnest(x)` call; `None` for anything else, including calls
/// with clauses (FILTER, OVER, ORDER BY, DISTINCT), which the normal path rejects.
fn unnest_argument(expr: &Expr) -> Option<&Expr> {
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
    let plain = !*uses_odbc_syntax
        && matches!(parameters, FunctionArguments::None)
        && filter.is_none()
        && null_treatment.is_none()
        && over.is_none()
        && within_group.is_empty()
        && super::ident_name(ident) == "unnest";
    let FunctionArguments::List(list) = args else {
        return None;
    };
    match (
        plain,
        list.duplicate_treatment,
        list.clauses.as_slice(),
        list.args.as_slice(),
    ) {
        (true, None, [], [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))]) => Some(arg),
        _ => None,
    }
}
