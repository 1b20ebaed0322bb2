//! PostgreSQL's convenience views over the catalog: pg_tables, pg_views, pg_indexes and
//! pg_sequences.

use super::relations::{indexes, IndexInfo};
use super::{boolean, text, CatalogSnapshot, Rows, BOOL, INT8, NAME, NULL, SUPERUSER_OID, TEXT};
pub(crate) use crate::catalog::quote_identifier;
use crate::catalog::{IndexMethod, StoredExpr, TableSchema};
use crate::types::{DataType, ScalarValue};

/// PostgreSQL's `pg_get_indexdef`: `CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)`;
/// `pretty` leaves out the schema of a table the search path finds (all of them here).
pub(crate) fn index_definition(
    schema: &TableSchema,
    schema_name: &str,
    index: &IndexInfo,
    pretty: bool,
) -> String {
    // An hnsw index's operator class has no default, so it is always printed.
    let opclass = match index.method {
        IndexMethod::Hnsw(options) => format!(" {}", options.opclass.name()),
        IndexMethod::Btree | IndexMethod::Hash => String::new(),
    };
    let mut columns = index.columns.iter();
    let keys: Vec<String> = (0..index.columns.len() + index.expressions.len())
        .filter_map(|key| {
            match index.expressions.iter().find(|e| e.key == key) {
                Some(expression) => Some(index_expression(&expression.expr, pretty)),
                None => columns
                    .next()
                    .and_then(|&c| schema.columns.get(c))
                    .map(|c| quote_identifier(&c.name)),
            }
            .map(|key| format!("{key}{opclass}"))
        })
        .collect();
    let (method, reloptions) = match index.method {
        IndexMethod::Btree => ("btree", Vec::new()),
        IndexMethod::Hash => ("hash", Vec::new()),
        IndexMethod::Hnsw(options) => ("hnsw", options.reloptions()),
    };
    let with = if reloptions.is_empty() {
        String::new()
    } else {
        format!(" WITH ({})", reloptions.join(", "))
    };
    let qualifier = if pretty {
        String::new()
    } else {
        format!("{}.", quote_identifier(schema_name))
    };
    let predicate = match index.predicate {
        Some(predicate) if pretty => format!(" WHERE {}", predicate.definition_pretty),
        Some(predicate) => format!(" WHERE {}", predicate.definition),
        None => String::new(),
    };
    format!(
        "CREATE {}INDEX {} ON {qualifier}{} USING {method} ({}){with}{predicate}",
        if index.unique { "UNIQUE " } else { "" },
        quote_identifier(index.name),
        quote_identifier(&schema.name),
        keys.join(", "),
    )
}

/// An expression key as pg_get_indexdef prints it: a function call as it is, anything
/// else in parentheses.
fn index_expression(expr: &StoredExpr, pretty: bool) -> String {
    let shown = match pretty {
        true => &expr.definition_pretty,
        false => &expr.definition,
    };
    let call = shown.find('(').is_some_and(|open| {
        open > 0
            && shown[..open]
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '"')
            && shown.ends_with(')')
    });
    match call {
        true => shown.clone(),
        false => format!("({shown})"),
    }
}

pub(super) const PG_TABLES: &[(&str, DataType)] = &[
    ("schemaname", NAME),
    ("tablename", NAME),
    ("tableowner", NAME),
    ("tablespace", NAME),
    ("hasindexes", BOOL),
    ("hasrules", BOOL),
    ("hastriggers", BOOL),
    ("rowsecurity", BOOL),
];

pub(super) fn pg_tables(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .tables
        .values()
        .filter(|entry| entry.schema.materialized.is_none())
        .map(|entry| {
            let schema = &entry.schema;
            vec![
                text(&snapshot.relation_schema_name(schema.oid)),
                text(&schema.name),
                text(&snapshot.role_name(SUPERUSER_OID)),
                NULL,
                boolean(!indexes(schema).is_empty()),
                boolean(false),
                boolean(false),
                boolean(false),
            ]
        })
        .collect()
}

