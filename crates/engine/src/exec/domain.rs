//! CREATE DOMAIN, ALTER DOMAIN and DROP DOMAIN, run under the locks of the domains' names
//! (the path of enum types, `enum_type.rs`). A constraint added to a domain is checked
//! against the rows of every column of it first, each table locked for the check.

use super::check::check_existing_domain_values;
use super::enum_type::{check_name_free, missing_type};
use super::ExecContext;
use crate::api::Notice;
use crate::catalog::{Domain, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::plan::{AlterDomain, CheckKind, DomainColumnCheck, RowCheck, ScalarExpr};
use crate::storage::{DbState, Transaction};

pub fn create_domain(txn: &mut Transaction, mut domain: Domain) -> Result<()> {
    txn.lock_name(&domain.name)?;
    check_name_free(&txn.view(), &domain.name)?;
    if let Some(parent) = domain.parent {
        if !txn.view().domains.contains_key(&parent) {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!("type with OID {parent} does not exist"),
            ));
        }
    }
    domain.oid = txn.allocate_oid();
    for check in &mut domain.checks {
        check.oid = txn.allocate_oid();
    }
    txn.put_domain(domain.oid, Some(domain));
    Ok(())
}

pub fn alter_domain(
    txn: &mut Transaction,
    name: &QualifiedName,
    action: AlterDomain,
    notices: &mut Vec<Notice>,
    ctx: &ExecContext,
) -> Result<()> {
    txn.lock_name(name)?;
    let state = txn.view();
    let mut domain = (**state.domain_named(name).ok_or_else(|| missing_type(name))?).clone();
    let constraint_missing = |constraint: &str| {
        Error::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{constraint}\" of domain \"{}\" does not exist",
                name.name
            ),
        )
    };
    match action {
        AlterDomain::SetDefault(default) => domain.default_sql = default,
        AlterDomain::SetNotNull(columns) => {
            let checks = columns
                .into_iter()
                .map(|column| DomainColumnCheck {
                    check: RowCheck {
                        name: String::new(),
                        kind: CheckKind::DomainNotNull(name.name.clone()),
                        expr: ScalarExpr::IsNull {
                            input: Box::new(ScalarExpr::Column {
                                index: column.position,
                                ty: domain.base,
                            }),
                            negated: true,
                        },
                    },
                    column,
                })
                .collect();
            check_existing_rows(txn, checks, ctx)?;
            domain.not_null = true;
        }
        AlterDomain::DropNotNull => domain.not_null = false,
        AlterDomain::AddCheck(mut check, existing) => {
            if domain.checks.iter().any(|c| c.name == check.name) {
                return Err(Error::new(
                    SqlState::DuplicateObject,
                    format!(
                        "constraint \"{}\" for domain \"{}\" already exists",
                        check.name, name.name
                    ),
                ));
            }
            check_existing_rows(txn, existing, ctx)?;
            check.oid = txn.allocate_oid();
            domain.checks.push(check);
        }
        AlterDomain::DropConstraint { name, if_exists } => {
            match domain.checks.iter().position(|c| c.name == name) {
                Some(position) => {
                    domain.checks.remove(position);
                }
                None if if_exists => {
                    notices.push(Notice::skipped(format!(
                        "constraint \"{name}\" of domain \"{}\" does not exist, skipping",
                        domain.name.name
                    )));
                    return Ok(());
                }
                None => return Err(constraint_missing(&name)),
            }
        }
        AlterDomain::RenameConstraint { old, new } => {
            if domain.checks.iter().any(|c| c.name == new) {
                return Err(Error::new(
                    SqlState::DuplicateObject,
                    format!(
                        "constraint \"{new}\" for domain \"{}\" already exists",
                        name.name
                    ),
                ));
            }
            let check = domain.checks.iter_mut().find(|c| c.name == old);
            check.ok_or_else(|| constraint_missing(&old))?.name = new;
        }
        AlterDomain::ValidateConstraint(constraint, existing) => {
            let position = domain.checks.iter().position(|c| c.name == constraint);
            let position = position.ok_or_else(|| constraint_missing(&constraint))?;
            check_existing_rows(txn, existing, ctx)?;
            domain.checks[position].validated = true;
        }
        AlterDomain::OwnerTo(owner) => domain.owner = owner,
        AlterDomain::Rename(new_name) => {
            let new_name = QualifiedName::new(name.schema, new_name);
            txn.lock_name(&new_name)?;
            check_name_free(&txn.view(), &new_name)?;
            domain.name = new_name;
        }
    }
    txn.put_domain(domain.oid, Some(domain));
    Ok(())
}

