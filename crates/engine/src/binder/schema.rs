//! CREATE SCHEMA and ALTER SCHEMA (DROP SCHEMA is bound with the other DROPs). Whether a
//! schema exists is checked when the statement runs, under the lock of its name.

use sqlparser::ast::{self, AlterSchemaOperation, SchemaName, Statement};

use super::names::single_identifier;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::plan::BoundStatement;

impl Binder<'_> {
    pub(super) fn bind_create_schema(&mut self, statement: &Statement) -> Result<BoundStatement> {
        let Statement::CreateSchema {
            schema_name,
            or_replace,
            if_not_exists,
            with,
            options,
            default_collate_spec,
            clone,
        } = statement
        else {
            return Err(Error::internal(
                "invariant: bind_create_schema of CREATE SCHEMA",
            ));
        };
        if *or_replace
            || with.is_some()
            || options.is_some()
            || default_collate_spec.is_some()
            || clone.is_some()
        {
            return Err(Error::unsupported(format!(
                "the CREATE SCHEMA form {statement}"
            )));
        }
        let (name, owner) = match schema_name {
            SchemaName::Simple(name) => (single_identifier(name)?, self.search_path.user().into()),
            SchemaName::UnnamedAuthorization(role) => {
                let role = self.role(role)?;
                (role.clone(), role)
            }
            SchemaName::NamedAuthorization(name, role) => {
                (single_identifier(name)?, self.role(role)?)
            }
        };
        check_acceptable(&name)?;
        self.require_database(crate::catalog::AclMode::CREATE)?;
        Ok(BoundStatement::CreateSchema {
            name,
            owner,
            if_not_exists: *if_not_exists,
        })
    }

    pub(super) fn bind_alter_schema(&mut self, alter: &ast::AlterSchema) -> Result<BoundStatement> {
        let ast::AlterSchema {
            name,
            if_exists,
            operations,
        } = alter;
        match (operations.as_slice(), if_exists) {
            ([AlterSchemaOperation::Rename { name: new_name }], false) => {
                let new_name = single_identifier(new_name)?;
                check_acceptable(&new_name)?;
                Ok(BoundStatement::RenameSchema {
                    name: single_identifier(name)?,
                    new_name,
                })
            }
            ([AlterSchemaOperation::OwnerTo { owner }], false) => {
                self.owner(owner)?;
                self.schema(&single_identifier(name)?)?;
                Ok(BoundStatement::Maintenance {
                    tag: "ALTER SCHEMA",
                    tables: Vec::new(),
                })
            }
            _ => Err(Error::unsupported(format!("the ALTER SCHEMA form {alter}"))),
        }
    }

    /// The role OWNER TO names, which must be the session's user: objects are all owned by
    /// the bootstrap superuser, and ownership by other roles is not kept.
    pub(super) fn owner(&self, owner: &ast::Owner) -> Result<String> {
        match owner {
            ast::Owner::Ident(role) => self.role(role),
            _ => Ok(self.owner_name(owner)),
        }
    }

    /// The name of the role OWNER TO names, unchecked.
    pub(super) fn owner_name(&self, owner: &ast::Owner) -> String {
        match owner {
            ast::Owner::Ident(role) => ident_name(role),
            ast::Owner::CurrentRole | ast::Owner::CurrentUser | ast::Owner::SessionUser => {
                self.search_path.user().to_string()
            }
        }
    }

    /// The role AUTHORIZATION names: the session's user (see [`Binder::owner`]).
    fn role(&self, role: &ast::Ident) -> Result<String> {
        let name = ident_name(role);
        let user = self.search_path.user();
        match name.as_str() {
            _ if name == user => Ok(name),
            "current_user" | "current_role" | "session_user" if role.quote_style.is_none() => {
                Ok(user.to_string())
            }
            _ if self.state.roles.by_name(&name).is_some() => Err(Error::unsupported(
                "objects owned by a role other than the bootstrap superuser",
            )),
            _ => Err(Error::new(
                SqlState::UndefinedObject,
                format!("role \"{name}\" does not exist"),
            )),
        }
    }
}

/// PostgreSQL keeps names starting with `pg_` for its own schemas.
fn check_acceptable(name: &str) -> Result<()> {
    if name.starts_with("pg_") {
        return Err(Error::new(
            SqlState::ReservedName,
            format!("unacceptable schema name \"{name}\""),
        )
        .with_detail("The prefix \"pg_\" is reserved for system schemas."));
    }
    Ok(())
}
