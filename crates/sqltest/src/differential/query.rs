//! Random SELECTs over [`super::schema::TABLES`]: one table or a join of two (inner, left,
//! right, full, cross), a WHERE of comparisons, NULL tests, BETWEEN, IN, LIKE and boolean
//! connectives, a select list of typed expressions (arithmetic, CASE, COALESCE, casts,
//! string functions), or GROUP BY with aggregates and HAVING, DISTINCT, subqueries, ORDER
//! BY and LIMIT. Division divides by `NULLIF(x, 0)`: which row meets a zero first is the
//! engines' business, and would only hide the answers behind an error.

use super::schema::{Type, TABLES};
use super::Random;

/// A generated query and whether its rows must come in the same order from both engines.
pub struct Query {
    pub sql: String,
    pub ordered: bool,
}

/// The columns a query can name: `alias.column` and its type.
struct Scope {
    columns: Vec<(String, Type)>,
}

impl Scope {
    fn of_type(&self, ty: Type) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(name, _)| name.as_str())
            .collect()
    }
}

const EXPRESSION_DEPTH_MAX: usize = 3;

pub fn generate(rng: &mut Random) -> Query {
    let (from, scope) = from_clause(rng);
    let mut sql = String::from("SELECT ");
    let grouped = rng.chance(35);
    let (select, column_count) = if grouped {
        grouped_select(rng, &scope)
    } else {
        plain_select(rng, &scope)
    };
    let distinct = !grouped && rng.chance(15);
    if distinct {
        sql.push_str("DISTINCT ");
    }
    sql.push_str(&select.0);
    sql.push_str(" FROM ");
    sql.push_str(&from);
    if rng.chance(60) {
        sql.push_str(" WHERE ");
        sql.push_str(&condition(rng, &scope, 0));
    }
    sql.push_str(&select.1);
    let ordered = rng.chance(50);
    if ordered {
        // Every output column, each with its own direction and NULL placement: a total
        // order of distinct rows, so equal rows are the only ties.
        let keys: Vec<String> = (1..=column_count)
            .map(|i| {
                let direction = rng.pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
                format!("{i}{direction}")
            })
            .collect();
        sql.push_str(" ORDER BY ");
        sql.push_str(&keys.join(", "));
        if rng.chance(30) {
            sql.push_str(&format!(" LIMIT {}", rng.below(6)));
            if rng.chance(30) {
                sql.push_str(&format!(" OFFSET {}", rng.below(4)));
            }
        }
    }
    Query { sql, ordered }
}

fn from_clause(rng: &mut Random) -> (String, Scope) {
    let first = rng.pick(TABLES);
    let mut scope = Scope {
        columns: Vec::new(),
    };
    let add = |scope: &mut Scope, alias: &str, table: &super::schema::Table| {
        for (name, ty) in table.columns {
            scope.columns.push((format!("{alias}.{name}"), *ty));
        }
    };
    add(&mut scope, "x", first);
    if rng.chance(40) {
        return (format!("{} x", first.name), scope);
    }
    let second = rng.pick(TABLES);
    add(&mut scope, "y", second);
    let kind = *rng.pick(&["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"]);
    let from = format!("{} x {kind} {} y", first.name, second.name);
    if kind == "CROSS JOIN" {
        return (from, scope);
    }
    // Equality on a column both tables have; an inner or one-sided join may add any
    // condition (PostgreSQL's FULL JOIN takes only hash- or merge-joinable ones).
    let shared: Vec<&str> = first
        .columns
        .iter()
        .filter(|(name, ty)| second.columns.iter().any(|(n, t)| n == name && t == ty))
        .map(|(name, _)| *name)
        .collect();
    let key = rng.pick(&shared);
    let mut on = format!("x.{key} = y.{key}");
    if kind != "FULL JOIN" && rng.chance(40) {
        on = format!("{on} AND {}", condition(rng, &scope, 1));
    }
    (format!("{from} ON {on}"), scope)
}

/// The select list and what follows WHERE (nothing), and the column count.
fn plain_select(rng: &mut Random, scope: &Scope) -> ((String, String), usize) {
    let count = 1 + rng.below(3);
    let items: Vec<String> = (0..count)
        .map(|_| {
            let ty = any_type(rng);
            expression(rng, scope, ty, 0)
        })
        .collect();
    ((items.join(", "), String::new()), count)
}

