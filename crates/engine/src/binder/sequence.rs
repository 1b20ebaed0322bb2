//! CREATE and ALTER SEQUENCE: their options over PostgreSQL's defaults (or, for ALTER, over
//! the sequence's current ones), OWNED BY, and the sequences of identity columns.

use sqlparser::ast::{self, ObjectName};

use super::data_type::bind_data_type;
use super::{ident_name, Binder};
use crate::catalog::{Identity, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::parser::{AlterSequence, AlterSequenceAction};
use crate::plan::BoundStatement;
use crate::storage::{type_max, type_min, RelationKind, SequenceOptions};
use crate::types::DataType;

impl Binder<'_> {
    pub(super) fn bind_create_sequence(
        &mut self,
        name: &ObjectName,
        temporary: bool,
        if_not_exists: bool,
        data_type: Option<&ast::DataType>,
        options: &[ast::SequenceOptions],
        owned_by: Option<&ObjectName>,
    ) -> Result<BoundStatement> {
        let ty = match data_type {
            Some(t) => sequence_type(t)?,
            None => DataType::Int64,
        };
        let name = self.relation_creation_name(name, temporary)?;
        let owned_by = match owned_by {
            Some(owner) => self.sequence_owner(&name, owner)?,
            None => None,
        };
        Ok(BoundStatement::CreateSequence {
            name,
            options: sequence_options_for(options, ty)?,
            if_not_exists,
            owned_by,
        })
    }

    pub(super) fn bind_alter_sequence(&mut self, alter: &AlterSequence) -> Result<BoundStatement> {
        let AlterSequence {
            if_exists,
            name,
            action,
        } = alter;
        let qualified = match if_exists {
            true => self.relation_name_if_exists(name)?,
            false => self.relation_name(name)?,
        };
        let Some(sequence) = self.state.sequences.get(&qualified) else {
            return match self.state.relation_kind(&qualified) {
                Some(_) => Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{qualified}\" is not a sequence"),
                )),
                None if *if_exists => Ok(BoundStatement::AlterSequence {
                    alter: None,
                    notices: vec![format!("relation \"{qualified}\" does not exist, skipping")],
                }),
                None => Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{qualified}\" does not exist"),
                )),
            };
        };
        self.require_relation_owner(&qualified, sequence.oid)?;
        let mut bound = crate::plan::AlterSequence {
            name: qualified.clone(),
            new_name: qualified.clone(),
            options: sequence.options.clone(),
            restart: None,
            owned_by: sequence.owned_by.clone(),
        };
        match action {
            AlterSequenceAction::RenameTo(new_name) => {
                bound.new_name = QualifiedName::new(qualified.schema, ident_name(new_name));
            }
            AlterSequenceAction::SetSchema(schema) => {
                if sequence.owned_by.is_some() {
                    // PostgreSQL moves it apart from its table; ownership here is by name
                    // within one schema.
                    return Err(Error::unsupported(
                        "ALTER SEQUENCE ... SET SCHEMA of an owned sequence",
                    ));
                }
                let schema = self.schema(&ident_name(schema))?.oid;
                bound.new_name = QualifiedName::new(schema, qualified.name.clone());
            }
            AlterSequenceAction::Options {
                data_type,
                options,
                restart,
                owned_by,
            } => {
                let ty = match data_type {
                    Some(t) => sequence_type(t)?,
                    None => sequence.data_type(),
                };
                bound.options = merge_options(Some(&sequence.options), options, ty)?;
                bound.restart = match restart {
                    None => None,
                    Some(None) => Some(bound.options.start),
                    Some(Some(value)) => Some(option_number(value)?),
                };
                // PostgreSQL checks the current value against new bounds as a RESTART.
                let current = bound.restart.unwrap_or_else(|| sequence.counter().0);
                bound.options.check_within("RESTART", current)?;
                if let Some(owner) = owned_by {
                    bound.owned_by = self.sequence_owner(&qualified, owner)?;
                }
            }
            AlterSequenceAction::OwnerTo(owner) => {
                let new_owner = self.owner_name(owner);
                return self.bind_owner_change(&qualified, new_owner, "ALTER SEQUENCE");
            }
        }
        if bound.new_name != bound.name && self.referenced_by_default(&qualified) {
            // Defaults keep nextval's argument as text, so they would lose the sequence.
            return Err(Error::unsupported(
                "renaming or moving a sequence a column default uses",
            ));
        }
        Ok(BoundStatement::AlterSequence {
            alter: Some(Box::new(bound)),
            notices: Vec::new(),
        })
    }

    /// `OWNED BY table.column | NONE` of sequence `sequence`.
    fn sequence_owner(
        &self,
        sequence: &QualifiedName,
        owner: &ObjectName,
    ) -> Result<Option<(String, String)>> {
        let parts = &owner.0;
        if let [only] = parts.as_slice() {
            if only
                .as_ident()
                .is_some_and(|i| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("none"))
            {
                return Ok(None);
            }
            return Err(Error::syntax("invalid OWNED BY option")
                .with_hint("Specify OWNED BY table.column or OWNED BY NONE."));
        }
        let Some((column, table)) = parts.split_last() else {
            return Err(Error::syntax("invalid OWNED BY option"));
        };
        let column = column
            .as_ident()
            .map(ident_name)
            .ok_or_else(|| Error::syntax("invalid OWNED BY option"))?;
        let table = self.relation_name(&ObjectName(table.to_vec()))?;
        let Some(entry) = self.state.table_by_name(&table) else {
            return Err(match self.state.relation_kind(&table) {
                Some(RelationKind::View)
                | Some(RelationKind::Sequence)
                | Some(RelationKind::Index { .. }) => Error::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    format!("sequence cannot be owned by relation \"{}\"", table.name),
                )
                .with_detail(format!(
                    "This operation is not supported for {}s.",
                    self.state
                        .relation_kind(&table)
                        .map_or("relation", |k| match k {
                            RelationKind::View => "view",
                            RelationKind::Sequence => "sequence",
                            _ => "index",
                        })
                )),
                _ => Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{}\" does not exist", table.name),
                ),
            });
        };
        if table.schema != sequence.schema {
            return Err(Error::new(
                SqlState::ObjectNotInPrerequisiteState,
                "sequence must be in same schema as table it is linked to",
            ));
        }
        if entry.schema.column_index(&column).is_none() {
            return Err(Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{column}\" of relation \"{}\" does not exist",
                    table.name
                ),
            ));
        }
        Ok(Some((table.name, column)))
    }

    /// Whether some column default names `sequence` (as defaults are text, by its name).
    fn referenced_by_default(&self, sequence: &QualifiedName) -> bool {
        self.state.tables.values().any(|table| {
            table
                .schema
                .columns
                .iter()
                .filter_map(|c| c.default_sql.as_deref())
                .any(|sql| sql.contains(sequence.name.as_str()))
        })
    }

    /// The sequence of identity column `column` of `table`: its SEQUENCE NAME, or
    /// PostgreSQL's `table_column_seq` in the table's schema.
    pub(super) fn identity_sequence_name(
        &mut self,
        table: &QualifiedName,
        column: &str,
    ) -> Result<QualifiedName> {
        match self.identity_sequence_names.pop_front().flatten() {
            Some(parts) => {
                let name = self.creation_name(&ObjectName::from(parts))?;
                if name.schema != table.schema {
                    return Err(Error::new(
                        SqlState::ObjectNotInPrerequisiteState,
                        "sequence must be in same schema as table it is linked to",
                    ));
                }
                Ok(name)
            }
            None => Ok(QualifiedName::new(
                table.schema,
                format!("{}_{column}_seq", table.name),
            )),
        }
    }
}

