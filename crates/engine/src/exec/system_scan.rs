//! The rows of a system catalog relation, computed from the statement's snapshot the first
//! time the scan is pulled, then handed out a batch at a time.

use std::sync::Arc;

use super::{ExecContext, Operator};
use crate::catalog::system::{CatalogSnapshot, SystemRelation};
use crate::error::Result;
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, Vector, BATCH_SIZE};

pub struct SystemScanExec {
    relation: &'static SystemRelation,
    types: Vec<DataType>,
    /// Computed on the first pull.
    rows: Option<Vec<Vec<ScalarValue>>>,
    next_row: usize,
}

impl SystemScanExec {
    pub fn new(relation: &'static SystemRelation, types: Vec<DataType>) -> SystemScanExec {
        SystemScanExec {
            relation,
            types,
            rows: None,
            next_row: 0,
        }
    }
}

impl Operator for SystemScanExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let relation = self.relation;
        let rows = self.rows.get_or_insert_with(|| {
            relation.rows(&CatalogSnapshot {
                state: &ctx.state,
                session: &ctx.session,
                settings: ctx.settings.as_deref().map(Vec::as_slice),
                search_path: ctx.search_path.as_deref(),
                setting_changes: &ctx.setting_changes,
                advisory: ctx.advisory.as_deref(),
                cursors: &ctx.cursors,
                prepared_statements: &ctx.prepared_statements,
            })
        });
        if self.next_row >= rows.len() {
            return Ok(None);
        }
        let end = (self.next_row + BATCH_SIZE).min(rows.len());
        let mut columns: Vec<Vector> = self
            .types
            .iter()
            .map(|t| Vector::with_capacity(t.physical(), end - self.next_row))
            .collect();
        for row in &rows[self.next_row..end] {
            for (column, value) in columns.iter_mut().zip(row) {
                column.push_scalar(value)?;
            }
        }
        let len = end - self.next_row;
        self.next_row = end;
        Ok(ctx.read_rows(Some(Batch::new(
            columns.into_iter().map(Arc::new).collect(),
            len,
        ))))
    }
}
