//! Binding: AST + a database version → bound statement. Resolves names to column positions
//! and table OIDs, types every expression with PostgreSQL's rules, infers `$n` parameter
//! types, and rejects (0A000) every clause it does not implement rather than ignoring it.

mod alter_table;
mod array;
mod catalog_call;
mod check;
mod coerce;
mod column_privilege;
mod comment;
mod composite_type;
mod copy;
mod create_table_like;
mod data_type;
mod datetime_ops;
mod datetime_syntax;
mod ddl;
mod dml;
mod domain;
mod enum_type;
mod expand_array;
mod expr;
mod extension;
mod file_function;
mod foreign_key;
mod foreign_table;
mod from;
mod function_body;
mod function_ddl;
mod generated;
mod grouping;
mod hnsw_index;
mod index;
mod jsonb_subscript;
mod lateral;
mod materialized_view;
mod modifying_cte;
mod names;
mod on_conflict;
mod operator;
mod outer_join_row;
mod partition;
mod populate_record;
mod position;
mod present;
mod privilege;
mod record;
mod recursive_cte;
mod role;
mod row;
mod row_locking;
mod schema;
mod scope;
mod select;
mod select_srf;
mod sequence;
mod set_operation;
mod special_functions;
mod sql_function;
mod storage_parameters;
mod subscript_assignment;
mod truncate;
mod updatable_view;
mod user_mapping;
mod utility;
mod variadic;
mod view;
mod window;

use std::sync::Arc;

use sqlparser::ast::{Ident, Statement};
use sqlparser::tokenizer::Location;

use crate::catalog::{QualifiedName, SearchPath};
use crate::error::{Error, Result, SqlState};
use crate::parser::{self, FrameExclusion, FrameExclusions, Parsed};
use crate::plan::BoundStatement;
use crate::storage::{DbState, TableEntry};
use crate::types::DataType;

pub use check::{stored_expr_functions, StoredExprOwner};
pub use data_type::{bind_data_type, MAX_CHAR_LENGTH, NUMERIC_MAX_SUPPORTED_PRECISION};
pub(crate) use dml::column_default_expr;
use expr::AggregateCollector;
pub(crate) use function_body::{body_statements, transaction_command};
pub use view::{check_view, check_views_after_alter, view_functions};

