//! Operator resolution for dates, timestamps and intervals, as PostgreSQL's pg_operator
//! has them: `date + integer` is a date, `date + interval` and `timestamp ± interval` are
//! timestamps, `date - date` an integer, `timestamp - timestamp` an interval,
//! `interval * float8` an interval. An untyped literal takes the other operand's type when
//! an operator exists for that pair (`timestamp - '2024-01-01'`), else the only type that
//! fits (`timestamp + '1 day'` reads an interval); `date + '...'` is ambiguous, as in
//! PostgreSQL.

use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::datetime_arithmetic::DateTimeOp;
use crate::function::DateTimeFunction;
use crate::plan::{ArithmeticOp, ScalarExpr};
use crate::types::{DataType, IntervalTypmod, TypeCategory};

/// A resolved operator: the kernel, the operand types (left, right after any swap), and
/// the result type.
struct Signature {
    op: DateTimeOp,
    left: DataType,
    right: DataType,
    ty: DataType,
    /// The kernel wants the operands the other way round (`integer + date`).
    swap: bool,
}

fn is_datetime(ty: DataType) -> bool {
    matches!(
        ty,
        DataType::Date
            | DataType::Time(_)
            | DataType::TimeTz(_)
            | DataType::Timestamp(_)
            | DataType::TimestampTz(_)
            | DataType::Interval(_)
    )
}

fn is_timestamp(ty: DataType) -> bool {
    matches!(ty, DataType::Timestamp(_) | DataType::TimestampTz(_))
}

/// Which operator `lt op rt` is. `None`: no such operator; `Some(Err)`: ambiguous.
fn resolve(op: ArithmeticOp, lt: DataType, rt: DataType) -> Option<Result<Signature>> {
    use DataType as T;
    use DateTimeOp as Op;
    let sig = |op, left, right, ty, swap| {
        Some(Ok(Signature {
            op,
            left,
            right,
            ty,
            swap,
        }))
    };
    let small_int = |t: DataType| matches!(t, T::Int16 | T::Int32);
    let number = |t: DataType| t.category() == TypeCategory::Numeric || t == T::Unknown;
    // A date in `± interval` is read as a timestamp.
    // The result has no precision of its own (`timestamp(0) + interval '0.5 s'` keeps it).
    let stamp = |t: DataType| match t {
        T::Date => T::Timestamp(None),
        t => t.unmodified(),
    };
    match op {
        ArithmeticOp::Add => match (lt, rt) {
            (T::Date, T::Unknown) | (T::Unknown, T::Date) => Some(Err(ambiguous("+", lt, rt))),
            (T::Date, T::Time(_)) => sig(
                Op::DatePlusTime,
                T::Date,
                T::Time(None),
                T::Timestamp(None),
                false,
            ),
            (T::Time(_), T::Date) => sig(
                Op::DatePlusTime,
                T::Date,
                T::Time(None),
                T::Timestamp(None),
                true,
            ),
            (T::Time(_), T::Interval(_) | T::Unknown) => sig(
                Op::TimePlusInterval,
                T::Time(None),
                T::Interval(IntervalTypmod::NONE),
                T::Time(None),
                false,
            ),
            (T::Interval(_) | T::Unknown, T::Time(_)) => sig(
                Op::TimePlusInterval,
                T::Time(None),
                T::Interval(IntervalTypmod::NONE),
                T::Time(None),
                true,
            ),
            (T::TimeTz(_), T::Interval(_) | T::Unknown) => sig(
                Op::TimePlusInterval,
                T::TimeTz(None),
                T::Interval(IntervalTypmod::NONE),
                T::TimeTz(None),
                false,
            ),
            (T::Interval(_) | T::Unknown, T::TimeTz(_)) => sig(
                Op::TimePlusInterval,
                T::TimeTz(None),
                T::Interval(IntervalTypmod::NONE),
                T::TimeTz(None),
                true,
            ),
            (T::Date, r) if small_int(r) => {
                sig(Op::DatePlusDays, T::Date, T::Int32, T::Date, false)
            }
            (l, T::Date) if small_int(l) => sig(Op::DatePlusDays, T::Date, T::Int32, T::Date, true),
            (T::Interval(_), T::Interval(_) | T::Unknown) | (T::Unknown, T::Interval(_)) => sig(
                Op::IntervalPlusInterval,
                T::Interval(IntervalTypmod::NONE),
                T::Interval(IntervalTypmod::NONE),
                T::Interval(IntervalTypmod::NONE),
                false,
            ),
            (l, T::Interval(_) | T::Unknown) if l == T::Date || is_timestamp(l) => sig(
                Op::TimestampPlusInterval,
                stamp(l),
                T::Interval(IntervalTypmod::NONE),
                stamp(l),
                false,
            ),
            (T::Interval(_) | T::Unknown, r) if r == T::Date || is_timestamp(r) => sig(
                Op::TimestampPlusInterval,
                stamp(r),
                T::Interval(IntervalTypmod::NONE),
                stamp(r),
                true,
            ),
            _ => None,
        },
        ArithmeticOp::Sub => match (lt, rt) {
            (T::Date, r) if small_int(r) => {
                sig(Op::DateMinusDays, T::Date, T::Int32, T::Date, false)
            }
            (T::Date, T::Date | T::Unknown) | (T::Unknown, T::Date) => {
                sig(Op::DateMinusDate, T::Date, T::Date, T::Int32, false)
            }
            (T::Time(_), T::Interval(_)) => sig(
                Op::TimeMinusInterval,
                T::Time(None),
                T::Interval(IntervalTypmod::NONE),
                T::Time(None),
                false,
            ),
            (T::TimeTz(_), T::Interval(_)) => sig(
                Op::TimeMinusInterval,
                T::TimeTz(None),
                T::Interval(IntervalTypmod::NONE),
                T::TimeTz(None),
                false,
            ),
            (T::Time(_), T::Time(_) | T::Unknown) | (T::Unknown, T::Time(_)) => sig(
                Op::TimeMinusTime,
                T::Time(None),
                T::Time(None),
                T::Interval(IntervalTypmod::NONE),
                false,
            ),
            (T::Interval(_), T::Interval(_) | T::Unknown) | (T::Unknown, T::Interval(_)) => sig(
                Op::IntervalMinusInterval,
                T::Interval(IntervalTypmod::NONE),
                T::Interval(IntervalTypmod::NONE),
                T::Interval(IntervalTypmod::NONE),
                false,
            ),
            (l, T::Interval(_)) if l == T::Date || is_timestamp(l) => sig(
                Op::TimestampMinusInterval,
                stamp(l),
                T::Interval(IntervalTypmod::NONE),
                stamp(l),
                false,
            ),
            (l, r)
                if (l == T::Date || is_timestamp(l) || l == T::Unknown)
                    && (r == T::Date || is_timestamp(r) || r == T::Unknown) =>
            {
                let common = if matches!(l, T::TimestampTz(_)) || matches!(r, T::TimestampTz(_)) {
                    T::TimestampTz(None)
                } else {
                    T::Timestamp(None)
                };
                sig(
                    Op::TimestampMinusTimestamp,
                    common,
                    common,
                    T::Interval(IntervalTypmod::NONE),
                    false,
                )
            }
            _ => None,
        },
        ArithmeticOp::Mul => match (lt, rt) {
            (T::Interval(_), r) if number(r) => sig(
                Op::IntervalTimesFloat,
                T::Interval(IntervalTypmod::NONE),
                T::Float64,
                T::Interval(IntervalTypmod::NONE),
                false,
            ),
            (l, T::Interval(_)) if number(l) => sig(
                Op::IntervalTimesFloat,
                T::Interval(IntervalTypmod::NONE),
                T::Float64,
                T::Interval(IntervalTypmod::NONE),
                true,
            ),
            _ => None,
        },
        ArithmeticOp::Div => match (lt, rt) {
            (T::Interval(_), r) if number(r) => sig(
                Op::IntervalDivFloat,
                T::Interval(IntervalTypmod::NONE),
                T::Float64,
                T::Interval(IntervalTypmod::NONE),
                false,
            ),
            _ => None,
        },
        ArithmeticOp::Mod => None,
    }
}

