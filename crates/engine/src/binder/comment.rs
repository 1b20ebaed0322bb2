//! COMMENT ON: resolves the object commented on, with PostgreSQL's errors for a missing one
//! or one of another kind. An empty comment removes it, as IS NULL does.

use sqlparser::ast::{CommentObject, ObjectName};

use super::{ident_name, Binder};
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::parser::CommentOnConstraint;
use crate::plan::{BoundStatement, CommentTarget};
use crate::storage::RelationKind;

impl Binder<'_> {
    pub(super) fn bind_comment(
        &mut self,
        object_type: &CommentObject,
        name: &ObjectName,
        comment: Option<&String>,
        if_exists: bool,
    ) -> Result<BoundStatement> {
        if if_exists {
            return Err(Error::syntax("syntax error at or near \"IF\""));
        }
        let target = match object_type {
            CommentObject::Table => CommentTarget::Table(self.relation_of(name, "a table")?),
            CommentObject::View => CommentTarget::View(self.relation_of(name, "a view")?),
            CommentObject::Sequence => {
                CommentTarget::Sequence(self.relation_of(name, "a sequence")?)
            }
            CommentObject::Index => {
                let index = self.relation_of(name, "an index")?;
                let Some(RelationKind::Index { table }) = self.state.relation_kind(&index) else {
                    return Err(Error::internal("invariant: an index names its table"));
                };
                CommentTarget::Index {
                    table: QualifiedName::new(index.schema, table),
                    index: index.name,
                }
            }
            CommentObject::Schema => {
                let [schema] = name.0.as_slice() else {
                    return Err(Error::syntax(format!("syntax error at or near \"{name}\"")));
                };
                let schema = schema.as_ident().map(ident_name).unwrap_or_default();
                CommentTarget::Schema(self.schema(&schema)?.oid)
            }
            CommentObject::Column => self.comment_column(name)?,
            CommentObject::Type => CommentTarget::Type(self.existing_type_name(name)?),
            CommentObject::Domain => {
                CommentTarget::Domain(self.existing_domain(name)?.name.clone())
            }
            other => return Err(Error::unsupported(format!("COMMENT ON {other}"))),
        };
        Ok(BoundStatement::Comment {
            target,
            comment: comment.filter(|c| !c.is_empty()).cloned(),
        })
    }

    pub(super) fn bind_comment_on_constraint(
        &mut self,
        statement: &CommentOnConstraint,
    ) -> Result<BoundStatement> {
        let CommentOnConstraint {
            constraint,
            table,
            comment,
        } = statement;
        let table = self.relation_of(table, "a table")?;
        let constraint = ident_name(constraint);
        let found = self.state.table_by_name(&table).is_some_and(|entry| {
            let schema = &entry.schema;
            schema
                .unique_keys
                .iter()
                .any(|k| k.constraint && k.name == constraint)
                || schema.constraint(&constraint).is_some()
                || schema.foreign_keys.iter().any(|k| k.name == constraint)
        });
        if !found {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!(
                    "constraint \"{constraint}\" for table \"{}\" does not exist",
                    table.name
                ),
            ));
        }
        Ok(BoundStatement::Comment {
            target: CommentTarget::Constraint { table, constraint },
            comment: comment.clone().filter(|c| !c.is_empty()),
        })
    }

    /// `table.column` (optionally schema-qualified) of a table.
    fn comment_column(&self, name: &ObjectName) -> Result<CommentTarget> {
        let Some((column, table)) = name.0.split_last().filter(|(_, t)| !t.is_empty()) else {
            return Err(Error::syntax("column name must be qualified"));
        };
        let column = column.as_ident().map(ident_name).unwrap_or_default();
        let table_name = ObjectName(table.to_vec());
        let table = self.relation_name(&table_name)?;
        let Some(entry) = self.state.table_by_name(&table) else {
            return match self.state.relation_kind(&table) {
                Some(RelationKind::View) => Err(Error::unsupported("COMMENT ON COLUMN of a view")),
                Some(_) => Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("cannot set comment on relation \"{}\"", table.name),
                )),
                None => Err(missing_relation(&table_name, &table)),
            };
        };
        let column = entry.schema.column_index(&column).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{column}\" of relation \"{}\" does not exist",
                    table.name
                ),
            )
        })?;
        Ok(CommentTarget::Column { table, column })
    }

    /// The relation `name`, which must be of the kind `expected` names ("a table").
    fn relation_of(&self, name: &ObjectName, expected: &str) -> Result<QualifiedName> {
        let qualified = self.relation_name(name)?;
        let kind = self
            .state
            .relation_kind(&qualified)
            .ok_or_else(|| missing_relation(name, &qualified))?;
        if kind.names().0 != expected {
            return Err(Error::new(
                SqlState::WrongObjectType,
                format!("\"{}\" is not {expected}", qualified.name),
            ));
        }
        Ok(qualified)
    }
}

fn missing_relation(written: &ObjectName, qualified: &QualifiedName) -> Error {
    let shown = match written.0.len() {
        1 => qualified.name.clone(),
        _ => written.to_string(),
    };
    Error::new(
        SqlState::UndefinedTable,
        format!("relation \"{shown}\" does not exist"),
    )
}
