//! Transaction control and session settings: BEGIN/COMMIT/ROLLBACK, SET/RESET/SHOW.

use sqlparser::ast::{
    self, Expr, Reset, Statement, TransactionIsolationLevel, TransactionMode, Value,
};

use super::{ident_name, Binder};
use crate::catalog::quote_identifier;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::{BoundStatement, SavepointAction, ScalarExpr, SetVariable, TransactionModes};
use crate::types::DataType;

impl Binder<'_> {
    /// The types PREPARE declares for its parameters: built-in, enum or row types. A
    /// domain's check would be lost on a parameter, so one is not supported yet.
    pub fn bind_param_types(&self, types: &[ast::DataType]) -> Result<Vec<DataType>> {
        (types.iter())
            .map(|ty| match self.domain_of(ty) {
                Some(_) => Err(Error::unsupported("a parameter of a domain type")),
                // A parameter's type has no modifier, as in PostgreSQL: `PREPARE
                // q(varchar(2))` takes 'abc' whole, `q(timestamp(0))` keeps the fraction.
                None => self.bind_type(ty).map(DataType::unmodified),
            })
            .collect()
    }

    /// The parameter values of `EXECUTE name(values)`: constant expressions converted to the
    /// prepared statement's parameter types as an assignment would convert them.
    pub fn bind_parameter_values(
        mut self,
        values: &[Expr],
        types: &[DataType],
    ) -> Result<Vec<ScalarExpr>> {
        let scope = super::scope::Scope::default();
        values
            .iter()
            .zip(types)
            .map(|(value, &ty)| {
                let bound = self.bind_expr(value, &scope)?;
                self.coerce(bound, ty, CastContext::Assignment)
            })
            .collect()
    }

    /// ANALYZE [table [(columns)]] and VACUUM [table]: nothing to do in memory, but the
    /// table and columns named must exist, as in PostgreSQL.
    pub(super) fn bind_maintenance(&mut self, statement: &Statement) -> Result<BoundStatement> {
        let unsupported = || Error::unsupported(format!("the statement {statement}"));
        let (tag, table, columns) = match statement {
            Statement::Analyze(ast::Analyze {
                table_name,
                partitions: None,
                for_columns: false,
                columns,
                cache_metadata: false,
                noscan: false,
                compute_statistics: false,
                has_table_keyword: false,
            }) => ("ANALYZE", table_name.as_ref(), columns.as_slice()),
            Statement::Vacuum(ast::VacuumStatement {
                full: _,
                sort_only: false,
                delete_only: false,
                reindex: false,
                recluster: false,
                table_name,
                threshold: None,
                boost: false,
            }) => ("VACUUM", table_name.as_ref(), &[][..]),
            _ => return Err(unsupported()),
        };
        let mut tables = Vec::new();
        if let Some(name) = table {
            let schema = self.table(&self.relation_name(name)?)?.schema.clone();
            tables.push((schema.qualified_name(), schema.oid));
            for column in columns {
                let column = ident_name(column);
                if schema.column_index(&column).is_none() {
                    return Err(Error::new(
                        SqlState::UndefinedColumn,
                        format!(
                            "column \"{column}\" of relation \"{}\" does not exist",
                            schema.name
                        ),
                    ));
                }
            }
        }
        if table.is_none() && tag == "VACUUM" {
            tables = self
                .state
                .tables
                .values()
                .map(|t| (t.schema.qualified_name(), t.schema.oid))
                .collect();
        }
        Ok(BoundStatement::Maintenance { tag, tables })
    }

    pub(super) fn bind_utility(&mut self, statement: &Statement) -> Result<BoundStatement> {
        Ok(match statement {
            Statement::StartTransaction {
                modes,
                begin: _,
                transaction: _,
                modifier,
                statements,
                exception,
                has_end_keyword: _,
            } => {
                if modifier.is_some() || !statements.is_empty() || exception.is_some() {
                    return Err(Error::unsupported(format!("{statement}")));
                }
                BoundStatement::Begin {
                    modes: transaction_modes(modes, self.transaction_deferrable)?,
                }
            }
            Statement::Lock(ast::Lock {
                tables,
                lock_mode,
                nowait,
            }) => {
                let mut names = Vec::with_capacity(tables.len());
                for ast::LockTableTarget {
                    name,
                    only: _,
                    has_asterisk: _,
                } in tables
                {
                    // Inheritance does not exist here, so ONLY and `*` change nothing.
                    let schema = self.table(&self.relation_name(name)?)?.schema.clone();
                    names.push(schema.qualified_name());
                }
                use ast::LockTableMode as Mode;
                let share = match lock_mode {
                    Some(Mode::AccessShare | Mode::RowShare) => {
                        names.clear();
                        false
                    }
                    Some(Mode::Share) => true,
                    Some(
                        Mode::RowExclusive
                        | Mode::ShareUpdateExclusive
                        | Mode::ShareRowExclusive
                        | Mode::Exclusive
                        | Mode::AccessExclusive,
                    )
                    | None => false,
                };
                BoundStatement::LockTable {
                    tables: names,
                    share,
                    nowait: *nowait,
                }
            }
            Statement::Commit {
                chain,
                end: _,
                modifier,
            } => {
                if modifier.is_some() {
                    return Err(Error::unsupported(format!("{statement}")));
                }
                BoundStatement::Commit { chain: *chain }
            }
            Statement::Rollback {
                chain,
                savepoint: None,
            } => BoundStatement::Rollback { chain: *chain },
            // PostgreSQL's grammar has no ROLLBACK AND CHAIN TO SAVEPOINT.
            Statement::Rollback {
                chain: true,
                savepoint: Some(_),
            } => return Err(Error::syntax("syntax error at or near \"TO\"")),
            Statement::Rollback {
                chain: false,
                savepoint: Some(name),
            } => savepoint(SavepointAction::RollbackTo, name),
            Statement::Savepoint { name } => savepoint(SavepointAction::Define, name),
            Statement::ReleaseSavepoint { name } => savepoint(SavepointAction::Release, name),
            Statement::Set(ast::Set::SingleAssignment {
                scope: None,
                hivevar: false,
                variable,
                values,
            }) if variable.to_string() == format!("\"{}\"", crate::parser::SET_CONSTRAINTS) => {
                self.bind_set_constraints(values)?
            }
            Statement::Set(ast::Set::SingleAssignment {
                scope,
                hivevar: false,
                variable,
                values,
            }) => {
                let name = variable.to_string().to_lowercase();
                let value = match name.as_str() {
                    "search_path" => list_setting_value(values)?,
                    _ => setting_value(values)?,
                };
                let local = match scope {
                    Some(ast::ContextModifier::Local) => true,
                    Some(ast::ContextModifier::Session) | None => false,
                    // PostgreSQL reads GLOBAL as the setting's name.
                    Some(ast::ContextModifier::Global) => {
                        return Err(Error::syntax(format!(
                            "syntax error at or near \"{variable}\""
                        )))
                    }
                };
                BoundStatement::Set(SetVariable {
                    name: Some(name),
                    value,
                    local,
                })
            }
            Statement::Set(ast::Set::SetRole {
                context_modifier,
                role_name,
            }) => {
                let local = match context_modifier {
                    Some(ast::ContextModifier::Local) => true,
                    Some(ast::ContextModifier::Session) | None => false,
                    Some(ast::ContextModifier::Global) => {
                        return Err(Error::syntax("syntax error at or near \"ROLE\""))
                    }
                };
                BoundStatement::Set(SetVariable {
                    name: Some("role".into()),
                    value: Some(role_name.as_ref().map_or("none".into(), ident_name)),
                    local,
                })
            }
            Statement::Set(ast::Set::SetTimeZone { local, value }) => {
                // SET TIME ZONE LOCAL means the default, like DEFAULT.
                let default = matches!(value, Expr::Identifier(ident)
                    if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("local"));
                BoundStatement::Set(SetVariable {
                    name: Some("timezone".into()),
                    value: if default {
                        None
                    } else {
                        setting_value(std::slice::from_ref(value))?
                    },
                    local: *local,
                })
            }
            Statement::Set(ast::Set::SetNames {
                charset_name,
                collation_name: None,
            }) => BoundStatement::Set(SetVariable {
                name: Some("client_encoding".into()),
                value: Some(charset_name.value.clone()),
                local: false,
            }),
            Statement::Set(ast::Set::SetTransaction {
                modes,
                snapshot: None,
                session,
            }) => BoundStatement::SetTransaction {
                modes: transaction_modes(modes, self.transaction_deferrable)?,
                session: *session,
            },
            Statement::Reset(reset) => match &reset.reset {
                Reset::ConfigurationParameter(name) => BoundStatement::Set(SetVariable {
                    name: Some(name.to_string().to_lowercase()),
                    value: None,
                    local: false,
                }),
                Reset::ALL => BoundStatement::Set(SetVariable {
                    name: None,
                    value: None,
                    local: false,
                }),
                Reset::SessionAuthorization => {
                    return Err(Error::unsupported(format!("{statement}")))
                }
            },
            Statement::ShowVariable { variable } => {
                let words: Vec<String> = variable.iter().map(ident_name).collect();
                // `SHOW kestrel.result_cache` arrives as two words; PostgreSQL's multi-word
                // forms are spelled out.
                let name = match words.join(" ").as_str() {
                    "transaction isolation level" => "transaction_isolation".to_string(),
                    "time zone" => "timezone".to_string(),
                    _ => words.join("."),
                };
                BoundStatement::Show { name }
            }
            other => return Err(Error::unsupported(format!("the statement {other}"))),
        })
    }
}

