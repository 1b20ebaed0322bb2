//! Window function calls: `f(args) OVER (PARTITION BY … ORDER BY … frame)` and named
//! windows. Each call is collected and replaced by a reference the select binder maps to the
//! window operator's output column.

use sqlparser::ast::{self, Expr, WindowFrameBound, WindowFrameUnits, WindowType};
use sqlparser::tokenizer::Location;

use super::expr::WINDOW_REF_BASE;
use super::scope::Scope;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{AggregateFunction, WindowFunction};
use crate::plan::{
    FrameBound, FrameExclusion, FrameUnits, ScalarExpr, SortKey, WindowCall, WindowFrame,
};
use crate::types::{DataType, IntervalTypmod};

/// A window function call as written: `name(args) [FILTER (WHERE ...)] OVER ...`; `owner`
/// is where its name starts, which keys the frame EXCLUDE the parser took out.
pub(super) struct WindowCallSyntax<'a> {
    pub(super) name: &'a str,
    pub(super) args: &'a [&'a Expr],
    pub(super) filter: Option<&'a Expr>,
    pub(super) over: &'a WindowType,
    pub(super) owner: Location,
}

impl Binder<'_> {
    pub(super) fn bind_window_function(
        &mut self,
        call: WindowCallSyntax,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let name = call.name;
        let Some(func) = WindowFunction::by_name(name) else {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!(
                    "OVER specified, but {name} is not a window function nor an aggregate function"
                ),
            ));
        };
        if self.in_window_args {
            return Err(Error::new(
                SqlState::WindowingError,
                "window function calls cannot be nested",
            ));
        }
        let Some(mut calls) = self.windows.take() else {
            let clause = self.aggregate_forbidden_in.unwrap_or("this context");
            return Err(Error::new(
                SqlState::WindowingError,
                format!("window functions are not allowed in {clause}"),
            ));
        };
        self.in_window_args = true;
        let bound = self.bind_window_parts(func, &call, scope);
        self.in_window_args = false;
        let result = bound.map(|call| {
            let ty = call.ty;
            calls.push(call);
            ScalarExpr::Column {
                index: WINDOW_REF_BASE + calls.len() - 1,
                ty,
            }
        });
        self.windows = Some(calls);
        result
    }

    fn bind_window_parts(
        &mut self,
        func: WindowFunction,
        call: &WindowCallSyntax,
        scope: &Scope,
    ) -> Result<WindowCall> {
        let filter = match call.filter {
            None => None,
            Some(_) if !matches!(func, WindowFunction::Aggregate(_)) => {
                return Err(Error::unsupported(
                    "FILTER is not implemented for non-aggregate window functions",
                ))
            }
            Some(filter) => {
                // Unlike a plain aggregate's, a window call's FILTER may not aggregate.
                let saved = (self.aggregates.take(), self.aggregate_forbidden_in.take());
                self.aggregate_forbidden_in = Some("FILTER");
                let bound = self.bind_condition(filter, scope, "FILTER");
                (self.aggregates, self.aggregate_forbidden_in) = saved;
                Some(bound?)
            }
        };
        let mut bound = call
            .args
            .iter()
            .map(|a| self.bind_expr(a, scope))
            .collect::<Result<Vec<_>>>()?;
        // count(*) OVER (...) arrives with no argument.
        let func = match (func, bound.len()) {
            (WindowFunction::Aggregate(AggregateFunction::Count), 0) => {
                WindowFunction::Aggregate(AggregateFunction::CountStar)
            }
            (f, _) => f,
        };
        if matches!(func, WindowFunction::Aggregate(aggregate) if aggregate.renders_arguments()) {
            bound = super::present::present_all(bound)?;
        }
        let value_type = self.window_value_type(func, call.name, &bound)?;
        if let (Some(first), Some(value_type)) = (bound.first_mut(), value_type) {
            if first.ty() != value_type {
                let taken = std::mem::replace(first, ScalarExpr::null(value_type));
                *first = self.coerce(taken, value_type, CastContext::Implicit)?;
            }
        }
        let lookup = match func {
            WindowFunction::Aggregate(AggregateFunction::CountStar) => {
                Some((vec![], crate::types::DataType::Int64))
            }
            f => f.signature(bound.first().map(|a| a.ty()), bound.len()),
        };
        // The signature goes by the first argument; the others must convert implicitly, or
        // no function matches (42883, as PostgreSQL's lookup says).
        let types: Vec<_> = bound.iter().map(|a| a.ty()).collect();
        let lookup = lookup.filter(|(arg_types, _)| {
            types.iter().zip(arg_types).all(|(&from, &to)| {
                crate::function::cast::can_cast(from, to, CastContext::Implicit)
            })
        });
        let Some((arg_types, ty)) = lookup else {
            return Err(self.undefined_function(call.name, &types));
        };
        let args = bound
            .into_iter()
            .zip(arg_types)
            .map(|(a, t)| self.coerce(a, t, CastContext::Implicit))
            .collect::<Result<Vec<_>>>()?;
        let (spec, exclusion) = self.window_spec(call.over, call.owner)?;
        let partition_by = spec
            .partition_by
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        for key in &partition_by {
            super::coerce::require_json_free(key.ty(), false)?;
        }
        let mut order_by = Vec::with_capacity(spec.order_by.len());
        for item in &spec.order_by {
            let descending = matches!(item.options.sort, Some(ast::OrderBySort::Desc));
            let expr = self.bind_expr(&item.expr, scope)?;
            super::coerce::require_json_free(expr.ty(), true)?;
            order_by.push(SortKey {
                expr,
                descending,
                nulls_first: item.options.nulls_first.unwrap_or(descending),
            });
        }
        let frame = self.window_frame(spec.window_frame.as_ref(), &order_by, exclusion)?;
        Ok(WindowCall {
            func,
            args,
            partition_by,
            order_by,
            frame,
            ty,
            filter,
        })
    }

    /// The type the first argument takes, where it is the polymorphic value: an untyped
    /// one is text, and lag/lead(anycompatible, integer, anycompatible) bring the value and
    /// the default to their common type (42883 when they have none, as PostgreSQL's lookup).
    fn window_value_type(
        &self,
        func: WindowFunction,
        name: &str,
        args: &[ScalarExpr],
    ) -> Result<Option<DataType>> {
        Ok(match (func, args) {
            (WindowFunction::Ntile, _) | (_, []) => None,
            (WindowFunction::Lag | WindowFunction::Lead, [value, _, default]) => {
                let types = [value.ty(), default.ty()];
                match super::coerce::union_type(&types, name) {
                    Ok(common) => Some(common),
                    Err(_) => {
                        let all: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
                        return Err(self.undefined_function(name, &all));
                    }
                }
            }
            (_, [first, ..]) if first.ty() == DataType::Unknown => Some(DataType::Text),
            (_, [first, ..]) => Some(first.ty()),
        })
    }

    /// The frame EXCLUDE clause the parser took from the window spec owned by `owner`.
    fn take_exclusion(&mut self, owner: Location) -> FrameExclusion {
        match self.exclusions.get(owner) {
            Some(exclusion) => {
                self.exclusions_used.push(owner);
                exclusion
            }
            None => FrameExclusion::NoOthers,
        }
    }

    /// The effective window and its frame exclusion: an inline spec (owned by `owner`), a
    /// named one, or a named one refined inline.
    fn window_spec(
        &mut self,
        over: &WindowType,
        owner: Location,
    ) -> Result<(ast::WindowSpec, FrameExclusion)> {
        let inline = match over {
            WindowType::WindowSpec(_) => self.take_exclusion(owner),
            WindowType::NamedWindow(_) => FrameExclusion::NoOthers,
        };
        let lookup = |name: &ast::Ident| -> Result<(ast::WindowSpec, FrameExclusion)> {
            let name = ident_name(name);
            self.named_windows
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|(_, spec, exclusion)| (spec.clone(), *exclusion))
                .ok_or_else(|| {
                    Error::new(
                        SqlState::UndefinedObject,
                        format!("window \"{name}\" does not exist"),
                    )
                })
        };
        match over {
            WindowType::NamedWindow(name) => lookup(name),
            WindowType::WindowSpec(spec) => match &spec.window_name {
                None => Ok((spec.clone(), inline)),
                Some(base_name) => {
                    // A base with a frame is rejected below, so its exclusion is NO OTHERS.
                    let (base, _) = lookup(base_name)?;
                    if !spec.partition_by.is_empty() {
                        return Err(Error::new(
                            SqlState::WindowingError,
                            format!(
                                "cannot override PARTITION BY clause of window \"{}\"",
                                ident_name(base_name)
                            ),
                        ));
                    }
                    if !spec.order_by.is_empty() && !base.order_by.is_empty() {
                        return Err(Error::new(
                            SqlState::WindowingError,
                            format!(
                                "cannot override ORDER BY clause of window \"{}\"",
                                ident_name(base_name)
                            ),
                        ));
                    }
                    if base.window_frame.is_some() {
                        return Err(Error::new(
                            SqlState::WindowingError,
                            format!(
                                "cannot copy window \"{}\" because it has a frame clause",
                                ident_name(base_name)
                            ),
                        ));
                    }
                    let spec = ast::WindowSpec {
                        window_name: None,
                        partition_by: base.partition_by,
                        order_by: if spec.order_by.is_empty() {
                            base.order_by
                        } else {
                            spec.order_by.clone()
                        },
                        window_frame: spec.window_frame.clone(),
                    };
                    Ok((spec, inline))
                }
            },
        }
    }

    /// Records `WINDOW w AS (...)` definitions for the SELECT being bound.
    pub(super) fn set_named_windows(
        &mut self,
        definitions: &[ast::NamedWindowDefinition],
    ) -> Result<()> {
        self.named_windows.clear();
        for ast::NamedWindowDefinition(ident, expr) in definitions {
            let owner = ident.span.start;
            let (spec, exclusion) = match expr {
                ast::NamedWindowExpr::WindowSpec(spec) => {
                    self.window_spec(&WindowType::WindowSpec(spec.clone()), owner)?
                }
                ast::NamedWindowExpr::NamedWindow(other) => {
                    self.window_spec(&WindowType::NamedWindow(other.clone()), owner)?
                }
            };
            let name = ident_name(ident);
            if self.named_windows.iter().any(|(n, _, _)| *n == name) {
                return Err(Error::new(
                    SqlState::WindowingError,
                    format!("window \"{name}\" is already defined"),
                ));
            }
            self.named_windows.push((name, spec, exclusion));
        }
        Ok(())
    }
}

