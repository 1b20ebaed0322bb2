//! CREATE TABLE ... PARTITION BY and CREATE TABLE ... PARTITION OF ... FOR VALUES, and the
//! parts of other statements that see a partitioned table (see `catalog/partition.rs`).

use sqlparser::ast::{self, CreateTable, ForValues, PartitionBoundValue};

use super::{ident_name, Binder};
use crate::catalog::partition::{
    canonical_value, key_type_supported, not_partitioned, partitions_of, PartitionBound,
    PartitionKey, PartitionOf, PartitionStrategy, RangeDatum, TypedBound,
};
use crate::catalog::{QualifiedName, TableSchema, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, LogicalPlan, OnCommitAction, SetOperator};
use crate::types::DataType;

impl Binder<'_> {
    /// PARTITION BY RANGE (col) | LIST (col) over the new table's columns; its unique keys
    /// must include the key column, and it may have no foreign keys yet.
    pub(super) fn bind_partition_key(
        &self,
        schema: &TableSchema,
        spec: &ast::Expr,
    ) -> Result<PartitionKey> {
        let ast::Expr::Function(function) = spec else {
            return Err(Error::syntax(format!("syntax error at or near \"{spec}\"")));
        };
        let strategy = match function.name.to_string().to_lowercase().as_str() {
            "range" => PartitionStrategy::Range,
            "list" => PartitionStrategy::List,
            "hash" => return Err(Error::unsupported("PARTITION BY HASH")),
            other => {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized partitioning strategy \"{other}\""),
                ))
            }
        };
        let ast::FunctionArguments::List(list) = &function.args else {
            return Err(Error::syntax(format!("syntax error at or near \"{spec}\"")));
        };
        let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(ident)))] =
            list.args.as_slice()
        else {
            return Err(Error::unsupported(
                "a partition key of several columns or an expression",
            ));
        };
        let name = ident_name(ident);
        let column = schema.column_index(&name).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!("column \"{name}\" named in partition key does not exist"),
            )
        })?;
        let ty = schema.columns[column].data_type;
        if !key_type_supported(ty) {
            return Err(Error::unsupported(format!("a partition key of type {ty}")));
        }
        for key in &schema.unique_keys {
            if !key.columns.contains(&column) {
                let kind = if key.primary { "PRIMARY KEY" } else { "UNIQUE" };
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "unique constraint on partitioned table must include all partitioning columns",
                )
                .with_detail(format!(
                    "{kind} constraint on table \"{}\" lacks column \"{name}\" which is part of the partition key.",
                    schema.name
                )));
            }
        }
        if !schema.foreign_keys.is_empty() || !schema.indexes.is_empty() {
            return Err(Error::unsupported(
                "foreign keys and indexes on a partitioned table",
            ));
        }
        Ok(PartitionKey { strategy, column })
    }

    /// CREATE TABLE name PARTITION OF parent FOR VALUES ...: the parent's columns, checks
    /// and unique keys (named for the partition), and the bound, which must not overlap a
    /// sibling's.
    pub(super) fn bind_create_partition(
        &mut self,
        qualified: QualifiedName,
        create: &CreateTable,
        parent: &ast::ObjectName,
        on_commit: Option<OnCommitAction>,
    ) -> Result<BoundStatement> {
        if !create.columns.is_empty() || !create.constraints.is_empty() {
            return Err(Error::unsupported(
                "column or constraint definitions in CREATE TABLE ... PARTITION OF",
            ));
        }
        let parent_name = self.open_relation(parent)?;
        let parent = self.table(&parent_name)?.schema.clone();
        let Some(key) = &parent.partition_key else {
            return Err(not_partitioned(&parent.name));
        };
        let name = qualified.name.clone();
        let ty = parent.columns[key.column].data_type;
        let Some(for_values) = &create.for_values else {
            return Err(Error::syntax("syntax error at end of input"));
        };
        let bound = bind_bound(key, ty, for_values)?;
        self.check_new_bound(&parent, ty, &bound, &name)?;
        let column_names: Vec<&str> = parent.columns.iter().map(|c| c.name.as_str()).collect();
        let unique_keys = (parent.unique_keys.iter())
            .map(|k| {
                let names: Vec<&str> = k.columns.iter().map(|&c| column_names[c]).collect();
                let key_name = match k.primary {
                    true => format!("{name}_pkey"),
                    false => format!("{name}_{}_key", names.join("_")),
                };
                UniqueKey {
                    name: key_name,
                    columns: k.columns.clone(),
                    primary: k.primary,
                    constraint: k.constraint,
                    constraint_comment: None,
                    index_comment: None,
                }
            })
            .collect();
        let mut schema = TableSchema {
            oid: 0,
            namespace: qualified.schema,
            name,
            columns: parent.columns.clone(),
            unique_keys,
            indexes: Vec::new(),
            constraints: parent.constraints.clone(),
            foreign_keys: Vec::new(),
            unlogged: create.unlogged,
            comment: None,
            materialized: None,
            foreign: None,
            partition_key: None,
            partition_of: Some(PartitionOf {
                parent: parent.oid,
                bound,
            }),
        };
        for column in &mut schema.columns {
            column.comment = None;
            column.identity = None;
        }
        if let Some(spec) = &create.partition_by {
            schema.partition_key = Some(self.bind_partition_key(&schema, spec)?);
        }
        Ok(BoundStatement::CreateTable {
            schema,
            if_not_exists: create.if_not_exists,
            sequences: Vec::new(),
            source: None,
            on_commit,
        })
    }

    /// 42P17 where a new partition `name` of `parent` would overlap a sibling or a second
    /// default; a new bound while the default partition holds rows is not built.
    fn check_new_bound(
        &self,
        parent: &TableSchema,
        ty: DataType,
        bound: &PartitionBound,
        name: &str,
    ) -> Result<()> {
        let typed = bound.typed(ty)?;
        typed.check_not_empty(bound, name)?;
        let tables = self.state.tables.values().map(|t| t.schema.as_ref());
        for sibling in partitions_of(tables, parent.oid) {
            let Some(of) = &sibling.partition_of else {
                continue;
            };
            let theirs = of.bound.typed(ty)?;
            match (&typed, &theirs) {
                (TypedBound::Default, TypedBound::Default) => {
                    return Err(Error::new(
                        SqlState::InvalidObjectDefinition,
                        format!(
                            "partition \"{name}\" conflicts with existing default partition \"{}\"",
                            sibling.name
                        ),
                    ))
                }
                (_, TypedBound::Default) => {
                    let holds_rows = self
                        .state
                        .tables
                        .get(&sibling.oid)
                        .is_some_and(|t| t.data.live_rows() > 0);
                    if holds_rows || sibling.partition_key.is_some() {
                        return Err(Error::unsupported(
                            "adding a partition while the default partition holds rows or is partitioned",
                        ));
                    }
                }
                _ if typed.overlaps(&theirs) => {
                    return Err(Error::new(
                        SqlState::InvalidObjectDefinition,
                        format!(
                            "partition \"{name}\" would overlap partition \"{}\"",
                            sibling.name
                        ),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The rows of table `schema`: a partitioned table's are its partitions' (and its own
    /// storage's, always empty), each read as the statement's table.
    pub(super) fn table_scan(&mut self, schema: &TableSchema) -> LogicalPlan {
        let mut plan = LogicalPlan::Scan {
            table_oid: schema.oid,
            table_name: schema.name.clone(),
            columns: (0..schema.columns.len()).collect(),
            types: schema.column_types(),
        };
        if schema.partition_key.is_none() {
            return plan;
        }
        let state = self.state;
        for partition in partitions_of(state.tables.values().map(|t| t.schema.as_ref()), schema.oid)
        {
            // Its rows decide the result too (the result cache, locks).
            self.referenced.push(partition.qualified_name());
            plan = LogicalPlan::SetOperation {
                left: Box::new(plan),
                right: Box::new(self.table_scan(partition)),
                op: SetOperator::Union,
                all: true,
            };
        }
        plan
    }
}

/// FOR VALUES ... read for a key of `key`'s strategy and type `ty`.
fn bind_bound(key: &PartitionKey, ty: DataType, for_values: &ForValues) -> Result<PartitionBound> {
    let invalid = || {
        let kind = match key.strategy {
            PartitionStrategy::Range => "range",
            PartitionStrategy::List => "list",
        };
        Error::new(
            SqlState::InvalidTableDefinition,
            format!("invalid bound specification for a {kind} partition"),
        )
    };
    match (for_values, key.strategy) {
        (ForValues::Default, _) => Ok(PartitionBound::Default),
        (ForValues::In(values), PartitionStrategy::List) => {
            let mut texts = Vec::with_capacity(values.len());
            for value in values {
                let text = match bound_value_text(value)? {
                    Some(text) => Some(canonical_value(&text, ty)?),
                    None => None,
                };
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
            Ok(PartitionBound::List(texts))
        }
        (ForValues::From { from, to }, PartitionStrategy::Range) => {
            let datum = |values: &[PartitionBoundValue], clause: &str| -> Result<RangeDatum> {
                let [value] = values else {
                    return Err(Error::new(
                        SqlState::InvalidTableDefinition,
                        format!("{clause} must specify exactly one value per partitioning column"),
                    ));
                };
                Ok(match value {
                    PartitionBoundValue::MinValue => RangeDatum::MinValue,
                    PartitionBoundValue::MaxValue => RangeDatum::MaxValue,
                    PartitionBoundValue::Expr(expr) => match bound_value_text(expr)? {
                        Some(text) => RangeDatum::Value(canonical_value(&text, ty)?),
                        None => {
                            return Err(Error::new(
                                SqlState::InvalidTableDefinition,
                                "cannot specify NULL in range bound",
                            ))
                        }
                    },
                })
            };
            Ok(PartitionBound::Range {
                from: datum(from, "FROM")?,
                to: datum(to, "TO")?,
            })
        }
        _ => Err(invalid()),
    }
}

/// The text of a bound's constant (`None` for NULL): a number, a string, a boolean, a
/// signed number; other expressions are not built.
fn bound_value_text(expr: &ast::Expr) -> Result<Option<String>> {
    match expr {
        ast::Expr::Value(value) => match &value.value {
            ast::Value::Number(n, _) => Ok(Some(n.clone())),
            ast::Value::SingleQuotedString(s) => Ok(Some(s.clone())),
            ast::Value::Boolean(b) => Ok(Some(b.to_string())),
            ast::Value::Null => Ok(None),
            _ => Err(Error::unsupported(format!(
                "the partition bound value {expr}"
            ))),
        },
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr: inner,
        } => match bound_value_text(inner)? {
            Some(text) if matches!(**inner, ast::Expr::Value(_)) => Ok(Some(format!("-{text}"))),
            _ => Err(Error::unsupported(format!(
                "the partition bound value {expr}"
            ))),
        },
        ast::Expr::Nested(inner) => bound_value_text(inner),
        _ => Err(Error::unsupported(format!(
            "the partition bound value {expr}"
        ))),
    }
}

impl Binder<'_> {
    /// The tables a DROP TABLE of `names` drops: each partitioned table's partitions
    /// (theirs first) before it, each table once.
    pub(super) fn with_partitions(&self, names: Vec<QualifiedName>) -> Vec<QualifiedName> {
        let mut all = Vec::with_capacity(names.len());
        for name in names {
            self.push_with_partitions(name, &mut all);
        }
        all
    }

    fn push_with_partitions(&self, name: QualifiedName, all: &mut Vec<QualifiedName>) {
        if let Some(entry) = self.state.table_by_name(&name) {
            if entry.schema.partition_key.is_some() {
                let tables = self.state.tables.values().map(|t| t.schema.as_ref());
                for partition in partitions_of(tables, entry.schema.oid) {
                    self.push_with_partitions(partition.qualified_name(), all);
                }
            }
        }
        if !all.contains(&name) {
            all.push(name);
        }
    }
}
