//! CREATE / DROP SERVER and CREATE / DROP FOREIGN TABLE, and what a foreign table reads:
//! file_fdw's options checked as its validator checks them (the table's own list, then
//! COPY FROM's rules), turned into the file source a scan of the table reads. A foreign
//! table is bound as a CREATE TABLE whose schema says it is foreign.

use std::sync::Arc;

use sqlparser::ast::{self, CopyOption, Ident};

use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::{ForeignServer, ForeignTable, TableSchema, FILE_FDW};
use crate::error::{Error, Result, SqlState};
use crate::files::{FileFormat, FileSource};
use crate::parser::{ForeignStatement, GenericOptions, OptionChange, OptionsAction};
use crate::plan::{BoundStatement, CopyFormat, ForeignDataChange, LogicalPlan};
use crate::storage::RelationKind;

/// The options file_fdw takes on a foreign table, in the order its hint lists them.
const FILE_FDW_TABLE_OPTIONS: &[&str] = &[
    "filename",
    "program",
    "format",
    "header",
    "delimiter",
    "quote",
    "escape",
    "null",
    "encoding",
];

impl Binder<'_> {
    pub(super) fn bind_foreign_statement(
        &mut self,
        statement: &ForeignStatement,
    ) -> Result<BoundStatement> {
        match statement {
            ForeignStatement::CreateServer {
                name,
                if_not_exists,
                wrapper,
                options,
            } => {
                self.require_file_fdw(&ident_name(wrapper))?;
                if let Some((option, _)) = generic_options(options)?.first() {
                    return Err(invalid_option(option, &[]));
                }
                Ok(BoundStatement::ChangeForeignData(
                    ForeignDataChange::Create {
                        server: ForeignServer {
                            oid: 0,
                            name: ident_name(name),
                            owner: self.current_role(),
                            wrapper: FILE_FDW.to_string(),
                            options: Vec::new(),
                            user_mappings: Vec::new(),
                        },
                        if_not_exists: *if_not_exists,
                    },
                ))
            }
            ForeignStatement::AlterServerOptions { name, changes } => {
                let name = ident_name(name);
                let Some(server) = self.state.foreign_servers.get(&name) else {
                    return Err(ForeignServer::missing(&name));
                };
                self.require_server_owner(server)?;
                let mut options = server.options.clone();
                apply_option_changes(&mut options, changes)?;
                if let Some((option, _)) = options.first() {
                    return Err(invalid_option(option, &[]));
                }
                Ok(BoundStatement::ChangeForeignData(
                    ForeignDataChange::AlterServerOptions {
                        server: name,
                        options,
                    },
                ))
            }
            ForeignStatement::CreateTable {
                name,
                if_not_exists,
                columns,
                column_options,
                constraints,
                server,
                options,
            } => self.bind_create_foreign_table(
                name,
                *if_not_exists,
                (columns, column_options),
                constraints,
                server,
                options,
            ),
            ForeignStatement::AlterTableOptions {
                name,
                if_exists,
                actions,
            } => self.bind_alter_foreign_table_options(name, *if_exists, actions),
            ForeignStatement::AlterTable(statement) => self.bind_alter_foreign_table(statement),
            ForeignStatement::CreateUserMapping { .. }
            | ForeignStatement::AlterUserMapping { .. }
            | ForeignStatement::DropUserMapping { .. } => self.bind_user_mapping(statement),
            ForeignStatement::Drop {
                table: false,
                names,
                if_exists,
                cascade,
            } => {
                let names = names
                    .iter()
                    .map(super::names::single_identifier)
                    .collect::<Result<Vec<_>>>()?;
                for name in &names {
                    if let Some(server) = self.state.foreign_servers.get(name) {
                        self.require_server_owner(server)?;
                    }
                }
                Ok(BoundStatement::ChangeForeignData(ForeignDataChange::Drop {
                    names,
                    if_exists: *if_exists,
                    cascade: *cascade,
                }))
            }
            ForeignStatement::Drop {
                table: true,
                names,
                if_exists,
                cascade,
            } => {
                let names = self.relation_names_to_drop(names, *if_exists)?;
                for name in &names {
                    self.require_owner_if_exists(name)?;
                }
                Ok(BoundStatement::DropTable {
                    names,
                    if_exists: *if_exists,
                    cascade: *cascade,
                    kind: RelationKind::ForeignTable,
                })
            }
        }
    }

    fn bind_create_foreign_table(
        &mut self,
        name: &ast::ObjectName,
        if_not_exists: bool,
        (columns, column_options): (&[ast::ColumnDef], &[GenericOptions]),
        constraints: &[ast::TableConstraint],
        server: &Ident,
        options: &[(Ident, String)],
    ) -> Result<BoundStatement> {
        let server = ident_name(server);
        if !self.state.foreign_servers.contains_key(&server) {
            return Err(ForeignServer::missing(&server));
        }
        let create = foreign_table_as_create_table(name, if_not_exists, columns, constraints)?;
        let mut bound = self.bind_create_table(&create)?;
        let BoundStatement::CreateTable { schema, .. } = &mut bound else {
            return Err(Error::internal(
                "invariant: CREATE TABLE binds to CreateTable",
            ));
        };
        if !schema.unique_keys.is_empty() {
            let kind = match schema.unique_keys.iter().any(|k| k.primary) {
                true => "primary key",
                false => "unique",
            };
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("{kind} constraints are not supported on foreign tables"),
            ));
        }
        if !schema.foreign_keys.is_empty() {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "foreign key constraints are not supported on foreign tables",
            ));
        }
        let options = generic_options(options)?;
        if !self.session_is_superuser() {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                "only superuser or a role with privileges of the pg_read_server_files role \
                 may specify the filename option of a file_fdw foreign table",
            ));
        }
        let foreign = ForeignTable { server, options };
        file_source(schema, &foreign)?;
        schema.foreign = Some(foreign);
        for (column, options) in schema.columns.iter_mut().zip(column_options) {
            column.fdw_options = generic_options(options)?;
            check_column_options(&column.fdw_options)?;
        }
        Ok(bound)
    }

    /// ALTER FOREIGN TABLE with actions other than options: the ALTER TABLE of the same
    /// actions, on a foreign table only, under its own command tag.
    fn bind_alter_foreign_table(&mut self, statement: &ast::Statement) -> Result<BoundStatement> {
        let ast::Statement::AlterTable(alter) = statement else {
            return Err(Error::unsupported(format!("ALTER FOREIGN {statement}")));
        };
        let name = match alter.if_exists {
            true => self.relation_name_if_exists(&alter.name)?,
            false => self.relation_name(&alter.name)?,
        };
        let kind = self.state.relation_kind(&name);
        let foreign = (self.state.table_by_name(&name)).is_some_and(|t| t.schema.foreign.is_some());
        if kind.is_some() && !foreign {
            return Err(not_foreign(&name.name, true));
        }
        self.bind_alter_table(alter)
            .map(|bound| super::materialized_view::retag_alter(bound, "ALTER FOREIGN TABLE"))
    }

    /// ALTER FOREIGN TABLE ... OPTIONS: the options after the changes, checked as CREATE
    /// checks them.
    fn bind_alter_foreign_table_options(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
        actions: &[OptionsAction],
    ) -> Result<BoundStatement> {
        let name = match if_exists {
            true => self.relation_name_if_exists(name)?,
            false => self.relation_name(name)?,
        };
        let Some(entry) = self.state.table_by_name(&name) else {
            if self.state.relation_kind(&name).is_none() && if_exists {
                return Ok(BoundStatement::AlterTable {
                    alter: None,
                    notices: vec![format!(
                        "relation \"{}\" does not exist, skipping",
                        name.name
                    )],
                    tag: "ALTER FOREIGN TABLE",
                });
            }
            return Err(not_foreign(
                &name.name,
                self.state.relation_kind(&name).is_some(),
            ));
        };
        let schema = entry.schema.clone();
        let Some(foreign) = &schema.foreign else {
            return Err(not_foreign(&name.name, true));
        };
        self.require_owner_if_exists(&name)?;
        let mut options = foreign.options.clone();
        let mut columns: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for action in actions {
            match action {
                OptionsAction::Table(changes) => apply_option_changes(&mut options, changes)?,
                OptionsAction::Column(column, changes) => {
                    let column = ident_name(column);
                    let at = match columns.iter().position(|(name, _)| *name == column) {
                        Some(at) => at,
                        None => {
                            let Some(def) = schema.columns.iter().find(|c| c.name == column) else {
                                return Err(Error::new(
                                    SqlState::UndefinedColumn,
                                    format!(
                                        "column \"{column}\" of relation \"{}\" does not exist",
                                        name.name
                                    ),
                                ));
                            };
                            columns.push((column, def.fdw_options.clone()));
                            columns.len() - 1
                        }
                    };
                    apply_option_changes(&mut columns[at].1, changes)?;
                    check_column_options(&columns[at].1)?;
                }
            }
        }
        if !self.session_is_superuser() {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                "only superuser or a role with privileges of the pg_read_server_files role \
                 may specify the filename option of a file_fdw foreign table",
            ));
        }
        let altered = ForeignTable {
            server: foreign.server.clone(),
            options,
        };
        file_source(&schema, &altered)?;
        Ok(BoundStatement::ChangeForeignData(
            ForeignDataChange::AlterTableOptions {
                table: name,
                options: altered.options,
                columns,
            },
        ))
    }

    /// A foreign table in FROM: a scan of its file with its declared columns.
    pub(super) fn bind_foreign_table_scan(
        &mut self,
        schema: &TableSchema,
        foreign: &ForeignTable,
        scope: Scope,
    ) -> Result<(LogicalPlan, Scope)> {
        let source = file_source(schema, foreign)?;
        let plan = LogicalPlan::FileScan {
            columns: (0..schema.columns.len()).collect(),
            source: Arc::new(source),
            types: schema.column_types(),
        };
        Ok((plan, scope))
    }

    /// The wrapper a server names: file_fdw, once its extension is installed.
    fn require_file_fdw(&self, wrapper: &str) -> Result<()> {
        if wrapper != FILE_FDW || !self.state.extensions.contains_key(FILE_FDW) {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!("foreign-data wrapper \"{wrapper}\" does not exist"),
            ));
        }
        // The extension grants no USAGE on its wrapper: only superusers use it.
        if !self.session_is_superuser() {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied for foreign-data wrapper {wrapper}"),
            ));
        }
        Ok(())
    }

    pub(super) fn require_server_owner(&self, server: &ForeignServer) -> Result<()> {
        match self
            .state
            .roles
            .has_ownership(self.current_role(), server.owner)
        {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("must be owner of foreign server {}", server.name),
            )),
        }
    }
}