impl Binder<'_> {
    fn window_frame(
        &mut self,
        frame: Option<&ast::WindowFrame>,
        order_by: &[SortKey],
        exclusion: FrameExclusion,
    ) -> Result<WindowFrame> {
        let Some(frame) = frame else {
            // PostgreSQL's default: RANGE UNBOUNDED PRECEDING to CURRENT ROW (the peers of
            // the current row included); without ORDER BY every row is a peer.
            return Ok(WindowFrame {
                units: FrameUnits::Range,
                start: FrameBound::UnboundedPreceding,
                end: if order_by.is_empty() {
                    FrameBound::UnboundedFollowing
                } else {
                    FrameBound::CurrentRow
                },
                exclusion: FrameExclusion::NoOthers,
            });
        };
        let ast::WindowFrame {
            units,
            start_bound,
            end_bound,
        } = frame;
        let units = match units {
            WindowFrameUnits::Rows => FrameUnits::Rows,
            WindowFrameUnits::Range => FrameUnits::Range,
            WindowFrameUnits::Groups => FrameUnits::Groups,
        };
        if units == FrameUnits::Groups && order_by.is_empty() {
            return Err(Error::new(
                SqlState::WindowingError,
                "GROUPS mode requires an ORDER BY clause",
            ));
        }
        let end_bound = end_bound.as_ref().unwrap_or(&WindowFrameBound::CurrentRow);
        check_frame_shape(start_bound, end_bound)?;
        let has_offset = |b: &WindowFrameBound| {
            matches!(
                b,
                WindowFrameBound::Preceding(Some(_)) | WindowFrameBound::Following(Some(_))
            )
        };
        if units == FrameUnits::Range
            && (has_offset(start_bound) || has_offset(end_bound))
            && order_by.len() != 1
        {
            return Err(Error::new(
                SqlState::WindowingError,
                "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
            ));
        }
        let key_type = order_by.first().map(|k| k.expr.ty());
        Ok(WindowFrame {
            units,
            start: self.frame_bound(start_bound, units, key_type)?,
            end: self.frame_bound(end_bound, units, key_type)?,
            exclusion,
        })
    }

    fn frame_bound(
        &mut self,
        bound: &WindowFrameBound,
        units: FrameUnits,
        key_type: Option<DataType>,
    ) -> Result<FrameBound> {
        Ok(match bound {
            WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
            WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
            WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
            WindowFrameBound::Preceding(Some(e)) => {
                FrameBound::Preceding(self.frame_offset(e, units, key_type)?)
            }
            WindowFrameBound::Following(Some(e)) => {
                FrameBound::Following(self.frame_offset(e, units, key_type)?)
            }
        })
    }

    /// A frame offset: a constant expression of the type PostgreSQL's in_range support
    /// function for the ORDER BY key takes (RANGE), or bigint (ROWS, GROUPS).
    fn frame_offset(
        &mut self,
        expr: &Expr,
        units: FrameUnits,
        key_type: Option<DataType>,
    ) -> Result<ScalarExpr> {
        let clause = match units {
            FrameUnits::Rows => "ROWS",
            FrameUnits::Range => "RANGE",
            FrameUnits::Groups => "GROUPS",
        };
        let variables = || {
            Error::new(
                SqlState::InvalidColumnReference,
                format!("argument of {clause} must not contain variables"),
            )
        };
        let expr = match (units, key_type) {
            (
                FrameUnits::Range,
                Some(
                    DataType::Date
                    | DataType::Timestamp(_)
                    | DataType::TimestampTz(_)
                    | DataType::Interval(_)
                    | DataType::Time(_)
                    | DataType::TimeTz(_),
                ),
            ) => expr,
            _ => bare_string(expr).unwrap_or(expr),
        };
        let bound = self
            .bind_expr(expr, &Scope::default())
            .map_err(|e| match e.state {
                SqlState::UndefinedColumn => variables(),
                _ => e,
            })?;
        if !bound.is_constant() {
            return Err(variables());
        }
        let mut subquery = false;
        bound.visit(&mut |e| subquery |= matches!(e, ScalarExpr::Subquery(_)));
        if subquery {
            return Err(Error::unsupported("a subquery as a window frame offset"));
        }
        let offset_type = bound.ty();
        let target = match (units, key_type) {
            // coerce_to_specific_type: an assignment cast, so 1.5 ROWS is 2.
            (FrameUnits::Rows | FrameUnits::Groups, _) => {
                return self
                    .coerce(bound, DataType::Int64, CastContext::Assignment)
                    .map_err(|_| {
                        Error::new(
                            SqlState::DatatypeMismatch,
                            format!(
                                "argument of {clause} must be type bigint, not type {}",
                                offset_type.name()
                            ),
                        )
                    });
            }
            (FrameUnits::Range, None) => {
                return Err(Error::internal("invariant: RANGE offset without ORDER BY"))
            }
            (FrameUnits::Range, Some(key)) => range_offset_type(key, offset_type)?,
        };
        self.coerce(bound, target, CastContext::Implicit)
    }
}

