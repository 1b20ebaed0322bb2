//! Functions and operators over plain one-dimensional arrays (the others go through
//! [`super::array_shaped`]): the `ARRAY[...]` constructor,
//! subscripts and slices, `array_length` and friends, `array_position(s)`,
//! `array_to_string`/`string_to_array`, `array_append`/`prepend`/`cat` (and `||`), the
//! containment operators `@>`, `<@`, `&&`, and `x op ANY/ALL (array)`.
//!
//! Arrays are a slow path: each row's elements are pulled out as [`ScalarValue`]s. Element
//! equality is PostgreSQL's: NULL elements never match a value, except in
//! `array_position(s)`, which looks NULL up with IS NOT DISTINCT FROM.

use std::cmp::Ordering;

use super::pattern::RegexCache;
use super::{array_assign, array_shaped};
use crate::error::{Error, Result, SqlState};
use crate::function::like::LikePattern;
use crate::plan::CompareOp;
use crate::types::{text_io, DataType, ScalarValue};
use crate::vector::Vector;

/// The pattern language of a quantified match ([`ArrayFunction::QuantifiedMatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternSyntax {
    /// LIKE's `%` and `_`.
    Like,
    /// POSIX regular expressions, as `~`.
    Regex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayFunction {
    /// `ARRAY[a, b, ...]` over elements of one type.
    Construct,
    /// `ARRAY[a, b, ...]` over arrays: one dimension more than they have.
    Nest,
    /// `a[i]`, `a[i][j]`, ...: one index argument per subscript.
    Subscript,
    /// `a[i:j]`, `a[i:j][k:l]`, ... over `dims` subscripts. Bit `d` of `lower` (`upper`)
    /// says subscript `d` has that bound, which is then among the arguments, in order;
    /// without it the array's own bound applies.
    Slice {
        dims: u8,
        lower: u8,
        upper: u8,
    },
    Length,
    Cardinality,
    Upper,
    Lower,
    Ndims,
    Dims,
    Position,
    Positions,
    ToString,
    StringToArray,
    Append,
    Prepend,
    Cat,
    /// `@>`.
    Contains,
    /// `<@`.
    ContainedBy,
    /// `&&`.
    Overlap,
    /// `x op ANY (a)` or, with `all`, `x op ALL (a)`.
    Quantified {
        op: CompareOp,
        all: bool,
    },
    /// `x [NOT] [I]LIKE ANY (a)`, `x ~ ANY (a)` and its regex siblings, or, with `all`,
    /// `... ALL (a)`: the match against each pattern element, combined as ANY and ALL
    /// combine comparisons.
    QuantifiedMatch {
        syntax: PatternSyntax,
        negated: bool,
        case_insensitive: bool,
        all: bool,
    },
    /// `array_remove(a, x)`: `a` without the elements not distinct from `x`.
    Remove,
    /// The names (or, with `value`, the values) of an options array's `name=value` items:
    /// the columns of pg_options_to_table, unnested in lockstep.
    OptionParts {
        value: bool,
    },
    /// `array_replace(a, x, y)`: every element not distinct from `x` replaced by `y`.
    Replace,
    /// `trim_array(a, n)`: without the last `n` items of the first dimension.
    Trim,
    /// `a[i] = x` of an UPDATE over `[a, x, i, ...]`: the array with that element set.
    AssignElement,
    /// `a[i:j] = b` of an UPDATE over `[a, b, bounds...]`, the bounds given as for
    /// [`ArrayFunction::Slice`]: the array with that slice replaced by `b`'s elements.
    AssignSlice {
        dims: u8,
        lower: u8,
        upper: u8,
    },
}