pub(super) const PG_MATVIEWS: &[(&str, DataType)] = &[
    ("schemaname", NAME),
    ("matviewname", NAME),
    ("matviewowner", NAME),
    ("tablespace", NAME),
    ("hasindexes", BOOL),
    ("ispopulated", BOOL),
    ("definition", TEXT),
];

pub(super) fn pg_matviews(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .tables
        .values()
        .filter_map(|entry| {
            let schema = &entry.schema;
            let populated = schema.materialized.as_ref()?.populated;
            Some(vec![
                text(&snapshot.relation_schema_name(schema.oid)),
                text(&schema.name),
                text(&snapshot.role_name(SUPERUSER_OID)),
                NULL,
                boolean(!indexes(schema).is_empty()),
                boolean(populated),
                text(&materialized_view_definition(schema, snapshot)?),
            ])
        })
        .collect()
}

pub(super) const PG_VIEWS: &[(&str, DataType)] = &[
    ("schemaname", NAME),
    ("viewname", NAME),
    ("viewowner", NAME),
    ("definition", TEXT),
];

pub(super) fn pg_views(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .views
        .values()
        .map(|view| {
            vec![
                text(&snapshot.relation_schema_name(view.oid)),
                text(&view.name),
                text(&snapshot.role_name(SUPERUSER_OID)),
                text(&format!(" {};", view.query_sql)),
            ]
        })
        .collect()
}

pub(super) const PG_INDEXES: &[(&str, DataType)] = &[
    ("schemaname", NAME),
    ("tablename", NAME),
    ("indexname", NAME),
    ("tablespace", NAME),
    ("indexdef", TEXT),
];

pub(super) fn pg_indexes(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for entry in snapshot.state.tables.values() {
        let schema = &entry.schema;
        rows.extend(indexes(schema).iter().map(|index| {
            vec![
                text(&snapshot.relation_schema_name(schema.oid)),
                text(&schema.name),
                text(index.name),
                NULL,
                text(&index_definition(
                    schema,
                    &snapshot.relation_schema_name(schema.oid),
                    index,
                    false,
                )),
            ]
        }));
    }
    rows
}

pub(super) const PG_SEQUENCES: &[(&str, DataType)] = &[
    ("schemaname", NAME),
    ("sequencename", NAME),
    ("sequenceowner", NAME),
    ("data_type", TEXT),
    ("start_value", INT8),
    ("min_value", INT8),
    ("max_value", INT8),
    ("increment_by", INT8),
    ("cycle", BOOL),
    ("cache_size", INT8),
    ("last_value", INT8),
];

pub(super) fn pg_sequences(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .sequences
        .values()
        .map(|sequence| {
            let options = &sequence.options;
            let (last, is_called) = sequence.counter();
            vec![
                text(&snapshot.relation_schema_name(sequence.oid)),
                text(&sequence.name.name),
                text(&snapshot.role_name(SUPERUSER_OID)),
                text(sequence.data_type().name()),
                ScalarValue::Int64(options.start),
                ScalarValue::Int64(options.min),
                ScalarValue::Int64(options.max),
                ScalarValue::Int64(options.increment),
                boolean(options.cycle),
                ScalarValue::Int64(1),
                if is_called {
                    ScalarValue::Int64(last)
                } else {
                    NULL
                },
            ]
        })
        .collect()
}

/// pg_get_viewdef: the view's query as it was written, its relations schema-qualified
/// where the session's search path would not find the ones the view reads (pg_dump empties
/// the search path, so a restore reads the same tables). Names inside expressions'
/// subqueries keep their spelling.
pub(super) fn view_definition(
    view: &crate::catalog::ViewDef,
    snapshot: &CatalogSnapshot,
) -> String {
    use sqlparser::parser::Parser;
    let parsed = Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, &view.query_sql);
    let query = match parsed.as_deref() {
        Ok([sqlparser::ast::Statement::Query(query)]) => {
            let mut query = query.clone();
            qualify_query(&mut query, view, snapshot);
            query.to_string()
        }
        _ => view.query_sql.clone(),
    };
    format!(" {query};")
}

