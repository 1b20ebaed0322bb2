//! Calls of the system catalog's functions (`format_type(...)`, `pg_get_indexdef(...)`) and
//! the conversions between names and the OID alias types (`'t'::regclass`,
//! `c.oid::regclass::text`), bound to `ScalarExpr::CatalogCall`.

use sqlparser::ast::Expr;

use super::scope::Scope;
use super::Binder;
use crate::catalog::system::{object_oid, sql_function_oid, CatalogFunction};
use crate::error::{Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::ScalarExpr;
use crate::types::{DataType, OidKind, ScalarValue};

impl Binder<'_> {
    /// `None` when no catalog function has this name and number of arguments.
    pub(super) fn bind_catalog_call(
        &mut self,
        name: &str,
        args: &[&Expr],
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        let (func, parameters, ty) = CatalogFunction::resolve(name, args.len())?;
        Some(
            self.bind_catalog_arguments(name, args, &parameters, scope)
                .map(|args| ScalarExpr::CatalogCall { func, args, ty }),
        )
    }

    /// The arguments brought to the parameters' types; an argument no implicit cast takes
    /// there means no such function, 42883 as PostgreSQL's function lookup says.
    fn bind_catalog_arguments(
        &mut self,
        name: &str,
        args: &[&Expr],
        parameters: &[Option<DataType>],
        scope: &Scope,
    ) -> Result<Vec<ScalarExpr>> {
        let bound = args
            .iter()
            .map(|arg| self.bind_expr(arg, scope))
            .collect::<Result<Vec<_>>>()?;
        let types: Vec<DataType> = bound.iter().map(ScalarExpr::ty).collect();
        bound
            .into_iter()
            .zip(parameters)
            .map(|(bound, parameter)| match parameter {
                Some(to) => self
                    .coerce(bound, *to, CastContext::Implicit)
                    .map_err(|error| match error.state {
                        SqlState::DatatypeMismatch | SqlState::CannotCoerce => {
                            self.undefined_function(name, &types)
                        }
                        _ => error,
                    }),
                None => Ok(bound),
            })
            .collect()
    }

    /// The conversions into and out of the OID alias types (regclass, ...), which go
    /// through the catalog: a name written as a constant is looked up now, as PostgreSQL
    /// does while planning (`'t'::regclass`); other text at run time; and an alias printed
    /// as text becomes the object's name. Gives `expr` back (`Err`) where the ordinary cast
    /// rules apply.
    pub(super) fn coerce_oid_alias(
        &mut self,
        expr: ScalarExpr,
        to: DataType,
        context: CastContext,
    ) -> std::result::Result<Result<ScalarExpr>, ScalarExpr> {
        let from = expr.ty();
        match (from, to) {
            (DataType::Oid(kind), to) if to.is_string() => {
                let Some(func) = CatalogFunction::output_of(kind) else {
                    return Err(expr);
                };
                let name = ScalarExpr::CatalogCall {
                    func,
                    args: vec![expr],
                    ty: DataType::Text,
                };
                Ok(self.coerce(name, to, context))
            }
            (from, DataType::Oid(kind))
                if kind != OidKind::Oid && (from.is_string() || from == DataType::Unknown) =>
            {
                Ok(self.names_to_oids(expr, kind, context))
            }
            _ => Err(expr),
        }
    }

    fn names_to_oids(
        &mut self,
        expr: ScalarExpr,
        kind: OidKind,
        context: CastContext,
    ) -> Result<ScalarExpr> {
        let to = DataType::Oid(kind);
        // The regproc columns of our catalogs hold function names (most built-in functions
        // have no OID here), so a name written as a regproc stays that name, to compare
        // with them.
        if matches!(kind, OidKind::RegProc | OidKind::RegProcedure) {
            // A SQL function has an OID: psql's `\sf name` looks it up so.
            if let ScalarExpr::Literal {
                value: ScalarValue::Text(name),
                ..
            } = &expr
            {
                if let Some(oid) = sql_function_oid(self.state, &self.searched, name) {
                    return Ok(ScalarExpr::literal(ScalarValue::Int64(i64::from(oid)), to));
                }
            }
            return self.coerce(expr, DataType::Text, context);
        }
        if let ScalarExpr::Literal { value, .. } = &expr {
            return Ok(match value {
                ScalarValue::Text(name) => {
                    let oid = object_oid(kind, name, self.state, Some(self.search_path))?;
                    ScalarExpr::literal(ScalarValue::Int64(i64::from(oid)), to)
                }
                _ => ScalarExpr::null(to),
            });
        }
        let text = self.coerce(expr, DataType::Text, context)?;
        Ok(ScalarExpr::CatalogCall {
            func: CatalogFunction::NameToOid(kind),
            args: vec![text],
            ty: to,
        })
    }
}
