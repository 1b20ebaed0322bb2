//! CREATE INDEX and DROP INDEX, and building unique indexes over a table's rows: for a new
//! UNIQUE index or constraint, and again whenever ALTER TABLE or TRUNCATE changes the rows or
//! columns an index covers.

use std::sync::Arc;

use super::ddl::{claim_relation_name, relation_exists, wrong_object_type};
use crate::api::Notice;
use crate::catalog::{IndexDef, IndexMethod, QualifiedName, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::plan::CreateIndex;
use crate::storage::{build_unique_indexes, EnumTypes, RelationKind, Transaction};
use crate::types::DataType;

pub fn create_index(
    txn: &mut Transaction,
    spec: CreateIndex,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let mut entry = match txn.table_for_write(&spec.table_name)? {
        Some(entry) if entry.schema.oid == spec.table_oid => (*entry).clone(),
        _ => {
            return Err(Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{}\" does not exist", spec.table_name),
            ))
        }
    };
    let name = match spec.name {
        Some(name) => {
            let qualified = QualifiedName::new(spec.table_name.schema, name.as_str());
            if !claim_relation_name(txn, &qualified, spec.if_not_exists, notices)? {
                return Ok(());
            }
            name
        }
        None => choose_relation_name(txn, &spec.table_name, &spec.key_names.join("_"), "idx")?,
    };
    let mut schema = (*entry.schema).clone();
    if spec.unique {
        schema.unique_keys.push(UniqueKey {
            name,
            columns: spec.columns,
            primary: false,
            constraint: false,
            constraint_comment: None,
            index_comment: None,
        });
        let enums = &txn.view().enum_types;
        entry.unique_indexes = Arc::new(build_unique_indexes(&schema, &entry.data, enums)?);
    } else {
        // An hnsw graph is built now, as pgvector builds it, rather than by the first search.
        if let (IndexMethod::Hnsw(options), [column]) = (spec.method, spec.columns.as_slice()) {
            if let DataType::FloatVector(Some(dims)) = schema.columns[*column].data_type {
                let graph = entry
                    .secondary_indexes
                    .hnsw(*column, dims as usize, &options);
                graph.sync(&entry.data)?;
            }
        }
        schema.indexes.push(IndexDef {
            name,
            columns: spec.columns,
            method: spec.method,
            comment: None,
            expressions: spec.expressions,
            predicate: spec.predicate,
        });
    }
    entry.schema = Arc::new(schema);
    txn.put_table(entry);
    Ok(())
}

pub fn drop_indexes(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        txn.lock_name(name)?;
        let table = match txn.view().relation_kind(name) {
            Some(RelationKind::Index { table }) => table,
            Some(other) => return Err(wrong_object_type(name, &other, "an index")),
            None if if_exists => {
                notices.push(Notice {
                    severity: "NOTICE",
                    state: SqlState::SuccessfulCompletion,
                    message: format!("index \"{name}\" does not exist, skipping"),
                    detail: None,
                });
                continue;
            }
            None => {
                return Err(Error::new(
                    SqlState::UndefinedObject,
                    format!("index \"{name}\" does not exist"),
                ))
            }
        };
        let Some(entry) = txn.table_for_write(&QualifiedName::new(name.schema, table.as_str()))?
        else {
            return Err(Error::internal(format!(
                "table {table} of index {name} vanished"
            )));
        };
        let mut entry = (*entry).clone();
        let mut schema = (*entry.schema).clone();
        if let Some(key) = schema.unique_keys.iter().position(|k| k.name == name.name) {
            if schema.unique_keys[key].constraint {
                return Err(Error::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                        "cannot drop index {name} because constraint {name} on table {table} \
                         requires it"
                    ),
                )
                .with_hint(format!(
                    "You can drop constraint {name} on table {table} instead."
                )));
            }
            schema.unique_keys.remove(key);
        }
        schema.indexes.retain(|i| i.name != name.name);
        // The remaining keys were unique: no duplicate to print.
        let no_enums = &EnumTypes::default();
        entry.unique_indexes = Arc::new(build_unique_indexes(&schema, &entry.data, no_enums)?);
        // The remaining indexes rebuild lazily; the dropped one's memory goes now.
        entry.secondary_indexes = Arc::default();
        entry.schema = Arc::new(schema);
        txn.put_table(entry);
    }
    Ok(())
}

/// PostgreSQL's ChooseRelationName: `table_columns_suffix`, then with 1, 2, ... appended until
/// no relation has the name.
pub fn choose_relation_name(
    txn: &mut Transaction,
    table: &QualifiedName,
    columns: &str,
    suffix: &str,
) -> Result<String> {
    let base = if columns.is_empty() {
        format!("{table}_{suffix}")
    } else {
        format!("{table}_{columns}_{suffix}")
    };
    let mut candidate = base.clone();
    for n in 1.. {
        if !relation_exists(txn, &QualifiedName::new(table.schema, candidate.as_str()))? {
            break;
        }
        candidate = format!("{base}{n}");
    }
    Ok(candidate)
}
