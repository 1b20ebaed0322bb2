//! `to_char(number, format)` and `to_number(text, format)`: PostgreSQL's numeric formatting (formatting.c's NUMDesc and
//! NUM_processor) for the digit (`9`, `0`), decimal point (`.`, `D`), group separator (`,`,
//! `G`), fill mode (`FM`), sign (`S`, `MI`, `PL`, `SG`, `PR`), currency (`L`) and ordinal
//! (`TH`) patterns and scientific notation (`EEEE`), in the C locale the server runs with.
//! Other patterns (`V`, `RN`, `B`, quoted text) are 0A000 rather than a guess.
//!
//! The value is first rendered as digits with exactly the mask's number of decimals
//! (rounded half away from zero for numeric and integers, as C's printf rounds for floats),
//! or as `#`s when its integer part is wider than the mask; the processor then walks the mask
//! and places spaces, zeros, digits and the sign.

use super::kernel::{arg, map_text_rows, texts};
use crate::error::{Error, Result, SqlState};
use crate::vector::{utf8_width, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Nine,
    Zero,
    Point,
    Comma,
    /// `L`: the currency symbol, a blank in the C locale.
    Currency,
    /// `TH` or `th`: the ordinal suffix.
    Ordinal {
        upper: bool,
    },
    /// `EEEE`: scientific notation, the whole output.
    Exponent,
    Fill,
    Sign,
    Minus,
    Plus,
    SignAny,
    Bracket,
}

enum Node {
    Key(Key),
    Literal(char),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LocaleSign {
    None,
    Pre,
    Post,
}

/// The mask's counts and flags (PostgreSQL's NUMDesc).
struct Mask {
    nodes: Vec<Node>,
    pre: usize,
    post: usize,
    /// 1-based position among the integer digits of the first `0`; 0 without one.
    zero_start: usize,
    zero_end: usize,
    zero: bool,
    decimal: bool,
    fill: bool,
    lsign: LocaleSign,
    pre_lsign_num: usize,
    minus: bool,
    plus: bool,
    bracket: bool,
    exponent: bool,
}

fn syntax(message: &str) -> Error {
    Error::new(SqlState::SyntaxError, message)
}

const KEYS: &[(&str, Key)] = &[
    ("FM", Key::Fill),
    ("EEEE", Key::Exponent),
    ("eeee", Key::Exponent),
    ("TH", Key::Ordinal { upper: true }),
    ("th", Key::Ordinal { upper: false }),
    ("L", Key::Currency),
    ("l", Key::Currency),
    ("fm", Key::Fill),
    ("MI", Key::Minus),
    ("mi", Key::Minus),
    ("PL", Key::Plus),
    ("pl", Key::Plus),
    ("PR", Key::Bracket),
    ("pr", Key::Bracket),
    ("SG", Key::SignAny),
    ("sg", Key::SignAny),
    ("S", Key::Sign),
    ("s", Key::Sign),
    ("D", Key::Point),
    ("d", Key::Point),
    ("G", Key::Comma),
    ("g", Key::Comma),
    ("9", Key::Nine),
    ("0", Key::Zero),
    (".", Key::Point),
    (",", Key::Comma),
];

/// How many pattern nodes to_char handles between looks at the statement's interrupt: a
/// user may send a mask of a hundred million.
const INTERRUPT_CHECK_NODES: usize = 1 << 16;

impl Mask {
    fn parse(format: &str) -> Result<Mask> {
        let mut mask = Mask {
            nodes: Vec::new(),
            pre: 0,
            post: 0,
            zero_start: 0,
            zero_end: 0,
            zero: false,
            decimal: false,
            fill: false,
            lsign: LocaleSign::None,
            pre_lsign_num: 0,
            minus: false,
            plus: false,
            bracket: false,
            exponent: false,
        };
        let mut rest = format;
        while let Some(c) = rest.chars().next() {
            if mask.nodes.len().is_multiple_of(INTERRUPT_CHECK_NODES) {
                crate::interrupt::check_running()?;
            }
            if let Some(&(text, key)) = KEYS.iter().find(|(text, _)| rest.starts_with(text)) {
                mask.add(key)?;
                mask.nodes.push(Node::Key(key));
                rest = &rest[text.len()..];
                continue;
            }
            // Letters that start a pattern we do not implement (V, RN, B, SP, C), and quoted
            // text; other characters are copied (skipped by to_number).
            if "BbCcDdEeFfGgMmPpRrSsVv\"\\".contains(c) {
                return Err(Error::unsupported(format!(
                    "the to_char number format pattern at \"{rest}\""
                )));
            }
            mask.nodes.push(Node::Literal(c));
            rest = &rest[c.len_utf8()..];
        }
        Ok(mask)
    }

