//! Array syntax and functions in the binder: `ARRAY[...]` with PostgreSQL's element type
//! resolution, subscripts `a[i]` and slices `a[i:j]`, `x op ANY/ALL (array)`, the array
//! operators `||`, `@>`, `<@`, `&&`, and the polymorphic array functions (anyarray,
//! anyelement, anycompatible), whose element type comes from their arguments.
//!
//! int2vector and oidvector are read as the int2[] and oid[] they hold, their subscripts
//! (from 0) shifted to those of the array (from 1); a function whose result would show the
//! lower bound some other way is refused (see [`Binder::shift_vector_bounds`]).

use sqlparser::ast::{self, AccessExpr, Expr, Subscript};

use super::coerce::{common_type, union_type};
use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{ArrayFunction, ScalarFunction};
use crate::plan::{ArithmeticOp, CompareOp, ScalarExpr};
use crate::types::array_shape::{too_many_dims, MAX_DIMS};
use crate::types::{DataType, ScalarValue};

/// The names [`resolve_array_function`] knows.
pub(super) const ARRAY_FUNCTIONS: &[&str] = &[
    "array_length",
    "array_upper",
    "array_lower",
    "cardinality",
    "array_ndims",
    "array_dims",
    "array_to_string",
    "string_to_array",
    "array_position",
    "array_positions",
    "array_append",
    "array_prepend",
    "array_cat",
    "array_remove",
    "array_replace",
    "trim_array",
];

/// `expr` when it is a text column of a system catalog: a `name`, which PostgreSQL lets
/// one subscript.
fn catalog_name_column(expr: &ScalarExpr, scope: &Scope) -> Option<ScalarExpr> {
    let ScalarExpr::Column {
        index,
        ty: DataType::Text,
    } = expr
    else {
        return None;
    };
    let column = scope.columns.get(*index)?;
    crate::catalog::system::RELATIONS
        .iter()
        .any(|r| r.oid == column.table_oid && column.attnum > 0)
        .then(|| expr.clone())
}

/// A resolved array function: the function, its parameter types and its result type.
type Resolved = (ArrayFunction, Vec<DataType>, DataType);

