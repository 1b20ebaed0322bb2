//! An UPDATE's `SET column[s1][s2] = value` and `SET column[lo:hi] = array`, which the
//! parser rewrote into a call (`parser::SUBSCRIPTED_ASSIGNMENT`), and an INSERT's
//! `(column[s1][s2], ...)` (`parser::SUBSCRIPTED_TARGET`), which assigns to a NULL of the
//! column's type as PostgreSQL's transformAssignedExpr does: on a jsonb column the
//! document with that path set (see [`super::jsonb_subscript`]), on an array column the
//! array with that element or slice replaced, as PostgreSQL's array_set_element and
//! array_set_slice do. Several subscripted assignments to one column apply in order, each to
//! the value the one before made.

use sqlparser::ast::{
    AccessExpr, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, ObjectNamePart,
    Subscript,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

use super::array::array_call;
use super::position::placed;
use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::ArrayFunction;
use crate::parser::{OMITTED_BOUND, SUBSCRIPTED_ASSIGNMENT, SUBSCRIPTED_TARGET, SUBSCRIPT_SLICE};
use crate::plan::ScalarExpr;
use crate::types::array_shape::MAX_DIMS;
use crate::types::DataType;

/// An UPDATE's `column[s1]... = value`, as the parser rewrote it, or an INSERT's.
pub(super) struct SubscriptedAssignment<'e> {
    pub column: &'e Expr,
    pub value: Assigned<'e>,
    pub subscripts: Vec<AssignedSubscript<'e>>,
    /// Where the target is written, when `column` does not say (an INSERT's).
    pub position: Option<u32>,
}

/// The value assigned to a column: SQL still to bind, or bound already (a column of a
/// multiple-column sub-SELECT, or of an INSERT's query).
#[derive(Clone)]
pub(super) enum Assigned<'a> {
    Sql(&'a Expr),
    Bound(ScalarExpr),
}

/// One subscript of an assignment: `[i]`, or `[lo:hi]` with either bound left out.
pub(super) enum AssignedSubscript<'e> {
    Index(&'e Expr),
    Slice(Option<&'e Expr>, Option<&'e Expr>),
}

/// Whether `expr` is the parser's call named `name`; its arguments if so.
fn parser_call<'e>(expr: &'e Expr, name: &str) -> Option<Vec<&'e Expr>> {
    let Expr::Function(function) = expr else {
        return None;
    };
    match function.name.0.as_slice() {
        [ObjectNamePart::Identifier(id)] if id.quote_style == Some('"') && id.value == name => {}
        _ => return None,
    }
    let FunctionArguments::List(list) = &function.args else {
        return None;
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect()
}

fn assigned_subscript(expr: &Expr) -> AssignedSubscript<'_> {
    let bound = |e: &'_ Expr| -> bool {
        !matches!(e, Expr::Identifier(id) if id.quote_style == Some('"') && id.value == OMITTED_BOUND)
    };
    match parser_call(expr, SUBSCRIPT_SLICE).as_deref() {
        Some([lower, upper]) => AssignedSubscript::Slice(
            Some(*lower).filter(|e| bound(e)),
            Some(*upper).filter(|e| bound(e)),
        ),
        _ => AssignedSubscript::Index(expr),
    }
}

/// The subscripted assignment `value` stands for, if it is the parser's call for one.
pub(super) fn subscripted_assignment(value: &Expr) -> Option<SubscriptedAssignment<'_>> {
    let args = parser_call(value, SUBSCRIPTED_ASSIGNMENT)?;
    let [column, value, subscripts @ ..] = args.as_slice() else {
        return None;
    };
    Some(SubscriptedAssignment {
        column,
        value: Assigned::Sql(value),
        subscripts: subscripts.iter().map(|s| assigned_subscript(s)).collect(),
        position: None,
    })
}

/// An INSERT's subscripted column (`column[s1]...`, named by the parser's
/// [`SUBSCRIPTED_TARGET`] mark) as an expression: its column and subscripts.
pub(super) fn subscripted_target(name: &ObjectName) -> Option<Result<Expr>> {
    let [ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return None;
    };
    let written = id.value.strip_prefix(SUBSCRIPTED_TARGET)?;
    let dialect = PostgreSqlDialect {};
    Some(
        Parser::new(&dialect)
            .try_with_sql(written)
            .and_then(|mut parser| parser.parse_expr())
            .map_err(|e| Error::syntax(e.to_string())),
    )
}

