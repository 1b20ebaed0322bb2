//! SQL function bodies that run statement by statement: several statements, a write
//! (INSERT, UPDATE or DELETE, with or without RETURNING), or a `void` result. PostgreSQL
//! runs such a body one statement after another, each of a VOLATILE function on a new
//! snapshot that sees the writes of the earlier ones, and the last one's first row is the
//! value. That cannot be a part of a larger plan, so here such a function is called only as
//! a whole `SELECT f(...)` (a `FunctionCall` statement), which the session runs one body
//! statement at a time (`api/session/function_call.rs`), binding each when it comes to it
//! with the parameters as the columns of an enclosing row. Any other call of one is 0A000.

use std::sync::Arc;

use sqlparser::ast::{self, Query, SelectItem, SetExpr, Statement};

use super::scope::Scope;
use super::sql_function::{shown_call_name, written_args};
use super::Binder;
use crate::catalog::{FunctionBody, FunctionDef, FunctionReturn};
use crate::error::{Error, Result, SqlState};
use crate::parser::{self, Parsed};
use crate::plan::{BoundStatement, ColumnInfo, FunctionCall};
use crate::types::DataType;

/// A body as it runs: one query bound into the calling statement, or statements the
/// session runs one by one.
pub(super) enum Body {
    Query(Box<ast::Query>, parser::FrameExclusions),
    Statements(Vec<Parsed>),
}

/// The body of `function`, parsed.
pub(super) fn parse_body(function: &FunctionDef) -> Result<Body> {
    let text = match &function.body {
        FunctionBody::Text(text) => text.clone(),
        FunctionBody::Return(expr) => format!("SELECT {expr}"),
    };
    let mut statements = parser::parse_stored(&text)?;
    let one_query = statements.len() == 1
        && function.returns != FunctionReturn::Void
        && matches!(
            statements[0].statement.sql(),
            Some(Statement::Query(query)) if super::modifying_cte::written_statement(&query.body).is_none()
        );
    if !one_query {
        return Ok(Body::Statements(statements));
    }
    match statements.pop().map(|p| (p.statement, p.exclusions)) {
        Some((parser::Statement::Sql(Statement::Query(query)), exclusions)) => {
            Ok(Body::Query(query, exclusions))
        }
        _ => Err(Error::internal("invariant: a one-query body holds a query")),
    }
}

/// The statements of a body run statement by statement, or `None` for one query.
pub(crate) fn body_statements(function: &FunctionDef) -> Result<Option<Vec<Parsed>>> {
    Ok(match parse_body(function)? {
        Body::Query(..) => None,
        Body::Statements(statements) => Some(statements),
    })
}

/// The command of a transaction control statement, which no function body may run
/// (PostgreSQL's CreateCommandName).
pub(crate) fn transaction_command(parsed: &Parsed) -> Option<&'static str> {
    Some(match parsed.statement.sql()? {
        Statement::StartTransaction { begin: true, .. } => "BEGIN",
        Statement::StartTransaction { begin: false, .. } => "START TRANSACTION",
        Statement::Commit { .. } => "COMMIT",
        Statement::Rollback { .. } => "ROLLBACK",
        Statement::Savepoint { .. } => "SAVEPOINT",
        Statement::ReleaseSavepoint { .. } => "RELEASE",
        _ => return None,
    })
}

/// 0A000 for a call of a statement-by-statement function inside a larger statement.
pub(super) fn not_alone(function: &FunctionDef) -> Error {
    Error::unsupported(format!(
        "calling function {} (whose body writes, returns void or has several statements) \
         other than alone as SELECT {}(...)",
        function.name.name, function.name.name
    ))
}

impl<'a> Binder<'a> {
    /// A statement of `function`'s body, bound with its parameters as the columns of the
    /// enclosing row (outer columns of depth 1, or `$n`).
    pub fn bind_function_statement(
        mut self,
        function: &FunctionDef,
        parsed: &Parsed,
    ) -> Result<BoundStatement> {
        let params = Scope::of_computed(
            &function.name.name,
            function
                .inputs()
                .map(|a| (a.name.clone().unwrap_or_default(), a.ty)),
        );
        self.outer_scopes = vec![(params, false)];
        self.function_params = Some(function.inputs().count());
        self.expanding_functions.push(function.oid);
        let (bound, _) = self.bind(parsed)?;
        if !matches!(
            bound,
            BoundStatement::Query { .. }
                | BoundStatement::Insert { .. }
                | BoundStatement::Update { .. }
                | BoundStatement::Delete { .. }
                | BoundStatement::WithWrites { .. }
                | BoundStatement::FunctionCall(_)
        ) {
            let shown = parsed
                .statement
                .sql()
                .map_or_else(String::new, |s| s.to_string());
            return Err(Error::unsupported(format!(
                "the statement \"{shown}\" in the body of a SQL function"
            )));
        }
        Ok(bound)
    }

