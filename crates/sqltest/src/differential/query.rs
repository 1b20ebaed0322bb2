//! Random SELECTs over [`super::schema::TABLES`]: one table or a join of two or three (inner,
//! left, right, full, cross; on ON conditions over both sides and constants, USING or
//! NATURAL; the joined one possibly a grouped derived table), a WHERE of comparisons, NULL
//! tests, BETWEEN, IN (lists with NULL), LIKE, subqueries (IN, NOT IN, EXISTS, ANY, ALL,
//! correlated or not, scalar) and boolean connectives, a select list of typed expressions
//! (arithmetic mixing integer, NUMERIC and float, CASE, COALESCE, NULLIF, casts, rounding,
//! string functions, date arithmetic with integers and intervals, correlated scalar
//! subqueries) and window functions, or GROUP BY (plain, ROLLUP, CUBE or GROUPING SETS)
//! with aggregates and HAVING, DISTINCT, DISTINCT ON, set operations, ORDER BY with LIMIT,
//! and FETCH FIRST ... WITH TIES. Division divides by `NULLIF(x, 0)`: which row meets a
//! zero first is the engines' business, and would only hide the answers behind an error.

use super::schema::{Type, TABLES};
use super::Random;

/// A generated query and whether its rows must come in the same order from both engines.
pub struct Query {
    pub sql: String,
    pub ordered: bool,
}

/// The columns a query can name: `alias.column` and its type.
pub(super) struct Scope {
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
    if rng.chance(10) {
        return set_operation(rng);
    }
    let (from, scope) = from_clause(rng);
    let mut sql = String::from("SELECT ");
    let grouped = rng.chance(35);
    let (select, column_count, grouping_sets) = if grouped {
        grouped_select(rng, &scope)
    } else {
        let (select, count) = plain_select(rng, &scope, true);
        (select, count, false)
    };
    let distinct = !grouped && rng.chance(15);
    // DISTINCT ON the first column keeps each group's first row in an ORDER BY of every
    // column: the same rows whichever engine.
    let distinct_on = !grouped && !distinct && rng.chance(8);
    if distinct {
        sql.push_str("DISTINCT ");
    } else if distinct_on {
        sql.push_str("DISTINCT ON (1) ");
    }
    sql.push_str(&select.0);
    sql.push_str(" FROM ");
    sql.push_str(&from);
    if rng.chance(60) {
        sql.push_str(" WHERE ");
        sql.push_str(&condition(rng, &scope, 0));
    }
    sql.push_str(&select.1);
    // PostgreSQL drops a sort key that is a constant of the select list, though grouping
    // sets make it NULL in some rows: such queries would sort differently for that alone.
    if grouping_sets {
        return Query {
            sql,
            ordered: false,
        };
    }
    if !distinct && !distinct_on && rng.chance(10) {
        // The first column's ties with the last row come too: the same rows in any order.
        let direction = rng.pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
        let count = 1 + rng.below(4);
        sql.push_str(&format!(
            " ORDER BY 1{direction} FETCH FIRST {count} ROWS WITH TIES"
        ));
        return Query {
            sql,
            ordered: false,
        };
    }
    let ordered = distinct_on || rng.chance(50);
    if ordered {
        sql.push_str(&order_by_every_column(rng, column_count));
    }
    Query { sql, ordered }
}

/// ORDER BY every output column, each with its own direction and NULL placement (a total
/// order of distinct rows, so equal rows are the only ties), sometimes with LIMIT and OFFSET.
fn order_by_every_column(rng: &mut Random, column_count: usize) -> String {
    let keys: Vec<String> = (1..=column_count)
        .map(|i| {
            let direction = rng.pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
            format!("{i}{direction}")
        })
        .collect();
    let mut sql = format!(" ORDER BY {}", keys.join(", "));
    if rng.chance(30) {
        sql.push_str(&format!(" LIMIT {}", rng.below(6)));
        if rng.chance(30) {
            sql.push_str(&format!(" OFFSET {}", rng.below(4)));
        }
    }
    sql
}