impl Binder<'_> {
    /// `ARRAY[...]` and subscripts; `None` for other expressions.
    pub(super) fn bind_array_syntax(
        &mut self,
        expr: &Expr,
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        Some(match expr {
            Expr::Array(array) => self.bind_array_constructor(array, None, scope),
            Expr::CompoundFieldAccess { root, access_chain } => {
                match self.bind_field_selection(root, access_chain, scope) {
                    Some(bound) => bound,
                    None => self.bind_subscript(root, access_chain, scope),
                }
            }
            _ => return None,
        })
    }

    /// `ARRAY[...]`; under a cast to an array type (`target`) the elements are cast to its
    /// element type instead, as PostgreSQL does, and `ARRAY[]` is allowed.
    pub(super) fn bind_array_constructor(
        &mut self,
        array: &ast::Array,
        target: Option<DataType>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let ast::Array { elem, named } = array;
        // `[1, 2]` without ARRAY is other dialects' syntax.
        if !named {
            return Err(Error::syntax("syntax error at or near \"[\""));
        }
        self.bind_array_elements(elem, target, scope)
    }

    /// The brackets of `ARRAY[...]` and of the sub-arrays nested in them (`ARRAY[[1],[2]]`).
    /// When the elements are arrays, the result has one dimension more than they have.
    fn bind_array_elements(
        &mut self,
        elem: &[Expr],
        target: Option<DataType>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let is_sub_array = |e: &Expr| matches!(e, Expr::Array(ast::Array { named: false, .. }));
        let sub_arrays = elem.iter().filter(|e| is_sub_array(e)).count();
        if sub_arrays != 0 && sub_arrays != elem.len() {
            return Err(Error::syntax("syntax error at or near \"[\""));
        }
        let bound = elem
            .iter()
            .map(|e| match e {
                Expr::Array(ast::Array { elem, named: false }) => {
                    self.bind_array_elements(elem, target, scope)
                }
                _ => self.bind_expr(e, scope),
            })
            .collect::<Result<Vec<_>>>()?;
        let nested = sub_arrays > 0 || bound.iter().any(|e| matches!(e.ty(), DataType::Array(_)));
        let (ty, context) = match target {
            Some(ty @ DataType::Array(_)) => (ty, CastContext::Explicit),
            _ if bound.is_empty() => {
                return Err(Error::new(
                    SqlState::IndeterminateDatatype,
                    "cannot determine type of empty array",
                )
                .with_hint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."))
            }
            _ => {
                let types: Vec<DataType> = bound.iter().map(ScalarExpr::ty).collect();
                (nested_array_type(&types, nested)?, CastContext::Implicit)
            }
        };
        let elem_ty = ty
            .element()
            .ok_or_else(|| Error::internal("array without element"))?;
        if bound.is_empty() {
            return Ok(ScalarExpr::literal(ScalarValue::Array(Vec::new()), ty));
        }
        let (func, part_ty) = match nested {
            true => (ArrayFunction::Nest, ty),
            false => (ArrayFunction::Construct, elem_ty),
        };
        let args = bound
            .into_iter()
            .map(|e| self.coerce(e, part_ty, context))
            .collect::<Result<Vec<_>>>()?;
        Ok(array_call(func, args, ty))
    }

    /// `a[i]`, `a[i][j]`, and slices `a[i:j]`, `a[i:j][k:l]` (any bound omitted).
    fn bind_subscript(
        &mut self,
        root: &Expr,
        access_chain: &[AccessExpr],
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        // `t.col[i]` arrives as `t` with the access chain `.col[i]`.
        if let (Expr::Identifier(first), [dots @ .., AccessExpr::Subscript(_)]) =
            (root, access_chain)
        {
            let mut names = vec![first.clone()];
            for access in dots {
                match access {
                    AccessExpr::Dot(Expr::Identifier(name)) => names.push(name.clone()),
                    _ => break,
                }
            }
            if names.len() == dots.len() + 1 && !dots.is_empty() {
                let root = Expr::CompoundIdentifier(names);
                return self.bind_subscript(&root, &access_chain[dots.len()..], scope);
            }
        }
        let subscripts = access_chain
            .iter()
            .map(|access| match access {
                AccessExpr::Subscript(subscript) => Some(subscript),
                AccessExpr::Dot(_) => None,
            })
            .collect::<Option<Vec<&Subscript>>>()
            .ok_or_else(|| {
                Error::unsupported(format!(
                    "the expression {root}{}",
                    access_chain
                        .iter()
                        .map(ToString::to_string)
                        .collect::<String>()
                ))
            })?;
        if subscripts.len() > MAX_DIMS {
            return Err(too_many_dims(subscripts.len()));
        }
        let array = self.bind_expr(root, scope)?;
        if let (Some(column), [Subscript::Index { index }]) =
            (catalog_name_column(&array, scope), subscripts.as_slice())
        {
            return self.bind_name_subscript(column, index, scope);
        }
        if array.ty() == DataType::Jsonb {
            return self.bind_jsonb_subscript(array, &subscripts, scope);
        }
        let shift = 1 - array.ty().lower_bound();
        if shift != 0 && subscripts.len() > 1 {
            return Err(Error::unsupported(format!(
                "more than one subscript of {}",
                array.ty()
            )));
        }
        let array = self.vector_as_array(array)?;
        let ty = array.ty();
        let Some(elem) = ty.element() else {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!("cannot subscript type {ty} because it does not support subscripting"),
            ));
        };
        let mut args = vec![array];
        let mut index = |binder: &mut Self, e: &Expr| -> Result<()> {
            let bound = binder.bind_array_index(e, scope)?;
            args.push(plus(bound, shift));
            Ok(())
        };
        let sliced = subscripts
            .iter()
            .any(|s| matches!(s, Subscript::Slice { .. }));
        if !sliced {
            for subscript in &subscripts {
                if let Subscript::Index { index: i } = subscript {
                    index(self, i)?;
                }
            }
            return Ok(array_call(ArrayFunction::Subscript, args, elem));
        }
        // Once one subscript is a slice, all are: a lone `[n]` means `[1:n]`.
        let (mut lower, mut upper) = (0u8, 0u8);
        let one = Expr::value(ast::Value::Number("1".into(), false));
        for (dim, subscript) in subscripts.iter().enumerate() {
            let (from, to) = match subscript {
                Subscript::Index { index } => (Some(&one), Some(index)),
                Subscript::Slice {
                    lower_bound,
                    upper_bound,
                    stride: None,
                } => (lower_bound.as_ref(), upper_bound.as_ref()),
                Subscript::Slice {
                    stride: Some(_), ..
                } => {
                    return Err(Error::syntax(format!(
                        "syntax error in subscript {subscript}"
                    )))
                }
            };
            if let Some(from) = from {
                index(self, from)?;
                lower |= 1 << dim;
            }
            if let Some(to) = to {
                index(self, to)?;
                upper |= 1 << dim;
            }
        }
        let func = ArrayFunction::Slice {
            dims: subscripts.len() as u8,
            lower,
            upper,
        };
        Ok(array_call(func, args, ty))
    }

    /// One array subscript, as int4.
    pub(super) fn bind_array_index(&mut self, e: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        let bound = self.bind_expr(e, scope)?;
        if !bound.ty().is_integer() && bound.ty() != DataType::Unknown {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                "array subscript must have type integer",
            ));
        }
        self.coerce(bound, DataType::Int32, CastContext::Assignment)
    }

    /// `name[i]` on a catalog's name column (pg_dump reads `typname[0]`): PostgreSQL's
    /// name is a fixed array of bytes, subscripted from 0; ours is text, so the character
    /// at that offset, empty past the end.
    fn bind_name_subscript(
        &mut self,
        name: ScalarExpr,
        index: &Expr,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let index = self.bind_expr(index, scope)?;
        let index = self.coerce(index, DataType::Int32, CastContext::Assignment)?;
        let one = ScalarExpr::literal(ScalarValue::Int32(1), DataType::Int32);
        let start = ScalarExpr::Arithmetic {
            op: crate::plan::ArithmeticOp::Add,
            left: Box::new(index),
            right: Box::new(one.clone()),
            ty: DataType::Int32,
        };
        Ok(ScalarExpr::Function {
            func: ScalarFunction::Substr,
            args: vec![name, start, one],
            ty: DataType::Text,
        })
    }

    /// `left op ANY (array)` / `left op ALL (array)`.
    pub(super) fn bind_array_quantified(
        &mut self,
        left: &Expr,
        op: CompareOp,
        right: &Expr,
        all: bool,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let l = self.bind_expr(left, scope)?;
        let r = self.bind_expr(right, scope)?;
        let r = self.vector_as_array(r)?;
        let (lt, rt) = (l.ty(), r.ty());
        let elem = match rt {
            DataType::Unknown => common_type(lt, DataType::Unknown),
            DataType::Array(elem) => common_type(lt, *elem),
            _ => {
                return Err(Error::new(
                    SqlState::WrongObjectType,
                    "op ANY/ALL (array) requires array on right side",
                ))
            }
        };
        let symbol = compare_symbol(op);
        let elem =
            elem.ok_or_else(|| self.operator_error(symbol, lt, rt.element().unwrap_or(rt)))?;
        let array = array_type(elem)?;
        let l = self.coerce(l, elem, CastContext::Implicit)?;
        let r = self.coerce(r, array, CastContext::Implicit)?;
        Ok(array_call(
            ArrayFunction::Quantified { op, all },
            vec![l, r],
            DataType::Bool,
        ))
    }

    /// `||` with an array on either side: array_cat, array_append or array_prepend. An
    /// untyped literal next to an array is an array, as in PostgreSQL.
    pub(super) fn bind_array_concat(&mut self, l: ScalarExpr, r: ScalarExpr) -> Result<ScalarExpr> {
        let (lt, rt) = (l.ty(), r.ty());
        let name = match (lt, rt) {
            (DataType::Array(_), DataType::Array(_) | DataType::Unknown)
            | (DataType::Unknown, DataType::Array(_)) => "array_cat",
            (DataType::Array(_), _) => "array_append",
            _ => "array_prepend",
        };
        let (func, params, ty) = resolve_array_function(name, &[lt, rt])?
            .ok_or_else(|| self.operator_error("||", lt, rt))?;
        self.array_call_coerced(func, vec![l, r], params, ty)
    }

    /// `@>`, `<@` and `&&`: both sides arrays of one element type.
    pub(super) fn bind_array_operator(
        &mut self,
        func: ArrayFunction,
        l: ScalarExpr,
        r: ScalarExpr,
    ) -> Result<ScalarExpr> {
        let (lt, rt) = (l.ty(), r.ty());
        let elem = polymorphic_element(&[lt, rt], &[], false)?
            .ok_or_else(|| self.operator_error(func.name(), lt, rt))?;
        let array = array_type(elem)?;
        self.array_call_coerced(func, vec![l, r], vec![array, array], DataType::Bool)
    }

    /// The array function `name` over `args`, if it is one.
    pub(super) fn bind_array_function(
        &mut self,
        name: &str,
        args: Vec<ScalarExpr>,
    ) -> Option<Result<ScalarExpr>> {
        if let Some(bound) = self.bind_vector_dimension(name, &args) {
            return Some(bound);
        }
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        match resolve_array_function(name, &types) {
            Ok(None) => None,
            Ok(Some((func, params, ty))) => Some(
                self.shift_vector_bounds(func, args, &types)
                    .and_then(|args| self.array_call_coerced(func, args, params, ty))
                    .map(|call| shift_result(func, &types, call)),
            ),
            Err(e) => Some(Err(e)),
        }
    }

    /// array_lower, array_upper, array_length and array_ndims of an int2vector or oidvector,
    /// which has one dimension subscripted from 0 even when empty (`''::int2vector` is
    /// `[0:-1]`): figures of its cardinality. `None` for other calls.
    fn bind_vector_dimension(
        &mut self,
        name: &str,
        args: &[ScalarExpr],
    ) -> Option<Result<ScalarExpr>> {
        let (vector, dimension) = match args {
            [vector] if name == "array_ndims" => (vector, None),
            [vector, dimension]
                if matches!(name, "array_lower" | "array_upper" | "array_length") =>
            {
                (vector, Some(dimension))
            }
            _ => return None,
        };
        let array = vector.ty().vector_array()?;
        // Only dimension 1 exists; a dimension known when the statement runs (a parameter)
        // is checked then.
        let checked_dimension = match dimension {
            None
            | Some(ScalarExpr::Literal {
                value: ScalarValue::Int32(1),
                ..
            }) => None,
            Some(ScalarExpr::Literal {
                value: ScalarValue::Int32(_) | ScalarValue::Null,
                ..
            }) => return Some(Ok(ScalarExpr::null(DataType::Int32))),
            Some(dimension) => {
                match self.coerce(dimension.clone(), DataType::Int32, CastContext::Implicit) {
                    Ok(dimension) => Some(dimension),
                    Err(e) => return Some(Err(e)),
                }
            }
        };
        let array = match self.coerce(vector.clone(), array, CastContext::Implicit) {
            Ok(array) => array,
            Err(e) => return Some(Err(e)),
        };
        let cardinality = array_call(ArrayFunction::Cardinality, vec![array], DataType::Int32);
        let zero = arithmetic(ArithmeticOp::Mul, cardinality.clone(), 0);
        let figure = match name {
            "array_length" => cardinality,
            "array_upper" => plus(cardinality, -1),
            "array_lower" => zero,
            _ => plus(zero, 1),
        };
        Some(Ok(match checked_dimension {
            None => figure,
            Some(dimension) => ScalarExpr::Case {
                whens: vec![(
                    ScalarExpr::Compare {
                        op: CompareOp::Eq,
                        left: Box::new(dimension),
                        right: Box::new(ScalarExpr::literal(
                            ScalarValue::Int32(1),
                            DataType::Int32,
                        )),
                    },
                    figure,
                )],
                else_result: None,
                ty: DataType::Int32,
            },
        }))
    }

    /// An int2vector or oidvector as the array it holds (its subscripts then count from
    /// 1); any other expression as it is.
    pub(super) fn vector_as_array(&mut self, expr: ScalarExpr) -> Result<ScalarExpr> {
        match expr.ty().vector_array() {
            Some(array) => self.coerce(expr, array, CastContext::Implicit),
            None => Ok(expr),
        }
    }

    /// The arguments of an array function over an int2vector or oidvector (whose
    /// subscripts count from 0): a start subscript shifted to the array's; 0A000 for the
    /// functions whose result would be an array keeping the lower bound of 0, which arrays
    /// here cannot have.
    fn shift_vector_bounds(
        &mut self,
        func: ArrayFunction,
        mut args: Vec<ScalarExpr>,
        types: &[DataType],
    ) -> Result<Vec<ScalarExpr>> {
        let Some(vector) = types.iter().find(|t| t.lower_bound() != 1) else {
            return Ok(args);
        };
        use ArrayFunction as A;
        match func {
            A::Position if args.len() == 3 => {
                let start = args
                    .pop()
                    .ok_or_else(|| Error::internal("a start argument"))?;
                let start = self.coerce(start, DataType::Int32, CastContext::Implicit)?;
                args.push(plus(start, 1));
            }
            A::Dims | A::Positions | A::Append | A::Prepend | A::Cat | A::Remove => {
                return Err(Error::unsupported(format!(
                    "{} of {vector}, whose subscripts start at 0",
                    func.name()
                )))
            }
            _ => {}
        }
        Ok(args)
    }

    fn array_call_coerced(
        &mut self,
        func: ArrayFunction,
        args: Vec<ScalarExpr>,
        params: Vec<DataType>,
        ty: DataType,
    ) -> Result<ScalarExpr> {
        let args = args
            .into_iter()
            .zip(params)
            .map(|(e, t)| self.coerce(e, t, CastContext::Implicit))
            .collect::<Result<Vec<_>>>()?;
        Ok(array_call(func, args, ty))
    }
}