/// Binds one statement against one database version.
pub struct Binder<'a> {
    state: &'a DbState,
    /// Where new relations named without a schema are created.
    search_path: &'a SearchPath,
    /// The schemas unqualified relation names are looked up in, in order: the search
    /// path's, or a view's while its query is bound.
    searched: Vec<u32>,
    /// Types of `$1..$n`: declared by the client or inferred while binding.
    params: Vec<DataType>,
    /// Where aggregates may appear, the calls found so far.
    aggregates: Option<AggregateCollector>,
    /// The clause being bound when aggregates are not allowed there.
    aggregate_forbidden_in: Option<&'static str>,
    /// Common table expressions in scope, innermost last.
    ctes: Vec<from::BoundCte>,
    /// Scopes of the queries enclosing the subquery being bound, innermost last, and for
    /// each whether the subquery bound inside it reads it (is correlated).
    outer_scopes: Vec<(scope::Scope, bool)>,
    /// Number of subqueries bound so far: their ids.
    subquery_count: usize,
    /// Where window functions may appear, the calls found so far.
    windows: Option<Vec<crate::plan::WindowCall>>,
    /// `WINDOW name AS (...)` definitions of the SELECT being bound, with their EXCLUDE.
    named_windows: Vec<(String, sqlparser::ast::WindowSpec, FrameExclusion)>,
    /// The frame EXCLUDE clauses of the statement's text, and the owners of those bound.
    exclusions: FrameExclusions,
    exclusions_used: Vec<Location>,
    /// Binding a window function's arguments (window calls may not nest).
    in_window_args: bool,
    /// Recursive CTE work tables referenced so far, by id.
    work_tables_read: Vec<usize>,
    /// The recursive CTEs being bound, by work table id, with the subquery depth of their
    /// definition: a subquery inside the recursive term may not read the work table.
    recursive_terms: Vec<(usize, usize)>,
    /// How many expression subqueries (EXISTS, IN, scalar, ARRAY) enclose what is bound.
    sublink_depth: usize,
    /// The next WITH clause bound is the statement's own, which may hold data-modifying
    /// queries; those bound so far, by work table id, in WITH order.
    writes_allowed: bool,
    writes: Vec<(usize, BoundStatement)>,
    /// Views whose query is being bound, innermost last: a view reading itself is an error.
    expanding_views: Vec<QualifiedName>,
    /// Tables and views named in FROM outside any view's query: what a view depends on.
    referenced: Vec<QualifiedName>,
    /// The columns left of the FROM item being bound, which a LATERAL subquery may read.
    lateral_scope: Option<scope::Scope>,
    /// Whether the last FROM item bound was a LATERAL subquery that reads them.
    lateral_correlated: bool,
    /// The FROM items further left that a LATERAL item inside a join may also read (`a, b
    /// JOIN LATERAL (... a ...)`), outermost first, each with whether one did.
    lateral_outer: Vec<(scope::Scope, bool)>,
    /// FROM items bound already that the query being bound may not read: those left of a
    /// subquery in FROM that is not LATERAL, an UPDATE's target from its FROM list.
    /// PostgreSQL's error for a reference to one says it exists.
    unreachable_scopes: Vec<scope::Scope>,
    /// How many expressions and set operations enclose the one being bound.
    nesting_depth: usize,
    /// The SELECT about to be bound leaves its untyped literal outputs untyped for its
    /// caller to type: a set operation's branch (the branches' common type decides) or an
    /// INSERT's source (the target columns do).
    untyped_outputs_kept: bool,
    /// The SELECT being bound had its select list's set-returning calls moved into FROM.
    select_srfs_moved: bool,
    /// The statement is a COPY that said HEADER MATCH (see `parser::copy_options`).
    copy_header_match: bool,
    /// The `SEQUENCE NAME`s of the statement's identity columns not bound yet, in order.
    identity_sequence_names: std::collections::VecDeque<Option<Vec<Ident>>>,
    /// The INSERT being bound said OVERRIDING ... VALUE.
    insert_overriding: Option<parser::Overriding>,
    /// The LIKE elements of the CREATE TABLE being bound.
    table_likes: Vec<parser::TableLike>,
    /// The column names of the CREATE TABLE ... AS being bound.
    table_as_columns: Vec<Ident>,
    /// CREATE VIEW's WITH CHECK OPTION, which the parser took off the statement.
    view_check_option: Option<crate::catalog::ViewCheckOption>,
    /// BEGIN's or SET TRANSACTION's `[NOT] DEFERRABLE`, which the parser took off it.
    transaction_deferrable: Option<bool>,
    /// Binding a SQL function's body: its parameter count (`$n` reads the parameters).
    function_params: Option<usize>,
    /// SQL functions whose body is being bound, innermost last: a body calling its own
    /// function cannot be expanded in place.
    expanding_functions: Vec<u32>,
    /// SQL functions called outside any view's query or function body, by OID: what a
    /// view depends on (a string body's calls are not dependencies, as in PostgreSQL).
    functions_called: Vec<u32>,
    /// Binding a view's query: its owner, whose privileges it is checked with.
    view_owner: Option<u32>,
    /// Binding only to see that something still binds (a view after DDL under it).
    privileges_unchecked: bool,
    /// Binding a query that is not run (a view's, EXPLAIN's without ANALYZE): a materialized
    /// view WITH NO DATA may be named, as only scanning one is PostgreSQL's 55000.
    unpopulated_readable: bool,
    /// Relations read or written through column privileges, and the columns used.
    column_uses: column_privilege::ColumnUses,
    /// The client's text the statement's spans point into, for error positions; `None`
    /// while binding text the database stored (see `position`).
    source: Option<Arc<str>>,
    /// The last expression bound failed: its error already had its chance of a position.
    subexpression_failed: bool,
}

