//! Materialized views: CREATE MATERIALIZED VIEW is CREATE TABLE AS whose table keeps its
//! query (`catalog::MaterializedView`); REFRESH binds that query again, along the search
//! path it was created with, as the rows that replace the table's. The table can be read
//! (once populated) and indexed, never written by INSERT, UPDATE, DELETE or COPY.

use sqlparser::ast::{self, AlterTableOperation, CreateTableOptions, ObjectName};

use super::Binder;
use crate::catalog::{quote_identifier, MaterializedView, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::parser::MaterializedViewStatement;
use crate::plan::BoundStatement;
use crate::types::DataType;

impl Binder<'_> {
    pub(super) fn bind_materialized_view(
        &mut self,
        statement: &MaterializedViewStatement,
    ) -> Result<BoundStatement> {
        match statement {
            MaterializedViewStatement::Create { create, with_data } => {
                self.bind_create_materialized_view(create, *with_data)
            }
            MaterializedViewStatement::Refresh {
                name,
                concurrently,
                with_data,
            } => self.bind_refresh(name, *concurrently, *with_data),
            MaterializedViewStatement::Alter(alter) => self.bind_alter_materialized_view(alter),
        }
    }

    fn bind_create_materialized_view(
        &mut self,
        create: &ast::CreateView,
        with_data: bool,
    ) -> Result<BoundStatement> {
        if !self.exclusions.is_empty() {
            return Err(Error::unsupported(
                "a window frame EXCLUDE clause in a materialized view",
            ));
        }
        let ast::CreateView {
            or_alter,
            or_replace,
            materialized,
            secure,
            name,
            name_before_not_exists: _,
            columns,
            query,
            options,
            cluster_by,
            comment,
            with_no_schema_binding,
            if_not_exists,
            temporary,
            copy_grants,
            to,
            params,
        } = create;
        if *or_alter
            || *or_replace
            || !*materialized
            || *secure
            || *options != CreateTableOptions::None
            || !cluster_by.is_empty()
            || comment.is_some()
            || *with_no_schema_binding
            || *temporary
            || *copy_grants
            || to.is_some()
            || params.is_some()
        {
            return Err(Error::unsupported(format!(
                "the CREATE MATERIALIZED VIEW form {create}"
            )));
        }
        let name = self.relation_creation_name(name, false)?;
        self.referenced.clear();
        let names = super::view::view_column_names(columns)?;
        let mut bound = self.bind_table_from_query(name, *if_not_exists, false, query, names)?;
        if !self.params.is_empty() {
            return Err(Error::new(
                SqlState::UndefinedParameter,
                "there is no parameter $1",
            ));
        }
        let mut depends_on = std::mem::take(&mut self.referenced);
        depends_on.sort();
        depends_on.dedup();
        let temporary = self.state.temporary_schemas();
        if depends_on.iter().any(|n| temporary.contains(&n.schema)) {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "materialized views must not use temporary tables or views",
            ));
        }
        let search_path = self
            .searched
            .iter()
            .copied()
            .filter(|schema| !temporary.contains(schema))
            .collect();
        let BoundStatement::CreateTable { schema, source, .. } = &mut bound else {
            return Err(Error::internal(
                "invariant: a table from a query binds to CREATE TABLE",
            ));
        };
        schema.materialized = Some(MaterializedView {
            query_sql: query.to_string(),
            search_path,
            populated: with_data,
            depends_on,
        });
        if !with_data {
            *source = None;
        }
        Ok(bound)
    }

    /// REFRESH MATERIALIZED VIEW: its query's rows, or none (WITH NO DATA), replace its rows.
    fn bind_refresh(
        &mut self,
        name: &ObjectName,
        concurrently: bool,
        with_data: bool,
    ) -> Result<BoundStatement> {
        let name = self.relation_name(name)?;
        let schema = self.materialized_view(&name)?.clone();
        let Some(materialized) = &schema.materialized else {
            return Err(Error::internal(
                "invariant: materialized_view returns materialized views",
            ));
        };
        if concurrently {
            if !with_data {
                return Err(Error::syntax(
                    "CONCURRENTLY and WITH NO DATA options cannot be used together",
                ));
            }
            if !materialized.populated {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "CONCURRENTLY cannot be used when the materialized view is not populated",
                ));
            }
            // Every unique index here has no WHERE clause and is on plain columns.
            if schema.unique_keys.is_empty() {
                let namespace = self
                    .state
                    .schemas
                    .get(&name.schema)
                    .map_or("", |s| s.name.as_str());
                let qualified = format!(
                    "{}.{}",
                    quote_identifier(namespace),
                    quote_identifier(&name.name)
                );
                return Err(Error::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    format!("cannot refresh materialized view \"{qualified}\" concurrently"),
                )
                .with_hint(
                    "Create a unique index with no WHERE clause on one or more columns of the \
                     materialized view.",
                ));
            }
        }
        let source = match with_data {
            false => None,
            true => {
                let (plan, columns) = self.bind_stored_query(
                    name.clone(),
                    &materialized.query_sql,
                    &materialized.search_path,
                )?;
                // What CREATE made of the query's columns (an untyped literal is text).
                let same = columns.len() == schema.columns.len()
                    && columns.iter().zip(&schema.columns).all(|(c, def)| {
                        c.data_type == def.data_type
                            || (c.data_type == DataType::Unknown && def.data_type == DataType::Text)
                    });
                if !same {
                    return Err(Error::new(
                        SqlState::InvalidObjectDefinition,
                        format!(
                            "materialized view \"{}\" no longer matches the relations it reads",
                            name.name
                        ),
                    ));
                }
                Some(plan)
            }
        };
        Ok(BoundStatement::RefreshMaterializedView {
            oid: schema.oid,
            name,
            source,
        })
    }

    /// ALTER MATERIALIZED VIEW: the renames and OWNER TO of ALTER TABLE, on a materialized
    /// view only.
    fn bind_alter_materialized_view(&mut self, alter: &ast::AlterTable) -> Result<BoundStatement> {
        let name = match alter.if_exists {
            true => self.relation_name_if_exists(&alter.name)?,
            false => self.relation_name(&alter.name)?,
        };
        if alter.if_exists && self.state.relation_kind(&name).is_none() {
            return self
                .bind_alter_table(alter)
                .map(|bound| retag_alter(bound, "ALTER MATERIALIZED VIEW"));
        }
        self.materialized_view(&name)?;
        if let Some(operation) = alter
            .operations
            .iter()
            .find(|o| !allowed_on_materialized_view(o))
        {
            return Err(Error::unsupported(format!(
                "ALTER MATERIALIZED VIEW ... {operation}"
            )));
        }
        self.bind_alter_table(alter)
            .map(|bound| retag_alter(bound, "ALTER MATERIALIZED VIEW"))
    }

    /// The materialized view `name`: 42809 for another relation, 42P01 for none.
    fn materialized_view(&self, name: &QualifiedName) -> Result<&TableSchema> {
        match self.state.table_by_name(name) {
            Some(entry) if entry.schema.materialized.is_some() => Ok(&entry.schema),
            _ => Err(match self.state.relation_kind(name) {
                Some(_) => Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{}\" is not a materialized view", name.name),
                ),
                None => Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{}\" does not exist", name.name),
                ),
            }),
        }
    }
}

