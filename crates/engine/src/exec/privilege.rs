//! GRANT and REVOKE of privileges on tables, views, sequences and schemas, run under the roles lock on
//! the newest role catalog (see `exec/role.rs`), and the upkeep of owners: a relation made
//! by a role other than the bootstrap superuser is recorded as that role's.

use crate::api::Notice;
use crate::catalog::{
    change_acl, AclChange, AclItem, ObjectKind, ObjectPrivileges, PrivilegeCatalog, RoleCatalog,
    SessionRole, PUBLIC_GRANTEE,
};
use crate::catalog::{invalid_privilege_type, AclMode, COLUMN_PRIVILEGES};
use crate::error::{Error, Result, SqlState};
use crate::plan::{PrivilegeChange, PrivilegeTarget};
use crate::storage::{DbState, Transaction};

/// Applies a GRANT or REVOKE by `actor` to `roles`.
pub fn change_privileges(
    roles: &mut RoleCatalog,
    change: PrivilegeChange,
    actor: &SessionRole,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let PrivilegeChange {
        grant,
        privileges,
        all,
        targets,
        grantees,
        grant_option,
        cascade,
        columns,
    } = change;
    let grantees = grantees
        .iter()
        .map(|name| match name {
            None => Ok(PUBLIC_GRANTEE),
            Some(name) => roles.named(name, actor).map(|r| r.oid),
        })
        .collect::<Result<Vec<_>>>()?;
    if grant && grant_option && grantees.contains(&PUBLIC_GRANTEE) {
        return Err(Error::new(
            SqlState::InvalidGrantOperation,
            "grant options can only be granted to roles",
        ));
    }
    for (index, target) in targets.iter().enumerate() {
        let acl_change = AclChange {
            grant,
            privileges: target_privileges(target, privileges, all, notices)?,
            all,
            grantees: &grantees,
            grant_option,
            cascade,
        };
        let object = newest(target, &roles.privileges);
        let denied = || {
            Error::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied for {} {}", target.word, target.name),
            )
        };
        let on_columns = columns.iter().filter(|c| c.target == index);
        for column in on_columns {
            let change = AclChange {
                privileges: column.privileges,
                ..acl_change
            };
            let about = format!("column \"{}\" of relation \"{}\"", column.name, target.name);
            change_column_acl(
                roles,
                &object,
                (target.oid, column.attnum),
                &change,
                actor,
                &denied,
            )?
            .into_iter()
            .for_each(|warning| notices.push(acl_warning(&warning, &about)));
        }
        if acl_change.privileges.is_empty() && !columns.is_empty() {
            continue;
        }
        // PostgreSQL's REVOKE on a table takes the same privileges from its columns.
        if !grant && target.kind == ObjectKind::Relation {
            let attnums: Vec<i16> = roles
                .privileges
                .columns
                .of_table(target.oid)
                .map(|(attnum, _)| attnum)
                .collect();
            let change = AclChange {
                privileges: acl_change.privileges.intersection(COLUMN_PRIVILEGES),
                ..acl_change
            };
            for attnum in attnums {
                change_column_acl(
                    roles,
                    &object,
                    (target.oid, attnum),
                    &change,
                    actor,
                    &denied,
                )?;
            }
        }
        let (acl, warnings) = change_acl(
            roles,
            target.kind,
            &object,
            &acl_change,
            actor.role_oid,
            denied,
        )?;
        let about = format!("\"{}\"", target.name);
        for warning in warnings {
            notices.push(acl_warning(&warning, &about));
        }
        roles.privileges.put(
            target.kind,
            target.oid,
            ObjectPrivileges {
                owner: object.owner,
                acl: Some(acl),
            },
        );
    }
    Ok(())
}

/// Applies `change` by `actor` to the ACL of column `attnum` of table `oid` (owned as
/// `table` says); returns the warnings to give. `denied` is the error for an actor
/// holding nothing there.
fn change_column_acl(
    roles: &mut RoleCatalog,
    table: &ObjectPrivileges,
    (oid, attnum): (u32, i16),
    change: &AclChange<'_>,
    actor: &SessionRole,
    denied: &dyn Fn() -> Error,
) -> Result<Vec<String>> {
    let object = ObjectPrivileges {
        owner: table.owner,
        acl: Some(roles.privileges.columns.get(oid, attnum).to_vec()),
    };
    let (acl, warnings) = change_acl(
        roles,
        ObjectKind::Relation,
        &object,
        change,
        actor.role_oid,
        denied,
    )?;
    roles.privileges.columns.put(oid, attnum, acl);
    Ok(warnings)
}

/// The WARNING a GRANT or REVOKE gives about privileges it could not give or take on
/// the object `about` names.
fn acl_warning(warning: &str, about: &str) -> Notice {
    Notice {
        severity: "WARNING",
        state: SqlState::Warning,
        message: format!("{warning} for {about}"),
        detail: None,
    }
}

/// What a GRANT or REVOKE of `privileges` means for `target`: ON TABLE names sequences
/// too, which take only their own privileges (a warning drops the others, as in
/// PostgreSQL's ExecGrant_Relation), while a table refuses a sequence's USAGE.
fn target_privileges(
    target: &PrivilegeTarget,
    privileges: AclMode,
    all: bool,
    notices: &mut Vec<Notice>,
) -> Result<AclMode> {
    let supported = target.kind.all_privileges();
    if all {
        return Ok(supported);
    }
    if supported.contains(privileges) {
        return Ok(privileges);
    }
    match target.kind {
        ObjectKind::Sequence => {
            notices.push(Notice {
                severity: "WARNING",
                state: SqlState::InvalidGrantOperation,
                message: format!(
                    "sequence \"{}\" only supports USAGE, SELECT, and UPDATE privileges",
                    target.name
                ),
                detail: None,
            });
            Ok(privileges.intersection(supported))
        }
        ObjectKind::Relation | ObjectKind::Schema | ObjectKind::Function | ObjectKind::Database => {
            Err(invalid_privilege_type("USAGE", target.kind))
        }
    }
}

