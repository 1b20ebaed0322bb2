//! PostgreSQL's type resolution for operators, CASE/COALESCE/IN branches and assignments:
//! which common type operands meet at, and the casts that bring them there. Untyped
//! literals take the type their context asks for, as PostgreSQL's `unknown` does.

use super::present::{needs_presentation, present, present_all};
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, cast_scalar, CastContext};
use crate::function::{JsonFunction, ScalarFunction};
use crate::plan::ScalarExpr;
use crate::types::record::RecordType;
use crate::types::{text_io, DataType, ScalarValue, TypeCategory};

/// Rank within the numeric category: operands meet at the higher rank, except that real
/// with anything but real becomes double precision (PostgreSQL's operator choice).
fn numeric_rank(ty: DataType) -> u8 {
    match ty {
        DataType::Int16 => 1,
        DataType::Int32 => 2,
        DataType::Int64 => 3,
        // Integers meet the OID types at the OID type (int4 = oid is oideq).
        DataType::Oid(_) => 4,
        DataType::Numeric(_) => 5,
        DataType::Float32 => 6,
        DataType::Float64 => 7,
        _ => 0,
    }
}

/// time and timetz, which convert to and from none of the timestamp types.
fn is_time_of_day(ty: DataType) -> bool {
    matches!(ty, DataType::Time(_) | DataType::TimeTz(_))
}

/// The type two operands of a binary operator meet at, if any.
pub fn common_type(a: DataType, b: DataType) -> Option<DataType> {
    use DataType as T;
    if a == b {
        return Some(match a {
            T::Numeric(_) => T::Numeric(None),
            T::Unknown => T::Text,
            T::Char(_) => T::Char(None),
            T::Bit(_) => T::Bit(None),
            T::VarBit(_) => T::VarBit(None),
            other => other,
        });
    }
    // A datetime type with different precisions meets at the type itself.
    if matches!(
        a.category(),
        TypeCategory::DateTime | TypeCategory::Timespan
    ) && a.unmodified() == b.unmodified()
    {
        return Some(a.unmodified());
    }
    match (a, b) {
        (T::Char(_), T::Unknown) | (T::Unknown, T::Char(_)) => Some(T::Char(None)),
        // An untyped literal or parameter takes the other side's type but not its
        // modifier, as PostgreSQL resolves it: `numeric_col = $1` compares with 0.001, not
        // with 0.001 rounded to the column's scale.
        (T::Unknown, other) | (other, T::Unknown) => Some(match other {
            T::Numeric(_) => T::Numeric(None),
            T::Varchar(_) => T::Varchar(None),
            T::FloatVector(_) => T::FloatVector(None),
            T::Bit(_) => T::Bit(None),
            T::VarBit(_) => T::VarBit(None),
            other => other,
        }),
        // pgvector compares vectors of any dimensions (`vector(3) = '[1,2]'` is false).
        (T::FloatVector(_), T::FloatVector(_)) => Some(T::FloatVector(None)),
        (T::Bit(_), T::Bit(_)) => Some(T::Bit(None)),
        // varbit is the preferred type of the bit string category.
        (T::Bit(_) | T::VarBit(_), T::Bit(_) | T::VarBit(_)) => Some(T::VarBit(None)),
        _ if a.category() == TypeCategory::Numeric && b.category() == TypeCategory::Numeric => {
            if a == T::Float32 || b == T::Float32 {
                return Some(T::Float64);
            }
            let wider = if numeric_rank(a) >= numeric_rank(b) {
                a
            } else {
                b
            };
            Some(match wider {
                T::Numeric(_) => T::Numeric(None),
                other => other,
            })
        }
        _ if a.is_string() && b.is_string() => Some(T::Text),
        (T::Date, T::Timestamp(_)) | (T::Timestamp(_), T::Date) => Some(T::Timestamp(None)),
        (T::Time(_), T::TimeTz(_)) | (T::TimeTz(_), T::Time(_)) => Some(T::TimeTz(None)),
        // inet is the preferred type of the network category.
        (T::Inet, T::Cidr) | (T::Cidr, T::Inet) => Some(T::Inet),
        // Records of the same field types compare whatever their field names.
        (T::Record(x), T::Record(y)) if same_fields(x, y) => Some(a),
        // timestamptz is the preferred type of the datetime category.
        (T::Date | T::Timestamp(_), T::TimestampTz(_))
        | (T::TimestampTz(_), T::Date | T::Timestamp(_)) => Some(T::TimestampTz(None)),
        _ => None,
    }
}

