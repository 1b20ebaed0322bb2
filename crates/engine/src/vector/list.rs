//! The layout of array columns, as Arrow's list arrays: per row an `offsets` range into one
//! child vector holding every element of every row, elements NULL or not. A NULL row (in the
//! parent's validity) owns an empty range. A row that is not a plain one-dimensional array
//! keeps its dimensions beside the range ([`crate::types::array_shape`]).

use super::Vector;
use crate::error::Result;
use crate::types::array_shape::{element_count, ArrayDim, ShapedArray, MAX_DIMS};
use crate::types::{PhysicalType, ScalarValue};

/// The dimensions of one row; `None` for a plain one-dimensional array.
pub type RowShape = Option<Box<[ArrayDim]>>;

#[derive(Debug, Clone, PartialEq)]
pub struct ListVec {
    /// `offsets[row]..offsets[row + 1]` are the row's elements in `child`; one longer than
    /// the row count.
    offsets: Vec<u32>,
    child: Box<Vector>,
    /// One per row once some row has a shape; `None` until then, so that columns of plain
    /// arrays carry nothing.
    shapes: Option<Vec<RowShape>>,
}

impl ListVec {
    /// Bytes held: the offsets and the elements.
    pub fn heap_bytes(&self) -> usize {
        let shapes = self.shapes.as_ref().map_or(0, |shapes| {
            shapes.len() * std::mem::size_of::<RowShape>()
                + shapes
                    .iter()
                    .flatten()
                    .map(|dims| std::mem::size_of_val(&**dims))
                    .sum::<usize>()
        });
        self.offsets.len() * 4 + self.child.approximate_bytes() + shapes
    }

    pub fn with_capacity(elem: PhysicalType, rows: usize) -> ListVec {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        ListVec {
            offsets,
            child: Box::new(Vector::with_capacity(elem, rows * 4)),
            shapes: None,
        }
    }

    /// Rows stored as `offsets` into `child` (read back from disk); `None` unless the offsets
    /// rise from 0 to the child's length and the child is not itself a list (an array of
    /// more dimensions is one flat list with its shape).
    pub fn from_parts(offsets: Vec<u32>, child: Vector) -> Option<ListVec> {
        let well_formed = offsets.first() == Some(&0)
            && offsets.last().map(|&end| end as usize) == Some(child.len())
            && offsets.windows(2).all(|pair| pair[0] <= pair[1])
            && !matches!(child.data, super::VectorData::List(_));
        well_formed.then(|| ListVec {
            offsets,
            child: Box::new(child),
            shapes: None,
        })
    }

    /// The same rows with their shapes (read back from disk or the wire); `None` unless there
    /// is one per row and each matches its row's element count.
    pub fn with_shapes(mut self, shapes: Vec<RowShape>) -> Option<ListVec> {
        let fits = shapes.len() == self.len()
            && shapes.iter().enumerate().all(|(row, shape)| {
                shape.as_ref().is_none_or(|dims| {
                    (1..=MAX_DIMS).contains(&dims.len())
                        && element_count(dims) == self.range(row).len()
                })
            });
        if !fits {
            return None;
        }
        self.shapes = shapes.iter().any(Option::is_some).then_some(shapes);
        Some(self)
    }

    /// Row `row`'s dimensions when it is not a plain one-dimensional array.
    pub fn shape(&self, row: usize) -> Option<&[ArrayDim]> {
        self.shapes.as_ref()?.get(row)?.as_deref()
    }

    /// Whether some row is not a plain one-dimensional array.
    pub fn has_shapes(&self) -> bool {
        self.shapes.is_some()
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
            shapes: self.shapes.clone(),
        }
    }

    /// The child rows of `row`.
    pub fn range(&self, row: usize) -> std::ops::Range<usize> {
        self.offsets[row] as usize..self.offsets[row + 1] as usize
    }

    /// Closes the current row after its elements were pushed to the child.
    fn finish_row(&mut self, shape: Option<&[ArrayDim]>) {
        let rows = self.len();
        self.offsets.push(self.child.len() as u32);
        if shape.is_none() && self.shapes.is_none() {
            return;
        }
        self.shapes
            .get_or_insert_with(|| vec![None; rows])
            .push(shape.map(Box::from));
    }

    pub fn push_empty(&mut self) {
        self.finish_row(None);
    }

    /// Appends a plain one-dimensional array.
    pub fn push_values(&mut self, values: &[ScalarValue]) -> Result<()> {
        for value in values {
            self.child.push_scalar(value)?;
        }
        self.finish_row(None);
        Ok(())
    }

    /// Appends an array value; `false` (appending nothing) for any other value.
    pub fn push_array(&mut self, value: &ScalarValue) -> Result<bool> {
        match value {
            ScalarValue::Array(values) => self.push_values(values)?,
            ScalarValue::ShapedArray(array) => self.push_shaped(array)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn push_shaped(&mut self, array: &ShapedArray) -> Result<()> {
        for value in array.elements() {
            self.child.push_scalar(value)?;
        }
        self.finish_row(Some(array.dims()));
        Ok(())
    }

    /// Appends row `row` of `other`.
    pub fn push_from(&mut self, other: &ListVec, row: usize) -> Result<()> {
        for idx in other.range(row) {
            self.child.push_from(&other.child, idx)?;
        }
        self.finish_row(other.shape(row));
        Ok(())
    }

    pub fn extend_from(&mut self, other: &ListVec) -> Result<()> {
        for row in 0..other.len() {
            self.push_from(other, row)?;
        }
        Ok(())
    }

    /// Row `row` as an array value.
    pub fn value(&self, row: usize) -> ScalarValue {
        let elements = self
            .range(row)
            .map(|idx| self.child.get_scalar(idx))
            .collect();
        match self.shape(row) {
            None => ScalarValue::Array(elements),
            Some(dims) => ShapedArray::value(dims.to_vec(), elements),
        }
    }
}
