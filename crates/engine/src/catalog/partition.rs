//! Declarative partitioning: a partitioned table's key (pg_partitioned_table) and each
//! partition's bound (pg_class.relpartbound). A partitioned table keeps no rows of its
//! own; its partitions are ordinary tables that name it as their parent.
//!
//! Bounds are kept as their values' output text, as PostgreSQL prints them back, and
//! read in the key's type when rows are routed or bounds compared.

use std::cmp::Ordering;

use super::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::types::text_io::{parse_text, write_scalar_text};
use crate::types::{DataType, ScalarValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionStrategy {
    Range,
    List,
}

impl PartitionStrategy {
    /// pg_partitioned_table.partstrat.
    pub fn code(self) -> char {
        match self {
            PartitionStrategy::Range => 'r',
            PartitionStrategy::List => 'l',
        }
    }

    fn keyword(self) -> &'static str {
        match self {
            PartitionStrategy::Range => "RANGE",
            PartitionStrategy::List => "LIST",
        }
    }
}

/// PARTITION BY: the strategy and the key column (one column; no expressions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionKey {
    pub strategy: PartitionStrategy,
    pub column: usize,
}

/// One end of a range bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeDatum {
    MinValue,
    MaxValue,
    Value(String),
}

/// FOR VALUES ...
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartitionBound {
    /// FROM (from) TO (to): from inclusive, to exclusive.
    Range {
        from: RangeDatum,
        to: RangeDatum,
    },
    /// IN (...): each value's text, `None` for NULL.
    List(Vec<Option<String>>),
    Default,
}

/// What makes a table a partition: its parent's OID and its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOf {
    pub parent: u32,
    pub bound: PartitionBound,
}

/// Whether a column of type `ty` may be a partition key: a type with a btree order the
/// routing compares exactly (an enum's order and json's lack of one are not built).
pub fn key_type_supported(ty: DataType) -> bool {
    matches!(
        ty,
        DataType::Bool
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Numeric(_)
            | DataType::Text
            | DataType::Varchar(_)
            | DataType::Char(_)
            | DataType::Date
            | DataType::Time(_)
            | DataType::Timestamp(_)
            | DataType::TimestampTz(_)
            | DataType::Uuid
    )
}

/// The canonical text of `text` read as a value of `ty` (its input function's errors).
pub fn canonical_value(text: &str, ty: DataType) -> Result<String> {
    let mut out = Vec::new();
    write_scalar_text(&parse_text(text, ty)?, &mut out);
    String::from_utf8(out).map_err(|_| Error::internal("a value's text is not UTF-8"))
}

/// pg_get_partkeydef: `RANGE (a)`.
pub fn key_definition(key: &PartitionKey, schema: &TableSchema) -> String {
    let column = schema
        .columns
        .get(key.column)
        .map_or("?", |c| c.name.as_str());
    format!(
        "{} ({})",
        key.strategy.keyword(),
        super::quote_identifier(column)
    )
}

/// pg_get_expr(relpartbound): `FOR VALUES FROM (1) TO (10)`, `FOR VALUES IN ('a', NULL)`,
/// `DEFAULT`.
pub fn bound_definition(bound: &PartitionBound, ty: DataType) -> String {
    let datum = |d: &RangeDatum| match d {
        RangeDatum::MinValue => "MINVALUE".to_string(),
        RangeDatum::MaxValue => "MAXVALUE".to_string(),
        RangeDatum::Value(text) => literal(text, ty),
    };
    match bound {
        PartitionBound::Range { from, to } => {
            format!("FOR VALUES FROM ({}) TO ({})", datum(from), datum(to))
        }
        PartitionBound::List(values) => {
            let values: Vec<String> = (values.iter())
                .map(|v| v.as_deref().map_or("NULL".to_string(), |t| literal(t, ty)))
                .collect();
            format!("FOR VALUES IN ({})", values.join(", "))
        }
        PartitionBound::Default => "DEFAULT".to_string(),
    }
}

/// A constant as ruleutils' get_const_expr prints it without a type label: numbers bare
/// unless negative, booleans as true/false, anything else quoted.
fn literal(text: &str, ty: DataType) -> String {
    let numeric = matches!(
        ty,
        DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Numeric(_)
    );
    if numeric && text.starts_with(|c: char| c.is_ascii_digit()) {
        return text.to_string();
    }
    if ty == DataType::Bool {
        return if text == "t" { "true" } else { "false" }.to_string();
    }
    format!("'{}'", text.replace('\'', "''"))
}

/// A bound read in the key's type.
#[derive(Debug, Clone)]
pub enum TypedBound {
    Range(TypedDatum, TypedDatum),
    List {
        values: Vec<ScalarValue>,
        null: bool,
    },
    Default,
}

#[derive(Debug, Clone)]
pub enum TypedDatum {
    MinValue,
    MaxValue,
    Value(ScalarValue),
}

impl PartitionBound {
    pub fn typed(&self, ty: DataType) -> Result<TypedBound> {
        let datum = |d: &RangeDatum| -> Result<TypedDatum> {
            Ok(match d {
                RangeDatum::MinValue => TypedDatum::MinValue,
                RangeDatum::MaxValue => TypedDatum::MaxValue,
                RangeDatum::Value(text) => TypedDatum::Value(parse_text(text, ty)?),
            })
        };
        Ok(match self {
            PartitionBound::Range { from, to } => TypedBound::Range(datum(from)?, datum(to)?),
            PartitionBound::List(values) => TypedBound::List {
                values: (values.iter().flatten())
                    .map(|t| parse_text(t, ty))
                    .collect::<Result<_>>()?,
                null: values.iter().any(Option::is_none),
            },
            PartitionBound::Default => TypedBound::Default,
        })
    }
}

