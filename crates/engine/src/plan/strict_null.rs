//! Strict operators and functions applied to a NULL constant are NULL, whatever their other
//! arguments: PostgreSQL's planner replaces them with a NULL constant before anything runs
//! (`eval_const_expressions`), so `NULL <= 1 / x` never divides and never fails. The binder
//! does the same to every expression it binds, independently of the optimizer's rules, so the
//! answer does not depend on which rules are switched on.

use super::ScalarExpr;
use crate::function::{RecordFunction, ScalarFunction};

impl ScalarExpr {
    /// This expression with every strict node that has a NULL constant argument replaced by a
    /// NULL constant of its type, bottom up.
    #[recursive::recursive]
    pub fn fold_strict_nulls(self) -> ScalarExpr {
        if !self.has_strict_null() {
            return self;
        }
        // Folding children cannot fail; the clone is taken only for an expression that has
        // something to fold.
        let unchanged = self.clone();
        let Ok(folded) = self.try_map_children(&mut |child| Ok(child.fold_strict_nulls())) else {
            return unchanged;
        };
        if folded.is_strict_over_null() {
            ScalarExpr::null(folded.ty())
        } else {
            folded
        }
    }

    /// Whether some node of this expression is strict over a NULL constant.
    fn has_strict_null(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= e.is_strict_over_null());
        found
    }

    /// Whether this node is NULL because it is strict and one of its direct arguments is a
    /// NULL constant.
    pub(crate) fn is_strict_over_null(&self) -> bool {
        let null = |e: &ScalarExpr| {
            matches!(
                e,
                ScalarExpr::Literal {
                    value: crate::types::ScalarValue::Null,
                    ..
                }
            )
        };
        match self {
            ScalarExpr::Cast { input, .. } | ScalarExpr::Negate(input) | ScalarExpr::Not(input) => {
                null(input)
            }
            ScalarExpr::Arithmetic { left, right, .. }
            | ScalarExpr::Compare { left, right, .. }
            | ScalarExpr::Concat(left, right) => null(left) || null(right),
            // AND and OR are not strict, but of two NULLs they are NULL.
            ScalarExpr::And(left, right) | ScalarExpr::Or(left, right) => null(left) && null(right),
            ScalarExpr::Like { input, pattern, .. } => null(input) || null(pattern),
            // PostgreSQL turns the list items that read columns into `x = item` clauses
            // (each strict) and the constant ones into one `x = ANY(array)`, folded only
            // when all of it is constant: a constant item that is not a literal (`1 / 0`)
            // is still evaluated, and may fail.
            // A one-item list is `x = item` in PostgreSQL, strict in both.
            ScalarExpr::InList { input, list, .. } if list.len() == 1 => {
                null(input) || null(&list[0])
            }
            ScalarExpr::InList { input, list, .. } => {
                null(input)
                    && list.iter().all(|item| {
                        matches!(item, ScalarExpr::Literal { .. }) || !item.is_constant()
                    })
            }
            ScalarExpr::Function { func, args, .. } => func.is_strict() && args.iter().any(null),
            ScalarExpr::DateTimeFunction { args, .. } => args.iter().any(null),
            ScalarExpr::Column { .. }
            | ScalarExpr::Literal { .. }
            | ScalarExpr::Param { .. }
            | ScalarExpr::IsNull { .. }
            | ScalarExpr::BoolTest { .. }
            | ScalarExpr::IsDistinctFrom { .. }
            | ScalarExpr::Case { .. }
            | ScalarExpr::Coalesce { .. }
            | ScalarExpr::OuterColumn { .. }
            | ScalarExpr::Subquery(_)
            | ScalarExpr::SequenceCall { .. }
            | ScalarExpr::CatalogCall { .. }
            | ScalarExpr::DomainCheck { .. }
            | ScalarExpr::SessionInfo(_) => false,
        }
    }
}

impl ScalarFunction {
    /// Whether a NULL argument makes the result NULL without looking at the others
    /// (`proisstrict` in PostgreSQL's pg_proc).
    pub fn is_strict(self) -> bool {
        use ScalarFunction as F;
        match self {
            F::Concat
            | F::ConcatWs
            | F::Format
            | F::FormatVariadic
            | F::QuoteNullable
            | F::Greatest
            | F::Least
            | F::PgTypeof(_)
            | F::Record(RecordFunction::Row(_)) => false,
            F::Record(RecordFunction::Field(_)) => true,
            F::Array { func, .. } => func.is_strict(),
            F::Json(func) => func.is_strict(),
            F::Length
            | F::OctetLength
            | F::Lower
            | F::Upper
            | F::Initcap
            | F::Unistr
            | F::Substr
            | F::SubstringRegex
            | F::Strpos
            | F::Btrim
            | F::Ltrim
            | F::Rtrim
            | F::Replace
            | F::Left
            | F::Right
            | F::Lpad
            | F::Rpad
            | F::Repeat
            | F::Reverse
            | F::SplitPart
            | F::StartsWith
            | F::Md5
            | F::RegexpReplace
            | F::RegexpReplaceFrom
            | F::RegexpCount
            | F::RegexpInstr
            | F::RegexpLike
            | F::RegexpSubstr
            | F::SimilarToEscape
            | F::RegexpMatch
            | F::RegexpSplitToArray
            | F::RegexMatch { .. }
            | F::ToCharNumber
            | F::ToNumber
            | F::Chr
            | F::Ascii
            | F::ToHex
            | F::QuoteIdent
            | F::QuoteLiteral
            | F::Overlay
            | F::Translate
            | F::ByteaLength
            | F::ByteaConcat
            | F::ByteaSubstr
            | F::ByteaPosition
            | F::Encode
            | F::Decode
            | F::ByteaMd5
            | F::ShaDigest(_)
            | F::GetByte
            | F::SetByte
            | F::ByteaGetBit
            | F::ByteaSetBit
            | F::ByteaBitCount
            | F::ByteaTrim { .. }
            | F::ByteaOverlay
            | F::GenRandomUuid
            | F::UuidOssp(_)
            | F::Vector(_)
            | F::Abs
            | F::Round
            | F::Ceil
            | F::Floor
            | F::Trunc
            | F::Sign
            | F::Mod
            | F::Div
            | F::Gcd
            | F::Lcm
            | F::Power
            | F::Sqrt
            | F::Cbrt
            | F::Exp
            | F::Ln
            | F::Log10
            | F::Log
            | F::Pi
            | F::Random
            | F::WidthBucket
            | F::Degrees
            | F::Radians
            | F::Sin
            | F::Cos
            | F::Tan
            | F::Cot
            | F::Asin
            | F::Acos
            | F::Atan
            | F::Atan2
            | F::Factorial
            | F::Scale
            | F::MinScale
            | F::TrimScale
            | F::Bit(_)
            | F::BitString(_)
            | F::Network(_) => true,
        }
    }
}
