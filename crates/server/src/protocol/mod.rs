//! The PostgreSQL v3 wire format: framing of input, decoding of frontend messages,
//! encoding of backend messages, and the buffered output.

pub(crate) mod backend;
pub(crate) mod frontend;
pub(crate) mod input;
pub(crate) mod output;
pub(crate) mod wait;
