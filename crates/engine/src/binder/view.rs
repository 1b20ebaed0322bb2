//! Views: CREATE [OR REPLACE] VIEW binds the query once to learn its columns and what it
//! reads; a view named in FROM is its query bound again in a context of its own (no outer
//! CTEs or columns) under the columns fixed at creation, like a derived table.

use std::sync::Arc;

use sqlparser::ast::{self, CreateTableOptions, Statement};

use super::from::alias_names;
use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::{AclMode, SearchPath, TableSchema, ViewDef};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, ColumnInfo, LogicalPlan, ScalarExpr};
use crate::storage::DbState;

impl Binder<'_> {
    pub(super) fn bind_create_view(&mut self, create: &ast::CreateView) -> Result<BoundStatement> {
        // The view keeps its query as text printed from the AST, which has no EXCLUDE.
        if !self.exclusions.is_empty() {
            return Err(Error::unsupported(
                "a window frame EXCLUDE clause in a view",
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
        if *if_not_exists {
            return Err(Error::syntax("syntax error at or near \"NOT\""));
        }
        if *or_alter
            || *materialized
            || *secure
            || *options != CreateTableOptions::None
            || !cluster_by.is_empty()
            || comment.is_some()
            || *with_no_schema_binding
            || *copy_grants
            || to.is_some()
            || params.is_some()
        {
            return Err(Error::unsupported(format!("the CREATE VIEW form {create}")));
        }
        let name = self.relation_creation_name(name, *temporary)?;
        let in_temp_schema = self.search_path.temp_schema(self.state) == Some(name.schema);
        self.referenced.clear();
        self.unpopulated_readable = true;
        let (_, outputs) = self.bind_query(query)?;
        self.unpopulated_readable = false;
        if !self.params.is_empty() {
            return Err(Error::new(
                SqlState::UndefinedParameter,
                "there is no parameter $1",
            ));
        }
        if columns.len() > outputs.len() {
            return Err(Error::syntax(
                "CREATE VIEW specifies more column names than columns",
            ));
        }
        let mut view_columns: Vec<(String, crate::types::DataType)> = outputs
            .iter()
            .map(|c| (c.name.clone(), c.data_type))
            .collect();
        for (column, name) in view_columns.iter_mut().zip(view_column_names(columns)?) {
            column.0 = name;
        }
        for (i, (column, ty)) in view_columns.iter().enumerate() {
            super::record::refuse_record_column(self.state, column, *ty)?;
            if view_columns[..i].iter().any(|(c, _)| c == column) {
                return Err(Error::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{column}\" specified more than once"),
                ));
            }
        }
        let mut depends_on = std::mem::take(&mut self.referenced);
        depends_on.sort();
        depends_on.dedup();
        // PostgreSQL makes such a view temporary itself, with a NOTICE; here it must say
        // CREATE TEMP VIEW.
        let temporary = self.state.temporary_schemas();
        if !in_temp_schema && depends_on.iter().any(|n| temporary.contains(&n.schema)) {
            return Err(Error::unsupported(
                "a permanent view over a temporary table (CREATE TEMP VIEW)",
            ));
        }
        // A permanent view's names resolve the same for every session: never through this
        // session's temporary schema.
        let search_path = self
            .searched
            .iter()
            .copied()
            .filter(|schema| in_temp_schema || !temporary.contains(schema))
            .collect();
        let view = ViewDef {
            namespace: name.schema,
            name: name.name,
            oid: 0,
            search_path,
            query_sql: query.to_string(),
            columns: view_columns,
            depends_on,
            comment: None,
            check_option: self.view_check_option,
        };
        if view.check_option.is_some() {
            self.check_option_allowed(&view)?;
        }
        Ok(BoundStatement::CreateView {
            view,
            or_replace: *or_replace,
        })
    }

    /// A view read in FROM: its query as a derived table named `alias` or after the view.
    pub(super) fn bind_view(
        &mut self,
        view: &Arc<ViewDef>,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let name = view.qualified_name();
        self.require_relation_or_columns(&name, view.oid, AclMode::SELECT)?;
        self.referenced.push(name);
        let plan = self.expand_view(view)?;
        let visible = alias.map_or_else(|| view.name.clone(), |a| ident_name(&a.name));
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let names = alias_names(
            &visible,
            column_aliases,
            view.columns.iter().map(|(name, _)| name.clone()).collect(),
        )?;
        let types = view.columns.iter().map(|(_, ty)| *ty);
        let scope = Scope::of_relation(&visible, view.oid, names.into_iter().zip(types));
        Ok((plan, scope))
    }

    /// Binds a view's query on its own and checks it still yields the view's columns (the
    /// query may yield more: `SELECT *` over a table that gained columns).
    pub(super) fn expand_view(&mut self, view: &ViewDef) -> Result<LogicalPlan> {
        let view_owner = Some(self.relation_owner(view.oid));
        let owner = std::mem::replace(&mut self.view_owner, view_owner);
        let bound =
            self.bind_stored_query(view.qualified_name(), &view.query_sql, &view.search_path);
        self.view_owner = owner;
        let (plan, columns) = bound?;
        check_view_columns(view, &columns)?;
        if columns.len() == view.columns.len() {
            return Ok(plan);
        }
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs: view
                .columns
                .iter()
                .enumerate()
                .map(|(index, (_, ty))| ScalarExpr::Column { index, ty: *ty })
                .collect(),
        })
    }

    /// Binds the query a view or materialized view `name` keeps as text, on its own and
    /// along the search path it was created with.
    pub(super) fn bind_stored_query(
        &mut self,
        name: crate::catalog::QualifiedName,
        query_sql: &str,
        search_path: &[u32],
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        if self.expanding_views.contains(&name) {
            return Err(infinite_recursion(&name.name));
        }
        let (query, exclusions) = stored_query(&name.name, query_sql)?;
        let searched = std::mem::replace(&mut self.searched, search_path.to_vec());
        self.expanding_views.push(name);
        // The view's own frame exclusions: locations in its text are not the statement's.
        let bound = self.bind_apart(&query, Vec::new(), exclusions);
        self.expanding_views.pop();
        self.searched = searched;
        bound
    }
}

