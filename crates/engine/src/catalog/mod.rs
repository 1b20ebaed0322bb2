//! Schemas (namespaces), and the schemas of tables (columns, types, constraints, defaults,
//! indexes) and views, and the system catalogs that describe them to clients.

mod enum_type;
mod foreign_key;
mod hnsw;
mod namespace;
mod schema;
mod search_path;
pub mod system;
mod view;

pub use enum_type::{CommittedEnum, EnumLabel, EnumType, LabelPosition};
pub use foreign_key::{key_cast, ConstraintChecks, ForeignKey, KeyCast, ReferentialAction};
pub use hnsw::{HnswOptions, VectorOpClass};
pub use namespace::{QualifiedName, SchemaDef, INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PUBLIC_OID};
pub use schema::{
    CheckConstraint, ColumnDef, Constraint, ConstraintKind, Identity, IndexDef, IndexMethod,
    StoredExpr, TableSchema, UniqueKey,
};
pub use search_path::{quote_identifier, split_identifiers, SearchPath};
pub use view::ViewDef;
