//! TRUNCATE [TABLE] [ONLY] t [, ...] [RESTART | CONTINUE IDENTITY] [CASCADE | RESTRICT].

use sqlparser::ast::{self, TruncateIdentityOption};

use super::Binder;
use crate::catalog::AclMode;
use crate::error::{Error, Result, SqlState};
use crate::plan::BoundStatement;

impl Binder<'_> {
    pub(super) fn bind_truncate(&mut self, truncate: &ast::Truncate) -> Result<BoundStatement> {
        let ast::Truncate {
            table_names,
            partitions,
            table: _,
            if_exists,
            identity,
            cascade,
            on_cluster,
        } = truncate;
        if *if_exists {
            return Err(Error::syntax("syntax error at or near \"EXISTS\""));
        }
        if partitions.is_some() || on_cluster.is_some() {
            return Err(Error::unsupported(format!("the TRUNCATE form {truncate}")));
        }
        let mut tables = Vec::with_capacity(table_names.len());
        for target in table_names {
            // ONLY and `*` choose whether inheritance children are included; there are none.
            let ast::TruncateTableTarget {
                name,
                only: _,
                has_asterisk: _,
            } = target;
            let name = self.relation_name(name)?;
            let table = self.state.table_by_name(&name);
            let Some(entry) = table.filter(|t| t.schema.materialized.is_none()) else {
                return Err(match self.state.relation_kind(&name) {
                    Some(_) => Error::new(
                        SqlState::WrongObjectType,
                        format!("\"{name}\" is not a table"),
                    ),
                    None => Error::new(
                        SqlState::UndefinedTable,
                        format!("relation \"{name}\" does not exist"),
                    ),
                });
            };
            self.require_relation(&name, entry.schema.oid, AclMode::TRUNCATE)?;
            if entry.schema.foreign.is_some() {
                // file_fdw has no truncate callback.
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot truncate foreign table \"{name}\""),
                ));
            }
            for name in self.with_partitions(vec![name]) {
                let Some(entry) = self.state.table_by_name(&name) else {
                    continue;
                };
                if !tables.iter().any(|(n, _)| *n == name) {
                    tables.push((name, entry.schema.oid));
                }
            }
        }
        Ok(BoundStatement::Truncate {
            tables,
            restart_identity: matches!(identity, Some(TruncateIdentityOption::Restart)),
            cascade: matches!(cascade, Some(ast::CascadeOption::Cascade)),
        })
    }
}