    /// NUMDesc_prepare: counts digits and records flags, with its errors.
    fn add(&mut self, key: Key) -> Result<()> {
        if self.exponent && key != Key::Exponent {
            return Err(syntax("\"EEEE\" must be the last pattern used"));
        }
        match key {
            Key::Exponent => {
                if self.exponent {
                    return Err(syntax("cannot use \"EEEE\" twice"));
                }
                if self.fill
                    || self.lsign != LocaleSign::None
                    || self.bracket
                    || self.minus
                    || self.plus
                {
                    return Err(syntax("\"EEEE\" is incompatible with other formats")
                        .with_detail(
                            "\"EEEE\" may only be used together with digit and decimal point patterns.",
                        ));
                }
                self.exponent = true;
            }
            Key::Nine | Key::Zero => {
                if self.bracket {
                    let digit = if key == Key::Nine { "9" } else { "0" };
                    return Err(syntax(&format!("\"{digit}\" must be ahead of \"PR\"")));
                }
                if key == Key::Zero && !self.zero && !self.decimal {
                    self.zero = true;
                    self.zero_start = self.pre + 1;
                }
                if self.decimal {
                    self.post += 1;
                } else {
                    self.pre += 1;
                }
                if key == Key::Zero {
                    self.zero_end = self.pre + self.post;
                }
            }
            Key::Point => {
                if self.decimal {
                    return Err(syntax("multiple decimal points"));
                }
                self.decimal = true;
            }
            Key::Fill => self.fill = true,
            Key::Sign => {
                if self.lsign != LocaleSign::None {
                    return Err(syntax("cannot use \"S\" twice"));
                }
                if self.plus || self.minus || self.bracket {
                    return Err(syntax(
                        "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
                    ));
                }
                if self.decimal {
                    self.lsign = LocaleSign::Post;
                } else {
                    self.lsign = LocaleSign::Pre;
                    self.pre_lsign_num = self.pre;
                }
            }
            Key::Minus | Key::Plus | Key::SignAny => {
                if self.lsign != LocaleSign::None {
                    let name = match key {
                        Key::Minus => "MI",
                        Key::Plus => "PL",
                        _ => "SG",
                    };
                    return Err(syntax(&format!("cannot use \"S\" and \"{name}\" together")));
                }
                self.minus |= key != Key::Plus;
                self.plus |= key != Key::Minus;
            }
            Key::Bracket => {
                if self.lsign != LocaleSign::None || self.plus || self.minus {
                    return Err(syntax(
                        "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together",
                    ));
                }
                self.bracket = true;
            }
            Key::Comma | Key::Currency | Key::Ordinal { .. } => {}
        }
        Ok(())
    }
}

/// The digits of a value for `mask`: its sign (`'+'`/`'-'`), the digits with `post` decimals
/// (or `#`s), and how many integer digit positions stay blank.
struct Rendered {
    sign: u8,
    digits: Vec<u8>,
    pre_spaces: usize,
}

/// Splits off the sign, pads or overflows the integer part (the common tail of PostgreSQL's
/// int4_to_char, numeric_to_char and float8_to_char).
fn fit(text: &str, pre: usize, post: usize) -> Rendered {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => (b'-', rest),
        None => (b'+', text),
    };
    let pre_len = digits.find('.').unwrap_or(digits.len());
    if pre_len > pre {
        let mut hashes = vec![b'#'; pre + post + 1];
        hashes[pre] = b'.';
        return Rendered {
            sign,
            digits: hashes,
            pre_spaces: 0,
        };
    }
    Rendered {
        sign,
        digits: digits.as_bytes().to_vec(),
        pre_spaces: pre - pre_len,
    }
}

