//! PREPARE, EXECUTE and DEALLOCATE: prepared statements named in SQL. They live in the
//! session like the protocol's, are bound (and their parameter types inferred) at PREPARE,
//! and EXECUTE runs them with its constant arguments converted to those types.

use std::sync::Arc;

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Statement};

use super::Session;
use crate::api::StatementResult;
use crate::binder::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::exec::expression::evaluate;
use crate::exec::ExecContext;
use crate::parser::{self, FrameExclusions, Parsed};
use crate::types::DataType;
use crate::vector::Batch;

fn undefined(name: &str) -> Error {
    Error::new(
        SqlState::InvalidSqlStatementName,
        format!("prepared statement \"{name}\" does not exist"),
    )
}

impl Session {
    /// The result of `statement` if it is PREPARE, EXECUTE or DEALLOCATE.
    pub(super) fn run_prepared_sql(&mut self, parsed: &Parsed) -> Option<Result<StatementResult>> {
        match parsed.statement.sql()? {
            Statement::Prepare { .. } if !parsed.exclusions.is_empty() => {
                // The statement is kept (and its plan cached) under its text printed from
                // the AST, which has no EXCLUDE.
                Some(Err(Error::unsupported(
                    "a window frame EXCLUDE clause in PREPARE",
                )))
            }
            Statement::Prepare {
                name,
                data_types,
                statement,
            } => Some(self.sql_prepare(name, data_types, statement, parsed)),
            Statement::Execute {
                name: Some(name),
                parameters,
                has_parentheses: _,
                immediate: false,
                into,
                using,
                output: false,
                default: false,
            } if into.is_empty() && using.is_empty() => Some(self.sql_execute(name, parameters)),
            Statement::Deallocate { name, prepare: _ } => Some(self.sql_deallocate(name)),
            _ => None,
        }
    }

    fn sql_prepare(
        &mut self,
        name: &Ident,
        data_types: &[sqlparser::ast::DataType],
        statement: &Statement,
        prepare: &Parsed,
    ) -> Result<StatementResult> {
        let name = ident_name(name);
        if self.sql_prepared.contains_key(&name) {
            return Err(Error::new(
                SqlState::DuplicatePreparedStatement,
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let view = self.view();
        let search_path = self.search_path()?;
        let declared = Binder::new(&view, &search_path, &[]).bind_param_types(data_types)?;
        let parsed = Parsed {
            statement: parser::Statement::Sql(statement.clone()),
            exclusions: FrameExclusions::default(),
            copy_header_match: false,
            identity_sequence_names: Vec::new(),
            insert_overriding: None,
            table_likes: Vec::new(),
            table_as_columns: Vec::new(),
            view_check_option: None,
            transaction_deferrable: None,
            source: prepare.source.clone(),
        };
        let (bound, param_types) = Binder::new(&view, &search_path, &declared).bind(&parsed)?;
        // Bound again by EXECUTE, whose client text is not the PREPARE's.
        let parsed = Parsed {
            source: None,
            ..parsed
        };
        let prepared = self.prepared(statement.to_string(), parsed, &bound, param_types)?;
        let source = (self.prepare_source.clone())
            .unwrap_or_else(|| Arc::from(format!("PREPARE {name} AS {statement}")));
        self.list_prepared(name.clone(), source, &prepared, true);
        self.sql_prepared.insert(name, prepared);
        Ok(StatementResult::command("PREPARE"))
    }

    fn sql_execute(
        &mut self,
        name: &ObjectName,
        arguments: &[sqlparser::ast::Expr],
    ) -> Result<StatementResult> {
        let name = match name.0.as_slice() {
            [ObjectNamePart::Identifier(ident)] => ident_name(ident),
            _ => return Err(undefined(&name.to_string())),
        };
        let prepared = self
            .sql_prepared
            .get(&name)
            .cloned()
            .ok_or_else(|| undefined(&name))?;
        let types: Vec<DataType> = (prepared.param_types().iter())
            .map(|ty| ty.param_value_type())
            .collect();
        if arguments.len() != types.len() {
            return Err(Error::syntax(format!(
                "wrong number of parameters for prepared statement \"{name}\""
            ))
            .with_detail(format!(
                "Expected {} parameters but got {}.",
                types.len(),
                arguments.len()
            )));
        }
        let view = self.view();
        let search_path = self.search_path()?;
        let exprs =
            Binder::new(&view, &search_path, &[]).bind_parameter_values(arguments, &types)?;
        let ctx = ExecContext::new(
            Vec::new(),
            view,
            self.cancel.interrupt.clone(),
            self.sequences.clone(),
        );
        let row = Batch::new(Vec::new(), 1);
        let params = exprs
            .iter()
            .map(|e| Ok(evaluate(e, &row, &ctx)?.get_scalar(0)))
            .collect::<Result<Vec<_>>>()?;
        self.execute_prepared(&prepared, &params)
    }

    fn sql_deallocate(&mut self, name: &Ident) -> Result<StatementResult> {
        if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all") {
            self.sql_prepared.clear();
            self.prepared_listing.remove_sql_statements();
            return Ok(StatementResult::command("DEALLOCATE ALL"));
        }
        let name = ident_name(name);
        if self.sql_prepared.remove(&name).is_none() {
            return Err(undefined(&name));
        }
        self.prepared_listing.remove(&name);
        Ok(StatementResult::command("DEALLOCATE"))
    }
}
