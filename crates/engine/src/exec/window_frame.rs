//! Window frames: for every sorted position of a window layout, the range of positions its
//! frame covers (ROWS, GROUPS and RANGE units, with or without offsets), and the pieces left
//! after the frame's EXCLUDE clause. RANGE offsets follow PostgreSQL's in_range support
//! functions, and the frame head and tail only move forward within a partition (PostgreSQL's
//! update_frameheadpos/update_frametailpos), so every frame costs amortised O(1).

use std::cmp::Ordering;

use super::expression::evaluate_constant;
use super::window::Layout;
use super::ExecContext;
use crate::error::{Error, Result, SqlState};
use crate::function::datetime_arithmetic::{timestamp_minus_interval, timestamp_plus_interval};
use crate::plan::{FrameBound, FrameExclusion, FrameUnits, WindowCall};
use crate::types::datetime::date_to_timestamp;
use crate::types::{timetz, ScalarValue};

/// A frame edge with its offset evaluated.
enum Edge {
    UnboundedPreceding,
    /// The current row's peer group (RANGE, GROUPS).
    CurrentRow,
    UnboundedFollowing,
    /// Rows or peer groups after (positive) or before (negative) the current one.
    Rows(i128),
    Groups(i128),
    /// PostgreSQL's in_range(value, current, offset, sub, less) decides membership.
    Range {
        offset: ScalarValue,
        sub: bool,
    },
}

fn edge(bound: &FrameBound, units: FrameUnits, start: bool, ctx: &ExecContext) -> Result<Edge> {
    let (expr, preceding) = match bound {
        FrameBound::UnboundedPreceding => return Ok(Edge::UnboundedPreceding),
        // In ROWS mode the current row is the row itself, not its peer group.
        FrameBound::CurrentRow if units == FrameUnits::Rows => return Ok(Edge::Rows(0)),
        FrameBound::CurrentRow => return Ok(Edge::CurrentRow),
        FrameBound::UnboundedFollowing => return Ok(Edge::UnboundedFollowing),
        FrameBound::Preceding(e) => (e, true),
        FrameBound::Following(e) => (e, false),
    };
    let which = if start { "starting" } else { "ending" };
    let value = evaluate_constant(expr, ctx)?;
    if value.is_null() {
        return Err(Error::new(
            SqlState::NullValueNotAllowed,
            format!("frame {which} offset must not be null"),
        ));
    }
    let count = || -> Result<i128> {
        match value {
            ScalarValue::Int64(n) if n >= 0 => Ok(if preceding {
                -i128::from(n)
            } else {
                i128::from(n)
            }),
            ScalarValue::Int64(_) => Err(Error::new(
                SqlState::InvalidPrecedingOrFollowingSize,
                format!("frame {which} offset must not be negative"),
            )),
            _ => Err(Error::internal("invariant: ROWS/GROUPS offset is bigint")),
        }
    };
    Ok(match units {
        FrameUnits::Rows => Edge::Rows(count()?),
        FrameUnits::Groups => Edge::Groups(count()?),
        FrameUnits::Range => Edge::Range {
            offset: value.clone(),
            sub: preceding,
        },
    })
}

/// Per sorted position, the frame as a range of positions (start ≤ end, inside the
/// partition).
pub(super) fn frames(
    call: &WindowCall,
    layout: &Layout,
    ctx: &ExecContext,
) -> Result<Vec<(usize, usize)>> {
    let frame = &call.frame;
    let start_edge = edge(&frame.start, frame.units, true, ctx)?;
    let end_edge = edge(&frame.end, frame.units, false, ctx)?;
    let key = call.order_by.first();
    let (descending, nulls_first) = key.map_or((false, false), |k| (k.descending, k.nulls_first));
    let n = layout.order.len();
    let mut out = Vec::with_capacity(n);
    let (mut head, mut tail) = (0, 0);
    for pos in 0..n {
        let (ps, pe) = layout.partition[pos];
        if pos == ps {
            (head, tail) = (ps, ps);
        }
        let range = RangeCheck {
            layout,
            current: pos,
            descending,
            nulls_first,
        };
        let start = match &start_edge {
            Edge::Range { offset, sub } => {
                while head < pe && !range.reaches_head(head, offset, *sub)? {
                    head += 1;
                }
                head
            }
            other => fixed_edge(layout, pos, other, true),
        };
        let end = match &end_edge {
            Edge::Range { offset, sub } => {
                while tail < pe && range.within_tail(tail, offset, *sub)? {
                    tail += 1;
                }
                tail
            }
            other => fixed_edge(layout, pos, other, false),
        };
        let start = start.clamp(ps, pe);
        out.push((start, end.clamp(start, pe)));
    }
    Ok(out)
}

