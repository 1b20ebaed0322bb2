//! Window function calls: `f(args) OVER (PARTITION BY … ORDER BY … frame)` and named
//! windows. Each call is collected and replaced by a reference the select binder maps to the
//! window operator's output column.

use sqlparser::ast::{self, Expr, WindowFrameBound, WindowFrameUnits, WindowType};

use super::expr::WINDOW_REF_BASE;
use super::scope::Scope;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{AggregateFunction, WindowFunction};
use crate::plan::{FrameBound, FrameUnits, ScalarExpr, SortKey, WindowCall, WindowFrame};
use crate::types::ScalarValue;

impl Binder<'_> {
    pub(super) fn bind_window_function(
        &mut self,
        name: &str,
        args: &[&Expr],
        over: &WindowType,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
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
        let bound = self.bind_window_parts(func, args, over, scope);
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
        args: &[&Expr],
        over: &WindowType,
        scope: &Scope,
    ) -> Result<WindowCall> {
        let mut bound = args
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
        if let Some(first) = bound.first_mut() {
            if first.ty() == crate::types::DataType::Unknown {
                let taken =
                    std::mem::replace(first, ScalarExpr::null(crate::types::DataType::Text));
                *first = self.coerce(taken, crate::types::DataType::Text, CastContext::Implicit)?;
            }
        }
        let lookup = match func {
            WindowFunction::Aggregate(AggregateFunction::CountStar) => {
                Some((vec![], crate::types::DataType::Int64))
            }
            f => f.signature(bound.first().map(|a| a.ty()), bound.len()),
        };
        let Some((arg_types, ty)) = lookup else {
            let types: Vec<String> = bound.iter().map(|a| a.ty().to_string()).collect();
            return Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {func:?}({}) does not exist", types.join(", ")).to_lowercase(),
            ));
        };
        let args = bound
            .into_iter()
            .zip(arg_types)
            .map(|(a, t)| self.coerce(a, t, CastContext::Implicit))
            .collect::<Result<Vec<_>>>()?;
        let spec = self.window_spec(over)?;
        let partition_by = spec
            .partition_by
            .iter()
            .map(|e| self.bind_expr(e, scope))
            .collect::<Result<Vec<_>>>()?;
        let mut order_by = Vec::with_capacity(spec.order_by.len());
        for item in &spec.order_by {
            let descending = matches!(item.options.sort, Some(ast::OrderBySort::Desc));
            order_by.push(SortKey {
                expr: self.bind_expr(&item.expr, scope)?,
                descending,
                nulls_first: item.options.nulls_first.unwrap_or(descending),
            });
        }
        let frame = window_frame(spec.window_frame.as_ref(), !order_by.is_empty())?;
        Ok(WindowCall {
            func,
            args,
            partition_by,
            order_by,
            frame,
            ty,
        })
    }

    /// The effective window: an inline spec, a named one, or a named one refined inline.
    fn window_spec(&self, over: &WindowType) -> Result<ast::WindowSpec> {
        let lookup = |name: &ast::Ident| -> Result<ast::WindowSpec> {
            let name = ident_name(name);
            self.named_windows
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, spec)| spec.clone())
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
                None => Ok(spec.clone()),
                Some(base_name) => {
                    let base = lookup(base_name)?;
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
                    Ok(ast::WindowSpec {
                        window_name: None,
                        partition_by: base.partition_by,
                        order_by: if spec.order_by.is_empty() {
                            base.order_by
                        } else {
                            spec.order_by.clone()
                        },
                        window_frame: spec.window_frame.clone(),
                    })
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
        for ast::NamedWindowDefinition(name, expr) in definitions {
            let spec = match expr {
                ast::NamedWindowExpr::WindowSpec(spec) => {
                    self.window_spec(&WindowType::WindowSpec(spec.clone()))?
                }
                ast::NamedWindowExpr::NamedWindow(other) => {
                    self.window_spec(&WindowType::NamedWindow(other.clone()))?
                }
            };
            let name = ident_name(name);
            if self.named_windows.iter().any(|(n, _)| *n == name) {
                return Err(Error::new(
                    SqlState::WindowingError,
                    format!("window \"{name}\" is already defined"),
                ));
            }
            self.named_windows.push((name, spec));
        }
        Ok(())
    }
}

fn window_frame(frame: Option<&ast::WindowFrame>, ordered: bool) -> Result<WindowFrame> {
    let Some(frame) = frame else {
        // PostgreSQL's default: RANGE UNBOUNDED PRECEDING to CURRENT ROW (the peers of the
        // current row included); without ORDER BY every row is a peer.
        return Ok(WindowFrame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: if ordered {
                FrameBound::CurrentRow
            } else {
                FrameBound::UnboundedFollowing
            },
        });
    };
    let units = match frame.units {
        WindowFrameUnits::Rows => FrameUnits::Rows,
        WindowFrameUnits::Range => FrameUnits::Range,
        WindowFrameUnits::Groups => FrameUnits::Groups,
    };
    if units == FrameUnits::Groups && !ordered {
        return Err(Error::new(
            SqlState::WindowingError,
            "GROUPS mode requires an ORDER BY clause",
        ));
    }
    let start = frame_bound(&frame.start_bound, units, true)?;
    let end = match &frame.end_bound {
        Some(bound) => frame_bound(bound, units, false)?,
        None => FrameBound::CurrentRow,
    };
    if start == FrameBound::UnboundedFollowing {
        return Err(Error::new(
            SqlState::WindowingError,
            "frame start cannot be UNBOUNDED FOLLOWING",
        ));
    }
    if end == FrameBound::UnboundedPreceding {
        return Err(Error::new(
            SqlState::WindowingError,
            "frame end cannot be UNBOUNDED PRECEDING",
        ));
    }
    let rank = |b: FrameBound| match b {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::Preceding(_) => 1,
        FrameBound::CurrentRow => 2,
        FrameBound::Following(_) => 3,
        FrameBound::UnboundedFollowing => 4,
    };
    if rank(start) == 2 && rank(end) == 1 {
        return Err(Error::new(
            SqlState::WindowingError,
            "frame starting from current row cannot have preceding rows",
        ));
    }
    if rank(start) == 3 && rank(end) <= 2 {
        return Err(Error::new(
            SqlState::WindowingError,
            "frame starting from following row cannot have preceding rows",
        ));
    }
    Ok(WindowFrame { units, start, end })
}

fn frame_bound(bound: &WindowFrameBound, units: FrameUnits, is_start: bool) -> Result<FrameBound> {
    let offset = |expr: &Option<Box<Expr>>| -> Result<Option<u64>> {
        let Some(expr) = expr else { return Ok(None) };
        if units == FrameUnits::Range {
            return Err(Error::unsupported("RANGE with an offset"));
        }
        let value = match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) => n.parse::<i64>().ok().map(ScalarValue::Int64),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some(ScalarValue::Int64(n)) if n >= 0 => Ok(Some(n as u64)),
            Some(_) => Err(Error::new(
                SqlState::InvalidPrecedingOrFollowingSize,
                "frame starting offset must not be negative",
            )),
            None => Err(Error::unsupported(
                "a frame offset that is not an integer literal",
            )),
        }
    };
    Ok(match bound {
        WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
        WindowFrameBound::Preceding(e) => match offset(e)? {
            None => FrameBound::UnboundedPreceding,
            Some(n) => FrameBound::Preceding(n),
        },
        WindowFrameBound::Following(e) => match offset(e)? {
            None if is_start => FrameBound::UnboundedFollowing,
            None => FrameBound::UnboundedFollowing,
            Some(n) => FrameBound::Following(n),
        },
    })
}
