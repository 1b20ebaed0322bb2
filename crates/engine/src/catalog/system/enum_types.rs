//! Enum types in the system catalogs: their pg_type rows (typtype 'e', and their array
//! types `_name`), pg_enum's labels, and their names for format_type, regtype and psql.

use super::{
    boolean, char, int2, oid, text, CatalogSnapshot, Rows, PG_CATALOG_OID, PUBLIC_OID,
    SUPERUSER_OID,
};
use crate::catalog::{
    quote_identifier, row_array_oid, row_type_named, row_type_oid, row_type_relation, EnumType,
    QualifiedName,
};
use crate::storage::DbState;
use crate::types::{enum_array_oid, ScalarValue};

/// pg_type's rows of the enum types, in pg_type's column order (`types::PG_TYPE`).
pub(super) fn pg_type_rows(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .enum_types
        .values()
        .flat_map(|t| {
            let enum_row = vec![
                oid(t.oid),
                text(&t.name.name),
                oid(t.name.schema),
                oid(SUPERUSER_OID),
                int2(4),
                boolean(true),
                char(b'e'),
                char(b'E'),
                boolean(false),
                boolean(true),
                char(b','),
                oid(0),
                text("-"),
                oid(0),
                oid(enum_array_oid(t.oid)),
                text("enum_in"),
                text("enum_out"),
                text("enum_recv"),
                text("enum_send"),
                text("-"),
                text("-"),
                text("-"),
            ]
            .into_iter()
            .chain(super::types::pg_type_tail(b'i', b'p', 0))
            .collect();
            let array_row = super::row_types::row(
                [
                    enum_array_oid(t.oid),
                    t.name.schema,
                    SUPERUSER_OID,
                    0,
                    t.oid,
                    0,
                ],
                text(&format!("_{}", t.name.name)),
                (b'b', b'A'),
                super::row_types::ARRAY_FUNCTIONS,
                b'i',
            );
            [enum_row, array_row]
        })
        .collect()
}

/// The enum type whose array type is `type_oid`, if any.
pub(super) fn enum_array_element(state: &DbState, type_oid: u32) -> Option<u32> {
    let element = type_oid.checked_sub(1)?;
    state.enum_types.contains_key(&element).then_some(element)
}

pub(super) fn pg_enum(snapshot: &CatalogSnapshot) -> Rows {
    let mut types: Vec<&EnumType> = snapshot
        .state
        .enum_types
        .values()
        .map(|t| t.as_ref())
        .collect();
    types.sort_by_key(|t| t.oid);
    types
        .into_iter()
        .flat_map(|t| {
            t.labels.iter().map(|label| {
                vec![
                    oid(label.oid),
                    oid(t.oid),
                    ScalarValue::Float32(label.sort_order),
                    text(&label.label),
                ]
            })
        })
        .collect()
}

/// The name of the user-defined type `type_oid`: an enum type, a domain or a relation's
/// row type.
fn user_type_name(state: &DbState, type_oid: u32) -> Option<QualifiedName> {
    match state.enum_types.get(&type_oid) {
        Some(enum_type) => Some(enum_type.name.clone()),
        None => match state.domains.get(&type_oid) {
            Some(domain) => Some(domain.name.clone()),
            None => row_type_relation(state, type_oid).map(|r| r.name),
        },
    }
}

/// The user-defined type called `name`.
fn user_type_named(state: &DbState, name: &QualifiedName) -> Option<u32> {
    match state.enum_type_named(name) {
        Some(enum_type) => Some(enum_type.oid),
        None => match state.domain_named(name) {
            Some(domain) => Some(domain.oid),
            None => row_type_named(state, name).map(|r| row_type_oid(r.oid)),
        },
    }
}

/// format_type of an enum type, a domain or a row type: its name, qualified by its schema when the
/// search path does not find it by that name (PostgreSQL's rule). `None` for other OIDs.
pub(super) fn enum_type_name(snapshot: &CatalogSnapshot, type_oid: u32) -> Option<String> {
    let type_name = user_type_name(snapshot.state, type_oid)?;
    let name = quote_identifier(&type_name.name);
    Some(match enum_type_visible(snapshot, type_oid)? {
        true => name,
        false => format!(
            "{}.{name}",
            quote_identifier(&snapshot.schema_name(type_name.schema))
        ),
    })
}

/// pg_type_is_visible of an enum type, a domain or a row type: whether the search path finds it first
/// by its name. `None` for other OIDs.
pub(super) fn enum_type_visible(snapshot: &CatalogSnapshot, type_oid: u32) -> Option<bool> {
    let type_name = user_type_name(snapshot.state, type_oid)?;
    let searched = match snapshot.search_path {
        Some(path) => path.searched(snapshot.state),
        None => vec![PG_CATALOG_OID, PUBLIC_OID],
    };
    let found_first = searched
        .into_iter()
        .map(|schema| QualifiedName::new(schema, type_name.name.as_str()))
        .find(|q| user_type_named(snapshot.state, q).is_some());
    Some(found_first.is_some_and(|q| q.schema == type_name.schema))
}

/// regtypein of an enum type's, a domain's, a row type's or its array type's name, `schema.name` or a name in `public`
/// (regtype values are read without the session's search path here).
pub(super) fn enum_type_oid(state: &DbState, name: &str) -> Option<u32> {
    let (schema, name) = match name.split_once('.') {
        Some((schema, name)) => (state.schema_by_name(schema)?.oid, name),
        None => (PUBLIC_OID, name),
    };
    let array_of = |element: &str| row_type_named(state, &QualifiedName::new(schema, element));
    let enum_array_of = |element: &str| {
        let element = state.enum_type_named(&QualifiedName::new(schema, element))?;
        Some(enum_array_oid(element.oid))
    };
    match name.strip_prefix('_').and_then(array_of) {
        Some(relation) => Some(row_array_oid(relation.oid)),
        None => (name.strip_prefix('_').and_then(enum_array_of))
            .or_else(|| user_type_named(state, &QualifiedName::new(schema, name))),
    }
}