/// An edge that does not depend on the ORDER BY key's values: the first position of the
/// frame (`start`) or one past its last.
fn fixed_edge(layout: &Layout, pos: usize, edge: &Edge, start: bool) -> usize {
    let (ps, pe) = layout.partition[pos];
    let (gs, ge) = layout.peers[pos];
    let clamp = |p: i128| p.clamp(ps as i128, pe as i128) as usize;
    match edge {
        Edge::UnboundedPreceding => ps,
        Edge::UnboundedFollowing => pe,
        Edge::CurrentRow if start => gs,
        Edge::CurrentRow => ge,
        Edge::Rows(k) if start => clamp(pos as i128 + k),
        Edge::Rows(k) => clamp(pos as i128 + k + 1),
        Edge::Groups(k) => {
            let groups = layout.groups_of(pos);
            let target = layout.group_index[pos] as i128 + k;
            let group_start = |g: i128| match usize::try_from(g) {
                Err(_) => ps,
                Ok(g) => groups.get(g).copied().unwrap_or(pe),
            };
            if start {
                group_start(target)
            } else {
                group_start(target + 1).max(ps)
            }
        }
        // Resolved by the caller's two pointers.
        Edge::Range { .. } => pos,
    }
}

/// The RANGE offset test of one row against the current row, with NULL keys ordered by
/// NULLS FIRST/LAST and peers only of each other.
struct RangeCheck<'a> {
    layout: &'a Layout,
    current: usize,
    descending: bool,
    nulls_first: bool,
}

impl RangeCheck<'_> {
    fn key(&self, pos: usize) -> Option<ScalarValue> {
        let column = self.layout.range_key.as_ref()?;
        let row = self.layout.order[pos] as usize;
        column.is_valid(row).then(|| column.get_scalar(row))
    }

    /// Whether `pos` is at or after the frame head.
    fn reaches_head(&self, pos: usize, offset: &ScalarValue, sub: bool) -> Result<bool> {
        match (self.key(pos), self.key(self.current)) {
            (Some(value), Some(current)) => {
                // Descending order flips both the direction and the comparison.
                let (sub, less) = if self.descending {
                    (!sub, true)
                } else {
                    (sub, false)
                };
                in_range(&value, &current, offset, sub, less)
            }
            (value, current) => Ok(if self.nulls_first {
                value.is_some() || current.is_none()
            } else {
                value.is_none() || current.is_some()
            }),
        }
    }

    /// Whether `pos` is at or before the frame tail.
    fn within_tail(&self, pos: usize, offset: &ScalarValue, sub: bool) -> Result<bool> {
        match (self.key(pos), self.key(self.current)) {
            (Some(value), Some(current)) => {
                let (sub, less) = if self.descending {
                    (!sub, false)
                } else {
                    (sub, true)
                };
                in_range(&value, &current, offset, sub, less)
            }
            (value, current) => Ok(if self.nulls_first {
                value.is_none()
            } else {
                current.is_none()
            }),
        }
    }
}

fn invalid_size() -> Error {
    Error::new(
        SqlState::InvalidPrecedingOrFollowingSize,
        "invalid preceding or following size in window function",
    )
}

/// PostgreSQL's in_range: whether `value` ≤ `base` ± `offset` (`less`) or ≥ it.
fn in_range(
    value: &ScalarValue,
    base: &ScalarValue,
    offset: &ScalarValue,
    sub: bool,
    less: bool,
) -> Result<bool> {
    use ScalarValue as V;
    let holds = |ordering: Ordering| {
        if less {
            ordering != Ordering::Greater
        } else {
            ordering != Ordering::Less
        }
    };
    match (value, base, offset) {
        (V::Float32(_) | V::Float64(_), _, V::Float64(offset)) => {
            let (Some(value), Some(base)) = (float(value), float(base)) else {
                return Err(Error::internal("invariant: float RANGE key"));
            };
            in_range_float(value, base, *offset, sub, less)
        }
        (V::Numeric(value), V::Numeric(base), V::Numeric(offset)) => {
            // in_range_numeric_numeric refuses NaN and negative offsets (-Infinity too).
            if !matches!(offset.signum(), Some(0 | 1)) {
                return Err(invalid_size());
            }
            // NaN sorts above everything whatever the offset.
            if value.is_nan() || base.is_nan() {
                return Ok(holds(value.cmp(base)));
            }
            let sum = if sub {
                base.checked_sub(offset)
            } else {
                base.checked_add(offset)
            };
            match sum {
                // Infinity - Infinity: PostgreSQL takes every row.
                Ok(sum) if sum.is_nan() => Ok(true),
                Ok(sum) => Ok(holds(value.cmp(&sum))),
                // A sum past the representable range is past every value, as for integers.
                Err(_) => Ok(sub != less),
            }
        }
        (V::Date(_) | V::Timestamp(_) | V::TimestampTz(_), _, V::Interval(offset)) => {
            if offset.span() < 0 {
                return Err(invalid_size());
            }
            let (value, base) = (micros(value)?, micros(base)?);
            let sum = if sub {
                timestamp_minus_interval(base, *offset)?
            } else {
                timestamp_plus_interval(base, *offset)?
            };
            Ok(holds(value.cmp(&sum)))
        }
        // in_range_time_interval and in_range_timetz_interval: only the offset's time
        // part counts, and the sum does not wrap around the day.
        (V::Time(value), V::Time(base), V::Interval(offset)) => {
            let sum = time_sum(*base, offset.micros, sub)?;
            Ok(holds(i128::from(*value).cmp(&sum)))
        }
        (V::TimeTz(value), V::TimeTz(base), V::Interval(offset)) => {
            let (base_time, zone) = timetz::unpack(*base);
            let sum = time_sum(base_time, offset.micros, sub)?;
            let (value_time, value_zone) = timetz::unpack(*value);
            // timetz_cmp_internal: the UTC time first, then the zone (seconds west).
            let utc = |time: i128, east: i32| (time - i128::from(east) * 1_000_000, -east);
            Ok(holds(
                utc(i128::from(value_time), value_zone).cmp(&utc(sum, zone)),
            ))
        }
        (V::Interval(value), V::Interval(base), V::Interval(offset)) => {
            if offset.span() < 0 {
                return Err(invalid_size());
            }
            let sum = if sub {
                base.checked_sub(*offset)?
            } else {
                base.checked_add(*offset)?
            };
            Ok(holds(value.cmp_span(&sum)))
        }
        // An untyped offset ('1' PRECEDING) takes the key's own integer type.
        (_, _, V::Int16(_) | V::Int32(_) | V::Int64(_)) => {
            let (Some(value), Some(base), Some(offset)) =
                (integer(value), integer(base), integer(offset))
            else {
                return Err(Error::internal("invariant: integer RANGE key"));
            };
            if offset < 0 {
                return Err(invalid_size());
            }
            // i128 cannot overflow, and a sum past the key type's range compares the same.
            let sum = if sub { base - offset } else { base + offset };
            Ok(holds(value.cmp(&sum)))
        }
        _ => Err(Error::internal(format!(
            "invariant: RANGE key {value:?} with offset {offset:?}"
        ))),
    }
}

