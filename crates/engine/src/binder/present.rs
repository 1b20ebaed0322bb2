//! The presentation of values whose stored form is not what PostgreSQL prints: an enum value
//! (stored as its label's sort order) prints as its label, an OID alias (regclass, regtype,
//! ...) as its object's name, and a record with such fields as the record of their
//! presentations. PostgreSQL runs a type's output function wherever a value becomes text;
//! here the binder applies this one step wherever such a value flows into text: a query's
//! output columns and COPY TO, casts of records to text, and the functions and aggregates
//! over "any" that render their arguments (concat, format, the json builders, json_agg, ...;
//! see `ScalarFunction::renders_arguments`). Values of every other type pass untouched, so a
//! plan without such values gains nothing.

use super::record::{fields_of, row_of};
use crate::catalog::system::CatalogFunction;
use crate::error::Result;
use crate::function::{RecordFunction, ScalarFunction};
use crate::plan::{ColumnInfo, LogicalPlan, ScalarExpr};
use crate::types::DataType;

/// The form values leave the engine in: text (each type's output function), or PostgreSQL's
/// binary format of COPY TO, where an OID alias is its OID (oidsend) while an enum value is
/// still its label (enum_send).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Output {
    Text,
    Binary,
}

/// The output columns of a query as they leave the engine: OID aliases as the names they
/// print as (text); plain OIDs stay oid (type 26, four bytes in binary), as PostgreSQL sends
/// them; enum values as their labels (text); a record with such fields as an anonymous
/// record of the same fields presented so (its fields' numbers would print otherwise).
pub(super) fn present_columns(
    plan: LogicalPlan,
    mut columns: Vec<ColumnInfo>,
    output: Output,
) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
    if !columns.iter().any(|c| presented_in(c.data_type, output)) {
        return Ok((plan, columns));
    }
    let exprs = columns
        .iter_mut()
        .enumerate()
        .map(|(index, column)| {
            let ty = column.data_type;
            let presented = present_in(ScalarExpr::Column { index, ty }, output)?;
            column.data_type = presented.ty();
            // A record stays the anonymous record of its presented fields, whose binary
            // form (record_send) names each field's type as sent.
            if column.data_type != ty && !matches!(ty, DataType::Record(_)) {
                column.presented_from = Some(ty);
            }
            Ok(presented)
        })
        .collect::<Result<Vec<_>>>()?;
    let plan = LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
    };
    Ok((plan, columns))
}

/// The catalog function a value of `ty` leaves the engine through in `output`, if any.
fn output_function(ty: DataType, output: Output) -> Option<CatalogFunction> {
    match (ty, output) {
        (DataType::Oid(kind), Output::Text) => CatalogFunction::output_of(kind),
        _ => ty.enum_oid().map(CatalogFunction::EnumOut),
    }
}

/// Whether a value of `ty` is changed when it is rendered as text (see [`present`]).
pub(super) fn needs_presentation(ty: DataType) -> bool {
    presented_in(ty, Output::Text)
}

fn presented_in(ty: DataType, output: Output) -> bool {
    match ty {
        DataType::Record(record) => record.fields.iter().any(|f| presented_in(f.ty, output)),
        ty => output_function(ty, output).is_some(),
    }
}

/// `expr` as it is rendered as text: through its type's output function, or for a record
/// with such fields, the anonymous record of its fields presented (NULL staying NULL); any
/// other expression as it is.
pub(super) fn present(expr: ScalarExpr) -> Result<ScalarExpr> {
    present_in(expr, Output::Text)
}

fn present_in(expr: ScalarExpr, output: Output) -> Result<ScalarExpr> {
    let ty = expr.ty();
    if let Some(func) = output_function(ty, output) {
        return Ok(ScalarExpr::CatalogCall {
            func,
            args: vec![expr],
            ty: super::enum_type::labels_type(ty),
        });
    }
    if !presented_in(ty, output) {
        return Ok(expr);
    }
    let Some(fields) = fields_of(&expr) else {
        return Ok(expr);
    };
    let fields = fields
        .into_iter()
        .map(|(name, field)| Ok((name, present_in(field, output)?)))
        .collect::<Result<Vec<_>>>()?;
    let row = row_of(fields)?;
    // A row constructor is never NULL; any other record may be, and must stay so.
    if matches!(
        expr,
        ScalarExpr::Function {
            func: ScalarFunction::Record(RecordFunction::Row(_)),
            ..
        }
    ) {
        return Ok(row);
    }
    let ty = row.ty();
    Ok(ScalarExpr::Case {
        whens: vec![(
            ScalarExpr::IsNull {
                input: Box::new(expr),
                negated: false,
            },
            ScalarExpr::null(ty),
        )],
        else_result: Some(Box::new(row)),
        ty,
    })
}

/// Each of `args` presented (see [`present`]).
pub(super) fn present_all(args: Vec<ScalarExpr>) -> Result<Vec<ScalarExpr>> {
    args.into_iter().map(present).collect()
}
