//! Each table's, materialized view's and view's own composite type, as PostgreSQL makes one
//! with every such relation: the type of a whole-row reference (`SELECT t FROM t`), named
//! like the relation, with an array type `_name` beside it. Nothing is stored for them: a
//! relation's OID comes with the two after it reserved ([`RELATION_OIDS`]), the array
//! type's and the row type's, in PostgreSQL's order, so the OIDs survive a restart with the
//! relation's.

use super::{QualifiedName, TableSchema, ViewDef};
use crate::storage::{DbState, FIRST_USER_OID};
use crate::types::DataType;

/// How many OIDs a table or view takes: its own, its row type's array type's and its row
/// type's.
pub const RELATION_OIDS: u32 = 3;

/// The OID of the row type of relation `relation_oid`.
pub fn row_type_oid(relation_oid: u32) -> u32 {
    relation_oid.wrapping_add(2)
}

/// The OID of the array type of relation `relation_oid`'s row type.
pub fn row_array_oid(relation_oid: u32) -> u32 {
    relation_oid.wrapping_add(1)
}

/// A relation that has a row type: its OID, name and columns.
pub struct RowTypeRelation<'a> {
    pub oid: u32,
    pub name: QualifiedName,
    pub columns: Vec<(&'a str, DataType)>,
}

/// Every table, materialized view and view, each with a row type.
pub fn row_type_relations(state: &DbState) -> impl Iterator<Item = RowTypeRelation<'_>> {
    let tables = state
        .tables
        .values()
        .map(|entry| table_relation(&entry.schema));
    tables.chain(state.views.values().map(|view| view_relation(view)))
}

fn table_relation(schema: &TableSchema) -> RowTypeRelation<'_> {
    RowTypeRelation {
        oid: schema.oid,
        name: QualifiedName::new(schema.namespace, schema.name.as_str()),
        columns: (schema.columns.iter())
            .map(|c| (c.name.as_str(), c.data_type))
            .collect(),
    }
}

fn view_relation(view: &ViewDef) -> RowTypeRelation<'_> {
    RowTypeRelation {
        oid: view.oid,
        name: QualifiedName::new(view.namespace, view.name.as_str()),
        columns: view.columns.iter().map(|(n, t)| (n.as_str(), *t)).collect(),
    }
}

/// The table or view `relation_oid`.
fn relation(state: &DbState, relation_oid: u32) -> Option<RowTypeRelation<'_>> {
    match state.tables.get(&relation_oid) {
        Some(entry) => Some(table_relation(&entry.schema)),
        None => (state.views.values())
            .find(|view| view.oid == relation_oid)
            .map(|view| view_relation(view)),
    }
}

/// The relation whose row type is `type_oid`.
pub fn row_type_relation(state: &DbState, type_oid: u32) -> Option<RowTypeRelation<'_>> {
    let relation_oid = type_oid.checked_sub(2)?;
    (relation_oid >= FIRST_USER_OID)
        .then(|| relation(state, relation_oid))
        .flatten()
}

/// The relation whose row type's array type is `type_oid`.
pub fn row_array_relation(state: &DbState, type_oid: u32) -> Option<RowTypeRelation<'_>> {
    let relation_oid = type_oid.checked_sub(1)?;
    (relation_oid >= FIRST_USER_OID)
        .then(|| relation(state, relation_oid))
        .flatten()
}

/// The table or view called `name`, whose row type has that name too.
pub fn row_type_named<'a>(state: &'a DbState, name: &QualifiedName) -> Option<RowTypeRelation<'a>> {
    match state.names.get(name) {
        Some(oid) => state
            .tables
            .get(oid)
            .map(|entry| table_relation(&entry.schema)),
        None => state.views.get(name).map(|view| view_relation(view)),
    }
}
