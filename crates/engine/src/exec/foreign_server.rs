//! CREATE SERVER and DROP SERVER, under the lock of the server's name, which CREATE
//! FOREIGN TABLE also takes so the server it names stays until it commits. Dropping a
//! server its foreign tables use is 2BP01, or with CASCADE drops them too.

use crate::api::Notice;
use crate::catalog::{ForeignServer, QualifiedName, SessionRole, UserMapping};
use crate::error::{Error, Result, SqlState};
use crate::plan::{ForeignDataChange, MappingChange};
use crate::storage::{DbState, RelationKind, Transaction};

pub fn change_foreign_server(
    txn: &mut Transaction,
    change: ForeignDataChange,
    session: &SessionRole,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    match change {
        ForeignDataChange::Create {
            mut server,
            if_not_exists,
        } => {
            txn.lock_foreign_server(&server.name)?;
            if txn.view().foreign_servers.contains_key(&server.name) {
                let error = Error::new(
                    SqlState::DuplicateObject,
                    format!("server \"{}\" already exists", server.name),
                );
                if if_not_exists {
                    notices.push(Notice::already_exists(&error));
                    return Ok(());
                }
                return Err(error);
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
                        return Err(ForeignServer::missing(&name));
                    }
                    notices.push(Notice::skipped(format!(
                        "server \"{name}\" does not exist, skipping"
                    )));
                    continue;
                }
                drop_dependent_tables(txn, &name, cascade, session, notices)?;
                txn.put_foreign_server(&name, None);
            }
            Ok(())
        }
        ForeignDataChange::AlterServerOptions { server, options } => {
            change_server(txn, &server, |server| {
                server.options = options;
                Ok(())
            })
        }
        ForeignDataChange::AlterTableOptions {
            table,
            options,
            columns,
        } => {
            txn.lock_name(&table)?;
            super::comment::change_table(txn, &table, |schema| {
                let Some(foreign) = &mut schema.foreign else {
                    return Err(Error::new(
                        SqlState::WrongObjectType,
                        format!("\"{}\" is not a foreign table", table.name),
                    ));
                };
                foreign.options = options;
                for (name, options) in columns {
                    let column = (schema.columns.iter_mut())
                        .find(|c| c.name == name)
                        .ok_or_else(|| {
                            Error::new(
                                SqlState::UndefinedColumn,
                                format!(
                                    "column \"{name}\" of relation \"{}\" does not exist",
                                    table.name
                                ),
                            )
                        })?;
                    column.fdw_options = options;
                }
                Ok(())
            })
        }
        ForeignDataChange::UserMapping {
            server,
            user,
            user_name,
            change,
        } => {
            if let MappingChange::Drop { if_exists: true } = change {
                txn.lock_foreign_server(&server)?;
                let present = (txn.view().foreign_servers.get(&server))
                    .is_some_and(|s| s.user_mapping(user).is_some());
                if !present {
                    notices.push(Notice::skipped(format!(
                        "user mapping for \"{user_name}\" does not exist for server \"{server}\", skipping"
                    )));
                    return Ok(());
                }
            }
            let oid = match change {
                MappingChange::Create { .. } => Some(txn.allocate_oid()),
                _ => None,
            };
            let mut skipped = None;
            change_server(txn, &server, |found| {
                let at = found.user_mappings.iter().position(|m| m.role == user);
                match (change, at) {
                    (MappingChange::Create { if_not_exists, .. }, Some(_)) => {
                        let error = Error::new(
                            SqlState::DuplicateObject,
                            format!(
                                "user mapping for \"{user_name}\" already exists for server \"{server}\""
                            ),
                        );
                        match if_not_exists {
                            true => skipped = Some(Notice::already_exists(&error)),
                            false => return Err(error),
                        }
                    }
                    (MappingChange::Create { options, .. }, None) => {
                        found.user_mappings.push(UserMapping {
                            oid: oid.unwrap_or_default(),
                            role: user,
                            options,
                        })
                    }
                    (MappingChange::Alter(options), Some(at)) => {
                        found.user_mappings[at].options = options
                    }
                    (MappingChange::Drop { .. }, Some(at)) => {
                        found.user_mappings.remove(at);
                    }
                    (MappingChange::Alter(_) | MappingChange::Drop { .. }, None) => {
                        return Err(UserMapping::missing(&user_name, &server))
                    }
                }
                Ok(())
            })?;
            notices.extend(skipped);
            Ok(())
        }
        ForeignDataChange::MappingSkipped { notice } => {
            notices.push(Notice::skipped(notice));
            Ok(())
        }
    }
}