fn render(value: &Vector, row: usize, mask: &mut Mask) -> Result<Rendered> {
    let float = |v: f64, max_digits: usize, mask: &mut Mask| {
        // C's %.0f then %.*f: at most DBL_DIG (FLT_DIG) significant digits are asked for.
        let whole = c_fixed(v.abs(), 0).len();
        if whole >= max_digits {
            mask.post = 0;
        } else if whole + mask.post > max_digits {
            mask.post = max_digits - whole;
        }
        fit(&c_fixed(v, mask.post), mask.pre, mask.post)
    };
    let integer = |v: i64, mask: &Mask| {
        let mut text = v.to_string();
        if mask.post > 0 {
            text.push('.');
            text.extend(std::iter::repeat_n('0', mask.post));
        }
        fit(&text, mask.pre, mask.post)
    };
    Ok(match &value.data {
        VectorData::Int16(v) => integer(i64::from(v[row]), mask),
        VectorData::Int32(v) => integer(i64::from(v[row]), mask),
        VectorData::Int64(v) => integer(v[row], mask),
        VectorData::Float32(v) => float(f64::from(v[row]), 6, mask),
        VectorData::Float64(v) => float(v[row], 15, mask),
        VectorData::Numeric(v) => {
            let rounded = v[row].round(i32::try_from(mask.post).unwrap_or(i32::MAX))?;
            let mut text = Vec::new();
            rounded.write_text(&mut text);
            fit(&String::from_utf8_lossy(&text), mask.pre, mask.post)
        }
        _ => return Err(Error::internal("invariant: to_char of a number")),
    })
}

/// PostgreSQL's snprintf `%.*f` (the exact binary value rounded half to even, as Rust's
/// formatting does), which spells NaN and the infinities out.
fn c_fixed(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    format!("{v:.decimals$}")
}

/// The EEEE rendering: a blank or `-`, the significand with the mask's decimals, and a
/// signed exponent of at least two digits. Integers and numerics round half away from zero
/// in decimal (numeric_out_sci), floats as printf's `%e` does; a float that is NaN or
/// infinite becomes `#`s.
fn scientific(value: &Vector, row: usize, mask: &Mask) -> Result<String> {
    let post = mask.post;
    let float = |v: f64| {
        if !v.is_finite() {
            let mut text = vec![b'#'; mask.pre + post + 6];
            text[0] = b' ';
            text[mask.pre + 1] = b'.';
            return String::from_utf8_lossy(&text).into_owned();
        }
        let text = format!("{v:.post$e}");
        let (significand, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let significand = significand
            .strip_prefix('-')
            .map_or_else(|| format!(" {significand}"), |rest| format!("-{rest}"));
        c_exponent(significand, exponent)
    };
    let decimal = |v: crate::types::Decimal| -> Result<String> {
        let digits = v.mantissa().unsigned_abs().to_string();
        // The power of ten of the first significant digit (0 for zero).
        let exponent = if v.mantissa() == 0 {
            0
        } else {
            digits.len() as i64 - 1 - i64::from(v.scale())
        };
        let shifted = i64::from(v.scale()) + exponent;
        let significand = if shifted >= 0 {
            crate::types::Decimal::new(v.mantissa(), u32::try_from(shifted).unwrap_or(u32::MAX))
        } else {
            let factor = 10i128
                .checked_pow(u32::try_from(-shifted).unwrap_or(u32::MAX))
                .and_then(|f| v.mantissa().checked_mul(f))
                .ok_or_else(|| Error::internal("invariant: a numeric fits its significand"))?;
            crate::types::Decimal::new(factor, 0)
        };
        let rounded = significand.round(i32::try_from(post).unwrap_or(i32::MAX))?;
        let mut text = Vec::new();
        rounded.write_text(&mut text);
        let text = String::from_utf8_lossy(&text).into_owned();
        let text = if text.starts_with('-') {
            text
        } else {
            format!(" {text}")
        };
        Ok(c_exponent(
            text,
            i32::try_from(exponent).unwrap_or(i32::MAX),
        ))
    };
    Ok(match &value.data {
        // int4 (and int2) go through double precision in PostgreSQL; bigint through numeric.
        VectorData::Int16(v) => float(f64::from(v[row])),
        VectorData::Int32(v) => float(f64::from(v[row])),
        VectorData::Int64(v) => decimal(crate::types::Decimal::from_i64(v[row]))?,
        VectorData::Float32(v) => float(f64::from(v[row])),
        VectorData::Float64(v) => float(v[row]),
        // NaN and the infinities print as `#`s, as the floats do.
        VectorData::Numeric(v) if !v[row].is_finite() => float(v[row].to_f64()),
        VectorData::Numeric(v) => decimal(v[row])?,
        _ => return Err(Error::internal("invariant: to_char of a number")),
    })
}

fn c_exponent(significand: String, exponent: i32) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{significand}e{sign}{:02}", exponent.unsigned_abs())
}

