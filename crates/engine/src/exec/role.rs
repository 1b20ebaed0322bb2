//! CREATE / ALTER / DROP ROLE and GRANT / REVOKE of role membership, run under the roles
//! lock on a copy of the newest role catalog, with PostgreSQL 15's permission rules: roles
//! are created, altered and dropped by superusers and CREATEROLE roles, superuser roles
//! (and the SUPERUSER, REPLICATION and BYPASSRLS attributes) only by superusers, and any
//! role may change its own password.

use super::privilege;
use crate::api::Notice;
use crate::catalog::password::{self, PasswordEncryption};
use crate::catalog::{missing_role, role_setting, Membership, Role, RoleCatalog, SessionRole};
use crate::error::{Error, Result, SqlState};
use crate::plan::{RoleChange, RoleOptions, SettingChange};
use crate::storage::Transaction;
use crate::types::datetime::parse_timestamptz;

/// Who runs the statement, and how it stores new passwords.
pub struct RoleActor<'a> {
    pub session: &'a SessionRole,
    /// The session's user, which may be neither dropped nor renamed.
    pub session_user: u32,
    pub encryption: PasswordEncryption,
}

pub fn change_role(
    txn: &mut Transaction,
    change: RoleChange,
    actor: &RoleActor<'_>,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let mut roles = txn.roles_to_change()?;
    privilege::prune(&mut roles.privileges, &txn.view());
    let me = roles.by_oid(actor.session.role_oid).map(|r| (**r).clone());
    let me = me.unwrap_or_else(|| Role::new(actor.session.role_oid, actor.session.name.clone()));
    match change {
        RoleChange::Create {
            name,
            user,
            options,
            in_roles,
            members,
            admins,
        } => {
            check_may_create(&me, &options)?;
            check_acceptable(&name)?;
            if roles.by_session_name(&name, actor.session).is_some() {
                return Err(duplicate(&name));
            }
            let mut role = Role::new(txn.allocate_oid(), name);
            role.login = user;
            apply_options(&mut role, options, actor.encryption, notices)?;
            let oid = role.oid;
            let member_name = role.name.clone();
            roles.put(role);
            for role_name in in_roles {
                grant(
                    &mut roles,
                    &me,
                    actor,
                    &role_name,
                    &member_name,
                    false,
                    notices,
                )?;
            }
            for (names, admin) in [(members, false), (admins, true)] {
                for member in names {
                    let role_name = roles
                        .by_oid(oid)
                        .map(|r| r.name.clone())
                        .unwrap_or_default();
                    grant(&mut roles, &me, actor, &role_name, &member, admin, notices)?;
                }
            }
        }
        RoleChange::Alter { name, options } => {
            let mut role = (**roles.named(&name, actor.session)?).clone();
            check_may_alter(&me, &role, &options)?;
            apply_options(&mut role, options, actor.encryption, notices)?;
            roles.put(role);
        }
        RoleChange::Rename { name, new_name } => {
            let mut role = (**roles.named(&name, actor.session)?).clone();
            if role.oid == actor.session_user {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "session user cannot be renamed",
                ));
            }
            if role.oid == me.oid {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "current user cannot be renamed",
                ));
            }
            check_acceptable(&new_name)?;
            if roles.by_session_name(&new_name, actor.session).is_some() {
                return Err(duplicate(&new_name));
            }
            require(
                me.superuser || (me.create_role && !role.superuser),
                if role.superuser {
                    "must be superuser to rename superusers"
                } else {
                    "permission denied to rename role"
                },
            )?;
            // An md5 verifier is salted with the name, so it no longer matches.
            if role
                .password
                .as_deref()
                .is_some_and(|p| !password::is_scram(p))
            {
                role.password = None;
                notices.push(Notice::skipped(
                    "MD5 password cleared because of role rename".to_string(),
                ));
            }
            role.name = new_name;
            roles.put(role);
        }
        RoleChange::Drop { names, if_exists } => {
            require(
                me.superuser || me.create_role,
                "permission denied to drop role",
            )?;
            for name in names {
                let Some(role) = roles.by_session_name(&name, actor.session).cloned() else {
                    if if_exists {
                        notices.push(Notice::skipped(format!(
                            "role \"{name}\" does not exist, skipping"
                        )));
                        continue;
                    }
                    return Err(missing_role(&name));
                };
                let in_use = |message: &str| Err(Error::new(SqlState::ObjectInUse, message));
                if role.oid == me.oid {
                    return in_use("current user cannot be dropped");
                }
                if role.oid == actor.session_user {
                    return in_use("session user cannot be dropped");
                }
                if role.oid == crate::catalog::system::SUPERUSER_OID {
                    return in_use(&format!(
                        "cannot drop role {} because it is required by the database system",
                        role.name
                    ));
                }
                require(
                    me.superuser || !role.superuser,
                    "must be superuser to drop superusers",
                )?;
                privilege::check_unused(&roles, role.oid, &role.name)?;
                super::foreign_server::check_role_unmapped(&txn.view(), role.oid, &role.name)?;
                roles.settings.drop_role(role.oid);
                roles.remove(role.oid);
            }
        }
        RoleChange::Privileges(change) => {
            privilege::change_privileges(&mut roles, change, actor.session, notices)?;
        }
        RoleChange::Owner {
            target,
            followers,
            new_owner,
            tag: _,
        } => {
            privilege::change_owner(&mut roles, &target, &new_owner, actor.session)?;
            let new_owner = roles.named(&new_owner, actor.session)?.oid;
            for follower in &followers {
                privilege::set_owner(&mut roles, follower, new_owner);
            }
        }
        RoleChange::Setting {
            role,
            in_database,
            change,
        } => {
            let role = match role {
                Some(name) => {
                    let target = roles.named(&name, actor.session)?;
                    match target.superuser {
                        true => require(me.superuser, "must be superuser to alter superusers")?,
                        false => require(
                            me.superuser || me.create_role || target.oid == me.oid,
                            "permission denied",
                        )?,
                    }
                    target.oid
                }
                None => {
                    require(me.superuser, "must be superuser to alter settings globally")?;
                    role_setting::ALL
                }
            };
            let database = match in_database {
                true => crate::catalog::system::DATABASE_OID,
                false => role_setting::ALL,
            };
            match change {
                SettingChange::Set { name, value } => {
                    roles.settings.set(database, role, &name, &value)
                }
                SettingChange::Reset { name } => {
                    roles.settings.reset(database, role, name.as_deref())
                }
            }
        }
        RoleChange::Membership {
            grant: true,
            roles: granted,
            members,
            admin_option,
        } => {
            for role_name in &granted {
                for member in &members {
                    grant(
                        &mut roles,
                        &me,
                        actor,
                        role_name,
                        member,
                        admin_option,
                        notices,
                    )?;
                }
            }
        }
        RoleChange::Membership {
            grant: false,
            roles: revoked,
            members,
            admin_option,
        } => {
            for role_name in &revoked {
                let role = roles.named(role_name, actor.session)?.clone();
                check_may_grant(&roles, &me, &role)?;
                for member in &members {
                    let member = roles.named(member, actor.session)?.clone();
                    let found = roles
                        .memberships
                        .iter()
                        .position(|m| m.role == role.oid && m.member == member.oid);
                    match found {
                        None => notices.push(Notice {
                            severity: "WARNING",
                            state: SqlState::Warning,
                            message: format!(
                                "role \"{}\" is not a member of role \"{}\"",
                                member.name, role.name
                            ),
                            detail: None,
                        }),
                        Some(i) if admin_option => roles.memberships[i].admin_option = false,
                        Some(i) => {
                            roles.memberships.remove(i);
                        }
                    }
                }
            }
        }
    }
    txn.put_roles(roles);
    Ok(())
}

