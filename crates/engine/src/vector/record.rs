//! The layout of record columns: one child vector per field, each as long as the record
//! column, as Arrow's struct arrays. A NULL record (in the parent's validity) has NULL in
//! every child.

use super::Vector;
use crate::error::{Error, Result};
use crate::types::record::RecordType;
use crate::types::ScalarValue;

#[derive(Debug, Clone, PartialEq)]
pub struct StructVec {
    record: &'static RecordType,
    children: Vec<Vector>,
    len: usize,
}

impl StructVec {
    pub fn with_capacity(record: &'static RecordType, rows: usize) -> StructVec {
        let children = record
            .fields
            .iter()
            .map(|f| Vector::with_capacity(f.ty.physical(), rows))
            .collect();
        StructVec {
            record,
            children,
            len: 0,
        }
    }

    /// `len` records whose fields are `children` (each of the field's physical type and
    /// `len` long); `None` when they do not fit `record`.
    pub fn from_children(
        record: &'static RecordType,
        children: Vec<Vector>,
        len: usize,
    ) -> Option<StructVec> {
        let fits = children.len() == record.fields.len()
            && children
                .iter()
                .zip(&record.fields)
                .all(|(c, f)| c.len() == len && c.data.physical() == f.ty.physical());
        fits.then_some(StructVec {
            record,
            children,
            len,
        })
    }

    pub fn record(&self) -> &'static RecordType {
        self.record
    }

    pub fn children(&self) -> &[Vector] {
        &self.children
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn heap_bytes(&self) -> usize {
        self.children.iter().map(Vector::approximate_bytes).sum()
    }

    /// The row of a NULL record: NULL fields.
    pub fn push_empty(&mut self) {
        self.children.iter_mut().for_each(Vector::push_null);
        self.len += 1;
    }

    pub fn push_values(&mut self, values: &[ScalarValue]) -> Result<()> {
        if values.len() != self.children.len() {
            return Err(Error::internal("a record value of another field count"));
        }
        for (child, value) in self.children.iter_mut().zip(values) {
            child.push_scalar(value)?;
        }
        self.len += 1;
        Ok(())
    }

    /// Appends row `row` of `other`, a record of the same fields.
    pub fn push_from(&mut self, other: &StructVec, row: usize) -> Result<()> {
        if other.children.len() != self.children.len() {
            return Err(Error::internal("a record of another field count"));
        }
        for (child, theirs) in self.children.iter_mut().zip(&other.children) {
            child.push_from(theirs, row)?;
        }
        self.len += 1;
        Ok(())
    }

    pub fn extend_from(&mut self, other: &StructVec) -> Result<()> {
        if other.children.len() != self.children.len() {
            return Err(Error::internal("a record of another field count"));
        }
        for (child, theirs) in self.children.iter_mut().zip(&other.children) {
            child.extend(theirs)?;
        }
        self.len += other.len;
        Ok(())
    }

    pub fn gather(&self, indices: &[u32]) -> StructVec {
        StructVec {
            record: self.record,
            children: self.children.iter().map(|c| c.gather(indices)).collect(),
            len: indices.len(),
        }
    }

    /// The fields of `row` as scalars.
    pub fn values(&self, row: usize) -> Vec<ScalarValue> {
        self.children.iter().map(|c| c.get_scalar(row)).collect()
    }

    /// record_out: `(1,abc)`, each field written by its type's output function and quoted
    /// when PostgreSQL would.
    pub fn write_text(&self, row: usize, out: &mut Vec<u8>) {
        out.push(b'(');
        let mut scratch = Vec::new();
        for (i, child) in self.children.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            scratch.clear();
            let valid = child.write_text(row, &mut scratch);
            crate::types::record::write_record_field(valid.then_some(&scratch[..]), out);
        }
        out.push(b')');
    }
}
