//! CREATE [OR REPLACE] VIEW and DROP VIEW, and the dependencies of views on the relations
//! they read: DROP TABLE / DROP VIEW of a relation a view reads is 2BP01 unless CASCADE
//! drops the view too, and ALTER TABLE may not change what a view reads.

use std::sync::Arc;

use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::ddl::wrong_object_type;
use crate::api::Notice;
use crate::binder::{check_view, StoredExprOwner};
use crate::catalog::{QualifiedName, TableSchema, ViewDef};
use crate::error::{Error, Result, SqlState};
use crate::storage::{DbState, RelationKind, Transaction};

pub fn create_view(txn: &mut Transaction, mut view: ViewDef, or_replace: bool) -> Result<()> {
    let name = view.qualified_name();
    txn.lock_name(&name)?;
    // What the view reads cannot be dropped while this transaction creates it.
    for dependency in &view.depends_on {
        txn.lock_name(dependency)?;
    }
    let state = txn.view();
    match state.relation_kind(&name) {
        None => {
            super::ddl::check_row_type_name_free(&state, &name)?;
            view.oid = txn.allocate_relation_oid()
        }
        Some(RelationKind::View) if or_replace => {
            let old = state
                .views
                .get(&name)
                .ok_or_else(|| Error::internal(format!("view {name} vanished")))?;
            check_replacement(old, &view)?;
            view.oid = old.oid;
            view.comment = old.comment.clone();
        }
        Some(_) if or_replace => {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a view"),
            ))
        }
        Some(_) => {
            return Err(Error::new(
                SqlState::DuplicateTable,
                format!("relation \"{name}\" already exists"),
            ))
        }
    }
    txn.put_view(&name, Some(view));
    Ok(())
}

/// CREATE OR REPLACE VIEW keeps the old columns (names and types) and may add new ones.
fn check_replacement(old: &ViewDef, new: &ViewDef) -> Result<()> {
    if new.columns.len() < old.columns.len() {
        return Err(Error::new(
            SqlState::InvalidTableDefinition,
            "cannot drop columns from view",
        ));
    }
    for ((old_name, old_ty), (new_name, new_ty)) in old.columns.iter().zip(&new.columns) {
        if old_name != new_name {
            return Err(Error::new(
                SqlState::InvalidTableDefinition,
                format!("cannot change name of view column \"{old_name}\" to \"{new_name}\""),
            )
            .with_hint(
                "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.",
            ));
        }
        if old_ty != new_ty {
            return Err(Error::new(
                SqlState::InvalidTableDefinition,
                format!(
                    "cannot change data type of view column \"{old_name}\" from {old_ty} to \
                     {new_ty}"
                ),
            ));
        }
    }
    Ok(())
}

pub fn drop_views(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let mut dropped = Vec::with_capacity(names.len());
    for name in names {
        txn.lock_name(name)?;
        match txn.view().relation_kind(name) {
            Some(RelationKind::View) => dropped.push(name.clone()),
            Some(other) => return Err(wrong_object_type(name, &other, "a view")),
            None if if_exists => notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::SuccessfulCompletion,
                message: format!("view \"{name}\" does not exist, skipping"),
                detail: None,
            }),
            None => {
                return Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("view \"{name}\" does not exist"),
                ))
            }
        }
    }
    drop_dependent_views(txn, &dropped, cascade, notices)?;
    for name in &dropped {
        txn.put_view(name, None);
    }
    Ok(())
}

/// Before `dropped` (tables, views or materialized views) go: the views reading them,
/// directly or through other views, and the materialized views reading any of those, go too
/// with CASCADE; without it they are 2BP01.
pub fn drop_dependent_views(
    txn: &mut Transaction,
    dropped: &[QualifiedName],
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let state = txn.view();
    let dependents = dependent_views(&state, dropped);
    let mut reached = dropped.to_vec();
    reached.extend(dependents.iter().map(|(view, _)| view.qualified_name()));
    let materialized = dependent_materialized_views(&state, &reached, dropped);
    let object = dependents
        .iter()
        .map(|(_, on)| on)
        .chain(materialized.iter().map(|(_, on)| on))
        .find_map(|on| dropped.iter().find(|d| *d == on))
        .map_or_else(String::new, |d| describe(&state, d));
    let views = dependents
        .into_iter()
        .map(|(view, on)| (view, describe(&state, &on)))
        .collect();
    let materialized = materialized
        .into_iter()
        .map(|(name, on)| (name, describe(&state, &on)))
        .collect();
    drop_dependents(
        txn,
        &object,
        views,
        materialized,
        Vec::new(),
        cascade,
        notices,
    )
}

