//! Schemas of tables (columns, types, constraints, defaults, indexes) and views.

mod schema;
mod view;

pub use schema::{ColumnDef, IndexDef, IndexMethod, TableSchema, UniqueKey};
pub use view::ViewDef;
