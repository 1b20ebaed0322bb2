//! Object privileges: who owns each table, view, sequence, schema and SQL function, and its
//! access control list (PostgreSQL's relowner/relacl, nspacl and proacl), with PostgreSQL 15's rules for reading and
//! changing them (aclchk.c, acl.c). Kept in the role catalog, which stages it per
//! transaction and logs it; an object without an entry is owned by the bootstrap superuser
//! and has its default ACL (shown as NULL).
//!
//! A role's privileges on an object are those the ACL grants it, PUBLIC or any role it
//! inherits from; superusers hold every privilege, and an owner may always grant (it holds
//! the grant options of its default ACL) and alter or drop the object.

use std::collections::BTreeMap;

use super::namespace::{SchemaDef, INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PUBLIC_OID};
use super::role::RoleCatalog;
use crate::catalog::system::{DATABASE_OID, SUPERUSER_OID};
use crate::error::{Error, Result, SqlState};

/// The grantee OID PUBLIC is written with in an ACL.
pub const PUBLIC_GRANTEE: u32 = 0;

/// A set of privileges, one bit each in PostgreSQL's order (acl.h's ACL_* bits), which
/// is also the order their letters print in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct AclMode(pub u16);

impl AclMode {
    pub const INSERT: AclMode = AclMode(1 << 0);
    pub const SELECT: AclMode = AclMode(1 << 1);
    pub const UPDATE: AclMode = AclMode(1 << 2);
    pub const DELETE: AclMode = AclMode(1 << 3);
    pub const TRUNCATE: AclMode = AclMode(1 << 4);
    pub const REFERENCES: AclMode = AclMode(1 << 5);
    pub const TRIGGER: AclMode = AclMode(1 << 6);
    pub const EXECUTE: AclMode = AclMode(1 << 7);
    pub const USAGE: AclMode = AclMode(1 << 8);
    pub const CREATE: AclMode = AclMode(1 << 9);
    pub const TEMPORARY: AclMode = AclMode(1 << 10);
    pub const CONNECT: AclMode = AclMode(1 << 11);
    pub const NONE: AclMode = AclMode(0);
    /// The letters of the bits, lowest first (ACL_ALL_RIGHTS_STR).
    const LETTERS: &'static [u8] = b"arwdDxtXUCTc";

    pub fn contains(self, other: AclMode) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn union(self, other: AclMode) -> AclMode {
        AclMode(self.0 | other.0)
    }

    pub fn intersection(self, other: AclMode) -> AclMode {
        AclMode(self.0 & other.0)
    }

    pub fn without(self, other: AclMode) -> AclMode {
        AclMode(self.0 & !other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// The kinds of object privileges are kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectKind {
    /// A table or a view (pg_class).
    Relation,
    Schema,
    /// A sequence: in pg_class too, with privileges of its own (USAGE, SELECT, UPDATE).
    Sequence,
    /// A SQL function (pg_proc): EXECUTE, which PUBLIC holds by default.
    Function,
    /// The database (pg_database): CREATE, TEMPORARY and CONNECT, the last two PUBLIC's
    /// by default.
    Database,
}

impl ObjectKind {
    /// Every privilege the kind has (ACL_ALL_RIGHTS_*): what ALL grants and owners hold.
    pub fn all_privileges(self) -> AclMode {
        match self {
            ObjectKind::Relation => AclMode(0b111_1111),
            ObjectKind::Schema => AclMode::USAGE.union(AclMode::CREATE),
            ObjectKind::Sequence => AclMode::USAGE.union(AclMode::SELECT).union(AclMode::UPDATE),
            ObjectKind::Function => AclMode::EXECUTE,
            ObjectKind::Database => AclMode::CREATE
                .union(AclMode::TEMPORARY)
                .union(AclMode::CONNECT),
        }
    }

    /// What PUBLIC holds on a new object of the kind (acldefault's world_default).
    fn public_default(self) -> AclMode {
        match self {
            ObjectKind::Function => AclMode::EXECUTE,
            ObjectKind::Database => AclMode::TEMPORARY.union(AclMode::CONNECT),
            ObjectKind::Relation | ObjectKind::Schema | ObjectKind::Sequence => AclMode::NONE,
        }
    }

    /// The word error messages name an object of the kind with.
    pub fn word(self) -> &'static str {
        match self {
            ObjectKind::Relation => "table",
            ObjectKind::Schema => "schema",
            ObjectKind::Sequence => "sequence",
            ObjectKind::Function => "function",
            ObjectKind::Database => "database",
        }
    }

    /// The on-disk number of the kind (part of the durable format).
    pub fn tag(self) -> u8 {
        match self {
            ObjectKind::Relation => 1,
            ObjectKind::Schema => 2,
            ObjectKind::Sequence => 3,
            ObjectKind::Function => 4,
            ObjectKind::Database => 5,
        }
    }

    pub fn from_tag(tag: u8) -> Option<ObjectKind> {
        match tag {
            1 => Some(ObjectKind::Relation),
            2 => Some(ObjectKind::Schema),
            3 => Some(ObjectKind::Sequence),
            4 => Some(ObjectKind::Function),
            5 => Some(ObjectKind::Database),
            _ => None,
        }
    }
}

/// 0LP01 `invalid privilege type USAGE for table`.
pub fn invalid_privilege_type(privilege: &str, kind: ObjectKind) -> Error {
    Error::new(
        SqlState::InvalidGrantOperation,
        format!("invalid privilege type {privilege} for {}", kind.word()),
    )
}

/// One ACL entry: what `grantor` granted `grantee` (PUBLIC_GRANTEE for PUBLIC), and
/// which of those it may grant on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AclItem {
    pub grantee: u32,
    pub grantor: u32,
    pub privileges: AclMode,
    pub grant_options: AclMode,
}