/// The type of `ARRAY[...]` over elements of `types`; when they are arrays (`nested`),
/// their common array type, from the common type of their elements (`ARRAY[ARRAY[1],
/// ARRAY[1.5]]` is numeric[]).
fn nested_array_type(types: &[DataType], nested: bool) -> Result<DataType> {
    let elements: Option<Vec<DataType>> = types
        .iter()
        .map(|ty| match ty {
            DataType::Array(elem) => Some(**elem),
            DataType::Unknown => Some(DataType::Unknown),
            _ => None,
        })
        .collect();
    match elements {
        Some(elements) if nested => array_type(union_type(&elements, "ARRAY")?),
        // Arrays among other types: the union's error names them.
        _ if nested => union_type(types, "ARRAY"),
        _ => array_type(union_type(types, "ARRAY")?),
    }
}

/// `ARRAY[elements]` of array type `ty`, the elements already of its element type.
pub(super) fn construct_array(elements: Vec<ScalarExpr>, ty: DataType) -> ScalarExpr {
    array_call(ArrayFunction::Construct, elements, ty)
}

/// `expr op constant` over int4.
fn arithmetic(op: ArithmeticOp, expr: ScalarExpr, constant: i32) -> ScalarExpr {
    ScalarExpr::Arithmetic {
        op,
        left: Box::new(expr),
        right: Box::new(ScalarExpr::literal(
            ScalarValue::Int32(constant),
            DataType::Int32,
        )),
        ty: DataType::Int32,
    }
}

