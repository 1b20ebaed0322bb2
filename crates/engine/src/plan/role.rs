//! Role statements as bound: CREATE ROLE / USER, ALTER ROLE, DROP ROLE and GRANT / REVOKE of
//! role membership, by the names written (the roles are looked up when the statement runs,
//! under the roles lock), and GRANT / REVOKE of object privileges.

use crate::catalog::{AclMode, ObjectKind, ObjectPrivileges};

/// The attributes a CREATE or ALTER ROLE sets (`None`: left as they are, or the default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleOptions {
    pub superuser: Option<bool>,
    pub create_db: Option<bool>,
    pub create_role: Option<bool>,
    pub inherit: Option<bool>,
    pub login: Option<bool>,
    pub replication: Option<bool>,
    pub bypass_rls: Option<bool>,
    pub connection_limit: Option<i32>,
    /// `Some(None)`: PASSWORD NULL.
    pub password: Option<Option<String>>,
    /// VALID UNTIL's text, read as a timestamptz when the statement runs.
    pub valid_until: Option<String>,
}

#[derive(Debug, Clone)]
pub enum RoleChange {
    Create {
        name: String,
        /// CREATE USER (LOGIN by default) or CREATE ROLE.
        user: bool,
        options: RoleOptions,
        /// IN ROLE: the roles the new one joins.
        in_roles: Vec<String>,
        /// ROLE / USER: the roles that join the new one; ADMIN: the same with admin option.
        members: Vec<String>,
        admins: Vec<String>,
    },
    Alter {
        name: String,
        options: RoleOptions,
    },
    Rename {
        name: String,
        new_name: String,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
    },
    /// GRANT (`grant`) or REVOKE of membership in `roles` to or from `members`.
    Membership {
        grant: bool,
        roles: Vec<String>,
        members: Vec<String>,
        admin_option: bool,
    },
    /// GRANT or REVOKE of privileges on objects.
    Privileges(PrivilegeChange),
    /// ALTER TABLE ... OWNER TO `new_owner` of a table, view or sequence (or ALTER
    /// SEQUENCE's, `tag`); the sequences a table owns follow it, unchecked.
    Owner {
        target: PrivilegeTarget,
        followers: Vec<PrivilegeTarget>,
        new_owner: String,
        tag: &'static str,
    },
    /// ALTER ROLE `role` (`None`: ALL) [IN DATABASE] SET / RESET.
    Setting {
        role: Option<String>,
        /// IN DATABASE (the current one): the setting applies there only.
        in_database: bool,
        change: SettingChange,
    },
}

/// What ALTER ROLE ... SET or RESET does to the settings kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingChange {
    /// SET `name` TO `value`, as written (checked when the statement runs).
    Set { name: String, value: String },
    /// RESET `name`, or SET `name` TO DEFAULT; RESET ALL with `None`.
    Reset { name: Option<String> },
}

/// GRANT (`grant`) or REVOKE of `privileges` on `targets` to or from `grantees`.
#[derive(Debug, Clone)]
pub struct PrivilegeChange {
    pub grant: bool,
    pub privileges: AclMode,
    /// ALL [PRIVILEGES] was written.
    pub all: bool,
    pub targets: Vec<PrivilegeTarget>,
    /// Role names; `None` is PUBLIC.
    pub grantees: Vec<Option<String>>,
    /// WITH GRANT OPTION, or REVOKE GRANT OPTION FOR.
    pub grant_option: bool,
    pub cascade: bool,
    /// The privileges given or taken on single columns (`SELECT (a, b)`).
    pub columns: Vec<ColumnTarget>,
}

/// A column a GRANT or REVOKE names, with the privileges it gives or takes there.
#[derive(Debug, Clone)]
pub struct ColumnTarget {
    /// The column's relation, by its place in `PrivilegeChange::targets`.
    pub target: usize,
    pub attnum: i16,
    pub name: String,
    pub privileges: AclMode,
}

/// One object a GRANT or REVOKE names.
#[derive(Debug, Clone)]
pub struct PrivilegeTarget {
    pub kind: ObjectKind,
    pub oid: u32,
    /// "table", "view" or "schema", for messages.
    pub word: &'static str,
    pub name: String,
    /// Its owner and ACL when bound, what it has while the catalog keeps no entry for it.
    pub current: ObjectPrivileges,
}

impl RoleChange {
    pub fn tag(&self) -> &'static str {
        match self {
            RoleChange::Create { .. } => "CREATE ROLE",
            RoleChange::Alter { .. } | RoleChange::Rename { .. } => "ALTER ROLE",
            RoleChange::Drop { .. } => "DROP ROLE",
            RoleChange::Membership { grant: true, .. } => "GRANT ROLE",
            RoleChange::Membership { grant: false, .. } => "REVOKE ROLE",
            RoleChange::Privileges(PrivilegeChange { grant: true, .. }) => "GRANT",
            RoleChange::Privileges(PrivilegeChange { grant: false, .. }) => "REVOKE",
            RoleChange::Owner { tag, .. } => tag,
            RoleChange::Setting { .. } => "ALTER ROLE",
        }
    }
}
