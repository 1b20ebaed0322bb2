//! information_schema.table_privileges and role_table_grants: one row per privilege each
//! ACL entry of a table or view grants (PostgreSQL's aclexplode over relacl or its
//! default), with the owner's implicit grant options. table_privileges shows the entries
//! whose grantor or grantee the current role holds the privileges of, or whose grantee is
//! PUBLIC; role_table_grants only the former. column_privileges: the same for each
//! column, from its table's ACL and its own, once each.

use std::collections::BTreeSet;

use super::{relations, text, yes_or_no, CatalogSnapshot, Rows, SUPERUSER_OID};
use crate::catalog::system::RELATIONS;
use crate::catalog::{default_acl, AclItem, AclMode, ObjectKind, ObjectPrivileges, PUBLIC_GRANTEE};

/// The privileges table_privileges names, in ACL bit order.
const TABLE_PRIVILEGE_TYPES: [(&str, AclMode); 7] = [
    ("INSERT", AclMode::INSERT),
    ("SELECT", AclMode::SELECT),
    ("UPDATE", AclMode::UPDATE),
    ("DELETE", AclMode::DELETE),
    ("TRUNCATE", AclMode::TRUNCATE),
    ("REFERENCES", AclMode::REFERENCES),
    ("TRIGGER", AclMode::TRIGGER),
];

pub(in crate::catalog::system) fn table_privileges(snapshot: &CatalogSnapshot) -> Rows {
    privilege_rows(snapshot, false)
}

pub(in crate::catalog::system) fn role_table_grants(snapshot: &CatalogSnapshot) -> Rows {
    privilege_rows(snapshot, true)
}

fn privilege_rows(snapshot: &CatalogSnapshot, enabled_roles_only: bool) -> Rows {
    let database = &snapshot.session.database;
    let mut rows = Vec::new();
    for relation in relations(snapshot) {
        let object = relation_privileges(snapshot, relation.oid);
        for item in object.effective_acl(ObjectKind::Relation) {
            for grant in granted(snapshot, &object, &item, enabled_roles_only) {
                if !TABLE_PRIVILEGE_TYPES.iter().any(|(_, b)| *b == grant.bit) {
                    continue;
                }
                rows.push(vec![
                    text(&grant.grantor),
                    text(&grant.grantee),
                    text(database),
                    text(&relation.schema),
                    text(relation.name),
                    text(grant.name),
                    yes_or_no(grant.grantable),
                    yes_or_no(grant.bit == AclMode::SELECT),
                ]);
            }
        }
    }
    rows
}

pub(in crate::catalog::system) fn column_privileges(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    let columns = &snapshot.state.roles.privileges.columns;
    let mut rows = Vec::new();
    for relation in relations(snapshot) {
        let object = relation_privileges(snapshot, relation.oid);
        let table_acl = object.effective_acl(ObjectKind::Relation);
        // PostgreSQL's view is a UNION: a grant on the table and on the column is one row.
        let mut seen = BTreeSet::new();
        for (position, column) in column_names(snapshot, relation.oid).iter().enumerate() {
            let attnum = i16::try_from(position + 1).unwrap_or(i16::MAX);
            let acl = table_acl.iter().chain(columns.get(relation.oid, attnum));
            for item in acl {
                for grant in granted(snapshot, &object, item, false) {
                    let key = (
                        position,
                        grant.bit,
                        grant.grantable,
                        grant.grantor.clone(),
                        grant.grantee.clone(),
                    );
                    if !COLUMN_PRIVILEGE_TYPES.contains(&grant.bit) || !seen.insert(key) {
                        continue;
                    }
                    rows.push(vec![
                        text(&grant.grantor),
                        text(&grant.grantee),
                        text(database),
                        text(&relation.schema),
                        text(relation.name),
                        text(column),
                        text(grant.name),
                        yes_or_no(grant.grantable),
                    ]);
                }
            }
        }
    }
    rows
}

/// The privileges a column may hold, in ACL bit order.
const COLUMN_PRIVILEGE_TYPES: [AclMode; 4] = [
    AclMode::INSERT,
    AclMode::SELECT,
    AclMode::UPDATE,
    AclMode::REFERENCES,
];

/// One privilege an ACL entry grants, as the information schema shows it.
struct Grant {
    grantor: String,
    grantee: String,
    name: &'static str,
    bit: AclMode,
    grantable: bool,
}

/// The privileges `item` (of `object`'s ACL or a column's) grants, if the current role
/// may see it: it holds the grantor's or grantee's privileges, or (unless
/// `enabled_roles_only`) the grantee is PUBLIC.
fn granted(
    snapshot: &CatalogSnapshot,
    object: &ObjectPrivileges,
    item: &AclItem,
    enabled_roles_only: bool,
) -> Vec<Grant> {
    let roles = &snapshot.state.roles;
    let me = snapshot.session.role_oid;
    let enabled = |role: u32| role != PUBLIC_GRANTEE && roles.has_privileges_of(me, role);
    let AclItem {
        grantee,
        grantor,
        privileges,
        grant_options,
    } = *item;
    let shown =
        enabled(grantor) || enabled(grantee) || (grantee == PUBLIC_GRANTEE && !enabled_roles_only);
    if !shown {
        return Vec::new();
    }
    // The owner (and whoever holds its privileges) may always grant.
    let owns = grantee != PUBLIC_GRANTEE && roles.has_privileges_of(grantee, object.owner);
    let grantee_name = match grantee {
        PUBLIC_GRANTEE => "PUBLIC".to_string(),
        role => snapshot.role_name(role),
    };
    TABLE_PRIVILEGE_TYPES
        .iter()
        .filter(|(_, bit)| privileges.contains(*bit))
        .map(|&(name, bit)| Grant {
            grantor: snapshot.role_name(grantor),
            grantee: grantee_name.clone(),
            name,
            bit,
            grantable: owns || grant_options.contains(bit),
        })
        .collect()
}

/// A table's or view's owner and ACL; a system relation's as initdb makes them.
fn relation_privileges(snapshot: &CatalogSnapshot, oid: u32) -> ObjectPrivileges {
    let state = snapshot.state;
    let user_defined =
        state.tables.contains_key(&oid) || state.views.values().any(|v| v.oid == oid);
    match user_defined {
        true => state.roles.relation_privileges(oid),
        false => system_relation_privileges(),
    }
}

/// The column names of relation `oid`, in attribute number order.
fn column_names<'a>(snapshot: &CatalogSnapshot<'a>, oid: u32) -> Vec<&'a str> {
    let state = snapshot.state;
    if let Some(table) = state.tables.get(&oid) {
        return table
            .schema
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .collect();
    }
    if let Some(view) = state.views.values().find(|v| v.oid == oid) {
        return view.columns.iter().map(|(n, _)| n.as_str()).collect();
    }
    let system = RELATIONS.iter().find(|r| r.oid == oid);
    system.map_or_else(Vec::new, |r| r.columns.iter().map(|(n, _)| *n).collect())
}

/// What initdb gives the system catalogs and views: owned by the bootstrap superuser,
/// readable by PUBLIC.
fn system_relation_privileges() -> ObjectPrivileges {
    let owner = SUPERUSER_OID;
    let mut acl = default_acl(ObjectKind::Relation, owner);
    acl.push(AclItem {
        grantee: PUBLIC_GRANTEE,
        grantor: owner,
        privileges: AclMode::SELECT,
        grant_options: AclMode::NONE,
    });
    ObjectPrivileges {
        owner,
        acl: Some(acl),
    }
}
