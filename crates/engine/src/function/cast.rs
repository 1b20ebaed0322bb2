//! Casts between types with PostgreSQL's rules (pg_cast): which casts exist in which context,
//! and the conversion of whole vectors. STUB: signatures fixed, bodies to be written.

use crate::error::Result;
use crate::types::{DataType, ScalarValue};
use crate::vector::Vector;

/// Where a cast happens, as pg_cast's castcontext: `CAST`/`::` is Explicit; storing into a
/// column (INSERT/UPDATE) is Assignment; an operator or function argument is Implicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastContext {
    Implicit,
    Assignment,
    Explicit,
}

/// Whether PostgreSQL allows casting `from` to `to` in `context` (Unknown casts to anything).
pub fn can_cast(_from: DataType, _to: DataType, _context: CastContext) -> bool {
    unimplemented!()
}

/// Converts every row of `input` (of type `from`) to `to`, with PostgreSQL's errors
/// (22003 `integer out of range`, 22P02 for bad text input, 22001
/// `value too long for type character varying(3)` on assignment, ...). NULL stays NULL.
pub fn cast_vector(
    _input: &Vector,
    _from: DataType,
    _to: DataType,
    _context: CastContext,
) -> Result<Vector> {
    unimplemented!()
}

/// The same for one value.
pub fn cast_scalar(
    _value: &ScalarValue,
    _from: DataType,
    _to: DataType,
    _context: CastContext,
) -> Result<ScalarValue> {
    unimplemented!()
}