/// The owner and ACL of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectPrivileges {
    pub owner: u32,
    /// `None`: the default ACL of the kind for the owner.
    pub acl: Option<Vec<AclItem>>,
}

/// The ACL PostgreSQL gives a new object of `kind` owned by `owner` (acldefault): the
/// owner holds every privilege, and its grant options through ownership, not the ACL;
/// PUBLIC holds what the kind gives everyone (EXECUTE on functions).
pub fn default_acl(kind: ObjectKind, owner: u32) -> Vec<AclItem> {
    let public = kind.public_default();
    let mut acl = Vec::with_capacity(2);
    if !public.is_empty() {
        acl.push(AclItem {
            grantee: PUBLIC_GRANTEE,
            grantor: owner,
            privileges: public,
            grant_options: AclMode::NONE,
        });
    }
    acl.push(AclItem {
        grantee: owner,
        grantor: owner,
        privileges: kind.all_privileges(),
        grant_options: AclMode::NONE,
    });
    acl
}

/// The owners and ACLs of the objects that have an owner other than the bootstrap
/// superuser or a changed ACL, by kind and OID.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrivilegeCatalog {
    pub objects: BTreeMap<(ObjectKind, u32), ObjectPrivileges>,
    /// Column ACLs (pg_attribute.attacl) by table OID and attribute number; a column
    /// without an entry has none (NULL), and its table's owner is the columns' owner.
    pub columns: ColumnPrivileges,
}

/// The ACLs granted on single columns, by (table OID, attribute number).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnPrivileges(pub BTreeMap<(u32, i16), Vec<AclItem>>);

/// The privileges a column may be granted (ACL_ALL_RIGHTS_COLUMN).
pub const COLUMN_PRIVILEGES: AclMode =
    AclMode(AclMode::INSERT.0 | AclMode::SELECT.0 | AclMode::UPDATE.0 | AclMode::REFERENCES.0);

impl ColumnPrivileges {
    /// Column `attnum` of table `oid`'s ACL (empty when it has none).
    pub fn get(&self, oid: u32, attnum: i16) -> &[AclItem] {
        self.0.get(&(oid, attnum)).map_or(&[], Vec::as_slice)
    }

    /// Stores column `attnum` of table `oid`'s ACL, leaving no entry for an empty one.
    pub fn put(&mut self, oid: u32, attnum: i16, acl: Vec<AclItem>) {
        match acl.is_empty() {
            true => self.0.remove(&(oid, attnum)),
            false => self.0.insert((oid, attnum), acl),
        };
    }

