//! CREATE and DROP of tables and sequences inside a transaction, and the relation
//! namespace they share with indexes and views.

use std::sync::Arc;

use crate::api::Notice;
use crate::catalog::{QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::storage::{
    DbState, RelationKind, Sequence, SequenceOptions, TableData, TableEntry, Transaction,
    UniqueIndex,
};

pub fn create_table(
    txn: &mut Transaction,
    mut schema: TableSchema,
    if_not_exists: bool,
    sequences: Vec<(QualifiedName, SequenceOptions, String)>,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    if !claim_relation_name(txn, &schema.qualified_name(), if_not_exists, notices)? {
        return Ok(());
    }
    check_row_type_name_free(&txn.view(), &schema.qualified_name())?;
    super::enum_type::lock_column_types(txn, &schema)?;
    // Constraint indexes share the relation namespace.
    for name in schema.index_names() {
        if relation_exists(txn, &QualifiedName::new(schema.namespace, name))? {
            return Err(Error::new(
                SqlState::DuplicateTable,
                format!("relation \"{name}\" already exists"),
            ));
        }
    }
    for (name, options, column) in sequences {
        let owner = Some((schema.name.clone(), column));
        create_sequence(txn, &name, options, owner, false, notices)?;
    }
    schema.oid = txn.allocate_relation_oid();
    for key in &mut schema.foreign_keys {
        // Bound before the table had an OID: 0 is the table itself.
        if key.referenced_table == 0 {
            key.referenced_table = schema.oid;
        }
    }
    super::foreign_key::lock_referenced_tables(txn, &schema)?;
    let unique_indexes = schema
        .unique_keys
        .iter()
        .map(|_| UniqueIndex::default())
        .collect();
    txn.put_table(TableEntry {
        schema: Arc::new(schema),
        data: Arc::new(TableData::default()),
        generation: 0,
        unique_indexes: Arc::new(unique_indexes),
        secondary_indexes: Arc::default(),
    });
    Ok(())
}

/// 42809 for `DROP <expected> name` where `name` is a relation of another kind.
pub fn wrong_object_type(name: &QualifiedName, actual: &RelationKind, expected: &str) -> Error {
    let (noun, keyword) = actual.names();
    Error::new(
        SqlState::WrongObjectType,
        format!("\"{name}\" is not {expected}"),
    )
    .with_hint(format!("Use DROP {keyword} to remove {noun}."))
}

/// Locks `name` and tells whether a relation of that name exists in the transaction's view.
pub fn relation_exists(txn: &mut Transaction, name: &QualifiedName) -> Result<bool> {
    txn.lock_name(name)?;
    Ok(txn.view().relation_kind(name).is_some())
}

/// Whether a new relation may take `name`: true when it is free; false, with PostgreSQL's
/// NOTICE, when it is taken and IF NOT EXISTS was given; 42P07 when it is taken.
pub fn claim_relation_name(
    txn: &mut Transaction,
    name: &QualifiedName,
    if_not_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<bool> {
    if !txn.view().schemas.contains_key(&name.schema) {
        // Dropped by a statement of this transaction after this one was bound.
        return Err(Error::new(
            SqlState::InvalidSchemaName,
            "no schema has been selected to create in",
        ));
    }
    if !relation_exists(txn, name)? {
        return Ok(true);
    }
    if if_not_exists {
        notices.push(Notice {
            severity: "NOTICE",
            state: SqlState::DuplicateTable,
            message: format!("relation \"{name}\" already exists, skipping"),
            detail: None,
        });
        return Ok(false);
    }
    Err(Error::new(
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists"),
    ))
}

/// 42710 when an enum type or a domain has `name`: a table, view or sequence has a row
/// type of its name in PostgreSQL, so a type's name is taken for them, IF NOT EXISTS or not.
pub fn check_row_type_name_free(state: &DbState, name: &QualifiedName) -> Result<()> {
    if state.enum_type_named(name).is_none() && state.domain_named(name).is_none() {
        return Ok(());
    }
    Err(Error::new(
        SqlState::DuplicateObject,
        format!("type \"{}\" already exists", name.name),
    )
    .with_hint(
        "A relation has an associated type of the same name, so you must use a name that doesn't conflict with any existing type.",
    ))
}

pub fn create_sequence(
    txn: &mut Transaction,
    name: &QualifiedName,
    options: SequenceOptions,
    owned_by: Option<(String, String)>,
    if_not_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    if !claim_relation_name(txn, name, if_not_exists, notices)? {
        return Ok(());
    }
    check_row_type_name_free(&txn.view(), name)?;
    let oid = txn.allocate_oid();
    txn.put_sequence(
        name,
        Some(Sequence::new(name.clone(), oid, options, owned_by)),
    );
    Ok(())
}

/// ALTER SEQUENCE: the sequence replaced by its new definition, its counter kept (or
/// restarted). A new counter, so a rollback leaves the old one as it was.
pub fn alter_sequence(
    txn: &mut Transaction,
    alter: &crate::plan::AlterSequence,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    txn.lock_name(&alter.name)?;
    let Some(old) = txn.view().sequences.get(&alter.name).cloned() else {
        return Err(Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{}\" does not exist", alter.name),
        ));
    };
    if alter.new_name != alter.name {
        claim_relation_name(txn, &alter.new_name, false, notices)?;
        txn.put_sequence(&alter.name, None);
    }
    let sequence = old.redefined(
        alter.new_name.clone(),
        alter.options.clone(),
        alter.owned_by.clone(),
    );
    match alter.restart {
        Some(value) => sequence.restore_counter(value, false),
        None => {
            // PostgreSQL checks the counter against the new bounds as if restarted there.
            let (last, is_called) = old.counter();
            alter.options.check_within("RESTART", last)?;
            sequence.restore_counter(last, is_called);
        }
    }
    txn.put_sequence(&alter.new_name, Some(sequence));
    Ok(())
}

