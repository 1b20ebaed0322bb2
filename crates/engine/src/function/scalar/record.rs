//! Building and taking apart composite values: `ROW(a, b)` (and `(a, b)` in a select
//! list) and the field selection `(expr).field`. A record column is a struct vector of
//! one child per field (see [`crate::vector::StructVec`]), so both are a move of vectors.

use crate::error::{Error, Result};
use crate::types::record::RecordType;
use crate::vector::{Bitmap, StructVec, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordFunction {
    /// `ROW(...)`: a record of its arguments, never NULL itself.
    Row(&'static RecordType),
    /// `(record).field`: the field at this position, NULL where the record is.
    Field(usize),
}

impl RecordFunction {
    pub fn name(self) -> &'static str {
        match self {
            RecordFunction::Row(_) => "row",
            RecordFunction::Field(_) => "fieldselect",
        }
    }

    pub fn eval(self, args: &[Vector], rows: usize) -> Result<Vector> {
        match self {
            RecordFunction::Row(record) => {
                let built = StructVec::from_children(record, args.to_vec(), rows)
                    .ok_or_else(|| Error::internal("ROW fields of other types than its record"))?;
                Ok(Vector::new(VectorData::Struct(built), None))
            }
            RecordFunction::Field(index) => {
                let [input] = args else {
                    return Err(Error::internal("a field selection of one record"));
                };
                let VectorData::Struct(record) = &input.data else {
                    return Err(Error::internal("a field selection from a non-record"));
                };
                let mut field = record
                    .children()
                    .get(index)
                    .cloned()
                    .ok_or_else(|| Error::internal("a field past the record's end"))?;
                if let Some(records) = &input.validity {
                    let len = field.len();
                    let valid = field.validity.get_or_insert_with(|| Bitmap::new(len, true));
                    for row in (0..len).filter(|&row| !records.get(row)) {
                        valid.set(row, false);
                    }
                }
                Ok(field)
            }
        }
    }
}
