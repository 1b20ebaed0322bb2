//! SQL's special syntax for dates and times, bound onto [`DateTimeFunction`]s:
//! `EXTRACT(field FROM x)`, `INTERVAL '1 day'` (and `INTERVAL '2' HOUR`), `x AT TIME ZONE
//! zone`, and the date/time
//! functions called by name (`now()`, `current_date`, `date_trunc(...)`, ...), which
//! sqlparser hands over as ordinary function calls; and the literals `'now'`, `'today'`,
//! `'tomorrow'` and `'yesterday'` of a date or timestamp type.

use sqlparser::ast::{DateTimeField, Expr, Value};

use super::data_type::interval_typmod;
use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result};
use crate::function::cast::CastContext;
use crate::function::DateTimeFunction;
use crate::plan::{ArithmeticOp, ScalarExpr};
use crate::types::{datetime, text_io, DataType, IntervalRange, ScalarValue};

impl Binder<'_> {
    /// A literal `'now'`, `'today'`, `'tomorrow'` or `'yesterday'` of type `ty`, bound as
    /// now() (the transaction's start, which PostgreSQL reads for them too) and day
    /// arithmetic on it: a constant would live on, stale, in a cached plan. `None` for any
    /// other text or type.
    pub(super) fn relative_datetime_literal(
        &mut self,
        text: &str,
        ty: DataType,
    ) -> Option<Result<ScalarExpr>> {
        if !matches!(
            ty,
            DataType::Date | DataType::Timestamp(_) | DataType::TimestampTz(_)
        ) {
            return None;
        }
        let word = crate::types::float::trim_pg_space(text);
        let (_, day_offset) = datetime::RELATIVE_WORDS
            .iter()
            .find(|(w, _)| word.eq_ignore_ascii_case(w))?;
        let now = ScalarExpr::DateTimeFunction {
            func: DateTimeFunction::Now,
            args: Vec::new(),
            ty: DataType::TimestampTz(None),
        };
        Some((|| {
            let Some(days) = *day_offset else {
                return self.coerce(now, ty, CastContext::Explicit);
            };
            // The date of now() in the session zone is today.
            let today = self.coerce(now, DataType::Date, CastContext::Explicit)?;
            let days = ScalarExpr::literal(ScalarValue::Int32(days), DataType::Int32);
            let day = self
                .datetime_arithmetic(ArithmeticOp::Add, "+", &today, &days)
                .unwrap_or_else(|| Err(Error::internal("date + integer did not resolve")))?;
            self.coerce(day, ty, CastContext::Explicit)
        })())
    }

    /// `None` when `expr` is not one of these forms.
    pub(super) fn bind_datetime_syntax(
        &mut self,
        expr: &Expr,
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        match expr {
            Expr::Extract {
                field,
                syntax: _,
                expr: inner,
            } => Some(self.bind_extract(field, inner, scope)),
            Expr::Interval(interval) => Some(bind_interval_literal(interval)),
            Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => Some(self.bind_at_time_zone(timestamp, time_zone, scope)),
            _ => None,
        }
    }

    fn bind_extract(
        &mut self,
        field: &DateTimeField,
        inner: &Expr,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let name = field_name(field);
        let unit = ScalarExpr::literal(ScalarValue::Text(name), DataType::Text);
        let value = self.bind_expr(inner, scope)?;
        self.bind_datetime_function("extract", vec![unit, value])
            .unwrap_or_else(|| {
                Err(self.undefined_function("extract", &[DataType::Text, DataType::Unknown]))
            })
    }

    /// `x AT TIME ZONE zone`: PostgreSQL's timezone(zone, x).
    fn bind_at_time_zone(
        &mut self,
        timestamp: &Expr,
        time_zone: &Expr,
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let zone = self.bind_expr(time_zone, scope)?;
        let value = self.bind_expr(timestamp, scope)?;
        let types = [zone.ty(), value.ty()];
        self.bind_datetime_function("timezone", vec![zone, value])
            .unwrap_or_else(|| Err(self.undefined_function("timezone", &types)))
    }

    /// A date/time function `name` over bound arguments; `None` if there is none by that
    /// name for those types.
    pub(super) fn bind_datetime_function(
        &mut self,
        name: &str,
        args: Vec<ScalarExpr>,
    ) -> Option<Result<ScalarExpr>> {
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let (func, arg_types, ty) = DateTimeFunction::resolve(name, &types)?;
        Some((|| {
            let args = args
                .into_iter()
                .zip(arg_types)
                .map(|(e, t)| self.coerce(e, t, CastContext::Implicit))
                .collect::<Result<Vec<_>>>()?;
            Ok(ScalarExpr::DateTimeFunction { func, args, ty })
        })())
    }
}