/// Two SELECTs of the same column types combined by UNION, INTERSECT or EXCEPT.
fn set_operation(rng: &mut Random) -> Query {
    let types: Vec<Type> = (0..1 + rng.below(2))
        .map(|_| {
            *rng.pick(&[
                Type::Int,
                Type::BigInt,
                Type::Text,
                Type::Numeric,
                Type::Date,
            ])
        })
        .collect();
    let side = |rng: &mut Random| {
        let (from, scope) = from_clause(rng);
        let items: Vec<String> = types
            .iter()
            .map(|ty| expression(rng, &scope, *ty, 1))
            .collect();
        let mut sql = format!("SELECT {} FROM {from}", items.join(", "));
        if rng.chance(50) {
            sql.push_str(" WHERE ");
            sql.push_str(&condition(rng, &scope, 1));
        }
        sql
    };
    let left = side(rng);
    let right = side(rng);
    let op = rng.pick(&["UNION", "INTERSECT", "EXCEPT"]);
    let all = rng.pick(&["", " ALL"]);
    let mut sql = format!("{left} {op}{all} {right}");
    let ordered = rng.chance(50);
    if ordered {
        sql.push_str(&order_by_every_column(rng, types.len()));
    }
    Query { sql, ordered }
}

pub(super) fn from_clause(rng: &mut Random) -> (String, Scope) {
    let first = rng.pick(TABLES);
    let mut scope = Scope {
        columns: Vec::new(),
    };
    add_columns(&mut scope, "x", first.columns);
    if rng.chance(40) {
        return (format!("{} x", first.name), scope);
    }
    let mut from = format!("{} x", first.name);
    join(rng, &mut from, &mut scope, "y");
    if rng.chance(30) {
        join(rng, &mut from, &mut scope, "w");
    }
    (from, scope)
}

fn add_columns(scope: &mut Scope, alias: &str, columns: &[(&str, Type)]) {
    for (name, ty) in columns {
        scope.columns.push((format!("{alias}.{name}"), *ty));
    }
}

/// The columns of the grouped derived table [`derived_table`] makes.
const DERIVED_COLUMNS: &[(&str, Type)] =
    &[("a", Type::Int), ("n", Type::BigInt), ("c", Type::Text)];

/// A table, or now and then a grouped derived table, joined to `from` as `alias`: on an
/// equality of a column it shares with one already there, and any condition besides (for
/// FULL JOIN, which PostgreSQL takes only with a hash- or merge-joinable condition, a
/// comparison of both sides or of one with a constant); the first join also by USING or
/// NATURAL, whose columns are then unambiguous on the left.
fn join(rng: &mut Random, from: &mut String, scope: &mut Scope, alias: &str) {
    let (item, columns) = if rng.chance(20) {
        (derived_table(rng), DERIVED_COLUMNS)
    } else {
        let table = rng.pick(TABLES);
        (table.name.to_string(), table.columns)
    };
    let kind = *rng.pick(&["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"]);
    // On a column of the same name and type as one already there (every table, and the
    // derived one, has the integer `a`).
    let mut shared = Vec::new();
    for (name, ty) in columns {
        for (column, t) in &scope.columns {
            if t == ty && column.ends_with(&format!(".{name}")) {
                shared.push(format!("{column} = {alias}.{name}"));
            }
        }
    }
    let first_join = scope.columns.iter().all(|(name, _)| name.starts_with("x."));
    add_columns(scope, alias, columns);
    if kind == "CROSS JOIN" {
        from.push_str(&format!(" {kind} {item} {alias}"));
        return;
    }
    if first_join && rng.chance(25) {
        match rng.chance(50) {
            true => from.push_str(&format!(" {kind} {item} {alias} USING (a)")),
            false => from.push_str(&format!(" NATURAL {kind} {item} {alias}")),
        }
        return;
    }
    from.push_str(&format!(" {kind} {item} {alias}"));
    let mut on = rng.pick(&shared).clone();
    if rng.chance(40) {
        let more = match kind {
            "FULL JOIN" => {
                let ty = *rng.pick(&[Type::Int, Type::Text]);
                let operator = rng.pick(&["=", "<>", "<", ">="]);
                let left = expression(rng, scope, ty, EXPRESSION_DEPTH_MAX);
                let right = expression(rng, scope, ty, EXPRESSION_DEPTH_MAX);
                format!("{left} {operator} {right}")
            }
            _ => condition(rng, scope, 1),
        };
        on = format!("{on} AND {more}");
    }
    from.push_str(&format!(" ON {on}"));
}