impl ArrayFunction {
    pub fn name(self) -> &'static str {
        use ArrayFunction as A;
        match self {
            A::Construct | A::Nest => "array",
            A::Subscript | A::Slice { .. } | A::AssignElement | A::AssignSlice { .. } => {
                "subscript"
            }
            A::Length => "array_length",
            A::Cardinality => "cardinality",
            A::Upper => "array_upper",
            A::Lower => "array_lower",
            A::Ndims => "array_ndims",
            A::Dims => "array_dims",
            A::Position => "array_position",
            A::Positions => "array_positions",
            A::ToString => "array_to_string",
            A::StringToArray => "string_to_array",
            A::Append => "array_append",
            A::Prepend => "array_prepend",
            A::Cat => "array_cat",
            A::Contains => "@>",
            A::ContainedBy => "<@",
            A::Overlap => "&&",
            A::Quantified { all: false, .. } | A::QuantifiedMatch { all: false, .. } => "any",
            A::Quantified { all: true, .. } | A::QuantifiedMatch { all: true, .. } => "all",
            A::Remove => "array_remove",
            A::Replace => "array_replace",
            A::Trim => "trim_array",
            A::OptionParts { .. } => "pg_options_to_table",
        }
    }

    /// Whether a NULL argument makes the result NULL without looking further.
    pub(crate) fn is_strict(self) -> bool {
        use ArrayFunction as A;
        !matches!(
            self,
            A::Construct
                | A::Nest
                | A::Position
                | A::Positions
                | A::ToString
                | A::StringToArray
                | A::Append
                | A::Prepend
                | A::Cat
                | A::Quantified { .. }
                | A::QuantifiedMatch { .. }
                | A::Remove
                | A::Replace
                | A::AssignElement
                | A::AssignSlice { .. }
        )
    }

    /// The function over argument vectors of the resolved types, giving values of `result`.
    pub fn eval(self, args: &[Vector], rows: usize, result: DataType) -> Result<Vector> {
        let mut out = Vector::with_capacity(result.physical(), rows);
        let mut values = Vec::with_capacity(args.len());
        for row in 0..rows {
            values.clear();
            values.extend(args.iter().map(|a| a.get_scalar(row)));
            if self.is_strict() && values.iter().any(ScalarValue::is_null) {
                out.push_null();
                continue;
            }
            out.push_scalar(&self.eval_row(&values)?)?;
        }
        Ok(out)
    }

    fn eval_row(self, args: &[ScalarValue]) -> Result<ScalarValue> {
        if array_shaped::needs_shape(self, args) {
            return array_shaped::eval_row(self, args);
        }
        self.eval_plain(args)
    }

    /// The function over plain one-dimensional arrays (see [`array_shaped`] for the rest).
    pub(super) fn eval_plain(self, args: &[ScalarValue]) -> Result<ScalarValue> {
        use ArrayFunction as A;
        use ScalarValue as S;
        let arg = |i: usize| args.get(i).unwrap_or(&S::Null);
        let int = |i: usize| match arg(i) {
            S::Int32(v) => Some(i64::from(*v)),
            _ => None,
        };
        let array = |i: usize| match arg(i) {
            S::Array(values) => Some(values.as_slice()),
            _ => None,
        };
        let count = |n: usize| S::Int32(n as i32);
        Ok(match self {
            A::Construct => S::Array(args.to_vec()),
            A::Subscript => {
                let (Some(values), Some(i)) = (array(0), int(1)) else {
                    return Ok(S::Null);
                };
                usize::try_from(i - 1)
                    .ok()
                    .and_then(|i| values.get(i))
                    .cloned()
                    .unwrap_or(S::Null)
            }
            A::Nest | A::Slice { .. } => return array_shaped::eval_row(self, args),
            A::AssignElement | A::AssignSlice { .. } => return array_assign::assign(self, args),
            A::Length | A::Upper => match (array(0), int(1)) {
                (Some(values), Some(1)) if !values.is_empty() => count(values.len()),
                _ => S::Null,
            },
            A::Lower => match (array(0), int(1)) {
                (Some(values), Some(1)) if !values.is_empty() => count(1),
                _ => S::Null,
            },
            A::Cardinality => count(array(0).map_or(0, <[_]>::len)),
            A::Ndims => match array(0) {
                Some(values) if !values.is_empty() => count(1),
                _ => S::Null,
            },
            A::Dims => match array(0) {
                Some(values) if !values.is_empty() => S::Text(format!("[1:{}]", values.len())),
                _ => S::Null,
            },
            A::Position => position(args)?,
            A::Positions => match array(0) {
                None => S::Null,
                Some(values) => S::Array(
                    matching(values, arg(1))
                        .map(|i| S::Int32(i as i32 + 1))
                        .collect(),
                ),
            },
            A::ToString => array_to_string(args),
            A::StringToArray => string_to_array(args),
            A::Append | A::Prepend | A::Cat => concatenate(self, args),
            A::Contains => contains(array(0), array(1)),
            A::ContainedBy => contains(array(1), array(0)),
            A::Overlap => match (array(0), array(1)) {
                (Some(a), Some(b)) => S::Bool(a.iter().any(|x| b.iter().any(|y| equal(x, y)))),
                _ => S::Null,
            },
            A::Quantified { op, all } => quantified(arg(0), array(1), op, all),
            A::QuantifiedMatch {
                syntax,
                negated,
                case_insensitive,
                all,
            } => quantified_match(arg(0), array(1), (syntax, negated, case_insensitive), all)?,
            A::Replace => match array(0) {
                None => S::Null,
                Some(values) => {
                    let hits: Vec<usize> = matching(values, arg(1)).collect();
                    let mut out = values.to_vec();
                    for i in hits {
                        out[i] = arg(2).clone();
                    }
                    S::Array(out)
                }
            },
            A::Trim => return array_shaped::eval_row(self, args),
            A::Remove => match array(0) {
                None => S::Null,
                Some(values) => {
                    let removed: Vec<usize> = matching(values, arg(1)).collect();
                    S::Array(
                        values
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| !removed.contains(i))
                            .map(|(_, v)| v.clone())
                            .collect(),
                    )
                }
            },
            A::OptionParts { value } => S::Array(
                array(0)
                    .unwrap_or_default()
                    .iter()
                    .map(|item| match item {
                        S::Text(item) => {
                            let (name, rest) = item.split_once('=').unwrap_or((item, ""));
                            S::Text(if value { rest } else { name }.to_string())
                        }
                        _ => S::Null,
                    })
                    .collect(),
            ),
        })
    }
}

