//! FOREIGN KEY, in CREATE TABLE (column and table forms) and ALTER TABLE ADD CONSTRAINT:
//! resolves the referenced table and columns and checks everything the schemas decide
//! (PostgreSQL's ATAddForeignKeyConstraint). Whether the rows satisfy it is checked when
//! the statement runs.

use sqlparser::ast::{
    self, ConstraintCharacteristics, ConstraintReferenceMatchKind, DeferrableInitial,
    ForeignKeyConstraint,
};

use super::{ident_name, Binder};
use crate::catalog::{key_cast, ForeignKey, ReferentialAction, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::BoundStatement;

impl Binder<'_> {
    /// The foreign key `constraint` declares on `table` (the schema as CREATE or ALTER
    /// TABLE has built it so far: a self-reference sees its keys). A column-form
    /// `REFERENCES` comes here with its column and constraint name filled in.
    pub(super) fn bind_foreign_key(
        &self,
        table: &TableSchema,
        constraint: &ForeignKeyConstraint,
    ) -> Result<ForeignKey> {
        let ForeignKeyConstraint {
            name,
            index_name,
            columns,
            foreign_table,
            referred_columns,
            on_delete,
            on_update,
            match_kind,
            characteristics,
        } = constraint;
        if index_name.is_some() {
            return Err(Error::unsupported(format!("the constraint {constraint}")));
        }
        let match_full = match match_kind {
            None | Some(ConstraintReferenceMatchKind::Simple) => false,
            Some(ConstraintReferenceMatchKind::Full) => true,
            Some(ConstraintReferenceMatchKind::Partial) => {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "MATCH PARTIAL not yet implemented",
                ))
            }
        };
        let (deferrable, initially_deferred) = timing(characteristics.as_ref())?;
        let referenced = if self.names_new_table(table, foreign_table)? {
            table
        } else {
            let referenced_name = self.open_relation(foreign_table)?;
            match self.state.table_by_name(&referenced_name) {
                Some(entry) if entry.schema.oid == table.oid => table,
                Some(entry) => &entry.schema,
                None => {
                    return Err(Error::new(
                        SqlState::WrongObjectType,
                        format!(
                            "referenced relation \"{}\" is not a table",
                            referenced_name.name
                        ),
                    ))
                }
            }
        };
        check_persistence(self.state, table, referenced)?;
        if referenced.partition_key.is_some() || table.partition_key.is_some() {
            return Err(Error::unsupported(
                "foreign keys referencing or on a partitioned table",
            ));
        }
        let columns = key_columns(table, columns)?;
        let referenced_columns = if referred_columns.is_empty() {
            let primary = referenced.unique_keys.iter().find(|k| k.primary);
            match primary {
                Some(key) => key.columns.clone(),
                None => {
                    return Err(Error::new(
                        SqlState::UndefinedObject,
                        format!(
                            "there is no primary key for referenced table \"{}\"",
                            referenced.name
                        ),
                    ))
                }
            }
        } else {
            let positions = key_columns(referenced, referred_columns)?;
            let distinct = positions
                .iter()
                .enumerate()
                .all(|(i, p)| !positions[..i].contains(p));
            if !distinct || referenced.unique_key_over(&positions).is_none() {
                return Err(Error::new(
                    SqlState::InvalidForeignKey,
                    format!(
                        "there is no unique constraint matching given keys for referenced table \"{}\"",
                        referenced.name
                    ),
                ));
            }
            positions
        };
        if columns.len() != referenced_columns.len() {
            return Err(Error::new(
                SqlState::InvalidForeignKey,
                "number of referencing and referenced columns for foreign key disagree",
            ));
        }
        let name = self.foreign_key_name(table, name.as_ref(), &columns)?;
        for (&from, &to) in columns.iter().zip(&referenced_columns) {
            let (from, to) = (&table.columns[from], &referenced.columns[to]);
            let (a, b) = (from.data_type, to.data_type);
            if key_cast(a, b).is_some() {
                continue;
            }
            if can_cast(a, b, CastContext::Implicit) || can_cast(b, a, CastContext::Implicit) {
                return Err(Error::unsupported(format!(
                    "a foreign key from type {} to type {}",
                    a.name(),
                    b.name()
                )));
            }
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!("foreign key constraint \"{name}\" cannot be implemented"),
            )
            .with_detail(format!(
                "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                from.name,
                to.name,
                self.type_display_be(a),
                self.type_display_be(b)
            )));
        }
        Ok(ForeignKey {
            name,
            columns,
            referenced_table: referenced.oid,
            referenced_columns,
            on_delete: action(on_delete.as_ref()),
            on_update: action(on_update.as_ref()),
            match_full,
            deferrable,
            initially_deferred,
            validated: true,
            comment: None,
        })
    }

    /// Whether `name` is the table CREATE TABLE is creating (a self-reference; the table
    /// is not in the catalog yet, and PostgreSQL finds it first).
    fn names_new_table(&self, table: &TableSchema, name: &ast::ObjectName) -> Result<bool> {
        if table.oid != 0 {
            return Ok(false);
        }
        let written = self.written_name(name)?;
        let same_schema = match &written.schema {
            Some(schema) => self.schema(schema)?.oid == table.namespace,
            None => self
                .state
                .relation_kind(&self.search(&written.name))
                .is_none(),
        };
        Ok(same_schema && written.name == table.name)
    }

    /// The name given (42710 if the table has a constraint of that name), or PostgreSQL's
    /// `table_col1_col2_fkey`, numbered while a constraint of the schema has it.
    fn foreign_key_name(
        &self,
        table: &TableSchema,
        name: Option<&ast::Ident>,
        columns: &[usize],
    ) -> Result<String> {
        let table_has = |n: &str| table.constraint_names().any(|c| c == n);
        if let Some(name) = name {
            let name = ident_name(name);
            if table_has(&name) {
                return Err(Error::new(
                    SqlState::DuplicateObject,
                    format!(
                        "constraint \"{name}\" for relation \"{}\" already exists",
                        table.name
                    ),
                ));
            }
            return Ok(name);
        }
        let taken = |n: &str| {
            table_has(n)
                || self.state.tables.values().any(|entry| {
                    entry.schema.namespace == table.namespace
                        && entry.schema.constraint_names().any(|c| c == n)
                })
        };
        let names: Vec<&str> = columns
            .iter()
            .map(|&c| table.columns[c].name.as_str())
            .collect();
        let base = format!("{}_{}_fkey", table.name, names.join("_"));
        let mut candidate = base.clone();
        let mut n = 0;
        while taken(&candidate) {
            n += 1;
            candidate = format!("{base}{n}");
        }
        Ok(candidate)
    }
}