impl<'a> Binder<'a> {
    pub fn new(
        state: &'a DbState,
        search_path: &'a SearchPath,
        param_types: &[DataType],
    ) -> Binder<'a> {
        Binder {
            state,
            search_path,
            searched: search_path.searched(state),
            params: param_types.to_vec(),
            aggregates: None,
            aggregate_forbidden_in: None,
            ctes: Vec::new(),
            outer_scopes: Vec::new(),
            subquery_count: 0,
            windows: None,
            named_windows: Vec::new(),
            exclusions: FrameExclusions::default(),
            exclusions_used: Vec::new(),
            in_window_args: false,
            work_tables_read: Vec::new(),
            recursive_terms: Vec::new(),
            sublink_depth: 0,
            writes_allowed: false,
            writes: Vec::new(),
            expanding_views: Vec::new(),
            referenced: Vec::new(),
            lateral_scope: None,
            lateral_correlated: false,
            lateral_outer: Vec::new(),
            unreachable_scopes: Vec::new(),
            nesting_depth: 0,
            untyped_outputs_kept: false,
            select_srfs_moved: false,
            copy_header_match: false,
            identity_sequence_names: Default::default(),
            insert_overriding: None,
            table_likes: Vec::new(),
            table_as_columns: Vec::new(),
            view_check_option: None,
            transaction_deferrable: None,
            function_params: None,
            expanding_functions: Vec::new(),
            functions_called: Vec::new(),
            view_owner: None,
            privileges_unchecked: false,
            unpopulated_readable: false,
            column_uses: Default::default(),
            source: None,
            subexpression_failed: false,
        }
    }

    /// Binds `statement`; returns it with the parameter types (untyped ones become text).
    pub fn bind(mut self, parsed: &Parsed) -> Result<(BoundStatement, Vec<DataType>)> {
        let Parsed {
            statement,
            exclusions,
            copy_header_match,
            identity_sequence_names,
            insert_overriding,
            table_likes,
            table_as_columns,
            view_check_option,
            transaction_deferrable,
            source,
        } = parsed;
        self.source = source.clone();
        self.view_check_option = *view_check_option;
        self.transaction_deferrable = *transaction_deferrable;
        self.exclusions = exclusions.clone();
        self.copy_header_match = *copy_header_match;
        self.identity_sequence_names = identity_sequence_names.iter().cloned().collect();
        self.table_likes = table_likes.clone();
        self.table_as_columns = table_as_columns.clone();
        match (insert_overriding, statement.sql()) {
            (None, _) => {}
            (Some(_), Some(Statement::Insert(_))) => self.insert_overriding = *insert_overriding,
            (Some(_), _) => return Err(Error::syntax("syntax error at or near \"OVERRIDING\"")),
        }
        let bound = match statement {
            parser::Statement::Sql(statement) => self.bind_statement(statement)?,
            parser::Statement::AlterSequence(alter) => self.bind_alter_sequence(alter)?,
            parser::Statement::CommentOnConstraint(comment) => {
                self.bind_comment_on_constraint(comment)?
            }
            parser::Statement::CreateUser(create) => self.bind_create_role(create, true)?,
            parser::Statement::RoleMembership(membership) => {
                self.bind_role_membership(membership)?
            }
            parser::Statement::MaterializedView(statement) => {
                self.bind_materialized_view(statement)?
            }
            parser::Statement::Domain(statement) => self.bind_domain_statement(statement)?,
            parser::Statement::DropIndexConcurrently(drop) => {
                self.bind_drop_index_concurrently(drop)?
            }
            parser::Statement::Foreign(statement) => self.bind_foreign_statement(statement)?,
            parser::Statement::Fetch(_) => {
                return Err(Error::internal("FETCH is run by the session, not bound"))
            }
        };
        let bound = self.with_writes(bound)?;
        self.check_column_uses()?;
        // Likewise a SEQUENCE NAME of an identity column.
        if self.identity_sequence_names.iter().any(Option::is_some) {
            return Err(Error::unsupported("SEQUENCE NAME here"));
        }
        // An EXCLUDE the binder never reached would be silently ignored.
        if let Some(owner) = self
            .exclusions
            .owners()
            .find(|o| !self.exclusions_used.contains(o))
        {
            return Err(Error::unsupported(format!(
                "a window frame EXCLUDE clause here (line {}, column {})",
                owner.line, owner.column
            )));
        }
        let params = self
            .params
            .iter()
            .map(|t| {
                if *t == DataType::Unknown {
                    DataType::Text
                } else {
                    *t
                }
            })
            .collect();
        Ok((bound, params))
    }

    fn bind_statement(&mut self, statement: &Statement) -> Result<BoundStatement> {
        let bound = match statement {
            Statement::Query(query) => self.bind_query_statement(query)?,
            Statement::Insert(insert) => self.bind_insert(insert)?,
            Statement::Copy {
                source,
                to,
                target,
                options,
                legacy_options,
                values,
            } => self.bind_copy(source, *to, target, options, legacy_options, values)?,
            Statement::Update(update) => self.bind_update(update)?,
            Statement::Delete(delete) => self.bind_delete(delete)?,
            Statement::CreateTable(create) => self.bind_create_table(create)?,
            Statement::CreateIndex(create) => self.bind_create_index(create)?,
            Statement::Truncate(truncate) => self.bind_truncate(truncate)?,
            Statement::Analyze(_) | Statement::Vacuum(_) => self.bind_maintenance(statement)?,
            Statement::AlterTable(alter) => self.bind_alter_table(alter)?,
            Statement::CreateSchema { .. } => self.bind_create_schema(statement)?,
            Statement::AlterSchema(alter) => self.bind_alter_schema(alter)?,
            Statement::CreateView(create) => self.bind_create_view(create)?,
            Statement::CreateType {
                name,
                representation,
            } => self.bind_create_type(name, representation.as_ref())?,
            Statement::AlterType(alter) => self.bind_alter_type(alter)?,
            Statement::CreateRole(create) => self.bind_create_role(create, false)?,
            Statement::AlterRole { name, operation } => self.bind_alter_role(name, operation)?,
            Statement::CreateFunction(create) => self.bind_create_function(create)?,
            Statement::DropFunction(drop) => self.bind_drop_function(drop)?,
            Statement::CreateExtension(create) => self.bind_create_extension(create)?,
            Statement::DropExtension(drop) => self.bind_drop_extension(drop)?,
            Statement::Drop {
                object_type,
                if_exists,
                names,
                cascade,
                restrict: _,
                purge,
                temporary,
                table,
            } => self.bind_drop(
                *object_type,
                *if_exists,
                names,
                *cascade,
                *purge || *temporary || table.is_some(),
            )?,
            Statement::Explain {
                describe_alias: _,
                analyze,
                verbose,
                query_plan: _,
                estimate,
                statement: inner,
                format,
                options,
            } => {
                let Statement::Query(query) = inner.as_ref() else {
                    return Err(Error::unsupported(format!("EXPLAIN of {inner}")));
                };
                if *verbose || *estimate || format.is_some() || options.is_some() {
                    return Err(Error::unsupported(format!("{statement}")));
                }
                self.unpopulated_readable = !*analyze;
                let (plan, _) = self.bind_query(query)?;
                BoundStatement::Explain {
                    plan,
                    analyze: *analyze,
                }
            }
            Statement::CreateSequence {
                temporary,
                if_not_exists,
                name,
                data_type,
                sequence_options,
                owned_by,
            } => self.bind_create_sequence(
                name,
                *temporary,
                *if_not_exists,
                data_type.as_ref(),
                sequence_options,
                owned_by.as_ref(),
            )?,
            Statement::Comment {
                object_type,
                object_name,
                comment,
                if_exists,
            } => self.bind_comment(object_type, object_name, comment.as_ref(), *if_exists)?,
            Statement::Grant(grant) => self.bind_grant(grant)?,
            Statement::Revoke(revoke) => self.bind_revoke(revoke)?,
            other => self.bind_utility(other)?,
        };
        Ok(bound)
    }

    /// Binds `query`, written elsewhere (a view's definition, a SQL function's body), apart
    /// from the statement around it: `outer` are its only enclosing scopes and `exclusions`
    /// its own text's frame exclusions; the statement's CTEs, aggregates, lateral scope and
    /// referenced tables are set aside while it is bound.
    fn bind_apart(
        &mut self,
        query: &sqlparser::ast::Query,
        outer: Vec<(scope::Scope, bool)>,
        exclusions: FrameExclusions,
    ) -> Result<(crate::plan::LogicalPlan, Vec<crate::plan::ColumnInfo>)> {
        let saved = (
            std::mem::take(&mut self.ctes),
            std::mem::replace(&mut self.outer_scopes, outer),
            self.aggregates.take(),
            self.aggregate_forbidden_in.take(),
            std::mem::take(&mut self.referenced),
            self.lateral_scope.take(),
            std::mem::replace(&mut self.exclusions, exclusions),
            std::mem::take(&mut self.exclusions_used),
            std::mem::take(&mut self.functions_called),
        );
        let bound = self.without_positions(|binder| binder.bind_query(query));
        (
            self.ctes,
            self.outer_scopes,
            self.aggregates,
            self.aggregate_forbidden_in,
            self.referenced,
            self.lateral_scope,
            self.exclusions,
            self.exclusions_used,
            self.functions_called,
        ) = saved;
        bound
    }

    fn table(&self, name: &QualifiedName) -> Result<&'a Arc<TableEntry>> {
        if self.state.views.contains_key(name) {
            // Row writes through views go through `write_target`; the rest take tables.
            return Err(Error::unsupported(format!("writing to view \"{name}\"")));
        }
        if self.state.composite_type_named(name).is_some() {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is a composite type"),
            ));
        }
        self.state.table_by_name(name).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{name}\" does not exist"),
            )
        })
    }
}

/// An identifier as PostgreSQL folds it: lower-case unless quoted.
pub fn ident_name(ident: &Ident) -> String {
    match ident.quote_style {
        Some(_) => ident.value.clone(),
        None => ident.value.to_lowercase(),
    }
}
