//! Role statements: CREATE ROLE / USER, ALTER ROLE / USER, DROP ROLE / USER and GRANT /
//! REVOKE of role membership, bound by name (`plan::RoleChange`). Role names are single
//! identifiers folded as PostgreSQL folds them; the clauses KestrelDB does not keep
//! (per-role settings, MSSQL's AUTHORIZATION, GRANTED BY) are refused with 0A000.

use sqlparser::ast::{self, AlterRoleOperation, CreateRole, Expr, ObjectName, RoleOption, Value};

use super::names::single_identifier;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::parser::RoleMembership;
use crate::plan::{BoundStatement, RoleChange, RoleOptions, SettingChange};

impl Binder<'_> {
    /// Whether the session's role is a superuser (a name that is no role is the trusted
    /// bootstrap superuser, as `Session::set_identity` decides).
    pub(super) fn session_is_superuser(&self) -> bool {
        let user = self.search_path.user();
        self.state
            .roles
            .by_name(user)
            .is_none_or(|role| role.superuser)
    }

    pub(super) fn bind_create_role(
        &mut self,
        create: &CreateRole,
        user: bool,
    ) -> Result<BoundStatement> {
        let CreateRole {
            names,
            if_not_exists,
            login,
            inherit,
            bypassrls,
            password,
            superuser,
            create_db,
            create_role,
            replication,
            connection_limit,
            valid_until,
            in_role,
            in_group,
            role,
            user: users,
            admin,
            authorization_owner,
        } = create;
        if *if_not_exists {
            return Err(Error::syntax("syntax error at or near \"NOT\""));
        }
        if authorization_owner.is_some() {
            return Err(Error::syntax("syntax error at or near \"AUTHORIZATION\""));
        }
        let [name] = names.as_slice() else {
            return Err(Error::syntax("syntax error at or near \",\""));
        };
        let options = RoleOptions {
            superuser: *superuser,
            create_db: *create_db,
            create_role: *create_role,
            inherit: *inherit,
            login: *login,
            replication: *replication,
            bypass_rls: *bypassrls,
            connection_limit: connection_limit.as_ref().map(limit).transpose()?,
            password: password.as_ref().map(password_text).transpose()?,
            valid_until: valid_until.as_ref().map(string).transpose()?,
        };
        let names_of = |idents: &[ast::Ident]| idents.iter().map(ident_name).collect::<Vec<_>>();
        Ok(BoundStatement::ChangeRole(RoleChange::Create {
            name: single_identifier(name)?,
            user,
            options,
            in_roles: names_of(in_role)
                .into_iter()
                .chain(names_of(in_group))
                .collect(),
            members: names_of(role).into_iter().chain(names_of(users)).collect(),
            admins: names_of(admin),
        }))
    }

    pub(super) fn bind_alter_role(
        &mut self,
        name: &ast::Ident,
        operation: &AlterRoleOperation,
    ) -> Result<BoundStatement> {
        // ALTER ROLE ALL names every role (only SET and RESET take it).
        let all = name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all");
        let role_or_all = (!all).then(|| ident_name(name));
        let name = ident_name(name);
        let change = match operation {
            AlterRoleOperation::RenameRole { role_name } => RoleChange::Rename {
                name,
                new_name: ident_name(role_name),
            },
            AlterRoleOperation::WithOptions { options } => {
                let mut bound = RoleOptions::default();
                for option in options {
                    set_option(&mut bound, option)?;
                }
                RoleChange::Alter {
                    name,
                    options: bound,
                }
            }
            AlterRoleOperation::Set {
                config_name,
                config_value,
                in_database,
            } => {
                let name = setting_name(config_name);
                let change = match config_value {
                    ast::SetConfigValue::Default => SettingChange::Reset { name: Some(name) },
                    ast::SetConfigValue::Value(value) => SettingChange::Set {
                        name,
                        value: setting_value(value)?,
                    },
                    ast::SetConfigValue::FromCurrent => {
                        return Err(Error::unsupported("ALTER ROLE ... SET ... FROM CURRENT"))
                    }
                };
                self.setting_change(role_or_all, in_database.as_ref(), change)?
            }
            AlterRoleOperation::Reset {
                config_name,
                in_database,
            } => {
                let name = match config_name {
                    ast::ResetConfig::ALL => None,
                    ast::ResetConfig::ConfigName(name) => Some(setting_name(name)),
                };
                let change = SettingChange::Reset { name };
                self.setting_change(role_or_all, in_database.as_ref(), change)?
            }
            AlterRoleOperation::AddMember { .. } | AlterRoleOperation::DropMember { .. } => {
                return Err(Error::syntax("syntax error at or near \"MEMBER\""))
            }
        };
        Ok(BoundStatement::ChangeRole(change))
    }

    /// ALTER ROLE's SET or RESET for `role` (`None`: ALL), in the database named, which
    /// must be the current one (3D000 otherwise).
    fn setting_change(
        &self,
        role: Option<String>,
        in_database: Option<&ObjectName>,
        change: SettingChange,
    ) -> Result<RoleChange> {
        if let Some(database) = in_database {
            let database = single_identifier(database)?;
            if database != self.search_path.database() {
                return Err(Error::new(
                    SqlState::InvalidCatalogName,
                    format!("database \"{database}\" does not exist"),
                ));
            }
        }
        Ok(RoleChange::Setting {
            role,
            in_database: in_database.is_some(),
            change,
        })
    }

    pub(super) fn bind_drop_roles(
        &mut self,
        names: &[ObjectName],
        if_exists: bool,
        cascade: bool,
    ) -> Result<BoundStatement> {
        if cascade {
            return Err(Error::syntax("syntax error at or near \"CASCADE\""));
        }
        let names = names
            .iter()
            .map(single_identifier)
            .collect::<Result<Vec<_>>>()?;
        Ok(BoundStatement::ChangeRole(RoleChange::Drop {
            names,
            if_exists,
        }))
    }

    pub(super) fn bind_role_membership(
        &mut self,
        membership: &RoleMembership,
    ) -> Result<BoundStatement> {
        let RoleMembership {
            grant,
            roles,
            members,
            admin_option,
            granted_by,
            cascade: _,
        } = membership;
        if granted_by.is_some() {
            return Err(Error::unsupported("GRANTED BY"));
        }
        Ok(BoundStatement::ChangeRole(RoleChange::Membership {
            grant: *grant,
            roles: roles.iter().map(ident_name).collect(),
            members: members.iter().map(ident_name).collect(),
            admin_option: *admin_option,
        }))
    }
}