/// Column positions of `names` in `table`; 42703 for one it does not have.
fn key_columns(table: &TableSchema, names: &[ast::Ident]) -> Result<Vec<usize>> {
    names
        .iter()
        .map(|ident| {
            let name = ident_name(ident);
            table.column_index(&name).ok_or_else(|| {
                Error::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{name}\" referenced in foreign key constraint does not exist"
                    ),
                )
            })
        })
        .collect()
}

fn action(action: Option<&ast::ReferentialAction>) -> ReferentialAction {
    match action {
        None | Some(ast::ReferentialAction::NoAction) => ReferentialAction::NoAction,
        Some(ast::ReferentialAction::Restrict) => ReferentialAction::Restrict,
        Some(ast::ReferentialAction::Cascade) => ReferentialAction::Cascade,
        Some(ast::ReferentialAction::SetNull) => ReferentialAction::SetNull,
        Some(ast::ReferentialAction::SetDefault) => ReferentialAction::SetDefault,
    }
}

/// (DEFERRABLE, INITIALLY DEFERRED); INITIALLY DEFERRED alone implies DEFERRABLE.
fn timing(characteristics: Option<&ConstraintCharacteristics>) -> Result<(bool, bool)> {
    let Some(ConstraintCharacteristics {
        deferrable,
        initially,
        enforced,
    }) = characteristics
    else {
        return Ok((false, false));
    };
    if enforced.is_some() {
        return Err(Error::unsupported("ENFORCED / NOT ENFORCED constraints"));
    }
    let deferred = *initially == Some(DeferrableInitial::Deferred);
    match deferrable {
        Some(false) if deferred => Err(Error::syntax(
            "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
        )),
        Some(deferrable) => Ok((*deferrable, deferred)),
        None => Ok((deferred, deferred)),
    }
}