/// CREATE FOREIGN TABLE's name and columns as the CREATE TABLE they are bound as.
fn foreign_table_as_create_table(
    name: &ast::ObjectName,
    if_not_exists: bool,
    columns: &[ast::ColumnDef],
    constraints: &[ast::TableConstraint],
) -> Result<ast::CreateTable> {
    let parsed = crate::parser::parse("CREATE TABLE t ()")?;
    let Some(crate::parser::Parsed {
        statement: crate::parser::Statement::Sql(ast::Statement::CreateTable(mut create)),
        ..
    }) = parsed.into_iter().next()
    else {
        return Err(Error::internal("invariant: CREATE TABLE t () parses"));
    };
    create.name = name.clone();
    create.if_not_exists = if_not_exists;
    create.columns = columns.to_vec();
    create.constraints = constraints.to_vec();
    Ok(create)
}

/// The file a foreign table reads, as its options describe it: file_fdw's validator's
/// checks, then COPY FROM's.
pub(super) fn file_source(schema: &TableSchema, foreign: &ForeignTable) -> Result<FileSource> {
    let mut filename = None;
    let mut program = false;
    let mut copy = Vec::new();
    for (name, value) in &foreign.options {
        match name.as_str() {
            "filename" => filename = Some(value.as_str()),
            "program" => program = true,
            // As written: `'CSV'` is not a format, as in PostgreSQL.
            "format" => copy.push(CopyOption::Format(Ident::with_quote('"', value))),
            "header" => copy.push(CopyOption::Header(header(value)?)),
            "delimiter" | "quote" | "escape" => {
                let mut chars = value.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else {
                    return Err(Error::new(
                        SqlState::FeatureNotSupported,
                        format!("COPY {name} must be a single one-byte character"),
                    ));
                };
                copy.push(match name.as_str() {
                    "delimiter" => CopyOption::Delimiter(c),
                    "quote" => CopyOption::Quote(c),
                    _ => CopyOption::Escape(c),
                });
            }
            "null" => copy.push(CopyOption::Null(value.clone())),
            "encoding" => copy.push(CopyOption::Encoding(value.clone())),
            other => return Err(invalid_option(other, FILE_FDW_TABLE_OPTIONS)),
        }
    }
    for (flag, option) in [
        (
            "force_not_null",
            CopyOption::ForceNotNull as fn(Vec<Ident>) -> CopyOption,
        ),
        ("force_null", CopyOption::ForceNull),
    ] {
        let columns: Vec<Ident> = (schema.columns.iter())
            .filter(|c| (c.fdw_options.iter()).any(|(n, v)| n == flag && boolean(v) == Some(true)))
            .map(|c| Ident::with_quote('"', &c.name))
            .collect();
        if !columns.is_empty() {
            copy.push(option(columns));
        }
    }
    if program && filename.is_some() {
        return Err(Error::syntax("conflicting or redundant options"));
    }
    let options = super::copy::copy_from_options(&copy, schema)?;
    // Running a shell command as the server's user is a capability this server does not
    // give, superuser or not.
    if program {
        return Err(Error::unsupported(
            "the program option of file_fdw (running a command on the server)",
        ));
    }
    let filename = filename.ok_or_else(|| {
        Error::new(
            SqlState::FdwDynamicParameterValueNeeded,
            "either filename or program is required for file_fdw foreign tables",
        )
    })?;
    let format = match options.format {
        CopyFormat::Parquet => FileFormat::Parquet,
        CopyFormat::Binary => return Err(Error::unsupported("file_fdw with format 'binary'")),
        CopyFormat::Text | CopyFormat::Csv => FileFormat::Copy {
            options,
            table_name: schema.name.clone(),
        },
    };
    let columns = (schema.columns.iter())
        .map(|c| (c.name.clone(), c.data_type))
        .collect();
    Ok(FileSource::declared(format, filename, columns))
}

