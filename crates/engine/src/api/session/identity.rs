//! Who the session is and whom its statements run as: its user and role (SET ROLE), the
//! settings ALTER ROLE ... SET keeps for that role, CONNECT on the database, and the owner
//! recorded for what a statement creates.

use std::sync::Arc;

use super::Session;
use crate::api::Notice;
use crate::catalog::ObjectKind;
use crate::error::{Error, Result, SqlState};
use crate::exec::SessionIdentity;
use crate::plan::SettingChange;

impl Session {
    /// Who the session is for: current_user, current_database() and pg_backend_pid().
    /// A user that names no role is the bootstrap superuser under that name: the server
    /// lets such a user in only when it trusts every client.
    /// Called as the session starts, before the client's settings: the settings ALTER
    /// ROLE ... SET keeps for the role start over from the server's.
    pub fn set_identity(&mut self, user: &str, database: &str, backend_pid: i32) {
        let role_oid = self
            .store
            .snapshot()
            .roles
            .by_name(user)
            .map_or(crate::catalog::system::SUPERUSER_OID, |role| role.oid);
        self.identity = Arc::new(SessionIdentity {
            user: user.to_string(),
            database: database.to_string(),
            backend_pid,
            role_oid,
            session_user: user.to_string(),
        });
        self.settings = self.settings.restarted();
        self.apply_role_settings();
    }

    /// ALTER ROLE ... SET's value must be one SET would take, and the name is kept as
    /// the setting spells it (PostgreSQL's GUCArrayAdd).
    pub(super) fn check_kept_setting(&self, change: &mut SettingChange) -> Result<()> {
        let name = match change {
            SettingChange::Set { name, value } => {
                self.settings.clone().set(name, Some(value))?;
                name
            }
            SettingChange::Reset { name: Some(name) } => name,
            SettingChange::Reset { name: None } => return Ok(()),
        };
        match self.settings.get(name) {
            Ok((spelled, _)) if !spelled.is_empty() => *name = spelled.to_string(),
            // A custom `prefix.name` need not be set to be reset.
            Err(error) if !name.contains('.') => return Err(error),
            _ => {}
        }
        Ok(())
    }

    /// Applies what ALTER ROLE / DATABASE ... SET keeps for the session's role as its
    /// defaults; a kept value that no longer applies is a WARNING, as in PostgreSQL.
    pub(crate) fn apply_role_settings(&mut self) {
        let state = self.store.snapshot();
        let database = crate::catalog::system::DATABASE_OID;
        let kept = state
            .roles
            .settings
            .for_session(database, self.identity.role_oid);
        for (name, value, source) in kept {
            if let Err(error) = self.settings.set_session_default(&name, &value, source) {
                self.notices.push(Notice {
                    severity: "WARNING",
                    state: error.state,
                    message: error.message,
                    detail: None,
                });
            }
        }
    }

    /// 42501 unless the session's user may CONNECT to the database, which PostgreSQL
    /// checks as a session starts (superusers always may; PUBLIC may by default).
    pub fn check_connect(&self) -> Result<()> {
        let state = self.store.snapshot();
        let roles = &state.roles;
        let role = self.identity.role_oid;
        let object = roles.database_privileges();
        let (held, _) = roles.privileges_of(role, ObjectKind::Database, &object);
        match held.contains(crate::catalog::AclMode::CONNECT) {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "permission denied for database \"{}\"",
                    self.identity.database
                ),
            )
            .with_detail("User does not have CONNECT privilege.")),
        }
    }

    /// Who statements run as: the session's user, or the role SET ROLE chose, which the
    /// session's user must be a member of (or a superuser).
    pub(super) fn current_identity(&self) -> Result<Arc<SessionIdentity>> {
        let role = self.settings.value("role").unwrap_or("none");
        if role == "none" {
            return Ok(self.identity.clone());
        }
        let target = self.role_to_set(role)?;
        Ok(Arc::new(SessionIdentity {
            user: target.name.clone(),
            role_oid: target.oid,
            ..(*self.identity).clone()
        }))
    }

    /// Makes the current role the owner of the objects `oids` the statement created.
    pub(super) fn record_owner(&mut self, kind: ObjectKind, oids: &[u32]) -> Result<()> {
        let owner = self.current_identity()?.role_oid;
        crate::exec::privilege::record_owner(self.transaction(), kind, oids, owner)
    }

    /// The role `SET ROLE role` makes current: 22023 if it does not exist, 42501 unless
    /// the session's user is a superuser or a member of it.
    pub(super) fn role_to_set(&self, role: &str) -> Result<Arc<crate::catalog::Role>> {
        let state = self.view();
        let roles = &state.roles;
        let target = roles.by_name(role).ok_or_else(|| {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("role \"{role}\" does not exist"),
            )
        })?;
        let session = roles.by_oid(self.identity.role_oid);
        if !session.is_some_and(|s| s.superuser || roles.is_member_of(s.oid, target.oid)) {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied to set role \"{role}\""),
            ));
        }
        Ok(target.clone())
    }
}
