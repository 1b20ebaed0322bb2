//! PostgreSQL's input and output functions: text ⇄ value for every type.
//!
//! Inputs trim the whitespace C's isspace() accepts and word their errors as PostgreSQL 15
//! does, quoting the original input. Character types take their length modifier the way an
//! explicit cast applies it (truncate, then blank-pad `character(n)`).

use super::array_shape::ArrayDim;
use super::{
    bit_string, bytea, datetime, float, float_vector, inet, json, timetz, uuid, DataType, Decimal,
    Interval, ScalarValue,
};
use crate::error::{Error, Result};
use crate::vector::write_int;

/// The input function of `ty`, applying its modifier the way an explicit cast does:
/// `'abc'::varchar(2)` truncates, `'abc'::char(5)` pads, numeric(p,s) rounds or errors.
/// `Char(None)` is bpchar without a length: the text as it is; `timestamp(p)` and the other
/// datetime types round to their precision.
pub fn parse_text(text: &str, ty: DataType) -> Result<ScalarValue> {
    let value = match ty {
        DataType::Unknown | DataType::Text | DataType::Varchar(None) | DataType::Char(None) => {
            ScalarValue::Text(text.to_string())
        }
        DataType::Varchar(Some(n)) => ScalarValue::Text(truncate_chars(text, n).to_string()),
        DataType::Char(Some(n)) => {
            let kept = truncate_chars(text, n);
            let mut value = String::with_capacity(n as usize);
            value.push_str(kept);
            let missing = (n as usize).saturating_sub(kept.chars().count());
            value.extend(std::iter::repeat_n(' ', missing));
            ScalarValue::Text(value)
        }
        DataType::Bool => ScalarValue::Bool(parse_bool(text)?),
        DataType::Int16 => ScalarValue::Int16(parse_i16(text)?),
        DataType::Int32 => ScalarValue::Int32(parse_i32(text)?),
        DataType::Int64 => ScalarValue::Int64(parse_i64(text)?),
        DataType::Float32 => ScalarValue::Float32(float::parse_f32(text)?),
        DataType::Float64 => ScalarValue::Float64(float::parse_f64(text)?),
        DataType::Numeric(typmod) => {
            let value = Decimal::parse(text)?;
            ScalarValue::Numeric(match typmod {
                Some(typmod) => value.apply_typmod(typmod)?,
                None => value,
            })
        }
        DataType::Date => ScalarValue::Date(datetime::parse_date(text)?),
        DataType::Timestamp(_) => ScalarValue::Timestamp(datetime::parse_timestamp(text)?),
        DataType::TimestampTz(_) => ScalarValue::TimestampTz(datetime::parse_timestamptz(text)?),
        DataType::Time(_) => ScalarValue::Time(datetime::parse_time(text)?),
        DataType::TimeTz(_) => ScalarValue::TimeTz(timetz::parse_timetz(text)?),
        DataType::Inet => ScalarValue::Inet(inet::parse_inet(text, false)?),
        DataType::Cidr => ScalarValue::Inet(inet::parse_inet(text, true)?),
        DataType::InternalChar => ScalarValue::Text(super::internal_char::parse(text)),
        DataType::Interval(m) => ScalarValue::Interval(Interval::parse_in(text, m.range)?),
        DataType::Bytea => ScalarValue::Bytea(bytea::parse_bytea(text)?),
        DataType::Uuid => ScalarValue::Uuid(uuid::parse_uuid(text)?),
        DataType::Json => {
            json::validate_json(text)?;
            ScalarValue::Text(text.to_string())
        }
        DataType::Jsonb => ScalarValue::Jsonb(json::jsonb_from_text(text)?),
        DataType::JsonPath => ScalarValue::Text(super::jsonpath::parse(text)?.to_text()),
        DataType::Array(elem) => super::array_text::parse_array(text, *elem)?,
        // The aliases' names are looked up in the catalog before a value gets here.
        DataType::Oid(_) => ScalarValue::Int64(parse_oid(text)?),
        DataType::FloatVector(typmod) => {
            ScalarValue::FloatVector(float_vector::parse_vector(text, typmod)?)
        }
        // So are an enum's labels (see `binder/enum_type.rs`); elsewhere there is no catalog.
        DataType::Enum(_) => return Err(Error::unsupported("enum input outside a query")),
        DataType::Bit(_) | DataType::VarBit(_) => {
            let bits = bit_string::parse_bits(text)?;
            ScalarValue::Text(match bit_string::BitLength::of(ty) {
                Some(length) => length.fitted(&bits, true)?,
                None => bits,
            })
        }
        DataType::Int2Vector | DataType::OidVector => {
            ScalarValue::Array(super::int_vector::parse(text, ty)?)
        }
        DataType::Record(record) if record.type_oid == super::record::RECORD_OID => {
            return Err(Error::unsupported(
                "input of anonymous composite types is not implemented",
            ))
        }
        DataType::Record(record) => ScalarValue::Record(super::record::parse_record(text, record)?),
    };
    super::precision::fit_scalar(value, ty)
}

