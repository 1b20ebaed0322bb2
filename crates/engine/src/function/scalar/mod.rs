//! Named scalar functions: lookup by name and argument types with PostgreSQL's overload
//! rules ([`signature`]), result types, and vectorized kernels over whole argument vectors
//! ([`string`], [`pattern`], [`format`], [`math`], [`numeric`]).
//!
//! Strict functions (all but `concat`, `concat_ws` and `format`) give NULL wherever an
//! argument is NULL and never look at, or fail on, the values in those rows.

mod array;
mod array_assign;
mod array_shaped;
mod bit_string;
mod bitwise;
mod bytea;
mod float_vector;
mod format;
mod json;
mod json_edit;
mod json_items;
mod json_path;
mod kernel;
mod math;
mod network;
mod number_format;
mod numeric;
mod numeric_transcendental;
mod pattern;
mod record;
mod regex_preference;
mod regex_syntax;
mod regexp_search;
mod signature;
mod string;
mod unistr;
mod uuid_ossp;

pub use array::{ArrayFunction, PatternSyntax};
pub use bit_string::BitStringFunction;
pub use bitwise::BitOp;
pub use float_vector::VectorFunction;
pub(crate) use json::value_json;
pub use json::JsonFunction;
pub use json_items::JsonItems;
pub use json_path::PathMode;
pub use network::NetworkFunction;
pub(crate) use pattern::{regexp_matches_rows, regexp_split_rows, RegexCache};
pub use record::RecordFunction;
pub use uuid_ossp::{Namespace as UuidNamespace, UuidOssp};

use crate::error::Result;
use crate::types::DataType;
use crate::vector::Vector;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarFunction {
    // Strings.
    Length,
    OctetLength,
    Lower,
    Upper,
    Initcap,
    /// `unistr(s)`: Unicode escapes decoded.
    Unistr,
    /// `substr(s, start [, count])`, also `SUBSTRING(s FROM start FOR count)`.
    Substr,
    /// `substring(s, pattern)`: the POSIX regular expression form.
    SubstringRegex,
    /// `strpos(s, sub)`; `POSITION(sub IN s)` binds to it with the arguments swapped.
    Strpos,
    Btrim,
    Ltrim,
    Rtrim,
    Replace,
    Concat,
    ConcatWs,
    Left,
    Right,
    Lpad,
    Rpad,
    Repeat,
    Reverse,
    SplitPart,
    StartsWith,
    Md5,
    RegexpReplace,
    /// `regexp_replace(s, pattern, replacement, start [, n [, flags]])`.
    RegexpReplaceFrom,
    /// `regexp_count(s, pattern [, start [, flags]])`.
    RegexpCount,
    /// `regexp_instr(s, pattern [, start [, n [, endoption [, flags [, subexpr]]]]])`.
    RegexpInstr,
    /// `regexp_like(s, pattern [, flags])`.
    RegexpLike,
    /// `regexp_substr(s, pattern [, start [, n [, flags [, subexpr]]]])`.
    RegexpSubstr,
    /// `similar_to_escape(pattern [, escape])`: what `SIMILAR TO` matches with `~`.
    SimilarToEscape,
    /// `regexp_match(s, pattern [, flags])`: the first match's capture groups as text[].
    RegexpMatch,
    /// `regexp_split_to_array(s, pattern [, flags])`.
    RegexpSplitToArray,
    /// The operators `~`, `~*`, `!~`, `!~*`.
    RegexMatch {
        case_insensitive: bool,
        negated: bool,
    },
    Format,
    /// `format(formatstr, VARIADIC array)` over an array that is not an `ARRAY[...]`.
    FormatVariadic,
    /// to_char(number, text).
    ToCharNumber,
    /// to_number(text, text).
    ToNumber,
    Chr,
    Ascii,
    ToHex,
    QuoteIdent,
    QuoteLiteral,
    QuoteNullable,
    Overlay,
    Translate,
    // bytea and uuid.
    ByteaLength,
    ByteaConcat,
    ByteaSubstr,
    /// `position(needle IN bytes)`, arguments as strpos's.
    ByteaPosition,
    Encode,
    Decode,
    ByteaMd5,
    /// sha224, sha256, sha384 or sha512.
    ShaDigest(bytea::Sha),
    GetByte,
    SetByte,
    ByteaGetBit,
    ByteaSetBit,
    ByteaBitCount,
    /// btrim (both ends), ltrim (`leading`) or rtrim (`trailing`) of a bytea's bytes.
    ByteaTrim {
        leading: bool,
        trailing: bool,
    },
    ByteaOverlay,
    GenRandomUuid,
    /// A function of the uuid-ossp extension (uuid_generate_v4 is GenRandomUuid).
    UuidOssp(UuidOssp),
    /// A json or jsonb operator or function.
    Json(JsonFunction),
    // Numbers.
    Abs,
    Round,
    Ceil,
    Floor,
    Trunc,
    Sign,
    Mod,
    Div,
    Gcd,
    Lcm,
    Power,
    Sqrt,
    Cbrt,
    Exp,
    Ln,
    Log10,
    /// `log(base, x)`.
    Log,
    Pi,
    Random,
    Greatest,
    Least,
    WidthBucket,
    Degrees,
    Radians,
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    Atan,
    Atan2,
    Factorial,
    /// `scale(numeric)`, `min_scale(numeric)` and `trim_scale(numeric)`.
    Scale,
    MinScale,
    TrimScale,
    /// The integer operators `&`, `|`, `#`, `~`, `<<`, `>>`.
    Bit(BitOp),
    // System information.
    /// `pg_typeof(x)`: the name of the argument's type (text here; regtype in PostgreSQL,
    /// whose output is the same name).
    PgTypeof(DataType),
    /// An array function or operator, with its result type (which depends on the
    /// arguments' element type).
    Array {
        func: ArrayFunction,
        result: DataType,
    },
    /// A pgvector operator or function over `vector`.
    Vector(VectorFunction),
    /// A function or operator of bit strings.
    BitString(BitStringFunction),
    /// A function or operator of inet and cidr.
    Network(NetworkFunction),
    /// `ROW(...)` and `(record).field`.
    Record(RecordFunction),
}