/// What ALTER TABLE may do to a materialized view: rename it or its columns, give it an
/// owner.
pub(super) fn allowed_on_materialized_view(operation: &AlterTableOperation) -> bool {
    matches!(
        operation,
        AlterTableOperation::RenameTable { .. }
            | AlterTableOperation::RenameColumn { .. }
            | AlterTableOperation::OwnerTo { .. }
    )
}

/// ALTER MATERIALIZED VIEW's or ALTER FOREIGN TABLE's own command tag on the ALTER TABLE
/// it is bound as.
pub(super) fn retag_alter(bound: BoundStatement, tag: &'static str) -> BoundStatement {
    match bound {
        BoundStatement::AlterTable { alter, notices, .. } => BoundStatement::AlterTable {
            alter,
            notices,
            tag,
        },
        BoundStatement::Maintenance { tables, .. } => BoundStatement::Maintenance { tag, tables },
        other => other,
    }
}

/// 42809 for a write to a materialized view, as PostgreSQL refuses one.
pub(super) fn check_writable(schema: &TableSchema) -> Result<()> {
    match schema.materialized {
        Some(_) => Err(Error::new(
            SqlState::WrongObjectType,
            format!("cannot change materialized view \"{}\"", schema.name),
        )),
        None => Ok(()),
    }
}

/// 55000 for a read of a materialized view WITH NO DATA.
pub(super) fn check_populated(schema: &TableSchema) -> Result<()> {
    match &schema.materialized {
        Some(materialized) if !materialized.populated => Err(Error::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "materialized view \"{}\" has not been populated",
                schema.name
            ),
        )
        .with_hint("Use the REFRESH MATERIALIZED VIEW command.")),
        _ => Ok(()),
    }
}
