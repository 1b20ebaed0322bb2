//! CREATE [UNIQUE] INDEX: the table, its key columns and the access method. Only plain
//! column keys are implemented; expression and partial indexes, INCLUDE, and operator classes
//! and storage parameters outside hnsw (`hnsw_index.rs`) are 0A000.

use sqlparser::ast::{self, IndexType, ObjectType, OrderBySort};

use super::{ident_name, Binder};
use crate::catalog::{IndexExpr, IndexMethod, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::parser::DropIndexConcurrently;
use crate::plan::{BoundStatement, CreateIndex, ScalarExpr};

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
        if *r#async
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
                if predicate.is_some() {
                    return Err(Error::unsupported("partial hnsw indexes"));
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
                    concurrently: *concurrently,
                    expressions: Vec::new(),
                    predicate: None,
                    key_names: vec![schema.columns[column].name.clone()],
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
        let mut expressions = Vec::new();
        let mut key_names = Vec::with_capacity(columns.len());
        for (key, column) in columns.iter().enumerate() {
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
            let mut expr = expr;
            while let ast::Expr::Nested(inner) = expr {
                expr = inner;
            }
            let ast::Expr::Identifier(ident) = expr else {
                if *unique {
                    return Err(Error::unsupported("unique indexes on expressions"));
                }
                let bound = self.bind_index_expr(&schema, expr, false)?;
                expressions.push(IndexExpr {
                    key,
                    expr: super::check::stored_expr(&schema, expr, &bound),
                });
                key_names.push(expression_name(expr));
                continue;
            };
            let column_name = ident_name(ident);
            let position = schema.column_index(&column_name).ok_or_else(|| {
                Error::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{column_name}\" does not exist"),
                )
            })?;
            positions.push(position);
            key_names.push(column_name);
        }
        let predicate = match predicate {
            Some(_) if *unique => return Err(Error::unsupported("partial unique indexes")),
            Some(predicate) => {
                let bound = self.bind_index_expr(&schema, predicate, true)?;
                Some(super::check::stored_expr(&schema, predicate, &bound))
            }
            None => None,
        };
        Ok(BoundStatement::CreateIndex(CreateIndex {
            name,
            table_name: table,
            table_oid: schema.oid,
            columns: positions,
            unique: *unique,
            method,
            if_not_exists: *if_not_exists,
            concurrently: *concurrently,
            expressions,
            predicate,
            key_names,
        }))
    }

    /// An index expression (or with `predicate`, a partial index's WHERE) over `schema`'s
    /// row, refused as PostgreSQL refuses it: aggregates, subqueries, and functions that
    /// are not immutable (42P17).
    fn bind_index_expr(
        &mut self,
        schema: &TableSchema,
        expr: &ast::Expr,
        predicate: bool,
    ) -> Result<ScalarExpr> {
        let names = match predicate {
            true => ("index predicate", "index predicates"),
            false => ("index expression", "index expressions"),
        };
        let bound = self.bind_stored_row_expr(schema, names, |binder, scope| match predicate {
            true => binder.bind_condition(expr, scope, "WHERE"),
            false => binder.bind_expr(expr, scope),
        })?;
        if bound.is_volatile() {
            return Err(Error::new(
                SqlState::InvalidObjectDefinition,
                format!("functions in {} must be marked IMMUTABLE", names.0),
            ));
        }
        Ok(bound)
    }

    /// DROP INDEX CONCURRENTLY: one index, without CASCADE, as PostgreSQL allows.
    pub(super) fn bind_drop_index_concurrently(
        &mut self,
        drop: &DropIndexConcurrently,
    ) -> Result<BoundStatement> {
        if drop.names.len() > 1 {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "DROP INDEX CONCURRENTLY does not support dropping multiple objects",
            ));
        }
        if drop.cascade {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "DROP INDEX CONCURRENTLY does not support CASCADE",
            ));
        }
        match self.bind_drop(ObjectType::Index, drop.if_exists, &drop.names, false, false)? {
            BoundStatement::DropIndex {
                names, if_exists, ..
            } => Ok(BoundStatement::DropIndex {
                names,
                if_exists,
                concurrently: true,
            }),
            _ => Err(Error::internal("DROP INDEX binds to DropIndex")),
        }
    }

    /// 42809 when `name` is a relation that cannot have indexes (a sequence or a view).
    fn check_indexable(&self, name: &QualifiedName) -> Result<()> {
        let kind = if self.state.sequences.contains_key(name) {
            "sequences"
        } else if self.state.views.contains_key(name) {
            "views"
        } else if (self.state.table_by_name(name)).is_some_and(|t| t.schema.foreign.is_some()) {
            "foreign tables"
        } else if (self.state.table_by_name(name)).is_some_and(|t| t.schema.partition_key.is_some())
        {
            return Err(Error::unsupported("CREATE INDEX on a partitioned table"));
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

/// What an expression key gives a generated index name, as PostgreSQL's FigureColname:
/// a function's name, a column's through a cast, else `expr`.
pub(super) fn expression_name(expr: &ast::Expr) -> String {
    match expr {
        ast::Expr::Function(function) => match function.name.0.last() {
            Some(ast::ObjectNamePart::Identifier(ident)) => ident_name(ident),
            _ => "expr".to_string(),
        },
        ast::Expr::Identifier(ident) => ident_name(ident),
        ast::Expr::Cast { expr, .. } | ast::Expr::Nested(expr) => expression_name(expr),
        _ => "expr".to_string(),
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
