//! PostgreSQL's input and output functions: text ⇄ value for every type.
//! STUB: signatures fixed, bodies to be written.

use super::{DataType, ScalarValue};
use crate::error::Result;

/// The input function of `ty`, applying its modifier the way an explicit cast does:
/// `'abc'::varchar(2)` truncates, `'abc'::char(5)` pads, numeric(p,s) rounds or errors.
pub fn parse_text(_text: &str, _ty: DataType) -> Result<ScalarValue> {
    unimplemented!()
}
/// boolin: t/true/yes/on/1 and f/false/no/off/0, unique prefixes, any case, trimmed.
pub fn parse_bool(_text: &str) -> Result<bool> {
    unimplemented!()
}
/// int2in/int4in/int8in: trimmed, optional sign; 22P02 on syntax, 22003
/// `value "99999999999" is out of range for type integer`.
pub fn parse_i16(_text: &str) -> Result<i16> {
    unimplemented!()
}
pub fn parse_i32(_text: &str) -> Result<i32> {
    unimplemented!()
}
pub fn parse_i64(_text: &str) -> Result<i64> {
    unimplemented!()
}
/// The output function of the value's type.
pub fn write_scalar_text(_value: &ScalarValue, _out: &mut Vec<u8>) {
    unimplemented!()
}
