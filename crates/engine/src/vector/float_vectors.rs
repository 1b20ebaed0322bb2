//! The layout of `vector(n)` columns: every row's float4 elements back to back in one flat
//! `Vec<f32>`, with `offsets` marking where each row starts, so distance kernels run over
//! contiguous slices and a chunk holds no per-row allocation. A NULL row (in the parent's
//! validity) owns an empty range.

#[derive(Debug, Clone, PartialEq)]
pub struct FloatVectors {
    /// `offsets[row]..offsets[row + 1]` are the row's elements; one longer than the rows.
    offsets: Vec<u32>,
    values: Vec<f32>,
}

impl FloatVectors {
    /// Room for `rows` rows of `dims` elements each.
    pub fn with_capacity(rows: usize, dims: usize) -> FloatVectors {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        FloatVectors {
            offsets,
            values: Vec::with_capacity(rows * dims),
        }
    }

    /// Rows stored as `offsets` into `values` (read back from disk); `None` unless the
    /// offsets rise from 0 to the number of values.
    pub fn from_parts(offsets: Vec<u32>, values: Vec<f32>) -> Option<FloatVectors> {
        let well_formed = offsets.first() == Some(&0)
            && offsets.last().map(|&end| end as usize) == Some(values.len())
            && offsets.windows(2).all(|pair| pair[0] <= pair[1]);
        well_formed.then_some(FloatVectors { offsets, values })
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Every element of every row.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Row `row`'s elements.
    #[inline]
    pub fn get(&self, row: usize) -> &[f32] {
        &self.values[self.offsets[row] as usize..self.offsets[row + 1] as usize]
    }

    /// The element count every row has, when they all have the same (a `vector(n)` column,
    /// NULL rows aside, which own none): the stride of the flat values.
    pub fn uniform_dims(&self) -> Option<usize> {
        let first = self.offsets.windows(2).find(|w| w[1] > w[0])?;
        let dims = (first[1] - first[0]) as usize;
        self.offsets
            .windows(2)
            .all(|w| w[1] == w[0] || (w[1] - w[0]) as usize == dims)
            .then_some(dims)
    }

    pub fn push(&mut self, values: &[f32]) {
        self.values.extend_from_slice(values);
        self.offsets.push(self.values.len() as u32);
    }

    /// A row built in place: `fill` appends its elements to the flat values.
    pub fn push_with(&mut self, fill: impl FnOnce(&mut Vec<f32>)) {
        fill(&mut self.values);
        self.offsets.push(self.values.len() as u32);
    }

    pub fn push_empty(&mut self) {
        self.offsets.push(self.values.len() as u32);
    }

    pub fn extend_from(&mut self, other: &FloatVectors) {
        let base = self.values.len() as u32;
        self.values.extend_from_slice(&other.values);
        self.offsets
            .extend(other.offsets[1..].iter().map(|&end| base + end));
    }

    pub fn gather(&self, indices: &[u32]) -> FloatVectors {
        let dims = self.uniform_dims().unwrap_or(0);
        let mut out = FloatVectors::with_capacity(indices.len(), dims);
        for &idx in indices {
            out.push(self.get(idx as usize));
        }
        out
    }

    pub fn shrink_to_fit(&mut self) {
        self.offsets.shrink_to_fit();
        self.values.shrink_to_fit();
    }
}
