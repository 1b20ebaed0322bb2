//! Which function a call means: the candidate signatures of each name and PostgreSQL's rules
//! for choosing among them (`func_select_candidate`), plus the common type of variadic
//! `GREATEST`/`LEAST` arguments (`select_common_type`). `round(5)` is `round(double
//! precision)` and `power(2, 3.0)` is `power(numeric, numeric)` exactly because of these rules.

use super::bytea::Sha;
use super::BitOp;
use super::BitStringFunction as B;
use super::JsonFunction as J;
use super::NetworkFunction as N;
use super::PathMode;
use super::ScalarFunction;
use super::ScalarFunction as F;
use super::UuidNamespace as Ns;
use super::UuidOssp as U;
use super::VectorFunction as V;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::types::{DataType, TypeCategory};

const I2: DataType = DataType::Int16;
const I4: DataType = DataType::Int32;
const I8: DataType = DataType::Int64;
const F8: DataType = DataType::Float64;
const NUM: DataType = DataType::Numeric(None);
const TEXT: DataType = DataType::Text;
const BOOL: DataType = DataType::Bool;
const TEXT_ARRAY: DataType = DataType::Array(&DataType::Text);
const BYTEA: DataType = DataType::Bytea;
const JSONB: DataType = DataType::Jsonb;
const JSON: DataType = DataType::Json;
const VECTOR: DataType = DataType::FloatVector(None);
const JSONPATH: DataType = DataType::JsonPath;
const BIT: DataType = DataType::Bit(None);
const INET: DataType = DataType::Inet;
const CIDR: DataType = DataType::Cidr;
const VARBIT: DataType = DataType::VarBit(None);
const UUID: DataType = DataType::Uuid;

/// btrim, ltrim and rtrim of bytea.
const BYTEA_TRIM: [ScalarFunction; 3] = [
    F::ByteaTrim {
        leading: true,
        trailing: true,
    },
    F::ByteaTrim {
        leading: true,
        trailing: false,
    },
    F::ByteaTrim {
        leading: false,
        trailing: true,
    },
];

/// The overloads of a binary bit operator: the same integer type, or bit string, on both
/// sides.
const fn bit_binary(op: BitOp) -> [Signature; 4] {
    [
        (F::Bit(op), &[I2, I2], I2),
        (F::Bit(op), &[I4, I4], I4),
        (F::Bit(op), &[I8, I8], I8),
        (F::BitString(B::Operator(op)), &[BIT, BIT], BIT),
    ]
}
/// A bit operator's overloads and inet's overload of the same symbol.
const fn with_network(base: [Signature; 4], network: Signature) -> [Signature; 5] {
    let [a, b, c, d] = base;
    [a, b, c, d, network]
}
/// The overloads of a jsonpath function: `(target, path [, vars [, silent]])`.
const fn path_signatures(mode: PathMode, result: DataType) -> [Signature; 3] {
    let func = F::Json(J::PathQuery {
        mode,
        operator: false,
    });
    [
        (func, &[JSONB, JSONPATH], result),
        (func, &[JSONB, JSONPATH, JSONB], result),
        (func, &[JSONB, JSONPATH, JSONB, BOOL], result),
    ]
}
/// The overloads of a shift: the count is always an integer.
const fn bit_shift(op: BitOp) -> [Signature; 4] {
    [
        (F::Bit(op), &[I2, I4], I2),
        (F::Bit(op), &[I4, I4], I4),
        (F::Bit(op), &[I8, I4], I8),
        (F::BitString(B::Operator(op)), &[BIT, I4], BIT),
    ]
}
const ABS: &[Signature] = &[
    (F::Abs, &[I2], I2),
    (F::Abs, &[I4], I4),
    (F::Abs, &[I8], I8),
    (F::Abs, &[DataType::Float32], DataType::Float32),
    (F::Abs, &[F8], F8),
    (F::Abs, &[NUM], NUM),
];

