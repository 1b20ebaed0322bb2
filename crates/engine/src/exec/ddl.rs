//! CREATE TABLE and DROP TABLE inside a transaction.

use std::sync::Arc;

use crate::api::Notice;
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::storage::{Sequence, SequenceOptions, TableData, TableEntry, Transaction, UniqueIndex};

pub fn create_table(
    txn: &mut Transaction,
    mut schema: TableSchema,
    if_not_exists: bool,
    sequences: Vec<(String, SequenceOptions, String)>,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    if relation_exists(txn, &schema.name)? {
        if if_not_exists {
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::DuplicateTable,
                message: format!("relation \"{}\" already exists, skipping", schema.name),
            });
            return Ok(());
        }
        return Err(Error::new(
            SqlState::DuplicateTable,
            format!("relation \"{}\" already exists", schema.name),
        ));
    }
    for (name, options, column) in sequences {
        let owner = Some((schema.name.clone(), column));
        create_sequence(txn, &name, options, owner, false, notices)?;
    }
    schema.oid = txn.allocate_oid();
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
    });
    Ok(())
}

/// A relation named `name` already exists in the transaction's view.
fn relation_exists(txn: &mut Transaction, name: &str) -> Result<bool> {
    txn.lock_name(name)?;
    let view = txn.view();
    Ok(view.names.contains_key(name) || view.sequences.contains_key(name))
}

pub fn create_sequence(
    txn: &mut Transaction,
    name: &str,
    options: SequenceOptions,
    owned_by: Option<(String, String)>,
    if_not_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    if relation_exists(txn, name)? {
        if if_not_exists {
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::DuplicateTable,
                message: format!("relation \"{name}\" already exists, skipping"),
            });
            return Ok(());
        }
        return Err(Error::new(
            SqlState::DuplicateTable,
            format!("relation \"{name}\" already exists"),
        ));
    }
    let oid = txn.allocate_oid();
    txn.put_sequence(
        name,
        Some(Sequence::new(name.to_string(), oid, options, owned_by)),
    );
    Ok(())
}

pub fn drop_sequences(
    txn: &mut Transaction,
    names: &[String],
    if_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        txn.lock_name(name)?;
        if txn.view().sequences.contains_key(name) {
            txn.put_sequence(name, None);
        } else if if_exists {
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::UndefinedTable,
                message: format!("sequence \"{name}\" does not exist, skipping"),
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

pub fn drop_tables(
    txn: &mut Transaction,
    names: &[String],
    if_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        match txn.table_for_write(name)? {
            Some(entry) => {
                txn.drop_table(name, entry.schema.oid);
                // Sequences owned by the table's columns go with it.
                let view = txn.view();
                for sequence in view.sequences.values() {
                    if sequence
                        .owned_by
                        .as_ref()
                        .is_some_and(|(table, _)| table == name)
                    {
                        txn.lock_name(&sequence.name)?;
                        txn.put_sequence(&sequence.name, None);
                    }
                }
            }
            None if if_exists => notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::UndefinedTable,
                message: format!("table \"{name}\" does not exist, skipping"),
            }),
            None => {
                return Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("table \"{name}\" does not exist"),
                ))
            }
        }
    }
    Ok(())
}
