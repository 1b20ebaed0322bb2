//! CREATE [OR REPLACE] FUNCTION ... LANGUAGE sql and DROP FUNCTION. The body is bound when
//! the function is created, as PostgreSQL does with check_function_bodies on, so a missing
//! table or a result that does not fit the declared type is reported then.

use sqlparser::ast::{self, CreateFunctionBody, Expr, FunctionReturnType, ObjectName, Value};

use super::{ident_name, Binder};
use crate::catalog::{
    signature, FunctionArg, FunctionBody, FunctionDef, FunctionReturn, ParamMode, QualifiedName,
    Volatility,
};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::{BoundStatement, FunctionChange};
use crate::types::DataType;

impl<'a> Binder<'a> {
    pub(super) fn bind_create_function(
        &mut self,
        create: &ast::CreateFunction,
    ) -> Result<BoundStatement> {
        let ast::CreateFunction {
            or_alter,
            or_replace,
            temporary,
            if_not_exists,
            name,
            args,
            return_type,
            function_body,
            behavior,
            called_on_null,
            parallel,
            security,
            set_params,
            using,
            language,
            determinism_specifier,
            options,
            remote_connection,
        } = create;
        let foreign_syntax = *or_alter
            || *temporary
            || *if_not_exists
            || using.is_some()
            || determinism_specifier.is_some()
            || options.is_some()
            || remote_connection.is_some();
        if foreign_syntax {
            return Err(Error::syntax(format!("syntax error in {create}")));
        }
        if matches!(security, Some(ast::FunctionSecurity::Definer)) {
            return Err(Error::unsupported("SECURITY DEFINER functions"));
        }
        if !set_params.is_empty() {
            return Err(Error::unsupported("SET clauses of CREATE FUNCTION"));
        }
        let body = match function_body {
            Some(CreateFunctionBody::AsBeforeOptions {
                body,
                link_symbol: None,
            }) => FunctionBody::Text(string_body(body)?),
            Some(CreateFunctionBody::Return(expr)) => FunctionBody::Return(expr.to_string()),
            Some(_) => return Err(Error::unsupported(format!("the function body of {create}"))),
            None => {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    "no function body specified",
                ))
            }
        };
        match (language, &body) {
            (Some(language), _) if ident_name(language) == "sql" => {}
            (Some(language), _) => {
                return Err(Error::unsupported(format!(
                    "functions in language \"{}\"",
                    ident_name(language)
                )))
            }
            // A SQL-standard body is SQL; a string one must say its language.
            (None, FunctionBody::Return(_)) => {}
            (None, FunctionBody::Text(_)) => {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    "no language specified",
                ))
            }
        }
        let args = self.bind_parameters(args.as_deref().unwrap_or_default())?;
        let returns = self.bind_return_type(return_type.as_ref(), &args)?;
        let returns_domain = self.return_domain(return_type.as_ref(), &returns, &args);
        let function = FunctionDef {
            oid: 0,
            name: self.creation_name(name)?,
            args,
            returns,
            volatility: match behavior {
                Some(ast::FunctionBehavior::Immutable) => Volatility::Immutable,
                Some(ast::FunctionBehavior::Stable) => Volatility::Stable,
                Some(ast::FunctionBehavior::Volatile) | None => Volatility::Volatile,
            },
            strict: matches!(
                called_on_null,
                Some(
                    ast::FunctionCalledOnNull::Strict
                        | ast::FunctionCalledOnNull::ReturnsNullOnNullInput
                )
            ),
            parallel: match parallel {
                Some(ast::FunctionParallel::Safe) => b's',
                Some(ast::FunctionParallel::Restricted) => b'r',
                Some(ast::FunctionParallel::Unsafe) | None => b'u',
            },
            body,
            returns_domain,
        };
        // Replacing a function is its owner's (PostgreSQL's ProcedureCreate asks it).
        let arg_types = function.arg_types();
        let replaced = self
            .state
            .functions
            .values()
            .find(|f| *or_replace && f.name == function.name && f.arg_types() == arg_types);
        if let Some(old) = replaced {
            self.require_function_owner(old.oid, &old.name.name)?;
        }
        // check_function_bodies: the body binds, and its result fits the declared one.
        match super::function_body::body_statements(&function)? {
            None => {
                let (_, columns) = self.bind_sql_body(&function)?;
                super::sql_function::body_outputs(&function, &columns, self)?;
            }
            Some(statements) => self.check_body_statements(&function, &statements)?,
        }
        Ok(BoundStatement::ChangeFunction(FunctionChange::Create {
            function,
            or_replace: *or_replace,
        }))
    }

    /// The declared result, or the one the OUT parameters make (which a written RETURNS
    /// must agree with, as PostgreSQL's interpret_function_parameter_list requires).
    fn bind_return_type(
        &self,
        returns: Option<&FunctionReturnType>,
        args: &[FunctionArg],
    ) -> Result<FunctionReturn> {
        let outputs: Vec<(String, DataType)> = args
            .iter()
            .filter(|a| a.mode.is_output())
            .enumerate()
            .map(|(i, a)| {
                let name = a.name.clone().unwrap_or_else(|| format!("column{}", i + 1));
                (name, a.ty)
            })
            .collect();
        let (set, declared) = match returns {
            None if outputs.is_empty() => {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    "function result type must be specified",
                ))
            }
            None => (false, None),
            Some(FunctionReturnType::DataType(ast::DataType::Table(Some(columns)))) => {
                if !outputs.is_empty() {
                    return Err(Error::unsupported("OUT parameters with RETURNS TABLE"));
                }
                return Ok(FunctionReturn::Table(self.table_columns(columns)?));
            }
            Some(FunctionReturnType::DataType(ty)) => (false, Some(ty)),
            Some(FunctionReturnType::SetOf(ty)) => (true, Some(ty)),
        };
        let void = declared.is_some_and(|ty| {
            matches!(ty, ast::DataType::Custom(name, _) if name.to_string().eq_ignore_ascii_case("void"))
        });
        match (void, set, outputs.is_empty()) {
            (true, false, true) => return Ok(FunctionReturn::Void),
            (true, true, _) => {
                return Err(Error::unsupported("SQL functions returning SETOF void"))
            }
            (true, false, false) => {
                return Err(out_params_mismatch(match outputs.as_slice() {
                    [(_, ty)] => ty.name(),
                    _ => "record",
                }))
            }
            (false, _, _) => {}
        }
        let record = declared.is_some_and(|ty| {
            matches!(ty, ast::DataType::Custom(name, _) if name.to_string().eq_ignore_ascii_case("record"))
        });
        let wrap = |ty: DataType| match set {
            true => FunctionReturn::SetOf(ty),
            false => FunctionReturn::Scalar(ty),
        };
        match outputs.as_slice() {
            [] => declared.map_or_else(
                || Err(Error::internal("a function without a result")),
                |ty| self.function_type(ty).map(wrap),
            ),
            [(_, out)] => {
                let declared = declared.map(|ty| self.function_type(ty)).transpose()?;
                match declared {
                    Some(declared) if declared != *out => Err(out_params_mismatch(out.name())),
                    _ => Ok(wrap(*out)),
                }
            }
            _ if declared.is_some() && !record => Err(out_params_mismatch("record")),
            _ if set => Ok(FunctionReturn::Table(outputs)),
            _ => Ok(FunctionReturn::Row(outputs)),
        }
    }

    /// The domain a one-value result is declared as: by RETURNS, or by the one OUT
    /// parameter.
    fn return_domain(
        &self,
        written: Option<&FunctionReturnType>,
        returns: &FunctionReturn,
        args: &[FunctionArg],
    ) -> Option<u32> {
        if !matches!(
            returns,
            FunctionReturn::Scalar(_) | FunctionReturn::SetOf(_)
        ) {
            return None;
        }
        match written {
            Some(FunctionReturnType::DataType(ty) | FunctionReturnType::SetOf(ty)) => {
                self.domain_of(ty).map(|d| d.oid)
            }
            None => args.iter().find(|a| a.mode.is_output())?.domain,
        }
    }

    /// The columns of `RETURNS TABLE (name type, ...)`.
    fn table_columns(&self, columns: &[ast::ColumnDef]) -> Result<Vec<(String, DataType)>> {
        let mut bound = Vec::with_capacity(columns.len());
        for column in columns {
            if !column.options.is_empty() {
                return Err(Error::syntax(format!(
                    "syntax error at or near \"{column}\""
                )));
            }
            let name = ident_name(&column.name);
            if bound.iter().any(|(n, _)| *n == name) {
                return Err(duplicate_parameter(&name));
            }
            bound.push((name, self.function_type(&column.data_type)?));
        }
        Ok(bound)
    }

    fn bind_parameters(&mut self, args: &[ast::OperateFunctionArg]) -> Result<Vec<FunctionArg>> {
        let mut bound: Vec<FunctionArg> = Vec::with_capacity(args.len());
        for ast::OperateFunctionArg {
            mode,
            name,
            data_type,
            default_expr,
        } in args
        {
            let mode = match mode {
                None | Some(ast::ArgMode::In) => ParamMode::In,
                Some(ast::ArgMode::Out) => ParamMode::Out,
                Some(ast::ArgMode::InOut) => ParamMode::InOut,
                Some(ast::ArgMode::Variadic) => ParamMode::Variadic,
            };
            if bound.iter().any(|a| a.mode == ParamMode::Variadic) && mode.is_input() {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    "VARIADIC parameter must be the last input parameter",
                ));
            }
            let name = name.as_ref().map(ident_name);
            // An input and an output parameter may share a name; two of either may not.
            if let Some(name) = &name {
                let clash = |a: &FunctionArg| {
                    a.name.as_ref() == Some(name)
                        && (a.mode.is_input() && mode.is_input()
                            || a.mode.is_output() && mode.is_output())
                };
                if bound.iter().any(clash) {
                    return Err(duplicate_parameter(name));
                }
            }
            let ty = self.function_type(data_type)?;
            let domain = self.domain_of(data_type).map(|d| d.oid);
            if mode == ParamMode::Variadic && ty.element().is_none() {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    "VARIADIC parameter must be an array",
                ));
            }
            let after_default = bound
                .iter()
                .any(|a| a.mode.is_input() && a.default.is_some());
            let default =
                match default_expr {
                    Some(_) if !mode.is_input() => {
                        return Err(Error::new(
                            SqlState::InvalidFunctionDefinition,
                            "only input parameters can have default values",
                        ))
                    }
                    Some(expr) => {
                        let value = self.bind_expr(expr, &super::scope::Scope::default())?;
                        self.coerce(value, ty, CastContext::Assignment)?;
                        Some(expr.to_string())
                    }
                    None if after_default && mode.is_input() => return Err(Error::new(
                        SqlState::InvalidFunctionDefinition,
                        "input parameters after one with a default value must also have defaults",
                    )),
                    None => None,
                };
            bound.push(FunctionArg {
                name,
                ty,
                default,
                mode,
                domain,
            });
        }
        Ok(bound)
    }

    /// A parameter or result type: as format_type_be shows it, without modifiers.
    pub(super) fn function_type(&self, ty: &ast::DataType) -> Result<DataType> {
        if let ast::DataType::Custom(name, _) = ty {
            let pseudo = [
                "void",
                "record",
                "trigger",
                "anyelement",
                "anyarray",
                "internal",
            ];
            let written = name.to_string().to_lowercase();
            if pseudo.contains(&written.as_str()) {
                return Err(Error::unsupported(format!(
                    "SQL functions taking or returning {written}"
                )));
            }
        }
        Ok(match self.bind_type(ty)? {
            DataType::Record(_) => {
                return Err(Error::unsupported(
                    "SQL functions taking or returning a table's row type",
                ))
            }
            DataType::Numeric(_) => DataType::Numeric(None),
            DataType::Varchar(_) => DataType::Varchar(None),
            DataType::Bit(_) => DataType::Bit(None),
            DataType::VarBit(_) => DataType::VarBit(None),
            DataType::FloatVector(_) => DataType::FloatVector(None),
            other => other,
        })
    }

    pub(super) fn bind_drop_function(
        &mut self,
        drop: &ast::DropFunction,
    ) -> Result<BoundStatement> {
        let ast::DropFunction {
            if_exists,
            func_desc,
            drop_behavior,
        } = drop;
        let mut functions = Vec::with_capacity(func_desc.len());
        let mut notices = Vec::new();
        for ast::FunctionDesc { name, args } in func_desc {
            let types = match args {
                Some(args) => Some(
                    args.iter()
                        .filter(|a| !matches!(a.mode, Some(ast::ArgMode::Out)))
                        .map(|a| self.function_type(&a.data_type))
                        .collect::<Result<Vec<_>>>()?,
                ),
                None => None,
            };
            match self.function_to_drop(name, types.as_deref())? {
                Ok(found) => {
                    let shown = super::sql_function::shown_call_name(name);
                    self.require_function_owner(found.0, &shown)?;
                    functions.push(found)
                }
                Err(missing) if *if_exists => {
                    notices.push(format!("{}, skipping", missing.message))
                }
                Err(missing) => return Err(missing),
            }
        }
        Ok(BoundStatement::ChangeFunction(FunctionChange::Drop {
            functions,
            notices,
            cascade: matches!(drop_behavior, Some(ast::DropBehavior::Cascade)),
        }))
    }

    /// The function DROP FUNCTION `name[(types)]` means, or the error saying it does not
    /// exist (which IF EXISTS turns into a notice).
    pub(super) fn function_to_drop(
        &self,
        name: &ObjectName,
        types: Option<&[DataType]>,
    ) -> Result<std::result::Result<(u32, QualifiedName), Error>> {
        let written = self.written_name(name)?;
        let shown = super::sql_function::shown_call_name(name);
        let schemas = match &written.schema {
            Some(schema) => match self.state.schema_by_name(schema) {
                Some(schema) => vec![schema.oid],
                None => {
                    return Ok(Err(Error::new(
                        SqlState::InvalidSchemaName,
                        format!("schema \"{schema}\" does not exist"),
                    )))
                }
            },
            None => self.searched.clone(),
        };
        let mut found: Vec<_> = self
            .state
            .functions
            .values()
            .filter(|f| f.name.name == written.name && schemas.contains(&f.name.schema))
            .filter(|f| types.is_none_or(|types| f.arg_types() == types))
            .collect();
        // Along the search path, the first schema holding one wins.
        found.sort_by_key(|f| schemas.iter().position(|s| *s == f.name.schema));
        if let Some(first) = found.first() {
            found.retain(|f| f.name.schema == first.name.schema);
        }
        match (found.as_slice(), types) {
            ([function], _) | ([function, ..], Some(_)) => {
                Ok(Ok((function.oid, function.name.clone())))
            }
            ([], Some(types)) => Ok(Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {} does not exist", signature(&shown, types)),
            ))),
            ([], None) => Ok(Err(Error::new(
                SqlState::UndefinedFunction,
                format!("could not find a function named \"{shown}\""),
            ))),
            (_, None) => Err(Error::new(
                SqlState::AmbiguousFunction,
                format!("function name \"{shown}\" is not unique"),
            )
            .with_hint("Specify the argument list to select the function unambiguously.")),
        }
    }
}

/// The text of `AS 'body'` (or a dollar-quoted one).
fn string_body(body: &Expr) -> Result<String> {
    match body {
        Expr::Value(value) => match &value.value {
            Value::SingleQuotedString(text) | Value::EscapedStringLiteral(text) => Ok(text.clone()),
            Value::DollarQuotedString(quoted) => Ok(quoted.value.clone()),
            _ => Err(Error::syntax(format!("syntax error at or near \"{body}\""))),
        },
        _ => Err(Error::syntax(format!("syntax error at or near \"{body}\""))),
    }
}

/// A written result type the OUT parameters contradict.
fn out_params_mismatch(required: &str) -> Error {
    Error::new(
        SqlState::InvalidFunctionDefinition,
        format!("function result type must be {required} because of OUT parameters"),
    )
}

fn duplicate_parameter(name: &str) -> Error {
    Error::new(
        SqlState::InvalidFunctionDefinition,
        format!("parameter name \"{name}\" used more than once"),
    )
}
