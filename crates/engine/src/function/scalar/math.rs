//! Math kernels for the integer and floating-point overloads, with PostgreSQL's checks
//! (`value out of range: overflow`, 2201E/2201F for logarithms and powers, ...); the numeric
//! overloads are in [`super::numeric`]. Each kernel dispatches on the argument's physical
//! type once per batch.

use std::cell::Cell;
use std::cmp::Ordering;

use super::kernel::{arg, map_rows, texts, values, Element};
use super::numeric;
use crate::error::{Error, Result, SqlState};
use crate::function::compare::compare_rows;
use crate::types::float::total_cmp_f64;
use crate::types::{Decimal, PhysicalType};
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

/// PostgreSQL's RADIANS_PER_DEGREE (used for degrees() and radians()).
const RADIANS_PER_DEGREE: f64 = 0.017_453_292_519_943_295;

fn physical(args: &[Vector]) -> Result<PhysicalType> {
    Ok(arg(args, 0)?.data.physical())
}

fn unexpected(name: &str, ty: PhysicalType) -> Error {
    Error::internal(format!("{name} of {ty:?}"))
}

/// A float8 function of one argument.
pub(super) fn float_unary(args: &[Vector], f: impl Fn(f64) -> Result<f64>) -> Result<Vector> {
    let x = values::<f64>(args, 0)?;
    map_rows(args, |row| f(x[row]))
}

pub(super) fn unary_num(
    args: &[Vector],
    f: impl Fn(&Decimal) -> Result<Decimal>,
) -> Result<Vector> {
    let x = values::<Decimal>(args, 0)?;
    map_rows(args, |row| f(&x[row]))
}

fn overflow() -> Error {
    Error::out_of_range("value out of range: overflow")
}

fn underflow() -> Error {
    Error::out_of_range("value out of range: underflow")
}

fn input_out_of_range() -> Error {
    Error::out_of_range("input is out of range")
}

/// PostgreSQL's check_float8_val: an infinite result from finite inputs is an overflow.
fn check_overflow(result: f64, inputs_infinite: bool) -> Result<f64> {
    if result.is_infinite() && !inputs_infinite {
        return Err(overflow());
    }
    Ok(result)
}

pub(super) fn abs(args: &[Vector]) -> Result<Vector> {
    fn checked<T: Element>(
        args: &[Vector],
        name: &str,
        abs: impl Fn(T) -> Option<T>,
    ) -> Result<Vector> {
        let x = values::<T>(args, 0)?;
        map_rows(args, |row| {
            abs(x[row]).ok_or_else(|| Error::out_of_range(format!("{name} out of range")))
        })
    }
    match physical(args)? {
        PhysicalType::Int16 => checked::<i16>(args, "smallint", i16::checked_abs),
        PhysicalType::Int32 => checked::<i32>(args, "integer", i32::checked_abs),
        PhysicalType::Int64 => checked::<i64>(args, "bigint", i64::checked_abs),
        PhysicalType::Float32 => checked::<f32>(args, "real", |x| Some(x.abs())),
        PhysicalType::Float64 => float_unary(args, |x| Ok(x.abs())),
        PhysicalType::Numeric => unary_num(args, |x| Ok(x.abs())),
        other => Err(unexpected("abs", other)),
    }
}

/// `round(float8)` rounds half to even (rint); `round(numeric [, scale])` half away from zero.
pub(super) fn round(args: &[Vector]) -> Result<Vector> {
    match (physical(args)?, args.len()) {
        (PhysicalType::Float64, _) => float_unary(args, |x| Ok(x.round_ties_even())),
        (PhysicalType::Numeric, 1) => unary_num(args, |x| x.round(0)),
        (PhysicalType::Numeric, _) => {
            let (x, scale) = (values::<Decimal>(args, 0)?, values::<i32>(args, 1)?);
            map_rows(args, |row| x[row].round(scale[row]))
        }
        (other, _) => Err(unexpected("round", other)),
    }
}

pub(super) fn trunc(args: &[Vector]) -> Result<Vector> {
    match (physical(args)?, args.len()) {
        (PhysicalType::Float64, _) => float_unary(args, |x| Ok(x.trunc())),
        (PhysicalType::Numeric, 1) => unary_num(args, |x| numeric::trunc(x, 0)),
        (PhysicalType::Numeric, _) => {
            let (x, scale) = (values::<Decimal>(args, 0)?, values::<i32>(args, 1)?);
            map_rows(args, |row| numeric::trunc(&x[row], scale[row]))
        }
        (other, _) => Err(unexpected("trunc", other)),
    }
}

