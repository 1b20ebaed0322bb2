//! CREATE [UNIQUE] INDEX: the table, its key columns and the access method. Only plain
//! column keys are implemented; expression and partial indexes, INCLUDE, and operator classes
//! and storage parameters outside hnsw (`hnsw_index.rs`) are 0A000.

use sqlparser::ast::{self, IndexType, OrderBySort};

use super::{ident_name, Binder};
use crate::catalog::{IndexMethod, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, CreateIndex};

impl Binder<'_> {
    pub(super) fn bind_create_index(
        &mut self,
        create: &ast::CreateIndex,
    ) -> Result<BoundStatement> {
        let ast::CreateIndex {
            name,
            table_name: table,
            using,
            columns,
            unique,
            concurrently,
            r#async,
            if_not_exists,
            include,
            nulls_distinct,
            with,
            predicate,
            index_options,
            alter_options,
        } = create;
        if *concurrently
            || *r#async
            || nulls_distinct.is_some()
            || !alter_options.is_empty()
            || index_options
                .iter()
                .any(|o| !matches!(o, ast::IndexOption::Using(_)))
        {
            return Err(Error::unsupported(format!(
                "the CREATE INDEX form {create}"
            )));
        }
        if predicate.is_some() {
            return Err(Error::unsupported(
                "partial indexes (CREATE INDEX ... WHERE)",
            ));
        }
        if !include.is_empty() {
            return Err(Error::unsupported("CREATE INDEX ... INCLUDE"));
        }
        if *if_not_exists && name.is_none() {
            return Err(Error::syntax("syntax error at or near \"ON\""));
        }
        let name = name
            .as_ref()
            .map(|name| self.unqualified_name(name))
            .transpose()?;
        let table = self.relation_name(table)?;
        self.check_indexable(&table)?;
        let schema = self.table(&table)?.schema.clone();
        let method = index_method(using.iter().chain(index_options.iter().filter_map(
            |o| match o {
                ast::IndexOption::Using(t) => Some(t),
                ast::IndexOption::Comment(_) => None,
            },
        )))?;
        let method = match method {
            Method::Plain(method) => method,
            Method::Hnsw => {
                if *unique {
                    return Err(unique_unsupported("hnsw"));
                }
                let (column, options) = super::hnsw_index::bind_hnsw_key(&schema, columns, with)?;
                return Ok(BoundStatement::CreateIndex(CreateIndex {
                    name,
                    table_name: table,
                    table_oid: schema.oid,
                    columns: vec![column],
                    unique: false,
                    method: IndexMethod::Hnsw(options),
                    if_not_exists: *if_not_exists,
                }));
            }
        };
        if !with.is_empty() {
            return Err(Error::unsupported(format!(
                "the CREATE INDEX form {create}"
            )));
        }
        if *unique && method == IndexMethod::Hash {
            return Err(unique_unsupported("hash"));
        }
        let mut positions = Vec::with_capacity(columns.len());
        for column in columns {
            let ast::IndexColumn {
                column,
                operator_class,
            } = column;
            let ast::OrderByExpr {
                expr,
                options,
                with_fill,
            } = column;
            if operator_class.is_some() {
                return Err(Error::unsupported("operator classes in CREATE INDEX"));
            }
            // ASC/DESC and NULLS FIRST/LAST order an index but never change what it finds.
            if with_fill.is_some() || matches!(options.sort, Some(OrderBySort::Using(_))) {
                return Err(Error::unsupported(format!("the index key {column}")));
            }
            let ast::Expr::Identifier(ident) = expr else {
                return Err(Error::unsupported("expression indexes"));
            };
            let column_name = ident_name(ident);
            let position = schema.column_index(&column_name).ok_or_else(|| {
                Error::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{column_name}\" does not exist"),
                )
            })?;
            positions.push(position);
        }
        Ok(BoundStatement::CreateIndex(CreateIndex {
            name,
            table_name: table,
            table_oid: schema.oid,
            columns: positions,
            unique: *unique,
            method,
            if_not_exists: *if_not_exists,
        }))
    }

    /// 42809 when `name` is a relation that cannot have indexes (a sequence or a view).
    fn check_indexable(&self, name: &QualifiedName) -> Result<()> {
        let kind = if self.state.sequences.contains_key(name) {
            "sequences"
        } else if self.state.views.contains_key(name) {
            "views"
        } else if (self.state.table_by_name(name)).is_some_and(|t| t.schema.foreign.is_some()) {
            "foreign tables"
        } else {
            return Ok(());
        };
        Err(Error::new(
            SqlState::WrongObjectType,
            format!("cannot create index on relation \"{name}\""),
        )
        .with_detail(format!("This operation is not supported for {kind}.")))
    }
}

fn unique_unsupported(method: &str) -> Error {
    Error::new(
        SqlState::FeatureNotSupported,
        format!("access method \"{method}\" does not support unique indexes"),
    )
}

/// An access method as USING names it; hnsw's options come from its key and WITH.
enum Method {
    Plain(IndexMethod),
    Hnsw,
}

/// The access method of `USING`: B-tree unless named otherwise.
fn index_method<'a>(mut using: impl Iterator<Item = &'a IndexType>) -> Result<Method> {
    let method = match using.next() {
        None | Some(IndexType::BTree) => Method::Plain(IndexMethod::Btree),
        Some(IndexType::Hash) => Method::Plain(IndexMethod::Hash),
        Some(IndexType::Custom(name)) => match ident_name(name).as_str() {
            "btree" => Method::Plain(IndexMethod::Btree),
            "hash" => Method::Plain(IndexMethod::Hash),
            "hnsw" => Method::Hnsw,
            _ => return Err(Error::unsupported(format!("index access method {name}"))),
        },
        Some(other) => return Err(Error::unsupported(format!("index access method {other}"))),
    };
    match using.next() {
        None => Ok(method),
        Some(_) => Err(Error::syntax("syntax error at or near \"USING\"")),
    }
}