/// GRANT `role_name` TO `member_name`.
fn grant(
    roles: &mut RoleCatalog,
    me: &Role,
    actor: &RoleActor<'_>,
    role_name: &str,
    member_name: &str,
    admin_option: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let role = roles.named(role_name, actor.session)?.clone();
    let member = roles.named(member_name, actor.session)?.clone();
    check_may_grant(roles, me, &role)?;
    if roles.is_member_of(role.oid, member.oid) {
        return Err(Error::new(
            SqlState::InvalidGrantOperation,
            format!(
                "role \"{}\" is a member of role \"{}\"",
                role.name, member.name
            ),
        ));
    }
    let existing = roles
        .memberships
        .iter_mut()
        .find(|m| m.role == role.oid && m.member == member.oid);
    match existing {
        Some(existing) if admin_option && !existing.admin_option => {
            existing.admin_option = true;
        }
        Some(_) => notices.push(Notice::skipped(format!(
            "role \"{}\" is already a member of role \"{}\"",
            member.name, role.name
        ))),
        None => roles.memberships.push(Membership {
            role: role.oid,
            member: member.oid,
            grantor: me.oid,
            admin_option,
        }),
    }
    Ok(())
}

/// PostgreSQL 15: superusers grant any role; CREATEROLE roles any but superusers; others
/// the roles they hold with admin option.
fn check_may_grant(roles: &RoleCatalog, me: &Role, role: &Role) -> Result<()> {
    if me.superuser {
        return Ok(());
    }
    if role.superuser {
        return Err(denied("must be superuser to alter superusers"));
    }
    let admin = roles
        .memberships
        .iter()
        .any(|m| m.role == role.oid && m.member == me.oid && m.admin_option);
    require(
        me.create_role || admin,
        &format!("must have admin option on role \"{}\"", role.name),
    )
}

