//! Composite types (CREATE TYPE ... AS (field type, ...)): a named row type standing alone,
//! which PostgreSQL keeps as a pg_class relation of relkind 'c' with its pg_attribute rows
//! and a pg_type row of typtype 'c'. Its OIDs follow a table's ([`super::RELATION_OIDS`]):
//! the relation's, then its array type's, then its row type's, so a value or a column of
//! the type names it by an OID a rename keeps.

use super::QualifiedName;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct CompositeType {
    /// The pg_class OID; the row type is `oid + 2` (`row_type_oid`).
    pub oid: u32,
    pub name: QualifiedName,
    /// The fields' names and types, in order.
    pub fields: Vec<(String, DataType)>,
}
