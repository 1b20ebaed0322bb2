//! Schemas of tables (columns, types, constraints, defaults, indexes) and views, and the
//! system catalogs that describe them to clients.

mod schema;
pub mod system;
mod view;

pub use schema::{ColumnDef, IndexDef, IndexMethod, TableSchema, UniqueKey};
pub use view::ViewDef;
