//! `VARIADIC array` as the last argument of a call of a built-in function, and the
//! functions over variadic "any" that exist only in the binder (num_nulls, num_nonnulls).
//!
//! A function whose variadic parameter is an array of one type (`jsonb_extract_path(jsonb,
//! VARIADIC text[])`) takes the array as it is; so does any other function, which then
//! resolves against the array's type as PostgreSQL's does (`cardinality(VARIADIC a)`). The
//! functions over variadic "any" (concat, format, json_build_object, ...) take the elements
//! of an `ARRAY[...]` as their arguments, each of the array's element type. Another array
//! expression is spread row by row: concat and concat_ws are array_to_string, format has a
//! kernel that reads the elements; the json builders answer 0A000.

use sqlparser::ast::Expr;

use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{ArrayFunction, ScalarFunction};
use crate::plan::{ArithmeticOp, ScalarExpr};
use crate::types::{DataType, ScalarValue};

/// The built-in functions whose variadic parameter is "any": their kernels take each value
/// as one argument.
const VARIADIC_ANY: &[&str] = &[
    "concat",
    "concat_ws",
    "format",
    "json_build_object",
    "json_build_array",
    "jsonb_build_object",
    "jsonb_build_array",
    "num_nulls",
    "num_nonnulls",
];

/// How many arguments a function over variadic "any" takes before its variadic ones.
fn fixed_arity(name: &str) -> usize {
    match name {
        "concat_ws" | "format" => 1,
        _ => 0,
    }
}

/// The array of an argument written `VARIADIC array`.
pub(super) fn variadic_array(arg: &Expr) -> Option<&Expr> {
    match arg {
        Expr::Prefixed { prefix, value } if prefix.value == "VARIADIC" => Some(value),
        _ => None,
    }
}

impl Binder<'_> {
    /// A call of the built-in function `name` with the arguments `fixed` and then
    /// `VARIADIC array`.
    pub(super) fn bind_variadic_call(
        &mut self,
        name: &str,
        fixed: &[&Expr],
        array: &Expr,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let mut args = fixed
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        let written = array;
        let array = self.bind_expr(written, scope)?;
        if !VARIADIC_ANY.contains(&name) {
            if let (Some(operator), [json]) = (path_operator(name), args.as_slice()) {
                // json[b]_extract_path[_text](j, VARIADIC path) is `j #> path` (`#>>`).
                let json_type = match name.starts_with("jsonb") {
                    true => DataType::Jsonb,
                    false => DataType::Json,
                };
                let json = self.coerce(json.clone(), json_type, CastContext::Implicit)?;
                let path = self.coerce(
                    array,
                    DataType::Array(&DataType::Text),
                    CastContext::Implicit,
                )?;
                return self.bind_operator_function(operator, vec![json, path]);
            }
            args.push(array);
            return self.bind_builtin_call(name, args);
        }
        if array.ty().element().is_none() && array.ty() != DataType::Unknown {
            let error = Error::new(
                SqlState::DatatypeMismatch,
                "VARIADIC argument must be an array",
            );
            return Err(self.at_expr(error, written));
        }
        if args.len() != fixed_arity(name) {
            let mut types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
            types.push(array.ty());
            return Err(self.undefined_function(name, &types));
        }
        match array {
            ScalarExpr::Function {
                func:
                    ScalarFunction::Array {
                        func: ArrayFunction::Construct,
                        ..
                    },
                args: elements,
                ..
            } => {
                args.extend(elements);
                self.bind_builtin_call(name, args)
            }
            array if matches!(name, "num_nulls" | "num_nonnulls") => {
                self.count_array_nulls(name == "num_nulls", array)
            }
            // concat is its elements' texts run together, concat_ws joined by its separator:
            // array_to_string's, NULLs skipped, NULL for a NULL array.
            array if name == "concat" => {
                let empty = ScalarExpr::literal(ScalarValue::Text(String::new()), DataType::Text);
                self.array_function("array_to_string", vec![array, empty])
            }
            array if name == "concat_ws" => {
                let separator = args.remove(0);
                let separator = self.coerce(separator, DataType::Text, CastContext::Implicit)?;
                self.array_function("array_to_string", vec![array, separator])
            }
            array if name == "format" => {
                let format = args.remove(0);
                let format = self.coerce(format, DataType::Text, CastContext::Implicit)?;
                Ok(ScalarExpr::Function {
                    func: ScalarFunction::FormatVariadic,
                    args: vec![format, array],
                    ty: DataType::Text,
                })
            }
            _ => Err(Error::unsupported(format!(
                "VARIADIC in a call of {name} with an array other than ARRAY[...]"
            ))),
        }
    }

    /// num_nulls(VARIADIC array) as the number of positions of NULL in it, num_nonnulls
    /// as its cardinality less those (NULL for a NULL array, as PostgreSQL's).
    fn count_array_nulls(&mut self, nulls: bool, array: ScalarExpr) -> Result<ScalarExpr> {
        let element = array.ty().element().ok_or_else(|| {
            Error::new(
                SqlState::DatatypeMismatch,
                "VARIADIC argument must be an array",
            )
        })?;
        let positions = self.array_function(
            "array_positions",
            vec![array.clone(), ScalarExpr::null(element)],
        )?;
        let null_count = self.array_function("cardinality", vec![positions])?;
        if nulls {
            return Ok(null_count);
        }
        let all = self.array_function("cardinality", vec![array])?;
        Ok(ScalarExpr::Arithmetic {
            op: ArithmeticOp::Sub,
            left: Box::new(all),
            right: Box::new(null_count),
            ty: DataType::Int32,
        })
    }

    fn array_function(&mut self, name: &str, args: Vec<ScalarExpr>) -> Result<ScalarExpr> {
        self.bind_array_function(name, args)
            .unwrap_or_else(|| Err(Error::internal(format!("{name} over an array"))))
    }
}

/// num_nulls (`nulls`) or num_nonnulls of the values `args`: a sum of one CASE per value.
pub(super) fn count_nulls(nulls: bool, args: Vec<ScalarExpr>) -> ScalarExpr {
    let int = |n: i32| ScalarExpr::literal(ScalarValue::Int32(n), DataType::Int32);
    args.into_iter()
        .map(|arg| ScalarExpr::Case {
            whens: vec![(
                ScalarExpr::IsNull {
                    input: Box::new(arg),
                    negated: !nulls,
                },
                int(1),
            )],
            else_result: Some(Box::new(int(0))),
            ty: DataType::Int32,
        })
        .reduce(add)
        .unwrap_or_else(|| int(0))
}

fn add(left: ScalarExpr, right: ScalarExpr) -> ScalarExpr {
    ScalarExpr::Arithmetic {
        op: ArithmeticOp::Add,
        left: Box::new(left),
        right: Box::new(right),
        ty: DataType::Int32,
    }
}

/// The operator a path function is, given its path as one array.
fn path_operator(name: &str) -> Option<&'static str> {
    match name {
        "json_extract_path" | "jsonb_extract_path" => Some("#>"),
        "json_extract_path_text" | "jsonb_extract_path_text" => Some("#>>"),
        _ => None,
    }
}