fn check_may_create(me: &Role, options: &RoleOptions) -> Result<()> {
    let wants = |flag: Option<bool>| flag == Some(true);
    if wants(options.superuser) {
        require(me.superuser, "must be superuser to create superusers")?;
    }
    if wants(options.replication) {
        require(
            me.superuser,
            "must be superuser to create replication users",
        )?;
    }
    if wants(options.bypass_rls) {
        require(me.superuser, "must be superuser to create bypassrls users")?;
    }
    require(
        me.superuser || me.create_role,
        "permission denied to create role",
    )
}

fn check_may_alter(me: &Role, role: &Role, options: &RoleOptions) -> Result<()> {
    if me.superuser {
        return Ok(());
    }
    if role.superuser || options.superuser.is_some() {
        return Err(denied(
            "must be superuser to alter superuser roles or change superuser attribute",
        ));
    }
    if role.replication || options.replication.is_some() {
        return Err(denied(
            "must be superuser to alter replication roles or change replication attribute",
        ));
    }
    if options.bypass_rls.is_some() {
        return Err(denied("must be superuser to change bypassrls attribute"));
    }
    let own_password_only = role.oid == me.oid
        && *options
            == RoleOptions {
                password: options.password.clone(),
                ..RoleOptions::default()
            };
    require(me.create_role || own_password_only, "permission denied")
}

fn apply_options(
    role: &mut Role,
    options: RoleOptions,
    encryption: PasswordEncryption,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let RoleOptions {
        superuser,
        create_db,
        create_role,
        inherit,
        login,
        replication,
        bypass_rls,
        connection_limit,
        password,
        valid_until,
    } = options;
    let set = |field: &mut bool, value: Option<bool>| {
        if let Some(value) = value {
            *field = value;
        }
    };
    set(&mut role.superuser, superuser);
    set(&mut role.create_db, create_db);
    set(&mut role.create_role, create_role);
    set(&mut role.inherit, inherit);
    set(&mut role.login, login);
    set(&mut role.replication, replication);
    set(&mut role.bypass_rls, bypass_rls);
    if let Some(limit) = connection_limit {
        role.connection_limit = limit;
    }
    if let Some(password) = password {
        role.password = match password.as_deref() {
            Some("") => {
                notices.push(Notice::skipped(
                    "empty string is not a valid password, clearing password".to_string(),
                ));
                None
            }
            Some(text) => Some(password::encrypt(text, &role.name, encryption)?),
            None => None,
        };
    }
    if let Some(until) = valid_until {
        role.valid_until = Some(parse_timestamptz(&until)?);
    }
    Ok(())
}

/// PostgreSQL reserves `public`, `none` and names starting with `pg_`.
fn check_acceptable(name: &str) -> Result<()> {
    let reserved = |detail: Option<&str>| {
        let error = Error::new(
            SqlState::ReservedName,
            format!("role name \"{name}\" is reserved"),
        );
        Err(match detail {
            Some(detail) => error.with_detail(detail.to_string()),
            None => error,
        })
    };
    match name {
        "public" | "none" => reserved(None),
        _ if name.starts_with("pg_") => {
            reserved(Some("Role names starting with \"pg_\" are reserved."))
        }
        _ => Ok(()),
    }
}

fn duplicate(name: &str) -> Error {
    Error::new(
        SqlState::DuplicateObject,
        format!("role \"{name}\" already exists"),
    )
}

fn denied(message: &str) -> Error {
    Error::new(SqlState::InsufficientPrivilege, message)
}

fn require(allowed: bool, message: &str) -> Result<()> {
    match allowed {
        true => Ok(()),
        false => Err(denied(message)),
    }
}