/// ALTER ... OWNER TO: by an owner (or superuser) that is a member of the new owner, who
/// takes the old owner's place in the ACL (PostgreSQL's aclnewowner).
pub fn change_owner(
    roles: &mut RoleCatalog,
    target: &PrivilegeTarget,
    new_owner: &str,
    actor: &SessionRole,
) -> Result<()> {
    let new_owner = roles.named(new_owner, actor)?.oid;
    let object = newest(target, &roles.privileges);
    if !roles.has_ownership(actor.role_oid, object.owner) {
        return Err(Error::new(
            SqlState::InsufficientPrivilege,
            format!("must be owner of {} {}", target.word, target.name),
        ));
    }
    if !roles.has_ownership(actor.role_oid, new_owner) {
        let name = roles
            .by_oid(new_owner)
            .map(|r| r.name.clone())
            .unwrap_or_default();
        return Err(Error::new(
            SqlState::InsufficientPrivilege,
            format!("must be member of role \"{name}\""),
        ));
    }
    set_owner(roles, target, new_owner);
    Ok(())
}

/// Makes `new_owner` the owner of `target`, in the old owner's place in its ACL
/// (PostgreSQL's aclnewowner).
pub fn set_owner(roles: &mut RoleCatalog, target: &PrivilegeTarget, new_owner: u32) {
    let object = newest(target, &roles.privileges);
    let acl = object.acl.map(|acl| {
        let mut renamed: Vec<AclItem> = Vec::with_capacity(acl.len());
        for mut item in acl {
            for role in [&mut item.grantee, &mut item.grantor] {
                if *role == object.owner {
                    *role = new_owner;
                }
            }
            match renamed
                .iter_mut()
                .find(|i| i.grantee == item.grantee && i.grantor == item.grantor)
            {
                Some(same) => {
                    same.privileges = same.privileges.union(item.privileges);
                    same.grant_options = same.grant_options.union(item.grant_options);
                }
                None => renamed.push(item),
            }
        }
        renamed
    });
    roles.privileges.put(
        target.kind,
        target.oid,
        ObjectPrivileges {
            owner: new_owner,
            acl,
        },
    );
}

/// The target's owner and ACL in the newest catalog: its entry, or what it had when bound
/// while it has none. A schema's owner is in its definition, so always the bound one.
fn newest(target: &PrivilegeTarget, catalog: &PrivilegeCatalog) -> ObjectPrivileges {
    match catalog.objects.get(&(target.kind, target.oid)) {
        Some(entry) => ObjectPrivileges {
            owner: match target.kind {
                ObjectKind::Relation
                | ObjectKind::Sequence
                | ObjectKind::Function
                | ObjectKind::Database => entry.owner,
                ObjectKind::Schema => target.current.owner,
            },
            acl: entry.acl.clone(),
        },
        None => target.current.clone(),
    }
}

/// Records `owner` as the owner of the objects `oids` of `kind` it just made (nothing
/// for the bootstrap superuser, every object's owner by default).
pub fn record_owner(
    txn: &mut Transaction,
    kind: ObjectKind,
    oids: &[u32],
    owner: u32,
) -> Result<()> {
    if owner == crate::catalog::system::SUPERUSER_OID || oids.is_empty() {
        return Ok(());
    }
    let mut roles = txn.roles_to_change()?;
    for &oid in oids {
        roles
            .privileges
            .put(kind, oid, ObjectPrivileges { owner, acl: None });
    }
    txn.put_roles(roles);
    Ok(())
}

/// Forgets the owners and ACLs of objects that no longer exist in `state`.
pub fn prune(catalog: &mut PrivilegeCatalog, state: &DbState) {
    catalog.objects.retain(|(kind, oid), _| match kind {
        ObjectKind::Relation => {
            state.tables.contains_key(oid) || state.views.values().any(|v| v.oid == *oid)
        }
        ObjectKind::Schema => state.schemas.contains_key(oid),
        ObjectKind::Sequence => state.sequences.values().any(|s| s.oid == *oid),
        ObjectKind::Function => state.functions.contains_key(oid),
        ObjectKind::Database => true,
    });
    catalog.columns.0.retain(|(oid, attnum), _| {
        let columns = match state.tables.get(oid) {
            Some(table) => table.schema.columns.len(),
            None => state
                .views
                .values()
                .find(|v| v.oid == *oid)
                .map_or(0, |v| v.columns.len()),
        };
        usize::try_from(*attnum).is_ok_and(|n| n >= 1 && n <= columns)
    });
}

/// 2BP01 when `role` owns an object or holds privileges (DROP ROLE refuses then).
pub fn check_unused(roles: &RoleCatalog, role: u32, name: &str) -> Result<()> {
    match roles.privileges.mentions(role) {
        true => Err(Error::new(
            SqlState::DependentObjectsStillExist,
            format!("role \"{name}\" cannot be dropped because some objects depend on it"),
        )),
        false => Ok(()),
    }
}