pub(super) fn ceil_floor(args: &[Vector], ceil: bool) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 if ceil => float_unary(args, |x| Ok(x.ceil())),
        PhysicalType::Float64 => float_unary(args, |x| Ok(x.floor())),
        PhysicalType::Numeric => unary_num(args, |x| numeric::ceil_floor(x, ceil)),
        other => Err(unexpected("ceil", other)),
    }
}

pub(super) fn sign(args: &[Vector]) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 => float_unary(args, |x| {
            Ok(if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            })
        }),
        PhysicalType::Numeric => unary_num(args, |x| {
            Ok(x.signum()
                .map_or(Decimal::NAN, |sign| Decimal::from_i64(i64::from(sign))))
        }),
        other => Err(unexpected("sign", other)),
    }
}

/// `mod(a, b)`: the remainder with the sign of `a`; 22012 for a zero divisor.
pub(super) fn modulo(args: &[Vector]) -> Result<Vector> {
    fn int<T: Element + PartialEq + From<i8>>(
        args: &[Vector],
        rem: impl Fn(T, T) -> Option<T>,
    ) -> Result<Vector> {
        let (a, b) = (values::<T>(args, 0)?, values::<T>(args, 1)?);
        map_rows(args, |row| {
            if b[row] == T::from(0) {
                return Err(Error::division_by_zero());
            }
            // MIN % -1 overflows the machine instruction but is 0.
            Ok(rem(a[row], b[row]).unwrap_or(T::from(0)))
        })
    }
    match physical(args)? {
        PhysicalType::Int16 => int::<i16>(args, i16::checked_rem),
        PhysicalType::Int32 => int::<i32>(args, i32::checked_rem),
        PhysicalType::Int64 => int::<i64>(args, i64::checked_rem),
        PhysicalType::Numeric => {
            let (a, b) = (values::<Decimal>(args, 0)?, values::<Decimal>(args, 1)?);
            map_rows(args, |row| a[row].checked_rem(&b[row]))
        }
        other => Err(unexpected("mod", other)),
    }
}

/// `gcd(a, b)` and `lcm(a, b)`; results that do not fit the type are 22003.
pub(super) fn gcd_lcm(args: &[Vector], lcm: bool) -> Result<Vector> {
    fn int<T: Element + TryFrom<i128>>(args: &[Vector], lcm: bool, name: &str) -> Result<Vector>
    where
        i128: From<T>,
    {
        let (a, b) = (values::<T>(args, 0)?, values::<T>(args, 1)?);
        map_rows(args, |row| {
            let (a, b) = (i128::from(a[row]), i128::from(b[row]));
            let result = if lcm {
                numeric::lcm(a, b)
            } else {
                numeric::gcd(a, b)
            };
            result
                .and_then(|r| T::try_from(r).ok())
                .ok_or_else(|| Error::out_of_range(format!("{name} out of range")))
        })
    }
    match physical(args)? {
        PhysicalType::Int32 => int::<i32>(args, lcm, "integer"),
        PhysicalType::Int64 => int::<i64>(args, lcm, "bigint"),
        PhysicalType::Numeric => {
            let (a, b) = (values::<Decimal>(args, 0)?, values::<Decimal>(args, 1)?);
            map_rows(args, |row| numeric::gcd_lcm(&a[row], &b[row], lcm))
        }
        other => Err(unexpected("gcd", other)),
    }
}

/// `power(x, y)` with PostgreSQL's dpow checks.
pub(super) fn power(args: &[Vector]) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 => {
            let (x, y) = (values::<f64>(args, 0)?, values::<f64>(args, 1)?);
            map_rows(args, |row| float_power(x[row], y[row]))
        }
        PhysicalType::Numeric => {
            let (x, y) = (values::<Decimal>(args, 0)?, values::<Decimal>(args, 1)?);
            map_rows(args, |row| numeric::power(&x[row], &y[row]))
        }
        other => Err(unexpected("power", other)),
    }
}