/// `expr + delta` (a subscript moved between lower bounds); `expr` itself for 0.
fn plus(expr: ScalarExpr, delta: i32) -> ScalarExpr {
    match delta {
        0 => expr,
        _ => arithmetic(ArithmeticOp::Add, expr, delta),
    }
}

/// The result of array_position over an int2vector or oidvector, read as the array it
/// holds: moved back to the vector's subscripts, which start at 0.
fn shift_result(func: ArrayFunction, types: &[DataType], call: ScalarExpr) -> ScalarExpr {
    match (func, types.first()) {
        (ArrayFunction::Position, Some(vector)) => plus(call, vector.lower_bound() - 1),
        _ => call,
    }
}

pub(super) fn array_call(func: ArrayFunction, args: Vec<ScalarExpr>, ty: DataType) -> ScalarExpr {
    ScalarExpr::Function {
        func: ScalarFunction::Array { func, result: ty },
        args,
        ty,
    }
}

fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "=",
        CompareOp::NotEq => "<>",
        CompareOp::Lt => "<",
        CompareOp::LtEq => "<=",
        CompareOp::Gt => ">",
        CompareOp::GtEq => ">=",
    }
}

/// The array type of elements of type `elem`, modifiers dropped; 0A000 for element types
/// without one here.
pub(super) fn array_type(elem: DataType) -> Result<DataType> {
    DataType::array_of_values(elem).ok_or_else(|| match elem {
        DataType::Array(_) => Error::unsupported("multidimensional arrays"),
        other => Error::unsupported(format!("arrays of type {other}")),
    })
}