/// `datum` compared with a non-NULL value.
fn compare_datum(datum: &TypedDatum, value: &ScalarValue) -> Ordering {
    match datum {
        TypedDatum::MinValue => Ordering::Less,
        TypedDatum::MaxValue => Ordering::Greater,
        TypedDatum::Value(bound) => bound.compare(value).unwrap_or(Ordering::Equal),
    }
}

/// Two range ends compared; MINVALUE and MAXVALUE equal themselves.
fn compare_datums(a: &TypedDatum, b: &TypedDatum) -> Ordering {
    let rank = |d: &TypedDatum| match d {
        TypedDatum::MinValue => 0,
        TypedDatum::Value(_) => 1,
        TypedDatum::MaxValue => 2,
    };
    match (a, b) {
        (TypedDatum::Value(x), TypedDatum::Value(y)) => x.compare(y).unwrap_or(Ordering::Equal),
        _ => rank(a).cmp(&rank(b)),
    }
}

impl TypedBound {
    /// Whether this (non-default) bound takes a row whose key is `value`.
    pub fn accepts(&self, value: &ScalarValue) -> bool {
        match self {
            TypedBound::Range(from, to) => {
                !value.is_null()
                    && compare_datum(from, value) != Ordering::Greater
                    && compare_datum(to, value) == Ordering::Greater
            }
            TypedBound::List { values, null } => match value {
                ScalarValue::Null => *null,
                value => (values.iter()).any(|v| v.compare(value) == Some(Ordering::Equal)),
            },
            TypedBound::Default => false,
        }
    }

    /// Whether a range bound holds no value: 42P17 with PostgreSQL's DETAIL.
    pub fn check_not_empty(&self, bound: &PartitionBound, name: &str) -> Result<()> {
        let (TypedBound::Range(from, to), PartitionBound::Range { from: f, to: t }) = (self, bound)
        else {
            return Ok(());
        };
        if compare_datums(from, to) == Ordering::Less {
            return Ok(());
        }
        let text = |d: &RangeDatum| match d {
            RangeDatum::MinValue => "MINVALUE".to_string(),
            RangeDatum::MaxValue => "MAXVALUE".to_string(),
            RangeDatum::Value(text) => text.clone(),
        };
        Err(Error::new(
            SqlState::InvalidObjectDefinition,
            format!("empty range bound specified for partition \"{name}\""),
        )
        .with_detail(format!(
            "Specified lower bound ({}) is greater than or equal to upper bound ({}).",
            text(f),
            text(t)
        )))
    }

    /// Whether two non-default bounds of one parent share a value.
    pub fn overlaps(&self, other: &TypedBound) -> bool {
        match (self, other) {
            (TypedBound::Range(f1, t1), TypedBound::Range(f2, t2)) => {
                compare_datums(f1, t2) == Ordering::Less && compare_datums(f2, t1) == Ordering::Less
            }
            (
                TypedBound::List {
                    values: a,
                    null: null_a,
                },
                TypedBound::List {
                    values: b,
                    null: null_b,
                },
            ) => {
                (*null_a && *null_b)
                    || a.iter()
                        .any(|x| b.iter().any(|y| x.compare(y) == Some(Ordering::Equal)))
            }
            _ => false,
        }
    }
}

/// The partitions of the table `parent` among `tables`, in creation (OID) order.
pub fn partitions_of<'a>(
    tables: impl Iterator<Item = &'a TableSchema>,
    parent: u32,
) -> Vec<&'a TableSchema> {
    let mut found: Vec<&TableSchema> = tables
        .filter(|t| t.partition_of.as_ref().is_some_and(|p| p.parent == parent))
        .collect();
    found.sort_by_key(|t| t.oid);
    found
}

/// Where rows of a partitioned table go: the partitions' bounds, read in the key's type.
pub struct Router {
    pub key_column: usize,
    bounds: Vec<TypedBound>,
    default: Option<usize>,
}

impl Router {
    /// A router over `partitions` (in the order their positions are reported) of a table
    /// partitioned by `key`, whose key column is of type `ty`.
    pub fn new(key: &PartitionKey, ty: DataType, partitions: &[&TableSchema]) -> Result<Router> {
        let mut bounds = Vec::with_capacity(partitions.len());
        let mut default = None;
        for (position, partition) in partitions.iter().enumerate() {
            let bound = match &partition.partition_of {
                Some(of) => of.bound.typed(ty)?,
                None => return Err(Error::internal("a partition without a bound")),
            };
            if matches!(bound, TypedBound::Default) {
                default = Some(position);
            }
            bounds.push(bound);
        }
        Ok(Router {
            key_column: key.column,
            bounds,
            default,
        })
    }

    /// The position of the partition a row whose key is `value` goes to.
    pub fn route(&self, value: &ScalarValue) -> Option<usize> {
        (self.bounds.iter().position(|b| b.accepts(value))).or(self.default)
    }

    /// Whether the partition at `position` takes a row whose key is `value`: its bound
    /// does, or it is the default and no other bound does.
    pub fn fits(&self, position: usize, value: &ScalarValue) -> bool {
        self.route(value) == Some(position)
    }
}

/// 42809 for PARTITION OF a table that is not partitioned.
pub fn not_partitioned(name: &str) -> Error {
    Error::new(
        SqlState::WrongObjectType,
        format!("\"{name}\" is not partitioned"),
    )
}
