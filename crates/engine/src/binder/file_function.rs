//! DuckDB's file functions in FROM: `read_parquet('path' | 'glob*' | ARRAY[...])` and
//! `read_csv` / `read_csv_auto('path', header := true, delim := ',', quote, escape,
//! nullstr, skip, columns := {'name': 'TYPE', ...})`. The arguments are constants; the
//! files are opened now, so their columns name the FROM item's columns (a plan reading
//! files is never cached, so it is bound again against the files as they are).

use std::sync::Arc;

use sqlparser::ast;

use super::scope::Scope;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::files::{CsvOptions, FileFormat, FileSource};
use crate::plan::LogicalPlan;

/// Whether `name` is one of the file functions.
pub(super) fn is_file_function(name: &str) -> bool {
    matches!(name, "read_parquet" | "read_csv" | "read_csv_auto")
}

impl Binder<'_> {
    pub(super) fn bind_file_function(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
        alias: Option<&ast::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let mut paths = None;
        let mut csv = CsvOptions::default();
        for arg in args {
            match arg {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(expr)) if paths.is_none() => {
                    paths = Some(path_list(expr)?);
                }
                ast::FunctionArg::Named {
                    name: option,
                    arg: ast::FunctionArgExpr::Expr(value),
                    operator: _,
                } if name != "read_parquet" => {
                    csv_option(&mut csv, &option.value.to_lowercase(), value)?;
                }
                // sqlparser reads `name := value` as an assignment expression.
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::BinaryOp {
                    left,
                    op: ast::BinaryOperator::Assignment,
                    right: value,
                })) if name != "read_parquet" => {
                    let ast::Expr::Identifier(option) = &**left else {
                        return Err(Error::unsupported(format!("the argument {arg} of {name}")));
                    };
                    csv_option(&mut csv, &option.value.to_lowercase(), value)?;
                }
                ast::FunctionArg::ExprNamed {
                    name: ast::Expr::Identifier(option),
                    arg: ast::FunctionArgExpr::Expr(value),
                    operator: _,
                } if name != "read_parquet" => {
                    csv_option(&mut csv, &option.value.to_lowercase(), value)?;
                }
                other => {
                    return Err(Error::unsupported(format!(
                        "the argument {other} of {name}"
                    )))
                }
            }
        }
        let paths = paths.ok_or_else(|| {
            Error::new(
                SqlState::UndefinedFunction,
                format!("function {name}() does not exist"),
            )
        })?;
        let format = match name {
            "read_parquet" => FileFormat::Parquet,
            _ => FileFormat::Csv(csv),
        };
        let source = FileSource::open(format, &paths)?;
        let visible = alias.map_or_else(|| name.to_string(), |a| super::ident_name(&a.name));
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let names = super::from::alias_names(
            &visible,
            column_aliases,
            source.columns.iter().map(|(n, _)| n.clone()).collect(),
        )?;
        let types: Vec<_> = source.columns.iter().map(|(_, ty)| *ty).collect();
        let scope = Scope::of_computed(&visible, names.into_iter().zip(types.iter().copied()));
        let plan = LogicalPlan::FileScan {
            columns: (0..types.len()).collect(),
            source: Arc::new(source),
            types,
        };
        Ok((plan, scope))
    }
}

/// A string constant, or an ARRAY[...] of them.
fn path_list(expr: &ast::Expr) -> Result<Vec<String>> {
    match expr {
        ast::Expr::Array(ast::Array { elem, .. }) => elem.iter().map(string).collect(),
        other => Ok(vec![string(other)?]),
    }
}

fn string(expr: &ast::Expr) -> Result<String> {
    match expr {
        ast::Expr::Value(ast::ValueWithSpan {
            value: ast::Value::SingleQuotedString(s),
            ..
        }) => Ok(s.clone()),
        other => Err(Error::unsupported(format!(
            "{other} as a file function argument (a string constant is expected)"
        ))),
    }
}

fn boolean(option: &str, expr: &ast::Expr) -> Result<bool> {
    match expr {
        ast::Expr::Value(ast::ValueWithSpan {
            value: ast::Value::Boolean(b),
            ..
        }) => Ok(*b),
        other => match string(other)?.to_lowercase().as_str() {
            "true" | "t" | "1" => Ok(true),
            "false" | "f" | "0" => Ok(false),
            _ => Err(invalid(option)),
        },
    }
}

fn invalid(option: &str) -> Error {
    Error::new(
        SqlState::InvalidParameterValue,
        format!("invalid value for read_csv option \"{option}\""),
    )
}

fn one_byte(option: &str, expr: &ast::Expr) -> Result<u8> {
    match string(expr)?.as_bytes() {
        [byte] => Ok(*byte),
        _ => Err(invalid(option)),
    }
}

fn csv_option(csv: &mut CsvOptions, option: &str, value: &ast::Expr) -> Result<()> {
    match option {
        "header" => csv.header = boolean(option, value)?,
        "delim" | "sep" | "delimiter" => csv.delimiter = one_byte(option, value)?,
        "quote" => csv.quote = one_byte(option, value)?,
        "escape" => csv.escape = one_byte(option, value)?,
        "nullstr" => csv.null = string(value)?,
        "skip" => {
            csv.skip = match value {
                ast::Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::Number(n, _),
                    ..
                }) => n.parse().map_err(|_| invalid(option))?,
                _ => return Err(invalid(option)),
            }
        }
        // Detection is what happens without `columns`; asking for it changes nothing.
        "auto_detect" => {
            if !boolean(option, value)? && csv.columns.is_none() {
                return Err(Error::unsupported("auto_detect := false without columns"));
            }
        }
        "columns" => {
            let ast::Expr::Dictionary(fields) = value else {
                return Err(invalid(option));
            };
            let columns = fields
                .iter()
                .map(|f| Ok((f.key.value.clone(), type_named(&string(&f.value)?)?)))
                .collect::<Result<Vec<_>>>()?;
            csv.columns = Some(columns);
        }
        other => {
            return Err(Error::unsupported(format!(
                "the read_csv option \"{other}\""
            )));
        }
    }
    Ok(())
}

/// A type written as a string (`'INTEGER'`, `'VARCHAR'`, `'numeric(10,2)'`).
fn type_named(name: &str) -> Result<crate::types::DataType> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let ty = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(name)
        .and_then(|mut p| p.parse_data_type())
        .map_err(|_| {
            Error::new(
                SqlState::UndefinedObject,
                format!("type \"{name}\" does not exist"),
            )
        })?;
    super::data_type::bind_data_type(&ty)
}
