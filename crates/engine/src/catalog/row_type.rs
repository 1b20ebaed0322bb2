//! Each table's, materialized view's and view's own composite type, as PostgreSQL makes one
//! with every such relation: the type of a whole-row reference (`SELECT t FROM t`), named
//! like the relation, with an array type `_name` beside it. Nothing is stored for them: a
//! relation's OID comes with the two after it reserved ([`RELATION_OIDS`]), the array
//! type's and the row type's, in PostgreSQL's order, so the OIDs survive a restart with the
//! relation's. A composite type of CREATE TYPE ... AS (...) is such a relation too, one
//! with no rows (relkind 'c').

use super::{CompositeType, QualifiedName, TableSchema, ViewDef};
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

/// Every table, materialized view, view and composite type, each with a row type.
pub fn row_type_relations(state: &DbState) -> impl Iterator<Item = RowTypeRelation<'_>> {
    let tables = state
        .tables
        .values()
        .map(|entry| table_relation(&entry.schema));
    tables
        .chain(state.views.values().map(|view| view_relation(view)))
        .chain((state.composite_types.values()).map(|composite| composite_relation(composite)))
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

fn composite_relation(composite: &CompositeType) -> RowTypeRelation<'_> {
    RowTypeRelation {
        oid: composite.oid,
        name: composite.name.clone(),
        columns: (composite.fields.iter())
            .map(|(n, t)| (n.as_str(), *t))
            .collect(),
    }
}

/// The table, view or composite type `relation_oid`.
fn relation(state: &DbState, relation_oid: u32) -> Option<RowTypeRelation<'_>> {
    if let Some(entry) = state.tables.get(&relation_oid) {
        return Some(table_relation(&entry.schema));
    }
    if let Some(composite) = state.composite_types.get(&relation_oid) {
        return Some(composite_relation(composite));
    }
    (state.views.values())
        .find(|view| view.oid == relation_oid)
        .map(|view| view_relation(view))
}

/// The relation whose row type is `type_oid`.
pub fn row_type_relation(state: &DbState, type_oid: u32) -> Option<RowTypeRelation<'_>> {
    let relation_oid = type_oid.checked_sub(2)?;
    (relation_oid >= FIRST_USER_OID)
        .then(|| relation(state, relation_oid))
        .flatten()
}

/// The composite type (CREATE TYPE ... AS) whose row type is `type_oid`.
pub fn composite_type_of(state: &DbState, type_oid: u32) -> Option<&CompositeType> {
    let relation_oid = type_oid.checked_sub(2)?;
    state.composite_types.get(&relation_oid).map(|c| &**c)
}

/// The relation whose row type's array type is `type_oid`.
pub fn row_array_relation(state: &DbState, type_oid: u32) -> Option<RowTypeRelation<'_>> {
    let relation_oid = type_oid.checked_sub(1)?;
    (relation_oid >= FIRST_USER_OID)
        .then(|| relation(state, relation_oid))
        .flatten()
}

/// The table, view or composite type called `name`, whose row type has that name too.
pub fn row_type_named<'a>(state: &'a DbState, name: &QualifiedName) -> Option<RowTypeRelation<'a>> {
    match state.names.get(name) {
        Some(oid) => state
            .tables
            .get(oid)
            .map(|entry| table_relation(&entry.schema)),
        None => match state.views.get(name) {
            Some(view) => Some(view_relation(view)),
            None => state
                .composite_type_named(name)
                .map(|composite| composite_relation(composite)),
        },
    }
}
