//! DISTINCT and DISTINCT ON: passes on the first occurrence of each row, or of each value of
//! the DISTINCT ON columns (the input arrives sorted by ORDER BY, so it is the first row of
//! its group in that order).

use hashbrown::HashSet;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::vector::{encode_row_key, Batch, Vector};

pub struct DistinctExec {
    input: BoxedOperator,
    /// The columns that identify duplicates; all when empty.
    on: Vec<usize>,
    seen: HashSet<Box<[u8]>>,
}

impl DistinctExec {
    pub fn new(input: BoxedOperator, on: Vec<usize>) -> DistinctExec {
        DistinctExec {
            input,
            on,
            seen: HashSet::new(),
        }
    }
}

impl Operator for DistinctExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let mut key = Vec::new();
        while let Some(batch) = self.input.next(ctx)? {
            let columns: Vec<&Vector> = if self.on.is_empty() {
                batch.columns.iter().map(|c| c.as_ref()).collect()
            } else {
                self.on.iter().map(|&i| batch.columns[i].as_ref()).collect()
            };
            let mut rows = Vec::new();
            for row in 0..batch.len() {
                key.clear();
                encode_row_key(&columns, row, &mut key);
                if !self.seen.contains(key.as_slice()) {
                    self.seen.insert(key.as_slice().into());
                    rows.push(row as u32);
                }
            }
            if !rows.is_empty() {
                return Ok(Some(batch.gather(&rows)));
            }
        }
        Ok(None)
    }
}
