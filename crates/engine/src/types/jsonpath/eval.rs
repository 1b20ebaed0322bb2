//! A jsonpath over a document, as PostgreSQL's `jsonpath_exec.c` runs it: every expression
//! gives a sequence of items; lax mode unwraps arrays for accessors and comparisons, wraps
//! non-arrays for array accessors and ignores structural errors; predicates are
//! three-valued (an error in an operand is *unknown*) and existential over the sequences.

use std::cmp::Ordering;

use super::{Accessor, ArithOp, CmpOp, Expr, JsonPath, Method};
use crate::error::{Error, Result, SqlState};
use crate::types::json::{self, Json};
use crate::types::Decimal;

impl JsonPath {
    /// The items the path gives for `document` with the variables of `vars` (an object);
    /// `None` when `silent` hid an error.
    pub fn query(&self, document: &Json, vars: &Json, silent: bool) -> Result<Option<Vec<Json>>> {
        if !matches!(vars, Json::Object(_)) {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                "\"vars\" argument is not an object",
            )
            .with_detail(
                "Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.",
            ));
        }
        let ctx = Ctx {
            root: document,
            vars,
            strict: self.strict,
        };
        match ctx.items(&self.expr, document, None) {
            Ok(items) => Ok(Some(items)),
            Err(e) if silent && !is_hard(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The result of a predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    fn of(b: bool) -> Truth {
        match b {
            true => Truth::True,
            false => Truth::False,
        }
    }
}

/// Errors that `silent` does not hide: a missing variable, an unsupported feature.
fn is_hard(e: &Error) -> bool {
    matches!(e.sqlstate(), "42704" | "0A000")
}

struct Ctx<'a> {
    root: &'a Json,
    vars: &'a Json,
    strict: bool,
}

fn number(n: i64) -> Json {
    Json::Number(n.to_string())
}

fn decimal(n: &str) -> Result<Decimal> {
    Decimal::parse(n)
}

fn decimal_json(d: Decimal) -> Json {
    Json::Number(d.to_string())
}

