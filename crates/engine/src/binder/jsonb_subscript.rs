//! jsonb subscripts, PostgreSQL 15's: reading `j['a'][0]` and assigning `UPDATE t SET
//! j['a'][0] = value`. Each subscript is an integer or a text (an untyped literal is text).
//! The value read is the one at that path, as `j #> ARRAY[...]` finds it (PostgreSQL turns
//! integer subscripts into the text of the path too), so a missing key or element, a step
//! into a scalar, or a NULL subscript reads NULL. An assignment arrives as the call the
//! parser rewrote it into (`parser::SUBSCRIPTED_ASSIGNMENT`).

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectNamePart, Subscript,
};

use super::array::array_call;
use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{ArrayFunction, JsonFunction, ScalarFunction};
use crate::parser::SUBSCRIPTED_ASSIGNMENT;
use crate::plan::ScalarExpr;
use crate::types::DataType;

impl Binder<'_> {
    /// `json[s1][s2]...` for a bound jsonb `json`.
    pub(super) fn bind_jsonb_subscript(
        &mut self,
        json: ScalarExpr,
        subscripts: &[&Subscript],
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let mut path = Vec::with_capacity(subscripts.len());
        for subscript in subscripts {
            let Subscript::Index { index } = subscript else {
                return Err(Error::new(
                    SqlState::DatatypeMismatch,
                    "jsonb subscript does not support slices",
                ));
            };
            let step = self.bind_expr(index, scope)?;
            path.push(self.jsonb_path_step(step)?);
        }
        self.bind_operator_function("#>", vec![json, text_array(path)])
    }

    /// `column[s1]... = value` of an UPDATE: the column's new value. A NULL document
    /// becomes an empty array if the first subscript is an integer, else an empty object.
    pub(super) fn bind_subscripted_assignment(
        &mut self,
        assignment: &SubscriptedAssignment<'_>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let current = self.bind_expr(assignment.column, scope)?;
        let ty = current.ty();
        if ty != DataType::Jsonb {
            return Err(match ty.element() {
                Some(_) => Error::unsupported("assignment to array elements"),
                None => Error::new(
                    SqlState::DatatypeMismatch,
                    format!("cannot subscript type {ty} because it does not support subscripting"),
                ),
            });
        }
        let mut expect_array = false;
        let mut path = Vec::with_capacity(assignment.subscripts.len());
        for (i, subscript) in assignment.subscripts.iter().enumerate() {
            let step = self.bind_expr(subscript, scope)?;
            if i == 0 {
                expect_array = matches!(step.ty(), DataType::Int16 | DataType::Int32);
            }
            path.push(self.jsonb_path_step(step)?);
        }
        let value = self.bind_expr(assignment.value, scope)?;
        let value_ty = value.ty();
        let value = self
            .coerce(value, DataType::Jsonb, CastContext::Assignment)
            .map_err(|_| {
                Error::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "subscripted assignment to \"{}\" requires type jsonb but expression is of type {value_ty}",
                        assignment.column
                    ),
                )
            })?;
        let func = JsonFunction::AssignSubscript { expect_array };
        Ok(ScalarExpr::Function {
            func: ScalarFunction::Json(func),
            args: vec![current, text_array(path), value],
            ty: func.result(),
        })
    }

    /// One subscript as the text step of a path: an integer (int2 or int4, which coerce to
    /// int4) as its digits, anything implicitly coercible to text as that text.
    fn jsonb_path_step(&mut self, step: ScalarExpr) -> Result<ScalarExpr> {
        let ty = step.ty();
        if matches!(ty, DataType::Int16 | DataType::Int32) {
            let step = self.coerce(step, DataType::Int32, CastContext::Implicit)?;
            return self.coerce(step, DataType::Text, CastContext::Explicit);
        }
        self.coerce(step, DataType::Text, CastContext::Implicit)
            .map_err(|_| {
                Error::new(
                    SqlState::DatatypeMismatch,
                    format!("subscript type {ty} is not supported"),
                )
                .with_hint("jsonb subscript must be coercible to either integer or text.")
            })
    }
}

fn text_array(elements: Vec<ScalarExpr>) -> ScalarExpr {
    array_call(
        ArrayFunction::Construct,
        elements,
        DataType::Array(&DataType::Text),
    )
}

/// An UPDATE's `column[s1]... = value`, as the parser rewrote it.
pub(super) struct SubscriptedAssignment<'e> {
    pub column: &'e Expr,
    pub value: &'e Expr,
    pub subscripts: Vec<&'e Expr>,
}

/// The subscripted assignment `value` stands for, if it is the parser's call for one.
pub(super) fn subscripted_assignment(value: &Expr) -> Option<SubscriptedAssignment<'_>> {
    let Expr::Function(function) = value else {
        return None;
    };
    match function.name.0.as_slice() {
        [ObjectNamePart::Identifier(name)]
            if name.quote_style == Some('"') && name.value == SUBSCRIPTED_ASSIGNMENT => {}
        _ => return None,
    }
    let FunctionArguments::List(list) = &function.args else {
        return None;
    };
    let args = list
        .args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect::<Option<Vec<&Expr>>>()?;
    let [column, value, subscripts @ ..] = args.as_slice() else {
        return None;
    };
    Some(SubscriptedAssignment {
        column,
        value,
        subscripts: subscripts.to_vec(),
    })
}