/// GENERATED ALWAYS or BY DEFAULT (PostgreSQL's default when neither is written).
pub(super) fn identity_kind(generated_as: Option<&ast::GeneratedAs>) -> Identity {
    match generated_as {
        Some(ast::GeneratedAs::Always) => Identity::Always,
        _ => Identity::ByDefault,
    }
}

/// The type of `AS type`: smallint, integer or bigint, else 22023.
fn sequence_type(data_type: &ast::DataType) -> Result<DataType> {
    let ty = bind_data_type(data_type)?;
    if !matches!(ty, DataType::Int16 | DataType::Int32 | DataType::Int64) {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            "sequence type must be smallint, integer, or bigint",
        ));
    }
    Ok(ty)
}

/// CREATE SEQUENCE / identity options over PostgreSQL's defaults for `ty`.
pub(super) fn sequence_options_for(
    options: &[ast::SequenceOptions],
    ty: DataType,
) -> Result<SequenceOptions> {
    merge_options(None, options, ty)
}

fn option_number(e: &ast::Expr) -> Result<i64> {
    let invalid = || Error::syntax(format!("invalid sequence option value {e}"));
    let (negative, inner) = match e {
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => (true, expr.as_ref()),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Plus,
            expr,
        } => (false, expr.as_ref()),
        other => (false, other),
    };
    match inner {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n
                .parse::<i64>()
                .map(|n| if negative { -n } else { n })
                .map_err(|_| invalid()),
            _ => Err(invalid()),
        },
        _ => Err(invalid()),
    }
}