/// 42725 `operator is not unique: date + unknown`.
fn ambiguous(symbol: &str, lt: DataType, rt: DataType) -> Error {
    Error::new(
        SqlState::AmbiguousFunction,
        format!("operator is not unique: {lt} {symbol} {rt}"),
    )
    .with_hint(
        "Could not choose a best candidate operator. You might need to add explicit type casts.",
    )
}

impl Binder<'_> {
    /// `l op r` when either operand is a date, timestamp or interval; `None` when neither
    /// is, so the numeric operators apply.
    pub(super) fn datetime_arithmetic(
        &mut self,
        op: ArithmeticOp,
        symbol: &str,
        l: &ScalarExpr,
        r: &ScalarExpr,
    ) -> Option<Result<ScalarExpr>> {
        let (lt, rt) = (l.ty(), r.ty());
        if !is_datetime(lt) && !is_datetime(rt) {
            return None;
        }
        let signature = match resolve(op, lt, rt) {
            None => return Some(Err(self.operator_error(symbol, lt, rt))),
            Some(Err(e)) => return Some(Err(e)),
            Some(Ok(signature)) => signature,
        };
        let (first, second) = if signature.swap { (r, l) } else { (l, r) };
        Some((|| {
            let left = self.coerce(first.clone(), signature.left, CastContext::Implicit)?;
            let right = self.coerce(second.clone(), signature.right, CastContext::Implicit)?;
            Ok(ScalarExpr::DateTimeFunction {
                func: DateTimeFunction::Operator(signature.op),
                args: vec![left, right],
                ty: signature.ty,
            })
        })())
    }
}

/// `-interval`.
pub(super) fn negate_interval(input: ScalarExpr) -> ScalarExpr {
    ScalarExpr::DateTimeFunction {
        func: DateTimeFunction::Operator(DateTimeOp::IntervalNegate),
        args: vec![input],
        ty: DataType::Interval(IntervalTypmod::NONE),
    }
}
