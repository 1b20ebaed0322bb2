//! CREATE SERVER and DROP SERVER, under the lock of the server's name, which CREATE
//! FOREIGN TABLE also takes so the server it names stays until it commits. Dropping a
//! server its foreign tables use is 2BP01, or with CASCADE drops them too.

use crate::api::Notice;
use crate::catalog::{ForeignServer, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::plan::ForeignDataChange;
use crate::storage::{DbState, RelationKind, Transaction};

pub fn change_foreign_server(
    txn: &mut Transaction,
    change: ForeignDataChange,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    match change {
        ForeignDataChange::Create {
            mut server,
            if_not_exists,
        } => {
            txn.lock_foreign_server(&server.name)?;
            if txn.view().foreign_servers.contains_key(&server.name) {
                let message = format!("server \"{}\" already exists", server.name);
                if if_not_exists {
                    notices.push(Notice::skipped(format!("{message}, skipping")));
                    return Ok(());
                }
                return Err(Error::new(SqlState::DuplicateObject, message));
            }
            server.oid = txn.allocate_oid();
            txn.put_foreign_server(&server.name.clone(), Some(server));
            Ok(())
        }
        ForeignDataChange::Drop {
            names,
            if_exists,
            cascade,
        } => {
            for name in names {
                txn.lock_foreign_server(&name)?;
                if !txn.view().foreign_servers.contains_key(&name) {
                    if !if_exists {
                        return Err(missing_server(&name));
                    }
                    notices.push(Notice::skipped(format!(
                        "server \"{name}\" does not exist, skipping"
                    )));
                    continue;
                }
                drop_dependent_tables(txn, &name, cascade, notices)?;
                txn.put_foreign_server(&name, None);
            }
            Ok(())
        }
        ForeignDataChange::AlterTableOptions { table, options } => {
            txn.lock_name(&table)?;
            super::comment::change_table(txn, &table, |schema| match &mut schema.foreign {
                Some(foreign) => {
                    foreign.options = options;
                    Ok(())
                }
                None => Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{}\" is not a foreign table", table.name),
                )),
            })
        }
    }
}

/// What depends on file_fdw, as DROP EXTENSION's detail lines: its servers, each followed
/// by its foreign tables.
pub fn wrapper_dependents(state: &DbState) -> Vec<String> {
    let mut servers: Vec<&ForeignServer> = state.foreign_servers.values().map(|s| &**s).collect();
    servers.sort_by_key(|s| s.oid);
    let mut lines = Vec::new();
    for server in servers {
        lines.push(format!(
            "server {} depends on foreign-data wrapper {}",
            server.name, server.wrapper
        ));
        for (_, table) in server_tables(state, &server.name) {
            lines.push(format!(
                "foreign table {} depends on server {}",
                table.name, server.name
            ));
        }
    }
    lines
}

/// DROP EXTENSION file_fdw CASCADE: every server goes, with its foreign tables.
pub fn drop_all_servers(txn: &mut Transaction) -> Result<()> {
    let names: Vec<String> = txn.view().foreign_servers.keys().cloned().collect();
    for name in names {
        txn.lock_foreign_server(&name)?;
        drop_dependent_tables(txn, &name, true, &mut Vec::new())?;
        txn.put_foreign_server(&name, None);
    }
    Ok(())
}

/// The foreign tables of server `server`, by OID.
fn server_tables(state: &DbState, server: &str) -> Vec<(u32, QualifiedName)> {
    let mut tables: Vec<(u32, QualifiedName)> = (state.tables.values())
        .filter(|t| {
            t.schema
                .foreign
                .as_ref()
                .is_some_and(|f| f.server == server)
        })
        .map(|t| (t.schema.oid, t.schema.qualified_name()))
        .collect();
    tables.sort_by_key(|(oid, _)| *oid);
    tables
}

/// Checks, under the server's lock, that the server a new foreign table names exists.
pub fn check_server(txn: &mut Transaction, name: &str) -> Result<()> {
    txn.lock_foreign_server(name)?;
    match txn.view().foreign_servers.contains_key(name) {
        true => Ok(()),
        false => Err(missing_server(name)),
    }
}

pub fn missing_server(name: &str) -> Error {
    Error::new(
        SqlState::UndefinedObject,
        format!("server \"{name}\" does not exist"),
    )
}

/// The foreign tables of server `server`: 2BP01 naming them, or with `cascade` dropped.
fn drop_dependent_tables(
    txn: &mut Transaction,
    server: &str,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let tables = server_tables(&txn.view(), server);
    if tables.is_empty() {
        return Ok(());
    }
    let described: Vec<String> = (tables.iter())
        .map(|(_, name)| format!("foreign table {}", name.name))
        .collect();
    if !cascade {
        let lines: Vec<String> = (described.iter())
            .map(|table| format!("{table} depends on server {server}"))
            .collect();
        return Err(Error::new(
            SqlState::DependentObjectsStillExist,
            format!("cannot drop server {server} because other objects depend on it"),
        )
        .with_detail(lines.join("\n"))
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    notices.push(Notice::skipped(match described.as_slice() {
        [one] => format!("drop cascades to {one}"),
        many => format!("drop cascades to {} other objects", many.len()),
    }));
    let names: Vec<QualifiedName> = tables.into_iter().map(|(_, name)| name).collect();
    super::ddl::drop_tables(
        txn,
        &names,
        false,
        true,
        &RelationKind::ForeignTable,
        &mut Vec::new(),
    )
}