fn float_power(x: f64, y: f64) -> Result<f64> {
    if x.is_nan() {
        return Ok(if y.is_nan() || y != 0.0 {
            f64::NAN
        } else {
            1.0
        });
    }
    if y.is_nan() {
        return Ok(if x == 1.0 { 1.0 } else { f64::NAN });
    }
    if x == 0.0 && y < 0.0 {
        return Err(Error::new(
            SqlState::InvalidArgumentForPowerFunction,
            "zero raised to a negative power is undefined",
        ));
    }
    if x < 0.0 && y.floor() != y {
        return Err(Error::new(
            SqlState::InvalidArgumentForPowerFunction,
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    let result = x.powf(y);
    let result = check_overflow(result, x.is_infinite() || y.is_infinite())?;
    if result == 0.0 && x != 0.0 && x.is_finite() && y.is_finite() {
        return Err(underflow());
    }
    Ok(result)
}

pub(super) fn sqrt(args: &[Vector]) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 => float_unary(args, |x| {
            if x < 0.0 {
                return Err(negative_sqrt());
            }
            Ok(x.sqrt())
        }),
        PhysicalType::Numeric => unary_num(args, numeric::sqrt),
        other => Err(unexpected("sqrt", other)),
    }
}

pub(super) fn negative_sqrt() -> Error {
    Error::new(
        SqlState::InvalidArgumentForPowerFunction,
        "cannot take square root of a negative number",
    )
}

/// PostgreSQL calls the C library's cbrt, which on glibc is not correctly rounded
/// (`cbrt(27)` is 3.0000000000000004); this is glibc's algorithm (s_cbrt.c) so that the
/// digits agree: a polynomial first guess, one Halley step, the exponent split by 3.
pub(super) fn cbrt(x: f64) -> Result<f64> {
    const CBRT2: f64 = 1.259_921_049_894_873_2;
    const SQR_CBRT2: f64 = 1.587_401_051_968_199_5;
    const FACTOR: [f64; 5] = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];
    if x == 0.0 || !x.is_finite() {
        return Ok(x + x);
    }
    let (xm, xe) = frexp(x.abs());
    let u = 0.354_895_765_043_919_86
        + ((1.508_191_937_815_849
            + ((-2.114_994_941_673_713
                + ((2.446_931_225_635_344_3
                    + ((-1.834_692_774_836_130_9
                        + (0.784_932_344_976_639_3 - 0.145_263_899_385_486_38 * xm) * xm)
                        * xm))
                    * xm))
                * xm))
            * xm);
    let t2 = u * u * u;
    let ym = u * (t2 + 2.0 * xm) / (2.0 * t2 + xm) * FACTOR[(2 + xe % 3) as usize];
    Ok(ldexp(if x > 0.0 { ym } else { -ym }, xe / 3))
}

/// C's frexp for a finite non-zero `x`: `(m, e)` with `x = m * 2^e`, `0.5 <= |m| < 1`.
fn frexp(x: f64) -> (f64, i32) {
    let (x, extra) = if x.abs() < f64::MIN_POSITIVE {
        (x * f64::from_bits(0x4350_0000_0000_0000), -54) // 2^54: subnormals made normal
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, exponent - 1022 + extra)
}

/// C's ldexp for the exponents cbrt produces (|e| < 400): `x * 2^e`, in two steps where
/// one power of two would leave the normal range.
fn ldexp(x: f64, e: i32) -> f64 {
    let pow2 = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    if e > 1000 {
        x * pow2(1000) * pow2(e - 1000)
    } else if e < -1000 {
        x * pow2(-1000) * pow2(e + 1000)
    } else {
        x * pow2(e)
    }
}

pub(super) fn exp(args: &[Vector]) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 => float_unary(args, |x| {
            let result = x.exp();
            if result.is_infinite() && x.is_finite() {
                return Err(overflow());
            }
            if result == 0.0 && x.is_finite() {
                return Err(underflow());
            }
            Ok(result)
        }),
        PhysicalType::Numeric => unary_num(args, numeric::exp),
        other => Err(unexpected("exp", other)),
    }
}

/// `ln(x)`, or `log(x)` (base 10) when `base10`.
pub(super) fn ln(args: &[Vector], base10: bool) -> Result<Vector> {
    match physical(args)? {
        PhysicalType::Float64 => float_unary(args, |x| {
            check_log_argument(x.partial_cmp(&0.0))?;
            Ok(if base10 { x.log10() } else { x.ln() })
        }),
        PhysicalType::Numeric if base10 => unary_num(args, numeric::log10),
        PhysicalType::Numeric => unary_num(args, numeric::ln),
        other => Err(unexpected("ln", other)),
    }
}