fn savepoint(action: SavepointAction, name: &ast::Ident) -> BoundStatement {
    BoundStatement::Savepoint {
        action,
        name: ident_name(name),
    }
}

/// Transaction modes as the settings they set (PostgreSQL's own spelling of the values).
fn transaction_modes(
    modes: &[TransactionMode],
    deferrable: Option<bool>,
) -> Result<TransactionModes> {
    let mut bound = modes
        .iter()
        .map(|mode| {
            Ok(match mode {
                TransactionMode::IsolationLevel(level) => (
                    "transaction_isolation",
                    match level {
                        TransactionIsolationLevel::ReadUncommitted => "read uncommitted",
                        TransactionIsolationLevel::ReadCommitted => "read committed",
                        TransactionIsolationLevel::RepeatableRead => "repeatable read",
                        TransactionIsolationLevel::Serializable => "serializable",
                        TransactionIsolationLevel::Snapshot => {
                            return Err(Error::syntax("syntax error at or near \"SNAPSHOT\""))
                        }
                    },
                ),
                TransactionMode::AccessMode(ast::TransactionAccessMode::ReadOnly) => {
                    ("transaction_read_only", "on")
                }
                TransactionMode::AccessMode(ast::TransactionAccessMode::ReadWrite) => {
                    ("transaction_read_only", "off")
                }
            })
        })
        .collect::<Result<TransactionModes>>()?;
    if let Some(deferrable) = deferrable {
        bound.push((
            "transaction_deferrable",
            if deferrable { "on" } else { "off" },
        ));
    }
    Ok(bound)
}