impl ScalarFunction {
    /// The function `name` for arguments of `args` types: the function, the types its
    /// arguments must be coerced to, and its result type. `None` if there is no such
    /// function, or the call is ambiguous or unsupported (see [`Self::resolve_checked`]).
    pub fn resolve(
        name: &str,
        args: &[DataType],
    ) -> Option<(ScalarFunction, Vec<DataType>, DataType)> {
        Self::resolve_checked(name, args).ok().flatten()
    }

    /// As [`Self::resolve`], but with PostgreSQL's errors for calls that name a function yet
    /// cannot be bound: 42725 for an ambiguous call (`gcd(smallint, smallint)`), 42804 for
    /// GREATEST/LEAST arguments without a common type, 0A000 for functions returning types
    /// we lack. `Ok(None)`: no such function (the caller reports 42883).
    pub fn resolve_checked(
        name: &str,
        args: &[DataType],
    ) -> Result<Option<(ScalarFunction, Vec<DataType>, DataType)>> {
        use DataType as T;
        // Functions over "any": every argument keeps its type and is converted to text by
        // its output function in the kernel.
        let as_text = |t: DataType| if t == T::Unknown { T::Text } else { t };
        match (name, args) {
            ("concat", [_, ..]) => {
                return Ok(Some((
                    ScalarFunction::Concat,
                    args.iter().map(|&t| as_text(t)).collect(),
                    T::Text,
                )))
            }
            ("concat_ws" | "format", [first, rest @ ..])
                if first.is_string() || *first == T::Unknown =>
            {
                let func = if name == "format" {
                    ScalarFunction::Format
                } else {
                    ScalarFunction::ConcatWs
                };
                let mut types = vec![T::Text];
                types.extend(rest.iter().map(|&t| as_text(t)));
                return Ok(Some((func, types, T::Text)));
            }
            ("quote_literal" | "quote_nullable", [t]) => {
                let func = if name == "quote_literal" {
                    ScalarFunction::QuoteLiteral
                } else {
                    ScalarFunction::QuoteNullable
                };
                return Ok(Some((func, vec![as_text(*t)], T::Text)));
            }
            // row_to_json(record) without its pretty flag is to_json of the record.
            ("to_json" | "to_jsonb", [t]) | ("row_to_json", [t @ T::Record(_)]) => {
                let ty = as_text(*t);
                let func = JsonFunction::To {
                    ty,
                    jsonb: name == "to_jsonb",
                };
                return Ok(Some((ScalarFunction::Json(func), vec![ty], func.result())));
            }
            (
                "json_build_object" | "jsonb_build_object" | "json_build_array"
                | "jsonb_build_array",
                _,
            ) => {
                let jsonb = name.starts_with("jsonb");
                let func = match name.ends_with("object") {
                    true => JsonFunction::BuildObject { jsonb },
                    false => JsonFunction::BuildArray { jsonb },
                };
                let types = args.iter().map(|&t| as_text(t)).collect();
                return Ok(Some((ScalarFunction::Json(func), types, func.result())));
            }
            (
                "json_extract_path"
                | "json_extract_path_text"
                | "jsonb_extract_path"
                | "jsonb_extract_path_text",
                [_, _, ..],
            ) => {
                // The path's steps arrive as variadic text arguments.
                let json = name.starts_with("json_");
                let func = JsonFunction::Path {
                    as_text: name.ends_with("_text"),
                    json,
                };
                let mut types = vec![if json { T::Json } else { T::Jsonb }];
                types.extend(args[1..].iter().map(|_| T::Text));
                return Ok(Some((ScalarFunction::Json(func), types, func.result())));
            }
            ("array_to_json", [t @ T::Array(_)]) => {
                let func = JsonFunction::To {
                    ty: *t,
                    jsonb: false,
                };
                return Ok(Some((ScalarFunction::Json(func), vec![*t], T::Json)));
            }
            ("pg_typeof", [t]) => {
                return Ok(Some((ScalarFunction::PgTypeof(*t), vec![*t], T::Text)));
            }
            ("greatest" | "least", [_, ..]) => {
                let (func, what) = if name == "greatest" {
                    (ScalarFunction::Greatest, "GREATEST")
                } else {
                    (ScalarFunction::Least, "LEAST")
                };
                let ty = signature::common_type(args, what)?;
                return Ok(Some((func, vec![ty; args.len()], ty)));
            }
            _ => {}
        }
        let Some((func, params, ty)) = signature::select(name, args, signature::signatures(name))?
        else {
            return Ok(None);
        };
        Ok(Some((*func, params.to_vec(), *ty)))
    }