/// The SQL functions `view`'s query calls itself (not through another view), by OID:
/// DROP FUNCTION of one is 2BP01 unless CASCADE drops the view.
pub fn view_functions(state: &DbState, view: &ViewDef) -> Result<Vec<u32>> {
    let search_path = SearchPath::default();
    let mut binder = Binder::new(state, &search_path, &[]);
    let (query, exclusions) = stored_query(&view.name, &view.query_sql)?;
    binder.searched = view.search_path.clone();
    binder.expanding_views.push(view.qualified_name());
    binder.exclusions = exclusions;
    binder.unpopulated_readable = true;
    binder.bind_query(&query)?;
    Ok(binder.functions_called)
}

/// The query a view or materialized view `name` keeps as text, parsed back, with its frame
/// exclusions.
fn stored_query(
    name: &str,
    query_sql: &str,
) -> Result<(Box<ast::Query>, crate::parser::FrameExclusions)> {
    let mut statements = crate::parser::parse_stored(query_sql)?;
    let (
        Some(crate::parser::Parsed {
            statement: crate::parser::Statement::Sql(Statement::Query(query)),
            exclusions,
            copy_header_match: false,
            identity_sequence_names: _,
            insert_overriding: None,
            table_likes: _,
            table_as_columns: _,
            view_check_option: None,
            transaction_deferrable: None,
            source: _,
        }),
        None,
    ) = (statements.pop(), statements.pop())
    else {
        return Err(Error::internal(format!(
            "the query of view \"{name}\" does not parse back"
        )));
    };
    Ok((query, exclusions))
}

