//! What depends on an enum or composite type, in the order PostgreSQL's DROP reports it,
//! and DROP TYPE ... CASCADE of them: table columns of the type go (ALTER TABLE DROP
//! COLUMN), with the views reading them; views naming the type go; fields of other
//! composite types go from them.
//!
//! PostgreSQL visits an object's dependents newest first (OID descending, a relation's
//! columns in attnum order) and reports them in the reverse of the order it finished them,
//! so the report runs oldest relation first, a relation's columns last to first, each
//! column followed by the views reading it. Columns of the type's array type come first,
//! reached through the array type, which is internal to the type and not reported.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::ExecContext;
use crate::api::Notice;
use crate::catalog::{CompositeType, QualifiedName, ViewDef};
use crate::error::{Error, Result};
use crate::storage::{DbState, Transaction};
use crate::types::DataType;

/// The type being dropped: its OID (none for a built-in type), its name as the messages
/// show it, and which types are it and its array type.
pub(super) struct DroppedType<'a> {
    pub oid: Option<u32>,
    pub name: &'a str,
    pub is_type: &'a dyn Fn(DataType) -> bool,
    pub is_array: &'a dyn Fn(DataType) -> bool,
}

/// An object depending on the dropped type, directly or through another dependent.
#[derive(PartialEq)]
enum Dependent {
    /// Column `column` of the table of OID `table`.
    Column {
        table: u32,
        column: usize,
    },
    /// Field `field` of the composite type of OID `composite`.
    Field {
        composite: u32,
        field: usize,
    },
    View(QualifiedName),
}

/// A dependent with its DETAIL line's parts: what it is, and what it depends on.
struct Found {
    dependent: Dependent,
    shown: String,
    on: String,
}

/// The dependents of `dropped`, as PostgreSQL's DETAIL lines name them (`column c of
/// table t depends on type e`), in its order.
pub(super) fn type_dependents(state: &DbState, dropped: &DroppedType) -> Vec<String> {
    (find(state, dropped).iter())
        .map(|found| format!("{} depends on {}", found.shown, found.on))
        .collect()
}

/// Before type `dropped` goes: without `cascade`, 2BP01 if anything depends on it; with
/// it, the NOTICE naming what goes with it, and those dependents dropped.
pub(super) fn drop_type_dependents(
    txn: &mut Transaction,
    dropped: &DroppedType,
    cascade: bool,
    notices: &mut Vec<Notice>,
    ctx: &ExecContext,
) -> Result<()> {
    let state = txn.view();
    let found = find(&state, dropped);
    if found.is_empty() {
        return Ok(());
    }
    if !cascade {
        let lines: Vec<String> = (found.iter())
            .map(|found| format!("{} depends on {}", found.shown, found.on))
            .collect();
        let object = format!("type {}", dropped.name);
        return Err(super::drop_dependents::dependents_still_exist(
            &object, &lines,
        ));
    }
    let shown: Vec<String> = found.iter().map(|found| found.shown.clone()).collect();
    notices.push(super::drop_dependents::cascade_notice(&shown));
    let mut columns: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut fields: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for found in found {
        match found.dependent {
            Dependent::View(name) => {
                txn.lock_name(&name)?;
                txn.put_view(&name, None);
            }
            Dependent::Column { table, column } => columns.entry(table).or_default().push(column),
            Dependent::Field { composite, field } => {
                fields.entry(composite).or_default().push(field)
            }
        }
    }
    for (table, dropped_columns) in columns {
        super::alter_table::drop_columns(txn, table, &dropped_columns, ctx)?;
    }
    for (composite, dropped_fields) in fields {
        drop_fields(txn, composite, &dropped_fields)?;
    }
    Ok(())
}

/// Composite type `oid` without fields `dropped`. Its values elsewhere would keep the
/// old fields, so a type in use is not changed here (0A000).
fn drop_fields(txn: &mut Transaction, oid: u32, dropped: &[usize]) -> Result<()> {
    let state = txn.view();
    let Some(composite) = state.composite_types.get(&oid) else {
        return Ok(());
    };
    txn.lock_name(&composite.name)?;
    let is_type = |ty: DataType| super::composite_type::is_row_type_of(ty, oid);
    let used = DroppedType {
        oid: Some(oid),
        name: &composite.name.name,
        is_type: &is_type,
        is_array: &|_| false,
    };
    if !find(&state, &used).is_empty() {
        return Err(Error::unsupported(format!(
            "DROP TYPE ... CASCADE of a field of composite type {}, which is in use,",
            composite.name.name
        )));
    }
    let kept = (composite.fields.iter().enumerate())
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, field)| field.clone())
        .collect();
    let changed = CompositeType {
        fields: kept,
        ..(**composite).clone()
    };
    txn.put_composite_type(oid, Some(changed));
    Ok(())
}