/// oidin: an unsigned 32-bit number; a negative one down to -2^31 wraps around, as in C.
pub fn parse_oid(text: &str) -> Result<i64> {
    let value = parse_integer(text, i64::from(i32::MIN), i64::from(u32::MAX), "oid")?;
    Ok(value.rem_euclid(1 << 32))
}

/// boolin: t/true/yes/on/1 and f/false/no/off/0, unique prefixes, any case, trimmed.
pub fn parse_bool(text: &str) -> Result<bool> {
    let word = float::trim_pg_space(text).as_bytes();
    let prefix_of = |full: &str, min_len: usize| {
        word.len() >= min_len
            && word.len() <= full.len()
            && word.eq_ignore_ascii_case(&full.as_bytes()[..word.len()])
    };
    let value = match word.first().map(u8::to_ascii_lowercase) {
        Some(b't') if prefix_of("true", 1) => Some(true),
        Some(b'y') if prefix_of("yes", 1) => Some(true),
        Some(b'f') if prefix_of("false", 1) => Some(false),
        Some(b'n') if prefix_of("no", 1) => Some(false),
        // "o" alone is ambiguous between on and off.
        Some(b'o') if prefix_of("on", 2) => Some(true),
        Some(b'o') if prefix_of("off", 2) => Some(false),
        Some(b'1') if word.len() == 1 => Some(true),
        Some(b'0') if word.len() == 1 => Some(false),
        _ => None,
    };
    value.ok_or_else(|| Error::invalid_input("boolean", text))
}

/// int2in/int4in/int8in: trimmed, optional sign; 22P02 on syntax, 22003
/// `value "99999999999" is out of range for type integer`.
pub fn parse_i16(text: &str) -> Result<i16> {
    let value = parse_integer(text, i64::from(i16::MIN), i64::from(i16::MAX), "smallint")?;
    Ok(value as i16)
}
pub fn parse_i32(text: &str) -> Result<i32> {
    let value = parse_integer(text, i64::from(i32::MIN), i64::from(i32::MAX), "integer")?;
    Ok(value as i32)
}
pub fn parse_i64(text: &str) -> Result<i64> {
    parse_integer(text, i64::MIN, i64::MAX, "bigint")
}

/// PostgreSQL 15's pg_strtoint: decimal digits only, and an overflow is reported as soon as
/// the digits exceed the type, before any trailing junk is looked at.
fn parse_integer(text: &str, min: i64, max: i64, type_name: &str) -> Result<i64> {
    let trimmed = text.trim_start_matches(float::is_pg_space);
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let limit = if negative {
        min.unsigned_abs()
    } else {
        max.unsigned_abs()
    };
    let mut magnitude: u64 = 0;
    let mut len = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(b - b'0')))
            .filter(|&m| m <= limit)
            .ok_or_else(|| {
                Error::out_of_range(format!(
                    "value \"{text}\" is out of range for type {type_name}"
                ))
            })?;
        len += 1;
    }
    if len == 0 || !digits[len..].chars().all(float::is_pg_space) {
        return Err(Error::invalid_input(type_name, text));
    }
    Ok(if negative {
        0i64.wrapping_sub_unsigned(magnitude)
    } else {
        magnitude as i64
    })
}

/// The output function of the value's type.
pub fn write_scalar_text(value: &ScalarValue, out: &mut Vec<u8>) {
    match value {
        ScalarValue::Null => {}
        ScalarValue::Bool(b) => out.push(if *b { b't' } else { b'f' }),
        ScalarValue::Int16(v) => write_int(i64::from(*v), out),
        ScalarValue::Int32(v) => write_int(i64::from(*v), out),
        ScalarValue::Int64(v) => write_int(*v, out),
        ScalarValue::Float32(v) => float::write_f32(*v, out),
        ScalarValue::Float64(v) => float::write_f64(*v, out),
        ScalarValue::Numeric(v) => v.write_text(out),
        ScalarValue::Text(s) => out.extend_from_slice(s.as_bytes()),
        ScalarValue::Date(v) => datetime::write_date(*v, out),
        ScalarValue::Timestamp(v) => datetime::write_timestamp(*v, out),
        ScalarValue::TimestampTz(v) => datetime::write_timestamptz(*v, out),
        ScalarValue::Time(v) => datetime::write_time(*v, out),
        ScalarValue::TimeTz(v) => timetz::write_timetz(*v, out),
        ScalarValue::Inet(v) => inet::write_inet(*v, out),
        ScalarValue::Interval(v) => v.write_text(out),
        ScalarValue::Bytea(v) => bytea::write_output(v, out),
        ScalarValue::Uuid(v) => uuid::write_uuid(*v, out),
        ScalarValue::Jsonb(s) => out.extend_from_slice(s.as_bytes()),
        ScalarValue::FloatVector(v) => float_vector::write_vector(v, out),
        ScalarValue::Array(values) => write_array_elements(&[], values, out),
        ScalarValue::ShapedArray(shaped) => {
            write_array_elements(shaped.dims(), shaped.elements(), out)
        }
        ScalarValue::Record(fields) => {
            out.push(b'(');
            let mut scratch = Vec::new();
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                scratch.clear();
                write_scalar_text(field, &mut scratch);
                let text = (!field.is_null()).then_some(&scratch[..]);
                super::record::write_record_field(text, out);
            }
            out.push(b')');
        }
    }
}