impl Ctx<'_> {
    /// The sequence of items of `expr`, with `at` as `@` and `last` as the last index of
    /// the array a subscript reads.
    fn items(&self, expr: &Expr, at: &Json, last: Option<i64>) -> Result<Vec<Json>> {
        match expr {
            Expr::Root => Ok(vec![self.root.clone()]),
            Expr::Current => Ok(vec![at.clone()]),
            Expr::Last => match last {
                Some(last) => Ok(vec![number(last)]),
                None => Err(Error::new(
                    SqlState::SyntaxError,
                    "LAST is allowed only in array subscripts",
                )),
            },
            Expr::Variable(name) => match self.vars.get_key(name) {
                Some(value) => Ok(vec![value.clone()]),
                None => Err(Error::new(
                    SqlState::UndefinedObject,
                    format!("could not find jsonpath variable \"{name}\""),
                )),
            },
            Expr::Literal(value) => Ok(vec![value.clone()]),
            Expr::Access(base, accessor) => {
                let lenient = !self.strict || under_descendants(base);
                let mut out = Vec::new();
                for item in self.items(base, at, last)? {
                    self.step(&item, accessor, lenient, true, last, &mut out)?;
                }
                Ok(out)
            }
            Expr::Negate(inner, minus) => {
                let items = self.unwrapped(self.items(inner, at, last)?);
                items
                    .into_iter()
                    .map(|item| match item {
                        Json::Number(n) if *minus => Ok(decimal_json(decimal(&n)?.neg())),
                        Json::Number(n) => Ok(Json::Number(n)),
                        _ => Err(Error::new(
                            SqlState::SqlJsonNumberNotFound,
                            format!(
                                "operand of unary jsonpath operator {} is not a numeric value",
                                if *minus { "-" } else { "+" }
                            ),
                        )),
                    })
                    .collect()
            }
            Expr::Arith(op, left, right) => {
                let operand = |side: &Expr, which: &str| -> Result<Decimal> {
                    let items = self.unwrapped(self.items(side, at, last)?);
                    match items.as_slice() {
                        [Json::Number(n)] => decimal(n),
                        _ => Err(Error::new(
                            SqlState::SingletonSqlJsonItemRequired,
                            format!(
                                "{which} operand of jsonpath operator {} is not a single numeric value",
                                op.symbol()
                            ),
                        )),
                    }
                };
                let (a, b) = (operand(left, "left")?, operand(right, "right")?);
                let result = match op {
                    ArithOp::Add => a.checked_add(&b)?,
                    ArithOp::Sub => a.checked_sub(&b)?,
                    ArithOp::Mul => a.checked_mul(&b)?,
                    ArithOp::Div => a.checked_div(&b)?,
                    ArithOp::Mod => a.checked_rem(&b)?,
                };
                Ok(vec![decimal_json(result)])
            }
            Expr::Compare(..)
            | Expr::And(..)
            | Expr::Or(..)
            | Expr::Not(..)
            | Expr::Exists(..)
            | Expr::IsUnknown(..)
            | Expr::StartsWith(..)
            | Expr::LikeRegex(..) => Ok(vec![match self.truth(expr, at, last)? {
                Truth::True => Json::Bool(true),
                Truth::False => Json::Bool(false),
                Truth::Unknown => Json::Null,
            }]),
        }
    }

    /// Lax mode reads the elements of arrays in a sequence instead of the arrays.
    fn unwrapped(&self, items: Vec<Json>) -> Vec<Json> {
        if self.strict {
            return items;
        }
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Json::Array(elements) => out.extend(elements),
                other => out.push(other),
            }
        }
        out
    }

    /// One accessor applied to one item. `lenient` ignores structural errors (lax mode,
    /// or after `.**`); `unwrap` lets lax mode apply an object accessor to an array's
    /// elements (one level).
    fn step(
        &self,
        item: &Json,
        accessor: &Accessor,
        lenient: bool,
        unwrap: bool,
        last: Option<i64>,
        out: &mut Vec<Json>,
    ) -> Result<()> {
        // The elements an object accessor, a filter or a method reads instead of an array.
        let lax_elements = match item {
            Json::Array(elements) if !self.strict && unwrap => Some(elements),
            _ => None,
        };
        let structural = |state: SqlState, message: String| -> Result<()> {
            match lenient {
                true => Ok(()),
                false => Err(Error::new(state, message)),
            }
        };
        match accessor {
            Accessor::Key(key) => match item {
                Json::Object(_) => match item.get_key(key) {
                    Some(value) => out.push(value.clone()),
                    None => {
                        return structural(
                            SqlState::SqlJsonMemberNotFound,
                            format!("JSON object does not contain key \"{key}\""),
                        )
                    }
                },
                _ if lax_elements.is_some() => {
                    for element in lax_elements.into_iter().flatten() {
                        self.step(element, accessor, lenient, false, last, out)?;
                    }
                }
                _ => {
                    return structural(
                        SqlState::SqlJsonMemberNotFound,
                        "jsonpath member accessor can only be applied to an object".into(),
                    )
                }
            },
            Accessor::AnyKey => match item {
                Json::Object(pairs) => out.extend(pairs.iter().map(|(_, v)| v.clone())),
                _ if lax_elements.is_some() => {
                    for element in lax_elements.into_iter().flatten() {
                        self.step(element, accessor, lenient, false, last, out)?;
                    }
                }
                _ => {
                    return structural(
                        SqlState::SqlJsonObjectNotFound,
                        "jsonpath wildcard member accessor can only be applied to an object".into(),
                    )
                }
            },
            Accessor::AnyElement => match item {
                Json::Array(elements) => out.extend(elements.iter().cloned()),
                _ if !self.strict => out.push(item.clone()),
                _ => {
                    return structural(
                        SqlState::SqlJsonArrayNotFound,
                        "jsonpath wildcard array accessor can only be applied to an array".into(),
                    )
                }
            },
            Accessor::Subscripts(subscripts) => {
                let wrapped;
                let elements = match item {
                    Json::Array(elements) => elements.as_slice(),
                    _ if !self.strict => {
                        wrapped = [item.clone()];
                        &wrapped[..]
                    }
                    _ => {
                        return structural(
                            SqlState::SqlJsonArrayNotFound,
                            "jsonpath array accessor can only be applied to an array".into(),
                        )
                    }
                };
                let size = elements.len() as i64;
                for (from, to) in subscripts {
                    let from = self.subscript(from, item, size - 1)?;
                    let to = match to {
                        Some(to) => self.subscript(to, item, size - 1)?,
                        None => from,
                    };
                    if !lenient && (from < 0 || from > to || to >= size) {
                        return Err(Error::new(
                            SqlState::InvalidSqlJsonSubscript,
                            "jsonpath array subscript is out of bounds",
                        ));
                    }
                    let (from, to) = (from.max(0), to.min(size - 1));
                    if from <= to {
                        out.extend(elements[from as usize..=to as usize].iter().cloned());
                    }
                }
            }
            Accessor::Descendants { from, to } => {
                if *from == 0 {
                    out.push(item.clone());
                }
                descend(item, 1, *from, *to, out);
            }
            Accessor::Filter(predicate) => match lax_elements {
                Some(elements) => {
                    for element in elements {
                        self.step(element, accessor, lenient, false, last, out)?;
                    }
                }
                None => {
                    if self.truth(predicate, item, last)? == Truth::True {
                        out.push(item.clone());
                    }
                }
            },
            Accessor::Method(method) => match (method, lax_elements) {
                (Method::Type, _) => out.push(Json::String(type_name(item).into())),
                (Method::Size, _) => match item {
                    Json::Array(elements) => out.push(number(elements.len() as i64)),
                    _ if !self.strict => out.push(number(1)),
                    _ => {
                        return structural(
                            SqlState::SqlJsonArrayNotFound,
                            "jsonpath item method .size() can only be applied to an array".into(),
                        )
                    }
                },
                (Method::KeyValue, _) => {
                    return Err(Error::unsupported(format!(
                        "the jsonpath item method .{}()",
                        method.name()
                    )))
                }
                (_, Some(elements)) => {
                    for element in elements {
                        self.step(element, accessor, lenient, false, last, out)?;
                    }
                }
                (_, None) => out.push(numeric_method(*method, item)?),
            },
        }
        Ok(())
    }

    /// An array subscript: a single number, truncated to an integer.
    fn subscript(&self, expr: &Expr, at: &Json, last: i64) -> Result<i64> {
        let not_single = || {
            Error::new(
                SqlState::InvalidSqlJsonSubscript,
                "jsonpath array subscript is not a single numeric value",
            )
        };
        let items = self.items(expr, at, Some(last))?;
        let [Json::Number(n)] = items.as_slice() else {
            return Err(not_single());
        };
        let value = decimal(n)?;
        let whole = value.mantissa() / scale_unit(&value)?;
        i32::try_from(whole).map(i64::from).map_err(|_| {
            Error::new(
                SqlState::InvalidSqlJsonSubscript,
                "jsonpath array subscript is out of integer range",
            )
        })
    }

    fn truth(&self, expr: &Expr, at: &Json, last: Option<i64>) -> Result<Truth> {
        Ok(match expr {
            Expr::Compare(op, left, right) => {
                self.existential(left, Some(right), at, last, |a, b| compare(*op, a, b))?
            }
            Expr::StartsWith(whole, prefix) => {
                self.existential(whole, Some(prefix), at, last, |a, b| match (a, b) {
                    (Json::String(a), Some(Json::String(b))) => {
                        Truth::of(a.starts_with(b.as_str()))
                    }
                    _ => Truth::Unknown,
                })?
            }
            Expr::LikeRegex(text, regex) => {
                self.existential(text, None, at, last, |a, _| match a {
                    Json::String(s) => Truth::of(regex.regex.is_match(s)),
                    _ => Truth::Unknown,
                })?
            }
            Expr::And(a, b) => match self.truth(a, at, last)? {
                Truth::False => Truth::False,
                first => match (first, self.truth(b, at, last)?) {
                    (_, Truth::False) => Truth::False,
                    (Truth::True, Truth::True) => Truth::True,
                    _ => Truth::Unknown,
                },
            },
            Expr::Or(a, b) => match self.truth(a, at, last)? {
                Truth::True => Truth::True,
                first => match (first, self.truth(b, at, last)?) {
                    (_, Truth::True) => Truth::True,
                    (Truth::False, Truth::False) => Truth::False,
                    _ => Truth::Unknown,
                },
            },
            Expr::Not(inner) => match self.truth(inner, at, last)? {
                Truth::True => Truth::False,
                Truth::False => Truth::True,
                Truth::Unknown => Truth::Unknown,
            },
            Expr::IsUnknown(inner) => Truth::of(self.truth(inner, at, last)? == Truth::Unknown),
            Expr::Exists(inner) => match self.items(inner, at, last) {
                Ok(items) => Truth::of(!items.is_empty()),
                Err(e) if is_hard(&e) => return Err(e),
                Err(_) => Truth::Unknown,
            },
            Expr::Root
            | Expr::Current
            | Expr::Last
            | Expr::Variable(_)
            | Expr::Literal(_)
            | Expr::Access(..)
            | Expr::Negate(..)
            | Expr::Arith(..) => {
                return Err(Error::new(
                    SqlState::SyntaxError,
                    "syntax error: a jsonpath filter expression must be a predicate",
                ))
            }
        })
    }

    /// A comparison over all pairs of the operands' items: true as soon as one pair is
    /// (lax), unknown if a pair or an operand fails; strict mode reads every pair.
    fn existential(
        &self,
        left: &Expr,
        right: Option<&Expr>,
        at: &Json,
        last: Option<i64>,
        test: impl Fn(&Json, Option<&Json>) -> Truth,
    ) -> Result<Truth> {
        let operand = |expr: &Expr| match self.items(expr, at, last) {
            Ok(items) => Ok(Some(self.unwrapped(items))),
            Err(e) if is_hard(&e) => Err(e),
            Err(_) => Ok(None),
        };
        let Some(left) = operand(left)? else {
            return Ok(Truth::Unknown);
        };
        let right = match right {
            Some(expr) => match operand(expr)? {
                Some(items) => Some(items),
                None => return Ok(Truth::Unknown),
            },
            None => None,
        };
        let (mut found, mut error) = (false, false);
        for a in &left {
            let pairs: Vec<Option<&Json>> = match &right {
                Some(items) => items.iter().map(Some).collect(),
                None => vec![None],
            };
            for b in pairs {
                match test(a, b) {
                    Truth::Unknown if self.strict => return Ok(Truth::Unknown),
                    Truth::Unknown => error = true,
                    Truth::True if !self.strict => return Ok(Truth::True),
                    Truth::True => found = true,
                    Truth::False => {}
                }
            }
        }
        Ok(match (found, error) {
            (true, _) => Truth::True,
            (false, true) => Truth::Unknown,
            (false, false) => Truth::False,
        })
    }
}

