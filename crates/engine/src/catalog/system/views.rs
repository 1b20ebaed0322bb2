//! PostgreSQL's convenience views over the catalog: pg_tables, pg_views, pg_indexes and
//! pg_sequences.

use super::relations::{indexes, IndexInfo};
use super::{boolean, text, CatalogSnapshot, Rows, BOOL, INT8, NAME, NULL, TEXT};
pub(crate) use crate::catalog::quote_identifier;
use crate::catalog::{IndexMethod, TableSchema};
use crate::types::{DataType, ScalarValue};

/// PostgreSQL's `pg_get_indexdef`: `CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)`;
/// `pretty` leaves out the schema of a table the search path finds (all of them here).
pub(crate) fn index_definition(
    schema: &TableSchema,
    schema_name: &str,
    index: &IndexInfo,
    pretty: bool,
) -> String {
    let columns: Vec<String> = index
        .columns
        .iter()
        .filter_map(|&c| schema.columns.get(c))
        .map(|c| quote_identifier(&c.name))
        .collect();
    let method = match index.method {
        IndexMethod::Btree => "btree",
        IndexMethod::Hash => "hash",
    };
    let qualifier = if pretty {
        String::new()
    } else {
        format!("{}.", quote_identifier(schema_name))
    };
    format!(
        "CREATE {}INDEX {} ON {qualifier}{} USING {method} ({})",
        if index.unique { "UNIQUE " } else { "" },
        quote_identifier(index.name),
        quote_identifier(&schema.name),
        columns.join(", "),
    )
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
        .map(|entry| {
            let schema = &entry.schema;
            vec![
                text(&snapshot.relation_schema_name(schema.oid)),
                text(&schema.name),
                text(&snapshot.session.user),
                NULL,
                boolean(!indexes(schema).is_empty()),
                boolean(false),
                boolean(false),
                boolean(false),
            ]
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
                text(&snapshot.session.user),
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
                text(&snapshot.session.user),
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