/// 2201E for a logarithm of zero or of a negative number (NaN passes).
pub(super) fn check_log_argument(sign: Option<Ordering>) -> Result<()> {
    let message = match sign {
        Some(Ordering::Equal) => "cannot take logarithm of zero",
        Some(Ordering::Less) => "cannot take logarithm of a negative number",
        _ => return Ok(()),
    };
    Err(Error::new(SqlState::InvalidArgumentForLogarithm, message))
}

pub(super) fn degrees(x: f64) -> Result<f64> {
    check_overflow(x / RADIANS_PER_DEGREE, x.is_infinite())
}

pub(super) fn radians(x: f64) -> Result<f64> {
    check_overflow(x * RADIANS_PER_DEGREE, x.is_infinite())
}

/// sin, cos and tan reject infinite inputs.
fn trig(x: f64, f: fn(f64) -> f64) -> Result<f64> {
    if x.is_nan() {
        return Ok(x);
    }
    if x.is_infinite() {
        return Err(input_out_of_range());
    }
    Ok(f(x))
}

pub(super) fn sin(x: f64) -> Result<f64> {
    trig(x, f64::sin)
}

pub(super) fn cos(x: f64) -> Result<f64> {
    trig(x, f64::cos)
}

pub(super) fn tan(x: f64) -> Result<f64> {
    trig(x, f64::tan)
}

/// cot(0) is Infinity, not an error.
pub(super) fn cot(x: f64) -> Result<f64> {
    trig(x, |x| 1.0 / x.tan())
}

/// asin and acos are defined on [-1, 1].
fn inverse_trig(x: f64, f: fn(f64) -> f64) -> Result<f64> {
    if x.is_nan() {
        return Ok(x);
    }
    if !(-1.0..=1.0).contains(&x) {
        return Err(input_out_of_range());
    }
    Ok(f(x))
}

pub(super) fn asin(x: f64) -> Result<f64> {
    inverse_trig(x, f64::asin)
}

pub(super) fn acos(x: f64) -> Result<f64> {
    inverse_trig(x, f64::acos)
}

pub(super) fn atan2(args: &[Vector]) -> Result<Vector> {
    let (y, x) = (values::<f64>(args, 0)?, values::<f64>(args, 1)?);
    map_rows(args, |row| Ok(y[row].atan2(x[row])))
}

pub(super) fn constant(value: f64, rows: usize) -> Vector {
    Vector::new(VectorData::Float64(vec![value; rows]), None)
}

thread_local! {
    /// xorshift64* state; seeded from the process's random hasher keys on first use.
    static RANDOM_STATE: Cell<u64> = Cell::new(random_seed());
}

fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x9e37_79b9_7f4a_7c15);
    hasher.finish() | 1
}

/// `random()`: uniform in [0, 1), 53 random bits per value.
pub(super) fn random(rows: usize) -> Vector {
    let values = RANDOM_STATE.with(|state| {
        let mut x = state.get();
        let values = (0..rows)
            .map(|_| {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                let bits = x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
                bits as f64 / (1u64 << 53) as f64
            })
            .collect();
        state.set(x);
        values
    });
    Vector::new(VectorData::Float64(values), None)
}