/// Changes server `name` under its lock (42704 if it is gone).
fn change_server(
    txn: &mut Transaction,
    name: &str,
    change: impl FnOnce(&mut ForeignServer) -> Result<()>,
) -> Result<()> {
    txn.lock_foreign_server(name)?;
    let Some(server) = txn.view().foreign_servers.get(name).cloned() else {
        return Err(ForeignServer::missing(name));
    };
    let mut server = (*server).clone();
    change(&mut server)?;
    txn.put_foreign_server(name, Some(server));
    Ok(())
}

/// DROP ROLE's check: 2BP01 while a user mapping is the role's.
pub fn check_role_unmapped(state: &DbState, role: u32, name: &str) -> Result<()> {
    let mut servers: Vec<&ForeignServer> = (state.foreign_servers.values())
        .map(|s| &**s)
        .filter(|s| s.user_mapping(role).is_some())
        .collect();
    if servers.is_empty() {
        return Ok(());
    }
    servers.sort_by_key(|s| s.oid);
    let lines: Vec<String> = (servers.iter())
        .map(|s| format!("owner of user mapping for {name} on server {}", s.name))
        .collect();
    Err(Error::new(
        SqlState::DependentObjectsStillExist,
        format!("role \"{name}\" cannot be dropped because some objects depend on it"),
    )
    .with_detail(lines.join("\n")))
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
pub fn drop_all_servers(txn: &mut Transaction, session: &SessionRole) -> Result<()> {
    let names: Vec<String> = txn.view().foreign_servers.keys().cloned().collect();
    for name in names {
        txn.lock_foreign_server(&name)?;
        drop_dependent_tables(txn, &name, true, session, &mut Vec::new())?;
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
        false => Err(ForeignServer::missing(name)),
    }
}

/// The foreign tables of server `server`: 2BP01 naming them, or with `cascade` dropped.
fn drop_dependent_tables(
    txn: &mut Transaction,
    server: &str,
    cascade: bool,
    session: &SessionRole,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let tables = server_tables(&txn.view(), server);
    let mappings: Vec<(u32, String)> = match txn.view().foreign_servers.get(server) {
        Some(found) => (found.user_mappings.iter())
            .map(|m| {
                let user = match m.role {
                    0 => "public".to_string(),
                    role => (txn.view().roles.displayed_name(role, session)).unwrap_or_default(),
                };
                (m.oid, format!("user mapping for {user} on server {server}"))
            })
            .collect(),
        None => Vec::new(),
    };
    if tables.is_empty() && mappings.is_empty() {
        return Ok(());
    }
    // In the order they were made, as PostgreSQL's dependency scan finds them.
    let mut dependents: Vec<(u32, String)> = (tables.iter())
        .map(|(oid, name)| (*oid, format!("foreign table {}", name.name)))
        .chain(mappings)
        .collect();
    dependents.sort_by_key(|(oid, _)| *oid);
    let described: Vec<String> = dependents.into_iter().map(|(_, d)| d).collect();
    if !cascade {
        let lines: Vec<String> = (described.iter())
            .map(|table| format!("{table} depends on server {server}"))
            .collect();
        return Err(super::drop_dependents::dependents_still_exist(
            &format!("server {server}"),
            &lines,
        ));
    }
    notices.push(super::drop_dependents::cascade_notice(&described));
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
