//! Schemas (namespaces), and the schemas of tables (columns, types, constraints, defaults,
//! indexes) and views, and the system catalogs that describe them to clients.

mod composite_type;
mod domain;
mod enum_type;
mod extension;
mod foreign;
mod foreign_key;
mod function;
mod hnsw;
mod materialized_view;
mod namespace;
pub mod partition;
pub mod password;
mod privilege;
mod role;
pub mod role_setting;
mod row_type;
mod schema;
mod search_path;
pub mod system;
mod view;

pub use composite_type::CompositeType;
pub use domain::{Domain, DomainCheck};
pub use enum_type::{CommittedEnum, EnumLabel, EnumType, LabelPosition};
pub use extension::{Extension, AVAILABLE as AVAILABLE_EXTENSIONS};
pub use foreign::{ForeignServer, ForeignTable, UserMapping, FILE_FDW};
pub use foreign_key::{key_cast, ConstraintChecks, ForeignKey, KeyCast, ReferentialAction};
pub use function::{
    signature, FunctionArg, FunctionBody, FunctionDef, FunctionReturn, ParamMode, Volatility,
    RECORD_OID,
};
pub use hnsw::{HnswOptions, VectorOpClass};
pub use materialized_view::MaterializedView;
pub use namespace::{
    temp_schema_name, QualifiedName, SchemaDef, INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PG_TEMP,
    PUBLIC_OID,
};
pub use privilege::{
    acl_text, change_acl, default_acl, invalid_privilege_type, AclChange, AclItem, AclMode,
    ColumnPrivileges, ObjectKind, ObjectPrivileges, PrivilegeCatalog, COLUMN_PRIVILEGES,
    DATABASE_OWNER, PUBLIC_GRANTEE,
};
pub use role::{missing_role, Membership, Role, RoleCatalog, SessionRole, BOOTSTRAP_SUPERUSER};
pub use role_setting::RoleSettings;
pub use row_type::{
    composite_type_of, row_array_oid, row_array_relation, row_type_named, row_type_oid,
    row_type_relation, row_type_relations, RowTypeRelation, RELATION_OIDS,
};
pub use schema::{
    CheckConstraint, ColumnDef, Constraint, ConstraintKind, Identity, IndexDef, IndexExpr,
    IndexKey, IndexMethod, StoredExpr, TableSchema, UniqueKey,
};
pub use search_path::{quote_identifier, split_identifiers, SearchPath};
pub use view::{sql_mentions, ViewCheckOption, ViewDef};
