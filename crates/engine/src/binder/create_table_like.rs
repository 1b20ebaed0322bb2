//! `CREATE TABLE t (LIKE source [INCLUDING | EXCLUDING option]...)`: the source's columns,
//! with their NOT NULL always and, as the options say, their defaults, identity, generation
//! expressions, CHECK constraints, indexes and comments (see `parser::create_table_like` for how the elements reach the binder).

use sqlparser::ast::ObjectName;

use super::Binder;
use crate::catalog::{ColumnDef, Constraint, IndexDef, IndexKey, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::parser::TableLike;
use crate::storage::{RelationKind, SequenceOptions};

/// What a LIKE element adds to the new table; column positions count from the table's first.
pub(super) struct LikeCopy {
    pub columns: Vec<ColumnDef>,
    /// Identity columns copied with INCLUDING IDENTITY: (position, the source's options).
    pub identities: Vec<(usize, SequenceOptions)>,
    pub unique_keys: Vec<UniqueKey>,
    pub indexes: Vec<IndexDef>,
    /// INCLUDING CONSTRAINTS: the CHECK constraints, with their names (over column names,
    /// which the copy keeps).
    pub checks: Vec<Constraint>,
}

/// Which parts of the source a LIKE copies.
#[derive(Default)]
struct Including {
    comments: bool,
    constraints: bool,
    defaults: bool,
    generated: bool,
    identity: bool,
    indexes: bool,
}

fn including(options: &[(bool, String)]) -> Result<Including> {
    let mut copied = Including::default();
    for (on, option) in options {
        match option.to_uppercase().as_str() {
            "COMMENTS" => copied.comments = *on,
            "CONSTRAINTS" => copied.constraints = *on,
            "DEFAULTS" => copied.defaults = *on,
            "GENERATED" => copied.generated = *on,
            "IDENTITY" => copied.identity = *on,
            "INDEXES" => copied.indexes = *on,
            // Nothing of these to copy: no statistics, storage or compression settings are
            // kept.
            "STATISTICS" | "STORAGE" | "COMPRESSION" => {}
            "ALL" => {
                copied = Including {
                    comments: *on,
                    constraints: *on,
                    defaults: *on,
                    generated: *on,
                    identity: *on,
                    indexes: *on,
                }
            }
            _ => {
                return Err(Error::syntax(format!(
                    "syntax error at or near \"{option}\""
                )))
            }
        }
    }
    Ok(copied)
}

impl Binder<'_> {
    /// The copy `like` makes into table `table`, its columns starting at position `base`;
    /// `taken` are the index names the table has so far.
    pub(super) fn bind_table_like(
        &self,
        like: &TableLike,
        table: &str,
        base: usize,
        taken: &[&str],
    ) -> Result<LikeCopy> {
        let copied = including(&like.options)?;
        let source = self.relation_name(&ObjectName::from(like.source.clone()))?;
        let Some(entry) = self.state.table_by_name(&source) else {
            return Err(match self.state.relation_kind(&source) {
                Some(RelationKind::Table) | None => Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{}\" does not exist", source.name),
                ),
                Some(_) => Error::unsupported("LIKE of a relation other than a table"),
            });
        };
        let schema = &entry.schema;
        let mut copy = LikeCopy {
            columns: Vec::with_capacity(schema.columns.len()),
            identities: Vec::new(),
            unique_keys: Vec::new(),
            indexes: Vec::new(),
            checks: schema
                .constraints
                .iter()
                .filter(|_| copied.constraints)
                .map(|check| Constraint {
                    comment: check.comment.clone().filter(|_| copied.comments),
                    ..check.clone()
                })
                .collect(),
        };
        for (position, column) in schema.columns.iter().enumerate() {
            let identity = column.identity.filter(|_| copied.identity);
            if identity.is_some() {
                let sequence = self.state.sequences.values().find(|s| {
                    s.name.schema == source.schema
                        && s.owned_by.as_ref() == Some(&(schema.name.clone(), column.name.clone()))
                });
                let options = sequence.map(|s| s.options.clone()).ok_or_else(|| {
                    Error::internal("invariant: an identity column owns a sequence")
                })?;
                copy.identities.push((base + position, options));
            }
            copy.columns.push(ColumnDef {
                name: column.name.clone(),
                data_type: column.data_type,
                not_null: column.not_null,
                // An identity column's nextval is its identity, not a default.
                default_sql: column
                    .default_sql
                    .clone()
                    .filter(|_| copied.defaults && column.identity.is_none()),
                identity,
                generated: column.generated.clone().filter(|_| copied.generated),
                comment: column.comment.clone().filter(|_| copied.comments),
                domain: column.domain,
                // LIKE copies no foreign-data options.
                fdw_options: Vec::new(),
            });
        }
        if !copied.indexes {
            return Ok(copy);
        }
        let mut names: Vec<String> = taken.iter().map(|n| n.to_string()).collect();
        let column_name = |c: usize| schema.columns.get(c).map_or("", |c| c.name.as_str());
        let column_names = |columns: &[usize]| -> Vec<String> {
            columns
                .iter()
                .map(|&c| column_name(c).to_string())
                .collect()
        };
        let mut choose = |keys: Vec<String>, suffix: &str| {
            let stem = match suffix {
                "pkey" => format!("{table}_pkey"),
                _ => format!("{table}_{}_{suffix}", keys.join("_")),
            };
            let name = (0..)
                .map(|n| match n {
                    0 => stem.clone(),
                    n => format!("{stem}{n}"),
                })
                .find(|candidate| !names.contains(candidate))
                .unwrap_or(stem);
            names.push(name.clone());
            name
        };
        let shifted = |columns: &[usize]| columns.iter().map(|c| c + base).collect::<Vec<_>>();
        for key in &schema.unique_keys {
            let suffix = match (key.primary, key.constraint) {
                (true, _) => "pkey",
                (false, true) => "key",
                (false, false) => "idx",
            };
            copy.unique_keys.push(UniqueKey {
                name: choose(column_names(&key.columns), suffix),
                columns: shifted(&key.columns),
                primary: key.primary,
                constraint: key.constraint,
                constraint_comment: key.constraint_comment.clone().filter(|_| copied.comments),
                index_comment: key.index_comment.clone().filter(|_| copied.comments),
            });
        }
        for index in &schema.indexes {
            let keys = (index.keys().into_iter())
                .map(|key| match key {
                    IndexKey::Column(c) => Ok(column_name(c).to_string()),
                    IndexKey::Expression(expr) => Ok(super::index::expression_name(
                        &super::dml::parse_expr(&expr.sql)?,
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            copy.indexes.push(IndexDef {
                name: choose(keys, "idx"),
                columns: shifted(&index.columns),
                method: index.method,
                comment: index.comment.clone().filter(|_| copied.comments),
                expressions: index.expressions.clone(),
                predicate: index.predicate.clone(),
            });
        }
        Ok(copy)
    }
}
