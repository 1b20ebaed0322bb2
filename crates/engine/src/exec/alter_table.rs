//! ALTER TABLE: applies the bound row changes to a private copy of the table's rows, then
//! checks what the new schema demands of them (NOT NULL, CHECK, unique keys) and publishes the new
//! version, all inside the transaction, so a failure or ROLLBACK leaves the table as it was.

use std::sync::Arc;

use super::ddl::{create_sequence, relation_exists};
use super::expression::evaluate;
use super::ExecContext;
use crate::catalog::{ConstraintKind, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::plan::{AlterTable, RowChange, ScalarExpr};
use crate::storage::{build_unique_indexes, Chunk, DbState, TableData, TableEntry, Transaction};
use crate::vector::{Batch, Vector};

/// Publishes the table's new version in the transaction; the views reading it are then
/// checked by the caller (`binder::check_views_after_alter`), before
/// [`finish_alter_table`]. Returns the schema the table had.
pub fn alter_table(
    txn: &mut Transaction,
    alter: &AlterTable,
    ctx: &ExecContext,
) -> Result<Arc<TableSchema>> {
    let entry = match txn.table_for_write(&alter.table_name)? {
        Some(entry) if entry.schema.oid == alter.table_oid => entry,
        _ => {
            return Err(Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{}\" does not exist", alter.table_name),
            ))
        }
    };
    super::enum_type::lock_column_types(txn, &alter.schema)?;
    let renamed = alter.schema.name != alter.table_name.name;
    let new_names = alter
        .schema
        .index_names()
        .filter(|n| !entry.schema.index_names().any(|old| old == *n));
    for name in std::iter::once(alter.schema.name.as_str())
        .filter(|_| renamed)
        .chain(new_names)
    {
        if relation_exists(txn, &QualifiedName::new(alter.schema.namespace, name))? {
            return Err(Error::new(
                SqlState::DuplicateTable,
                format!("relation \"{name}\" already exists"),
            ));
        }
    }
    let mut data = (*entry.data).clone();
    for change in &alter.row_changes {
        apply(&mut data, change, ctx)?;
    }
    drop_column_privileges(txn, alter)?;
    check_not_null(&alter.schema, &data)?;
    super::check::check_existing_rows(&alter.schema.name, &alter.checks, &data, ctx)?;
    let unique_indexes = build_unique_indexes(&alter.schema, &data, &ctx.state.enum_types)?;
    if renamed {
        txn.drop_table(&alter.table_name, alter.table_oid);
    }
    txn.put_table(TableEntry {
        schema: Arc::new(alter.schema.clone()),
        data: Arc::new(data),
        generation: entry.generation,
        unique_indexes: Arc::new(unique_indexes),
        secondary_indexes: Arc::default(),
    });
    Ok(entry.schema.clone())
}

/// What ALTER TABLE does once the table's new version is published: validates the new
/// foreign keys and creates or re-owns the sequences of identity and serial columns.
pub fn finish_alter_table(txn: &mut Transaction, alter: &AlterTable) -> Result<()> {
    super::foreign_key::lock_referenced_tables(txn, &alter.schema)?;
    for name in &alter.foreign_keys_to_check {
        super::foreign_key::validate(txn, alter.table_oid, name)?;
    }
    for (name, options, column) in &alter.new_sequences {
        let owner = Some((alter.schema.name.clone(), column.clone()));
        create_sequence(txn, name, options.clone(), owner, false, &mut Vec::new())?;
    }
    for (name, owner) in &alter.sequence_owners {
        txn.lock_name(name)?;
        let Some(sequence) = txn.view().sequences.get(name).cloned() else {
            continue;
        };
        let replacement = owner
            .as_ref()
            .map(|owner| sequence.with_owner(Some(owner.clone())));
        txn.put_sequence(name, replacement);
    }
    Ok(())
}

/// Drops columns `dropped` (positions) of table `table_oid` as ALTER TABLE DROP COLUMN
/// would, for DROP TYPE ... CASCADE. A column a key, an index, a foreign key, a CHECK, a
/// DEFAULT or a generated column uses is left to ALTER TABLE (0A000 here).
pub(super) fn drop_columns(
    txn: &mut Transaction,
    table_oid: u32,
    dropped: &[usize],
    ctx: &ExecContext,
) -> Result<()> {
    let state = txn.view();
    let Some(entry) = state.tables.get(&table_oid) else {
        return Ok(());
    };
    let mut schema = (*entry.schema).clone();
    let mut positions = dropped.to_vec();
    positions.sort_unstable_by(|a, b| b.cmp(a));
    let mut row_changes = Vec::with_capacity(positions.len());
    for position in positions {
        if let Some(column) = schema.columns.get(position) {
            if column_in_use(&state, &schema, position) {
                return Err(Error::unsupported(format!(
                    "DROP TYPE ... CASCADE of column {} of table {}, which a key, index, constraint or expression uses,",
                    column.name, schema.name
                )));
            }
            schema.columns.remove(position);
            row_changes.push(RowChange::DropColumn { column: position });
        }
    }
    let alter = AlterTable {
        table_name: entry.schema.qualified_name(),
        table_oid,
        schema,
        row_changes,
        sequence_owners: Vec::new(),
        checks: Vec::new(),
        foreign_keys_to_check: Vec::new(),
        new_sequences: Vec::new(),
    };
    // The views reading these columns were dropped before them, by the same CASCADE.
    alter_table(txn, &alter, ctx)?;
    finish_alter_table(txn, &alter)
}