/// `(SELECT z.a, count(*), max(z.c) FROM t z [WHERE ...] GROUP BY z.a)`.
fn derived_table(rng: &mut Random) -> String {
    let table = rng.pick(TABLES);
    let filter = rng.pick(&["", " WHERE z.a IS NOT NULL", " WHERE z.a > 1"]);
    format!(
        "(SELECT z.a, count(*) AS n, max(z.c) AS c FROM {} z{filter} GROUP BY z.a)",
        table.name
    )
}

/// The select list and what follows WHERE (nothing), and the column count.
pub(super) fn plain_select(
    rng: &mut Random,
    scope: &Scope,
    windows: bool,
) -> ((String, String), usize) {
    let count = 1 + rng.below(3);
    let mut items: Vec<String> = (0..count)
        .map(|_| {
            let ty = any_type(rng);
            expression(rng, scope, ty, 0)
        })
        .collect();
    if windows && rng.chance(20) {
        items.push(window_call(rng, scope));
    }
    let count = items.len();
    ((items.join(", "), String::new()), count)
}

/// A window function whose values do not depend on how ties are broken: aggregates over a
/// whole partition or a RANGE frame (peers enter together), rank and dense_rank.
fn window_call(rng: &mut Random, scope: &Scope) -> String {
    let partition = match rng.chance(70) {
        true => {
            let ty = any_comparable(rng);
            format!("PARTITION BY {}", expression(rng, scope, ty, 2))
        }
        false => String::new(),
    };
    let order = |rng: &mut Random| {
        let ty = any_comparable(rng);
        let direction = rng.pick(&["", " DESC", " NULLS FIRST", " DESC NULLS LAST"]);
        format!(" ORDER BY {}{direction}", expression(rng, scope, ty, 2))
    };
    match rng.below(5) {
        0 => format!("count(*) OVER ({partition})"),
        1 => {
            let ty = *rng.pick(&[Type::Int, Type::BigInt, Type::Numeric, Type::Float]);
            let value = expression(rng, scope, ty, 2);
            let order = match rng.chance(50) {
                true => order(rng),
                false => String::new(),
            };
            format!("sum({value}) OVER ({partition}{order})")
        }
        2 => {
            let function = rng.pick(&["min", "max"]);
            let ty = *rng.pick(&[Type::Int, Type::Text, Type::Numeric, Type::Date]);
            let value = expression(rng, scope, ty, 2);
            format!("{function}({value}) OVER ({partition}{})", order(rng))
        }
        3 => format!(
            "avg({}) OVER ({partition})",
            expression(rng, scope, Type::Int, 2)
        ),
        _ => {
            let function = rng.pick(&["rank", "dense_rank"]);
            format!("{function}() OVER ({partition}{})", order(rng))
        }
    }
}

