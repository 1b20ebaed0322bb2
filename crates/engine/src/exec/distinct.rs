//! DISTINCT: passes on the first occurrence of each row.

use hashbrown::HashSet;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::vector::{encode_row_key, Batch, Vector};

pub struct DistinctExec {
    input: BoxedOperator,
    seen: HashSet<Box<[u8]>>,
}

impl DistinctExec {
    pub fn new(input: BoxedOperator) -> DistinctExec {
        DistinctExec {
            input,
            seen: HashSet::new(),
        }
    }
}

impl Operator for DistinctExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let mut key = Vec::new();
        while let Some(batch) = self.input.next(ctx)? {
            let columns: Vec<&Vector> = batch.columns.iter().map(|c| c.as_ref()).collect();
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
