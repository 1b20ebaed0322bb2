//! Privilege checks, made as names are bound (PostgreSQL checks them when it plans, with
//! the same errors): a relation read needs SELECT, a write INSERT, UPDATE or DELETE, and
//! every relation used needs USAGE on its schema; a view's query is checked with its
//! owner's privileges, as PostgreSQL runs it. A bound plan is only ever reused by the role
//! it was bound for: the caches key plans and results on the search path, which names the
//! role, and a change of privileges changes the catalog version they are valid for.
//!
//! Also GRANT and REVOKE on tables, views and schemas, bound to the objects' OIDs.

use sqlparser::ast::{self, Action, GrantObjects, Grantee, GranteeName, GranteesType, Privileges};

use super::{ident_name, Binder};
use crate::catalog::system::SUPERUSER_OID;
use crate::catalog::{invalid_privilege_type, AclMode, ObjectKind, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, ColumnTarget, PrivilegeChange, PrivilegeTarget, RoleChange};

impl Binder<'_> {
    /// The role statements run as (SET ROLE's): a name that is no role is the trusted
    /// bootstrap superuser (see `Session::set_identity`).
    pub(super) fn current_role(&self) -> u32 {
        self.state
            .roles
            .by_name(self.search_path.user())
            .map_or(SUPERUSER_OID, |role| role.oid)
    }

    /// The role called `name`: a name that is no role but the session's is the trusted
    /// session's bootstrap superuser (see [`Binder::current_role`]).
    pub(super) fn role_oid_named(&self, name: &str) -> Option<u32> {
        match self.state.roles.by_name(name) {
            Some(role) => Some(role.oid),
            None => (name == self.search_path.user()).then_some(SUPERUSER_OID),
        }
    }

    /// Whose privileges a relation read now is checked with: the owner of the view whose
    /// query is being bound, or the current role.
    pub(super) fn checking_role(&self) -> u32 {
        self.view_owner.unwrap_or_else(|| self.current_role())
    }

    /// 42501 unless the checking role holds `privileges` on relation `oid` (named `name`)
    /// and USAGE on its schema.
    pub(super) fn require_relation(
        &self,
        name: &QualifiedName,
        oid: u32,
        privileges: AclMode,
    ) -> Result<()> {
        match self.relation_denied(name, oid, privileges)? {
            None => Ok(()),
            Some((_, denied)) => Err(denied),
        }
    }

    /// [`Binder::require_relation`]'s check of the relation itself, once the schema's
    /// USAGE passed: the checking role and the error when it lacks `privileges` there.
    pub(super) fn relation_denied(
        &self,
        name: &QualifiedName,
        oid: u32,
        privileges: AclMode,
    ) -> Result<Option<(u32, Error)>> {
        let role = self.checking_role();
        let roles = &self.state.roles;
        if roles.is_superuser(role) || self.privileges_unchecked {
            return Ok(None);
        }
        self.require_schema_as(role, name.schema, AclMode::USAGE)?;
        let object = roles.relation_privileges(oid);
        let (held, _) = roles.privileges_of(role, ObjectKind::Relation, &object);
        match held.contains(privileges) {
            true => Ok(None),
            false => Ok(Some((
                role,
                permission_denied(self.relation_word(name), &name.name),
            ))),
        }
    }

    /// 42501 `permission denied for sequence s` unless the role holds one of `any_of` on
    /// sequence `oid` (named `name`) and USAGE on its schema: SELECT from it is checked
    /// with the checking role, nextval, currval and setval with the current one, as
    /// PostgreSQL checks them when they run.
    pub(super) fn require_sequence(
        &self,
        name: &QualifiedName,
        oid: u32,
        any_of: AclMode,
        by_caller: bool,
    ) -> Result<()> {
        let role = match by_caller {
            true => self.current_role(),
            false => self.checking_role(),
        };
        let roles = &self.state.roles;
        if roles.is_superuser(role) || self.privileges_unchecked {
            return Ok(());
        }
        self.require_schema_as(role, name.schema, AclMode::USAGE)?;
        let object = roles.sequence_privileges(oid);
        let (held, _) = roles.privileges_of(role, ObjectKind::Sequence, &object);
        match held.intersection(any_of).is_empty() {
            true => Err(permission_denied("sequence", &name.name)),
            false => Ok(()),
        }
    }

    /// 42501 unless the statement may read relation `name` (a table or a view) it writes.
    pub(super) fn require_read(&mut self, name: &QualifiedName) -> Result<()> {
        let oid = match self.state.views.get(name) {
            Some(view) => view.oid,
            None => self.table(name)?.schema.oid,
        };
        self.require_relation_or_columns(name, oid, AclMode::SELECT)
    }

    /// 42501 unless the current role holds `privileges` on schema `oid`.
    pub(super) fn require_schema(&self, oid: u32, privileges: AclMode) -> Result<()> {
        self.require_schema_as(self.checking_role(), oid, privileges)
    }

    fn require_schema_as(&self, role: u32, oid: u32, privileges: AclMode) -> Result<()> {
        let roles = &self.state.roles;
        let Some(schema) = self.state.schemas.get(&oid) else {
            return Ok(());
        };
        if roles.is_superuser(role) || schema.is_temporary() || self.privileges_unchecked {
            return Ok(());
        }
        let object = roles.schema_privileges(schema);
        let (held, _) = roles.privileges_of(role, ObjectKind::Schema, &object);
        match held.contains(privileges) {
            true => Ok(()),
            false => Err(permission_denied("schema", &schema.name)),
        }
    }

    /// 42501 `must be owner of table t` unless the current role owns relation `oid` (or is
    /// a member of its owner, or a superuser): what ALTER and DROP ask.
    pub(super) fn require_relation_owner(&self, name: &QualifiedName, oid: u32) -> Result<()> {
        let roles = &self.state.roles;
        let owner = match self.state.sequences.contains_key(name) {
            true => roles.sequence_privileges(oid).owner,
            false => roles.relation_privileges(oid).owner,
        };
        match roles.has_ownership(self.current_role(), owner) {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "must be owner of {} {}",
                    self.relation_word(name),
                    name.name
                ),
            )),
        }
    }

    /// [`Binder::require_relation_owner`] of the table, view or sequence `name`, if it
    /// exists.
    pub(super) fn require_owner_if_exists(&self, name: &QualifiedName) -> Result<()> {
        let oid = if let Some(view) = self.state.views.get(name) {
            view.oid
        } else if let Some(table) = self.state.table_by_name(name) {
            table.schema.oid
        } else if let Some(sequence) = self.state.sequences.get(name) {
            sequence.oid
        } else {
            return Ok(());
        };
        self.require_relation_owner(name, oid)
    }

    /// ALTER TABLE / SEQUENCE `name` OWNER TO `new_owner`: the sequences a table owns
    /// follow it, and such a sequence may not be given away alone (0A000, as PostgreSQL's
    /// ATExecChangeOwner refuses it).
    pub(super) fn bind_owner_change(
        &self,
        name: &QualifiedName,
        new_owner: String,
        tag: &'static str,
    ) -> Result<BoundStatement> {
        self.require_creator(&new_owner, name.schema)?;
        let target = self.relation_target(name)?;
        let owned_by = self
            .state
            .sequences
            .get(name)
            .and_then(|s| s.owned_by.as_ref());
        let new_oid = self.role_oid_named(&new_owner);
        if let Some((table, _)) = owned_by.filter(|_| new_oid != Some(target.current.owner)) {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("cannot change owner of sequence \"{}\"", name.name),
            )
            .with_detail(format!(
                "Sequence \"{}\" is linked to table \"{table}\".",
                name.name
            )));
        }
        let mut followers = Vec::new();
        for (sequence_name, sequence) in self.state.sequences.iter() {
            let follows = sequence_name.schema == name.schema
                && sequence
                    .owned_by
                    .as_ref()
                    .is_some_and(|(table, _)| *table == name.name);
            if follows {
                followers.push(self.relation_target(sequence_name)?);
            }
        }
        Ok(BoundStatement::ChangeRole(RoleChange::Owner {
            target,
            followers,
            new_owner,
            tag,
        }))
    }

    /// For OWNER TO by a role that is not a superuser: 42501 unless it is a member of the
    /// new owner (when it exists), who may create in schema `oid`, as it could have made the
    /// object itself.
    pub(super) fn require_creator(&self, new_owner: &str, schema: u32) -> Result<()> {
        let roles = &self.state.roles;
        let me = self.current_role();
        match roles.by_name(new_owner) {
            // PostgreSQL asks for the membership first.
            Some(owner) if !roles.has_ownership(me, owner.oid) => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("must be member of role \"{new_owner}\""),
            )),
            Some(owner) if !roles.is_superuser(me) => {
                self.require_schema_as(owner.oid, schema, AclMode::CREATE)
            }
            _ => Ok(()),
        }
    }

    /// The owner a view's query runs as.
    pub(super) fn relation_owner(&self, oid: u32) -> u32 {
        self.state.roles.relation_privileges(oid).owner
    }

    fn relation_word(&self, name: &QualifiedName) -> &'static str {
        if self.state.views.contains_key(name) {
            "view"
        } else if self.state.sequences.contains_key(name) {
            "sequence"
        } else if (self.state.table_by_name(name)).is_some_and(|t| t.schema.foreign.is_some()) {
            "foreign table"
        } else {
            "table"
        }
    }

    pub(super) fn bind_grant(&mut self, grant: &ast::Grant) -> Result<BoundStatement> {
        let ast::Grant {
            privileges,
            objects,
            grantees,
            with_grant_option,
            as_grantor,
            granted_by,
            current_grants,
        } = grant;
        if as_grantor.is_some() || current_grants.is_some() {
            return Err(Error::unsupported(format!("{grant}")));
        }
        let change = self.bind_privilege_change(
            privileges,
            objects.as_ref(),
            grantees,
            granted_by.as_ref(),
        )?;
        Ok(BoundStatement::ChangeRole(RoleChange::Privileges(
            PrivilegeChange {
                grant: true,
                grant_option: *with_grant_option,
                cascade: false,
                ..change
            },
        )))
    }

    pub(super) fn bind_revoke(&mut self, revoke: &ast::Revoke) -> Result<BoundStatement> {
        let ast::Revoke {
            grant_option_for,
            privileges,
            objects,
            grantees,
            granted_by,
            cascade,
        } = revoke;
        let change = self.bind_privilege_change(
            privileges,
            objects.as_ref(),
            grantees,
            granted_by.as_ref(),
        )?;
        Ok(BoundStatement::ChangeRole(RoleChange::Privileges(
            PrivilegeChange {
                grant: false,
                grant_option: *grant_option_for,
                cascade: matches!(cascade, Some(ast::CascadeOption::Cascade)),
                ..change
            },
        )))
    }

    /// What GRANT and REVOKE share: the privileges, the objects and the grantees (the
    /// direction and options are the caller's).
    fn bind_privilege_change(
        &mut self,
        privileges: &Privileges,
        objects: Option<&GrantObjects>,
        grantees: &[Grantee],
        granted_by: Option<&ast::Ident>,
    ) -> Result<PrivilegeChange> {
        if let Some(grantor) = granted_by {
            self.require_current_grantor(grantor)?;
        }
        let Some(objects) = objects else {
            return Err(Error::syntax("syntax error at end of input"));
        };
        let (kind, targets) = self.privilege_targets(objects)?;
        let named = privilege_mode(privileges, kind)?;
        for target in &targets {
            if kind == ObjectKind::Sequence && target.kind != ObjectKind::Sequence {
                return Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{}\" is not a sequence", target.name),
                ));
            }
        }
        let grantees = grantees
            .iter()
            .map(grantee_name)
            .collect::<Result<Vec<_>>>()?;
        let columns = self.column_targets(&targets, &named.columns)?;
        Ok(PrivilegeChange {
            grant: true,
            privileges: named.mode,
            all: named.all,
            targets,
            grantees,
            grant_option: false,
            cascade: false,
            columns,
        })
    }

    /// The columns `(privileges, names)` name on each of `targets`: 42703 for a column
    /// one of them lacks, 0LP01 on a sequence.
    fn column_targets(
        &self,
        targets: &[PrivilegeTarget],
        named: &[(AclMode, &[ast::Ident])],
    ) -> Result<Vec<ColumnTarget>> {
        let mut columns = Vec::new();
        for (index, target) in targets.iter().enumerate() {
            if named.is_empty() {
                break;
            }
            if target.kind != ObjectKind::Relation {
                return Err(Error::new(
                    SqlState::InvalidGrantOperation,
                    "column privileges are only valid for relations",
                ));
            }
            let names = self.relation_column_names(target.oid);
            for (privileges, idents) in named {
                for ident in *idents {
                    let name = ident_name(ident);
                    let Some(position) = names.iter().position(|n| *n == name) else {
                        return Err(Error::new(
                            SqlState::UndefinedColumn,
                            format!(
                                "column \"{name}\" of relation \"{}\" does not exist",
                                target.name
                            ),
                        ));
                    };
                    columns.push(ColumnTarget {
                        target: index,
                        attnum: i16::try_from(position + 1).unwrap_or(i16::MAX),
                        name,
                        privileges: *privileges,
                    });
                }
            }
        }
        Ok(columns)
    }

    /// The column names of the table or view `oid`, in attribute number order.
    fn relation_column_names(&self, oid: u32) -> Vec<String> {
        if let Some(table) = self.state.tables.get(&oid) {
            return table
                .schema
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
        }
        let view = self.state.views.values().find(|v| v.oid == oid);
        view.map_or_else(Vec::new, |v| {
            v.columns.iter().map(|(n, _)| n.clone()).collect()
        })
    }

    /// GRANTED BY: PostgreSQL 15 takes only the current user (ExecuteGrantStmt), after
    /// checking that the role exists.
    fn require_current_grantor(&self, grantor: &ast::Ident) -> Result<()> {
        let name = ident_name(grantor);
        let special = grantor.quote_style.is_none()
            && matches!(name.as_str(), "current_user" | "current_role");
        if special || name == self.search_path.user() {
            return Ok(());
        }
        match self.state.roles.by_name(&name) {
            None => Err(crate::catalog::missing_role(&name)),
            Some(role) if role.oid == self.current_role() => Ok(()),
            Some(_) => Err(Error::new(
                SqlState::FeatureNotSupported,
                "grantor must be current user",
            )),
        }
    }

    /// The table, view or sequence `name` as the object of a GRANT, REVOKE or OWNER TO.
    pub(super) fn relation_target(&self, name: &QualifiedName) -> Result<PrivilegeTarget> {
        let oid = if let Some(view) = self.state.views.get(name) {
            view.oid
        } else if let Some(table) = self.state.table_by_name(name) {
            table.schema.oid
        } else if let Some(sequence) = self.state.sequences.get(name) {
            return Ok(PrivilegeTarget {
                kind: ObjectKind::Sequence,
                oid: sequence.oid,
                word: "sequence",
                name: name.name.clone(),
                current: self.state.roles.sequence_privileges(sequence.oid),
            });
        } else {
            return Err(Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{name}\" does not exist"),
            ));
        };
        Ok(PrivilegeTarget {
            kind: ObjectKind::Relation,
            oid,
            word: self.relation_word(name),
            name: name.name.clone(),
            current: self.state.roles.relation_privileges(oid),
        })
    }

    /// The database `name` as the object of a GRANT or REVOKE: the one the session is
    /// connected to (3D000 for another name).
    fn database_target(&self, name: &str) -> Result<PrivilegeTarget> {
        if name != self.search_path.database() {
            return Err(Error::new(
                SqlState::InvalidCatalogName,
                format!("database \"{name}\" does not exist"),
            ));
        }
        Ok(PrivilegeTarget {
            kind: ObjectKind::Database,
            oid: crate::catalog::system::DATABASE_OID,
            word: "database",
            name: name.to_string(),
            current: self.state.roles.database_privileges(),
        })
    }

    /// 42501 `permission denied for database d` unless the current role holds
    /// `privileges` on the database (CREATE SCHEMA asks for CREATE).
    pub(super) fn require_database(&self, privileges: AclMode) -> Result<()> {
        let role = self.current_role();
        let roles = &self.state.roles;
        if roles.is_superuser(role) || self.privileges_unchecked {
            return Ok(());
        }
        let object = roles.database_privileges();
        let (held, _) = roles.privileges_of(role, ObjectKind::Database, &object);
        match held.contains(privileges) {
            true => Ok(()),
            false => Err(permission_denied("database", self.search_path.database())),
        }
    }

    /// The SQL function `oid` as the object of a GRANT or REVOKE.
    fn function_target(&self, oid: u32) -> Result<PrivilegeTarget> {
        let function = self
            .state
            .functions
            .get(&oid)
            .ok_or_else(|| Error::internal("a function found by name is missing"))?;
        Ok(PrivilegeTarget {
            kind: ObjectKind::Function,
            oid,
            word: "function",
            name: function.name.name.clone(),
            current: self.state.roles.function_privileges(oid),
        })
    }

    /// 42501 `permission denied for function f` unless the current role may EXECUTE the
    /// SQL function `oid` (PUBLIC may, until revoked). Checked as the caller even inside
    /// a view, as PostgreSQL checks it when the call runs.
    pub(super) fn require_execute(&self, oid: u32, name: &str) -> Result<()> {
        let role = self.current_role();
        let roles = &self.state.roles;
        if roles.is_superuser(role) || self.privileges_unchecked {
            return Ok(());
        }
        let object = roles.function_privileges(oid);
        let (held, _) = roles.privileges_of(role, ObjectKind::Function, &object);
        match held.contains(AclMode::EXECUTE) {
            true => Ok(()),
            false => Err(permission_denied("function", name)),
        }
    }

    /// 42501 `must be owner of function f` unless the current role owns SQL function `oid`.
    pub(super) fn require_function_owner(&self, oid: u32, name: &str) -> Result<()> {
        let roles = &self.state.roles;
        let owner = roles.function_privileges(oid).owner;
        match roles.has_ownership(self.current_role(), owner) {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("must be owner of function {name}"),
            )),
        }
    }

    /// The objects a GRANT or REVOKE names, all of one kind.
    fn privilege_targets(
        &self,
        objects: &GrantObjects,
    ) -> Result<(ObjectKind, Vec<PrivilegeTarget>)> {
        let relation = |name: QualifiedName| self.relation_target(&name);
        match objects {
            GrantObjects::Tables(names) | GrantObjects::Sequences(names) => {
                let kind = match objects {
                    GrantObjects::Sequences(_) => ObjectKind::Sequence,
                    _ => ObjectKind::Relation,
                };
                let targets = names
                    .iter()
                    .map(|name| relation(self.relation_name(name)?))
                    .collect::<Result<Vec<_>>>()?;
                Ok((kind, targets))
            }
            GrantObjects::AllTablesInSchema { schemas }
            | GrantObjects::AllSequencesInSchema { schemas } => {
                let sequences = matches!(objects, GrantObjects::AllSequencesInSchema { .. });
                let mut targets = Vec::new();
                for schema in schemas {
                    let oid = self.schema(&object_name_text(schema)?)?.oid;
                    let mut names: Vec<&QualifiedName> = match sequences {
                        true => self.state.sequences.keys().collect(),
                        false => self
                            .state
                            .names
                            .keys()
                            .chain(self.state.views.keys())
                            .collect(),
                    };
                    names.retain(|name| name.schema == oid);
                    names.sort_by(|a, b| a.name.cmp(&b.name));
                    for name in names {
                        targets.push(relation(name.clone())?);
                    }
                }
                let kind = match sequences {
                    true => ObjectKind::Sequence,
                    false => ObjectKind::Relation,
                };
                Ok((kind, targets))
            }
            GrantObjects::Function { name, arg_types } => {
                // `f` without parentheses names the one function called so.
                let types = match arg_types.is_empty() {
                    true => None,
                    false => Some(
                        arg_types
                            .iter()
                            .map(|ty| self.function_type(ty))
                            .collect::<Result<Vec<_>>>()?,
                    ),
                };
                let (oid, _) = self.function_to_drop(name, types.as_deref())??;
                Ok((ObjectKind::Function, vec![self.function_target(oid)?]))
            }
            GrantObjects::AllFunctionsInSchema { schemas } => {
                let mut targets = Vec::new();
                for schema in schemas {
                    let oid = self.schema(&object_name_text(schema)?)?.oid;
                    let mut functions: Vec<_> = self
                        .state
                        .functions
                        .values()
                        .filter(|f| f.name.schema == oid)
                        .collect();
                    functions.sort_by_key(|f| (f.name.name.clone(), f.oid));
                    for function in functions {
                        targets.push(self.function_target(function.oid)?);
                    }
                }
                Ok((ObjectKind::Function, targets))
            }
            GrantObjects::Databases(names) => {
                let targets = names
                    .iter()
                    .map(|name| self.database_target(&object_name_text(name)?))
                    .collect::<Result<Vec<_>>>()?;
                Ok((ObjectKind::Database, targets))
            }
            GrantObjects::Schemas(schemas) => {
                let targets = schemas
                    .iter()
                    .map(|name| {
                        let schema = self.schema(&object_name_text(name)?)?;
                        Ok(PrivilegeTarget {
                            kind: ObjectKind::Schema,
                            oid: schema.oid,
                            word: "schema",
                            name: schema.name.clone(),
                            current: self.state.roles.schema_privileges(schema),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok((ObjectKind::Schema, targets))
            }
            other => Err(Error::unsupported(format!("privileges ON {other}"))),
        }
    }
}

/// A schema's name as written (one identifier).
fn object_name_text(name: &ast::ObjectName) -> Result<String> {
    match name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(ident)] => Ok(ident_name(ident)),
        _ => Err(Error::syntax(format!("improper qualified name: {name}"))),
    }
}

/// The privileges a GRANT or REVOKE names: on whole objects, checked against the object
/// kind (0LP01 for one it lacks), whether ALL was written, and those on named columns.
struct NamedPrivileges<'p> {
    mode: AclMode,
    all: bool,
    columns: Vec<(AclMode, &'p [ast::Ident])>,
}

/// ON TABLE also names sequences, so it takes their USAGE too (checked per object when
/// granted, as PostgreSQL's ExecGrant_Relation does).
fn privilege_mode(privileges: &Privileges, kind: ObjectKind) -> Result<NamedPrivileges<'_>> {
    let valid = match kind {
        ObjectKind::Relation => kind
            .all_privileges()
            .union(ObjectKind::Sequence.all_privileges()),
        ObjectKind::Schema | ObjectKind::Sequence | ObjectKind::Function | ObjectKind::Database => {
            kind.all_privileges()
        }
    };
    let actions = match privileges {
        Privileges::All {
            with_privileges_keyword: _,
        } => {
            return Ok(NamedPrivileges {
                mode: kind.all_privileges(),
                all: true,
                columns: Vec::new(),
            })
        }
        Privileges::Actions(actions) => actions,
    };
    let mut named = NamedPrivileges {
        mode: AclMode::NONE,
        all: false,
        columns: Vec::new(),
    };
    for action in actions {
        let (bit, columns) = match action {
            Action::Select { columns } => (AclMode::SELECT, columns.as_ref()),
            Action::Insert { columns } => (AclMode::INSERT, columns.as_ref()),
            Action::Update { columns } => (AclMode::UPDATE, columns.as_ref()),
            Action::References { columns } => (AclMode::REFERENCES, columns.as_ref()),
            Action::Delete => (AclMode::DELETE, None),
            Action::Truncate => (AclMode::TRUNCATE, None),
            Action::Trigger => (AclMode::TRIGGER, None),
            Action::Usage => (AclMode::USAGE, None),
            Action::Create { obj_type: None } => (AclMode::CREATE, None),
            Action::Connect => (AclMode::CONNECT, None),
            Action::Temporary => (AclMode::TEMPORARY, None),
            Action::Execute { obj_type: None } => (AclMode::EXECUTE, None),
            other => return Err(Error::unsupported(format!("the privilege {other}"))),
        };
        match columns {
            Some(_) if kind != ObjectKind::Relation => {
                return Err(Error::new(
                    SqlState::InvalidGrantOperation,
                    "column privileges are only valid for relations",
                ));
            }
            Some(columns) => named.columns.push((bit, columns.as_slice())),
            None if !valid.contains(bit) => {
                return Err(invalid_privilege_type(&action_word(action), kind))
            }
            None => named.mode = named.mode.union(bit),
        }
    }
    Ok(named)
}

fn action_word(action: &Action) -> String {
    action.to_string().to_uppercase()
}

/// A grantee's role name; `None` for PUBLIC.
fn grantee_name(grantee: &Grantee) -> Result<Option<String>> {
    let Grantee { grantee_type, name } = grantee;
    match (grantee_type, name) {
        (GranteesType::Public, _) => Ok(None),
        (
            GranteesType::None | GranteesType::Role | GranteesType::User | GranteesType::Group,
            Some(GranteeName::ObjectName(name)),
        ) => match name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(ident)] => {
                let role = ident_name(ident);
                Ok((!(ident.quote_style.is_none() && role == "public")).then_some(role))
            }
            _ => Err(Error::syntax(format!("syntax error at or near \"{name}\""))),
        },
        _ => Err(Error::unsupported(format!("the grantee {grantee}"))),
    }
}

/// 42501 `permission denied for table t`.
pub(super) fn permission_denied(word: &str, name: &str) -> Error {
    Error::new(
        SqlState::InsufficientPrivilege,
        format!("permission denied for {word} {name}"),
    )
}