/// sqlparser reads a quoted offset (`'1' PRECEDING`) as an interval literal; PostgreSQL
/// reads it as an untyped literal of the key's offset type. The string, when `expr` is that.
fn bare_string(expr: &Expr) -> Option<&Expr> {
    let Expr::Interval(ast::Interval {
        value,
        leading_field: None,
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    }) = expr
    else {
        return None;
    };
    matches!(
        value.as_ref(),
        Expr::Value(ast::ValueWithSpan {
            value: ast::Value::SingleQuotedString(_),
            ..
        })
    )
    .then_some(value.as_ref())
}

/// The offset type of PostgreSQL's in_range support function for a RANGE key of type
/// `key` given an offset of type `offset`.
fn range_offset_type(key: DataType, offset: DataType) -> Result<DataType> {
    use DataType as T;
    // PostgreSQL names the input type of the key's operator class: varchar sorts as text.
    let key_name = match key {
        T::Varchar(_) => "text",
        other => other.name(),
    };
    let numeric_offset = matches!(offset, T::Int16 | T::Int32 | T::Int64 | T::Unknown);
    let target = match key {
        T::Int16 | T::Int32 | T::Int64 if offset == T::Unknown => Some(key),
        T::Int16 | T::Int32 | T::Int64 => numeric_offset.then_some(T::Int64),
        T::Float32 | T::Float64 => (numeric_offset
            || matches!(offset, T::Numeric(_) | T::Float32 | T::Float64))
        .then_some(T::Float64),
        T::Numeric(_) => {
            (numeric_offset || matches!(offset, T::Numeric(_))).then_some(T::Numeric(None))
        }
        T::Date
        | T::Timestamp(_)
        | T::TimestampTz(_)
        | T::Interval(_)
        | T::Time(_)
        | T::TimeTz(_) => matches!(offset, T::Interval(_) | T::Unknown)
            .then_some(T::Interval(IntervalTypmod::NONE)),
        T::Unknown
        | T::Bool
        | T::Text
        | T::Varchar(_)
        | T::Char(_)
        | T::InternalChar
        | T::Bytea
        | T::Uuid
        | T::Inet
        | T::Cidr
        | T::Json
        | T::Jsonb
        | T::Array(_)
        | T::Oid(_)
        | T::FloatVector(_)
        | T::JsonPath
        | T::Enum(_)
        | T::Bit(_)
        | T::VarBit(_)
        | T::Int2Vector
        | T::OidVector
        | T::Record(_) => {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                format!(
                "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {key_name}"
            ),
            ))
        }
    };
    target.ok_or_else(|| {
        Error::new(
            SqlState::FeatureNotSupported,
            format!(
                "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {key_name} and offset type {}",
                offset.name()
            ),
        )
        .with_hint("Cast the offset value to an appropriate type.")
    })
}