/// Each column's rows pass its check, its table locked for writes while they are read.
fn check_existing_rows(
    txn: &mut Transaction,
    checks: Vec<DomainColumnCheck>,
    ctx: &ExecContext,
) -> Result<()> {
    for DomainColumnCheck { column, check } in checks {
        let Some(table) = txn.view().tables.get(&column.table_oid).cloned() else {
            continue;
        };
        let Some(entry) = txn.table_for_write(&table.schema.qualified_name())? else {
            continue;
        };
        check_existing_domain_values((&column.table, &column.column), &check, &entry.data, ctx)?;
    }
    Ok(())
}

pub fn drop_domains(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    for name in names {
        txn.lock_name(name)?;
        let state = txn.view();
        let Some(domain) = state.domain_named(name).cloned() else {
            if !if_exists {
                return Err(missing_type(name));
            }
            notices.push(Notice::skipped(format!(
                "type \"{}\" does not exist, skipping",
                name.name
            )));
            continue;
        };
        let (columns, domains) = dependents(&state, &domain);
        let functions = dependent_functions(&state, domain.oid);
        if columns.is_empty() && domains.is_empty() && functions.is_empty() {
            txn.put_domain(domain.oid, None);
            continue;
        }
        let details: Vec<String> = (functions.iter().map(|(_, detail)| detail))
            .chain(&columns)
            .chain(&domains)
            .cloned()
            .collect();
        if !cascade {
            let object = format!("type {}", name.name);
            return Err(super::drop_dependents::dependents_still_exist(
                &object, &details,
            ));
        }
        let mut dropped = vec![domain.oid];
        dependent_domains(&state, domain.oid, &mut dropped);
        let used = (state.tables.values())
            .flat_map(|t| &t.schema.columns)
            .any(|c| c.domain.is_some_and(|d| dropped.contains(&d)));
        if used {
            return Err(Error::unsupported(
                "DROP DOMAIN ... CASCADE of a domain that columns use",
            ));
        }
        let dropped_with: Vec<String> = (details.iter())
            .map(|d| d.split(" depends on ").next().unwrap_or(d).to_string())
            .collect();
        notices.push(super::drop_dependents::cascade_notice(&dropped_with));
        for oid in dropped {
            for (function, _) in dependent_functions(&state, oid) {
                txn.put_function(function, None);
            }
            txn.put_domain(oid, None);
        }
    }
    Ok(())
}

/// The domains over `oid`, over those, and so on.
fn dependent_domains(state: &DbState, oid: u32, found: &mut Vec<u32>) {
    for domain in state.domains.values() {
        if domain.parent == Some(oid) && !found.contains(&domain.oid) {
            found.push(domain.oid);
            dependent_domains(state, domain.oid, found);
        }
    }
}

/// The SQL functions with a parameter or result of domain `oid`, each with its DETAIL line.
fn dependent_functions(state: &DbState, oid: u32) -> Vec<(u32, String)> {
    let Some(domain) = state.domains.get(&oid) else {
        return Vec::new();
    };
    let domain_name = |oid: u32| state.domains.get(&oid).map(|d| d.name.name.clone());
    let mut functions: Vec<(u32, String)> = (state.functions.values())
        .filter(|f| f.returns_domain == Some(oid) || f.args.iter().any(|a| a.domain == Some(oid)))
        .map(|f| {
            let signature = f.signature_with_domains(domain_name);
            let detail = format!("function {signature} depends on type {}", domain.name.name);
            (f.oid, detail)
        })
        .collect();
    functions.sort();
    functions
}

/// What uses `domain`, as PostgreSQL's DETAIL lines name it: columns of its type, and
/// domains over it.
fn dependents(state: &DbState, domain: &Domain) -> (Vec<String>, Vec<String>) {
    let type_name = &domain.name.name;
    let mut columns = Vec::new();
    for table in state.tables.values() {
        for column in &table.schema.columns {
            if column.domain == Some(domain.oid) {
                columns.push(format!(
                    "column {} of table {} depends on type {type_name}",
                    column.name, table.schema.name
                ));
            }
        }
    }
    let domains = (state.domains.values())
        .filter(|d| d.parent == Some(domain.oid))
        .map(|d| format!("type {} depends on type {type_name}", d.name.name))
        .collect();
    (columns, domains)
}
