//! The tables the random queries read: small (now and then empty), with every column
//! nullable, values drawn from short lists so that joins and groups meet, NULLs in one
//! value in ten to one in two (each table draws its rate, so some seeds are NULL-heavy),
//! and now and then a type's extreme value, so that arithmetic overflows (22003).

use super::Random;

/// The SQL types the generator knows; each column and expression has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Int,
    BigInt,
    Text,
    Float,
    Numeric,
    Bool,
    Date,
}

pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Type)],
}

pub const TABLES: &[Table] = &[
    Table {
        name: "t1",
        columns: &[
            ("a", Type::Int),
            ("b", Type::Int),
            ("c", Type::Text),
            ("d", Type::Float),
            ("e", Type::Numeric),
            ("f", Type::Bool),
        ],
    },
    Table {
        name: "t2",
        columns: &[
            ("a", Type::Int),
            ("b", Type::BigInt),
            ("c", Type::Text),
            ("g", Type::Date),
        ],
    },
    Table {
        name: "t3",
        columns: &[("a", Type::Int), ("c", Type::Text), ("e", Type::Numeric)],
    },
];

impl Type {
    pub fn sql_name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::BigInt => "bigint",
            Type::Text => "text",
            Type::Float => "float8",
            Type::Numeric => "numeric(8,2)",
            Type::Bool => "boolean",
            Type::Date => "date",
        }
    }

    /// A literal of this type, never NULL. Floats are exact binary fractions, so sums
    /// do not depend on the order rows are added in.
    pub fn literal(self, rng: &mut Random) -> String {
        match self {
            Type::Int => rng
                .pick(&["0", "1", "2", "3", "-1", "5", "7", "10"])
                .to_string(),
            Type::BigInt => rng
                .pick(&["0", "1", "4", "-3", "100", "9000000000"])
                .to_string(),
            Type::Text => rng
                .pick(&["'a'", "'b'", "'ab'", "'B'", "' x'", "''", "'abc'", "'zz'"])
                .to_string(),
            Type::Float => rng
                .pick(&["0.5", "-1.5", "2.25", "3", "1e10", "-0.25"])
                .to_string(),
            Type::Numeric => rng
                .pick(&["1.50", "-2.25", "0.00", "3.10", "10.05", "7"])
                .to_string(),
            Type::Bool => rng.pick(&["true", "false"]).to_string(),
            Type::Date => rng
                .pick(&[
                    "'2024-01-01'",
                    "'2024-02-29'",
                    "'1999-12-31'",
                    "'2024-01-03'",
                ])
                .to_string(),
        }
    }

    /// The largest or smallest value of the type, where one overflows arithmetic (quoted
    /// where a sign would apply after the cast).
    fn extreme(self, rng: &mut Random) -> Option<&'static str> {
        match self {
            Type::Int => Some(*rng.pick(&["2147483647", "'-2147483648'"])),
            Type::BigInt => Some(*rng.pick(&["9223372036854775807", "'-9223372036854775808'"])),
            Type::Numeric => Some("999999.99"),
            Type::Float => Some("'-1e308'"),
            Type::Text | Type::Bool | Type::Date => None,
        }
    }
}

/// CREATE TABLE and INSERT statements for every table, with `rows` rows each at most.
pub fn setup_sql(rng: &mut Random) -> Vec<String> {
    let mut statements = Vec::new();
    for table in TABLES {
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|(name, ty)| format!("{name} {}", ty.sql_name()))
            .collect();
        statements.push(format!(
            "CREATE TABLE {} ({})",
            table.name,
            columns.join(", ")
        ));
        let row_count = match rng.chance(8) {
            true => 0,
            false => 8 + rng.below(12),
        };
        let null_percent = *rng.pick(&[10, 20, 20, 50]);
        let rows: Vec<String> = (0..row_count)
            .map(|_| {
                let values: Vec<String> = table
                    .columns
                    .iter()
                    .map(|(_, ty)| {
                        if rng.chance(null_percent) {
                            return "NULL".to_string();
                        }
                        let value = match ty.extreme(rng) {
                            Some(extreme) if rng.chance(3) => extreme.to_string(),
                            _ => ty.literal(rng),
                        };
                        format!("{value}::{}", ty.sql_name())
                    })
                    .collect();
                format!("({})", values.join(", "))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        statements.push(format!(
            "INSERT INTO {} VALUES {}",
            table.name,
            rows.join(", ")
        ));
    }
    statements
}