/// One overload: the function, its parameter types and its result type.
pub(super) type Signature = (F, &'static [DataType], DataType);

/// The overloads of `name` with fixed parameter lists (variadic functions are resolved
/// apart). Empty for unknown names.
pub(super) fn signatures(name: &str) -> &'static [Signature] {
    match name {
        "length" => &[
            (F::Length, &[TEXT], I4),
            (F::ByteaLength, &[BYTEA], I4),
            (F::BitString(B::Length), &[BIT], I4),
        ],
        "bit_length" => &[(F::BitString(B::Length), &[BIT], I4)],
        "bit_count" => &[
            (F::BitString(B::BitCount), &[BIT], I8),
            (F::ByteaBitCount, &[BYTEA], I8),
        ],
        "get_bit" => &[
            (F::BitString(B::GetBit), &[BIT, I4], I4),
            (F::ByteaGetBit, &[BYTEA, I8], I4),
        ],
        "set_bit" => &[
            (F::BitString(B::SetBit), &[BIT, I4, I4], BIT),
            (F::ByteaSetBit, &[BYTEA, I8, I4], BYTEA),
        ],
        "char_length" | "character_length" => &[(F::Length, &[TEXT], I4)],
        "octet_length" => &[
            (F::OctetLength, &[TEXT], I4),
            (F::ByteaLength, &[BYTEA], I4),
            (F::BitString(B::OctetLength), &[BIT], I4),
        ],
        "||" => &[
            (F::BitString(B::Concat), &[VARBIT, VARBIT], VARBIT),
            (F::ByteaConcat, &[BYTEA, BYTEA], BYTEA),
            (F::Json(J::Concat), &[JSONB, JSONB], JSONB),
            (F::Vector(V::Concat), &[VECTOR, VECTOR], VECTOR),
        ],
        "encode" => &[(F::Encode, &[BYTEA, TEXT], TEXT)],
        "decode" => &[(F::Decode, &[TEXT, TEXT], BYTEA)],
        "sha224" => &[(F::ShaDigest(Sha::Sha224), &[BYTEA], BYTEA)],
        "sha256" => &[(F::ShaDigest(Sha::Sha256), &[BYTEA], BYTEA)],
        "sha384" => &[(F::ShaDigest(Sha::Sha384), &[BYTEA], BYTEA)],
        "sha512" => &[(F::ShaDigest(Sha::Sha512), &[BYTEA], BYTEA)],
        "get_byte" => &[(F::GetByte, &[BYTEA, I4], I4)],
        "set_byte" => &[(F::SetByte, &[BYTEA, I4, I4], BYTEA)],
        "gen_random_uuid" | "uuid_generate_v4" => &[(F::GenRandomUuid, &[], DataType::Uuid)],
        "uuid_generate_v1" => &[(F::UuidOssp(U::TimeBased { multicast: false }), &[], UUID)],
        "uuid_generate_v1mc" => &[(F::UuidOssp(U::TimeBased { multicast: true }), &[], UUID)],
        "uuid_generate_v3" => &[(
            F::UuidOssp(U::NameBased { sha1: false }),
            &[UUID, TEXT],
            UUID,
        )],
        "uuid_generate_v5" => &[(
            F::UuidOssp(U::NameBased { sha1: true }),
            &[UUID, TEXT],
            UUID,
        )],
        "uuid_nil" => &[(F::UuidOssp(U::Nil), &[], UUID)],
        "uuid_ns_dns" => &[(F::UuidOssp(U::Namespace(Ns::Dns)), &[], UUID)],
        "uuid_ns_url" => &[(F::UuidOssp(U::Namespace(Ns::Url)), &[], UUID)],
        "uuid_ns_oid" => &[(F::UuidOssp(U::Namespace(Ns::Oid)), &[], UUID)],
        "uuid_ns_x500" => &[(F::UuidOssp(U::Namespace(Ns::X500)), &[], UUID)],
        "->" => &[
            (
                F::Json(J::Field {
                    as_text: false,
                    json: false,
                }),
                &[JSONB, TEXT],
                JSONB,
            ),
            (
                F::Json(J::Element {
                    as_text: false,
                    json: false,
                }),
                &[JSONB, I4],
                JSONB,
            ),
            (
                F::Json(J::Field {
                    as_text: false,
                    json: true,
                }),
                &[JSON, TEXT],
                JSON,
            ),
            (
                F::Json(J::Element {
                    as_text: false,
                    json: true,
                }),
                &[JSON, I4],
                JSON,
            ),
        ],
        "->>" => &[
            (
                F::Json(J::Field {
                    as_text: true,
                    json: false,
                }),
                &[JSONB, TEXT],
                TEXT,
            ),
            (
                F::Json(J::Element {
                    as_text: true,
                    json: false,
                }),
                &[JSONB, I4],
                TEXT,
            ),
            (
                F::Json(J::Field {
                    as_text: true,
                    json: true,
                }),
                &[JSON, TEXT],
                TEXT,
            ),
            (
                F::Json(J::Element {
                    as_text: true,
                    json: true,
                }),
                &[JSON, I4],
                TEXT,
            ),
        ],
        "#>" => &[
            (
                F::Json(J::Path {
                    as_text: false,
                    json: false,
                }),
                &[JSONB, TEXT_ARRAY],
                JSONB,
            ),
            (
                F::Json(J::Path {
                    as_text: false,
                    json: true,
                }),
                &[JSON, TEXT_ARRAY],
                JSON,
            ),
        ],
        "#>>" => &[
            (
                F::Json(J::Path {
                    as_text: true,
                    json: false,
                }),
                &[JSONB, TEXT_ARRAY],
                TEXT,
            ),
            (
                F::Json(J::Path {
                    as_text: true,
                    json: true,
                }),
                &[JSON, TEXT_ARRAY],
                TEXT,
            ),
        ],
        "@>" => &[(
            F::Json(J::Contains { swapped: false }),
            &[JSONB, JSONB],
            BOOL,
        )],
        "<@" => &[(
            F::Json(J::Contains { swapped: true }),
            &[JSONB, JSONB],
            BOOL,
        )],
        "?" => &[(F::Json(J::Exists), &[JSONB, TEXT], BOOL)],
        "?|" => &[(
            F::Json(J::ExistsKeys { all: false }),
            &[JSONB, TEXT_ARRAY],
            BOOL,
        )],
        "?&" => &[(
            F::Json(J::ExistsKeys { all: true }),
            &[JSONB, TEXT_ARRAY],
            BOOL,
        )],
        "-" => &[
            (F::Json(J::DeleteKey), &[JSONB, TEXT], JSONB),
            (F::Json(J::DeleteIndex), &[JSONB, I4], JSONB),
            (F::Json(J::DeleteKeys), &[JSONB, TEXT_ARRAY], JSONB),
            (F::Vector(V::Subtract), &[VECTOR, VECTOR], VECTOR),
            (F::Network(N::SubtractInt), &[INET, I8], INET),
            (F::Network(N::Difference), &[INET, INET], I8),
        ],
        "#-" => &[(F::Json(J::DeletePath), &[JSONB, TEXT_ARRAY], JSONB)],
        "jsonb_typeof" => &[(F::Json(J::Typeof { json: false }), &[JSONB], TEXT)],
        "json_typeof" => &[(F::Json(J::Typeof { json: true }), &[JSON], TEXT)],
        "jsonb_array_length" => &[(F::Json(J::ArrayLength { json: false }), &[JSONB], I4)],
        "json_array_length" => &[(F::Json(J::ArrayLength { json: true }), &[JSON], I4)],
        "jsonb_pretty" => &[(F::Json(J::Pretty), &[JSONB], TEXT)],
        "jsonb_set" => &[
            (F::Json(J::Set), &[JSONB, TEXT_ARRAY, JSONB], JSONB),
            (F::Json(J::Set), &[JSONB, TEXT_ARRAY, JSONB, BOOL], JSONB),
        ],
        "jsonb_set_lax" => &[
            (F::Json(J::SetLax), &[JSONB, TEXT_ARRAY, JSONB], JSONB),
            (F::Json(J::SetLax), &[JSONB, TEXT_ARRAY, JSONB, BOOL], JSONB),
            (
                F::Json(J::SetLax),
                &[JSONB, TEXT_ARRAY, JSONB, BOOL, TEXT],
                JSONB,
            ),
        ],
        "jsonb_insert" => &[
            (F::Json(J::Insert), &[JSONB, TEXT_ARRAY, JSONB], JSONB),
            (F::Json(J::Insert), &[JSONB, TEXT_ARRAY, JSONB, BOOL], JSONB),
        ],
        "jsonb_path_exists" => &const { path_signatures(PathMode::Exists, BOOL) },
        "jsonb_path_match" => &const { path_signatures(PathMode::Match, BOOL) },
        "jsonb_path_query_array" => &const { path_signatures(PathMode::QueryArray, JSONB) },
        "jsonb_path_query_first" => &const { path_signatures(PathMode::QueryFirst, JSONB) },
        "@?" => &[(
            F::Json(J::PathQuery {
                mode: PathMode::Exists,
                operator: true,
            }),
            &[JSONB, JSONPATH],
            BOOL,
        )],
        "@@" => &[(
            F::Json(J::PathQuery {
                mode: PathMode::Match,
                operator: true,
            }),
            &[JSONB, JSONPATH],
            BOOL,
        )],
        "jsonb_strip_nulls" => &[(F::Json(J::StripNulls { json: false }), &[JSONB], JSONB)],
        "json_strip_nulls" => &[(F::Json(J::StripNulls { json: true }), &[JSON], JSON)],
        "jsonb_object" => &[
            (F::Json(J::Object { jsonb: true }), &[TEXT_ARRAY], JSONB),
            (
                F::Json(J::Object { jsonb: true }),
                &[TEXT_ARRAY, TEXT_ARRAY],
                JSONB,
            ),
        ],
        "json_object" => &[
            (F::Json(J::Object { jsonb: false }), &[TEXT_ARRAY], JSON),
            (
                F::Json(J::Object { jsonb: false }),
                &[TEXT_ARRAY, TEXT_ARRAY],
                JSON,
            ),
        ],
        "lower" => &[(F::Lower, &[TEXT], TEXT)],
        "upper" => &[(F::Upper, &[TEXT], TEXT)],
        "initcap" => &[(F::Initcap, &[TEXT], TEXT)],
        "unistr" => &[(F::Unistr, &[TEXT], TEXT)],
        "substr" => &[
            (F::Substr, &[TEXT, I4], TEXT),
            (F::Substr, &[TEXT, I4, I4], TEXT),
            (F::ByteaSubstr, &[BYTEA, I4], BYTEA),
            (F::ByteaSubstr, &[BYTEA, I4, I4], BYTEA),
        ],
        "substring" => &[
            (F::Substr, &[TEXT, I4], TEXT),
            (F::Substr, &[TEXT, I4, I4], TEXT),
            (F::ByteaSubstr, &[BYTEA, I4], BYTEA),
            (F::ByteaSubstr, &[BYTEA, I4, I4], BYTEA),
            (F::SubstringRegex, &[TEXT, TEXT], TEXT),
            (F::BitString(B::Substring), &[BIT, I4], BIT),
            (F::BitString(B::Substring), &[BIT, I4, I4], BIT),
        ],
        "strpos" => &[(F::Strpos, &[TEXT, TEXT], I4)],
        // POSITION(needle IN s) binds as position(s, needle).
        "position" => &[
            (F::Strpos, &[TEXT, TEXT], I4),
            (F::ByteaPosition, &[BYTEA, BYTEA], I4),
            (F::BitString(B::Position), &[BIT, BIT], I4),
        ],
        "btrim" => &[
            (F::Btrim, &[TEXT], TEXT),
            (F::Btrim, &[TEXT, TEXT], TEXT),
            (BYTEA_TRIM[0], &[BYTEA, BYTEA], BYTEA),
        ],
        "ltrim" => &[
            (F::Ltrim, &[TEXT], TEXT),
            (F::Ltrim, &[TEXT, TEXT], TEXT),
            (BYTEA_TRIM[1], &[BYTEA, BYTEA], BYTEA),
        ],
        "rtrim" => &[
            (F::Rtrim, &[TEXT], TEXT),
            (F::Rtrim, &[TEXT, TEXT], TEXT),
            (BYTEA_TRIM[2], &[BYTEA, BYTEA], BYTEA),
        ],
        "replace" => &[(F::Replace, &[TEXT, TEXT, TEXT], TEXT)],
        "left" => &[(F::Left, &[TEXT, I4], TEXT)],
        "right" => &[(F::Right, &[TEXT, I4], TEXT)],
        "lpad" => &[
            (F::Lpad, &[TEXT, I4], TEXT),
            (F::Lpad, &[TEXT, I4, TEXT], TEXT),
        ],
        "rpad" => &[
            (F::Rpad, &[TEXT, I4], TEXT),
            (F::Rpad, &[TEXT, I4, TEXT], TEXT),
        ],
        "repeat" => &[(F::Repeat, &[TEXT, I4], TEXT)],
        "reverse" => &[(F::Reverse, &[TEXT], TEXT)],
        "split_part" => &[(F::SplitPart, &[TEXT, TEXT, I4], TEXT)],
        "starts_with" => &[(F::StartsWith, &[TEXT, TEXT], BOOL)],
        "md5" => &[(F::Md5, &[TEXT], TEXT), (F::ByteaMd5, &[BYTEA], TEXT)],
        "to_number" => &[(F::ToNumber, &[TEXT, TEXT], NUM)],
        "to_char" => &[
            (F::ToCharNumber, &[I4, TEXT], TEXT),
            (F::ToCharNumber, &[I8, TEXT], TEXT),
            (F::ToCharNumber, &[DataType::Float32, TEXT], TEXT),
            (F::ToCharNumber, &[F8, TEXT], TEXT),
            (F::ToCharNumber, &[NUM, TEXT], TEXT),
        ],
        "regexp_replace" => &[
            (F::RegexpReplace, &[TEXT, TEXT, TEXT], TEXT),
            (F::RegexpReplace, &[TEXT, TEXT, TEXT, TEXT], TEXT),
            (F::RegexpReplaceFrom, &[TEXT, TEXT, TEXT, I4], TEXT),
            (F::RegexpReplaceFrom, &[TEXT, TEXT, TEXT, I4, I4], TEXT),
            (
                F::RegexpReplaceFrom,
                &[TEXT, TEXT, TEXT, I4, I4, TEXT],
                TEXT,
            ),
        ],
        "regexp_count" => &[
            (F::RegexpCount, &[TEXT, TEXT], I4),
            (F::RegexpCount, &[TEXT, TEXT, I4], I4),
            (F::RegexpCount, &[TEXT, TEXT, I4, TEXT], I4),
        ],
        "regexp_instr" => &[
            (F::RegexpInstr, &[TEXT, TEXT], I4),
            (F::RegexpInstr, &[TEXT, TEXT, I4], I4),
            (F::RegexpInstr, &[TEXT, TEXT, I4, I4], I4),
            (F::RegexpInstr, &[TEXT, TEXT, I4, I4, I4], I4),
            (F::RegexpInstr, &[TEXT, TEXT, I4, I4, I4, TEXT], I4),
            (F::RegexpInstr, &[TEXT, TEXT, I4, I4, I4, TEXT, I4], I4),
        ],
        "regexp_like" => &[
            (F::RegexpLike, &[TEXT, TEXT], BOOL),
            (F::RegexpLike, &[TEXT, TEXT, TEXT], BOOL),
        ],
        "regexp_substr" => &[
            (F::RegexpSubstr, &[TEXT, TEXT], TEXT),
            (F::RegexpSubstr, &[TEXT, TEXT, I4], TEXT),
            (F::RegexpSubstr, &[TEXT, TEXT, I4, I4], TEXT),
            (F::RegexpSubstr, &[TEXT, TEXT, I4, I4, TEXT], TEXT),
            (F::RegexpSubstr, &[TEXT, TEXT, I4, I4, TEXT, I4], TEXT),
        ],
        "regexp_match" => &[
            (F::RegexpMatch, &[TEXT, TEXT], TEXT_ARRAY),
            (F::RegexpMatch, &[TEXT, TEXT, TEXT], TEXT_ARRAY),
        ],
        "regexp_split_to_array" => &[
            (F::RegexpSplitToArray, &[TEXT, TEXT], TEXT_ARRAY),
            (F::RegexpSplitToArray, &[TEXT, TEXT, TEXT], TEXT_ARRAY),
        ],
        "similar_to_escape" => &[
            (F::SimilarToEscape, &[TEXT], TEXT),
            (F::SimilarToEscape, &[TEXT, TEXT], TEXT),
        ],
        "chr" => &[(F::Chr, &[I4], TEXT)],
        "ascii" => &[(F::Ascii, &[TEXT], I4)],
        "to_hex" => &[(F::ToHex, &[I4], TEXT), (F::ToHex, &[I8], TEXT)],
        "quote_ident" => &[(F::QuoteIdent, &[TEXT], TEXT)],
        "translate" => &[(F::Translate, &[TEXT, TEXT, TEXT], TEXT)],
        "overlay" => &[
            (F::Overlay, &[TEXT, TEXT, I4], TEXT),
            (F::Overlay, &[TEXT, TEXT, I4, I4], TEXT),
            (F::ByteaOverlay, &[BYTEA, BYTEA, I4], BYTEA),
            (F::ByteaOverlay, &[BYTEA, BYTEA, I4, I4], BYTEA),
            (F::BitString(B::Overlay), &[BIT, BIT, I4], BIT),
            (F::BitString(B::Overlay), &[BIT, BIT, I4, I4], BIT),
        ],
        // `@` is the prefix operator form of abs.
        "abs" | "@" => ABS,
        "round" => &[
            (F::Round, &[F8], F8),
            (F::Round, &[NUM], NUM),
            (F::Round, &[NUM, I4], NUM),
        ],
        "trunc" => &[
            (F::Trunc, &[F8], F8),
            (F::Trunc, &[NUM], NUM),
            (F::Trunc, &[NUM, I4], NUM),
        ],
        "ceil" | "ceiling" => &[(F::Ceil, &[F8], F8), (F::Ceil, &[NUM], NUM)],
        "floor" => &[(F::Floor, &[F8], F8), (F::Floor, &[NUM], NUM)],
        "sign" => &[(F::Sign, &[F8], F8), (F::Sign, &[NUM], NUM)],
        "mod" => &[
            (F::Mod, &[I2, I2], I2),
            (F::Mod, &[I4, I4], I4),
            (F::Mod, &[I8, I8], I8),
            (F::Mod, &[NUM, NUM], NUM),
        ],
        "div" => &[(F::Div, &[NUM, NUM], NUM)],
        "gcd" => &[
            (F::Gcd, &[I4, I4], I4),
            (F::Gcd, &[I8, I8], I8),
            (F::Gcd, &[NUM, NUM], NUM),
        ],
        "lcm" => &[
            (F::Lcm, &[I4, I4], I4),
            (F::Lcm, &[I8, I8], I8),
            (F::Lcm, &[NUM, NUM], NUM),
        ],
        "power" | "pow" | "^" => &[(F::Power, &[F8, F8], F8), (F::Power, &[NUM, NUM], NUM)],
        "sqrt" => &[(F::Sqrt, &[F8], F8), (F::Sqrt, &[NUM], NUM)],
        "|/" => &[(F::Sqrt, &[F8], F8)],
        "||/" => &[(F::Cbrt, &[F8], F8)],
        "factorial" => &[(F::Factorial, &[I8], NUM)],
        "scale" => &[(F::Scale, &[NUM], I4)],
        "min_scale" => &[(F::MinScale, &[NUM], I4)],
        "trim_scale" => &[(F::TrimScale, &[NUM], NUM)],
        "&" => {
            &const {
                with_network(
                    bit_binary(BitOp::And),
                    (F::Network(N::And), &[INET, INET], INET),
                )
            }
        }
        "|" => {
            &const {
                with_network(
                    bit_binary(BitOp::Or),
                    (F::Network(N::Or), &[INET, INET], INET),
                )
            }
        }
        "#" => &const { bit_binary(BitOp::Xor) },
        "<<" => {
            &const {
                with_network(
                    bit_shift(BitOp::ShiftLeft),
                    (
                        F::Network(N::Within { or_equal: false }),
                        &[INET, INET],
                        BOOL,
                    ),
                )
            }
        }
        ">>" => {
            &const {
                with_network(
                    bit_shift(BitOp::ShiftRight),
                    (
                        F::Network(N::Contains { or_equal: false }),
                        &[INET, INET],
                        BOOL,
                    ),
                )
            }
        }
        "<<=" => &[(
            F::Network(N::Within { or_equal: true }),
            &[INET, INET],
            BOOL,
        )],
        ">>=" => &[(
            F::Network(N::Contains { or_equal: true }),
            &[INET, INET],
            BOOL,
        )],
        "&&" => &[(F::Network(N::Overlaps), &[INET, INET], BOOL)],
        "host" => &[(F::Network(N::Host), &[INET], TEXT)],
        "text" => &[(F::Network(N::Text), &[INET], TEXT)],
        "abbrev" => &[
            (F::Network(N::Abbrev), &[INET], TEXT),
            (F::Network(N::Abbrev), &[CIDR], TEXT),
        ],
        "masklen" => &[(F::Network(N::Masklen), &[INET], I4)],
        "set_masklen" => &[
            (F::Network(N::SetMasklen), &[INET, I4], INET),
            (F::Network(N::SetMasklen), &[CIDR, I4], CIDR),
        ],
        "netmask" => &[(F::Network(N::Netmask), &[INET], INET)],
        "hostmask" => &[(F::Network(N::Hostmask), &[INET], INET)],
        "network" => &[(F::Network(N::Network), &[INET], CIDR)],
        "broadcast" => &[(F::Network(N::Broadcast), &[INET], INET)],
        "family" => &[(F::Network(N::Family), &[INET], I4)],
        "inet_same_family" => &[(F::Network(N::SameFamily), &[INET, INET], BOOL)],
        "inet_merge" => &[(F::Network(N::Merge), &[INET, INET], CIDR)],
        "~" => &[
            (F::Bit(BitOp::Not), &[I2], I2),
            (F::Bit(BitOp::Not), &[I4], I4),
            (F::Bit(BitOp::Not), &[I8], I8),
            (F::BitString(B::Operator(BitOp::Not)), &[BIT], BIT),
            (F::Network(N::Not), &[INET], INET),
        ],
        "cbrt" => &[(F::Cbrt, &[F8], F8)],
        "exp" => &[(F::Exp, &[F8], F8), (F::Exp, &[NUM], NUM)],
        "ln" => &[(F::Ln, &[F8], F8), (F::Ln, &[NUM], NUM)],
        "log" => &[
            (F::Log10, &[F8], F8),
            (F::Log10, &[NUM], NUM),
            (F::Log, &[NUM, NUM], NUM),
        ],
        "log10" => &[(F::Log10, &[F8], F8), (F::Log10, &[NUM], NUM)],
        "pi" => &[(F::Pi, &[], F8)],
        "random" => &[(F::Random, &[], F8)],
        "width_bucket" => &[
            (F::WidthBucket, &[F8, F8, F8, I4], I4),
            (F::WidthBucket, &[NUM, NUM, NUM, I4], I4),
        ],
        "degrees" => &[(F::Degrees, &[F8], F8)],
        "radians" => &[(F::Radians, &[F8], F8)],
        "sin" => &[(F::Sin, &[F8], F8)],
        "cos" => &[(F::Cos, &[F8], F8)],
        "tan" => &[(F::Tan, &[F8], F8)],
        "cot" => &[(F::Cot, &[F8], F8)],
        "asin" => &[(F::Asin, &[F8], F8)],
        "acos" => &[(F::Acos, &[F8], F8)],
        "atan" => &[(F::Atan, &[F8], F8)],
        "atan2" => &[(F::Atan2, &[F8, F8], F8)],
        "l2_distance" | "<->" => &[(F::Vector(V::L2Distance), &[VECTOR, VECTOR], F8)],
        "inner_product" => &[(F::Vector(V::InnerProduct), &[VECTOR, VECTOR], F8)],
        "vector_negative_inner_product" | "<#>" => {
            &[(F::Vector(V::NegativeInnerProduct), &[VECTOR, VECTOR], F8)]
        }
        "cosine_distance" | "<=>" => &[(F::Vector(V::CosineDistance), &[VECTOR, VECTOR], F8)],
        "l1_distance" | "<+>" => &[(F::Vector(V::L1Distance), &[VECTOR, VECTOR], F8)],
        "vector_dims" => &[(F::Vector(V::Dims), &[VECTOR], I4)],
        "vector_norm" => &[(F::Vector(V::Norm), &[VECTOR], F8)],
        "l2_normalize" => &[(F::Vector(V::L2Normalize), &[VECTOR], VECTOR)],
        "subvector" => &[(F::Vector(V::Subvector), &[VECTOR, I4, I4], VECTOR)],
        "vector_cmp" => &[(F::Vector(V::Compare), &[VECTOR, VECTOR], I4)],
        "+" => &[
            (F::Vector(V::Add), &[VECTOR, VECTOR], VECTOR),
            (F::Network(N::Add { swapped: false }), &[INET, I8], INET),
            (F::Network(N::Add { swapped: true }), &[I8, INET], INET),
        ],
        "*" => &[(F::Vector(V::Multiply), &[VECTOR, VECTOR], VECTOR)],
        _ => &[],
    }
}