impl Binder<'_> {
    /// The foreign keys referencing `table` (its own self-references included), with the
    /// name of the table owning each.
    fn keys_referencing<'s>(&'s self, table: &'s TableSchema) -> Vec<(&'s str, &'s ForeignKey)> {
        let own = table
            .foreign_keys_to(table.oid)
            .map(|k| (table.name.as_str(), k));
        let others = self
            .state
            .tables
            .values()
            .filter(|e| e.schema.oid != table.oid)
            .flat_map(|e| {
                e.schema
                    .foreign_keys_to(table.oid)
                    .map(|k| (e.schema.name.as_str(), k))
            });
        let mut keys: Vec<_> = own.chain(others).collect();
        keys.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        keys
    }

    /// ALTER TABLE DROP COLUMN (`dropping`) or ALTER COLUMN TYPE of column `position`: a
    /// column other tables' foreign keys reference cannot go (2BP01), and one a foreign key
    /// uses cannot change type (0A000). A dropped column's own foreign keys go with it.
    pub(super) fn check_column_not_in_foreign_key(
        &self,
        table: &TableSchema,
        position: usize,
        dropping: bool,
    ) -> Result<()> {
        let column = &table.columns[position].name;
        let referencing = self.keys_referencing(table);
        let own_column =
            |owner: &str, key: &ForeignKey| owner == table.name && key.columns.contains(&position);
        if dropping {
            let dependent = referencing.iter().find(|(owner, key)| {
                key.referenced_columns.contains(&position) && !own_column(owner, key)
            });
            if let Some((owner, key)) = dependent {
                return Err(Error::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                        "cannot drop column {column} of table {} because other objects depend on it",
                        table.name
                    ),
                )
                .with_detail(format!(
                    "constraint {} on table {owner} depends on column {column} of table {}",
                    key.name, table.name
                ))
                .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
            }
            // Other tables' keys hold this table's column positions.
            let shifted = referencing.iter().find(|(owner, key)| {
                *owner != table.name && key.referenced_columns.iter().any(|&c| c > position)
            });
            if let Some((_, key)) = shifted {
                return Err(Error::unsupported(format!(
                    "dropping a column before the columns foreign key \"{}\" references",
                    key.name
                )));
            }
        }
        let used = table
            .foreign_keys
            .iter()
            .any(|k| k.columns.contains(&position))
            || self
                .keys_referencing(table)
                .iter()
                .any(|(_, k)| k.referenced_columns.contains(&position));
        if !dropping && used {
            return Err(Error::unsupported(format!(
                "changing the type of column \"{column}\", which a foreign key uses"
            )));
        }
        Ok(())
    }

    /// DROP CONSTRAINT of unique key `key`: 2BP01 while a foreign key references its columns.
    pub(super) fn check_unique_key_unreferenced(
        &self,
        table: &TableSchema,
        key: usize,
    ) -> Result<()> {
        let unique = &table.unique_keys[key];
        let dependents: Vec<String> = self
            .keys_referencing(table)
            .into_iter()
            .filter(|(_, k)| table.unique_key_over(&k.referenced_columns) == Some(key))
            .map(|(owner, k)| {
                format!(
                    "constraint {} on table {owner} depends on index {}",
                    k.name, unique.name
                )
            })
            .collect();
        if dependents.is_empty() {
            return Ok(());
        }
        Err(Error::new(
            SqlState::DependentObjectsStillExist,
            format!(
                "cannot drop constraint {} on table {} because other objects depend on it",
                unique.name, table.name
            ),
        )
        .with_detail(dependents.join("\n"))
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."))
    }
}

