//! float4/float8 text input and output as PostgreSQL 15 (shortest round-trip, `1e+20`),
//! and PostgreSQL's float ordering. STUB: signatures fixed, bodies to be written.

use std::cmp::Ordering;

use crate::error::Result;

pub fn write_f64(_value: f64, _out: &mut Vec<u8>) {
    unimplemented!()
}
pub fn write_f32(_value: f32, _out: &mut Vec<u8>) {
    unimplemented!()
}
/// float8in: 22P02 on bad syntax, 22003 `"1e999" is out of range for type double precision`.
pub fn parse_f64(_text: &str) -> Result<f64> {
    unimplemented!()
}
pub fn parse_f32(_text: &str) -> Result<f32> {
    unimplemented!()
}
/// PostgreSQL's order: NaN equals NaN and sorts above everything; -0 equals 0.
pub fn total_cmp_f64(_a: f64, _b: f64) -> Ordering {
    unimplemented!()
}
pub fn total_cmp_f32(_a: f32, _b: f32) -> Ordering {
    unimplemented!()
}