/// Equality of two elements, false when either is NULL.
fn equal(a: &ScalarValue, b: &ScalarValue) -> bool {
    a.compare(b) == Some(Ordering::Equal)
}

/// The 0-based positions of `needle` in `values`, NULL matching NULL.
fn matching<'a>(
    values: &'a [ScalarValue],
    needle: &'a ScalarValue,
) -> impl Iterator<Item = usize> + 'a {
    values.iter().enumerate().filter_map(move |(i, v)| {
        let hit = match (v.is_null(), needle.is_null()) {
            (true, true) => true,
            (false, false) => equal(v, needle),
            _ => false,
        };
        hit.then_some(i)
    })
}

/// `array_position(a, x [, start])`: the first 1-based position at or after `start`.
fn position(args: &[ScalarValue]) -> Result<ScalarValue> {
    let values = match args.first() {
        Some(ScalarValue::Array(values)) => values,
        _ => return Ok(ScalarValue::Null),
    };
    let start = match args.get(2) {
        None => 1,
        Some(ScalarValue::Int32(start)) => *start,
        Some(_) => {
            return Err(Error::new(
                SqlState::NullValueNotAllowed,
                "initial position must not be null",
            ))
        }
    };
    let skip = usize::try_from(start.max(1) - 1).unwrap_or(0);
    let needle = args.get(1).unwrap_or(&ScalarValue::Null);
    Ok(matching(values, needle)
        .find(|&i| i >= skip)
        .map_or(ScalarValue::Null, |i| ScalarValue::Int32(i as i32 + 1)))
}

/// `array_to_string(a, delimiter [, null_string])`: NULL elements skipped unless
/// `null_string` is given (and not NULL).
fn array_to_string(args: &[ScalarValue]) -> ScalarValue {
    let (Some(ScalarValue::Array(values)), Some(ScalarValue::Text(delimiter))) =
        (args.first(), args.get(1))
    else {
        return ScalarValue::Null;
    };
    let null_text = match args.get(2) {
        Some(ScalarValue::Text(t)) => Some(t.as_bytes()),
        _ => None,
    };
    let mut out = Vec::new();
    let mut first = true;
    for value in values {
        if value.is_null() && null_text.is_none() {
            continue;
        }
        if !first {
            out.extend_from_slice(delimiter.as_bytes());
        }
        first = false;
        match null_text {
            Some(text) if value.is_null() => out.extend_from_slice(text),
            _ => text_io::write_scalar_text(value, &mut out),
        }
    }
    ScalarValue::Text(String::from_utf8_lossy(&out).into_owned())
}

