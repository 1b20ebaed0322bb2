//! jsonb subscripts, PostgreSQL 15's: reading `j['a'][0]` and assigning `UPDATE t SET
//! j['a'][0] = value`. Each subscript is an integer or a text (an untyped literal is text).
//! The value read is the one at that path, as `j #> ARRAY[...]` finds it (PostgreSQL turns
//! integer subscripts into the text of the path too), so a missing key or element, a step
//! into a scalar, or a NULL subscript reads NULL. Assignments come through
//! [`super::subscript_assignment`].

use sqlparser::ast::Subscript;

use super::array::array_call;
use super::scope::Scope;
use super::subscript_assignment::{AssignedSubscript, SubscriptedAssignment};
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{ArrayFunction, JsonFunction, ScalarFunction};
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
                return Err(slices_unsupported());
            };
            let step = self.bind_expr(index, scope)?;
            path.push(self.jsonb_path_step(step)?);
        }
        self.bind_operator_function("#>", vec![json, text_array(path)])
    }

    /// `column[s1]... = value` of an UPDATE on a jsonb column whose value is `current`: the
    /// column's new value. A NULL document becomes an empty array if the first subscript is
    /// an integer, else an empty object.
    pub(super) fn bind_jsonb_assignment(
        &mut self,
        current: ScalarExpr,
        assignment: &SubscriptedAssignment<'_>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let mut expect_array = false;
        let mut path = Vec::with_capacity(assignment.subscripts.len());
        for (i, subscript) in assignment.subscripts.iter().enumerate() {
            let AssignedSubscript::Index(subscript) = subscript else {
                return Err(slices_unsupported());
            };
            let step = self.bind_expr(subscript, scope)?;
            if i == 0 {
                expect_array = matches!(step.ty(), DataType::Int16 | DataType::Int32);
            }
            path.push(self.jsonb_path_step(step)?);
        }
        let value = self.bind_assigned_value(assignment, DataType::Jsonb, scope)?;
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

fn slices_unsupported() -> Error {
    Error::new(
        SqlState::DatatypeMismatch,
        "jsonb subscript does not support slices",
    )
}

fn text_array(elements: Vec<ScalarExpr>) -> ScalarExpr {
    array_call(
        ArrayFunction::Construct,
        elements,
        DataType::Array(&DataType::Text),
    )
}