    /// The columns of table `oid` with an ACL, by attribute number.
    pub fn of_table(&self, oid: u32) -> impl Iterator<Item = (i16, &[AclItem])> {
        self.0
            .range((oid, i16::MIN)..=(oid, i16::MAX))
            .map(|((_, attnum), acl)| (*attnum, acl.as_slice()))
    }

    /// After column `attnum` of table `oid` is dropped: its ACL goes, and the later
    /// columns' follow them down one place, as the columns do.
    pub fn drop_column(&mut self, oid: u32, attnum: i16) {
        let later: Vec<(i16, Vec<AclItem>)> = self
            .of_table(oid)
            .filter(|(n, _)| *n >= attnum)
            .map(|(n, acl)| (n, acl.to_vec()))
            .collect();
        for (n, acl) in later {
            self.0.remove(&(oid, n));
            if n > attnum {
                self.0.insert((oid, n - 1), acl);
            }
        }
    }
}

impl PrivilegeCatalog {
    /// `oid`'s owner and ACL (`owner` when it has no entry: the catalog's own owner).
    pub fn get(&self, kind: ObjectKind, oid: u32, owner: u32) -> ObjectPrivileges {
        self.objects
            .get(&(kind, oid))
            .cloned()
            .unwrap_or(ObjectPrivileges { owner, acl: None })
    }

    /// Stores `privileges` for `oid`, leaving no entry where it says nothing new.
    pub fn put(&mut self, kind: ObjectKind, oid: u32, privileges: ObjectPrivileges) {
        if privileges.owner == SUPERUSER_OID && privileges.acl.is_none() {
            self.objects.remove(&(kind, oid));
        } else {
            self.objects.insert((kind, oid), privileges);
        }
    }

    /// Whether `role` owns an object or is named in an ACL (DROP ROLE refuses then).
    pub fn mentions(&self, role: u32) -> bool {
        let named = |item: &AclItem| item.grantee == role || item.grantor == role;
        self.objects
            .values()
            .any(|o| o.owner == role || o.acl.iter().flatten().any(named))
            || self.columns.0.values().flatten().any(named)
    }
}

/// `acl` (the default when `None`) as PostgreSQL prints an aclitem[]: `grantee=privs/grantor`,
/// PUBLIC as an empty grantee, a `*` after each privilege held with grant option.
pub fn acl_text(acl: &[AclItem], name: &dyn Fn(u32) -> String) -> Vec<String> {
    acl.iter()
        .map(|item| {
            let mut text = String::new();
            if item.grantee != PUBLIC_GRANTEE {
                text.push_str(&name(item.grantee));
            }
            text.push('=');
            for (bit, letter) in AclMode::LETTERS.iter().enumerate() {
                let mode = AclMode(1 << bit);
                if item.privileges.contains(mode) {
                    text.push(char::from(*letter));
                    if item.grant_options.contains(mode) {
                        text.push('*');
                    }
                }
            }
            text.push('/');
            text.push_str(&name(item.grantor));
            text
        })
        .collect()
}

impl ObjectPrivileges {
    /// The ACL in force: the stored one, or the default of `kind`.
    pub fn effective_acl(&self, kind: ObjectKind) -> Vec<AclItem> {
        self.acl
            .clone()
            .unwrap_or_else(|| default_acl(kind, self.owner))
    }
}

impl RoleCatalog {
    pub fn is_superuser(&self, role: u32) -> bool {
        role == SUPERUSER_OID || self.by_oid(role).is_some_and(|r| r.superuser)
    }

    /// Whether `role` may act as `owner` (is it, a member of it, or a superuser).
    pub fn has_ownership(&self, role: u32, owner: u32) -> bool {
        self.is_superuser(role) || self.is_member_of(role, owner)
    }

    /// The privileges (and grant options) `role` holds through `acl`: its own, PUBLIC's
    /// and those of the roles it inherits from. Superusers hold everything.
    /// The owner (and whoever inherits from it) holds every grant option.
    pub fn privileges_of(
        &self,
        role: u32,
        kind: ObjectKind,
        object: &ObjectPrivileges,
    ) -> (AclMode, AclMode) {
        let (held, options) = self.privileges_in(role, kind, &object.effective_acl(kind));
        match self.inherits_from(role, object.owner) {
            true => (held, kind.all_privileges()),
            false => (held, options),
        }
    }

