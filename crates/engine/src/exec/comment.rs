//! COMMENT ON: the object's definition replaced by one with the new comment, inside the
//! transaction (PostgreSQL's comments are transactional too).

use std::sync::Arc;

use crate::catalog::{QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::plan::CommentTarget;
use crate::storage::Transaction;

pub fn comment(txn: &mut Transaction, target: &CommentTarget, text: Option<String>) -> Result<()> {
    match target {
        CommentTarget::Table(table) => change_table(txn, table, |schema| {
            schema.comment = text;
            Ok(())
        }),
        CommentTarget::Column { table, column } => change_table(txn, table, |schema| {
            let column = schema.columns.get_mut(*column).ok_or_else(|| gone(table))?;
            column.comment = text;
            Ok(())
        }),
        CommentTarget::Index { table, index } => change_table(txn, table, |schema| {
            if let Some(key) = schema.unique_keys.iter_mut().find(|k| k.name == *index) {
                key.index_comment = text;
            } else {
                let index = schema.indexes.iter_mut().find(|i| i.name == *index);
                index.ok_or_else(|| gone(table))?.comment = text;
            }
            Ok(())
        }),
        CommentTarget::Constraint { table, constraint } => change_table(txn, table, |schema| {
            let slot = if let Some(key) = schema
                .unique_keys
                .iter_mut()
                .find(|k| k.name == *constraint)
            {
                &mut key.constraint_comment
            } else if let Some(check) = schema
                .constraints
                .iter_mut()
                .find(|c| c.name == *constraint)
            {
                &mut check.comment
            } else {
                let key = schema
                    .foreign_keys
                    .iter_mut()
                    .find(|k| k.name == *constraint);
                &mut key.ok_or_else(|| gone(table))?.comment
            };
            *slot = text;
            Ok(())
        }),
        CommentTarget::View(name) => {
            txn.lock_name(name)?;
            let view = txn
                .view()
                .views
                .get(name)
                .cloned()
                .ok_or_else(|| gone(name))?;
            let mut view = (*view).clone();
            view.comment = text;
            txn.put_view(name, Some(view));
            Ok(())
        }
        CommentTarget::Type(name) => {
            txn.lock_name(name)?;
            let state = txn.view();
            let enum_type = state.enum_type_named(name).ok_or_else(|| gone(name))?;
            let mut enum_type = (**enum_type).clone();
            enum_type.comment = text;
            txn.put_enum_type(enum_type.oid, Some(enum_type));
            Ok(())
        }
        CommentTarget::Domain(name) => {
            txn.lock_name(name)?;
            let state = txn.view();
            let domain = state.domain_named(name).ok_or_else(|| gone(name))?;
            let mut domain = (**domain).clone();
            domain.comment = text;
            txn.put_domain(domain.oid, Some(domain));
            Ok(())
        }
        CommentTarget::Sequence(name) => {
            txn.lock_name(name)?;
            let sequence = txn.view().sequences.get(name).cloned();
            let sequence = sequence.ok_or_else(|| gone(name))?;
            txn.put_sequence(name, Some(sequence.with_comment(text)));
            Ok(())
        }
        CommentTarget::Schema(oid) => {
            let schema = txn.view().schemas.get(oid).cloned();
            let schema = schema
                .ok_or_else(|| Error::new(SqlState::InvalidSchemaName, "the schema was dropped"))?;
            txn.lock_schema_name(&schema.name)?;
            let mut schema = (*schema).clone();
            schema.comment = text;
            txn.put_schema(*oid, Some(schema));
            Ok(())
        }
    }
}

/// Replaces `table`'s schema by `change`'s, its rows untouched.
pub(super) fn change_table(
    txn: &mut Transaction,
    table: &QualifiedName,
    change: impl FnOnce(&mut TableSchema) -> Result<()>,
) -> Result<()> {
    let entry = txn.table_for_write(table)?.ok_or_else(|| gone(table))?;
    let mut entry = (*entry).clone();
    let mut schema = (*entry.schema).clone();
    change(&mut schema)?;
    entry.schema = Arc::new(schema);
    txn.put_table(entry);
    Ok(())
}

/// Dropped by another transaction after the statement was bound.
fn gone(name: &QualifiedName) -> Error {
    Error::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}
