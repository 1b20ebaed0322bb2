//! Column privileges: PostgreSQL's rule that a role lacking a privilege on a whole table
//! may still read or write it through privileges on each column it uses. Where the table
//! privilege is missing but some column holds it, the check waits for the end of binding;
//! meanwhile each column read (named, `*`, a whole row, a USING pair) or written (INSERT's
//! columns, UPDATE's SET) is noted, and every one of them must then hold the privilege
//! (42501 `permission denied for table t` otherwise, as aclchk.c's pg_attribute_aclcheck).
//! A statement reading no column at all (`SELECT count(*)`) needs it on one column, which
//! deferring already asks.

use std::collections::BTreeSet;

use super::scope::ScopeColumn;
use super::Binder;
use crate::catalog::{AclMode, QualifiedName};
use crate::error::{Error, Result};

/// A relation whose privilege check waits for the columns the statement uses.
#[derive(Debug, Clone)]
pub(super) struct ColumnCheck {
    role: u32,
    oid: u32,
    privilege: AclMode,
    /// `permission denied for table t`, made when the check was deferred.
    denied: Error,
}

/// The column checks of a statement and the columns it used, by (role, relation OID,
/// attribute number, privilege).
#[derive(Debug, Clone, Default)]
pub(super) struct ColumnUses {
    checks: Vec<ColumnCheck>,
    used: BTreeSet<(u32, u32, i16, AclMode)>,
}

impl Binder<'_> {
    /// 42501 unless the checking role holds `privilege` on relation `oid` (named `name`),
    /// or on some of its columns: then on every column the statement uses, checked when
    /// binding ends.
    pub(super) fn require_relation_or_columns(
        &mut self,
        name: &QualifiedName,
        oid: u32,
        privilege: AclMode,
    ) -> Result<()> {
        let Some((role, denied)) = self.relation_denied(name, oid, privilege)? else {
            return Ok(());
        };
        if !self.state.roles.holds_on_some_column(role, oid, privilege) {
            return Err(denied);
        }
        self.column_uses.checks.push(ColumnCheck {
            role,
            oid,
            privilege,
            denied,
        });
        Ok(())
    }

    /// Notes that the statement uses `column` with `privilege` (a column of no relation,
    /// or of one without column ACLs, needs no note).
    pub(super) fn note_column_use(&mut self, column: &ScopeColumn, privilege: AclMode) {
        self.note_attribute_use(column.table_oid, column.attnum, privilege);
    }

    /// [`Binder::note_column_use`] by relation OID and attribute number.
    pub(super) fn note_attribute_use(&mut self, oid: u32, attnum: i16, privilege: AclMode) {
        if attnum <= 0 || self.state.roles.privileges.columns.0.is_empty() {
            return;
        }
        let role = self.checking_role();
        self.column_uses.used.insert((role, oid, attnum, privilege));
    }

    /// 42501 for the first deferred check a used column fails.
    pub(super) fn check_column_uses(&self) -> Result<()> {
        let roles = &self.state.roles;
        for check in &self.column_uses.checks {
            let used = self
                .column_uses
                .used
                .iter()
                .filter(|(role, oid, _, privilege)| {
                    *role == check.role && *oid == check.oid && *privilege == check.privilege
                });
            for &(_, _, attnum, _) in used {
                let held = roles.column_privileges_of(check.role, check.oid, attnum);
                if !held.contains(check.privilege) {
                    return Err(check.denied.clone());
                }
            }
        }
        Ok(())
    }
}