/// Whether `view` still binds in `state` to its columns: DDL on the relations a view reads
/// checks this before it commits.
pub fn check_view(state: &DbState, view: &ViewDef) -> Result<()> {
    let search_path = SearchPath::default();
    let mut binder = Binder::new(state, &search_path, &[]);
    // What the view's owner may read is checked when the view is used, not here.
    binder.privileges_unchecked = true;
    binder.unpopulated_readable = true;
    binder.expand_view(view).map(|_| ())
}

fn check_view_columns(view: &ViewDef, columns: &[ColumnInfo]) -> Result<()> {
    let matches = columns.len() >= view.columns.len()
        && view
            .columns
            .iter()
            .zip(columns)
            .all(|((_, ty), c)| *ty == c.data_type);
    if matches {
        return Ok(());
    }
    Err(Error::new(
        SqlState::InvalidObjectDefinition,
        format!(
            "view \"{}\" no longer matches the relations it reads",
            view.name
        ),
    ))
}

fn infinite_recursion(name: &str) -> Error {
    Error::new(
        SqlState::InvalidObjectDefinition,
        format!("infinite recursion detected in rules for relation \"{name}\""),
    )
}

/// The names of a view's column list (`CREATE [MATERIALIZED] VIEW v (a, b)`): names only,
/// as PostgreSQL takes them.
pub(super) fn view_column_names(columns: &[ast::ViewColumnDef]) -> Result<Vec<String>> {
    columns
        .iter()
        .map(|def| {
            let ast::ViewColumnDef {
                name,
                data_type,
                options,
            } = def;
            if data_type.is_some() || options.is_some() {
                return Err(Error::unsupported(format!("the view column {def}")));
            }
            Ok(ident_name(name))
        })
        .collect()
}

/// After ALTER TABLE changed `old` into the table now in `state`: the views reading it
/// must still bind to their columns, and may not read a column whose type changed.
pub fn check_views_after_alter(
    state: &DbState,
    old: &TableSchema,
    new: &TableSchema,
) -> Result<()> {
    let old_name = old.qualified_name();
    let readers: Vec<Arc<ViewDef>> = state
        .dependent_views(std::slice::from_ref(&old_name))
        .into_iter()
        .filter(|(_, on)| *on == old_name)
        .map(|(view, _)| view)
        .collect();
    let Some(first) = readers.first() else {
        return Ok(());
    };
    if new.name != old.name {
        return Err(Error::unsupported(format!(
            "renaming table \"{}\", which view \"{}\" reads,",
            old.name, first.name
        )));
    }
    for column in &old.columns {
        let retyped = new
            .columns
            .iter()
            .any(|c| c.name == column.name && c.data_type != column.data_type);
        if let Some(view) = readers.iter().find(|v| retyped && v.mentions(&column.name)) {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "cannot alter type of a column used by a view or rule",
            )
            .with_detail(format!(
                "rule _RETURN on view {} depends on column \"{}\"",
                view.name, column.name
            )));
        }
    }
    for view in &readers {
        if check_view(state, view).is_ok() {
            continue;
        }
        let dropped = old
            .columns
            .iter()
            .filter(|c| new.column_index(&c.name).is_none())
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>();
        let renamed = new.columns.len() == old.columns.len();
        return Err(
            match dropped
                .iter()
                .find(|c| view.mentions(c))
                .or(dropped.first())
            {
                Some(column) if !renamed => Error::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                    "cannot drop column {column} of table {} because other objects depend on it",
                    old.name
                ),
                )
                .with_detail(format!(
                    "view {} depends on column {column} of table {}",
                    view.name, old.name
                ))
                .with_hint("Use DROP ... CASCADE to drop the dependent objects too."),
                _ => Error::unsupported(format!(
                    "renaming a column that view \"{}\" reads",
                    view.name
                )),
            },
        );
    }
    Ok(())
}