/// GROUP BY keys and aggregates; the GROUP BY (and HAVING) clause goes after WHERE.
fn grouped_select(rng: &mut Random, scope: &Scope) -> ((String, String), usize) {
    let key_count = rng.below(3);
    let keys: Vec<String> = (0..key_count)
        .map(|_| {
            let ty = any_type(rng);
            expression(rng, scope, ty, 2)
        })
        .collect();
    let aggregate_count = 1 + rng.below(3);
    let aggregates: Vec<String> = (0..aggregate_count)
        .map(|_| aggregate(rng, scope))
        .collect();
    let mut items = keys.clone();
    items.extend(aggregates);
    let mut tail = String::new();
    if !keys.is_empty() {
        let positions: Vec<String> = (1..=keys.len()).map(|i| i.to_string()).collect();
        tail = format!(" GROUP BY {}", positions.join(", "));
    }
    if rng.chance(30) {
        let threshold = rng.below(4);
        tail.push_str(&format!(" HAVING count(*) > {threshold}"));
    }
    ((items.join(", "), tail), items.len())
}

fn aggregate(rng: &mut Random, scope: &Scope) -> String {
    match rng.below(9) {
        0 => "count(*)".to_string(),
        1 => {
            let ty = any_type(rng);
            format!("count({})", expression(rng, scope, ty, 1))
        }
        2 => {
            let ty = *rng.pick(&[Type::Int, Type::BigInt, Type::Numeric, Type::Float]);
            format!("sum({})", expression(rng, scope, ty, 1))
        }
        3 => {
            let ty = *rng.pick(&[Type::Int, Type::BigInt, Type::Numeric]);
            format!("avg({})", expression(rng, scope, ty, 1))
        }
        4 | 5 => {
            let function = rng.pick(&["min", "max"]);
            let ty = *rng.pick(&[
                Type::Int,
                Type::Text,
                Type::Numeric,
                Type::Date,
                Type::Float,
            ]);
            format!("{function}({})", expression(rng, scope, ty, 1))
        }
        6 => format!("bool_and({})", condition(rng, scope, 2)),
        7 => {
            let text = expression(rng, scope, Type::Text, 2);
            format!("string_agg({text}, ',' ORDER BY {text})")
        }
        _ => {
            let ty = any_type(rng);
            format!("count(DISTINCT {})", expression(rng, scope, ty, 2))
        }
    }
}

fn any_type(rng: &mut Random) -> Type {
    *rng.pick(&[
        Type::Int,
        Type::Int,
        Type::BigInt,
        Type::Text,
        Type::Float,
        Type::Numeric,
        Type::Bool,
        Type::Date,
    ])
}

/// An expression of type `ty`.
fn expression(rng: &mut Random, scope: &Scope, ty: Type, depth: usize) -> String {
    let columns = scope.of_type(ty);
    if depth >= EXPRESSION_DEPTH_MAX || rng.chance(35) {
        return if columns.is_empty() || rng.chance(25) {
            format!("{}::{}", ty.literal(rng), ty.sql_name())
        } else {
            rng.pick(&columns).to_string()
        };
    }
    let sub = |rng: &mut Random, ty: Type| expression(rng, scope, ty, depth + 1);
    match rng.below(4) {
        0 => {
            let a = sub(rng, ty);
            let b = sub(rng, ty);
            return format!("COALESCE({a}, {b})");
        }
        1 => {
            let when = condition(rng, scope, depth + 1);
            let a = sub(rng, ty);
            let b = sub(rng, ty);
            return format!("CASE WHEN {when} THEN {a} ELSE {b} END");
        }
        _ => {}
    }
    match ty {
        Type::Int | Type::BigInt | Type::Numeric | Type::Float => {
            let a = sub(rng, ty);
            let b = sub(rng, ty);
            match rng.below(7) {
                0 => format!("({a} + {b})"),
                1 => format!("({a} - {b})"),
                2 => format!("({a} * {b})"),
                3 => format!("({a} / NULLIF({b}, 0))"),
                4 if ty != Type::Float => format!("({a} % NULLIF({b}, 0))"),
                5 => format!("abs({a})"),
                _ => {
                    let from = *rng.pick(&[Type::Int, Type::Numeric, Type::Float, Type::BigInt]);
                    format!("CAST({} AS {})", sub(rng, from), ty.sql_name())
                }
            }
        }
        Type::Text => match rng.below(5) {
            0 => format!("({} || {})", sub(rng, Type::Text), sub(rng, Type::Text)),
            1 => format!("upper({})", sub(rng, Type::Text)),
            2 => format!("substr({}, 2, 2)", sub(rng, Type::Text)),
            3 => {
                let from = any_scalar(rng);
                format!("CAST({} AS text)", sub(rng, from))
            }
            _ => format!("lower({})", sub(rng, Type::Text)),
        },
        // Parenthesized: IS NULL and the comparisons bind it differently otherwise.
        Type::Bool => format!("({})", condition(rng, scope, depth + 1)),
        Type::Date => match rng.below(2) {
            0 => format!("({} + {})", sub(rng, Type::Date), sub(rng, Type::Int)),
            _ => format!("({} - 1)", sub(rng, Type::Date)),
        },
    }
}