impl Binder<'_> {
    /// SET CONSTRAINTS, as the parser's pre-pass rewrote it: the names (ALL is the empty
    /// one) and last the mode. Each name must be a constraint of a table along the search
    /// path (42704), and a deferrable one (42809).
    pub(super) fn bind_set_constraints(&self, values: &[ast::Expr]) -> Result<BoundStatement> {
        let mut words: Vec<&str> = Vec::with_capacity(values.len());
        for value in values {
            match value {
                ast::Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::SingleQuotedString(word),
                    ..
                }) => words.push(word),
                other => {
                    return Err(Error::syntax(format!(
                        "syntax error at or near \"{other}\""
                    )))
                }
            }
        }
        let (Some(mode), names) = words
            .split_last()
            .map_or((None, &[][..]), |(m, n)| (Some(*m), n))
        else {
            return Err(Error::syntax("syntax error at end of input"));
        };
        if names.is_empty() {
            return Err(Error::syntax(format!("syntax error at or near \"{mode}\"")));
        }
        let deferred = mode == "DEFERRED";
        if names.contains(&"") {
            return Ok(BoundStatement::SetConstraints {
                names: None,
                deferred,
            });
        }
        for name in names {
            let (schema, name) = match name.rsplit_once('.') {
                Some((schema, name)) => (Some(self.schema(schema)?.oid), name),
                None => (None, *name),
            };
            let in_scope = |namespace: u32| match schema {
                Some(oid) => oid == namespace,
                None => self.searched.contains(&namespace),
            };
            let tables = || {
                self.state
                    .tables
                    .values()
                    .filter(|e| in_scope(e.schema.namespace))
            };
            let foreign =
                tables().find_map(|e| e.schema.foreign_keys.iter().find(|k| k.name == name));
            match foreign {
                Some(key) if key.deferrable => {}
                Some(_) => {
                    return Err(Error::new(
                        SqlState::WrongObjectType,
                        format!("constraint \"{name}\" is not deferrable"),
                    ))
                }
                None if tables().any(|e| e.schema.constraint_names().any(|c| c == name)) => {
                    return Err(Error::new(
                        SqlState::WrongObjectType,
                        format!("constraint \"{name}\" is not deferrable"),
                    ))
                }
                None => {
                    return Err(Error::new(
                        SqlState::UndefinedObject,
                        format!("constraint \"{name}\" does not exist"),
                    ))
                }
            }
        }
        Ok(BoundStatement::SetConstraints {
            names: Some(
                names
                    .iter()
                    .map(|n| n.rsplit('.').next().unwrap_or(n).to_string())
                    .collect(),
            ),
            deferred,
        })
    }
}

/// A permanent table may reference only permanent tables, and a temporary one only
/// temporary tables (a reference would outlive the session, or cross into another).
fn check_persistence(
    state: &crate::storage::DbState,
    table: &TableSchema,
    referenced: &TableSchema,
) -> Result<()> {
    let temporary = |schema: &TableSchema| {
        state
            .schemas
            .get(&schema.namespace)
            .is_some_and(|s| s.is_temporary())
    };
    match (temporary(table), temporary(referenced)) {
        (false, true) => Err(Error::new(
            SqlState::InvalidTableDefinition,
            "constraints on permanent tables may reference only permanent tables",
        )),
        (true, false) => Err(Error::new(
            SqlState::InvalidTableDefinition,
            "constraints on temporary tables may reference only temporary tables",
        )),
        _ => Ok(()),
    }
}