/// get_th: "st", "nd", "rd" after a last digit 1, 2, 3 outside the teens, else "th".
fn ordinal_suffix(number: &[u8]) -> Result<&'static str> {
    let (last, before) = match number {
        [.., before, last] => (*last, Some(*before)),
        [last] => (*last, None),
        [] => (0, None),
    };
    if !last.is_ascii_digit() {
        return Err(Error::new(
            SqlState::InvalidTextRepresentation,
            format!("\"{}\" is not a number", String::from_utf8_lossy(number)),
        ));
    }
    Ok(match (before, last) {
        (Some(b'1'), _) => "th",
        (_, b'1') => "st",
        (_, b'2') => "nd",
        (_, b'3') => "rd",
        _ => "th",
    })
}

/// NUM_processor for to_char.
struct Writer<'a> {
    mask: &'a Mask,
    number: &'a [u8],
    sign: u8,
    sign_wrote: bool,
    bracket: bool,
    lsign: LocaleSign,
    pre_spaces: usize,
    /// The mask's first `0` among the integer digits, counted from 0.
    zero_start: usize,
    num_count: i64,
    last_relevant: Option<usize>,
    number_p: usize,
    num_curr: usize,
    num_in: bool,
    /// Where the output ends, once a NUL has been written.
    cut: Option<usize>,
    out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    fn at(&self, index: usize) -> u8 {
        self.number.get(index).copied().unwrap_or(0)
    }

    fn last_relevant_is_point(&self) -> bool {
        self.last_relevant.is_some_and(|i| self.at(i) == b'.')
    }

    fn write_sign_if_due(&mut self) {
        let mask = self.mask;
        let predec_space = !mask.zero && self.number_p == 0 && self.at(0) == b'0' && mask.post != 0;
        let due =
            self.num_curr >= self.pre_spaces || (mask.zero && self.zero_start == self.num_curr);
        if self.sign_wrote || !due || (predec_space && !self.last_relevant_is_point()) {
            return;
        }
        if self.lsign != LocaleSign::None {
            if self.lsign == LocaleSign::Pre {
                self.out.push(self.sign);
                self.sign_wrote = true;
            }
        } else if self.bracket {
            self.out.push(if self.sign == b'+' { b' ' } else { b'<' });
            self.sign_wrote = true;
        } else if self.sign == b'+' {
            if !mask.fill {
                self.out.push(b' ');
            }
            self.sign_wrote = true;
        } else {
            self.out.push(b'-');
            self.sign_wrote = true;
        }
    }

    /// A digit or decimal point of the mask (NUM_numpart_to_char).
    fn digit(&mut self, key: Key) {
        let mask = self.mask;
        self.num_in = false;
        self.write_sign_if_due();
        if self.num_curr < self.pre_spaces && (self.zero_start > self.num_curr || !mask.zero) {
            if !mask.fill {
                self.out.push(b' ');
            }
        } else if mask.zero && self.num_curr < self.pre_spaces {
            self.out.push(b'0');
            self.num_in = true;
        } else {
            let predec_space =
                !mask.zero && self.number_p == 0 && self.at(0) == b'0' && mask.post != 0;
            let current = self.at(self.number_p);
            if current == b'.' {
                self.out.push(b'.');
            } else if self
                .last_relevant
                .is_some_and(|i| self.number_p > i && key != Key::Zero)
            {
                // FM drops trailing zeros past the last relevant decimal.
            } else if predec_space {
                if !mask.fill {
                    self.out.push(b' ');
                } else if self.last_relevant_is_point() {
                    self.out.push(b'0');
                }
            } else if current == 0 {
                // PostgreSQL writes the string's terminating NUL here, which ends its
                // result: a mask with more positions than the value has characters (a
                // trailing point, or decimals a float cannot show) is cut short.
                self.cut.get_or_insert(self.out.len());
            } else {
                self.out.push(current);
                self.num_in = true;
            }
            if current != 0 {
                self.number_p += 1;
            }
        }
        let mut end = self.num_count + i64::from(self.pre_spaces > 0) + i64::from(mask.decimal);
        if self.last_relevant == Some(self.number_p) {
            end = self.num_curr as i64;
        }
        if self.num_curr as i64 + 1 == end {
            if self.sign_wrote && self.bracket {
                self.out.push(if self.sign == b'+' { b' ' } else { b'>' });
            } else if self.lsign == LocaleSign::Post {
                self.out.push(self.sign);
            }
        }
        self.num_curr += 1;
    }
}

