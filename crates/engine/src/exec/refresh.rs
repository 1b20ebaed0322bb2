//! REFRESH MATERIALIZED VIEW: the view's next version holds its query's rows (none WITH NO
//! DATA, which also marks it unreadable), written through the transaction like TRUNCATE
//! followed by INSERT, so the refresh commits or rolls back whole and the table's new
//! generation retires the cached results that read it.

use std::sync::Arc;

use super::{modify, ExecContext};
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::plan::LogicalPlan;
use crate::storage::{build_unique_indexes, EnumTypes, TableData, TableEntry, Transaction};

pub fn refresh(
    txn: &mut Transaction,
    (name, oid): (&QualifiedName, u32),
    source: Option<&LogicalPlan>,
    ctx: &ExecContext,
) -> Result<()> {
    let entry = match txn.table_for_write(name)? {
        Some(entry) if entry.schema.oid == oid => entry,
        _ => {
            return Err(Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{name}\" does not exist"),
            ))
        }
    };
    let populated = source.is_some();
    // A new schema only when the populated state changes: a new schema is a catalog
    // change, which retires every cached plan.
    let schema = match &entry.schema.materialized {
        Some(materialized) if materialized.populated != populated => {
            let mut schema = (*entry.schema).clone();
            schema.materialized = Some(crate::catalog::MaterializedView {
                populated,
                ..materialized.clone()
            });
            Arc::new(schema)
        }
        _ => entry.schema.clone(),
    };
    let data = TableData::default();
    // Empty: no duplicate to print.
    let unique_indexes = build_unique_indexes(&schema, &data, &EnumTypes::default())?;
    txn.put_table(TableEntry {
        schema,
        data: Arc::new(data),
        generation: entry.generation,
        unique_indexes: Arc::new(unique_indexes),
        secondary_indexes: Arc::default(),
    });
    if let Some(source) = source {
        modify::insert(txn, (name, oid), source, &[], false, ctx)?;
    }
    Ok(())
}