/// A type whose text form is the same in both engines' casts.
fn any_scalar(rng: &mut Random) -> Type {
    *rng.pick(&[
        Type::Int,
        Type::BigInt,
        Type::Numeric,
        Type::Float,
        Type::Date,
        Type::Bool,
    ])
}

/// A boolean expression.
fn condition(rng: &mut Random, scope: &Scope, depth: usize) -> String {
    let leaf = depth >= EXPRESSION_DEPTH_MAX;
    let choice = if leaf { rng.below(5) } else { rng.below(10) };
    let sub = |rng: &mut Random, ty: Type| expression(rng, scope, ty, depth + 1);
    match choice {
        0 | 1 => {
            let ty = any_comparable(rng);
            let operator = rng.pick(&["=", "<>", "<", "<=", ">", ">="]);
            format!("{} {operator} {}", sub(rng, ty), sub(rng, ty))
        }
        2 => {
            let ty = any_type(rng);
            let not = rng.pick(&["", " NOT"]);
            format!("{} IS{not} NULL", sub(rng, ty))
        }
        3 => {
            let ty = any_comparable(rng);
            let list: Vec<String> = (0..1 + rng.below(3)).map(|_| ty.literal(rng)).collect();
            let not = rng.pick(&["", "NOT "]);
            format!("{} {not}IN ({})", sub(rng, ty), list.join(", "))
        }
        4 => {
            let pattern = rng.pick(&["'a%'", "'%b'", "'_'", "'%'", "'A%'"]);
            format!("{} LIKE {pattern}", sub(rng, Type::Text))
        }
        5 => format!(
            "({} AND {})",
            condition(rng, scope, depth + 1),
            condition(rng, scope, depth + 1)
        ),
        6 => format!(
            "({} OR {})",
            condition(rng, scope, depth + 1),
            condition(rng, scope, depth + 1)
        ),
        7 => format!("NOT ({})", condition(rng, scope, depth + 1)),
        8 => {
            let ty = any_comparable(rng);
            format!(
                "{} BETWEEN {} AND {}",
                sub(rng, ty),
                sub(rng, ty),
                sub(rng, ty)
            )
        }
        _ => subquery_condition(rng, scope),
    }
}

fn any_comparable(rng: &mut Random) -> Type {
    *rng.pick(&[
        Type::Int,
        Type::BigInt,
        Type::Text,
        Type::Numeric,
        Type::Float,
        Type::Date,
    ])
}

/// IN, EXISTS (correlated) or a comparison with a scalar aggregate subquery.
fn subquery_condition(rng: &mut Random, scope: &Scope) -> String {
    let inner = rng.pick(TABLES);
    let outer_ints = scope.of_type(Type::Int);
    let outer = rng.pick(&outer_ints);
    let filter = rng.pick(&["", " WHERE z.a IS NOT NULL", " WHERE z.a > 1"]);
    match rng.below(3) {
        0 => {
            let not = rng.pick(&["", "NOT "]);
            format!("{outer} {not}IN (SELECT z.a FROM {} z{filter})", inner.name)
        }
        1 => {
            let not = rng.pick(&["", "NOT "]);
            format!(
                "{not}EXISTS (SELECT 1 FROM {} z WHERE z.a = {outer})",
                inner.name
            )
        }
        _ => {
            let function = rng.pick(&["max", "min", "count"]);
            format!(
                "{outer} < (SELECT {function}(z.a) FROM {} z{filter})",
                inner.name
            )
        }
    }
}