/// The type as overload resolution compares it: without type modifiers.
fn base(ty: DataType) -> DataType {
    match ty {
        DataType::Numeric(_) => NUM,
        DataType::Varchar(_) => DataType::Varchar(None),
        DataType::Char(_) => DataType::Char(None),
        DataType::FloatVector(_) => VECTOR,
        DataType::Bit(_) => BIT,
        DataType::VarBit(_) => VARBIT,
        other => other,
    }
}

/// PostgreSQL's preferred type of a category (`typispreferred`).
fn is_preferred(ty: DataType) -> bool {
    matches!(
        ty,
        DataType::Float64 | DataType::Text | DataType::Bool | DataType::Inet
    )
}

/// Chooses among `candidates` for arguments of `inputs` types as PostgreSQL's
/// func_select_candidate does. `Ok(None)` when none accepts the arguments; 42725 when
/// several remain equally good.
pub(super) fn select(
    name: &str,
    inputs: &[DataType],
    candidates: &'static [Signature],
) -> Result<Option<&'static Signature>> {
    let mut viable: Vec<&Signature> = candidates
        .iter()
        .filter(|(_, params, _)| {
            params.len() == inputs.len()
                && inputs.iter().zip(params.iter()).all(|(&input, &param)| {
                    base(input) == base(param) || can_cast(input, param, CastContext::Implicit)
                })
        })
        .collect();
    if viable.len() > 1 {
        // Most exact matches on the typed arguments, then most preferred types where a
        // typed argument needs a cast.
        keep_best(&mut viable, |params| {
            count(inputs, params, |input, param| base(input) == base(param))
        });
        keep_best(&mut viable, |params| {
            count(inputs, params, |input, param| {
                base(input) == base(param)
                    || (is_preferred(param) && param.category() == input.category())
            })
        });
    }
    if viable.len() > 1 {
        resolve_unknowns(inputs, &mut viable);
    }
    match viable.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        _ => Err(Error::new(
            SqlState::AmbiguousFunction,
            format!("function {name}({}) is not unique", type_list(inputs)),
        )
        .with_hint(
            "Could not choose a best candidate function. You might need to add explicit type casts.",
        )),
    }
}

