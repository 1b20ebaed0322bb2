//! Row constructors in comparisons: `(a, b) op (c, d)`, `ROW(a, b)`, `(a, b) [NOT] IN
//! ((1, 2), (3, 4))` and `IS [NOT] DISTINCT FROM` between rows. PostgreSQL compares rows
//! field by field; the comparison is expanded here into the scalar comparisons that give
//! its results, NULLs included: `=` is the AND of the fields' equalities, `<>` the OR of
//! their inequalities, and the ordering operators decide at the first pair that is unequal
//! or NULL (`a1 < b1 OR (a1 = b1 AND (a2 < b2 ...))`).

use sqlparser::ast::{self, Expr};

use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::plan::{CompareOp, Quantifier, ScalarExpr};
use crate::types::DataType;

/// The fields of a row constructor, or `None` when `expr` is not one.
pub(super) fn row_fields(expr: &Expr) -> Option<Vec<&Expr>> {
    match expr {
        Expr::Tuple(fields) => Some(fields.iter().collect()),
        Expr::Function(function) => row_call_fields(function),
        _ => None,
    }
}

/// The fields of `ROW(...)`, or `None` when `function` is another call.
pub(super) fn row_call_fields(function: &ast::Function) -> Option<Vec<&Expr>> {
    let is_row = matches!(
        function.name.0.as_slice(),
        [ast::ObjectNamePart::Identifier(ident)] if ident.value.eq_ignore_ascii_case("row")
            && ident.quote_style.is_none()
    );
    let ast::FunctionArguments::List(list) = &function.args else {
        return None;
    };
    if !is_row || function.over.is_some() || !list.clauses.is_empty() {
        return None;
    }
    list.args
        .iter()
        .map(|arg| match arg {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect()
}

fn record_operator_error(symbol: &str, left: &str, right: &str) -> Error {
    Error::new(
        SqlState::UndefinedFunction,
        format!("operator does not exist: {left} {symbol} {right}"),
    )
    .with_hint(
        "No operator matches the given name and argument types. You might need to add explicit type casts.",
    )
}

fn unequal_rows() -> Error {
    Error::syntax("unequal number of entries in row expressions")
}

impl Binder<'_> {
    /// The bound field pairs of `left symbol right`; `None` when neither side is a row.
    fn bind_row_pair(
        &mut self,
        left: &Expr,
        symbol: &str,
        right: &Expr,
        scope: &Scope,
    ) -> Result<Option<Vec<(ScalarExpr, ScalarExpr)>>> {
        let (l, r) = match (row_fields(left), row_fields(right)) {
            (None, None) => return Ok(None),
            (Some(l), Some(r)) => (l, r),
            // A row against a record value compares two records (record_cmp); against
            // a scalar, PostgreSQL has no such operator.
            (Some(_), None) => {
                let scalar = self.bind_expr(right, scope)?.ty();
                if let DataType::Record(_) = scalar {
                    return Ok(None);
                }
                return Err(record_operator_error(symbol, "record", &scalar.to_string()));
            }
            (None, Some(_)) => {
                let scalar = self.bind_expr(left, scope)?.ty();
                if let DataType::Record(_) = scalar {
                    return Ok(None);
                }
                return Err(record_operator_error(symbol, &scalar.to_string(), "record"));
            }
        };
        if l.len() != r.len() {
            return Err(unequal_rows());
        }
        if l.is_empty() {
            return Err(Error::unsupported("comparing empty rows"));
        }
        l.into_iter()
            .zip(r)
            .map(|(a, b)| Ok((self.bind_expr(a, scope)?, self.bind_expr(b, scope)?)))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// `left op right` when either side is a row constructor; `None` otherwise.
    pub(super) fn bind_row_compare(
        &mut self,
        left: &Expr,
        op: CompareOp,
        right: &Expr,
        scope: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        if let (Some(_), Expr::Subquery(query)) = (row_fields(left), right) {
            return self
                .bind_quantified(left, query, op, Quantifier::Single, scope)
                .map(Some);
        }
        let Some(pairs) = self.bind_row_pair(left, op.symbol(), right, scope)? else {
            return Ok(None);
        };
        self.compare_rows(op, pairs).map(Some)
    }

    fn compare_rows(
        &mut self,
        op: CompareOp,
        pairs: Vec<(ScalarExpr, ScalarExpr)>,
    ) -> Result<ScalarExpr> {
        let mut compared = Vec::with_capacity(pairs.len());
        match op {
            CompareOp::Eq | CompareOp::NotEq => {
                for (a, b) in pairs {
                    compared.push(self.compare(op, a, b)?);
                }
                let combine = if op == CompareOp::Eq {
                    ScalarExpr::And
                } else {
                    ScalarExpr::Or
                };
                fold(compared, |acc, next| combine(Box::new(acc), Box::new(next)))
            }
            _ => {
                let strict = match op {
                    CompareOp::LtEq => CompareOp::Lt,
                    CompareOp::GtEq => CompareOp::Gt,
                    other => other,
                };
                let last = pairs.len() - 1;
                // From the last field back: the last pair decides with `op` itself, every
                // earlier pair decides when it differs and defers to the rest when equal.
                let mut decided: Option<ScalarExpr> = None;
                for (i, (a, b)) in pairs.into_iter().enumerate().rev() {
                    decided = Some(match decided {
                        None if i == last => self.compare(op, a, b)?,
                        None => return Err(Error::internal("row comparison order")),
                        Some(rest) => {
                            let differs = self.compare(strict, a.clone(), b.clone())?;
                            let equal = self.compare(CompareOp::Eq, a, b)?;
                            ScalarExpr::Or(
                                Box::new(differs),
                                Box::new(ScalarExpr::And(Box::new(equal), Box::new(rest))),
                            )
                        }
                    });
                }
                decided.ok_or_else(|| Error::internal("empty row comparison"))
            }
        }
    }

    /// `left IS [NOT] DISTINCT FROM right` for rows: distinct when any field is.
    pub(super) fn bind_row_distinct(
        &mut self,
        left: &Expr,
        right: &Expr,
        negated: bool,
        scope: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        let Some(pairs) = self.bind_row_pair(left, "=", right, scope)? else {
            return Ok(None);
        };
        let mut distinct = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            let (a, b, _) = self.coerce_pair(a, b, "=")?;
            distinct.push(ScalarExpr::IsDistinctFrom {
                left: Box::new(a),
                right: Box::new(b),
                negated: false,
            });
        }
        any_of(distinct, negated).map(Some)
    }

    /// `row [NOT] IN (row, ...)`: the OR of the row equalities; `None` when `input` is not
    /// a row constructor.
    pub(super) fn bind_row_in_list(
        &mut self,
        input: &Expr,
        list: &[Expr],
        negated: bool,
        scope: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        if row_fields(input).is_none() {
            return Ok(None);
        }
        let mut alternatives = Vec::with_capacity(list.len());
        for item in list {
            let pairs = self
                .bind_row_pair(input, "=", item, scope)?
                .ok_or_else(unequal_rows)?;
            alternatives.push(self.compare_rows(CompareOp::Eq, pairs)?);
        }
        any_of(alternatives, negated).map(Some)
    }
}

/// The OR of `items` (negated: NOT of it).
fn any_of(items: Vec<ScalarExpr>, negated: bool) -> Result<ScalarExpr> {
    let any = fold(items, |acc, next| {
        ScalarExpr::Or(Box::new(acc), Box::new(next))
    })?;
    Ok(if negated {
        ScalarExpr::Not(Box::new(any))
    } else {
        any
    })
}

/// Left fold of a list the grammar keeps non-empty.
fn fold(
    items: Vec<ScalarExpr>,
    f: impl Fn(ScalarExpr, ScalarExpr) -> ScalarExpr,
) -> Result<ScalarExpr> {
    let mut iter = items.into_iter();
    let first = iter
        .next()
        .ok_or_else(|| Error::internal("row comparison without fields"))?;
    Ok(iter.fold(first, f))
}
