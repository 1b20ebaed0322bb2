//! The row types of tables and views in pg_type: the composite type (typtype 'c', typrelid
//! the relation) and its array type `_name`, with PostgreSQL's values.

use super::{boolean, char, int2, oid, text, CatalogSnapshot, Rows, ScalarValue};
use crate::catalog::{row_array_oid, row_type_oid, row_type_relations};

/// pg_type's rows of every row type and its array type, in pg_type's column order
/// (`types::PG_TYPE`).
pub(super) fn pg_type_rows(snapshot: &CatalogSnapshot) -> Rows {
    let roles = &snapshot.state.roles;
    row_type_relations(snapshot.state)
        .flat_map(|relation| {
            let owner = roles.relation_privileges(relation.oid).owner;
            let (type_oid, array_oid) = (row_type_oid(relation.oid), row_array_oid(relation.oid));
            let name = &relation.name.name;
            let namespace = relation.name.schema;
            [
                row(
                    [type_oid, namespace, owner, relation.oid, 0, array_oid],
                    text(name),
                    (b'c', b'C'),
                    [
                        "-",
                        "record_in",
                        "record_out",
                        "record_recv",
                        "record_send",
                        "-",
                    ],
                    b'd',
                ),
                row(
                    [array_oid, namespace, owner, 0, type_oid, 0],
                    text(&format!("_{name}")),
                    (b'b', b'A'),
                    ARRAY_FUNCTIONS,
                    b'd',
                ),
            ]
        })
        .collect()
}

/// The functions of an array type's row (see [`row`]).
pub(super) const ARRAY_FUNCTIONS: [&str; 6] = [
    "array_subscript_handler",
    "array_in",
    "array_out",
    "array_recv",
    "array_send",
    "array_typanalyze",
];

/// One row: `oids` are the type's, its schema's, its owner's, typrelid, typelem and
/// typarray; `functions` typsubscript, typinput, typoutput, typreceive, typsend and
/// typanalyze; `align` typalign.
pub(super) fn row(
    oids: [u32; 6],
    name: ScalarValue,
    (kind, category): (u8, u8),
    functions: [&str; 6],
    align: u8,
) -> Vec<ScalarValue> {
    let [type_oid, namespace, owner, relation, element, array] = oids;
    let [subscript, input, output, receive, send, analyze] = functions;
    vec![
        oid(type_oid),
        name,
        oid(namespace),
        oid(owner),
        int2(-1),
        boolean(false),
        char(kind),
        char(category),
        boolean(false),
        boolean(true),
        char(b','),
        oid(relation),
        text(subscript),
        oid(element),
        oid(array),
        text(input),
        text(output),
        text(receive),
        text(send),
        text("-"),
        text("-"),
        text(analyze),
    ]
    .into_iter()
    .chain(super::types::pg_type_tail(align, b'x', 0))
    .collect()
}