/// The element type of polymorphic arguments: `arrays` must be arrays and `elems` their
/// elements; untyped literals take the type the others give. PostgreSQL's anycompatible
/// rules when `compatible` (array_append and friends), else anyelement's exact match.
/// `Ok(None)` if the arguments do not fit.
fn polymorphic_element(
    arrays: &[DataType],
    elems: &[DataType],
    compatible: bool,
) -> Result<Option<DataType>> {
    let mut candidates = Vec::new();
    for &ty in arrays {
        match ty.vector_array().unwrap_or(ty) {
            DataType::Unknown => {}
            DataType::Array(elem) => candidates.push(*elem),
            _ => return Ok(None),
        }
    }
    candidates.extend(elems.iter().copied().filter(|&t| t != DataType::Unknown));
    let Some(&first) = candidates.first() else {
        return Err(Error::new(
            SqlState::DatatypeMismatch,
            "could not determine polymorphic type because input has type unknown",
        ));
    };
    if !compatible {
        return Ok(candidates.iter().all(|&t| t == first).then_some(first));
    }
    Ok(union_type(&candidates, "").ok())
}

/// The array functions by name and argument types; `Ok(None)` for other names or
/// arguments that fit none of their signatures.
fn resolve_array_function(name: &str, args: &[DataType]) -> Result<Option<Resolved>> {
    use ArrayFunction as A;
    use DataType as T;
    let string = |t: &DataType| t.is_string() || *t == T::Unknown;
    let exact = |arrays: &[DataType]| polymorphic_element(arrays, &[], false);
    let resolved = |func, params: Vec<DataType>, ty| Ok(Some((func, params, ty)));
    match (name, args) {
        ("array_length" | "array_upper" | "array_lower", [a, i])
            if i.is_integer() || *i == T::Unknown =>
        {
            let Some(elem) = exact(&[*a])? else {
                return Ok(None);
            };
            let func = match name {
                "array_length" => A::Length,
                "array_upper" => A::Upper,
                _ => A::Lower,
            };
            resolved(func, vec![array_type(elem)?, T::Int32], T::Int32)
        }
        ("cardinality" | "array_ndims" | "array_dims", [a]) => {
            let Some(elem) = exact(&[*a])? else {
                return Ok(None);
            };
            let (func, ty) = match name {
                "cardinality" => (A::Cardinality, T::Int32),
                "array_ndims" => (A::Ndims, T::Int32),
                _ => (A::Dims, T::Text),
            };
            resolved(func, vec![array_type(elem)?], ty)
        }
        ("array_to_string", [a, d] | [a, d, _]) if args[1..].iter().all(string) && string(d) => {
            let Some(elem) = exact(&[*a])? else {
                return Ok(None);
            };
            let mut params = vec![array_type(elem)?];
            params.resize(args.len(), T::Text);
            resolved(A::ToString, params, T::Text)
        }
        ("string_to_array", [_, _] | [_, _, _]) if args.iter().all(string) => resolved(
            A::StringToArray,
            vec![T::Text; args.len()],
            array_type(T::Text)?,
        ),
        ("array_position", [a, x] | [a, x, _]) | ("array_positions", [a, x]) => {
            if args.len() == 3 && !(args[2].is_integer() || args[2] == T::Unknown) {
                return Ok(None);
            }
            let Some(elem) = polymorphic_element(&[*a], &[*x], true)? else {
                return Ok(None);
            };
            let mut params = vec![array_type(elem)?, elem];
            if args.len() == 3 {
                params.push(T::Int32);
            }
            if name == "array_position" {
                resolved(A::Position, params, T::Int32)
            } else {
                resolved(A::Positions, params, array_type(T::Int32)?)
            }
        }
        ("array_append", [a, x]) | ("array_prepend", [x, a]) => {
            let Some(elem) = polymorphic_element(&[*a], &[*x], true)? else {
                return Ok(None);
            };
            let array = array_type(elem)?;
            if name == "array_append" {
                resolved(A::Append, vec![array, elem], array)
            } else {
                resolved(A::Prepend, vec![elem, array], array)
            }
        }
        ("array_cat", [a, b]) => {
            let Some(elem) = polymorphic_element(&[*a, *b], &[], true)? else {
                return Ok(None);
            };
            let array = array_type(elem)?;
            resolved(A::Cat, vec![array, array], array)
        }
        ("array_replace", [a, x, y]) => {
            let Some(elem) = polymorphic_element(&[*a], &[*x, *y], true)? else {
                return Ok(None);
            };
            let array = array_type(elem)?;
            resolved(A::Replace, vec![array, elem, elem], array)
        }
        ("trim_array", [a, n]) if n.is_integer() || *n == T::Unknown => {
            let Some(elem) = polymorphic_element(&[*a], &[], false)? else {
                return Ok(None);
            };
            let array = array_type(elem)?;
            resolved(A::Trim, vec![array, T::Int32], array)
        }
        ("array_remove", [a, x]) => {
            let Some(elem) = polymorphic_element(&[*a], &[*x], true)? else {
                return Ok(None);
            };
            let array = array_type(elem)?;
            resolved(A::Remove, vec![array, elem], array)
        }
        _ => Ok(None),
    }
}