/// The first `n` characters of `text`.
fn truncate_chars(text: &str, n: u32) -> &str {
    match text.char_indices().nth(n as usize) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// array_out of scalar elements.
fn write_array_elements(dims: &[ArrayDim], values: &[ScalarValue], out: &mut Vec<u8>) {
    let write = |i: usize, out: &mut Vec<u8>| {
        let value = &values[i];
        !value.is_null() && {
            write_scalar_text(value, out);
            true
        }
    };
    super::array_shape::write_array_text(dims, values.len(), write, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::NumericTypmod;

    fn text(value: ScalarValue) -> String {
        let mut out = Vec::new();
        write_scalar_text(&value, &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    fn parsed(input: &str, ty: DataType) -> String {
        text(parse_text(input, ty).expect("valid input"))
    }

    // Expected values checked against PostgreSQL 15.
    #[test]
    fn booleans() {
        for yes in [
            " tRuE ", "t", "tr", "yes", "ye", "Y", "on", "ON", "1", " 1 ",
        ] {
            assert_eq!(parse_bool(yes).ok(), Some(true), "{yes}");
        }
        for no in ["false", "f", "fa", "N", "no", "of", "off", "0"] {
            assert_eq!(parse_bool(no).ok(), Some(false), "{no}");
        }
        for bad in ["o", "x", "", "truee", "2", "00", "onn"] {
            let err = parse_bool(bad).expect_err(bad);
            assert_eq!(err.sqlstate(), "22P02");
            assert_eq!(
                err.message,
                format!("invalid input syntax for type boolean: \"{bad}\"")
            );
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_i16(" -32768 ").ok(), Some(-32768));
        assert_eq!(parse_i64("+12").ok(), Some(12));
        assert_eq!(parse_i64("-9223372036854775808").ok(), Some(i64::MIN));
        assert_eq!(parse_i32("2147483647").ok(), Some(i32::MAX));
        assert_eq!(parse_i32("-0").ok(), Some(0));
        let err = parse_i32(" 3000000000 ").expect_err("range");
        assert_eq!(err.sqlstate(), "22003");
        assert_eq!(
            err.message,
            "value \" 3000000000 \" is out of range for type integer"
        );
        assert_eq!(
            parse_i16("32768").expect_err("range").message,
            "value \"32768\" is out of range for type smallint"
        );
        assert_eq!(
            parse_i64("9223372036854775808").expect_err("range").message,
            "value \"9223372036854775808\" is out of range for type bigint"
        );
        for bad in ["12a", "", " ", "1.5", "-", "+ 5", "1e3", "0x10"] {
            let err = parse_i32(bad).expect_err(bad);
            assert_eq!(err.sqlstate(), "22P02", "{bad}");
            assert_eq!(
                err.message,
                format!("invalid input syntax for type integer: \"{bad}\"")
            );
        }
    }

    #[test]
    fn typed_input() {
        assert_eq!(parsed("abcdef", DataType::Varchar(Some(3))), "abc");
        assert_eq!(parsed("abcdef", DataType::Char(Some(3))), "abc");
        assert_eq!(parsed("abc", DataType::Char(Some(1))), "a");
        assert_eq!(parsed("ab", DataType::Char(Some(4))), "ab  ");
        assert_eq!(parsed("abc", DataType::Char(None)), "abc");
        assert_eq!(parsed("héllo", DataType::Varchar(Some(2))), "hé");
        assert_eq!(parsed(" x ", DataType::Unknown), " x ");
        assert_eq!(parsed(" 1.50 ", DataType::Numeric(None)), "1.50");
        let typmod = NumericTypmod {
            precision: 5,
            scale: 2,
        };
        assert_eq!(parsed("1.005", DataType::Numeric(Some(typmod))), "1.01");
        assert_eq!(
            parse_text("12345.678", DataType::Numeric(Some(typmod)))
                .expect_err("overflow")
                .message,
            "numeric field overflow"
        );
        assert_eq!(parsed(" 1e20 ", DataType::Float64), "1e+20");
        assert_eq!(parsed("0.1", DataType::Float32), "0.1");
        assert_eq!(parsed("yes", DataType::Bool), "t");
        assert_eq!(parsed("-5", DataType::Int16), "-5");
        assert_eq!(parsed("Jan 5 2024", DataType::Date), "2024-01-05");
        assert_eq!(
            parsed("2024-01-05T01:02:03.5", DataType::Timestamp(None)),
            "2024-01-05 01:02:03.5"
        );
        assert_eq!(text(ScalarValue::Null), "");
        assert_eq!(text(ScalarValue::Bool(false)), "f");
    }
}