/// Whether anything in the catalog besides views uses column `position` of `schema`.
fn column_in_use(state: &DbState, schema: &TableSchema, position: usize) -> bool {
    let name = &schema.columns[position].name;
    let mentions = |sql: &str| crate::catalog::sql_mentions(sql, name);
    let keyed = (schema.unique_keys.iter()).any(|k| k.columns.contains(&position))
        || (schema.foreign_keys.iter()).any(|k| k.columns.contains(&position));
    let indexed = (schema.indexes.iter()).any(|i| {
        i.columns.contains(&position) || !i.expressions.is_empty() || i.predicate.is_some()
    });
    let referenced = (state.tables.values())
        .flat_map(|t| &t.schema.foreign_keys)
        .any(|k| k.referenced_table == schema.oid && k.referenced_columns.contains(&position));
    let in_expression = (schema.constraints.iter()).any(|c| match &c.kind {
        ConstraintKind::Check(check) => mentions(&check.expr.sql),
    }) || (schema.columns.iter()).any(|c| {
        c.default_sql.as_deref().is_some_and(mentions)
            || c.generated.as_ref().is_some_and(|g| mentions(&g.sql))
    });
    keyed || indexed || referenced || in_expression || schema.materialized.is_some()
}

/// A dropped column's ACL goes with it, and the ACLs of the columns after it move down
/// with them, so that attribute numbers keep naming the same columns.
fn drop_column_privileges(txn: &mut Transaction, alter: &AlterTable) -> Result<()> {
    let dropped: Vec<usize> = alter
        .row_changes
        .iter()
        .filter_map(|change| match change {
            RowChange::DropColumn { column } => Some(*column),
            RowChange::AddColumn { .. } | RowChange::SetColumn { .. } => None,
        })
        .collect();
    let oid = alter.table_oid;
    let has_acls = |txn: &Transaction| {
        let view = txn.view();
        let found = view.roles.privileges.columns.of_table(oid).next().is_some();
        found
    };
    if dropped.is_empty() || !has_acls(txn) {
        return Ok(());
    }
    let mut roles = txn.roles_to_change()?;
    for column in dropped {
        let attnum = i16::try_from(column + 1).unwrap_or(i16::MAX);
        roles.privileges.columns.drop_column(oid, attnum);
    }
    txn.put_roles(roles);
    Ok(())
}

fn apply(data: &mut TableData, change: &RowChange, ctx: &ExecContext) -> Result<()> {
    for chunk in data.chunks_mut() {
        ctx.check_cancelled()?;
        let chunk = Arc::make_mut(chunk);
        match change {
            RowChange::AddColumn { value } => {
                let all: Vec<usize> = (0..chunk.columns.len()).collect();
                let live = chunk.to_batch(&all);
                let column = computed_column(chunk, value, &live, ctx)?;
                chunk.columns.push(column);
            }
            RowChange::DropColumn { column } => {
                chunk.columns.remove(*column);
            }
            RowChange::SetColumn { column, value } => {
                let all: Vec<usize> = (0..chunk.columns.len()).collect();
                let live = chunk.to_batch(&all);
                chunk.columns[*column] = computed_column(chunk, value, &live, ctx)?;
            }
        }
    }
    Ok(())
}

/// `value` computed over the chunk's live rows (`live`), as a column of the chunk: deleted
/// rows, which no one reads, hold NULL.
fn computed_column(
    chunk: &Chunk,
    value: &ScalarExpr,
    live: &Batch,
    ctx: &ExecContext,
) -> Result<Arc<Vector>> {
    let values = evaluate(value, live, ctx)?;
    if chunk.deleted.is_none() {
        return Ok(values);
    }
    let mut column = Vector::with_capacity(value.ty().physical(), chunk.len);
    let mut next = 0;
    for row in 0..chunk.len {
        if chunk.is_deleted(row) {
            column.push_null();
        } else {
            column.push_from(&values, next)?;
            next += 1;
        }
    }
    Ok(Arc::new(column))
}

/// 23502 when a NOT NULL column holds a NULL in a live row.
fn check_not_null(schema: &TableSchema, data: &TableData) -> Result<()> {
    for (position, column) in schema.columns.iter().enumerate() {
        if !column.not_null {
            continue;
        }
        for chunk in data.chunks() {
            let values = &chunk.columns[position];
            if (0..chunk.len).any(|row| !chunk.is_deleted(row) && !values.is_valid(row)) {
                return Err(Error::new(
                    SqlState::NotNullViolation,
                    format!(
                        "column \"{}\" of relation \"{}\" contains null values",
                        column.name, schema.name
                    ),
                ));
            }
        }
    }
    Ok(())
}
