//! Functions with SQL's special call syntax (`SUBSTRING(x FROM a FOR b)`, `POSITION(a IN b)`,
//! `TRIM(BOTH x FROM y)`, `OVERLAY(x PLACING y FROM a FOR b)`, the `CEIL`/`FLOOR` keywords),
//! bound onto the ordinary scalar functions as PostgreSQL's grammar rewrites them; and the
//! regular-expression match operators `~ ~* !~ !~*`.

use sqlparser::ast::{CeilFloorKind, DateTimeField, Expr, TrimWhereField};

use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result};
use crate::function::ScalarFunction;
use crate::plan::ScalarExpr;
use crate::types::DataType;

impl Binder<'_> {
    /// `None` when `expr` is not one of these forms.
    pub(super) fn bind_special_function(
        &mut self,
        expr: &Expr,
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        Some(match expr {
            Expr::Substring {
                expr: input,
                substring_from,
                substring_for,
                special: _,
                shorthand: _,
            } => match (substring_from, substring_for) {
                (Some(from), Some(count)) => {
                    self.bind_call("substring", &[input, from, count], scope)
                }
                (Some(from), None) => self.bind_call("substring", &[input, from], scope),
                // SUBSTRING(x FOR n) starts at 1.
                (None, Some(count)) => {
                    let one = Expr::value(sqlparser::ast::Value::Number("1".into(), false));
                    self.bind_call("substring", &[input, &one, count], scope)
                }
                (None, None) => Err(Error::syntax("syntax error at or near \")\"")),
            },
            Expr::Position { expr: needle, r#in } => {
                self.bind_call("position", &[r#in, needle], scope)
            }
            Expr::Trim {
                expr: input,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                let name = match trim_where {
                    None | Some(TrimWhereField::Both) => "btrim",
                    Some(TrimWhereField::Leading) => "ltrim",
                    Some(TrimWhereField::Trailing) => "rtrim",
                };
                match (trim_what, trim_characters.as_deref()) {
                    (Some(what), None) => self.bind_call(name, &[input, what], scope),
                    (None, Some([characters])) => self.bind_call(name, &[input, characters], scope),
                    (None, None) => self.bind_call(name, &[input], scope),
                    _ => Err(Error::unsupported(format!("the form {expr}"))),
                }
            }
            Expr::Overlay {
                expr: input,
                overlay_what,
                overlay_from,
                overlay_for,
            } => match overlay_for {
                Some(count) => self.bind_call(
                    "overlay",
                    &[input, overlay_what, overlay_from, count],
                    scope,
                ),
                None => self.bind_call("overlay", &[input, overlay_what, overlay_from], scope),
            },
            Expr::Ceil { expr: input, field } | Expr::Floor { expr: input, field } => {
                let name = if matches!(expr, Expr::Ceil { .. }) {
                    "ceil"
                } else {
                    "floor"
                };
                match field {
                    CeilFloorKind::DateTimeField(DateTimeField::NoDateTime) => {
                        self.bind_call(name, &[input], scope)
                    }
                    CeilFloorKind::Scale(scale) => {
                        let scale = Expr::value(scale.value.clone());
                        self.bind_call(name, &[input, &scale], scope)
                    }
                    CeilFloorKind::DateTimeField(_) => {
                        Err(Error::syntax(format!("syntax error in {expr}")))
                    }
                }
            }
            _ => return None,
        })
    }

    /// Binds a call of the scalar function `name` on `args`, with PostgreSQL's errors.
    fn bind_call(&mut self, name: &str, args: &[&Expr], scope: &Scope) -> Result<ScalarExpr> {
        let bound = args
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        let types: Vec<DataType> = bound.iter().map(|e| e.ty()).collect();
        let Some(resolved) = ScalarFunction::resolve_checked(name, &types)? else {
            return Err(self.undefined_function(name, &types));
        };
        self.scalar_call(resolved, bound)
    }

    /// `left ~ right` and its forms (`case_insensitive` for `~*`, `negated` for `!~`): for
    /// `bind_binary` to call on `BinaryOperator::PGRegexMatch` and its siblings.
    pub(super) fn bind_regex_match(
        &mut self,
        left: &Expr,
        right: &Expr,
        case_insensitive: bool,
        negated: bool,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let (l, r) = (self.bind_expr(left, scope)?, self.bind_expr(right, scope)?);
        let (lt, rt) = (l.ty(), r.ty());
        let Some(resolved) =
            ScalarFunction::regex_match_operator(case_insensitive, negated, lt, rt)
        else {
            return Err(self.operator_error(func_symbol(case_insensitive, negated), lt, rt));
        };
        self.scalar_call(resolved, vec![l, r])
    }
}

impl Binder<'_> {
    /// `s [NOT] SIMILAR TO pattern [ESCAPE e]`: `s ~ similar_to_escape(pattern [, e])`, as
    /// PostgreSQL rewrites it.
    pub(super) fn bind_similar_to(
        &mut self,
        input: &Expr,
        pattern: &Expr,
        escape: Option<&Expr>,
        negated: bool,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let regex = match escape {
            None => self.bind_call("similar_to_escape", &[pattern], scope)?,
            Some(escape) => self.bind_call("similar_to_escape", &[pattern, escape], scope)?,
        };
        let input = self.bind_expr(input, scope)?;
        let (lt, rt) = (input.ty(), regex.ty());
        let Some(resolved) = ScalarFunction::regex_match_operator(false, negated, lt, rt) else {
            return Err(self.operator_error(func_symbol(false, negated), lt, rt));
        };
        self.scalar_call(resolved, vec![input, regex])
    }
}

fn func_symbol(case_insensitive: bool, negated: bool) -> &'static str {
    ScalarFunction::RegexMatch {
        case_insensitive,
        negated,
    }
    .name()
}