/// `greatest`/`least`: the largest (smallest) non-NULL argument; NULL only if all are.
pub(super) fn greatest_least(args: &[Vector], greatest: bool) -> Result<Vector> {
    use VectorData as D;
    let wanted = if greatest {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    macro_rules! pick {
        ($variant:ident, $cmp:expr) => {
            pick(
                args,
                wanted,
                |d| match d {
                    D::$variant(v) => Some(v.as_slice()),
                    _ => None,
                },
                D::$variant,
                $cmp,
            )
        };
    }
    let physical = physical(args)?;
    match physical {
        PhysicalType::Bool => pick!(Bool, Ord::cmp),
        PhysicalType::Int16 => pick!(Int16, Ord::cmp),
        PhysicalType::Int32 => pick!(Int32, Ord::cmp),
        PhysicalType::Int64 => pick!(Int64, Ord::cmp),
        PhysicalType::Float32 => pick!(Float32, |a: &f32, b: &f32| {
            crate::types::float::total_cmp_f32(*a, *b)
        }),
        PhysicalType::Float64 => pick!(Float64, |a: &f64, b: &f64| total_cmp_f64(*a, *b)),
        PhysicalType::Numeric => pick!(Numeric, Ord::cmp),
        PhysicalType::Date => pick!(Date, Ord::cmp),
        PhysicalType::Timestamp => pick!(Timestamp, Ord::cmp),
        PhysicalType::TimestampTz => pick!(TimestampTz, Ord::cmp),
        PhysicalType::Time => pick!(Time, Ord::cmp),
        PhysicalType::TimeTz => pick!(TimeTz, Ord::cmp),
        PhysicalType::Interval => pick!(Interval, crate::types::Interval::cmp_span),
        PhysicalType::Text => greatest_least_text(args, wanted),
        PhysicalType::Uuid => pick!(Uuid, Ord::cmp),
        PhysicalType::Inet => pick!(Inet, Ord::cmp),
        PhysicalType::Bytes
        | PhysicalType::Jsonb
        | PhysicalType::List(_)
        | PhysicalType::Struct(_)
        | PhysicalType::FloatVector => greatest_least_rows(args, wanted, physical),
    }
}

/// The row-wise pick for types without a typed fast path (arrays), by row comparison.
fn greatest_least_rows(
    args: &[Vector],
    wanted: Ordering,
    physical: PhysicalType,
) -> Result<Vector> {
    let rows = super::kernel::row_count(args);
    let mut out = Vector::with_capacity(physical, rows);
    for row in 0..rows {
        let mut best: Option<&Vector> = None;
        for arg in args.iter().filter(|arg| arg.is_valid(row)) {
            if best.is_none_or(|b| compare_rows(arg, row, b, row) == wanted) {
                best = Some(arg);
            }
        }
        match best {
            Some(best) => out.push_from(best, row),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

/// The row-wise pick over columns of one fixed-width physical type.
fn pick<T: Copy + Default>(
    args: &[Vector],
    wanted: Ordering,
    slice: impl Fn(&VectorData) -> Option<&[T]>,
    wrap: impl Fn(Vec<T>) -> VectorData,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> Result<Vector> {
    let columns = args
        .iter()
        .map(|v| {
            slice(&v.data)
                .ok_or_else(|| Error::internal("greatest/least arguments of different types"))
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = super::kernel::row_count(args);
    let mut out = Vec::with_capacity(rows);
    let mut validity = Bitmap::new(rows, true);
    for row in 0..rows {
        let mut best: Option<T> = None;
        for (arg, column) in args.iter().zip(&columns) {
            if arg.is_valid(row) && best.is_none_or(|b| cmp(&column[row], &b) == wanted) {
                best = Some(column[row]);
            }
        }
        if best.is_none() {
            validity.set(row, false);
        }
        out.push(best.unwrap_or_default());
    }
    let validity = (!validity.all_set()).then_some(validity);
    Ok(Vector::new(wrap(out), validity))
}

/// Text compares by bytes (the C collation), as the rest of the engine.
fn greatest_least_text(args: &[Vector], wanted: Ordering) -> Result<Vector> {
    let rows = super::kernel::row_count(args);
    let columns = (0..args.len())
        .map(|i| texts(args, i))
        .collect::<Result<Vec<_>>>()?;
    let mut out = StringVec::with_capacity(rows, rows * 8);
    let mut validity = Bitmap::new(rows, true);
    for row in 0..rows {
        let mut best: Option<&[u8]> = None;
        for (arg, column) in args.iter().zip(&columns) {
            let value = column.get_bytes(row);
            if arg.is_valid(row) && best.is_none_or(|b| value.cmp(b) == wanted) {
                best = Some(value);
            }
        }
        if best.is_none() {
            validity.set(row, false);
        }
        out.push_with(|buf| buf.extend_from_slice(best.unwrap_or_default()));
    }
    let validity = (!validity.all_set()).then_some(validity);
    Ok(Vector::new(VectorData::Text(out), validity))
}

/// `width_bucket(operand, low, high, count)`: the bucket of `operand` among `count`
/// equal-width buckets, 0 below and count + 1 above (mirrored when low > high).
pub(super) fn width_bucket(args: &[Vector]) -> Result<Vector> {
    let count = values::<i32>(args, 3)?;
    match physical(args)? {
        PhysicalType::Float64 => {
            let (x, low, high) = (
                values::<f64>(args, 0)?,
                values::<f64>(args, 1)?,
                values::<f64>(args, 2)?,
            );
            map_rows(args, |row| {
                float_width_bucket(x[row], low[row], high[row], count[row])
            })
        }
        PhysicalType::Numeric => {
            let (x, low, high) = (
                values::<Decimal>(args, 0)?,
                values::<Decimal>(args, 1)?,
                values::<Decimal>(args, 2)?,
            );
            map_rows(args, |row| {
                check_bucket_count(count[row])?;
                numeric::width_bucket(&x[row], &low[row], &high[row], count[row])
            })
        }
        other => Err(unexpected("width_bucket", other)),
    }
}

pub(super) fn bucket_error(message: &str) -> Error {
    Error::new(SqlState::InvalidArgumentForWidthBucketFunction, message)
}

fn check_bucket_count(count: i32) -> Result<()> {
    if count <= 0 {
        return Err(bucket_error("count must be greater than zero"));
    }
    Ok(())
}

/// The bucket above the last: count + 1, which must fit an integer.
pub(super) fn bucket_above(count: i32) -> Result<i32> {
    count
        .checked_add(1)
        .ok_or_else(|| Error::out_of_range("integer out of range"))
}

fn float_width_bucket(x: f64, low: f64, high: f64, count: i32) -> Result<i32> {
    check_bucket_count(count)?;
    if x.is_nan() || low.is_nan() || high.is_nan() {
        return Err(bucket_error(
            "operand, lower bound, and upper bound cannot be NaN",
        ));
    }
    if low.is_infinite() || high.is_infinite() {
        return Err(bucket_error("lower and upper bounds must be finite"));
    }
    let fraction = |offset: f64, width: f64, half_offset: f64, half_width: f64| {
        if width.is_infinite() {
            half_offset / half_width
        } else {
            offset / width
        }
    };
    let bucket = |quotient: f64| {
        // The quotient can round up to 1.0; that value belongs to the last bucket.
        let result = (f64::from(count) * quotient) as i32;
        result.min(count - 1) + 1
    };
    match low.partial_cmp(&high) {
        Some(Ordering::Less) => Ok(if x < low {
            0
        } else if x >= high {
            bucket_above(count)?
        } else {
            bucket(fraction(
                x - low,
                high - low,
                x / 2.0 - low / 2.0,
                high / 2.0 - low / 2.0,
            ))
        }),
        Some(Ordering::Greater) => Ok(if x > low {
            0
        } else if x <= high {
            bucket_above(count)?
        } else {
            bucket(fraction(
                low - x,
                low - high,
                low / 2.0 - x / 2.0,
                low / 2.0 - high / 2.0,
            ))
        }),
        _ => Err(bucket_error("lower bound cannot equal upper bound")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_buckets() {
        assert_eq!(float_width_bucket(5.35, 0.024, 10.06, 5).ok(), Some(3));
        assert_eq!(float_width_bucket(10.0, 10.0, 0.0, 4).ok(), Some(1));
        assert_eq!(float_width_bucket(10.0, 0.0, 10.0, 4).ok(), Some(5));
        assert_eq!(float_width_bucket(-1.0, 0.0, 10.0, 4).ok(), Some(0));
        assert!(float_width_bucket(1.0, 1.0, 1.0, 4).is_err());
    }

    #[test]
    fn cbrt_as_glibc() {
        assert_eq!(cbrt(27.0).ok(), Some(3.000_000_000_000_000_4));
        assert_eq!(cbrt(2.0).ok(), Some(1.259_921_049_894_873_4));
        assert_eq!(cbrt(-8.0).ok(), Some(-2.0));
        assert_eq!(
            cbrt(1e-310)
                .map(|r| (r / 4.641_588_833_612_779e-104 - 1.0).abs() < 1e-15)
                .ok(),
            Some(true)
        );
    }

    #[test]
    fn power_errors() {
        assert!(float_power(0.0, -1.0).is_err());
        assert!(float_power(-8.0, 1.0 / 3.0).is_err());
        assert!(float_power(10.0, 400.0).is_err());
        assert_eq!(float_power(f64::NAN, 0.0).ok(), Some(1.0));
    }
}
