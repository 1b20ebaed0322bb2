//! CREATE, ALTER and DROP USER MAPPING: which role a mapping is for (PUBLIC is role 0, as
//! in pg_user_mapping), the server's owner's right to change it, and the options file_fdw
//! takes on one (none).

use super::foreign_table::{apply_option_changes, generic_options, invalid_option};
use super::{ident_name, Binder};
use crate::catalog::{missing_role, ForeignServer, UserMapping};
use crate::error::Result;
use crate::parser::{ForeignStatement, MappingUser};
use crate::plan::{BoundStatement, ForeignDataChange, MappingChange};

impl Binder<'_> {
    pub(super) fn bind_user_mapping(
        &mut self,
        statement: &ForeignStatement,
    ) -> Result<BoundStatement> {
        let (user, server, if_exists) = match statement {
            ForeignStatement::CreateUserMapping { user, server, .. }
            | ForeignStatement::AlterUserMapping { user, server, .. } => (user, server, false),
            ForeignStatement::DropUserMapping {
                user,
                server,
                if_exists,
            } => (user, server, *if_exists),
            _ => {
                return Err(crate::error::Error::internal(
                    "invariant: a user mapping statement",
                ))
            }
        };
        let server_name = ident_name(server);
        let (role, user_name) = match user {
            MappingUser::Public => (0, "public".to_string()),
            MappingUser::Current | MappingUser::SessionUser => {
                (self.current_role(), self.search_path.user().to_string())
            }
            MappingUser::Role(name) => {
                let name = ident_name(name);
                match self.role_oid_named(&name) {
                    Some(oid) => (oid, name),
                    None if if_exists => {
                        return Ok(skipped(format!("role \"{name}\" does not exist, skipping")))
                    }
                    None => return Err(missing_role(&name)),
                }
            }
        };
        let Some(server) = self.state.foreign_servers.get(&server_name) else {
            if if_exists {
                return Ok(skipped(format!(
                    "server \"{server_name}\" does not exist, skipping"
                )));
            }
            return Err(ForeignServer::missing(&server_name));
        };
        self.require_server_owner(server)?;
        let change = match statement {
            ForeignStatement::CreateUserMapping {
                options,
                if_not_exists,
                ..
            } => {
                let options = generic_options(options)?;
                check_mapping_options(&options)?;
                MappingChange::Create {
                    options,
                    if_not_exists: *if_not_exists,
                }
            }
            ForeignStatement::AlterUserMapping { changes, .. } => {
                let Some(mapping) = server.user_mapping(role) else {
                    return Err(UserMapping::missing(&user_name, &server_name));
                };
                let mut options = mapping.options.clone();
                apply_option_changes(&mut options, changes)?;
                check_mapping_options(&options)?;
                MappingChange::Alter(options)
            }
            _ => MappingChange::Drop { if_exists },
        };
        Ok(BoundStatement::ChangeForeignData(
            ForeignDataChange::UserMapping {
                server: server_name,
                user: role,
                user_name,
                change,
            },
        ))
    }
}

/// file_fdw takes no options on a user mapping.
fn check_mapping_options(options: &[(String, String)]) -> Result<()> {
    match options.first() {
        Some((option, _)) => Err(invalid_option(option, &[])),
        None => Ok(()),
    }
}

/// A DROP USER MAPPING IF EXISTS that has nothing to drop: only its notice.
fn skipped(notice: String) -> BoundStatement {
    BoundStatement::ChangeForeignData(ForeignDataChange::MappingSkipped { notice })
}
