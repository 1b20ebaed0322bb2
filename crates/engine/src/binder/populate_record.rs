//! json[b]_populate_record(set)(base, document): the row type of `base` says which keys
//! of the document to read and as what types. In FROM they are json[b]_to_record(set)
//! with those columns (see `from.rs`); json[b]_populate_record as a value is the record of
//! the same reads. Only a NULL base is taken: one with values would fill in the keys the
//! document lacks, which the json record kernels cannot tell from JSON nulls (0A000).

use super::array::array_call;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{ArrayFunction, JsonFunction, JsonItems, ScalarFunction};
use crate::plan::ScalarExpr;
use crate::types::record::{RecordType, RECORD_OID};
use crate::types::{DataType, ScalarValue};

/// The json[b]_to_record(set) a json[b]_populate_record(set) reads its document with.
pub(super) fn populate_to_record(name: &str) -> Option<&'static str> {
    match name {
        "json_populate_record" => Some("json_to_record"),
        "jsonb_populate_record" => Some("jsonb_to_record"),
        "json_populate_recordset" => Some("json_to_recordset"),
        "jsonb_populate_recordset" => Some("jsonb_to_recordset"),
        _ => None,
    }
}

/// Whether `expr` is a NULL constant (`NULL::t` binds to a cast of one).
pub(super) fn is_null_literal(expr: &ScalarExpr) -> bool {
    match expr {
        ScalarExpr::Literal {
            value: ScalarValue::Null,
            ..
        } => true,
        ScalarExpr::Cast { input, .. } => is_null_literal(input),
        _ => false,
    }
}

/// The row type of a populate function's `base`, which must be NULL.
pub(super) fn populated_row_type(name: &str, base: &ScalarExpr) -> Result<&'static RecordType> {
    let DataType::Record(record) = base.ty() else {
        return Err(Error::new(
            SqlState::DatatypeMismatch,
            format!("first argument of {name} must be a row type"),
        ));
    };
    if record.type_oid == RECORD_OID {
        return Err(Error::unsupported(format!(
            "an anonymous record as the base of {name}"
        )));
    }
    if !is_null_literal(base) {
        return Err(Error::unsupported(format!(
            "a base record other than NULL in {name}"
        )));
    }
    Ok(record)
}

impl Binder<'_> {
    /// `json[b]_populate_record(base, document)` as a value: NULL for a NULL document, else
    /// the record of the row type's fields read from it as json[b]_to_record reads them.
    pub(super) fn bind_populate_record_value(
        &mut self,
        name: &str,
        args: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let to_record = match (populate_to_record(name), name.ends_with("set")) {
            (Some(to_record), false) => to_record,
            _ => return Err(Error::internal(format!("{name} is no populate_record"))),
        };
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let [base, document] =
            <[ScalarExpr; 2]>::try_from(args).map_err(|_| self.undefined_function(name, &types))?;
        let record = populated_row_type(name, &base)?;
        let mut fields = Vec::with_capacity(record.fields.len());
        for field in &record.fields {
            let items = JsonItems::record_field(to_record)
                .ok_or_else(|| Error::internal("a json record function"))?
                .reading(field.ty);
            let document =
                self.coerce(document.clone(), items.argument(), CastContext::Implicit)?;
            let func = JsonFunction::Items(items);
            let key = ScalarExpr::literal(ScalarValue::Text(field.name.clone()), DataType::Text);
            let values = ScalarExpr::Function {
                func: ScalarFunction::Json(func),
                args: vec![document, key],
                ty: func.result(),
            };
            let element = func
                .result()
                .element()
                .ok_or_else(|| Error::internal("a json record column is an array"))?;
            let first = ScalarExpr::literal(ScalarValue::Int32(1), DataType::Int32);
            let value = array_call(ArrayFunction::Subscript, vec![values, first], element);
            fields.push((
                field.name.clone(),
                self.coerce(value, field.ty, CastContext::Explicit)?,
            ));
        }
        let row = super::record::typed_row_of(fields, record.type_oid)?;
        let ty = DataType::Record(record);
        Ok(ScalarExpr::Case {
            whens: vec![(
                ScalarExpr::IsNull {
                    input: Box::new(document),
                    negated: false,
                },
                ScalarExpr::null(ty),
            )],
            else_result: Some(Box::new(row)),
            ty,
        })
    }
}