    /// The privileges `role` holds on column `attnum` of table `oid` through the column's
    /// own ACL (not the table's).
    pub fn column_privileges_of(&self, role: u32, oid: u32, attnum: i16) -> AclMode {
        self.column_privileges_and_options(role, oid, attnum).0
    }

    /// [`RoleCatalog::column_privileges_of`] and the grant options held with them.
    pub fn column_privileges_and_options(
        &self,
        role: u32,
        oid: u32,
        attnum: i16,
    ) -> (AclMode, AclMode) {
        let acl = self.privileges.columns.get(oid, attnum);
        self.privileges_in(role, ObjectKind::Relation, acl)
    }

    /// Whether `role` holds `privilege` on some column of table `oid` through a column ACL.
    pub fn holds_on_some_column(&self, role: u32, oid: u32, privilege: AclMode) -> bool {
        self.privileges.columns.of_table(oid).any(|(attnum, _)| {
            self.column_privileges_of(role, oid, attnum)
                .contains(privilege)
        })
    }

    fn privileges_in(&self, role: u32, kind: ObjectKind, acl: &[AclItem]) -> (AclMode, AclMode) {
        if self.is_superuser(role) {
            let all = kind.all_privileges();
            return (all, all);
        }
        let mut held = (AclMode::NONE, AclMode::NONE);
        for item in acl {
            let applies = item.grantee == PUBLIC_GRANTEE
                || item.grantee == role
                || self.inherits_from(role, item.grantee);
            if applies {
                held.0 = held.0.union(item.privileges);
                // Grant options come only from the role itself and roles it belongs to,
                // never from PUBLIC (PUBLIC cannot hold them).
                if item.grantee != PUBLIC_GRANTEE {
                    held.1 = held.1.union(item.grant_options);
                }
            }
        }
        held
    }

    /// Whether `role` holds `other`'s privileges (pg_has_role's USAGE): a superuser, or
    /// `other` itself or a role it inherits from.
    pub fn has_privileges_of(&self, role: u32, other: u32) -> bool {
        self.is_superuser(role) || self.inherits_from(role, other)
    }

    /// Whether `role` gets `other`'s privileges by membership: INHERIT along each step.
    fn inherits_from(&self, role: u32, other: u32) -> bool {
        let mut reached = vec![role];
        let mut next = 0;
        while let Some(&current) = reached.get(next) {
            if current == other {
                return true;
            }
            let inherits = self.by_oid(current).is_none_or(|r| r.inherit);
            if inherits {
                for m in self.memberships.iter().filter(|m| m.member == current) {
                    if !reached.contains(&m.role) {
                        reached.push(m.role);
                    }
                }
            }
            next += 1;
        }
        false
    }
}

/// A GRANT or REVOKE of `privileges` on one object, as the statement asked it.
#[derive(Debug, Clone, Copy)]
pub struct AclChange<'a> {
    pub grant: bool,
    pub privileges: AclMode,
    /// Whether ALL [PRIVILEGES] was written (no warning when only some were held).
    pub all: bool,
    pub grantees: &'a [u32],
    pub grant_option: bool,
    pub cascade: bool,
}

/// What a GRANT or REVOKE by `actor` did to `acl` (of an object owned by `owner`):
/// PostgreSQL's merge_acl_with_grant and its grantor rules. Returns the new ACL and the
/// warnings (about privileges the actor could not grant) to give.
pub fn change_acl(
    roles: &RoleCatalog,
    kind: ObjectKind,
    object: &ObjectPrivileges,
    change: &AclChange<'_>,
    actor: u32,
    denied: impl Fn() -> Error,
) -> Result<(Vec<AclItem>, Vec<String>)> {
    let mut acl = object.effective_acl(kind);
    // The owner grants for itself (superusers too); another role as itself, with what it
    // holds with grant option.
    let grantor = if roles.has_ownership(actor, object.owner) {
        object.owner
    } else {
        actor
    };
    let (_, options) = roles.privileges_of(grantor, kind, object);
    let mut warnings = Vec::new();
    if options.is_empty() {
        let (held, _) = roles.privileges_of(actor, kind, object);
        if held.is_empty() {
            return Err(denied());
        }
    }
    let privileges = change.privileges.intersection(options);
    if privileges.is_empty() {
        warnings.push(if change.grant {
            "no privileges were granted"
        } else {
            "no privileges could be revoked"
        });
    } else if privileges != change.privileges && !change.all {
        warnings.push(if change.grant {
            "not all privileges were granted"
        } else {
            "not all privileges could be revoked"
        });
    }
    for &grantee in change.grantees {
        if change.grant {
            grant_to(&mut acl, grantee, grantor, privileges, change.grant_option);
        } else {
            revoke_from(&mut acl, grantee, grantor, privileges, change)?;
        }
    }
    Ok((acl, warnings.into_iter().map(str::to_string).collect()))
}