/// PostgreSQL's grammar checks on the order of the two bounds.
fn check_frame_shape(start: &WindowFrameBound, end: &WindowFrameBound) -> Result<()> {
    let rank = |b: &WindowFrameBound| match b {
        WindowFrameBound::Preceding(None) => 0,
        WindowFrameBound::Preceding(Some(_)) => 1,
        WindowFrameBound::CurrentRow => 2,
        WindowFrameBound::Following(Some(_)) => 3,
        WindowFrameBound::Following(None) => 4,
    };
    let message = match (rank(start), rank(end)) {
        (4, _) => "frame start cannot be UNBOUNDED FOLLOWING",
        (_, 0) => "frame end cannot be UNBOUNDED PRECEDING",
        (2, 1) => "frame starting from current row cannot have preceding rows",
        (3, e) if e <= 2 => "frame starting from following row cannot have preceding rows",
        _ => return Ok(()),
    };
    Err(Error::new(SqlState::WindowingError, message))
}

/// One key of a window's sort as PostgreSQL's planner compares them: the expression's
/// sort/group reference number, then DESC, then NULLS FIRST.
type PlannerKey = (usize, bool, bool);

/// The order in which PostgreSQL 15 stacks the WindowAggs of `calls`, the last one on top
/// deciding the output order (planner.c, select_active_windows): windows sorted by their
/// PARTITION BY + ORDER BY keys, a higher reference number first at the first difference and
/// the longer of two where one is a prefix of the other. Reference numbers go to
/// expressions in order of first appearance: `numbered` (the group keys) first, then each
/// window's PARTITION BY and ORDER BY keys in call order.
pub(super) fn evaluation_order(calls: &[WindowCall], mut numbered: Vec<ScalarExpr>) -> Vec<usize> {
    let mut number = |expr: &ScalarExpr| match numbered.iter().position(|e| e == expr) {
        Some(index) => index,
        None => {
            numbered.push(expr.clone());
            numbered.len() - 1
        }
    };
    let keys: Vec<Vec<PlannerKey>> = calls
        .iter()
        .map(|call| {
            let partition = call.partition_by.iter().map(|e| (number(e), false, false));
            let partition: Vec<PlannerKey> = partition.collect();
            let order = call
                .order_by
                .iter()
                .map(|k| (number(&k.expr), k.descending, k.nulls_first));
            partition.into_iter().chain(order).collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by(|&a, &b| common_prefix_cmp(&keys[a], &keys[b]));
    order
}

fn common_prefix_cmp(a: &[PlannerKey], b: &[PlannerKey]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        // Higher first; DESC's operator (>) has the higher OID, as has NULLS FIRST.
        let ord = y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(y.2.cmp(&x.2));
        if ord.is_ne() {
            return ord;
        }
    }
    b.len().cmp(&a.len())
}