fn format_number(value: &Vector, row: usize, format: &str, out: &mut Vec<u8>) -> Result<()> {
    let mut mask = Mask::parse(format)?;
    if mask.exponent {
        // PostgreSQL's output is then the number alone, whatever else the mask holds.
        out.extend_from_slice(scientific(value, row, &mask)?.as_bytes());
        return Ok(());
    }
    let rendered = render(value, row, &mut mask)?;
    let mask = &mask;
    let sign = rendered.sign;
    let mut lsign = mask.lsign;
    let mut bracket = mask.bracket;
    let sign_wrote = if mask.plus || mask.minus {
        // MI and SG write the sign themselves; PL alone leaves a '-' to the digits.
        mask.minus
    } else {
        if sign != b'-' && mask.fill {
            bracket = false;
        }
        if lsign == LocaleSign::Pre && mask.pre == mask.pre_lsign_num {
            lsign = LocaleSign::Post;
        }
        sign == b'+' && mask.fill && mask.lsign == LocaleSign::None
    };
    let number = rendered.digits.as_slice();
    let mut last_relevant = None;
    if mask.fill && mask.decimal {
        // The last decimal that is not a trailing zero (or the point itself).
        if let Some(point) = number.iter().position(|&b| b == b'.') {
            let last = (point + 1..number.len())
                .rev()
                .find(|&i| number[i] != b'0')
                .unwrap_or(point);
            let mut relevant = last;
            if mask.zero_end > rendered.pre_spaces {
                let last_zero = (number.len() - 1).min(mask.zero_end - rendered.pre_spaces);
                relevant = relevant.max(last_zero);
            }
            last_relevant = Some(relevant);
        }
    }
    let mut num_count = (mask.post + mask.pre) as i64 - 1;
    if !sign_wrote && rendered.pre_spaces == 0 {
        num_count += 1;
    }
    let mut writer = Writer {
        mask,
        number,
        sign,
        sign_wrote,
        bracket,
        lsign,
        pre_spaces: rendered.pre_spaces,
        zero_start: mask.zero_start.saturating_sub(1),
        num_count,
        last_relevant,
        number_p: 0,
        num_curr: 0,
        num_in: false,
        cut: None,
        out,
    };
    for (index, node) in mask.nodes.iter().enumerate() {
        if index.is_multiple_of(INTERRUPT_CHECK_NODES) {
            crate::interrupt::check_running()?;
        }
        match node {
            Node::Literal(c) => {
                let mut buf = [0u8; 4];
                writer
                    .out
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Node::Key(key @ (Key::Nine | Key::Zero | Key::Point)) => writer.digit(*key),
            Node::Key(Key::Comma) => {
                if writer.num_in {
                    writer.out.push(b',');
                } else if !mask.fill {
                    writer.out.push(b' ');
                }
            }
            Node::Key(Key::Minus) => match (writer.sign, mask.fill) {
                (b'-', _) => writer.out.push(b'-'),
                (_, true) => {}
                (_, false) => writer.out.push(b' '),
            },
            Node::Key(Key::Plus) => match (writer.sign, mask.fill) {
                (b'+', _) => writer.out.push(b'+'),
                (_, true) => {}
                (_, false) => writer.out.push(b' '),
            },
            Node::Key(Key::SignAny) => writer.out.push(writer.sign),
            Node::Key(Key::Currency) => writer.out.push(b' '),
            Node::Key(Key::Ordinal { upper }) => {
                if number.first() != Some(&b'#') && sign != b'-' && !mask.decimal {
                    let suffix = ordinal_suffix(number)?;
                    let suffix = if *upper {
                        suffix.to_ascii_uppercase()
                    } else {
                        suffix.to_string()
                    };
                    writer.out.extend_from_slice(suffix.as_bytes());
                }
            }
            Node::Key(Key::Fill | Key::Sign | Key::Bracket | Key::Exponent) => {}
        }
    }
    if let Some(cut) = writer.cut {
        writer.out.truncate(cut);
    }
    Ok(())
}

/// to_char(int2 | int4 | int8 | float4 | float8 | numeric, text).
pub(super) fn to_char(args: &[Vector]) -> Result<Vector> {
    let value = arg(args, 0)?;
    let formats = texts(args, 1)?;
    map_text_rows(args, |row, out| {
        format_number(value, row, formats.get(row), out)
    })
}

/// NUM_processor for to_number: reads `input` along the mask into a sign and digits.
struct Reader<'a> {
    mask: &'a Mask,
    input: &'a [u8],
    pos: usize,
    /// `b' '` until a sign is read.
    sign: u8,
    digits: Vec<u8>,
    read_pre: usize,
    read_post: usize,
    read_point: bool,
}

