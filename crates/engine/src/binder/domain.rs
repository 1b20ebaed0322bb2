//! Domains in statements: CREATE/ALTER/DROP DOMAIN, domain names as column and cast types,
//! and the checks a value written to a domain column or cast to a domain must pass
//! (PostgreSQL's CoerceToDomain): bound here once per statement over the value's column,
//! so the executor runs them a batch at a time like a table's CHECK constraints.

use std::sync::Arc;

use sqlparser::ast::{self, ObjectName};

use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::{quote_identifier, Domain, DomainCheck, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::parser::{AlterDomainAction, DomainConstraint, DomainConstraintKind, DomainStatement};
use crate::plan::{
    deparse_domain_check, deparse_expr, AlterDomain, BoundStatement, CheckKind, DomainColumn,
    DomainColumnCheck, RowCheck, ScalarExpr, TypeChange,
};
use crate::types::DataType;

impl Binder<'_> {
    pub(super) fn bind_domain_statement(
        &mut self,
        statement: &DomainStatement,
    ) -> Result<BoundStatement> {
        let change = match statement {
            DomainStatement::Create {
                name,
                data_type,
                collation,
                default,
                constraints,
            } => self.bind_create_domain(
                name,
                data_type,
                collation.as_ref(),
                default.as_ref(),
                constraints,
            )?,
            DomainStatement::Alter { name, action } => self.bind_alter_domain(name, action)?,
            DomainStatement::Drop {
                names,
                if_exists,
                cascade,
            } => TypeChange::DropDomain {
                names: names
                    .iter()
                    .map(|name| match self.domain_name(name) {
                        Err(e) if *if_exists && e.state == SqlState::InvalidSchemaName => {
                            Ok(QualifiedName::nowhere(self.written_name(name)?.name))
                        }
                        other => other,
                    })
                    .collect::<Result<_>>()?,
                if_exists: *if_exists,
                cascade: *cascade,
            },
        };
        Ok(BoundStatement::ChangeType(change))
    }

    fn bind_create_domain(
        &mut self,
        name: &ObjectName,
        data_type: &ast::DataType,
        collation: Option<&ObjectName>,
        default: Option<&ast::Expr>,
        constraints: &[DomainConstraint],
    ) -> Result<TypeChange> {
        let qualified = self.creation_name(name)?;
        let (base, parent) = self.bind_column_type(data_type)?;
        if let DataType::Record(_) = base {
            return Err(Error::unsupported("a domain over a row type"));
        }
        if let Some(collation) = collation {
            self.check_collation(collation, base)?;
        }
        let mut domain = Domain {
            oid: 0,
            name: qualified,
            base,
            parent,
            default_sql: None,
            not_null: false,
            checks: Vec::new(),
            owner: self.current_role(),
            comment: None,
        };
        if let Some(default) = default {
            domain.default_sql = Some(self.bind_domain_default(&domain, default)?);
        }
        let mut nullability = None;
        for constraint in constraints {
            match &constraint.kind {
                DomainConstraintKind::NotNull | DomainConstraintKind::Null => {
                    let not_null = matches!(constraint.kind, DomainConstraintKind::NotNull);
                    if nullability.is_some_and(|n| n != not_null) {
                        return Err(Error::syntax("conflicting NULL/NOT NULL constraints"));
                    }
                    nullability = Some(not_null);
                    domain.not_null = not_null;
                }
                DomainConstraintKind::Check(expr) => {
                    let check = self.new_domain_check(&domain, constraint, expr, true)?;
                    domain.checks.push(check);
                }
            }
        }
        Ok(TypeChange::CreateDomain(Box::new(domain)))
    }

    /// COLLATE on a domain: only the default collations exist here.
    fn check_collation(&self, collation: &ObjectName, base: DataType) -> Result<()> {
        let name = self.written_name(collation)?.name;
        if !matches!(
            base,
            DataType::Text | DataType::Varchar(_) | DataType::Char(_)
        ) {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!("collations are not supported by type {base}"),
            ));
        }
        match name.as_str() {
            "default" | "C" | "POSIX" => Ok(()),
            _ => Err(Error::unsupported(format!("the collation \"{name}\""))),
        }
    }

    /// The text of a domain's DEFAULT, checked to convert to its base type.
    fn bind_domain_default(&mut self, domain: &Domain, default: &ast::Expr) -> Result<String> {
        self.aggregate_forbidden_in = Some("DEFAULT expressions");
        let bound = self.bind_expr(default, &Scope::default());
        self.aggregate_forbidden_in = None;
        // Cast to the base type without its typmod, which the domain's own coercion applies
        // when the default is used: pg_type.typdefault holds that as ruleutils prints it.
        let unmodified = DataType::from_oid(domain.base.oid()).unwrap_or(domain.base);
        let bound = self.coerce(bound?, unmodified, CastContext::Assignment)?;
        Ok(match deparse_expr(&bound, &[]) {
            Some((plain, _)) => plain,
            None => default.to_string(),
        })
    }

    /// A new CHECK of `domain`: bound over VALUE, named as written or `domain_check`.
    fn new_domain_check(
        &mut self,
        domain: &Domain,
        constraint: &DomainConstraint,
        expr: &ast::Expr,
        validated: bool,
    ) -> Result<DomainCheck> {
        let bound = self.bind_domain_check_expr(domain.base, expr)?;
        let name = match &constraint.name {
            Some(name) => {
                let name = ident_name(name);
                if domain.checks.iter().any(|c| c.name == name) {
                    return Err(Error::new(
                        SqlState::DuplicateObject,
                        format!(
                            "constraint \"{name}\" for domain \"{}\" already exists",
                            domain.name.name
                        ),
                    ));
                }
                name
            }
            None => domain.free_check_name(),
        };
        let base = domain.parent.map(|_| domain.base.to_string());
        let (definition, definition_pretty) = match deparse_domain_check(&bound, base.as_deref()) {
            Some((plain, pretty)) => (format!("CHECK ({plain})"), format!("CHECK ({pretty})")),
            None => (format!("CHECK (({expr}))"), format!("CHECK ({expr})")),
        };
        Ok(DomainCheck {
            oid: 0,
            name,
            sql: expr.to_string(),
            definition,
            definition_pretty,
            validated,
        })
    }

    /// A domain CHECK's expression over a one-column row: VALUE, of the base type.
    fn bind_domain_check_expr(&mut self, base: DataType, expr: &ast::Expr) -> Result<ScalarExpr> {
        let scope = Scope::of_computed("", std::iter::once(("value".to_string(), base)));
        let names = ("check constraint", "check constraints");
        self.bind_stored_expr(&scope, names, |binder, scope| {
            binder.bind_condition(expr, scope, "CHECK")
        })
    }

    fn bind_alter_domain(
        &mut self,
        name: &ObjectName,
        action: &AlterDomainAction,
    ) -> Result<TypeChange> {
        let domain = self.existing_domain(name)?;
        self.require_domain_owner(&domain)?;
        let action = match action {
            AlterDomainAction::SetDefault(Some(expr)) => {
                AlterDomain::SetDefault(Some(self.bind_domain_default(&domain, expr)?))
            }
            AlterDomainAction::SetDefault(None) => AlterDomain::SetDefault(None),
            AlterDomainAction::NotNull(true) => {
                AlterDomain::SetNotNull(self.domain_columns(domain.oid))
            }
            AlterDomainAction::NotNull(false) => AlterDomain::DropNotNull,
            AlterDomainAction::AddConstraint {
                constraint,
                not_valid,
            } => match &constraint.kind {
                DomainConstraintKind::NotNull => {
                    AlterDomain::SetNotNull(self.domain_columns(domain.oid))
                }
                DomainConstraintKind::Null => {
                    return Err(Error::syntax(
                        "use ALTER DOMAIN .. [ SET | DROP ] NOT NULL instead",
                    ))
                }
                DomainConstraintKind::Check(expr) => {
                    let check = self.new_domain_check(&domain, constraint, expr, !not_valid)?;
                    let existing = match not_valid {
                        true => Vec::new(),
                        false => self.domain_column_checks(&domain, expr)?,
                    };
                    AlterDomain::AddCheck(check, existing)
                }
            },
            AlterDomainAction::DropConstraint {
                name,
                if_exists,
                cascade: _,
            } => AlterDomain::DropConstraint {
                name: ident_name(name),
                if_exists: *if_exists,
            },
            AlterDomainAction::RenameConstraint { old, new } => AlterDomain::RenameConstraint {
                old: ident_name(old),
                new: ident_name(new),
            },
            AlterDomainAction::ValidateConstraint(constraint) => {
                let constraint = ident_name(constraint);
                let existing = match domain.checks.iter().find(|c| c.name == constraint) {
                    Some(check) => {
                        self.domain_column_checks(&domain, &super::dml::parse_expr(&check.sql)?)?
                    }
                    None => Vec::new(),
                };
                AlterDomain::ValidateConstraint(constraint, existing)
            }
            AlterDomainAction::OwnerTo(role) => {
                let role = ident_name(role);
                match self.state.roles.by_name(&role) {
                    Some(role) => AlterDomain::OwnerTo(role.oid),
                    None => return Err(crate::catalog::missing_role(&role)),
                }
            }
            AlterDomainAction::Rename(new_name) => AlterDomain::Rename(ident_name(new_name)),
            AlterDomainAction::SetSchema(_) => {
                return Err(Error::unsupported("ALTER DOMAIN ... SET SCHEMA"))
            }
        };
        Ok(TypeChange::AlterDomain {
            name: domain.name.clone(),
            action,
        })
    }

    /// 42501 unless the current role owns `domain` (or is a member of its owner).
    fn require_domain_owner(&self, domain: &Domain) -> Result<()> {
        match self
            .state
            .roles
            .has_ownership(self.current_role(), domain.owner)
        {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("must be owner of type {}", domain.name.name),
            )),
        }
    }

    /// The columns of tables whose type is `oid` or a domain over it.
    fn domain_columns(&self, oid: u32) -> Vec<DomainColumn> {
        let mut columns = Vec::new();
        for table in self.state.tables.values() {
            for (position, column) in table.schema.columns.iter().enumerate() {
                if column
                    .domain
                    .is_some_and(|d| self.domain_chain(d).contains(&oid))
                {
                    columns.push(DomainColumn {
                        table_oid: table.schema.oid,
                        table: table.schema.name.clone(),
                        column: column.name.clone(),
                        position,
                    });
                }
            }
        }
        columns
    }

    /// A new CHECK of `domain` bound over each column of it, for the rows already there.
    fn domain_column_checks(
        &mut self,
        domain: &Domain,
        expr: &ast::Expr,
    ) -> Result<Vec<DomainColumnCheck>> {
        let bound = self.bind_domain_check_expr(domain.base, expr)?;
        Ok(self
            .domain_columns(domain.oid)
            .into_iter()
            .map(|column| DomainColumnCheck {
                check: RowCheck {
                    name: String::new(),
                    kind: CheckKind::Domain(domain.name.name.clone()),
                    expr: bound.clone().map_columns(&|_| column.position),
                },
                column,
            })
            .collect())
    }

    /// `oid` and the domains under it, down to the one over the base type.
    pub(super) fn domain_chain(&self, oid: u32) -> Vec<u32> {
        let mut chain = Vec::new();
        let mut next = Some(oid);
        while let Some(oid) = next.filter(|oid| !chain.contains(oid)) {
            chain.push(oid);
            next = self.state.domains.get(&oid).and_then(|d| d.parent);
        }
        chain
    }

    /// The domain `name` refers to (see [`Binder::type_named`]).
    fn domain_name(&self, name: &ObjectName) -> Result<QualifiedName> {
        self.type_named(name, |state, q| state.domain_named(q).is_some())
    }

    /// The domain `name`, or PostgreSQL's 42704.
    pub(super) fn existing_domain(&self, name: &ObjectName) -> Result<Arc<Domain>> {
        let qualified = self.domain_name(name)?;
        match self.state.domain_named(&qualified) {
            Some(domain) => Ok(domain.clone()),
            None => Err(Error::new(
                SqlState::UndefinedObject,
                format!("type \"{}\" does not exist", qualified.name),
            )),
        }
    }

    /// The domain the type `ty` names, if it names one.
    pub(super) fn domain_of(&self, ty: &ast::DataType) -> Option<Arc<Domain>> {
        let ast::DataType::Custom(name, modifiers) = ty else {
            return None;
        };
        if !modifiers.is_empty() || super::bind_data_type(ty).is_ok() {
            return None;
        }
        let qualified = self.domain_name(name).ok()?;
        self.state.domain_named(&qualified).cloned()
    }

    /// A column's type: the type of its values, and the domain it names if it names one.
    pub(super) fn bind_column_type(&self, ty: &ast::DataType) -> Result<(DataType, Option<u32>)> {
        if let ast::DataType::Array(ast::ArrayElemTypeDef::SquareBracket(elem, _)) = ty {
            if self.domain_of(elem).is_some() {
                return Err(Error::unsupported("arrays of domains"));
            }
        }
        match self.domain_of(ty) {
            Some(domain) => Ok((domain.base, Some(domain.oid))),
            None => Ok((self.bind_type(ty)?, None)),
        }
    }

    /// How format_type names a domain in errors: qualified unless the search path finds it.
    fn domain_display(&self, domain: &Domain) -> String {
        let visible = self
            .searched
            .iter()
            .map(|&schema| QualifiedName::new(schema, domain.name.name.as_str()))
            .find(|q| self.state.domain_named(q).is_some())
            .is_some_and(|q| q.schema == domain.name.schema);
        let name = quote_identifier(&domain.name.name);
        match visible {
            true => name,
            false => {
                let schema = self.state.schemas.get(&domain.name.schema);
                let schema = schema.map_or(String::new(), |s| quote_identifier(&s.name));
                format!("{schema}.{name}")
            }
        }
    }

    /// What a value of column `value_index` cast to domain `oid` must pass, in
    /// PostgreSQL's order: NOT NULL (of any domain of the chain) first, then the CHECKs of
    /// the domain under it before its own, by name within a domain.
    pub(super) fn domain_checks(&mut self, oid: u32, value_index: usize) -> Result<Vec<RowCheck>> {
        let Some(domain) = self.state.domains.get(&oid).cloned() else {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!("type with OID {oid} does not exist"),
            ));
        };
        let display = self.domain_display(&domain);
        let chain: Vec<Arc<Domain>> = (self.domain_chain(oid).iter())
            .filter_map(|oid| self.state.domains.get(oid).cloned())
            .collect();
        let mut checks = Vec::new();
        if chain.iter().any(|d| d.not_null) {
            checks.push(RowCheck {
                name: String::new(),
                kind: CheckKind::DomainNotNull(display.clone()),
                expr: ScalarExpr::IsNull {
                    input: Box::new(ScalarExpr::Column {
                        index: value_index,
                        ty: domain.base,
                    }),
                    negated: true,
                },
            });
        }
        for level in chain.iter().rev() {
            let mut own = Vec::with_capacity(level.checks.len());
            for check in &level.checks {
                let bound =
                    self.bind_domain_check_expr(level.base, &super::dml::parse_expr(&check.sql)?)?;
                own.push(RowCheck {
                    name: check.name.clone(),
                    kind: CheckKind::Domain(display.clone()),
                    expr: bound.map_columns(&|_| value_index),
                });
            }
            own.sort_by(|a, b| a.name.cmp(&b.name));
            checks.extend(own);
        }
        Ok(checks)
    }

    /// `value`, of the domain's base type, checked as a value of domain `oid`.
    pub(super) fn coerce_to_domain(&mut self, value: ScalarExpr, oid: u32) -> Result<ScalarExpr> {
        let checks = self.domain_checks(oid, 0)?;
        if checks.is_empty() {
            return Ok(value);
        }
        Ok(ScalarExpr::DomainCheck {
            input: Box::new(value),
            checks,
        })
    }

    /// `value` passed where a domain may be declared (a function's argument or result):
    /// assigned to the domain's base type, then checked.
    pub(super) fn assign_to_domain(
        &mut self,
        value: ScalarExpr,
        domain: Option<u32>,
    ) -> Result<ScalarExpr> {
        let Some(oid) = domain else {
            return Ok(value);
        };
        // A dropped domain is the 42704 of domain_checks.
        let base = self.state.domains.get(&oid).map_or(value.ty(), |d| d.base);
        let value = self.coerce(value, base, CastContext::Assignment)?;
        self.coerce_to_domain(value, oid)
    }

    /// The DEFAULT of the nearest domain of the chain of `oid` that has one, and the
    /// schema to look its names up in first.
    pub(super) fn domain_default(&self, oid: u32) -> Option<(String, u32)> {
        self.domain_chain(oid).iter().find_map(|oid| {
            let domain = self.state.domains.get(oid)?;
            Some((domain.default_sql.clone()?, domain.name.schema))
        })
    }
}
