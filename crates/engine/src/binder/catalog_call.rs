//! Calls of the system catalog's functions (`format_type(...)`, `pg_get_indexdef(...)`) and
//! the conversions between names and the OID alias types (`'t'::regclass`,
//! `c.oid::regclass::text`), bound to `ScalarExpr::CatalogCall`.

use sqlparser::ast::Expr;

use super::record::{field_of, row_of};
use super::scope::Scope;
use super::Binder;
use crate::catalog::system::{object_oid, sql_function_oid, CatalogFunction};
use crate::error::Result;
use crate::function::cast::CastContext;
use crate::plan::{ColumnInfo, LogicalPlan, ScalarExpr};
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
        let bound = args
            .iter()
            .zip(parameters)
            .map(|(arg, parameter)| {
                let bound = self.bind_expr(arg, scope)?;
                match parameter {
                    Some(to) => self.coerce(bound, to, CastContext::Implicit),
                    None => Ok(bound),
                }
            })
            .collect::<Result<Vec<_>>>();
        Some(bound.map(|args| ScalarExpr::CatalogCall { func, args, ty }))
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

/// The output columns of a query as they leave the engine: OID aliases as the names they
/// print as (text); plain OIDs stay oid (type 26, four bytes in binary), as PostgreSQL sends
/// them; enum values as their labels (text); a record with such fields as an anonymous
/// record of the same fields presented so (its fields' numbers would print otherwise).
pub(super) fn present_catalog_columns(
    plan: LogicalPlan,
    mut columns: Vec<ColumnInfo>,
) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
    if !columns.iter().any(|c| presented(c.data_type)) {
        return Ok((plan, columns));
    }
    let exprs = columns
        .iter_mut()
        .enumerate()
        .map(|(index, column)| {
            let presented = present(ScalarExpr::Column {
                index,
                ty: column.data_type,
            })?;
            column.data_type = presented.ty();
            Ok(presented)
        })
        .collect::<Result<Vec<_>>>()?;
    let plan = LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
    };
    Ok((plan, columns))
}

/// The catalog function a value of `ty` leaves the engine through, if any.
fn output_function(ty: DataType) -> Option<CatalogFunction> {
    match ty {
        DataType::Oid(kind) => CatalogFunction::output_of(kind),
        DataType::Enum(oid) => Some(CatalogFunction::EnumOut(oid)),
        _ => None,
    }
}

/// Whether a value of `ty` is changed on its way out (see [`present_catalog_columns`]).
fn presented(ty: DataType) -> bool {
    match ty {
        DataType::Record(record) => record.fields.iter().any(|f| presented(f.ty)),
        ty => output_function(ty).is_some(),
    }
}

/// `expr` as it leaves the engine.
fn present(expr: ScalarExpr) -> Result<ScalarExpr> {
    let ty = expr.ty();
    match (ty, output_function(ty)) {
        (_, Some(func)) => Ok(ScalarExpr::CatalogCall {
            func,
            args: vec![expr],
            ty: DataType::Text,
        }),
        (DataType::Record(record), None) if presented(ty) => {
            let fields = (record.fields.iter().enumerate())
                .map(|(index, f)| {
                    Ok((
                        f.name.clone(),
                        present(field_of(expr.clone(), index, f.ty))?,
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            row_of(fields)
        }
        _ => Ok(expr),
    }
}