/// `OPTIONS (name 'value', ...)` by name; a name given twice is 42710, as PostgreSQL
/// checks every wrapper's options.
pub(super) fn generic_options(options: &[(Ident, String)]) -> Result<Vec<(String, String)>> {
    let mut named: Vec<(String, String)> = Vec::with_capacity(options.len());
    for (name, value) in options {
        let name = ident_name(name);
        if named.iter().any(|(seen, _)| *seen == name) {
            return Err(Error::new(
                SqlState::DuplicateObject,
                format!("option \"{name}\" provided more than once"),
            ));
        }
        named.push((name, value.clone()));
    }
    Ok(named)
}

/// The changes of ALTER ... OPTIONS applied to `options`: ADD of a present option and SET
/// or DROP of an absent one are errors, as in PostgreSQL.
pub(super) fn apply_option_changes(
    options: &mut Vec<(String, String)>,
    changes: &[OptionChange],
) -> Result<()> {
    for change in changes {
        let (option, value) = match change {
            OptionChange::Add(option, value) | OptionChange::Set(option, value) => {
                (ident_name(option), Some(value))
            }
            OptionChange::Drop(option) => (ident_name(option), None),
        };
        let position = options.iter().position(|(n, _)| *n == option);
        match (change, position, value) {
            (OptionChange::Add(..), Some(_), _) => {
                return Err(Error::new(
                    SqlState::DuplicateObject,
                    format!("option \"{option}\" provided more than once"),
                ))
            }
            (OptionChange::Add(..), None, Some(value)) => options.push((option, value.clone())),
            (OptionChange::Set(..) | OptionChange::Drop(_), None, _) => {
                return Err(Error::new(
                    SqlState::UndefinedObject,
                    format!("option \"{option}\" not found"),
                ))
            }
            (OptionChange::Set(..), Some(at), Some(value)) => options[at].1 = value.clone(),
            (OptionChange::Drop(_), Some(at), _) => {
                options.remove(at);
            }
            (OptionChange::Add(..) | OptionChange::Set(..), _, None) => {
                return Err(Error::internal("invariant: ADD and SET carry a value"))
            }
        }
    }
    Ok(())
}