fn grant_to(
    acl: &mut Vec<AclItem>,
    grantee: u32,
    grantor: u32,
    privileges: AclMode,
    grant_option: bool,
) {
    let options = if grant_option {
        privileges
    } else {
        AclMode::NONE
    };
    match acl
        .iter_mut()
        .find(|i| i.grantee == grantee && i.grantor == grantor)
    {
        Some(item) => {
            item.privileges = item.privileges.union(privileges);
            item.grant_options = item.grant_options.union(options);
        }
        None => acl.push(AclItem {
            grantee,
            grantor,
            privileges,
            grant_options: options,
        }),
    }
}

/// Takes `privileges` (or only their grant options) from what `grantor` gave `grantee`;
/// grants others made with the grant options taken go too under CASCADE, and are an
/// error (2BP01) without it.
fn revoke_from(
    acl: &mut Vec<AclItem>,
    grantee: u32,
    grantor: u32,
    privileges: AclMode,
    change: &AclChange<'_>,
) -> Result<()> {
    let Some(at) = acl
        .iter()
        .position(|i| i.grantee == grantee && i.grantor == grantor)
    else {
        return Ok(());
    };
    let item = &mut acl[at];
    let options_taken = item.grant_options.intersection(privileges);
    item.grant_options = item.grant_options.without(privileges);
    if !change.grant_option {
        item.privileges = item.privileges.without(privileges);
    }
    if item.privileges.is_empty() {
        acl.remove(at);
    }
    if options_taken.is_empty() || grantee == PUBLIC_GRANTEE {
        return Ok(());
    }
    let dependents: Vec<u32> = acl
        .iter()
        .filter(|i| i.grantor == grantee && !i.privileges.intersection(options_taken).is_empty())
        .map(|i| i.grantee)
        .collect();
    if dependents.is_empty() {
        return Ok(());
    }
    if !change.cascade {
        return Err(Error::new(
            SqlState::DependentObjectsStillExist,
            "dependent privileges exist",
        )
        .with_hint("Use CASCADE to revoke them too."));
    }
    let cascaded = AclChange {
        grant_option: false,
        ..*change
    };
    for dependent in dependents {
        revoke_from(acl, dependent, grantee, options_taken, &cascaded)?;
    }
    Ok(())
}

/// The role PostgreSQL 15 makes the owner of `public`: whoever owns the database.
pub const DATABASE_OWNER: u32 = 6171;

impl RoleCatalog {
    /// A table's or view's owner and ACL.
    pub fn relation_privileges(&self, oid: u32) -> ObjectPrivileges {
        self.privileges
            .get(ObjectKind::Relation, oid, SUPERUSER_OID)
    }

    /// A sequence's owner and ACL.
    pub fn sequence_privileges(&self, oid: u32) -> ObjectPrivileges {
        self.privileges
            .get(ObjectKind::Sequence, oid, SUPERUSER_OID)
    }

    /// The database's owner (the bootstrap superuser) and ACL.
    pub fn database_privileges(&self) -> ObjectPrivileges {
        self.privileges
            .get(ObjectKind::Database, DATABASE_OID, SUPERUSER_OID)
    }

    /// A SQL function's owner and ACL.
    pub fn function_privileges(&self, oid: u32) -> ObjectPrivileges {
        self.privileges
            .get(ObjectKind::Function, oid, SUPERUSER_OID)
    }

