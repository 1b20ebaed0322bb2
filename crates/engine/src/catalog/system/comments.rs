//! Comments: pg_description (COMMENT ON's, kept in each object's definition, and initdb's),
//! pg_shdescription, and what obj_description / shobj_description / col_description find.

use super::relations::{derived_oid, indexes, Derived};
use super::{oid, text, CatalogSnapshot, Rows, DATABASE_OID, PG_TOAST_OID};
use crate::catalog::Extension;

const PG_CLASS_OID: u32 = 1259;
const PG_NAMESPACE_OID: u32 = 2615;
const PG_TYPE_OID: u32 = 1247;
const PG_DATABASE_OID: u32 = 1262;
const PG_CONSTRAINT_OID: u32 = 2606;
const PG_EXTENSION_OID: u32 = 3079;

/// initdb's comment on pg_toast, a schema the catalog lists without defining it.
const PG_TOAST_COMMENT: &str = "reserved schema for TOAST tables";

/// The same for pg_shdescription, whose objects are shared by the cluster's databases.
const SHARED_DESCRIPTIONS: &[(u32, u32, &str)] = &[(
    DATABASE_OID,
    PG_DATABASE_OID,
    "default administrative connection database",
)];

/// One row of pg_description.
struct Description<'a> {
    object: u32,
    catalog: u32,
    /// A column's number; 0 for the object itself.
    sub_id: i32,
    comment: &'a str,
}

/// Every comment of the database.
fn descriptions<'a>(snapshot: &CatalogSnapshot<'a>) -> Vec<Description<'a>> {
    let state = snapshot.state;
    let describe = |object, catalog, sub_id, comment: Option<&'a str>| {
        comment.map(|comment| Description {
            object,
            catalog,
            sub_id,
            comment,
        })
    };
    let mut found = vec![Description {
        object: PG_TOAST_OID,
        catalog: PG_NAMESPACE_OID,
        sub_id: 0,
        comment: PG_TOAST_COMMENT,
    }];
    for schema in state.schemas.values() {
        found.extend(describe(
            schema.oid,
            PG_NAMESPACE_OID,
            0,
            schema.comment.as_deref(),
        ));
    }
    for entry in state.tables.values() {
        let schema = &entry.schema;
        found.extend(describe(
            schema.oid,
            PG_CLASS_OID,
            0,
            schema.comment.as_deref(),
        ));
        for (position, column) in schema.columns.iter().enumerate() {
            let number = i32::try_from(position + 1).unwrap_or(i32::MAX);
            found.extend(describe(
                schema.oid,
                PG_CLASS_OID,
                number,
                column.comment.as_deref(),
            ));
        }
        for (position, index) in indexes(schema).iter().enumerate() {
            found.extend(describe(index.oid, PG_CLASS_OID, 0, index.comment));
            let constraint = derived_oid(schema.oid, Derived::Constraint, position);
            found.extend(describe(
                constraint,
                PG_CONSTRAINT_OID,
                0,
                index.constraint_comment,
            ));
        }
        for (position, check) in schema.constraints.iter().enumerate() {
            let constraint = super::constraints::constraint_oid(schema, position);
            found.extend(describe(
                constraint,
                PG_CONSTRAINT_OID,
                0,
                check.comment.as_deref(),
            ));
        }
        for (position, key) in schema.foreign_keys.iter().enumerate() {
            let constraint = super::relations::foreign_key_oid(schema, position);
            found.extend(describe(
                constraint,
                PG_CONSTRAINT_OID,
                0,
                key.comment.as_deref(),
            ));
        }
    }
    for view in state.views.values() {
        found.extend(describe(view.oid, PG_CLASS_OID, 0, view.comment.as_deref()));
    }
    for enum_type in state.enum_types.values() {
        found.extend(describe(
            enum_type.oid,
            PG_TYPE_OID,
            0,
            enum_type.comment.as_deref(),
        ));
    }
    for domain in state.domains.values() {
        found.extend(describe(
            domain.oid,
            PG_TYPE_OID,
            0,
            domain.comment.as_deref(),
        ));
    }
    for sequence in state.sequences.values() {
        found.extend(describe(
            sequence.oid,
            PG_CLASS_OID,
            0,
            sequence.comment.as_deref(),
        ));
    }
    for extension in state.extensions.values() {
        let comment = Extension::available(&extension.name).map(|e| e.comment);
        found.extend(describe(extension.oid, PG_EXTENSION_OID, 0, comment));
    }
    found
}

pub(super) fn pg_description(snapshot: &CatalogSnapshot) -> Rows {
    descriptions(snapshot)
        .into_iter()
        .map(|d| {
            vec![
                oid(d.object),
                oid(d.catalog),
                super::int4(d.sub_id),
                text(d.comment),
            ]
        })
        .collect()
}

pub(super) fn pg_shdescription(_: &CatalogSnapshot) -> Rows {
    SHARED_DESCRIPTIONS
        .iter()
        .map(|&(object, catalog, comment)| vec![oid(object), oid(catalog), text(comment)])
        .collect()
}

/// obj_description(object, catalog) and shobj_description: the comment on `object` in the
/// catalog named `catalog` (any catalog if `None`); col_description when `column` is given.
pub(super) fn comment(
    snapshot: &CatalogSnapshot,
    object: u32,
    catalog: Option<&str>,
    column: i32,
) -> Option<String> {
    let catalog_oid = match catalog {
        None => None,
        Some("pg_class") => Some(PG_CLASS_OID),
        Some("pg_namespace") => Some(PG_NAMESPACE_OID),
        Some("pg_database") => Some(PG_DATABASE_OID),
        Some("pg_constraint") => Some(PG_CONSTRAINT_OID),
        Some("pg_type") => Some(PG_TYPE_OID),
        Some("pg_extension") => Some(PG_EXTENSION_OID),
        Some(_) => return None,
    };
    let wanted = |o: u32, c: u32, sub_id: i32| {
        o == object && sub_id == column && catalog_oid.is_none_or(|wanted| wanted == c)
    };
    if let Some(d) = descriptions(snapshot)
        .into_iter()
        .find(|d| wanted(d.object, d.catalog, d.sub_id))
    {
        return Some(d.comment.to_string());
    }
    SHARED_DESCRIPTIONS
        .iter()
        .find(|&&(o, c, _)| wanted(o, c, 0))
        .map(|&(_, _, comment)| comment.to_string())
}