fn set_option(options: &mut RoleOptions, option: &RoleOption) -> Result<()> {
    match option {
        RoleOption::BypassRLS(on) => options.bypass_rls = Some(*on),
        RoleOption::ConnectionLimit(expr) => options.connection_limit = Some(limit(expr)?),
        RoleOption::CreateDB(on) => options.create_db = Some(*on),
        RoleOption::CreateRole(on) => options.create_role = Some(*on),
        RoleOption::Inherit(on) => options.inherit = Some(*on),
        RoleOption::Login(on) => options.login = Some(*on),
        RoleOption::Password(password) => options.password = Some(password_text(password)?),
        RoleOption::Replication(on) => options.replication = Some(*on),
        RoleOption::SuperUser(on) => options.superuser = Some(*on),
        RoleOption::ValidUntil(expr) => options.valid_until = Some(string(expr)?),
    }
    Ok(())
}

fn string(expr: &Expr) -> Result<String> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => Ok(s.clone()),
            other => Err(Error::syntax(format!(
                "syntax error at or near \"{other}\""
            ))),
        },
        other => Err(Error::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

fn password_text(password: &ast::Password) -> Result<Option<String>> {
    match password {
        ast::Password::Password(expr) => string(expr).map(Some),
        ast::Password::NullPassword => Ok(None),
    }
}

/// CONNECTION LIMIT n: -1 (no limit) or more, as PostgreSQL checks it.
fn limit(expr: &Expr) -> Result<i32> {
    let text = match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.clone(),
            other => other.to_string(),
        },
        Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => format!("-{expr}"),
        other => other.to_string(),
    };
    match text.parse::<i32>() {
        Ok(n) if n >= -1 => Ok(n),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid connection limit: {text}"),
        )),
    }
}

/// A setting's name as PostgreSQL keeps it: lower case, its parts joined by dots.
fn setting_name(name: &ObjectName) -> String {
    name.0
        .iter()
        .map(|part| match part {
            ast::ObjectNamePart::Identifier(ident) => ident_name(ident),
            ast::ObjectNamePart::Function(f) => f.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A setting's value as PostgreSQL keeps it: a string's text, a number or a name as
/// written.
fn setting_value(value: &Expr) -> Result<String> {
    match value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) => Ok(s.clone()),
            Value::Number(n, _) => Ok(n.to_string()),
            Value::Boolean(b) => Ok(b.to_string()),
            other => Err(Error::unsupported(format!("the setting value {other}"))),
        },
        Expr::Identifier(ident) => Ok(ident_name(ident)),
        Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => Ok(format!("-{}", setting_value(expr)?)),
        other => Err(Error::unsupported(format!("the setting value {other}"))),
    }
}