/// Before `object` goes: the views and materialized views depending on it (each with what
/// it depends on, as PostgreSQL's DETAIL names it) go too with CASCADE; without it they are
/// 2BP01.
pub(super) fn drop_dependents(
    txn: &mut Transaction,
    object: &str,
    views: Vec<(Arc<ViewDef>, String)>,
    materialized: Vec<(QualifiedName, String)>,
    stored: Vec<StoredDependent>,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    // Each dependent as PostgreSQL's messages name it, with what it reads.
    let described: Vec<(String, &str)> = views
        .iter()
        .map(|(view, on)| (format!("view {}", view.name), on.as_str()))
        .chain(
            materialized
                .iter()
                .map(|(name, on)| (format!("materialized view {}", name.name), on.as_str())),
        )
        .chain(stored.iter().map(|s| (s.shown.clone(), s.on.as_str())))
        .collect();
    if described.is_empty() {
        return Ok(());
    }
    if !cascade {
        let lines: Vec<String> = described
            .iter()
            .map(|(dependent, on)| format!("{dependent} depends on {on}"))
            .collect();
        return Err(super::drop_dependents::dependents_still_exist(
            object, &lines,
        ));
    }
    let dropped: Vec<String> = described.iter().map(|(d, _)| d.clone()).collect();
    notices.push(super::drop_dependents::cascade_notice(&dropped));
    for (view, _) in &views {
        let name = view.qualified_name();
        txn.lock_name(&name)?;
        txn.put_view(&name, None);
    }
    let names: Vec<QualifiedName> = materialized.into_iter().map(|(name, _)| name).collect();
    if !names.is_empty() {
        // What reads them goes with them.
        super::ddl::drop_tables(
            txn,
            &names,
            false,
            true,
            &RelationKind::MaterializedView,
            &mut Vec::new(),
        )?;
    }
    for dependent in stored {
        super::comment::change_table(txn, &dependent.table, |schema| {
            match &dependent.owner {
                StoredExprOwner::Default(column) => {
                    if let Some(column) = schema.columns.get_mut(*column) {
                        column.default_sql = None;
                    }
                }
                StoredExprOwner::Check(name) => schema.constraints.retain(|c| c.name != *name),
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// A column DEFAULT or CHECK constraint depending on what is dropped: CASCADE drops it
/// from its table.
pub(super) struct StoredDependent {
    pub table: QualifiedName,
    pub owner: StoredExprOwner,
    /// As PostgreSQL's messages name it: `default value for column a of table t`.
    pub shown: String,
    /// What it depends on, as the DETAIL names it.
    pub on: String,
}

/// The materialized views (not among `dropped`) reading one of `reached`, each with the
/// relation it reads, in creation order.
fn dependent_materialized_views(
    state: &DbState,
    reached: &[QualifiedName],
    dropped: &[QualifiedName],
) -> Vec<(QualifiedName, QualifiedName)> {
    let mut found: Vec<(u32, QualifiedName, QualifiedName)> = state
        .tables
        .values()
        .filter_map(|entry| {
            let schema = &entry.schema;
            let name = schema.qualified_name();
            let on = schema
                .materialized
                .as_ref()?
                .depends_on
                .iter()
                .find(|read| reached.contains(read))?;
            (!dropped.contains(&name)).then(|| (schema.oid, name, on.clone()))
        })
        .collect();
    found.sort_by_key(|(oid, _, _)| *oid);
    found.into_iter().map(|(_, name, on)| (name, on)).collect()
}

/// "table t" or "view v", as PostgreSQL's dependency messages name a relation.
pub(super) fn describe(state: &DbState, name: &QualifiedName) -> String {
    match state.relation_kind(name) {
        Some(RelationKind::View) => format!("view {name}"),
        Some(RelationKind::MaterializedView) => format!("materialized view {name}"),
        _ => format!("table {name}"),
    }
}

/// The views (not among `roots`) reading one of `roots` directly or through other views,
/// each with the relation it reads that led here, in creation order.
pub(super) fn dependent_views(
    state: &DbState,
    roots: &[QualifiedName],
) -> Vec<(Arc<ViewDef>, QualifiedName)> {
    let mut found: Vec<(Arc<ViewDef>, QualifiedName)> = Vec::new();
    let mut frontier: Vec<QualifiedName> = roots.to_vec();
    while let Some(name) = frontier.pop() {
        for (view_name, view) in state.views.iter() {
            let new = !roots.contains(view_name) && !found.iter().any(|(v, _)| v.oid == view.oid);
            if new && view.depends_on.contains(&name) {
                found.push((view.clone(), name.clone()));
                frontier.push(view_name.clone());
            }
        }
    }
    found.sort_by_key(|(view, _)| view.oid);
    found
}

/// After ALTER TABLE changed `old` into the table now in the transaction: the views reading
/// it must still bind to their columns, and may not read a column whose type changed.
pub fn check_views_after_alter(
    txn: &Transaction,
    old: &TableSchema,
    new: &TableSchema,
) -> Result<()> {
    let state = txn.view();
    let old_name = old.qualified_name();
    let readers: Vec<Arc<ViewDef>> = dependent_views(&state, std::slice::from_ref(&old_name))
        .into_iter()
        .filter(|(_, on)| *on == old_name)
        .map(|(view, _)| view)
        .collect();
    let Some(first) = readers.first() else {
        return Ok(());
    };
    if new.name != old.name {
        return Err(Error::unsupported(format!(
            "renaming table \"{}\", which view \"{}\" reads,",
            old.name, first.name
        )));
    }
    for column in &old.columns {
        let retyped = new
            .columns
            .iter()
            .any(|c| c.name == column.name && c.data_type != column.data_type);
        if let Some(view) = readers
            .iter()
            .find(|v| retyped && mentions(v, &column.name))
        {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "cannot alter type of a column used by a view or rule",
            )
            .with_detail(format!(
                "rule _RETURN on view {} depends on column \"{}\"",
                view.name, column.name
            )));
        }
    }
    for view in &readers {
        if check_view(&state, view).is_ok() {
            continue;
        }
        let dropped = old
            .columns
            .iter()
            .filter(|c| new.column_index(&c.name).is_none())
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>();
        let renamed = new.columns.len() == old.columns.len();
        return Err(
            match dropped
                .iter()
                .find(|c| mentions(view, c))
                .or(dropped.first())
            {
                Some(column) if !renamed => super::drop_dependents::dependents_still_exist(
                    &format!("column {column} of table {}", old.name),
                    &[format!(
                        "view {} depends on column {column} of table {}",
                        view.name, old.name
                    )],
                ),
                _ => Error::unsupported(format!(
                    "renaming a column that view \"{}\" reads",
                    view.name
                )),
            },
        );
    }
    Ok(())
}

/// Whether a view's query names `column` (or reads every column with `*`).
pub(super) fn mentions(view: &ViewDef, column: &str) -> bool {
    sql_mentions(&view.query_sql, column)
}

/// Whether SQL text names `column` (or reads every column with `*`); text that does not
/// tokenize is taken to name it.
pub(super) fn sql_mentions(sql: &str, column: &str) -> bool {
    let Ok(tokens) = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize() else {
        return true;
    };
    tokens.iter().any(|token| match token {
        Token::Mul => true,
        Token::Word(word) => match word.quote_style {
            Some(_) => word.value == column,
            None => word.value.to_lowercase() == column,
        },
        _ => false,
    })
}