/// The unit of EXTRACT as the text date_part reads.
fn field_name(field: &DateTimeField) -> String {
    match field {
        DateTimeField::Custom(ident) => ident.value.to_ascii_lowercase(),
        other => other.to_string().to_ascii_lowercase(),
    }
}

/// `INTERVAL 'text' [fields]`: interval_in with the fields' typmod, which reads a bare
/// number as the last field (`INTERVAL '3' HOUR` is 3 hours) and truncates the value to
/// the fields (`INTERVAL '1 2:03:04' DAY TO MINUTE`).
fn bind_interval_literal(interval: &sqlparser::ast::Interval) -> Result<ScalarExpr> {
    let sqlparser::ast::Interval {
        value,
        leading_field,
        leading_precision,
        last_field,
        fractional_seconds_precision,
    } = interval;
    let unsupported = || Error::unsupported(format!("the interval literal {interval}"));
    let text = match value.as_ref() {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.clone(),
            _ => return Err(unsupported()),
        },
        _ => return Err(unsupported()),
    };
    let range = match (leading_field, last_field) {
        (None, _) => None,
        (Some(first), last) => Some(
            literal_range(first, last.as_ref())
                // `INTERVAL '3' hours` is PostgreSQL's 3 seconds named "hours".
                .ok_or_else(unsupported)?,
        ),
    };
    // sqlparser reads SECOND's `(p)` as its leading precision.
    let precision = match (leading_precision, fractional_seconds_precision) {
        (Some(p), None) if range == Some(IntervalRange::Second) => Some(*p),
        (Some(_), _) | (_, Some(_)) if range == Some(IntervalRange::Second) => {
            return Err(Error::syntax("syntax error at or near \",\""))
        }
        (Some(_), _) => return Err(Error::syntax("syntax error at or near \"(\"")),
        (None, p) => *p,
    };
    let ty = DataType::Interval(interval_typmod(range, precision)?);
    Ok(ScalarExpr::literal(text_io::parse_text(&text, ty)?, ty))
}

/// The fields of an interval literal: PostgreSQL's opt_interval, singular words only.
fn literal_range(first: &DateTimeField, last: Option<&DateTimeField>) -> Option<IntervalRange> {
    use DateTimeField as F;
    Some(match (first, last) {
        (F::Year, None) => IntervalRange::Year,
        (F::Month, None) => IntervalRange::Month,
        (F::Day, None) => IntervalRange::Day,
        (F::Hour, None) => IntervalRange::Hour,
        (F::Minute, None) => IntervalRange::Minute,
        (F::Second, None) => IntervalRange::Second,
        (F::Year, Some(F::Month)) => IntervalRange::YearToMonth,
        (F::Day, Some(F::Hour)) => IntervalRange::DayToHour,
        (F::Day, Some(F::Minute)) => IntervalRange::DayToMinute,
        (F::Day, Some(F::Second)) => IntervalRange::DayToSecond,
        (F::Hour, Some(F::Minute)) => IntervalRange::HourToMinute,
        (F::Hour, Some(F::Second)) => IntervalRange::HourToSecond,
        (F::Minute, Some(F::Second)) => IntervalRange::MinuteToSecond,
        _ => return None,
    })
}
