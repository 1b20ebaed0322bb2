//! CREATE EXTENSION and DROP EXTENSION: only the extensions built into the server can be
//! installed; the checks that need no catalog lock (availability, schema, privilege) are
//! made here, the rest when the statement runs.

use sqlparser::ast::{self, ReferentialAction};

use super::{ident_name, Binder};
use crate::catalog::{Extension, PG_CATALOG_OID};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, ExtensionChange};

impl Binder<'_> {
    pub(super) fn bind_create_extension(
        &mut self,
        create: &ast::CreateExtension,
    ) -> Result<BoundStatement> {
        let name = ident_name(&create.name);
        // 0A000 rather than PostgreSQL's 58P01 about a control file: this server has
        // extensions built in, not installed as files.
        let available = Extension::available(&name).ok_or_else(|| {
            Error::new(
                SqlState::FeatureNotSupported,
                format!("extension \"{name}\" is not available"),
            )
            .with_hint("The extensions this server carries are listed in pg_available_extensions.")
        })?;
        let schema = match (&create.schema, available.relocatable) {
            (Some(schema), true) => self.schema(&ident_name(schema))?.oid,
            (Some(schema), false) if ident_name(schema) != "pg_catalog" => {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("extension \"{name}\" must be installed in schema \"pg_catalog\""),
                ))
            }
            (_, false) => PG_CATALOG_OID,
            (None, true) => self.search_path.creation_schema(self.state)?,
        };
        if !available.trusted && !self.session_is_superuser() {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied to create extension \"{name}\""),
            )
            .with_hint("Must be superuser to create this extension."));
        }
        Ok(BoundStatement::ChangeExtension(ExtensionChange::Create {
            name,
            schema,
            owner: self.current_role(),
            version: create.version.as_ref().map(ident_name),
            if_not_exists: create.if_not_exists,
        }))
    }

    pub(super) fn bind_drop_extension(
        &mut self,
        drop: &ast::DropExtension,
    ) -> Result<BoundStatement> {
        let names: Vec<String> = drop.names.iter().map(ident_name).collect();
        for name in &names {
            let Some(extension) = self.state.extensions.get(name) else {
                continue;
            };
            if !self
                .state
                .roles
                .has_ownership(self.current_role(), extension.owner)
            {
                return Err(Error::new(
                    SqlState::InsufficientPrivilege,
                    format!("must be owner of extension {name}"),
                ));
            }
        }
        Ok(BoundStatement::ChangeExtension(ExtensionChange::Drop {
            names,
            if_exists: drop.if_exists,
            cascade: matches!(drop.cascade_or_restrict, Some(ReferentialAction::Cascade)),
        }))
    }
}