/// `base` ± `micros` for a time RANGE key, refusing a negative offset.
fn time_sum(base: i64, micros: i64, sub: bool) -> Result<i128> {
    if micros < 0 {
        return Err(invalid_size());
    }
    let (base, micros) = (i128::from(base), i128::from(micros));
    Ok(if sub { base - micros } else { base + micros })
}

/// in_range_float8_float8 (float4 keys are widened): NaN sorts after every number, and
/// ±infinity bounds include everything where base ± offset would be NaN.
fn in_range_float(value: f64, base: f64, offset: f64, sub: bool, less: bool) -> Result<bool> {
    if offset.is_nan() || offset < 0.0 {
        return Err(invalid_size());
    }
    if value.is_nan() {
        return Ok(base.is_nan() || !less);
    }
    if base.is_nan() {
        return Ok(less);
    }
    if offset.is_infinite() && base.is_infinite() && (if sub { base > 0.0 } else { base < 0.0 }) {
        return Ok(true);
    }
    let sum = if sub { base - offset } else { base + offset };
    Ok(if less { value <= sum } else { value >= sum })
}

fn float(value: &ScalarValue) -> Option<f64> {
    match value {
        ScalarValue::Float32(v) => Some(f64::from(*v)),
        ScalarValue::Float64(v) => Some(*v),
        _ => None,
    }
}

fn integer(value: &ScalarValue) -> Option<i128> {
    match value {
        ScalarValue::Int16(v) => Some(i128::from(*v)),
        ScalarValue::Int32(v) => Some(i128::from(*v)),
        ScalarValue::Int64(v) => Some(i128::from(*v)),
        _ => None,
    }
}

/// A date or timestamp key as microseconds (in_range_date_interval compares timestamps).
fn micros(value: &ScalarValue) -> Result<i64> {
    match value {
        ScalarValue::Date(days) => date_to_timestamp(*days),
        ScalarValue::Timestamp(t) | ScalarValue::TimestampTz(t) => Ok(*t),
        other => Err(Error::internal(format!(
            "invariant: datetime RANGE key {other:?}"
        ))),
    }
}

/// The pieces of frame `(start, end)` of position `pos` left after `exclusion`, in order;
/// unused pieces are empty.
pub(super) fn frame_pieces(
    (start, end): (usize, usize),
    pos: usize,
    peers: (usize, usize),
    exclusion: FrameExclusion,
) -> [(usize, usize); 3] {
    let piece = |s: usize, e: usize| (s.max(start), e.min(end).max(s.max(start)));
    let empty = (end, end);
    match exclusion {
        FrameExclusion::NoOthers => [(start, end), empty, empty],
        FrameExclusion::CurrentRow => [piece(start, pos), piece(pos + 1, end), empty],
        FrameExclusion::Group => [piece(start, peers.0), piece(peers.1, end), empty],
        FrameExclusion::Ties => [
            piece(start, peers.0),
            piece(pos, pos + 1),
            piece(peers.1, end),
        ],
    }
}
