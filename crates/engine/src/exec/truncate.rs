//! TRUNCATE: each table's next version has no rows. With RESTART IDENTITY the sequences its
//! columns own start over; like PostgreSQL, that restart is part of the transaction (the
//! transaction publishes fresh sequences at COMMIT, ROLLBACK keeps the old ones counting).

use std::sync::Arc;

use crate::api::Notice;
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::storage::{build_unique_indexes, EnumTypes, TableData, TableEntry, Transaction};

pub fn truncate(
    txn: &mut Transaction,
    tables: &[(QualifiedName, u32)],
    restart_identity: bool,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let tables = super::foreign_key::truncated_with(txn, tables, cascade, notices)?;
    for (name, oid) in &tables {
        let entry = match txn.table_for_write(name)? {
            Some(entry) if entry.schema.oid == *oid => entry,
            _ => {
                return Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{name}\" does not exist"),
                ))
            }
        };
        let data = TableData::default();
        // Empty: no duplicate to print.
        let unique_indexes = build_unique_indexes(&entry.schema, &data, &EnumTypes::default())?;
        txn.put_table(TableEntry {
            schema: entry.schema.clone(),
            data: Arc::new(data),
            generation: entry.generation,
            unique_indexes: Arc::new(unique_indexes),
            secondary_indexes: Arc::default(),
        });
        if restart_identity {
            let view = txn.view();
            let owned = view.sequences.values().filter(|s| {
                s.name.schema == name.schema
                    && s.owned_by
                        .as_ref()
                        .is_some_and(|(table, _)| *table == name.name)
            });
            for sequence in owned {
                txn.lock_name(&sequence.name)?;
                let restarted = sequence.redefined(
                    sequence.name.clone(),
                    sequence.options.clone(),
                    sequence.owned_by.clone(),
                );
                txn.put_sequence(&sequence.name, Some(restarted));
            }
        }
    }
    Ok(())
}
