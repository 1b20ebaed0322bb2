//! Comments (COMMENT ON is not supported, so only those initdb makes): pg_description,
//! pg_shdescription, and what obj_description / shobj_description / col_description find.

use super::{
    oid, text, CatalogSnapshot, Rows, DATABASE_OID, PG_CATALOG_OID, PG_TOAST_OID, PUBLIC_OID,
};

const PG_CLASS_OID: u32 = 1259;
const PG_NAMESPACE_OID: u32 = 2615;
const PG_DATABASE_OID: u32 = 1262;

/// (object, catalog it is in, comment) of pg_description.
const DESCRIPTIONS: &[(u32, u32, &str)] = &[
    (PG_CATALOG_OID, PG_NAMESPACE_OID, "system catalog schema"),
    (PUBLIC_OID, PG_NAMESPACE_OID, "standard public schema"),
    (
        PG_TOAST_OID,
        PG_NAMESPACE_OID,
        "reserved schema for TOAST tables",
    ),
];

/// The same for pg_shdescription, whose objects are shared by the cluster's databases.
const SHARED_DESCRIPTIONS: &[(u32, u32, &str)] = &[(
    DATABASE_OID,
    PG_DATABASE_OID,
    "default administrative connection database",
)];

pub(super) fn pg_description(_: &CatalogSnapshot) -> Rows {
    DESCRIPTIONS
        .iter()
        .map(|&(object, catalog, comment)| {
            vec![oid(object), oid(catalog), super::int4(0), text(comment)]
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
/// catalog named `catalog` (any catalog if `None`). Columns have none.
pub(super) fn comment(object: u32, catalog: Option<&str>) -> Option<&'static str> {
    let catalog_oid = match catalog {
        None => None,
        Some("pg_class") => Some(PG_CLASS_OID),
        Some("pg_namespace") => Some(PG_NAMESPACE_OID),
        Some("pg_database") => Some(PG_DATABASE_OID),
        Some(_) => return None,
    };
    DESCRIPTIONS
        .iter()
        .chain(SHARED_DESCRIPTIONS)
        .find(|&&(o, c, _)| o == object && catalog_oid.is_none_or(|wanted| wanted == c))
        .map(|&(_, _, comment)| comment)
}
