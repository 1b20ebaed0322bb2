//! INSERT ... ON CONFLICT, bound: which unique indexes arbitrate, and what happens to a
//! proposed row that one of them finds already present.

use super::ScalarExpr;

#[derive(Debug, Clone)]
pub struct OnConflict {
    /// Positions in the table's `unique_keys` of the arbiter indexes.
    pub arbiters: Vec<usize>,
    pub action: ConflictAction,
}

#[derive(Debug, Clone)]
pub enum ConflictAction {
    Nothing,
    /// `SET column = expr` and `WHERE`, over the existing row followed by the proposed one
    /// (`excluded`).
    Update {
        assignments: Vec<(usize, ScalarExpr)>,
        filter: Option<ScalarExpr>,
    },
}