impl Reader<'_> {
    fn at(&self, index: usize) -> u8 {
        self.input.get(index).copied().unwrap_or(0)
    }

    fn done(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// NUM_eat_non_data_chars: skips up to `n` characters that cannot be part of a number.
    fn skip_non_data(&mut self, n: usize) {
        for _ in 0..n {
            if self.done() || b"0123456789.,+-".contains(&self.at(self.pos)) {
                break;
            }
            self.pos += utf8_width(self.at(self.pos));
        }
    }

    /// A digit or decimal point of the mask (NUM_numpart_from_char); leaves `pos` on the
    /// last byte it used, as the caller steps past it.
    fn digit(&mut self, key: Key) {
        let mask = self.mask;
        if self.done() {
            return;
        }
        if self.at(self.pos) == b' ' {
            self.pos += 1;
        }
        if self.done() {
            return;
        }
        if self.sign == b' ' && key != Key::Point && self.read_pre + self.read_post == 0 {
            let c = self.at(self.pos);
            if mask.lsign == LocaleSign::Pre {
                if c == b'-' || c == b'+' {
                    self.pos += 1;
                    self.sign = c;
                }
            } else if c == b'-' || (mask.bracket && c == b'<') {
                self.sign = b'-';
                self.pos += 1;
            } else if c == b'+' {
                self.sign = b'+';
                self.pos += 1;
            }
        }
        if self.done() {
            return;
        }
        let mut read = false;
        let c = self.at(self.pos);
        if c.is_ascii_digit() {
            if self.read_point && self.read_post == mask.post {
                return;
            }
            self.digits.push(c);
            if self.read_point {
                self.read_post += 1;
            } else {
                self.read_pre += 1;
            }
            read = true;
        } else if mask.decimal && !self.read_point && c == b'.' {
            self.digits.push(b'.');
            self.read_point = true;
            read = true;
        }
        if self.done() || self.sign != b' ' || self.read_pre + self.read_post == 0 {
            return;
        }
        // A sign right behind the last digit (`9.9S` reads `.5-`).
        if mask.lsign != LocaleSign::None
            && read
            && self.pos + 1 < self.input.len()
            && !self.at(self.pos + 1).is_ascii_digit()
        {
            let next = self.at(self.pos + 1);
            if next == b'-' || next == b'+' {
                self.pos += 1;
                self.sign = next;
            }
        } else if !read && mask.lsign == LocaleSign::None && (mask.plus || mask.minus) {
            let c = self.at(self.pos);
            if c == b'-' || c == b'+' {
                self.sign = c;
            }
        }
    }
}

