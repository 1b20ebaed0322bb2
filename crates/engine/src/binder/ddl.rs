//! CREATE TABLE and DROP TABLE.

use std::sync::OnceLock;

use sqlparser::ast::{
    self, ColumnOption, CreateTable, ObjectName, ObjectType, Statement, TableConstraint,
};

use super::data_type::bind_data_type;
use super::scope::Scope;
use super::{ident_name, table_name, Binder};
use crate::catalog::{ColumnDef, TableSchema, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::BoundStatement;

/// A CREATE TABLE with every clause we implement cleared; a statement that differs from it
/// after clearing uses a clause we do not implement.
fn plain_create_table() -> &'static Option<CreateTable> {
    static PLAIN: OnceLock<Option<CreateTable>> = OnceLock::new();
    PLAIN.get_or_init(|| match crate::parser::parse("CREATE TABLE t ()") {
        Ok(mut statements) => match statements.pop() {
            Some(Statement::CreateTable(create)) => Some(clear_supported(create)),
            _ => None,
        },
        Err(_) => None,
    })
}

fn clear_supported(mut create: CreateTable) -> CreateTable {
    create.name = ObjectName(Vec::new());
    create.columns.clear();
    create.constraints.clear();
    create.if_not_exists = false;
    create
}

impl Binder<'_> {
    pub(super) fn bind_create_table(&mut self, create: &CreateTable) -> Result<BoundStatement> {
        if Some(clear_supported(create.clone())) != *plain_create_table() {
            return Err(Error::unsupported(format!(
                "the CREATE TABLE form {create}"
            )));
        }
        let name = table_name(&create.name)?;
        let mut columns: Vec<ColumnDef> = Vec::with_capacity(create.columns.len());
        let mut unique_keys: Vec<UniqueKey> = Vec::new();
        for column in &create.columns {
            let column_name = ident_name(&column.name);
            if columns.iter().any(|c| c.name == column_name) {
                return Err(Error::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{column_name}\" specified more than once"),
                ));
            }
            let mut def = ColumnDef {
                name: column_name,
                data_type: bind_data_type(&column.data_type)?,
                not_null: false,
                default_sql: None,
            };
            let position = columns.len();
            for option in &column.options {
                match &option.option {
                    ColumnOption::Null => {}
                    ColumnOption::NotNull => def.not_null = true,
                    ColumnOption::Default(expr) => {
                        self.check_default(&def, expr)?;
                        def.default_sql = Some(expr.to_string());
                    }
                    ColumnOption::PrimaryKey(_) => {
                        def.not_null = true;
                        unique_keys.push(unique_key(
                            &name,
                            option.name.as_ref(),
                            vec![position],
                            true,
                            &[&def.name],
                        ));
                    }
                    ColumnOption::Unique(_) => {
                        unique_keys.push(unique_key(
                            &name,
                            option.name.as_ref(),
                            vec![position],
                            false,
                            &[&def.name],
                        ));
                    }
                    other => return Err(Error::unsupported(format!("the column option {other}"))),
                }
            }
            columns.push(def);
        }
        for constraint in &create.constraints {
            let (constraint_name, key_columns, primary) = match constraint {
                TableConstraint::PrimaryKey(pk) => (pk.name.as_ref(), &pk.columns, true),
                TableConstraint::Unique(unique) => (unique.name.as_ref(), &unique.columns, false),
                other => return Err(Error::unsupported(format!("the constraint {other}"))),
            };
            let mut positions = Vec::with_capacity(key_columns.len());
            for key in key_columns {
                let ast::Expr::Identifier(ident) = &key.column.expr else {
                    return Err(Error::unsupported(format!("the key column {}", key.column)));
                };
                let column_name = ident_name(ident);
                let position = columns
                    .iter()
                    .position(|c| c.name == column_name)
                    .ok_or_else(|| {
                        Error::new(
                            SqlState::UndefinedColumn,
                            format!("column \"{column_name}\" named in key does not exist"),
                        )
                    })?;
                if primary {
                    columns[position].not_null = true;
                }
                positions.push(position);
            }
            let names: Vec<&str> = positions
                .iter()
                .map(|&p| columns[p].name.as_str())
                .collect();
            unique_keys.push(unique_key(
                &name,
                constraint_name,
                positions.clone(),
                primary,
                &names,
            ));
        }
        if unique_keys.iter().filter(|k| k.primary).count() > 1 {
            return Err(Error::new(
                SqlState::InvalidTableDefinition,
                format!("multiple primary keys for table \"{name}\" are not allowed"),
            ));
        }
        Ok(BoundStatement::CreateTable {
            schema: TableSchema {
                oid: 0,
                name,
                columns,
                unique_keys,
            },
            if_not_exists: create.if_not_exists,
        })
    }

    /// PostgreSQL checks a DEFAULT at CREATE time: it must bind without columns and convert
    /// to the column's type; the type's length or precision limit applies only when a row is
    /// written.
    fn check_default(&mut self, def: &ColumnDef, expr: &ast::Expr) -> Result<()> {
        self.aggregate_forbidden_in = Some("DEFAULT expressions");
        let bound = self.bind_expr(expr, &Scope::default());
        self.aggregate_forbidden_in = None;
        let bound = bound.map_err(|e| match e.state {
            SqlState::UndefinedColumn | SqlState::UndefinedTable => Error::new(
                SqlState::FeatureNotSupported,
                "cannot use column reference in DEFAULT expression",
            ),
            _ => e,
        })?;
        let from = bound.ty();
        if from != crate::types::DataType::Unknown
            && !can_cast(from, def.data_type, CastContext::Assignment)
        {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" is of type {} but default expression is of type {from}",
                    def.name, def.data_type
                ),
            )
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce(bound, without_limit(def.data_type), CastContext::Assignment)?;
        Ok(())
    }

    pub(super) fn bind_drop(
        &mut self,
        object_type: ObjectType,
        if_exists: bool,
        names: &[ObjectName],
        _cascade: bool,
        unsupported_clause: bool,
    ) -> Result<BoundStatement> {
        if object_type != ObjectType::Table || unsupported_clause {
            return Err(Error::unsupported(format!("DROP {object_type}")));
        }
        let names = names.iter().map(table_name).collect::<Result<Vec<_>>>()?;
        Ok(BoundStatement::DropTable { names, if_exists })
    }
}

/// A type without its length or precision limit.
fn without_limit(ty: crate::types::DataType) -> crate::types::DataType {
    use crate::types::DataType;
    match ty {
        DataType::Varchar(_) => DataType::Varchar(None),
        DataType::Char(_) => DataType::Char(None),
        DataType::Numeric(_) => DataType::Numeric(None),
        other => other,
    }
}

/// PostgreSQL's constraint names: `t_pkey` and `t_a_b_key`.
fn unique_key(
    table: &str,
    name: Option<&ast::Ident>,
    columns: Vec<usize>,
    primary: bool,
    column_names: &[&str],
) -> UniqueKey {
    let name = match name {
        Some(n) => ident_name(n),
        None if primary => format!("{table}_pkey"),
        None => format!("{table}_{}_key", column_names.join("_")),
    };
    UniqueKey {
        name,
        columns,
        primary,
    }
}