pub fn drop_sequences(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        txn.lock_name(name)?;
        match txn.view().relation_kind(name) {
            Some(RelationKind::Sequence) | None => {}
            Some(other) => return Err(wrong_object_type(name, &other, "a sequence")),
        }
        if txn.view().sequences.contains_key(name) {
            txn.put_sequence(name, None);
        } else if if_exists {
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::UndefinedTable,
                message: format!("sequence \"{name}\" does not exist, skipping"),
                detail: None,
            });
        } else {
            return Err(Error::new(
                SqlState::UndefinedTable,
                format!("sequence \"{name}\" does not exist"),
            ));
        }
    }
    Ok(())
}

/// DROP TABLE, or DROP MATERIALIZED VIEW or DROP FOREIGN TABLE (tables too) as `expected`
/// says.
pub fn drop_tables(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    cascade: bool,
    expected: &RelationKind,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    // "a foreign table" without its article.
    let noun = expected
        .names()
        .0
        .split_once(' ')
        .map_or("table", |(_, noun)| noun);
    let mut tables = Vec::with_capacity(names.len());
    for name in names {
        txn.lock_name(name)?;
        match txn.view().relation_kind(name) {
            Some(kind) if kind == *expected => tables.push(name.clone()),
            Some(other) => {
                let (article, _) = expected.names();
                return Err(wrong_object_type(name, &other, article));
            }
            None => {}
        }
    }
    super::view::drop_dependent_views(txn, &tables, cascade, notices)?;
    super::foreign_key::drop_referencing_keys(txn, &tables, cascade, notices)?;
    for name in names {
        match txn.table_for_write(name)? {
            Some(entry) => {
                txn.drop_table(name, entry.schema.oid);
                // Sequences owned by the table's columns go with it.
                let view = txn.view();
                for sequence in view.sequences.values() {
                    if sequence.owned_by.as_ref().is_some_and(|(table, _)| {
                        sequence.name.schema == name.schema && *table == name.name
                    }) {
                        txn.lock_name(&sequence.name)?;
                        txn.put_sequence(&sequence.name, None);
                    }
                }
            }
            None if if_exists => notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::UndefinedTable,
                message: format!("{noun} \"{name}\" does not exist, skipping"),
                detail: None,
            }),
            None => {
                return Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("{noun} \"{name}\" does not exist"),
                ))
            }
        }
    }
    Ok(())
}