/// to_number(text, format): `None` for an empty format, as PostgreSQL returns NULL.
fn parse_number(input: &str, format: &str) -> Result<Option<crate::types::Decimal>> {
    if format.is_empty() {
        return Ok(None);
    }
    let mask = Mask::parse(format)?;
    if mask.exponent {
        return Err(Error::new(
            SqlState::FeatureNotSupported,
            "\"EEEE\" not supported for input",
        ));
    }
    let mut reader = Reader {
        mask: &mask,
        input: input.as_bytes(),
        pos: 0,
        sign: b' ',
        digits: Vec::new(),
        read_pre: 0,
        read_post: 0,
        read_point: false,
    };
    for node in &mask.nodes {
        if reader.done() {
            break;
        }
        let consumed = match node {
            Node::Literal(_) => {
                reader.pos += utf8_width(reader.at(reader.pos));
                false
            }
            Node::Key(key @ (Key::Nine | Key::Zero | Key::Point)) => {
                reader.digit(*key);
                true
            }
            Node::Key(Key::Comma) => !mask.fill && reader.at(reader.pos) == b',',
            Node::Key(key @ (Key::Minus | Key::Plus | Key::SignAny)) => {
                let c = reader.at(reader.pos);
                let wanted = match key {
                    Key::Minus => c == b'-',
                    Key::Plus => c == b'+',
                    _ => c == b'-' || c == b'+',
                };
                if wanted {
                    reader.sign = c;
                } else {
                    reader.skip_non_data(1);
                }
                wanted
            }
            Node::Key(Key::Currency) => {
                reader.skip_non_data(1);
                false
            }
            Node::Key(Key::Ordinal { .. }) => {
                reader.skip_non_data(2);
                false
            }
            Node::Key(Key::Fill | Key::Sign | Key::Bracket | Key::Exponent) => false,
        };
        if consumed {
            reader.pos += 1;
        }
    }
    if reader.digits.last() == Some(&b'.') {
        reader.digits.pop();
    }
    let mut text = String::with_capacity(reader.digits.len() + 1);
    text.push(reader.sign as char);
    text.push_str(&String::from_utf8_lossy(&reader.digits));
    // PostgreSQL reads the text as numeric(integer digits of the mask + decimals read,
    // decimals read): more integer digits than the mask has overflow.
    let scale = u32::try_from(reader.read_post).unwrap_or(u32::MAX);
    let typmod = crate::types::NumericTypmod {
        precision: u32::try_from(mask.pre)
            .unwrap_or(u32::MAX)
            .saturating_add(scale),
        scale,
    };
    crate::types::Decimal::parse(&text)?
        .apply_typmod(typmod)
        .map(Some)
}

/// to_number(text, text).
pub(super) fn to_number(args: &[Vector]) -> Result<Vector> {
    let inputs = texts(args, 0)?;
    let formats = texts(args, 1)?;
    let rows = inputs.len();
    let mut out = Vector::with_capacity(crate::types::PhysicalType::Numeric, rows);
    for row in 0..rows {
        let valid = args.iter().all(|a| a.is_valid(row));
        match valid
            .then(|| parse_number(inputs.get(row), formats.get(row)))
            .transpose()?
            .flatten()
        {
            Some(value) => out.push_scalar(&crate::types::ScalarValue::Numeric(value))?,
            None => out.push_null(),
        }
    }
    Ok(out)
}