    /// A schema's owner (named in its definition) and ACL. initdb gives the schemas it
    /// makes an ACL of their own, where everyone may use them.
    pub fn schema_privileges(&self, schema: &SchemaDef) -> ObjectPrivileges {
        let owner = if schema.oid == PUBLIC_OID {
            DATABASE_OWNER
        } else {
            self.by_name(&schema.owner).map_or(SUPERUSER_OID, |r| r.oid)
        };
        let builtin = [PUBLIC_OID, PG_CATALOG_OID, INFORMATION_SCHEMA_OID].contains(&schema.oid);
        let initial = builtin.then(|| {
            let mut acl = default_acl(ObjectKind::Schema, owner);
            acl.push(AclItem {
                grantee: PUBLIC_GRANTEE,
                grantor: owner,
                privileges: AclMode::USAGE,
                grant_options: AclMode::NONE,
            });
            acl
        });
        let acl = match self
            .privileges
            .objects
            .get(&(ObjectKind::Schema, schema.oid))
        {
            Some(entry) => entry.acl.clone(),
            None => initial,
        };
        ObjectPrivileges { owner, acl }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Role;

    fn catalog() -> RoleCatalog {
        let mut roles = RoleCatalog::default();
        for (oid, name) in [(100, "alice"), (101, "bob"), (102, "carol")] {
            roles.put(Role::new(oid, name.to_string()));
        }
        roles
    }

    fn text(roles: &RoleCatalog, acl: &[AclItem]) -> Vec<String> {
        acl_text(acl, &|oid| {
            roles
                .by_oid(oid)
                .map(|r| r.name.clone())
                .unwrap_or_default()
        })
    }

    fn change(grant: bool, privileges: AclMode, grantees: &[u32], option: bool) -> AclChange<'_> {
        AclChange {
            grant,
            privileges,
            all: false,
            grantees,
            grant_option: option,
            cascade: false,
        }
    }

    #[test]
    fn grants_print_as_postgresql_prints_them() {
        let roles = catalog();
        let owned = ObjectPrivileges {
            owner: 100,
            acl: None,
        };
        let read = AclMode::SELECT;
        let write = AclMode::INSERT.union(AclMode::UPDATE);
        let denied = || Error::internal("denied");
        let (acl, _) = change_acl(
            &roles,
            ObjectKind::Relation,
            &owned,
            &change(true, read, &[101], false),
            100,
            denied,
        )
        .expect("the grant is allowed");
        let (acl, _) = change_acl(
            &roles,
            ObjectKind::Relation,
            &ObjectPrivileges {
                owner: 100,
                acl: Some(acl),
            },
            &change(true, write, &[PUBLIC_GRANTEE, 102], false),
            100,
            denied,
        )
        .expect("the grant is allowed");
        assert_eq!(
            text(&roles, &acl),
            [
                "alice=arwdDxt/alice",
                "bob=r/alice",
                "=aw/alice",
                "carol=aw/alice"
            ]
        );
        let object = ObjectPrivileges {
            owner: 100,
            acl: Some(acl),
        };
        // Bob holds no grant option: he may not pass SELECT on.
        let result = change_acl(
            &roles,
            ObjectKind::Relation,
            &object,
            &change(true, read, &[102], false),
            101,
            denied,
        )
        .expect("the grant is allowed");
        assert_eq!(result.1, ["no privileges were granted"]);
        assert_eq!(
            roles.privileges_of(102, ObjectKind::Relation, &object).0,
            write
        );
        assert!(roles
            .privileges_of(100, ObjectKind::Relation, &object)
            .1
            .contains(read));
    }

    #[test]
    fn revoking_a_used_grant_option_needs_cascade() {
        let roles = catalog();
        let mut acl = default_acl(ObjectKind::Relation, 100);
        grant_to(&mut acl, 101, 100, AclMode::SELECT, true);
        grant_to(&mut acl, 102, 101, AclMode::SELECT, false);
        let mut kept = acl.clone();
        let restrict = AclChange {
            grant_option: true,
            ..change(false, AclMode::SELECT, &[101], true)
        };
        assert!(revoke_from(&mut kept, 101, 100, AclMode::SELECT, &restrict).is_err());
        let cascade = AclChange {
            cascade: true,
            ..restrict
        };
        revoke_from(&mut acl, 101, 100, AclMode::SELECT, &cascade).expect("CASCADE revokes");
        assert_eq!(text(&roles, &acl), ["alice=arwdDxt/alice", "bob=r/alice"]);
    }
}
