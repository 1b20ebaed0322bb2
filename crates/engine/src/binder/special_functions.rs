//! Functions with SQL's special call syntax (`SUBSTRING(x FROM a FOR b)`, `POSITION(a IN b)`,
//! `TRIM(BOTH x FROM y)`, `EXTRACT(field FROM x)`, `CEIL`/`FLOOR` keywords, ...), bound onto
//! the ordinary scalar functions.

use sqlparser::ast::Expr;

use super::scope::Scope;
use super::Binder;
use crate::error::Result;
use crate::plan::ScalarExpr;

impl Binder<'_> {
    /// `None` when `expr` is not one of these forms.
    pub(super) fn bind_special_function(
        &mut self,
        expr: &Expr,
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        let _ = (expr, scope);
        None
    }
}