/// A foreign table column's options as file_fdw's validator checks them: force_not_null
/// and force_null, each a Boolean.
fn check_column_options(options: &[(String, String)]) -> Result<()> {
    for (name, value) in options {
        if !matches!(name.as_str(), "force_not_null" | "force_null") {
            return Err(invalid_option(name, &["force_not_null", "force_null"]));
        }
        if boolean(value).is_none() {
            return Err(Error::syntax(format!("{name} requires a Boolean value")));
        }
    }
    Ok(())
}

/// A Boolean option's value as defGetBoolean reads a string: only true, false, on and
/// off, in any case (not the other spellings a boolean value takes).
fn boolean(value: &str) -> Option<bool> {
    match value.to_lowercase().as_str() {
        "true" | "on" => Some(true),
        "false" | "off" => Some(false),
        _ => None,
    }
}

/// HEADER's value: a Boolean or "match".
fn header(value: &str) -> Result<bool> {
    match boolean(value) {
        Some(header) => Ok(header),
        None if value.eq_ignore_ascii_case("match") => {
            Err(Error::unsupported("file_fdw with header 'match'"))
        }
        None => Err(Error::syntax(
            "header requires a Boolean value or \"match\"",
        )),
    }
}

/// 42809 for a relation that is not a foreign table, 42P01 for none.
fn not_foreign(name: &str, exists: bool) -> Error {
    match exists {
        true => Error::new(
            SqlState::WrongObjectType,
            format!("\"{name}\" is not a foreign table"),
        ),
        false => Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        ),
    }
}

/// HV00D for an option the wrapper does not take here, with the ones it does.
pub(super) fn invalid_option(name: &str, valid: &[&str]) -> Error {
    let error = Error::new(
        SqlState::FdwInvalidOptionName,
        format!("invalid option \"{name}\""),
    );
    match valid {
        [] => error.with_hint("There are no valid options in this context."),
        _ => error.with_hint(format!(
            "Valid options in this context are: {}",
            valid.join(", ")
        )),
    }
}
