//! Reading jsonb through subscripts, `j['a'][0]`: PostgreSQL 15's jsonb subscripting. Each
//! subscript is an integer or a text (an untyped literal is text), and the value read is
//! the one at that path, as `j #> ARRAY[...]` finds it (PostgreSQL turns integer subscripts
//! into the text of the path too), so a missing key or element, a step into a scalar, or a
//! NULL subscript reads NULL.

use sqlparser::ast::Subscript;

use super::array::array_call;
use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::ArrayFunction;
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
        let path = array_call(
            ArrayFunction::Construct,
            path,
            DataType::Array(&DataType::Text),
        );
        self.bind_operator_function("#>", vec![json, path])
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