/// Whether two record types have fields of the same types, in order.
pub(super) fn same_fields(a: &RecordType, b: &RecordType) -> bool {
    a.fields.len() == b.fields.len() && a.fields.iter().zip(&b.fields).all(|(x, y)| x.ty == y.ty)
}

/// The result type of CASE / COALESCE / VALUES columns / UNION branches: PostgreSQL's
/// select_common_type. Keeps a shared type modifier (coalesce of two varchar(3) is
/// varchar(3)).
pub fn union_type(types: &[DataType], what: &str) -> Result<DataType> {
    let mut result = DataType::Unknown;
    for &ty in types {
        if ty == DataType::Unknown || ty == result {
            continue;
        }
        if result == DataType::Unknown {
            result = ty;
            continue;
        }
        if ty.is_string() && result.is_string() {
            result = match (result, ty) {
                (DataType::Varchar(_), DataType::Varchar(_)) => DataType::Varchar(None),
                (DataType::Char(_), DataType::Char(_)) => DataType::Char(None),
                _ => DataType::Text,
            };
            continue;
        }
        match (result.category(), ty.category()) {
            (TypeCategory::BitString, TypeCategory::BitString) => {
                result = match (result, ty) {
                    (DataType::Bit(_), DataType::Bit(_)) => DataType::Bit(None),
                    _ => DataType::VarBit(None),
                };
            }
            (TypeCategory::Numeric, TypeCategory::Numeric) => {
                // Here real with integers stays real: select_common_type takes the preferred
                // type only when it is one of the inputs.
                result = if numeric_rank(ty) > numeric_rank(result) {
                    ty
                } else {
                    result
                };
                if let DataType::Numeric(_) = result {
                    result = DataType::Numeric(None);
                }
            }
            (TypeCategory::Network, TypeCategory::Network) => result = DataType::Inet,
            // time converts to none of the others (and they not to it).
            (TypeCategory::DateTime, TypeCategory::DateTime)
                if is_time_of_day(result) == is_time_of_day(ty) =>
            {
                result =
                    if matches!(result, DataType::TimeTz(_)) || matches!(ty, DataType::TimeTz(_)) {
                        DataType::TimeTz(None)
                    } else if matches!(result, DataType::Time(_)) {
                        DataType::Time(None)
                    } else if matches!(result, DataType::TimestampTz(_))
                        || matches!(ty, DataType::TimestampTz(_))
                    {
                        DataType::TimestampTz(None)
                    } else {
                        DataType::Timestamp(None)
                    }
            }
            _ => {
                return Err(Error::new(
                    SqlState::DatatypeMismatch,
                    format!("{what} types {} and {} cannot be matched", result, ty),
                ))
            }
        }
    }
    // select_common_typmod: a modifier survives only if every input has it, and an untyped
    // input has none (`numeric(10,2)` with '0.001' is plain numeric).
    let untyped = types.contains(&DataType::Unknown);
    Ok(match result {
        DataType::Unknown => DataType::Text,
        DataType::Numeric(Some(_)) if untyped => DataType::Numeric(None),
        DataType::Varchar(Some(_)) if untyped => DataType::Varchar(None),
        DataType::Char(Some(_)) if untyped => DataType::Char(None),
        DataType::Bit(Some(_)) if untyped => DataType::Bit(None),
        DataType::VarBit(Some(_)) if untyped => DataType::VarBit(None),
        other => other,
    })
}

