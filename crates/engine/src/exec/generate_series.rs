//! generate_series over integers, numerics and timestamps, a batch at a time.

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::{ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::function::datetime_arithmetic::{timestamp_plus_interval, timestamptz_plus_interval};
use crate::plan::ScalarExpr;
use crate::types::numeric::Special;
use crate::types::{Decimal, Interval, ScalarValue};
use crate::vector::{Batch, Vector, VectorData, BATCH_SIZE};

pub struct GenerateSeriesExec {
    args: Vec<ScalarExpr>,
    state: Option<Series>,
}

enum Series {
    Int {
        next: i128,
        stop: i128,
        step: i128,
        int32: bool,
    },
    Numeric {
        next: Decimal,
        stop: Decimal,
        step: Decimal,
    },
    /// timestamp or (`tz`) timestamptz values, stepped by calendar arithmetic.
    Timestamp {
        next: i64,
        stop: i64,
        step: Interval,
        tz: bool,
    },
    Done,
}

impl GenerateSeriesExec {
    pub fn new(args: Vec<ScalarExpr>) -> GenerateSeriesExec {
        GenerateSeriesExec { args, state: None }
    }

    fn start(&self, ctx: &ExecContext) -> Result<Series> {
        let values = self
            .args
            .iter()
            .map(|a| evaluate_constant(a, ctx))
            .collect::<Result<Vec<_>>>()?;
        if values.iter().any(|v| v.is_null()) {
            return Ok(Series::Done);
        }
        let zero_step = || {
            Error::new(
                SqlState::InvalidParameterValue,
                "step size cannot equal zero",
            )
        };
        Ok(match values.as_slice() {
            [start @ (ScalarValue::Timestamp(_) | ScalarValue::TimestampTz(_)), stop, ScalarValue::Interval(step)] =>
            {
                let (ScalarValue::Timestamp(first) | ScalarValue::TimestampTz(first)) = start
                else {
                    return Err(Error::internal("generate_series start"));
                };
                let (ScalarValue::Timestamp(last) | ScalarValue::TimestampTz(last)) = stop else {
                    return Err(Error::internal("generate_series stop"));
                };
                if step.span() == 0 {
                    return Err(zero_step());
                }
                Series::Timestamp {
                    next: *first,
                    stop: *last,
                    step: *step,
                    tz: matches!(start, ScalarValue::TimestampTz(_)),
                }
            }
            [ScalarValue::Numeric(start), ScalarValue::Numeric(stop), rest @ ..] => {
                let step = match rest.first() {
                    Some(ScalarValue::Numeric(step)) => *step,
                    _ => Decimal::from_i64(1),
                };
                for (value, what) in [
                    (start, "start value"),
                    (stop, "stop value"),
                    (&step, "step size"),
                ] {
                    if let Some(special) = value.special() {
                        let word = if special == Special::NaN {
                            "NaN"
                        } else {
                            "infinity"
                        };
                        return Err(Error::new(
                            SqlState::InvalidParameterValue,
                            format!("{what} cannot be {word}"),
                        ));
                    }
                }
                if step == Decimal::ZERO {
                    return Err(zero_step());
                }
                Series::Numeric {
                    next: *start,
                    stop: *stop,
                    step,
                }
            }
            [start, stop, rest @ ..] => {
                let int = |v: &ScalarValue| match v {
                    ScalarValue::Int32(x) => Some(*x as i128),
                    ScalarValue::Int64(x) => Some(*x as i128),
                    _ => None,
                };
                let (Some(start_value), Some(stop)) = (int(start), int(stop)) else {
                    return Err(Error::internal(
                        "generate_series arguments of unexpected types",
                    ));
                };
                let step = rest.first().and_then(int).unwrap_or(1);
                if step == 0 {
                    return Err(zero_step());
                }
                Series::Int {
                    next: start_value,
                    stop,
                    step,
                    int32: matches!(start, ScalarValue::Int32(_)),
                }
            }
            _ => {
                return Err(Error::internal(
                    "generate_series takes two or three arguments",
                ))
            }
        })
    }
}

impl Operator for GenerateSeriesExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.state.is_none() {
            self.state = Some(self.start(ctx)?);
        }
        let Some(state) = self.state.as_mut() else {
            return Ok(None);
        };
        ctx.check_cancelled()?;
        let column = match state {
            Series::Done => return Ok(None),
            Series::Int {
                next,
                stop,
                step,
                int32,
            } => {
                let mut values = Vec::with_capacity(BATCH_SIZE);
                while values.len() < BATCH_SIZE
                    && (if *step > 0 {
                        *next <= *stop
                    } else {
                        *next >= *stop
                    })
                {
                    values.push(*next);
                    *next += *step;
                }
                if values.is_empty() {
                    *state = Series::Done;
                    return Ok(None);
                }
                if *int32 {
                    VectorData::Int32(values.iter().map(|&v| v as i32).collect())
                } else {
                    VectorData::Int64(values.iter().map(|&v| v as i64).collect())
                }
            }
            Series::Numeric { next, stop, step } => {
                let mut values = Vec::with_capacity(BATCH_SIZE);
                let ascending = *step > Decimal::ZERO;
                while values.len() < BATCH_SIZE
                    && (if ascending {
                        *next <= *stop
                    } else {
                        *next >= *stop
                    })
                {
                    values.push(*next);
                    *next = next.checked_add(step)?;
                }
                if values.is_empty() {
                    *state = Series::Done;
                    return Ok(None);
                }
                VectorData::Numeric(values)
            }
            Series::Timestamp {
                next,
                stop,
                step,
                tz,
            } => {
                let ascending = step.span() > 0;
                let mut values = Vec::with_capacity(BATCH_SIZE);
                while values.len() < BATCH_SIZE
                    && (if ascending {
                        *next <= *stop
                    } else {
                        *next >= *stop
                    })
                {
                    values.push(*next);
                    // PostgreSQL 15 also fails past the last timestamp, even at the end.
                    *next = match *tz {
                        true => timestamptz_plus_interval(*next, *step)?,
                        false => timestamp_plus_interval(*next, *step)?,
                    };
                }
                if values.is_empty() {
                    *state = Series::Done;
                    return Ok(None);
                }
                if *tz {
                    VectorData::TimestampTz(values)
                } else {
                    VectorData::Timestamp(values)
                }
            }
        };
        let len = column.len();
        Ok(ctx.read_rows(Some(Batch::new(
            vec![Arc::new(Vector::new(column, None))],
            len,
        ))))
    }
}