fn count(
    inputs: &[DataType],
    params: &[DataType],
    matches: impl Fn(DataType, DataType) -> bool,
) -> usize {
    inputs
        .iter()
        .zip(params)
        .filter(|&(&input, &param)| input != DataType::Unknown && matches(input, param))
        .count()
}

/// Keeps the candidates with the highest score (all of them if every score is equal).
fn keep_best(viable: &mut Vec<&Signature>, score: impl Fn(&[DataType]) -> usize) {
    let best = viable.iter().map(|(_, p, _)| score(p)).max().unwrap_or(0);
    viable.retain(|(_, p, _)| score(p) == best);
}

/// For each untyped (`unknown`) argument: the string category wins if any candidate takes
/// a string there, else the category all candidates agree on; within it the preferred type.
fn resolve_unknowns(inputs: &[DataType], viable: &mut Vec<&Signature>) {
    for (i, _) in inputs
        .iter()
        .enumerate()
        .filter(|(_, &t)| t == DataType::Unknown)
    {
        let categories: Vec<TypeCategory> =
            viable.iter().map(|(_, p, _)| p[i].category()).collect();
        let category = if categories.contains(&TypeCategory::String) {
            TypeCategory::String
        } else if categories.windows(2).all(|w| w[0] == w[1]) {
            categories[0]
        } else {
            return;
        };
        let has_preferred = viable
            .iter()
            .any(|(_, p, _)| p[i].category() == category && is_preferred(p[i]));
        let kept: Vec<&Signature> = viable
            .iter()
            .copied()
            .filter(|(_, p, _)| {
                p[i].category() == category && (!has_preferred || is_preferred(p[i]))
            })
            .collect();
        if !kept.is_empty() {
            *viable = kept;
        }
    }
}

/// The type GREATEST/LEAST (`what`) arguments meet at: PostgreSQL's select_common_type.
/// Untyped arguments alone are text.
pub(super) fn common_type(inputs: &[DataType], what: &str) -> Result<DataType> {
    let mut result = DataType::Unknown;
    for &ty in inputs {
        let ty = base(ty);
        if ty == DataType::Unknown || ty == result {
            continue;
        }
        if result == DataType::Unknown {
            result = ty;
        } else if ty.category() != result.category() {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!("{what} types {result} and {ty} cannot be matched"),
            ));
        } else if !is_preferred(result)
            && can_cast(result, ty, CastContext::Implicit)
            && !can_cast(ty, result, CastContext::Implicit)
        {
            result = ty;
        }
    }
    Ok(match result {
        DataType::Unknown => TEXT,
        other => other,
    })
}

pub(super) fn type_list(types: &[DataType]) -> String {
    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    names.join(", ")
}
