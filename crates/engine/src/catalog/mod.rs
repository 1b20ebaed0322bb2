//! Schemas of tables: columns, types, constraints and defaults.

mod schema;

pub use schema::{ColumnDef, IndexDef, IndexMethod, TableSchema, UniqueKey};
