//! SQLancer's oracles, which need no reference engine: a query and a rewriting of it that
//! must give the same rows on the engine itself.
//!
//! - Ternary logic partitioning (TLP): every row makes a predicate `p` true, false or NULL,
//!   so a query's rows are the UNION ALL of the same query `WHERE p`, `WHERE NOT (p)` and
//!   `WHERE (p) IS NULL` (UNION for DISTINCT), and an aggregate over them combines the
//!   partitions' aggregates (a count is the sum of the counts, a minimum the least minimum).
//! - Non-optimizing reference (NoREC): `count(*) ... WHERE p`, which the optimizer may push
//!   into scans and joins, equals the sum of `CASE WHEN p THEN 1 ELSE 0 END` over every
//!   row, which it cannot.

use super::query::{condition, expression, from_clause, plain_select};
use super::schema::Type;
use super::Random;

/// Two queries whose rows must be the same multiset.
pub struct Pair {
    pub oracle: &'static str,
    pub original: String,
    pub rewritten: String,
}

pub fn generate(rng: &mut Random) -> Pair {
    let (from, scope) = from_clause(rng);
    let p = condition(rng, &scope, 0);
    let partitions = |select: &str| {
        [
            format!("{select} FROM {from} WHERE {p}"),
            format!("{select} FROM {from} WHERE NOT ({p})"),
            format!("{select} FROM {from} WHERE ({p}) IS NULL"),
        ]
    };
    match rng.below(4) {
        0 => {
            // No window functions: they would see each partition alone.
            let ((items, _), _) = plain_select(rng, &scope, false);
            let select = format!("SELECT {items}");
            Pair {
                oracle: "TLP where",
                original: format!("{select} FROM {from}"),
                rewritten: partitions(&select).join(" UNION ALL "),
            }
        }
        1 => {
            let ((items, _), _) = plain_select(rng, &scope, false);
            let select = format!("SELECT DISTINCT {items}");
            Pair {
                oracle: "TLP distinct",
                original: format!("{select} FROM {from}"),
                rewritten: partitions(&select).join(" UNION "),
            }
        }
        2 => {
            let (function, combine) = *rng.pick(&[
                ("count", "sum"),
                ("sum", "sum"),
                ("min", "min"),
                ("max", "max"),
            ]);
            let ty = match function {
                "sum" => *rng.pick(&[Type::Int, Type::BigInt, Type::Numeric]),
                _ => *rng.pick(&[
                    Type::Int,
                    Type::Text,
                    Type::Numeric,
                    Type::Date,
                    Type::Float,
                ]),
            };
            let select = format!("SELECT {function}({}) AS v", expression(rng, &scope, ty, 1));
            Pair {
                oracle: "TLP aggregate",
                original: format!("{select} FROM {from}"),
                rewritten: format!(
                    "SELECT {combine}(v) FROM ({}) AS partitions",
                    partitions(&select).join(" UNION ALL ")
                ),
            }
        }
        _ => Pair {
            oracle: "NoREC",
            original: format!("SELECT count(*) FROM {from} WHERE {p}"),
            rewritten: format!(
                "SELECT COALESCE(sum(CASE WHEN {p} THEN 1 ELSE 0 END), 0) FROM {from}"
            ),
        },
    }
}
