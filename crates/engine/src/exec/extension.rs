//! CREATE EXTENSION and DROP EXTENSION, under the lock of the extension's name. What a
//! built-in extension provides stays usable after DROP EXTENSION; dropping pgvector is
//! still refused while columns use its type, as PostgreSQL refuses it.

use super::type_dependents::DroppedType;
use crate::api::Notice;
use crate::catalog::Extension;
use crate::error::{Error, Result, SqlState};
use crate::plan::ExtensionChange;
use crate::storage::Transaction;
use crate::types::DataType;

pub fn change_extension(
    txn: &mut Transaction,
    change: ExtensionChange,
    session: &crate::catalog::SessionRole,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    match change {
        ExtensionChange::Create {
            name,
            schema,
            owner,
            version,
            if_not_exists,
        } => {
            txn.lock_extension(&name)?;
            if txn.view().extensions.contains_key(&name) {
                let error = Error::new(
                    SqlState::DuplicateObject,
                    format!("extension \"{name}\" already exists"),
                );
                if if_not_exists {
                    notices.push(Notice::already_exists(&error));
                    return Ok(());
                }
                return Err(error);
            }
            let built_in = Extension::available(&name).map_or("", |e| e.version);
            if let Some(version) = version.filter(|v| v != built_in) {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    format!("extension \"{name}\" has no installation script nor update path for version \"{version}\""),
                ));
            }
            let extension = Extension {
                oid: txn.allocate_oid(),
                version: built_in.to_string(),
                name,
                owner,
                schema,
            };
            txn.put_extension(&extension.name.clone(), Some(extension));
            Ok(())
        }
        ExtensionChange::Drop {
            names,
            if_exists,
            cascade,
        } => {
            for name in names {
                txn.lock_extension(&name)?;
                let state = txn.view();
                if !state.extensions.contains_key(&name) {
                    if !if_exists {
                        return Err(Error::new(
                            SqlState::UndefinedObject,
                            format!("extension \"{name}\" does not exist"),
                        ));
                    }
                    notices.push(Notice::skipped(format!(
                        "extension \"{name}\" does not exist, skipping"
                    )));
                    continue;
                }
                let dependents = match name.as_str() {
                    "vector" => {
                        let vector = DroppedType {
                            oid: None,
                            name: "vector",
                            is_type: &|t| matches!(t, DataType::FloatVector(_)),
                            is_array: &|_| false,
                        };
                        super::type_dependents::type_dependents(&state, &vector)
                    }
                    "file_fdw" => super::foreign_server::wrapper_dependents(&state),
                    _ => Vec::new(),
                };
                if !dependents.is_empty() {
                    if !cascade {
                        return Err(super::drop_dependents::dependents_still_exist(
                            &format!("extension {name}"),
                            &dependents,
                        ));
                    }
                    if name != crate::catalog::FILE_FDW {
                        return Err(Error::unsupported(
                            "DROP EXTENSION ... CASCADE of an extension that columns use",
                        ));
                    }
                    let dropped = |line: &String| {
                        line.split(" depends on ")
                            .next()
                            .unwrap_or(line)
                            .to_string()
                    };
                    notices.push(Notice::skipped(match dependents.as_slice() {
                        [one] => format!("drop cascades to {}", dropped(one)),
                        many => format!("drop cascades to {} other objects", many.len()),
                    }));
                    super::foreign_server::drop_all_servers(txn, session)?;
                }
                txn.put_extension(&name, None);
            }
            Ok(())
        }
    }
}