/// The column and subscripts of a target [`subscripted_target`] parsed.
pub(super) fn target_parts(target: &Expr) -> Result<(&Expr, Vec<AssignedSubscript<'_>>)> {
    let Expr::CompoundFieldAccess { root, access_chain } = target else {
        return Err(Error::syntax(format!(
            "syntax error at or near \"{target}\""
        )));
    };
    let mut subscripts = Vec::with_capacity(access_chain.len());
    for access in access_chain {
        subscripts.push(match access {
            AccessExpr::Subscript(Subscript::Index { index }) => AssignedSubscript::Index(index),
            AccessExpr::Subscript(Subscript::Slice {
                lower_bound,
                upper_bound,
                stride: None,
            }) => AssignedSubscript::Slice(lower_bound.as_ref(), upper_bound.as_ref()),
            _ => {
                return Err(Error::unsupported(format!(
                    "the INSERT target column {target}"
                )))
            }
        });
    }
    Ok((root, subscripts))
}

impl Binder<'_> {
    /// The column's new value; `earlier` is what an earlier subscripted assignment to the
    /// same column made of it, which this one changes further.
    pub(super) fn bind_subscripted_assignment(
        &mut self,
        assignment: &SubscriptedAssignment<'_>,
        earlier: Option<ScalarExpr>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let current = match earlier {
            Some(earlier) => earlier,
            None => self.bind_expr(assignment.column, scope)?,
        };
        let ty = current.ty();
        if ty == DataType::Jsonb {
            return self.bind_jsonb_assignment(current, assignment, scope);
        }
        if ty.element().is_none() || ty.lower_bound() != 1 {
            return Err(match ty.element() {
                Some(_) => Error::unsupported(format!("assignment to elements of {ty}")),
                None => Error::new(
                    SqlState::DatatypeMismatch,
                    format!("cannot subscript type {ty} because it does not support subscripting"),
                ),
            });
        }
        self.bind_array_assignment(current, assignment, scope)
    }

    /// The value of an assignment coerced to `ty`, PostgreSQL's 42804 if it cannot be.
    pub(super) fn bind_assigned_value(
        &mut self,
        assignment: &SubscriptedAssignment<'_>,
        ty: DataType,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let value = match &assignment.value {
            Assigned::Sql(value) => self.bind_expr(value, scope)?,
            Assigned::Bound(value) => value.clone(),
        };
        let value_ty = value.ty();
        if value_ty == DataType::Unknown {
            // A literal the type cannot read says so itself.
            return self.coerce(value, ty, CastContext::Assignment);
        }
        let position = assignment
            .position
            .or_else(|| self.expr_position(assignment.column));
        self.coerce(value, ty, CastContext::Assignment)
            .map_err(|_| {
                let error = Error::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "subscripted assignment to \"{}\" requires type {} but expression is of type {}",
                        assignment.column,
                        self.type_display(ty),
                        self.type_display(value_ty)
                    ),
                )
                .with_hint("You will need to rewrite or cast the expression.");
                placed(error, position)
            })
    }

    /// `array[i]... = x` or, once one subscript is a slice, `array[lo:hi]... = array` (a lone
    /// `[n]` then meaning `[1:n]`, as when reading).
    fn bind_array_assignment(
        &mut self,
        current: ScalarExpr,
        assignment: &SubscriptedAssignment<'_>,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let ty = current.ty();
        let Some(element) = ty.element() else {
            return Err(Error::internal("an array assignment to a non-array"));
        };
        let count = assignment.subscripts.len();
        if count > MAX_DIMS {
            return Err(Error::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "number of array dimensions ({count}) exceeds the maximum allowed ({MAX_DIMS})"
                ),
            ));
        }
        let sliced = assignment
            .subscripts
            .iter()
            .any(|s| matches!(s, AssignedSubscript::Slice(..)));
        let mut indices = Vec::with_capacity(count * 2);
        let (mut lower, mut upper) = (0u8, 0u8);
        for (dim, subscript) in assignment.subscripts.iter().enumerate() {
            let (from, to) = match subscript {
                AssignedSubscript::Index(index) if sliced => {
                    indices.push(ScalarExpr::literal(
                        crate::types::ScalarValue::Int32(1),
                        DataType::Int32,
                    ));
                    lower |= 1 << dim;
                    (None, Some(*index))
                }
                AssignedSubscript::Index(index) => (None, Some(*index)),
                AssignedSubscript::Slice(from, to) => (*from, *to),
            };
            if let Some(from) = from {
                indices.push(self.bind_array_index(from, scope)?);
                lower |= 1 << dim;
            }
            if let Some(to) = to {
                indices.push(self.bind_array_index(to, scope)?);
                upper |= 1 << dim;
            }
        }
        let (func, value) = match sliced {
            true => (
                ArrayFunction::AssignSlice {
                    dims: count as u8,
                    lower,
                    upper,
                },
                self.bind_assigned_value(assignment, ty, scope)?,
            ),
            false => (
                ArrayFunction::AssignElement,
                self.bind_assigned_value(assignment, element, scope)?,
            ),
        };
        let mut args = vec![current, value];
        args.extend(indices);
        Ok(array_call(func, args, ty))
    }
}
