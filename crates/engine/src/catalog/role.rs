//! Roles (pg_authid) and role membership (pg_auth_members): who may log in, with which
//! password verifier, and with which attributes. The catalog is cluster-wide and small, so a
//! transaction that changes it stages a whole new copy (see `Transaction::put_roles`).
//!
//! OID 10 is the bootstrap superuser, as in PostgreSQL. A server that trusts every client
//! (the in-memory development default) lets a client that names no existing role in as that
//! superuser under the name it gave; the session then sees the bootstrap role by that name
//! (`RoleCatalog::displayed_name`), so what it creates is owned by "itself".

use std::sync::Arc;

use super::privilege::PrivilegeCatalog;
use crate::catalog::system::SUPERUSER_OID;
use crate::error::{Error, Result, SqlState};

/// The bootstrap superuser's name in a new database.
pub const BOOTSTRAP_SUPERUSER: &str = "kestrel";

/// One role: PostgreSQL's pg_authid row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    pub oid: u32,
    pub name: String,
    pub superuser: bool,
    pub inherit: bool,
    pub create_role: bool,
    pub create_db: bool,
    pub login: bool,
    pub replication: bool,
    pub bypass_rls: bool,
    /// -1: no limit.
    pub connection_limit: i32,
    /// A SCRAM-SHA-256 or md5 verifier (never the password itself).
    pub password: Option<String>,
    /// The password stops working after this instant (a timestamptz in microseconds).
    pub valid_until: Option<i64>,
}

impl Role {
    /// A role with PostgreSQL's CREATE ROLE defaults (NOLOGIN; CREATE USER then sets LOGIN).
    pub fn new(oid: u32, name: String) -> Role {
        Role {
            oid,
            name,
            superuser: false,
            inherit: true,
            create_role: false,
            create_db: false,
            login: false,
            replication: false,
            bypass_rls: false,
            connection_limit: -1,
            password: None,
            valid_until: None,
        }
    }

    fn bootstrap() -> Role {
        Role {
            superuser: true,
            create_role: true,
            create_db: true,
            login: true,
            replication: true,
            bypass_rls: true,
            ..Role::new(SUPERUSER_OID, BOOTSTRAP_SUPERUSER.to_string())
        }
    }
}

/// `member` is a member of `role` (GRANT role TO member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub role: u32,
    pub member: u32,
    pub grantor: u32,
    pub admin_option: bool,
}

/// Every role and membership of the database, and what each role owns and was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleCatalog {
    /// In OID order.
    pub roles: Vec<Arc<Role>>,
    pub memberships: Vec<Membership>,
    pub privileges: PrivilegeCatalog,
    /// ALTER ROLE / DATABASE ... SET.
    pub settings: super::RoleSettings,
}

impl Default for RoleCatalog {
    fn default() -> Self {
        RoleCatalog {
            roles: vec![Arc::new(Role::bootstrap())],
            memberships: Vec::new(),
            privileges: PrivilegeCatalog::default(),
            settings: super::RoleSettings::default(),
        }
    }
}

impl RoleCatalog {
    pub fn by_oid(&self, oid: u32) -> Option<&Arc<Role>> {
        self.roles.iter().find(|r| r.oid == oid)
    }

    pub fn by_name(&self, name: &str) -> Option<&Arc<Role>> {
        self.roles.iter().find(|r| r.name == name)
    }

    /// A role by the name a session uses for it: the bootstrap superuser also answers to
    /// the name a trusted session connected as (`session_name`, when its role is OID 10).
    pub fn by_session_name(&self, name: &str, session: &SessionRole) -> Option<&Arc<Role>> {
        if session.role_oid == SUPERUSER_OID && name == session.name {
            return self.by_oid(SUPERUSER_OID);
        }
        self.by_name(name)
    }

    /// The name `oid` has for `session` (see the module comment).
    pub fn displayed_name(&self, oid: u32, session: &SessionRole) -> Option<String> {
        if oid == SUPERUSER_OID && session.role_oid == SUPERUSER_OID {
            return Some(session.name.clone());
        }
        self.by_oid(oid).map(|r| r.name.clone())
    }

    /// 42704 `role "x" does not exist`.
    pub fn named(&self, name: &str, session: &SessionRole) -> Result<&Arc<Role>> {
        self.by_session_name(name, session)
            .ok_or_else(|| missing_role(name))
    }

    /// Adds or replaces (by OID) `role`.
    pub fn put(&mut self, role: Role) {
        match self.roles.iter_mut().find(|r| r.oid == role.oid) {
            Some(slot) => *slot = Arc::new(role),
            None => {
                self.roles.push(Arc::new(role));
                self.roles.sort_by_key(|r| r.oid);
            }
        }
    }

    /// Removes role `oid` and the memberships it is part of.
    pub fn remove(&mut self, oid: u32) {
        self.roles.retain(|r| r.oid != oid);
        self.memberships
            .retain(|m| m.role != oid && m.member != oid);
    }

    /// Whether `member` is `role` or belongs to it, directly or through other roles.
    pub fn is_member_of(&self, member: u32, role: u32) -> bool {
        let mut reached = vec![member];
        let mut next = 0;
        while let Some(&current) = reached.get(next) {
            if current == role {
                return true;
            }
            for m in self.memberships.iter().filter(|m| m.member == current) {
                if !reached.contains(&m.role) {
                    reached.push(m.role);
                }
            }
            next += 1;
        }
        false
    }
}

/// Who a session is, as far as roles go: the name it connected as and its role's OID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRole {
    pub name: String,
    pub role_oid: u32,
}

pub fn missing_role(name: &str) -> Error {
    Error::new(
        SqlState::UndefinedObject,
        format!("role \"{name}\" does not exist"),
    )
}