    /// check_function_bodies for a statement-by-statement body: each statement binds (but
    /// transaction control, refused when it runs, as PostgreSQL does), and the last one's
    /// result fits the declared one.
    pub(super) fn check_body_statements(
        &mut self,
        function: &FunctionDef,
        statements: &[Parsed],
    ) -> Result<()> {
        let mut last_columns = None;
        for parsed in statements {
            last_columns = None;
            if transaction_command(parsed).is_some() {
                continue;
            }
            let bound = Binder::new(self.state, self.search_path, &[])
                .bind_function_statement(function, parsed)?;
            last_columns = bound.result_columns().cloned();
        }
        if function.returns == FunctionReturn::Void {
            return Ok(());
        }
        let Some(columns) = last_columns else {
            return Err(Error::new(
                SqlState::InvalidFunctionDefinition,
                format!(
                    "return type mismatch in function declared to return {}",
                    function.returns_shown()
                ),
            )
            .with_detail(
                "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.",
            ));
        };
        super::sql_function::body_outputs(function, &columns, self).map(|_| ())
    }

    /// `SELECT f(...)` alone, `f` a statement-by-statement function: the call the session
    /// runs. `None` for any other query.
    pub(super) fn bind_function_call_statement(
        &mut self,
        query: &Query,
    ) -> Result<Option<BoundStatement>> {
        let SetExpr::Select(select) = query.body.as_ref() else {
            return Ok(None);
        };
        let (call, alias) = match select.projection.as_slice() {
            [SelectItem::UnnamedExpr(ast::Expr::Function(call))] => (call, None),
            [SelectItem::ExprWithAlias {
                expr: ast::Expr::Function(call),
                alias,
            }] => (call, Some(alias)),
            _ => return Ok(None),
        };
        let ast::FunctionArguments::List(list) = &call.args else {
            return Ok(None);
        };
        let plain = list.clauses.is_empty()
            && list.duplicate_treatment.is_none()
            && call.over.is_none()
            && call.filter.is_none()
            && call.within_group.is_empty();
        if !plain {
            return Ok(None);
        }
        let Some(candidates) = self.sql_functions_named(&call.name)? else {
            return Ok(None);
        };
        // Any other clause prints: the query is exactly the call.
        let item = &select.projection[0];
        if candidates.is_empty() || query.to_string() != format!("SELECT {item}") {
            return Ok(None);
        }
        let written = written_args(&list.args)?;
        let shown = shown_call_name(&call.name);
        let Some(resolved) =
            self.resolve_sql_call(&shown, &candidates, &written, &Scope::default())?
        else {
            return Ok(None);
        };
        if body_statements(&resolved.function)?.is_none() {
            return Ok(None);
        }
        if resolved.function.returns_domain.is_some() {
            return Err(Error::unsupported(format!(
                "calling function {} of a domain result whose body writes or has several \
                 statements",
                resolved.function.name.name
            )));
        }
        let data_type = match &resolved.function.returns {
            FunctionReturn::Scalar(ty) => *ty,
            // A NULL of type void: no type here has its OID, text stands in.
            FunctionReturn::Void => DataType::Text,
            FunctionReturn::SetOf(_) | FunctionReturn::Table(_) | FunctionReturn::Row(_) => {
                return Err(Error::unsupported(format!(
                    "calling function {} of several rows or columns whose body writes or \
                     has several statements",
                    resolved.function.name.name
                )))
            }
        };
        let name = alias.map_or_else(|| resolved.function.name.name.clone(), super::ident_name);
        let columns: Arc<[ColumnInfo]> = Arc::from(vec![ColumnInfo {
            name,
            data_type,
            table_oid: 0,
            column_attnum: 0,
            presented_from: None,
        }]);
        Ok(Some(BoundStatement::FunctionCall(FunctionCall {
            function: resolved.function,
            args: resolved.args,
            columns,
        })))
    }
}
