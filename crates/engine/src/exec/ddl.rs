//! CREATE TABLE and DROP TABLE inside a transaction.

use std::sync::Arc;

use crate::api::Notice;
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::storage::{TableData, TableEntry, Transaction, UniqueIndex};

pub fn create_table(
    txn: &mut Transaction,
    mut schema: TableSchema,
    if_not_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    if txn.table_for_write(&schema.name)?.is_some() {
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

pub fn drop_tables(
    txn: &mut Transaction,
    names: &[String],
    if_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        match txn.table_for_write(name)? {
            Some(entry) => txn.drop_table(name, entry.schema.oid),
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