/// pg_get_viewdef of a materialized view: its query, as a view's.
pub(super) fn materialized_view_definition(
    schema: &crate::catalog::TableSchema,
    snapshot: &CatalogSnapshot,
) -> Option<String> {
    let materialized = schema.materialized.as_ref()?;
    let view = crate::catalog::ViewDef {
        name: schema.name.clone(),
        oid: schema.oid,
        namespace: schema.namespace,
        query_sql: materialized.query_sql.clone(),
        columns: Vec::new(),
        search_path: materialized.search_path.clone(),
        depends_on: Vec::new(),
        comment: None,
        check_option: None,
    };
    Some(view_definition(&view, snapshot))
}

fn qualify_query(
    query: &mut sqlparser::ast::Query,
    view: &crate::catalog::ViewDef,
    snapshot: &CatalogSnapshot,
) {
    let ctes: Vec<String> = query
        .with
        .iter()
        .flat_map(|with| with.cte_tables.iter().map(|c| c.alias.name.value.clone()))
        .collect();
    if let Some(with) = &mut query.with {
        for cte in &mut with.cte_tables {
            qualify_query(&mut cte.query, view, snapshot);
        }
    }
    qualify_set_expr(&mut query.body, &ctes, view, snapshot);
}

fn qualify_set_expr(
    body: &mut sqlparser::ast::SetExpr,
    ctes: &[String],
    view: &crate::catalog::ViewDef,
    snapshot: &CatalogSnapshot,
) {
    use sqlparser::ast::SetExpr;
    match body {
        SetExpr::Select(select) => {
            for from in &mut select.from {
                qualify_factor(&mut from.relation, ctes, view, snapshot);
                for join in &mut from.joins {
                    qualify_factor(&mut join.relation, ctes, view, snapshot);
                }
            }
        }
        SetExpr::Query(query) => qualify_query(query, view, snapshot),
        SetExpr::SetOperation { left, right, .. } => {
            qualify_set_expr(left, ctes, view, snapshot);
            qualify_set_expr(right, ctes, view, snapshot);
        }
        _ => {}
    }
}

fn qualify_factor(
    factor: &mut sqlparser::ast::TableFactor,
    ctes: &[String],
    view: &crate::catalog::ViewDef,
    snapshot: &CatalogSnapshot,
) {
    use sqlparser::ast::{Ident, ObjectNamePart, TableFactor};
    match factor {
        TableFactor::Table { name, .. } => {
            let [ObjectNamePart::Identifier(ident)] = name.0.as_slice() else {
                return;
            };
            let bare = match ident.quote_style {
                Some(_) => ident.value.clone(),
                None => ident.value.to_lowercase(),
            };
            if ctes.contains(&bare) {
                return;
            }
            let state = snapshot.state;
            let finds = |path: &[u32]| {
                path.iter().copied().find(|&schema| {
                    state
                        .relation_kind(&crate::catalog::QualifiedName::new(schema, bare.as_str()))
                        .is_some()
                })
            };
            let Some(read) = finds(&view.search_path) else {
                return;
            };
            let current = match snapshot.search_path {
                Some(path) => path.searched(state),
                None => vec![super::PG_CATALOG_OID, super::PUBLIC_OID],
            };
            if finds(&current) != Some(read) {
                let schema_name = snapshot.schema_name(read);
                let schema = match quote_identifier(&schema_name) == schema_name {
                    true => Ident::new(schema_name),
                    false => Ident::with_quote('"', schema_name),
                };
                name.0.insert(0, ObjectNamePart::Identifier(schema));
            }
        }
        TableFactor::Derived { subquery, .. } => qualify_query(subquery, view, snapshot),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            qualify_factor(&mut table_with_joins.relation, ctes, view, snapshot);
            for join in &mut table_with_joins.joins {
                qualify_factor(&mut join.relation, ctes, view, snapshot);
            }
        }
        _ => {}
    }
}
