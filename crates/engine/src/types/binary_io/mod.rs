//! PostgreSQL's binary format of values, one codec per type shared by the wire protocol
//! (DataRow, Bind) and COPY in binary: [`send`] writes a column's value, [`recv`] reads
//! one back, [`numeric`] converts NUMERIC to and from base-10000 digits.

mod numeric;
mod recv;
mod send;

pub use recv::{insufficient_data, recv, utf8, INCORRECT_BINARY_FORMAT};
pub use send::write_binary;
