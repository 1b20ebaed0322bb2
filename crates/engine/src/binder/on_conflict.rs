//! INSERT ... ON CONFLICT [(columns) | ON CONSTRAINT name] DO NOTHING | DO UPDATE SET ...
//! [WHERE ...]: infers the arbiter unique indexes as PostgreSQL does and binds DO UPDATE
//! over the existing row followed by the proposed one, visible as `excluded`.

use sqlparser::ast::{self, ConflictTarget, OnConflictAction};

use super::dml::table_scope;
use super::scope::Scope;
use super::updatable_view::WriteTarget;
use super::{ident_name, Binder};
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::plan::{ConflictAction, OnConflict};

impl Binder<'_> {
    /// `scope`: the target table's columns under its name or alias.
    pub(super) fn bind_on_conflict(
        &mut self,
        target: &WriteTarget,
        scope: &Scope,
        on_conflict: &ast::OnConflict,
    ) -> Result<OnConflict> {
        let ast::OnConflict {
            conflict_target,
            action,
        } = on_conflict;
        let schema: &TableSchema = &target.schema;
        let arbiters = match conflict_target {
            None => {
                if matches!(action, OnConflictAction::DoUpdate(_)) {
                    return Err(Error::syntax(
                        "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                    )
                    .with_hint("For example, ON CONFLICT (column_name)."));
                }
                (0..schema.unique_keys.len()).collect()
            }
            Some(ConflictTarget::Columns(columns)) => infer_arbiters(schema, columns)?,
            Some(ConflictTarget::OnConstraint(name)) => {
                let name = self.written_name(name)?.name;
                let key = schema
                    .unique_keys
                    .iter()
                    .position(|k| k.constraint && k.name == name)
                    .ok_or_else(|| {
                        Error::new(
                            SqlState::UndefinedObject,
                            format!(
                                "constraint \"{name}\" for table \"{}\" does not exist",
                                schema.name
                            ),
                        )
                    })?;
                vec![key]
            }
        };
        let action = match action {
            OnConflictAction::DoNothing => ConflictAction::Nothing,
            OnConflictAction::DoUpdate(update) => {
                let ast::DoUpdate {
                    assignments,
                    selection,
                } = update;
                let mut scope = scope.clone();
                scope
                    .columns
                    .extend(table_scope(schema, "excluded").columns);
                let assignments = self.bind_assignments(target, assignments, &scope)?;
                self.aggregate_forbidden_in = Some("WHERE");
                let filter = selection
                    .as_ref()
                    .map(|s| self.bind_condition(s, &scope, "WHERE"))
                    .transpose();
                self.aggregate_forbidden_in = None;
                ConflictAction::Update {
                    assignments,
                    filter: filter?,
                }
            }
        };
        Ok(OnConflict { arbiters, action })
    }
}

/// The unique indexes over exactly the set of `columns` (in any order); 42P10 if none.
fn infer_arbiters(schema: &TableSchema, columns: &[ast::Ident]) -> Result<Vec<usize>> {
    let mut positions = Vec::with_capacity(columns.len());
    for column in columns {
        let name = ident_name(column);
        let position = schema.column_index(&name).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!("column \"{name}\" does not exist"),
            )
        })?;
        if !positions.contains(&position) {
            positions.push(position);
        }
    }
    let arbiters: Vec<usize> = schema
        .unique_keys
        .iter()
        .enumerate()
        .filter(|(_, k)| {
            k.columns.len() == positions.len() && k.columns.iter().all(|c| positions.contains(c))
        })
        .map(|(i, _)| i)
        .collect();
    if arbiters.is_empty() {
        return Err(Error::new(
            SqlState::InvalidColumnReference,
            "there is no unique or exclusion constraint matching the ON CONFLICT specification",
        ));
    }
    Ok(arbiters)
}