/// Whether an accessor chain passes through `.**`, after which PostgreSQL ignores
/// structural errors even in strict mode.
fn under_descendants(expr: &Expr) -> bool {
    match expr {
        Expr::Access(base, accessor) => {
            matches!(accessor, Accessor::Descendants { .. }) || under_descendants(base)
        }
        _ => false,
    }
}

/// The members of `item` at `level` and below, down to `to`; with `from` at `last`
/// (`u32::MAX`) only the leaves.
fn descend(item: &Json, level: u32, from: u32, to: u32, out: &mut Vec<Json>) {
    if level > to {
        return;
    }
    let children: Box<dyn Iterator<Item = &Json>> = match item {
        Json::Object(pairs) => Box::new(pairs.iter().map(|(_, v)| v)),
        Json::Array(elements) => Box::new(elements.iter()),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => return,
    };
    for child in children {
        let container = matches!(child, Json::Object(_) | Json::Array(_));
        if level >= from || (from == u32::MAX && to == u32::MAX && !container) {
            out.push(child.clone());
        }
        if level < to && container {
            descend(child, level + 1, from, to, out);
        }
    }
}

fn type_name(item: &Json) -> &'static str {
    match item {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// `.double()`, `.abs()`, `.floor()`, `.ceiling()` of one item.
fn numeric_method(method: Method, item: &Json) -> Result<Json> {
    let name = method.name();
    let number = match (method, item) {
        (_, Json::Number(n)) => n.clone(),
        (Method::Double, Json::String(s)) => {
            let value: f64 = s.trim().parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
                Error::new(
                    SqlState::NonNumericSqlJsonItem,
                    format!("string argument of jsonpath item method .{name}() is not a valid representation of a double precision number"),
                )
            })?;
            return Ok(Json::Number(float8_numeric(value)?));
        }
        (Method::Double, _) => {
            return Err(Error::new(
                SqlState::NonNumericSqlJsonItem,
                format!(
                "jsonpath item method .{name}() can only be applied to a string or numeric value"
            ),
            ))
        }
        _ => {
            return Err(Error::new(
                SqlState::NonNumericSqlJsonItem,
                format!("jsonpath item method .{name}() can only be applied to a numeric value"),
            ))
        }
    };
    let value = decimal(&number)?;
    let unit = scale_unit(&value)?;
    let floor = value.mantissa().div_euclid(unit);
    Ok(match method {
        Method::Double => {
            let double: f64 = number.parse().unwrap_or(f64::INFINITY);
            if !double.is_finite() {
                return Err(Error::new(
                    SqlState::NonNumericSqlJsonItem,
                    format!("numeric argument of jsonpath item method .{name}() is out of range for type double precision"),
                ));
            }
            Json::Number(number)
        }
        Method::Abs => decimal_json(value.abs()),
        Method::Floor => decimal_json(Decimal::new(floor, 0)),
        Method::Ceiling => {
            let ceiling = floor + i128::from(value.mantissa().rem_euclid(unit) != 0);
            decimal_json(Decimal::new(ceiling, 0))
        }
        Method::Type | Method::Size | Method::KeyValue => {
            return Err(Error::internal("not a numeric jsonpath method"))
        }
    })
}

