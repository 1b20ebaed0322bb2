//! information_schema.table_privileges and role_table_grants: one row per privilege each
//! ACL entry of a table or view grants (PostgreSQL's aclexplode over relacl or its
//! default), with the owner's implicit grant options. table_privileges shows the entries
//! whose grantor or grantee the current role holds the privileges of, or whose grantee is
//! PUBLIC; role_table_grants only the former.

use super::{relations, text, yes_or_no, CatalogSnapshot, Rows, SUPERUSER_OID};
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
    let state = snapshot.state;
    let roles = &state.roles;
    let me = snapshot.session.role_oid;
    let enabled = |role: u32| role != PUBLIC_GRANTEE && roles.has_privileges_of(me, role);
    let database = &snapshot.session.database;
    let mut rows = Vec::new();
    for relation in relations(snapshot) {
        let user_defined = state.tables.contains_key(&relation.oid)
            || state.views.values().any(|v| v.oid == relation.oid);
        let object = match user_defined {
            true => roles.relation_privileges(relation.oid),
            false => system_relation_privileges(),
        };
        for item in object.effective_acl(ObjectKind::Relation) {
            let AclItem {
                grantee,
                grantor,
                privileges,
                grant_options,
            } = item;
            let shown = enabled(grantor)
                || enabled(grantee)
                || (grantee == PUBLIC_GRANTEE && !enabled_roles_only);
            if !shown {
                continue;
            }
            // The owner (and whoever holds its privileges) may always grant.
            let owns = grantee != PUBLIC_GRANTEE && roles.has_privileges_of(grantee, object.owner);
            let grantee_name = match grantee {
                PUBLIC_GRANTEE => "PUBLIC".to_string(),
                role => snapshot.role_name(role),
            };
            for (name, bit) in TABLE_PRIVILEGE_TYPES {
                if !privileges.contains(bit) {
                    continue;
                }
                rows.push(vec![
                    text(&snapshot.role_name(grantor)),
                    text(&grantee_name),
                    text(database),
                    text(&relation.schema),
                    text(relation.name),
                    text(name),
                    yes_or_no(owns || grant_options.contains(bit)),
                    yes_or_no(bit == AclMode::SELECT),
                ]);
            }
        }
    }
    rows
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
