//! UNION, INTERSECT and EXCEPT, with and without ALL. Rows compare as in DISTINCT (NULLs
//! equal each other). The right input is counted first; the left streams through.

use hashbrown::HashMap;

use super::{materialize, BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::SetOperator;
use crate::vector::{encode_row_key, Batch, Vector};

pub struct SetOperationExec {
    left: BoxedOperator,
    right: Option<BoxedOperator>,
    op: SetOperator,
    all: bool,
    /// Right rows by key: how many are left to match (INTERSECT/EXCEPT), or seen (UNION).
    counts: Option<HashMap<Box<[u8]>, i64>>,
    left_done: bool,
}

impl SetOperationExec {
    pub fn new(
        left: BoxedOperator,
        right: BoxedOperator,
        op: SetOperator,
        all: bool,
    ) -> SetOperationExec {
        SetOperationExec {
            left,
            right: Some(right),
            op,
            all,
            counts: None,
            left_done: false,
        }
    }
}

fn keys(batch: &Batch) -> Vec<Vec<u8>> {
    let columns: Vec<&Vector> = batch.columns.iter().map(|c| c.as_ref()).collect();
    (0..batch.len())
        .map(|row| {
            let mut key = Vec::new();
            encode_row_key(&columns, row, &mut key);
            key
        })
        .collect()
}

impl Operator for SetOperationExec {
    #[recursive::recursive]
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.op == SetOperator::Union {
            return self.next_union(ctx);
        }
        if self.counts.is_none() {
            let mut counts: HashMap<Box<[u8]>, i64> = HashMap::new();
            if let Some(mut right) = self.right.take() {
                for batch in materialize(right.as_mut(), ctx)? {
                    for key in keys(&batch) {
                        *counts.entry(key.into_boxed_slice()).or_insert(0) += 1;
                    }
                }
            }
            self.counts = Some(counts);
        }
        let Some(counts) = self.counts.as_mut() else {
            return Ok(None);
        };
        // Keys already emitted by the distinct forms are marked with a count below zero.
        const EMITTED: i64 = i64::MIN;
        while let Some(batch) = self.left.next(ctx)? {
            let mut rows = Vec::new();
            for (row, key) in keys(&batch).into_iter().enumerate() {
                let count = counts.entry(key.into_boxed_slice()).or_insert(0);
                let emit = match (self.op, self.all) {
                    (SetOperator::Intersect, true) => {
                        let hit = *count > 0;
                        if hit {
                            *count -= 1;
                        }
                        hit
                    }
                    (SetOperator::Intersect, false) => {
                        let hit = *count > 0;
                        if hit {
                            *count = EMITTED;
                        }
                        hit
                    }
                    (SetOperator::Except, true) => {
                        if *count > 0 {
                            *count -= 1;
                            false
                        } else {
                            true
                        }
                    }
                    (SetOperator::Except, false) => {
                        let hit = *count == 0;
                        if hit {
                            *count = EMITTED;
                        }
                        hit
                    }
                    (SetOperator::Union, _) => true,
                };
                if emit {
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

impl SetOperationExec {
    fn next_union(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let seen = self.counts.get_or_insert_with(HashMap::new);
        loop {
            ctx.check_cancelled()?;
            let batch = if !self.left_done {
                match self.left.next(ctx)? {
                    Some(b) => b,
                    None => {
                        self.left_done = true;
                        continue;
                    }
                }
            } else {
                match self.right.as_mut() {
                    Some(right) => match right.next(ctx)? {
                        Some(b) => b,
                        None => return Ok(None),
                    },
                    None => return Ok(None),
                }
            };
            if self.all {
                return Ok(Some(batch));
            }
            let mut rows = Vec::new();
            for (row, key) in keys(&batch).into_iter().enumerate() {
                if !seen.contains_key(key.as_slice()) {
                    seen.insert(key.into_boxed_slice(), 1);
                    rows.push(row as u32);
                }
            }
            if !rows.is_empty() {
                return Ok(Some(batch.gather(&rows)));
            }
        }
    }
}