impl Binder<'_> {
    /// Brings `expr` to type `to` with a cast allowed in `context`; untyped literals and
    /// parameters simply take the type.
    pub(super) fn coerce(
        &mut self,
        expr: ScalarExpr,
        to: DataType,
        context: CastContext,
    ) -> Result<ScalarExpr> {
        let from = expr.ty();
        if from == to {
            return Ok(expr);
        }
        if let (DataType::Record(_), DataType::Record(record)) = (from, to) {
            return self.coerce_record(expr, record, context);
        }
        // record_out prints each field by its type's output function.
        if matches!(from, DataType::Record(_)) && to.is_string() && needs_presentation(from) {
            return self.coerce(present(expr)?, to, context);
        }
        // PostgreSQL's int2[] of an int2vector keeps its lower bound of 0, which an array
        // here cannot have; the binder reads the vector as its array only where that does
        // not show (`binder/array.rs`).
        if from.vector_array() == Some(to) && context != CastContext::Implicit {
            return Err(Error::unsupported(format!(
                "casting {from} to {to}, whose subscripts would start at 0"
            )));
        }
        let expr = match self.coerce_oid_alias(expr, to, context) {
            Ok(converted) => return converted,
            Err(expr) => expr,
        };
        let expr = match self.coerce_enum(expr, to, context) {
            Ok(converted) => return converted,
            Err(expr) => expr,
        };
        match expr {
            ScalarExpr::Literal {
                value: ScalarValue::Null,
                ..
            } => return Ok(ScalarExpr::null(to)),
            ScalarExpr::Literal {
                value: ScalarValue::Text(text),
                ty: DataType::Unknown,
            } => {
                let value = match to {
                    // An untyped literal stored into a column is an assignment: too-long
                    // strings are errors there, not truncated.
                    DataType::Varchar(Some(_))
                    | DataType::Char(Some(_))
                    | DataType::Bit(Some(_))
                    | DataType::VarBit(Some(_))
                        if context != CastContext::Explicit =>
                    {
                        cast_scalar(&ScalarValue::Text(text), DataType::Text, to, context)?
                    }
                    // So are an array's elements too long for its element type.
                    DataType::Array(elem)
                        if *elem != elem.unmodified() && context != CastContext::Explicit =>
                    {
                        cast_scalar(&ScalarValue::Text(text), DataType::Text, to, context)?
                    }
                    _ => match self.relative_datetime_literal(&text, to) {
                        Some(bound) => return bound,
                        None => text_io::parse_text(&text, to)?,
                    },
                };
                return Ok(ScalarExpr::Literal { value, ty: to });
            }
            // PostgreSQL's variable_coerce_param_hook: the parameter takes the type without
            // its modifier, which a cast then applies (`$1::interval hour` reads '3' as
            // seconds, then truncates to hours).
            ScalarExpr::Param {
                index,
                ty: DataType::Unknown,
            } => {
                let ty = to.unmodified();
                self.params[index] = ty;
                let param = ScalarExpr::Param { index, ty };
                if ty == to {
                    return Ok(param);
                }
                return self.coerce(param, to, context);
            }
            _ => {}
        }
        if !can_cast(from, to, context) {
            let state = match context {
                CastContext::Explicit => SqlState::CannotCoerce,
                CastContext::Implicit | CastContext::Assignment => SqlState::DatatypeMismatch,
            };
            return Err(Error::new(
                state,
                format!("cannot cast type {from} to {to}"),
            ));
        }
        // A typed constant is converted now, as PostgreSQL folds it while planning. One
        // that fails stays a cast, for planning to raise its error only where PostgreSQL's
        // folding reaches it (not behind a constant FALSE AND, say).
        if let ScalarExpr::Literal { value, ty } = &expr {
            if let Ok(value) = cast_scalar(value, *ty, to, context) {
                return Ok(ScalarExpr::Literal { value, ty: to });
            }
        }
        Ok(ScalarExpr::Cast {
            input: Box::new(expr),
            to,
            context,
        })
    }

    /// Brings two operands of an operator to one type; `op` names the operator for the
    /// error PostgreSQL raises when there is none (`operator does not exist: text = integer`).
    pub(super) fn coerce_pair(
        &mut self,
        left: ScalarExpr,
        right: ScalarExpr,
        op: &str,
    ) -> Result<(ScalarExpr, ScalarExpr, DataType)> {
        let (lt, rt) = (left.ty(), right.ty());
        let Some(common) = common_type(lt, rt) else {
            return Err(self.operator_error(op, lt, rt));
        };
        let left = self.coerce(left, common, CastContext::Implicit)?;
        let right = self.coerce(right, common, CastContext::Implicit)?;
        Ok((left, right, common))
    }
}