/// Everything depending on `dropped`, in PostgreSQL's report order.
fn find(state: &DbState, dropped: &DroppedType) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    let array_name = format!("type {}[]", dropped.name);
    let type_name = format!("type {}", dropped.name);
    push_columns(state, dropped.is_array, &array_name, &mut found);
    // The direct dependents, by OID: tables' columns, composite types' fields and views
    // naming the type.
    let mut direct: Vec<(u32, Found)> = Vec::new();
    let mut columns = Vec::new();
    push_columns(state, dropped.is_type, &type_name, &mut columns);
    for column in columns {
        let Dependent::Column { table, .. } = column.dependent else {
            continue;
        };
        direct.push((table, column));
    }
    for composite in state.composite_types.values() {
        for (field, (name, ty)) in composite.fields.iter().enumerate().rev() {
            if (dropped.is_type)(*ty) {
                let dependent = Dependent::Field {
                    composite: composite.oid,
                    field,
                };
                let shown = format!("column {name} of composite type {}", composite.name.name);
                let on = type_name.clone();
                direct.push((
                    composite.oid,
                    Found {
                        dependent,
                        shown,
                        on,
                    },
                ));
            }
        }
    }
    for view in views_naming(state, dropped) {
        let dependent = Dependent::View(view.qualified_name());
        let shown = format!("view {}", view.name);
        let on = type_name.clone();
        direct.push((
            view.oid,
            Found {
                dependent,
                shown,
                on,
            },
        ));
    }
    direct.sort_by_key(|(oid, _)| *oid);
    for (_, dependent) in direct {
        if is_found(&found, &dependent.dependent) {
            continue;
        }
        let readers = match &dependent.dependent {
            Dependent::Column { table, column } => column_readers(state, *table, *column),
            Dependent::Field { .. } | Dependent::View(_) => Vec::new(),
        };
        let on = dependent.shown.clone();
        found.push(dependent);
        for view in readers {
            push_view(state, view, on.clone(), &mut found);
        }
    }
    // A view still showing a value of the type, reached by none of the above, goes too.
    for view in state.views.values() {
        if view.columns.iter().any(|(_, ty)| (dropped.is_type)(*ty)) {
            push_view(state, view.clone(), type_name.clone(), &mut found);
        }
    }
    found
}

/// The table columns whose types `is_type` picks, oldest table first and each table's
/// columns last to first, as dependents on `on`.
fn push_columns(
    state: &DbState,
    is_type: &dyn Fn(DataType) -> bool,
    on: &str,
    found: &mut Vec<Found>,
) {
    let mut tables: Vec<_> = state.tables.values().collect();
    tables.sort_by_key(|table| table.schema.oid);
    for table in tables {
        let schema = &table.schema;
        for (column, def) in schema.columns.iter().enumerate().rev() {
            if is_type(def.data_type) {
                found.push(Found {
                    dependent: Dependent::Column {
                        table: schema.oid,
                        column,
                    },
                    shown: format!("column {} of table {}", def.name, schema.name),
                    on: on.to_string(),
                });
            }
        }
    }
}

/// `view`, reached through `on`, then the views reading it, unless already found.
fn push_view(state: &DbState, view: Arc<ViewDef>, on: String, found: &mut Vec<Found>) {
    let name = view.qualified_name();
    let dependent = Dependent::View(name.clone());
    if is_found(found, &dependent) {
        return;
    }
    let shown = format!("view {}", view.name);
    found.push(Found {
        dependent,
        shown,
        on,
    });
    for (reader, _) in state.dependent_views(std::slice::from_ref(&name)) {
        if reader.depends_on.contains(&name) {
            push_view(state, reader, format!("view {}", view.name), found);
        }
    }
}

/// The views reading column `column` of table `table`, oldest first.
fn column_readers(state: &DbState, table: u32, column: usize) -> Vec<Arc<ViewDef>> {
    let Some(entry) = state.tables.get(&table) else {
        return Vec::new();
    };
    let name = entry.schema.qualified_name();
    let Some(def) = entry.schema.columns.get(column) else {
        return Vec::new();
    };
    let mut readers: Vec<Arc<ViewDef>> = (state.views.values())
        .filter(|view| view.depends_on.contains(&name) && view.mentions(&def.name))
        .cloned()
        .collect();
    readers.sort_by_key(|view| view.oid);
    readers
}

/// The views whose queries name the type: they no longer bind without it.
fn views_naming(state: &DbState, dropped: &DroppedType) -> Vec<Arc<ViewDef>> {
    let Some(oid) = dropped.oid else {
        return Vec::new();
    };
    let mut without = state.clone();
    Arc::make_mut(&mut without.enum_types).remove(&oid);
    Arc::make_mut(&mut without.composite_types).remove(&oid);
    (state.views.values())
        .filter(|view| crate::binder::check_view(&without, view).is_err())
        .cloned()
        .collect()
}

fn is_found(found: &[Found], dependent: &Dependent) -> bool {
    found.iter().any(|f| f.dependent == *dependent)
}
