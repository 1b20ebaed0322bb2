//! The layout of array columns, as Arrow's list arrays: per row an `offsets` range into one
//! child vector holding every element of every row, elements NULL or not. A NULL row (in the
//! parent's validity) owns an empty range.

use super::Vector;
use crate::error::Result;
use crate::types::{PhysicalType, ScalarValue};

#[derive(Debug, Clone, PartialEq)]
pub struct ListVec {
    /// `offsets[row]..offsets[row + 1]` are the row's elements in `child`; one longer than
    /// the row count.
    offsets: Vec<u32>,
    child: Box<Vector>,
}

impl ListVec {
    /// Bytes held: the offsets and the elements.
    pub fn heap_bytes(&self) -> usize {
        self.offsets.len() * 4 + self.child.approximate_bytes()
    }

    pub fn with_capacity(elem: PhysicalType, rows: usize) -> ListVec {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        ListVec {
            offsets,
            child: Box::new(Vector::with_capacity(elem, rows * 4)),
        }
    }

    /// Rows stored as `offsets` into `child` (read back from disk); `None` unless the offsets
    /// rise from 0 to the child's length and the child is not itself a list (arrays are
    /// one-dimensional).
    pub fn from_parts(offsets: Vec<u32>, child: Vector) -> Option<ListVec> {
        let well_formed = offsets.first() == Some(&0)
            && offsets.last().map(|&end| end as usize) == Some(child.len())
            && offsets.windows(2).all(|pair| pair[0] <= pair[1])
            && !matches!(child.data, super::VectorData::List(_));
        well_formed.then(|| ListVec {
            offsets,
            child: Box::new(child),
        })
    }

    /// Row `i`'s elements are `offsets[i]..offsets[i + 1]` of the child.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn elem_physical(&self) -> PhysicalType {
        self.child.data.physical()
    }

    /// The element vector shared by all rows.
    pub fn child(&self) -> &Vector {
        &self.child
    }

    /// The same rows over another child of as many elements (an element-wise cast).
    pub fn with_child(&self, child: Vector) -> ListVec {
        ListVec {
            offsets: self.offsets.clone(),
            child: Box::new(child),
        }
    }

    /// The child rows of `row`.
    pub fn range(&self, row: usize) -> std::ops::Range<usize> {
        self.offsets[row] as usize..self.offsets[row + 1] as usize
    }

    /// Closes the current row after its elements were pushed to the child.
    fn finish_row(&mut self) {
        self.offsets.push(self.child.len() as u32);
    }

    pub fn push_empty(&mut self) {
        self.finish_row();
    }

    pub fn push_values(&mut self, values: &[ScalarValue]) -> Result<()> {
        for value in values {
            self.child.push_scalar(value)?;
        }
        self.finish_row();
        Ok(())
    }

    /// Appends row `row` of `other`.
    pub fn push_from(&mut self, other: &ListVec, row: usize) -> Result<()> {
        for idx in other.range(row) {
            self.child.push_from(&other.child, idx)?;
        }
        self.finish_row();
        Ok(())
    }

    pub fn extend_from(&mut self, other: &ListVec) -> Result<()> {
        for row in 0..other.len() {
            self.push_from(other, row)?;
        }
        Ok(())
    }

    /// The elements of `row` as scalars.
    pub fn values(&self, row: usize) -> Vec<ScalarValue> {
        self.range(row)
            .map(|idx| self.child.get_scalar(idx))
            .collect()
    }
}