impl Binder<'_> {
    /// Each argument implicitly cast to its parameter type of a resolved function.
    pub(super) fn coerce_args(
        &mut self,
        args: Vec<ScalarExpr>,
        types: Vec<DataType>,
    ) -> Result<Vec<ScalarExpr>> {
        args.into_iter()
            .zip(types)
            .map(|(e, t)| self.coerce(e, t, CastContext::Implicit))
            .collect()
    }

    /// The call of a resolved scalar function (function, parameter types, result type).
    pub(super) fn scalar_call(
        &mut self,
        (func, types, ty): (ScalarFunction, Vec<DataType>, DataType),
        args: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        // pg_typeof names an enum type (or its array) or a row type from the catalog.
        if let (ScalarFunction::PgTypeof(named), [_]) = (func, &args[..]) {
            if matches!(named, DataType::Record(_)) || named.enum_oid().is_some() {
                let name = ScalarValue::Text(self.type_display(named));
                return Ok(ScalarExpr::literal(name, ty));
            }
        }
        if func.renders_arguments() && args.iter().any(|a| needs_presentation(a.ty())) {
            let args = present_all(args)?;
            let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
            let resolved =
                ScalarFunction::resolve_checked(func.name(), &types)?.ok_or_else(|| {
                    Error::internal(format!("{} of presented arguments", func.name()))
                })?;
            return self.scalar_call(resolved, args);
        }
        let mut args = self.coerce_args(args, types)?;
        if let ScalarFunction::Json(json) = func {
            args = json_builder_args(json, args)?;
        }
        Ok(ScalarExpr::Function { func, args, ty })
    }
}

/// The arguments of a json builder: each value through `to_json` (so the builder sees json
/// and keeps it as it is); keys must be scalars.
fn json_builder_args(func: JsonFunction, args: Vec<ScalarExpr>) -> Result<Vec<ScalarExpr>> {
    args.into_iter()
        .enumerate()
        .map(|(idx, arg)| {
            if func.is_value_position(idx) {
                return Ok(to_json(arg));
            }
            if matches!(func, JsonFunction::BuildObject { .. }) {
                require_scalar_key(arg.ty())?;
            }
            Ok(arg)
        })
        .collect()
}

/// `to_json(arg)`: a value as json text, which json builders and aggregates embed as is.
pub(super) fn to_json(arg: ScalarExpr) -> ScalarExpr {
    let ty = arg.ty();
    ScalarExpr::Function {
        func: ScalarFunction::Json(JsonFunction::To { ty, jsonb: false }),
        args: vec![arg],
        ty: DataType::Json,
    }
}

/// A JSON object's key must be a scalar.
pub(super) fn require_scalar_key(ty: DataType) -> Result<()> {
    match ty {
        DataType::Array(_) | DataType::Json | DataType::Jsonb => Err(Error::new(
            SqlState::InvalidParameterValue,
            "key value must be scalar, not array, composite, or json",
        )),
        _ => Ok(()),
    }
}

/// Whether values of `ty` have no equality or ordering operator: json and jsonpath (and
/// arrays of them), where jsonb has both.
pub fn lacks_comparison(ty: DataType) -> bool {
    let lacks = |t: DataType| matches!(t, DataType::Json | DataType::JsonPath);
    lacks(ty) || ty.element().is_some_and(lacks)
}

/// json and jsonpath have no equality or ordering operator: PostgreSQL refuses to group,
/// sort or compare them. `ordering` picks the message of a sort.
pub fn require_json_free(ty: DataType, ordering: bool) -> Result<()> {
    if !lacks_comparison(ty) {
        return Ok(());
    }
    let kind = if ordering {
        "an ordering"
    } else {
        "an equality"
    };
    let error = Error::new(
        SqlState::UndefinedFunction,
        format!("could not identify {kind} operator for type {ty}"),
    );
    Err(match ordering {
        true => error.with_hint("Use an explicit ordering operator or modify the query."),
        false => error,
    })
}

impl Binder<'_> {
    /// PostgreSQL's 42883 for an operator no candidate takes, naming enum and row types
    /// by their names as the catalog does (not as anyenum), without modifiers
    /// (format_type_be).
    pub(super) fn operator_error(&self, op: &str, left: DataType, right: DataType) -> Error {
        Error::new(
            SqlState::UndefinedFunction,
            format!(
                "operator does not exist: {} {op} {}",
                self.type_display(left.unmodified()),
                self.type_display(right.unmodified())
            ),
        )
        .with_hint(
            "No operator matches the given name and argument types. You might need to add explicit type casts.",
        )
    }
}