/// `string_to_array(s, delimiter [, null_string])`: a NULL delimiter splits into
/// characters, an empty one keeps the whole string; an empty string gives `{}`.
fn string_to_array(args: &[ScalarValue]) -> ScalarValue {
    let Some(ScalarValue::Text(text)) = args.first() else {
        return ScalarValue::Null;
    };
    let null_text = match args.get(2) {
        Some(ScalarValue::Text(t)) => Some(t.as_str()),
        _ => None,
    };
    let element = |s: &str| {
        if null_text == Some(s) {
            ScalarValue::Null
        } else {
            ScalarValue::Text(s.to_string())
        }
    };
    if text.is_empty() {
        return ScalarValue::Array(Vec::new());
    }
    ScalarValue::Array(match args.get(1) {
        Some(ScalarValue::Text(d)) if d.is_empty() => vec![element(text)],
        Some(ScalarValue::Text(d)) => text.split(d.as_str()).map(element).collect(),
        _ => text
            .char_indices()
            .map(|(i, c)| element(&text[i..i + c.len_utf8()]))
            .collect(),
    })
}

/// array_append, array_prepend and array_cat: a NULL array counts as empty; a NULL
/// element is appended as NULL; array_cat of two NULLs is NULL.
fn concatenate(func: ArrayFunction, args: &[ScalarValue]) -> ScalarValue {
    fn as_slice(v: Option<&ScalarValue>) -> &[ScalarValue] {
        match v {
            Some(ScalarValue::Array(values)) => values,
            _ => &[],
        }
    }
    let (first, second) = (args.first(), args.get(1));
    let values: Vec<ScalarValue> = match func {
        ArrayFunction::Append => {
            let mut values = as_slice(first).to_vec();
            values.push(second.cloned().unwrap_or(ScalarValue::Null));
            values
        }
        ArrayFunction::Prepend => {
            let mut values = vec![first.cloned().unwrap_or(ScalarValue::Null)];
            values.extend_from_slice(as_slice(second));
            values
        }
        _ => {
            if first.is_none_or(ScalarValue::is_null) && second.is_none_or(ScalarValue::is_null) {
                return ScalarValue::Null;
            }
            [as_slice(first), as_slice(second)].concat()
        }
    };
    ScalarValue::Array(values)
}

/// `a @> b`: every element of `b` equals some element of `a` (a NULL element of `b` never
/// does).
fn contains(a: Option<&[ScalarValue]>, b: Option<&[ScalarValue]>) -> ScalarValue {
    match (a, b) {
        (Some(a), Some(b)) => ScalarValue::Bool(b.iter().all(|y| a.iter().any(|x| equal(x, y)))),
        _ => ScalarValue::Null,
    }
}

/// `x op ANY (a)` / `x op ALL (a)` with SQL's three-valued logic: ANY is true on a true
/// comparison, else NULL if any comparison was NULL, else false; ALL mirrors it.
fn quantified(
    x: &ScalarValue,
    values: Option<&[ScalarValue]>,
    op: CompareOp,
    all: bool,
) -> ScalarValue {
    let Some(values) = values else {
        return ScalarValue::Null;
    };
    let mut saw_null = false;
    for value in values {
        let hit = match x.compare(value) {
            None => {
                saw_null = true;
                continue;
            }
            Some(ord) => crate::function::compare::matches(op, ord),
        };
        if hit != all {
            return ScalarValue::Bool(hit);
        }
    }
    if saw_null {
        ScalarValue::Null
    } else {
        ScalarValue::Bool(all)
    }
}

/// [`ArrayFunction::QuantifiedMatch`]: true (false for ALL) at the first element deciding it,
/// else NULL if the value or an element was NULL.
fn quantified_match(
    x: &ScalarValue,
    patterns: Option<&[ScalarValue]>,
    (syntax, negated, case_insensitive): (PatternSyntax, bool, bool),
    all: bool,
) -> Result<ScalarValue> {
    let Some(patterns) = patterns else {
        return Ok(ScalarValue::Null);
    };
    let text = match x {
        ScalarValue::Text(text) => Some(text.as_str()),
        _ => None,
    };
    let mut saw_null = false;
    let mut scratch = String::new();
    let mut regexes = RegexCache::default();
    let flags = if case_insensitive { "i" } else { "" };
    for pattern in patterns {
        let (Some(text), ScalarValue::Text(pattern)) = (text, pattern) else {
            saw_null = true;
            continue;
        };
        let matched = match syntax {
            PatternSyntax::Like => LikePattern::compile(pattern, case_insensitive)?
                .matches(text.as_bytes(), &mut scratch),
            PatternSyntax::Regex => regexes.get(pattern, flags)?.0.is_match(text),
        };
        let hit = matched != negated;
        if hit != all {
            return Ok(ScalarValue::Bool(hit));
        }
    }
    Ok(match saw_null {
        true => ScalarValue::Null,
        false => ScalarValue::Bool(all),
    })
}
