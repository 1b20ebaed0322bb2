//! Several set-returning functions run in lockstep (a select list's, as PostgreSQL 10+ runs
//! them): row i holds each function's i-th value, NULL for a function that has run out,
//! until every one has.

use std::sync::Arc;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::types::DataType;
use crate::vector::{Batch, Vector, BATCH_SIZE, NULL_ROW};

pub struct LockstepExec {
    functions: Vec<Function>,
}

/// One function's rows not handed out yet.
struct Function {
    rows: BoxedOperator,
    ty: DataType,
    /// Its current batch's single column and the first row not handed out.
    pending: Option<(Arc<Vector>, usize)>,
    done: bool,
}

impl LockstepExec {
    pub fn new(functions: Vec<BoxedOperator>, types: Vec<DataType>) -> LockstepExec {
        LockstepExec {
            functions: functions
                .into_iter()
                .zip(types)
                .map(|(rows, ty)| Function {
                    rows,
                    ty,
                    pending: None,
                    done: false,
                })
                .collect(),
        }
    }
}

impl Function {
    /// Rows available now, fetching the next non-empty batch if needed; 0 once done.
    fn available(&mut self, ctx: &ExecContext) -> Result<usize> {
        while !self.done {
            if let Some((column, offset)) = &self.pending {
                if *offset < column.len() {
                    return Ok(column.len() - offset);
                }
            }
            match self.rows.next(ctx)? {
                Some(batch) => self.pending = batch.columns.into_iter().next().map(|c| (c, 0)),
                None => {
                    self.pending = None;
                    self.done = true;
                }
            }
        }
        Ok(0)
    }

    /// The next `rows` values, NULLs once the function has run out.
    fn take(&mut self, rows: usize) -> Vector {
        let indices: Vec<u32> = match &mut self.pending {
            Some((_, offset)) if !self.done => {
                let start = *offset;
                *offset += rows;
                (start..start + rows).map(|i| i as u32).collect()
            }
            _ => vec![NULL_ROW; rows],
        };
        match &self.pending {
            Some((column, _)) if !self.done => column.gather(&indices),
            _ => Vector::with_capacity(self.ty.physical(), 0).gather_or_null(&indices),
        }
    }
}

impl Operator for LockstepExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let mut rows = None;
        for function in &mut self.functions {
            let available = function.available(ctx)?;
            if !function.done {
                rows = Some(rows.map_or(available, |r: usize| r.min(available)));
            }
        }
        let Some(rows) = rows.map(|r| r.min(BATCH_SIZE)) else {
            return Ok(None);
        };
        let columns = self
            .functions
            .iter_mut()
            .map(|f| Arc::new(f.take(rows)))
            .collect();
        Ok(Some(Batch::new(columns, rows)))
    }
}