/// 10 to the power of the value's scale: what its mantissa counts in.
fn scale_unit(value: &Decimal) -> Result<i128> {
    10i128
        .checked_pow(value.scale())
        .ok_or_else(|| Error::out_of_range("value out of range for type numeric"))
}

/// float8_numeric: a double as NUMERIC, through its 15 significant digits.
fn float8_numeric(value: f64) -> Result<String> {
    let text = format!("{value:.14e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = match mantissa.contains('.') {
        true => mantissa.trim_end_matches('0').trim_end_matches('.'),
        false => mantissa,
    };
    json::numeric_text(&format!("{mantissa}e{exponent}"))
}

/// compareItems: items of different types are not comparable (unknown), except that
/// null equals only null; arrays and objects never compare.
fn compare(op: CmpOp, a: &Json, b: Option<&Json>) -> Truth {
    let Some(b) = b else {
        return Truth::Unknown;
    };
    let order = match (a, b) {
        (Json::Null, Json::Null) => Ordering::Equal,
        (Json::Null, _) | (_, Json::Null) => return Truth::of(op == CmpOp::Ne),
        (Json::Bool(x), Json::Bool(y)) => x.cmp(y),
        (Json::Number(x), Json::Number(y)) => json::compare_numbers(x, y),
        (Json::String(x), Json::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => return Truth::Unknown,
    };
    Truth::of(match op {
        CmpOp::Eq => order == Ordering::Equal,
        CmpOp::Ne => order != Ordering::Equal,
        CmpOp::Lt => order == Ordering::Less,
        CmpOp::Le => order != Ordering::Greater,
        CmpOp::Gt => order == Ordering::Greater,
        CmpOp::Ge => order != Ordering::Less,
    })
}