    /// The operator `~` (`~*` case-insensitive, `!~`/`!~*` negated) for operands of
    /// `left` and `right` types: the function, the operand types to coerce to, and `boolean`.
    /// `None` if the operands are not strings.
    pub fn regex_match_operator(
        case_insensitive: bool,
        negated: bool,
        left: DataType,
        right: DataType,
    ) -> Option<(ScalarFunction, Vec<DataType>, DataType)> {
        let string = |t: DataType| t.is_string() || t == DataType::Unknown;
        (string(left) && string(right)).then(|| {
            (
                ScalarFunction::RegexMatch {
                    case_insensitive,
                    negated,
                },
                vec![DataType::Text, DataType::Text],
                DataType::Bool,
            )
        })
    }

    /// Whether the function takes arguments of any type and renders each by its type's
    /// output function (concat, format, to_json, the json builders), so the binder presents
    /// them first (`binder/present.rs`).
    pub fn renders_arguments(self) -> bool {
        use ScalarFunction as F;
        matches!(
            self,
            F::Concat
                | F::ConcatWs
                | F::Format
                | F::FormatVariadic
                | F::QuoteLiteral
                | F::QuoteNullable
        ) || matches!(self, F::Json(json) if json.renders_arguments())
    }

    pub fn name(self) -> &'static str {
        use ScalarFunction as F;
        match self {
            F::Length => "length",
            F::OctetLength => "octet_length",
            F::Lower => "lower",
            F::Upper => "upper",
            F::Initcap => "initcap",
            F::Unistr => "unistr",
            F::Substr => "substr",
            F::SubstringRegex => "substring",
            F::Strpos => "strpos",
            F::Btrim => "btrim",
            F::Ltrim => "ltrim",
            F::Rtrim => "rtrim",
            F::Replace => "replace",
            F::Concat => "concat",
            F::ConcatWs => "concat_ws",
            F::Left => "left",
            F::Right => "right",
            F::Lpad => "lpad",
            F::Rpad => "rpad",
            F::Repeat => "repeat",
            F::Reverse => "reverse",
            F::SplitPart => "split_part",
            F::StartsWith => "starts_with",
            F::Md5 => "md5",
            F::RegexpReplace | F::RegexpReplaceFrom => "regexp_replace",
            F::RegexpCount => "regexp_count",
            F::RegexpInstr => "regexp_instr",
            F::RegexpLike => "regexp_like",
            F::RegexpSubstr => "regexp_substr",
            F::SimilarToEscape => "similar_to_escape",
            F::RegexpMatch => "regexp_match",
            F::RegexpSplitToArray => "regexp_split_to_array",
            F::RegexMatch {
                case_insensitive,
                negated,
            } => match (case_insensitive, negated) {
                (false, false) => "~",
                (true, false) => "~*",
                (false, true) => "!~",
                (true, true) => "!~*",
            },
            F::Format | F::FormatVariadic => "format",
            F::ToCharNumber => "to_char",
            F::ToNumber => "to_number",
            F::Chr => "chr",
            F::Ascii => "ascii",
            F::ToHex => "to_hex",
            F::QuoteIdent => "quote_ident",
            F::QuoteLiteral => "quote_literal",
            F::QuoteNullable => "quote_nullable",
            F::Overlay => "overlay",
            F::Translate => "translate",
            F::ByteaLength => "length",
            F::ByteaConcat => "||",
            F::ByteaSubstr => "substr",
            F::ByteaPosition => "position",
            F::Encode => "encode",
            F::Decode => "decode",
            F::ByteaMd5 => "md5",
            F::ShaDigest(sha) => sha.name(),
            F::GetByte => "get_byte",
            F::SetByte => "set_byte",
            F::ByteaGetBit => "get_bit",
            F::ByteaSetBit => "set_bit",
            F::ByteaBitCount => "bit_count",
            F::ByteaTrim { leading, trailing } => match (leading, trailing) {
                (true, true) => "btrim",
                (true, false) => "ltrim",
                (false, _) => "rtrim",
            },
            F::ByteaOverlay => "overlay",
            F::GenRandomUuid => "gen_random_uuid",
            F::UuidOssp(func) => func.name(),
            F::Json(func) => func.name(),
            F::Abs => "abs",
            F::Round => "round",
            F::Ceil => "ceil",
            F::Floor => "floor",
            F::Trunc => "trunc",
            F::Sign => "sign",
            F::Mod => "mod",
            F::Div => "div",
            F::Gcd => "gcd",
            F::Lcm => "lcm",
            F::Power => "power",
            F::Sqrt => "sqrt",
            F::Cbrt => "cbrt",
            F::Exp => "exp",
            F::Ln => "ln",
            F::Log10 => "log",
            F::Log => "log",
            F::Pi => "pi",
            F::Random => "random",
            F::Greatest => "greatest",
            F::Least => "least",
            F::WidthBucket => "width_bucket",
            F::Degrees => "degrees",
            F::Radians => "radians",
            F::Sin => "sin",
            F::Cos => "cos",
            F::Tan => "tan",
            F::Cot => "cot",
            F::Asin => "asin",
            F::Acos => "acos",
            F::Atan => "atan",
            F::Atan2 => "atan2",
            F::Factorial => "factorial",
            F::Scale => "scale",
            F::MinScale => "min_scale",
            F::TrimScale => "trim_scale",
            F::Bit(op) => op.symbol(),
            F::PgTypeof(_) => "pg_typeof",
            F::Array { func, .. } => func.name(),
            F::Vector(func) => func.name(),
            F::BitString(func) => func.name(),
            F::Network(func) => func.name(),
            F::Record(func) => func.name(),
        }
    }

    /// Whether the function may return different results for the same arguments (so a
    /// statement calling it must not be served from a result cache, nor folded to a constant).
    pub fn is_volatile(self) -> bool {
        match self {
            ScalarFunction::Random | ScalarFunction::GenRandomUuid => true,
            ScalarFunction::UuidOssp(func) => func.is_volatile(),
            _ => false,
        }
    }

    /// Applies the function to argument vectors already of the resolved types. The row
    /// count is the first argument's; functions without arguments need
    /// [`Self::eval_batch`].
    pub fn eval(self, args: &[Vector]) -> Result<Vector> {
        self.eval_batch(args, args.first().map_or(1, Vector::len))
    }

    /// Applies the function to `rows` rows of argument vectors of the resolved types.
    pub fn eval_batch(self, args: &[Vector], rows: usize) -> Result<Vector> {
        use ScalarFunction as F;
        match self {
            F::Length => string::length(args),
            F::OctetLength => string::octet_length(args),
            F::Lower => string::lower(args),
            F::Upper => string::upper(args),
            F::Initcap => string::initcap(args),
            F::Unistr => unistr::unistr(args),
            F::Substr => string::substr(args),
            F::SubstringRegex => pattern::substring(args),
            F::Strpos => string::strpos(args),
            F::Btrim => string::trim(args, true, true),
            F::Ltrim => string::trim(args, true, false),
            F::Rtrim => string::trim(args, false, true),
            F::Replace => string::replace(args),
            F::Concat => string::concat(args, rows),
            F::ConcatWs => string::concat_ws(args),
            F::Left => string::left_right(args, true),
            F::Right => string::left_right(args, false),
            F::Lpad => string::pad(args, true),
            F::Rpad => string::pad(args, false),
            F::Repeat => string::repeat(args),
            F::Reverse => string::reverse(args),
            F::SplitPart => string::split_part(args),
            F::StartsWith => string::starts_with(args),
            F::Md5 => string::md5(args),
            F::RegexpReplace => pattern::regexp_replace(args),
            F::RegexpReplaceFrom => pattern::regexp_replace_from(args),
            F::RegexpCount => regexp_search::regexp_count(args),
            F::RegexpInstr => regexp_search::regexp_instr(args),
            F::RegexpLike => regexp_search::regexp_like(args),
            F::RegexpSubstr => regexp_search::regexp_substr(args),
            F::SimilarToEscape => pattern::similar_to_escape(args),
            F::RegexpMatch => pattern::regexp_match(args),
            F::RegexpSplitToArray => pattern::regexp_split_to_array(args),
            F::RegexMatch {
                case_insensitive,
                negated,
            } => pattern::regex_match(args, case_insensitive, negated),
            F::Format => format::format(args),
            F::FormatVariadic => format::format_variadic(args),
            F::ToCharNumber => number_format::to_char(args),
            F::ToNumber => number_format::to_number(args),
            F::Chr => string::chr(args),
            F::Ascii => string::ascii(args),
            F::ToHex => string::to_hex(args),
            F::QuoteIdent => format::quote_ident(args),
            F::QuoteLiteral => format::quote_literal(args, false),
            F::QuoteNullable => format::quote_literal(args, true),
            F::Overlay => string::overlay(args),
            F::Translate => string::translate(args),
            F::ByteaLength => bytea::length(args),
            F::ByteaConcat => bytea::concat(args),
            F::ByteaSubstr => bytea::substr(args),
            F::ByteaPosition => bytea::position(args),
            F::Encode => bytea::encode(args),
            F::Decode => bytea::decode(args),
            F::ByteaMd5 => bytea::md5(args),
            F::ShaDigest(sha) => bytea::sha_digest(args, sha),
            F::GetByte => bytea::get_byte(args),
            F::SetByte => bytea::set_byte(args),
            F::ByteaGetBit => bytea::get_bit(args),
            F::ByteaSetBit => bytea::set_bit(args),
            F::ByteaBitCount => bytea::bit_count(args),
            F::ByteaTrim { leading, trailing } => bytea::trim(args, leading, trailing),
            F::ByteaOverlay => bytea::overlay(args),
            F::GenRandomUuid => bytea::gen_random_uuid(rows),
            F::UuidOssp(func) => func.eval(args, rows),
            F::Json(func) => func.eval(args, rows),
            F::Abs => math::abs(args),
            F::Round => math::round(args),
            F::Ceil => math::ceil_floor(args, true),
            F::Floor => math::ceil_floor(args, false),
            F::Trunc => math::trunc(args),
            F::Sign => math::sign(args),
            F::Mod => math::modulo(args),
            F::Div => numeric::div(args),
            F::Gcd => math::gcd_lcm(args, false),
            F::Lcm => math::gcd_lcm(args, true),
            F::Power => math::power(args),
            F::Sqrt => math::sqrt(args),
            F::Cbrt => math::float_unary(args, math::cbrt),
            F::Exp => math::exp(args),
            F::Ln => math::ln(args, false),
            F::Log10 => math::ln(args, true),
            F::Log => numeric::log(args),
            F::Pi => Ok(math::constant(std::f64::consts::PI, rows)),
            F::Random => Ok(math::random(rows)),
            F::Greatest => math::greatest_least(args, true),
            F::Least => math::greatest_least(args, false),
            F::WidthBucket => math::width_bucket(args),
            F::Degrees => math::float_unary(args, math::degrees),
            F::Radians => math::float_unary(args, math::radians),
            F::Sin => math::float_unary(args, math::sin),
            F::Cos => math::float_unary(args, math::cos),
            F::Tan => math::float_unary(args, math::tan),
            F::Cot => math::float_unary(args, math::cot),
            F::Asin => math::float_unary(args, math::asin),
            F::Acos => math::float_unary(args, math::acos),
            F::Atan => math::float_unary(args, |x| Ok(x.atan())),
            F::Atan2 => math::atan2(args),
            F::Factorial => numeric::factorial(args),
            F::Scale => numeric::scale(args, false),
            F::MinScale => numeric::scale(args, true),
            F::TrimScale => math::unary_num(args, |x| Ok(numeric::strip_zeros(*x))),
            F::Bit(op) => bitwise::eval(op, args),
            F::PgTypeof(ty) => Ok(string::constant(ty.name(), rows)),
            F::Array { func, result } => func.eval(args, rows, result),
            F::Vector(func) => func.eval(args),
            F::BitString(func) => func.eval(args),
            F::Network(func) => func.eval(args),
            F::Record(func) => func.eval(args, rows),
        }
    }
}
