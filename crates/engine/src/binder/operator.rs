//! Operators that are functions under a symbol: the integer bit operators (`&`, `|`, `#`,
//! `~`, `<<`, `>>`), `^` (power), `|/` (square root), `||/` (cube root) and `@` (absolute
//! value). They resolve among their overloads with the function rules, as PostgreSQL's
//! operator resolution does for these, and report errors in operator terms.

use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::ScalarFunction;
use crate::plan::ScalarExpr;
use crate::types::DataType;

impl Binder<'_> {
    /// `left symbol right`, or the prefix form `symbol operand` when `operands` has one entry.
    pub(super) fn bind_operator_function(
        &mut self,
        symbol: &str,
        operands: Vec<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let types: Vec<DataType> = operands.iter().map(ScalarExpr::ty).collect();
        let described = match types.as_slice() {
            [operand] => format!("{symbol} {operand}"),
            [left, right] => format!("{left} {symbol} {right}"),
            _ => return Err(Error::internal(format!("operator {symbol} arity"))),
        };
        let resolved = ScalarFunction::resolve_checked(symbol, &types).map_err(|e| {
            if e.state == SqlState::AmbiguousFunction {
                Error::new(e.state, format!("operator is not unique: {described}"))
            } else {
                e
            }
        })?;
        let Some(resolved) = resolved else {
            return Err(match types.as_slice() {
                [left, right] => self.operator_error(symbol, *left, *right),
                _ => Error::new(
                    SqlState::UndefinedFunction,
                    format!("operator does not exist: {described}"),
                ),
            });
        };
        self.scalar_call(resolved, operands)
    }
}
