//! Whether two engines gave the same answer to a query: the same rows (in the same order
//! when the query fixes it, as multisets otherwise) or errors of the same SQLSTATE class.
//! Values that sort as equal may still print differently (NUMERIC `0.00` and `0.0000`,
//! float `-0` and `0`), and their order is not fixed: the order is compared on values with
//! such trailing zeros and signs dropped. Floats agree to 12 significant digits: a float sum
//! or average depends on the order its rows are added in, which no query fixes.

use std::fmt;

use crate::format::SqlError;

/// One engine's answer: rows of values in sqllogictest's cell format, or an error.
pub type Answer = Result<Vec<Vec<String>>, SqlError>;

/// How two answers differ.
pub enum Difference {
    Rows,
    Errors,
    OnlyOneFailed,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Difference::Rows => "different rows",
            Difference::Errors => "errors of different SQLSTATE classes",
            Difference::OnlyOneFailed => "only one engine failed",
        })
    }
}

pub fn compare(kestrel: &Answer, postgres: &Answer, ordered: bool) -> Option<Difference> {
    match (kestrel, postgres) {
        (Ok(ours), Ok(theirs)) => {
            let same_order = !ordered || same_rows(ours.iter(), theirs.iter());
            let same = same_order
                && ours.len() == theirs.len()
                && same_rows(sorted(ours).into_iter(), sorted(theirs).into_iter());
            (!same).then_some(Difference::Rows)
        }
        (Err(ours), Err(theirs)) => (class(ours) != class(theirs)).then_some(Difference::Errors),
        _ => Some(Difference::OnlyOneFailed),
    }
}

/// Whether two series of rows are equal row by row, values compared by [`same_value`].
fn same_rows<'a>(
    mut ours: impl ExactSizeIterator<Item = &'a Vec<String>>,
    mut theirs: impl ExactSizeIterator<Item = &'a Vec<String>>,
) -> bool {
    ours.len() == theirs.len()
        && ours.all(|a| {
            theirs.next().is_some_and(|b| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
            })
        })
}

/// Equal as printed, as numbers once trailing zeros are dropped, or as floats to 12
/// significant digits.
fn same_value(ours: &str, theirs: &str) -> bool {
    if sort_key(ours) == sort_key(theirs) {
        return true;
    }
    // Two integers count to the last digit; a float may print as one (-24 for
    // -23.999999999999996).
    let fraction = |value: &str| value.contains(['.', 'e']);
    if !fraction(ours) && !fraction(theirs) {
        return false;
    }
    match (float(ours), float(theirs)) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
        _ => false,
    }
}

fn float(value: &str) -> Option<f64> {
    value
        .parse::<f64>()
        .ok()
        .filter(|number| number.is_finite())
}

/// A decimal number without its trailing fractional zeros, zero without its sign; any
/// other value as it is.
fn sort_key(value: &str) -> &str {
    if value == "-0" {
        return "0";
    }
    let digits = value.strip_prefix('-').unwrap_or(value);
    match digits.split_once('.') {
        Some((whole, fraction))
            if !whole.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && fraction.bytes().all(|b| b.is_ascii_digit()) =>
        {
            value.trim_end_matches('0').trim_end_matches('.')
        }
        _ => value,
    }
}

fn sort_keys(row: &[String]) -> Vec<&str> {
    row.iter().map(|value| sort_key(value)).collect()
}

/// The rows in the order of their values' sort keys, so that equal multisets line up.
fn sorted(rows: &[Vec<String>]) -> Vec<&Vec<String>> {
    let mut rows: Vec<&Vec<String>> = rows.iter().collect();
    rows.sort_by(|a, b| sort_keys(a).cmp(&sort_keys(b)));
    rows
}

/// The first two characters of the SQLSTATE: 22 (data exception), 42 (syntax or access
/// rule), ...; none for a failure that did not come from the database.
fn class(error: &SqlError) -> Option<&str> {
    error.sqlstate.as_deref().and_then(|code| code.get(..2))
}

/// Whether the answer is an error of SQLSTATE class 22 (overflow, division by zero, bad
/// input): one that depends on which rows an engine evaluates.
pub fn data_exception(answer: &Answer) -> bool {
    matches!(answer, Err(error) if class(error) == Some("22"))
}

/// An answer as a report shows it.
pub fn describe(answer: &Answer) -> String {
    match answer {
        Ok(rows) => {
            let lines: Vec<String> = rows.iter().map(|row| row.join(" ")).collect();
            format!("{} rows\n    {}", rows.len(), lines.join("\n    "))
        }
        Err(error) => format!("error: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[&[&str]]) -> Answer {
        Ok(values
            .iter()
            .map(|row| row.iter().map(|v| v.to_string()).collect())
            .collect())
    }

    fn error(code: &str) -> Answer {
        Err(SqlError {
            message: "failed".to_string(),
            sqlstate: Some(code.to_string()),
        })
    }

    #[test]
    fn order_counts_only_when_the_query_fixes_it() {
        let (a, b) = (rows(&[&["1"], &["2"]]), rows(&[&["2"], &["1"]]));
        assert!(compare(&a, &b, false).is_none());
        assert!(matches!(compare(&a, &b, true), Some(Difference::Rows)));
        let duplicated = rows(&[&["1"], &["1"], &["2"]]);
        assert!(compare(&a, &duplicated, false).is_some());
    }

    #[test]
    fn equal_numbers_may_come_in_either_order() {
        let a = rows(&[&["0.00"], &["0.0000"], &["1.5"]]);
        let b = rows(&[&["0.0000"], &["0.00"], &["1.5"]]);
        assert!(compare(&a, &b, true).is_none());
        let c = rows(&[&["1.5"], &["0.0000"], &["0.00"]]);
        assert!(compare(&a, &c, true).is_some());
        assert_eq!(sort_key("10.500"), "10.5");
        assert_eq!(sort_key("-0.00"), "-0");
        assert_eq!(sort_key("100"), "100");
        assert_eq!(sort_key("-0"), "0");
        assert_eq!(sort_key("a.10"), "a.10");
    }

    #[test]
    fn floats_agree_to_twelve_digits() {
        let a = rows(&[&["14.222222222222221", "1"]]);
        let b = rows(&[&["14.222222222222223", "1"]]);
        assert!(compare(&a, &b, true).is_none());
        assert!(compare(&rows(&[&["14.2223"]]), &rows(&[&["14.2222"]]), false).is_some());
        // Integers count to the last digit.
        assert!(compare(
            &rows(&[&["-24"]]),
            &rows(&[&["-23.999999999999996"]]),
            false
        )
        .is_none());
        let big = rows(&[&["9000000000000000001"]]);
        assert!(compare(&big, &rows(&[&["9000000000000000000"]]), false).is_some());
    }

    #[test]
    fn errors_compare_by_class() {
        assert!(compare(&error("22012"), &error("22003"), false).is_none());
        assert!(compare(&error("22012"), &error("42883"), false).is_some());
        assert!(compare(&error("22012"), &rows(&[]), false).is_some());
    }
}