/// The value of a list setting (`SET search_path = a, "B", 'c d'`) as PostgreSQL flattens
/// it: each item, identifier or string, quoted as an identifier where it needs to be.
fn list_setting_value(values: &[Expr]) -> Result<Option<String>> {
    let mut items = Vec::with_capacity(values.len());
    for value in values {
        let item = match value {
            Expr::Identifier(ident)
                if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default") =>
            {
                return Ok(None)
            }
            Expr::Identifier(ident) => ident_name(ident),
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => s.clone(),
                other => other.to_string(),
            },
            other => {
                return Err(Error::syntax(format!(
                    "syntax error at or near \"{other}\""
                )))
            }
        };
        items.push(quote_identifier(&item));
    }
    Ok(Some(items.join(", ")))
}

/// The value of `SET x = value[, ...]` as text; `None` for DEFAULT.
fn setting_value(values: &[Expr]) -> Result<Option<String>> {
    let mut parts = Vec::with_capacity(values.len());
    for value in values {
        let text = match value {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => s.clone(),
                Value::Number(n, _) => n.clone(),
                Value::Boolean(b) => if *b { "on" } else { "off" }.to_string(),
                other => other.to_string(),
            },
            Expr::Identifier(ident)
                if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default") =>
            {
                return Ok(None)
            }
            Expr::Identifier(ident) => ident.value.clone(),
            Expr::UnaryOp {
                op: ast::UnaryOperator::Minus,
                expr,
            } => format!("-{expr}"),
            other => other.to_string(),
        };
        parts.push(text);
    }
    Ok(Some(parts.join(", ")))
}