/// GROUP BY keys and aggregates; the GROUP BY (and HAVING) clause goes after WHERE. Also
/// says whether it groups by ROLLUP, CUBE or GROUPING SETS.
fn grouped_select(rng: &mut Random, scope: &Scope) -> ((String, String), usize, bool) {
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
    let mut grouping_sets = false;
    if !keys.is_empty() {
        let positions: Vec<String> = (1..=keys.len()).map(|i| i.to_string()).collect();
        let positions = positions.join(", ");
        tail = match rng.below(6) {
            0 => format!(" GROUP BY ROLLUP ({positions})"),
            1 => format!(" GROUP BY CUBE ({positions})"),
            2 => format!(" GROUP BY GROUPING SETS (({positions}), (1), ())"),
            _ => format!(" GROUP BY {positions}"),
        };
        grouping_sets = !tail.starts_with(" GROUP BY 1");
    }
    if rng.chance(30) {
        let threshold = rng.below(4);
        tail.push_str(&format!(" HAVING count(*) > {threshold}"));
    } else if rng.chance(15) {
        let ty = *rng.pick(&[Type::Int, Type::Numeric, Type::Text]);
        let function = rng.pick(&["min", "max"]);
        let value = expression(rng, scope, ty, 2);
        let operator = rng.pick(&["=", "<>", "<", ">="]);
        let literal = ty.literal(rng);
        tail.push_str(&format!(
            " HAVING {function}({value}) {operator} {literal} OR count(*) = 1"
        ));
    }
    ((items.join(", "), tail), items.len(), grouping_sets)
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
pub(super) fn expression(rng: &mut Random, scope: &Scope, ty: Type, depth: usize) -> String {
    let columns = scope.of_type(ty);
    if depth >= EXPRESSION_DEPTH_MAX || rng.chance(35) {
        return if columns.is_empty() || rng.chance(25) {
            format!("{}::{}", ty.literal(rng), ty.sql_name())
        } else {
            rng.pick(&columns).to_string()
        };
    }
    let sub = |rng: &mut Random, ty: Type| expression(rng, scope, ty, depth + 1);
    match rng.below(5) {
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
        2 if rng.chance(30) => {
            let a = sub(rng, ty);
            let b = sub(rng, ty);
            return match rng.chance(50) {
                true => format!("NULLIF({a}, {b})"),
                // The simple CASE: an equality with each WHEN value, no ELSE is NULL.
                false => format!(
                    "CASE {a} WHEN {b} THEN {} WHEN {} THEN {} END",
                    sub(rng, ty),
                    sub(rng, ty),
                    sub(rng, ty)
                ),
            };
        }
        _ => {}
    }
    match ty {
        Type::Int | Type::BigInt if rng.chance(15) => match rng.below(5) {
            0 => format!("length({})", sub(rng, Type::Text)),
            1 => format!("strpos({}, 'b')", sub(rng, Type::Text)),
            2 => format!("({} - {})", sub(rng, Type::Date), sub(rng, Type::Date)),
            3 => format!(
                "CAST(CAST({} AS int) AS {})",
                sub(rng, Type::Bool),
                ty.sql_name()
            ),
            _ => correlated_scalar(rng, scope, ty),
        },
        Type::Numeric if rng.chance(10) => match rng.below(4) {
            0 => format!("extract(day FROM {})", sub(rng, Type::Date)),
            1 => format!("round({}, 1)", sub(rng, Type::Numeric)),
            2 => format!("trunc({})", sub(rng, Type::Numeric)),
            _ => format!("ceil({})", sub(rng, Type::Numeric)),
        },
        Type::Float if rng.chance(10) => match rng.below(4) {
            0 => format!("floor({})", sub(rng, Type::Float)),
            1 => format!("sign({})", sub(rng, Type::Float)),
            2 => format!("round({})", sub(rng, Type::Float)),
            _ => format!("sqrt(abs({}))", sub(rng, Type::Float)),
        },
        // An operand of another numeric type: PostgreSQL's promotion (integer to NUMERIC
        // to float) decides the result type.
        Type::Numeric | Type::Float if rng.chance(15) => {
            let (other, op) = match ty {
                Type::Numeric => (
                    *rng.pick(&[Type::Int, Type::BigInt]),
                    *rng.pick(&["+", "*", "-"]),
                ),
                _ => (
                    *rng.pick(&[Type::Numeric, Type::Int]),
                    *rng.pick(&["+", "*", "-"]),
                ),
            };
            let (a, b) = (sub(rng, ty), sub(rng, other));
            match rng.chance(50) {
                true => format!("({a} {op} {b})"),
                false => format!("({b} {op} {a})"),
            }
        }
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
        Type::Text if rng.chance(15) => match rng.below(5) {
            0 => format!("split_part({}, 'b', 2)", sub(rng, Type::Text)),
            1 => format!("initcap({})", sub(rng, Type::Text)),
            2 => format!("repeat({}, 2)", sub(rng, Type::Text)),
            3 => format!("to_char({}, 'YYYY-MM-DD Dy')", sub(rng, Type::Date)),
            _ => format!("translate({}, 'ab', 'B')", sub(rng, Type::Text)),
        },
        Type::Text => match rng.below(12) {
            0 => format!("({} || {})", sub(rng, Type::Text), sub(rng, Type::Text)),
            1 => format!("upper({})", sub(rng, Type::Text)),
            2 => format!("substr({}, 2, 2)", sub(rng, Type::Text)),
            3 => {
                let from = any_scalar(rng);
                format!("CAST({} AS text)", sub(rng, from))
            }
            4 => format!("replace({}, 'a', 'xy')", sub(rng, Type::Text)),
            5 => format!("trim({})", sub(rng, Type::Text)),
            6 => format!(
                "left({}, {})",
                sub(rng, Type::Text),
                rng.pick(&["1", "2", "-1"])
            ),
            7 => format!(
                "right({}, {})",
                sub(rng, Type::Text),
                rng.pick(&["1", "2", "-1"])
            ),
            8 => format!("lpad({}, 3, '*')", sub(rng, Type::Text)),
            9 => format!("concat({}, {})", sub(rng, Type::Text), sub(rng, Type::Int)),
            10 => format!("reverse({})", sub(rng, Type::Text)),
            _ => format!("lower({})", sub(rng, Type::Text)),
        },
        // Parenthesized: IS NULL and the comparisons bind it differently otherwise.
        Type::Bool => format!("({})", condition(rng, scope, depth + 1)),
        Type::Date => match rng.below(5) {
            0 => format!("({} + {})", sub(rng, Type::Date), sub(rng, Type::Int)),
            1 => format!(
                "CAST({} + interval '{}' AS date)",
                sub(rng, Type::Date),
                rng.pick(&["1 month", "-1 year", "1 day 25 hours", "2 mons -3 days"])
            ),
            2 => format!(
                "CAST(date_trunc('{}', {}) AS date)",
                rng.pick(&["month", "year", "week"]),
                sub(rng, Type::Date)
            ),
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
pub(super) fn condition(rng: &mut Random, scope: &Scope, depth: usize) -> String {
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
            let mut list: Vec<String> = (0..1 + rng.below(3)).map(|_| ty.literal(rng)).collect();
            if rng.chance(15) {
                list.push("NULL".to_string());
            }
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

/// A scalar aggregate subquery correlated on an integer column of the query: a count
/// (bigint) or the greatest `a` (integer) of a table's rows related to it.
fn correlated_scalar(rng: &mut Random, scope: &Scope, ty: Type) -> String {
    let inner = rng.pick(TABLES);
    let outer_ints = scope.of_type(Type::Int);
    let outer = rng.pick(&outer_ints);
    let relation = rng.pick(&["=", "<", "<>"]);
    let value = match ty {
        Type::BigInt => "count(*)",
        _ => "max(z.a)",
    };
    format!(
        "(SELECT {value} FROM {} z WHERE z.a {relation} {outer})",
        inner.name
    )
}

/// IN (correlated or not), EXISTS (correlated), ANY / ALL or a comparison with a scalar
/// aggregate subquery; the subqueries' `z.a` may hold NULLs unless filtered.
fn subquery_condition(rng: &mut Random, scope: &Scope) -> String {
    let inner = rng.pick(TABLES);
    let outer_ints = scope.of_type(Type::Int);
    let outer = rng.pick(&outer_ints);
    let filter = rng.pick(&[
        "",
        " WHERE z.a IS NOT NULL",
        " WHERE z.a > 1",
        " WHERE z.a > 100",
    ]);
    match rng.below(5) {
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
        2 => {
            let operator = rng.pick(&["=", "<>", "<", ">="]);
            let quantifier = rng.pick(&["ANY", "ALL"]);
            format!(
                "{outer} {operator} {quantifier} (SELECT z.a FROM {} z{filter})",
                inner.name
            )
        }
        3 => {
            // Correlated on a second column, so each outer row sees its own set.
            let not = rng.pick(&["", "NOT "]);
            let texts = scope.of_type(Type::Text);
            match texts.is_empty() {
                true => format!("{outer} {not}IN (SELECT z.a FROM {} z{filter})", inner.name),
                false => format!(
                    "{outer} {not}IN (SELECT z.a FROM {} z WHERE z.c = {})",
                    inner.name,
                    rng.pick(&texts)
                ),
            }
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
