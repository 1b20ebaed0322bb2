//! The column store: committed database versions, tables, chunks, transactions.

/// The committed state of a database and the locks that order its writers.
#[derive(Default)]
pub struct Store {}