/// `options` over `base` (ALTER SEQUENCE) or over the defaults for `ty` (CREATE), checked as
/// PostgreSQL's init_params checks them. `NO MINVALUE` / `NO MAXVALUE` mean the default.
fn merge_options(
    base: Option<&SequenceOptions>,
    options: &[ast::SequenceOptions],
    ty: DataType,
) -> Result<SequenceOptions> {
    let mut increment = base.map_or(1, |b| b.increment);
    let (mut min, mut max): (Option<Option<i64>>, Option<Option<i64>>) = (None, None);
    let (mut start, mut cycle) = (base.map(|b| b.start), base.is_some_and(|b| b.cycle));
    let mut cache = None;
    for option in options {
        match option {
            ast::SequenceOptions::IncrementBy(e, _) => increment = option_number(e)?,
            ast::SequenceOptions::MinValue(e) => {
                min = Some(e.as_ref().map(option_number).transpose()?)
            }
            ast::SequenceOptions::MaxValue(e) => {
                max = Some(e.as_ref().map(option_number).transpose()?)
            }
            ast::SequenceOptions::StartWith(e, _) => start = Some(option_number(e)?),
            ast::SequenceOptions::Cache(e) => cache = Some(option_number(e)?),
            ast::SequenceOptions::Cycle(no) => cycle = !no,
        }
    }
    if increment == 0 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            "INCREMENT must not be zero",
        ));
    }
    // A bound neither given nor kept from `base` is the default for the direction; a
    // bound that was its old type's limit follows a change of type (AS), as in PostgreSQL.
    let kept = |bound: fn(&SequenceOptions) -> i64, limit: fn(DataType) -> i64| {
        base.filter(|b| b.data_type == ty || bound(b) != limit(b.data_type))
            .map(bound)
    };
    let min = match (min, kept(|b| b.min, type_min)) {
        (Some(Some(v)), _) => v,
        (None, Some(kept)) => kept,
        _ if increment > 0 => 1,
        _ => type_min(ty),
    };
    let max = match (max, kept(|b| b.max, type_max)) {
        (Some(Some(v)), _) => v,
        (None, Some(kept)) => kept,
        _ if increment > 0 => type_max(ty),
        _ => -1,
    };
    for (name, bound) in [("MAXVALUE", max), ("MINVALUE", min)] {
        if bound < type_min(ty) || bound > type_max(ty) {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!(
                    "{name} ({bound}) is out of range for sequence data type {}",
                    ty.name()
                ),
            ));
        }
    }
    if min >= max {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("MINVALUE ({min}) must be less than MAXVALUE ({max})"),
        ));
    }
    let start = start.unwrap_or(if increment > 0 { min } else { max });
    let options = SequenceOptions {
        data_type: ty,
        increment,
        min,
        max,
        start,
        cycle,
    };
    options.check_within("START", start)?;
    // Values are not cached ahead here, so CACHE is checked and then has no effect.
    if let Some(cache) = cache.filter(|&c| c <= 0) {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("CACHE ({cache}) must be greater than zero"),
        ));
    }
    Ok(options)
}
