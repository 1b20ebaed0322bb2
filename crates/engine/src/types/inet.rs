//! inet and cidr, as PostgreSQL's network.c, inet_net_pton.c, inet_net_ntop.c and
//! inet_cidr_ntop.c define them: a value is a fixed 19 bytes (family, mask length, whether
//! it is a cidr, and 16 address bytes with an IPv4 address in the first four), so a column
//! is a plain vector of them and no value is a string.
//!
//! The order is network_cmp's: family (IPv4 first), then the network bits both values
//! have, then the mask length, then the whole address. Equality is that order's, so the
//! cidr flag (which only chooses the output format) takes no part in it.

use std::cmp::Ordering;

use super::binary_io::{insufficient_data, INCORRECT_BINARY_FORMAT};
use crate::error::{Error, Result, SqlState};
use crate::vector::write_int;

/// One inet or cidr value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inet {
    pub v6: bool,
    /// The mask length, at most 32 (IPv4) or 128 (IPv6).
    pub bits: u8,
    /// A cidr value: printed with its mask length always, and without host bits.
    pub cidr: bool,
    /// Network byte order; an IPv4 address in the first 4 bytes, the rest zero.
    pub addr: [u8; 16],
}

/// The address family numbers of PostgreSQL's binary format (PGSQL_AF_INET, PGSQL_AF_INET6).
const PGSQL_AF_INET: u8 = 2;
const PGSQL_AF_INET6: u8 = 3;

/// The first `bits` bits of 128 set: a prefix mask over a left-aligned address.
fn prefix_mask(bits: u8) -> u128 {
    match bits {
        0 => 0,
        b => u128::MAX << (128 - u32::from(b.min(128))),
    }
}

impl Inet {
    pub fn max_bits(self) -> u8 {
        if self.v6 {
            128
        } else {
            32
        }
    }

    fn addr_len(self) -> usize {
        if self.v6 {
            16
        } else {
            4
        }
    }

    /// The address as one integer whose high bits are the first bytes (IPv4 in the top 32).
    fn left(self) -> u128 {
        u128::from_be_bytes(self.addr)
    }

    fn with_left(self, left: u128) -> Inet {
        Inet {
            addr: left.to_be_bytes(),
            ..self
        }
    }

    /// The address as a number (an IPv4 address below 2^32).
    pub fn number(self) -> u128 {
        if self.v6 {
            self.left()
        } else {
            self.left() >> 96
        }
    }

    fn with_number(self, number: u128) -> Inet {
        self.with_left(if self.v6 { number } else { number << 96 })
    }

    /// The bits of the family's address width, left-aligned.
    fn family_mask(self) -> u128 {
        prefix_mask(self.max_bits())
    }

    /// Whether no bit right of the mask is set (cidr's addressOK).
    pub fn is_network(self) -> bool {
        self.left() & !prefix_mask(self.bits) == 0
    }

    /// The family as `family()` reports it.
    pub fn family(self) -> i32 {
        if self.v6 {
            6
        } else {
            4
        }
    }

    pub fn as_inet(self) -> Inet {
        Inet {
            cidr: false,
            ..self
        }
    }

    /// network(): the cidr of the address with its host bits cleared.
    pub fn network(self) -> Inet {
        Inet {
            cidr: true,
            ..self.with_left(self.left() & prefix_mask(self.bits))
        }
    }

    /// broadcast(): the host bits set; an inet.
    pub fn broadcast(self) -> Inet {
        let host = !prefix_mask(self.bits) & self.family_mask();
        self.as_inet().with_left(self.left() | host)
    }

    /// netmask(): the mask as an address of the full length; an inet.
    pub fn netmask(self) -> Inet {
        Inet {
            bits: self.max_bits(),
            ..self.as_inet().with_left(prefix_mask(self.bits))
        }
    }

    /// hostmask(): the host bits as an address of the full length; an inet.
    pub fn hostmask(self) -> Inet {
        Inet {
            bits: self.max_bits(),
            ..self
                .as_inet()
                .with_left(!prefix_mask(self.bits) & self.family_mask())
        }
    }

    /// The same address with mask length `bits` (-1: the family's full length); a cidr
    /// loses the bits right of its new mask (inet_set_masklen, cidr_set_masklen).
    pub fn set_masklen(self, bits: i32) -> Result<Inet> {
        let bits = if bits == -1 {
            i32::from(self.max_bits())
        } else {
            bits
        };
        let bits = u8::try_from(bits)
            .ok()
            .filter(|b| *b <= self.max_bits())
            .ok_or_else(|| {
                Error::new(
                    SqlState::InvalidParameterValue,
                    format!("invalid mask length: {bits}"),
                )
            })?;
        let value = Inet { bits, ..self };
        Ok(if self.cidr { value.network() } else { value })
    }

    /// The cidr of an inet (inet_to_cidr): its mask, host bits cleared.
    pub fn to_cidr(self) -> Inet {
        self.network()
    }

    /// Whether the first `bits` bits of the two addresses are equal (bitncmp == 0).
    fn same_prefix(self, other: Inet, bits: u8) -> bool {
        let mask = prefix_mask(bits);
        self.left() & mask == other.left() & mask
    }

    /// `<<` (strict) and `<<=`: contained in `other`'s network.
    pub fn is_within(self, other: Inet, or_equal: bool) -> bool {
        self.v6 == other.v6
            && (self.bits > other.bits || (or_equal && self.bits == other.bits))
            && self.same_prefix(other, other.bits)
    }

    /// `&&`: either contains the other.
    pub fn overlaps(self, other: Inet) -> bool {
        self.v6 == other.v6 && self.same_prefix(other, self.bits.min(other.bits))
    }

    /// `~`: every address bit flipped.
    pub fn complement(self) -> Inet {
        self.as_inet().with_left(!self.left() & self.family_mask())
    }

    /// `&` and `|`: the wider mask, both of one family.
    pub fn bitwise(self, other: Inet, or: bool) -> Result<Inet> {
        if self.v6 != other.v6 {
            let op = if or { "OR" } else { "AND" };
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("cannot {op} inet values of different sizes"),
            ));
        }
        let left = if or {
            self.left() | other.left()
        } else {
            self.left() & other.left()
        };
        Ok(Inet {
            bits: self.bits.max(other.bits),
            ..self.as_inet().with_left(left)
        })
    }

    /// `inet + n` and `inet - n`: the address moved by `n`, 22003 outside the family's range.
    pub fn offset(self, n: i64) -> Result<Inet> {
        let out_of_range = || Error::out_of_range("result is out of range");
        let number = self
            .number()
            .checked_add_signed(i128::from(n))
            .ok_or_else(out_of_range)?;
        if !self.v6 && number > u128::from(u32::MAX) {
            return Err(out_of_range());
        }
        Ok(self.with_number(number))
    }

    /// `inet - inet`: the distance of the addresses, both of one family.
    pub fn subtract(self, other: Inet) -> Result<i64> {
        if self.v6 != other.v6 {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                "cannot subtract inet values of different sizes",
            ));
        }
        let (a, b) = (self.number(), other.number());
        let difference = if a >= b {
            i64::try_from(a - b).ok()
        } else {
            i64::try_from(b - a - 1).ok().map(|d| -d - 1)
        };
        difference.ok_or_else(|| Error::out_of_range("result is out of range"))
    }

    /// inet_merge: the smallest network holding both.
    pub fn merge(self, other: Inet) -> Result<Inet> {
        if self.v6 != other.v6 {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                "cannot merge addresses from different families",
            ));
        }
        let limit = self.bits.min(other.bits);
        let common = (self.left() ^ other.left())
            .leading_zeros()
            .min(u32::from(limit));
        let bits = u8::try_from(common).unwrap_or(limit);
        Ok(Inet { bits, ..self }.network())
    }

    /// The bytes of a sort key whose byte order is this order: family, the address masked
    /// to its own length, the length, the whole address (34 bytes).
    pub fn write_sort_key(self, out: &mut [u8]) {
        out[0] = u8::from(self.v6);
        out[1..17].copy_from_slice(&(self.left() & prefix_mask(self.bits)).to_be_bytes());
        out[17] = self.bits;
        out[18..34].copy_from_slice(&self.addr);
    }

    /// The value as stored on disk: flags (1: IPv6, 2: cidr), mask length, address.
    pub fn to_stored(self) -> [u8; 18] {
        let mut stored = [0; 18];
        stored[0] = u8::from(self.v6) | u8::from(self.cidr) << 1;
        stored[1] = self.bits;
        stored[2..].copy_from_slice(&self.addr);
        stored
    }

    /// A value read back from disk; `None` if it is not one `to_stored` writes.
    pub fn from_stored(stored: [u8; 18]) -> Option<Inet> {
        let mut addr = [0; 16];
        addr.copy_from_slice(&stored[2..]);
        let value = Inet {
            v6: stored[0] & 1 != 0,
            bits: stored[1],
            cidr: stored[0] & 2 != 0,
            addr,
        };
        let valid = stored[0] <= 3
            && value.bits <= value.max_bits()
            && (value.v6 || value.left() << 32 == 0)
            && (!value.cidr || value.is_network());
        valid.then_some(value)
    }

    /// The bytes that identify a value for hashing: equal values, equal bytes.
    pub fn key_bytes(self) -> [u8; 18] {
        self.as_inet().to_stored()
    }
}

pub const SORT_KEY_LEN: usize = 34;

impl PartialEq for Inet {
    fn eq(&self, other: &Inet) -> bool {
        self.v6 == other.v6 && self.bits == other.bits && self.addr == other.addr
    }
}

impl Eq for Inet {}

impl Ord for Inet {
    fn cmp(&self, other: &Inet) -> Ordering {
        self.v6
            .cmp(&other.v6)
            .then_with(|| {
                let mask = prefix_mask(self.bits.min(other.bits));
                (self.left() & mask).cmp(&(other.left() & mask))
            })
            .then(self.bits.cmp(&other.bits))
            .then_with(|| self.addr.cmp(&other.addr))
    }
}

impl PartialOrd for Inet {
    fn partial_cmp(&self, other: &Inet) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for Inet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key_bytes().hash(state);
    }
}

// ---- input ----

/// The byte at `i`, NUL past the end: the C parsers' view of the string.
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// A run of decimal digits starting with `first`, read on from `i`: its value (capped, so
/// no overflow) and the first byte after it.
fn decimal_run(s: &[u8], first: u8, i: &mut usize) -> (u32, u8) {
    let mut value = u32::from(first - b'0');
    loop {
        let ch = at(s, *i);
        *i += 1;
        if !ch.is_ascii_digit() {
            return (value, ch);
        }
        value = (value * 10 + u32::from(ch - b'0')).min(100_000);
    }
}

/// A `/bits` suffix after an IPv4 address whose '/' is at `i - 1`: the mask length, or
/// `Ok(None)` without one; `Err` on anything after the digits or a length over 32.
fn ipv4_mask(s: &[u8], ch: u8, i: &mut usize, octets: usize) -> Option<Option<u32>> {
    if ch == b'/' && at(s, *i).is_ascii_digit() && octets > 0 {
        let first = at(s, *i);
        *i += 1;
        let (bits, end) = decimal_run(s, first, i);
        return (end == 0 && bits <= 32).then_some(Some(bits));
    }
    (ch == 0).then_some(None)
}

/// inet_net_pton_ipv4: dotted decimal octets, a prefix length defaulting to /32 only when
/// all four octets are given.
fn inet_pton_v4(s: &[u8]) -> Option<([u8; 4], u32)> {
    let mut dst = [0u8; 4];
    let mut octets = 0;
    let mut i = 1;
    let mut ch = at(s, 0);
    while ch.is_ascii_digit() {
        let (octet, next) = decimal_run(s, ch, &mut i);
        ch = next;
        if octet > 255 || octets == 4 {
            return None;
        }
        dst[octets] = octet as u8;
        octets += 1;
        if ch == 0 || ch == b'/' {
            break;
        }
        if ch != b'.' {
            return None;
        }
        ch = at(s, i);
        i += 1;
    }
    let bits = match ipv4_mask(s, ch, &mut i, octets)? {
        Some(bits) => bits,
        None if octets == 4 => 32,
        None => return None,
    };
    (octets > 0 && bits as usize / 8 <= octets).then_some((dst, bits))
}

/// inet_cidr_pton_ipv4: hex (`0x0a`) or dotted decimal octets, as few as one, the prefix
/// length given or imputed from the address class.
fn cidr_pton_v4(s: &[u8]) -> Option<([u8; 4], u32)> {
    let mut dst = [0u8; 4];
    let mut octets = 0;
    let mut i;
    let mut ch;
    if at(s, 0) == b'0' && matches!(at(s, 1), b'x' | b'X') && at(s, 2).is_ascii_hexdigit() {
        i = 2;
        let mut pending: Option<u8> = None;
        loop {
            ch = at(s, i);
            i += 1;
            let Some(nibble) = (ch as char).to_digit(16).filter(|_| ch != 0) else {
                break;
            };
            let nibble = nibble as u8;
            pending = match pending {
                None => Some(nibble),
                Some(high) => {
                    *dst.get_mut(octets)? = high << 4 | nibble;
                    octets += 1;
                    None
                }
            };
        }
        if let Some(high) = pending {
            *dst.get_mut(octets)? = high << 4;
            octets += 1;
        }
    } else if at(s, 0).is_ascii_digit() {
        i = 1;
        ch = at(s, 0);
        loop {
            let (octet, next) = decimal_run(s, ch, &mut i);
            ch = next;
            if octet > 255 {
                return None;
            }
            *dst.get_mut(octets)? = octet as u8;
            octets += 1;
            if ch == 0 || ch == b'/' {
                break;
            }
            if ch != b'.' {
                return None;
            }
            ch = at(s, i);
            i += 1;
            if !ch.is_ascii_digit() {
                return None;
            }
        }
    } else {
        return None;
    }
    let given = ipv4_mask(s, ch, &mut i, octets)?;
    if octets == 0 {
        return None;
    }
    let bits = given.unwrap_or_else(|| {
        let class = match dst[0] {
            240.. => 32,
            224.. => 4,
            192.. => 24,
            128.. => 16,
            _ => 8,
        };
        if (8..octets as u32 * 8).contains(&class) {
            octets as u32 * 8
        } else {
            class
        }
    });
    Some((dst, bits))
}

/// getbits: a prefix length of at most 128 without leading zeros, alone to the end.
fn get_bits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) || (s.len() > 1 && s[0] == b'0') {
        return None;
    }
    s.iter().try_fold(0u32, |v, d| {
        let v = v * 10 + u32::from(d - b'0');
        (v <= 128).then_some(v)
    })
}

/// getv4: the dotted IPv4 tail of an IPv6 address (no leading zeros, at most four octets),
/// maybe followed by `/bits`. Writes the octets it reads into `dst`.
fn get_v4(s: &[u8], dst: &mut [u8]) -> Option<Option<u32>> {
    let mut count = 0;
    let mut value = 0u32;
    let mut digits = 0;
    for (i, &ch) in s.iter().enumerate() {
        if ch.is_ascii_digit() {
            if digits != 0 && value == 0 {
                return None;
            }
            digits += 1;
            value = value * 10 + u32::from(ch - b'0');
            if value > 255 {
                return None;
            }
            continue;
        }
        if ch == b'.' || ch == b'/' {
            if count > 3 {
                return None;
            }
            dst[count] = value as u8;
            count += 1;
            if ch == b'/' {
                return get_bits(&s[i + 1..]).map(Some);
            }
            value = 0;
            digits = 0;
            continue;
        }
        return None;
    }
    if digits == 0 || count > 3 {
        return None;
    }
    dst[count] = value as u8;
    Some(None)
}

/// inet_cidr_pton_ipv6: colon-separated hex groups, one `::`, an optional dotted IPv4 tail,
/// an optional `/bits` (128 without).
fn pton_v6(s: &[u8]) -> Option<([u8; 16], u32)> {
    let mut tmp = [0u8; 16];
    let mut tp = 0;
    let mut colon: Option<usize> = None;
    let mut i = 0;
    if at(s, 0) == b':' {
        if at(s, 1) != b':' {
            return None;
        }
        i = 1;
    }
    let mut token = i;
    let mut saw_digit = false;
    let mut value = 0u32;
    let mut digits = 0;
    let mut bits = None;
    loop {
        let ch = at(s, i);
        i += 1;
        if ch == 0 {
            break;
        }
        if let Some(nibble) = (ch as char).to_digit(16) {
            value = value << 4 | nibble;
            digits += 1;
            if digits > 4 {
                return None;
            }
            saw_digit = true;
            continue;
        }
        if ch == b':' {
            token = i;
            if !saw_digit {
                if colon.is_some() {
                    return None;
                }
                colon = Some(tp);
                continue;
            } else if at(s, i) == 0 || tp + 2 > 16 {
                return None;
            }
            tmp[tp..tp + 2].copy_from_slice(&(value as u16).to_be_bytes());
            tp += 2;
            saw_digit = false;
            digits = 0;
            value = 0;
            continue;
        }
        if ch == b'.' && tp + 4 <= 16 {
            if let Some(mask) = get_v4(s.get(token..)?, &mut tmp[tp..tp + 4]) {
                tp += 4;
                saw_digit = false;
                bits = mask;
                break;
            }
        }
        if ch == b'/' {
            if let Some(mask) = get_bits(s.get(i..)?) {
                bits = Some(mask);
                break;
            }
        }
        return None;
    }
    if saw_digit {
        if tp + 2 > 16 {
            return None;
        }
        tmp[tp..tp + 2].copy_from_slice(&(value as u16).to_be_bytes());
        tp += 2;
    }
    if let Some(colon) = colon {
        if tp == 16 {
            return None;
        }
        let moved = tp - colon;
        for k in 1..=moved {
            tmp[16 - k] = tmp[colon + moved - k];
            tmp[colon + moved - k] = 0;
        }
        tp = 16;
    }
    (tp == 16).then_some((tmp, bits.unwrap_or(128)))
}

/// inet_in and cidr_in. A cidr with bits right of its mask is 22P02 with network_in's
/// detail.
pub fn parse_inet(text: &str, cidr: bool) -> Result<Inet> {
    let type_name = if cidr { "cidr" } else { "inet" };
    let s = text.as_bytes();
    let v6 = s.contains(&b':');
    let parsed = if v6 {
        pton_v6(s)
    } else {
        let v4 = if cidr {
            cidr_pton_v4(s)
        } else {
            inet_pton_v4(s)
        };
        v4.map(|(octets, bits)| {
            let mut addr = [0u8; 16];
            addr[..4].copy_from_slice(&octets);
            (addr, bits)
        })
    };
    let (addr, bits) = parsed.ok_or_else(|| Error::invalid_input(type_name, text))?;
    let bits = u8::try_from(bits).map_err(|_| Error::invalid_input(type_name, text))?;
    let value = Inet {
        v6,
        bits,
        cidr,
        addr,
    };
    if cidr && !value.is_network() {
        return Err(Error::new(
            SqlState::InvalidTextRepresentation,
            format!("invalid cidr value: \"{text}\""),
        )
        .with_detail("Value has bits set to right of mask."));
    }
    Ok(value)
}

// ---- output ----

fn write_decimal(value: u32, out: &mut Vec<u8>) {
    write_int(i64::from(value), out);
}

/// Lower-case hex without leading zeros (`%x`).
fn write_hex(value: u32, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits = (32 - value.leading_zeros()).div_ceil(4).max(1);
    for digit in (0..digits).rev() {
        out.push(HEX[((value >> (4 * digit)) & 0xf) as usize]);
    }
}

fn write_mask(bits: u8, out: &mut Vec<u8>) {
    out.push(b'/');
    write_decimal(u32::from(bits), out);
}

/// inet_net_ntop: the address in full, then `/bits` unless `bits` is the family's width.
fn write_net(value: Inet, bits: u8, out: &mut Vec<u8>) {
    let src = value.addr;
    if !value.v6 {
        for (i, octet) in src[..4].iter().enumerate() {
            if i > 0 {
                out.push(b'.');
            }
            write_decimal(u32::from(*octet), out);
        }
        if bits != 32 {
            write_mask(bits, out);
        }
        return;
    }
    let words: Vec<u32> = src
        .chunks(2)
        .map(|pair| u32::from(pair[0]) << 8 | u32::from(pair[1]))
        .collect();
    // The longest run of zero words (the first of equal ones), if two or more long.
    let mut best: Option<(usize, usize)> = None;
    let mut current: Option<(usize, usize)> = None;
    for (i, &word) in words.iter().enumerate() {
        if word == 0 {
            current = Some(current.map_or((i, 1), |(base, len)| (base, len + 1)));
        } else if let Some(run) = current.take() {
            if best.is_none_or(|b| run.1 > b.1) {
                best = Some(run);
            }
        }
    }
    if let Some(run) = current {
        if best.is_none_or(|b| run.1 > b.1) {
            best = Some(run);
        }
    }
    let best = best.filter(|b| b.1 >= 2);
    for (i, &word) in words.iter().enumerate() {
        if let Some((base, len)) = best {
            if (base..base + len).contains(&i) {
                if i == base {
                    out.push(b':');
                }
                continue;
            }
        }
        if i != 0 {
            out.push(b':');
        }
        // An encapsulated IPv4 address (::a.b.c.d, ::ffff:a.b.c.d).
        if i == 6
            && best.is_some_and(|(base, len)| {
                base == 0
                    && (len == 6 || (len == 7 && words[7] != 1) || (len == 5 && words[5] == 0xffff))
            })
        {
            for (k, octet) in src[12..].iter().enumerate() {
                if k > 0 {
                    out.push(b'.');
                }
                write_decimal(u32::from(*octet), out);
            }
            break;
        }
        write_hex(word, out);
    }
    if best.is_some_and(|(base, len)| base + len == 8) {
        out.push(b':');
    }
    if bits != 128 {
        write_mask(bits, out);
    }
}

/// inet_out and cidr_out: a cidr always shows its mask length.
pub fn write_inet(value: Inet, out: &mut Vec<u8>) {
    write_net(value, value.bits, out);
    if value.cidr && value.bits == value.max_bits() {
        write_mask(value.bits, out);
    }
}

/// host(): the address alone.
pub fn write_host(value: Inet, out: &mut Vec<u8>) {
    write_net(value, value.max_bits(), out);
}

/// text() of an inet or cidr: the address and the mask length always.
pub fn write_text_with_mask(value: Inet, out: &mut Vec<u8>) {
    write_net(value, value.max_bits(), out);
    write_mask(value.bits, out);
}

/// abbrev(): an inet as its output; a cidr without the zero octets or words its mask
/// covers (inet_cidr_ntop).
pub fn write_abbrev(value: Inet, out: &mut Vec<u8>) {
    if !value.cidr {
        return write_inet(value, out);
    }
    let bits = value.bits;
    let src = value.network().addr;
    if !value.v6 {
        if bits == 0 {
            out.push(b'0');
        }
        let whole = usize::from(bits / 8);
        for (i, octet) in src[..whole].iter().enumerate() {
            if i > 0 {
                out.push(b'.');
            }
            write_decimal(u32::from(*octet), out);
        }
        if !bits.is_multiple_of(8) {
            if whole > 0 {
                out.push(b'.');
            }
            write_decimal(u32::from(src[whole]), out);
        }
        return write_mask(bits, out);
    }
    if bits == 0 {
        out.extend_from_slice(b"::");
        return write_mask(bits, out);
    }
    write_cidr_v6(&src, bits, out);
    write_mask(bits, out);
}

/// inet_cidr_ntop_ipv6's words, with its zero-run search as written there: a run is only
/// closed when it beats the best so far, so a shorter run goes on counting past a word.
fn write_cidr_v6(s: &[u8; 16], bits: u8, out: &mut Vec<u8>) {
    let words = usize::from(bits).div_ceil(16);
    let words = if words == 1 { 2 } else { words };
    let (mut zero_s, mut zero_l, mut tmp_s, mut tmp_l) = (0, 0, 0, 0);
    for w in 0..words {
        if s[2 * w] | s[2 * w + 1] == 0 {
            if tmp_l == 0 {
                tmp_s = w;
            }
            tmp_l += 1;
        } else if tmp_l != 0 && zero_l < tmp_l {
            zero_s = tmp_s;
            zero_l = tmp_l;
            tmp_l = 0;
        }
    }
    if tmp_l != 0 && zero_l < tmp_l {
        zero_s = tmp_s;
        zero_l = tmp_l;
    }
    let is_ipv4 = zero_l != words
        && zero_s == 0
        && (zero_l == 6
            || (zero_l == 5 && s[10] == 0xff && s[11] == 0xff)
            || (zero_l == 7 && s[14] != 0 && s[15] != 1));
    let start = out.len();
    for p in 0..words {
        if zero_l != 0 && (zero_s..zero_s + zero_l).contains(&p) {
            if p == zero_s {
                out.push(b':');
            }
            if p == words - 1 {
                out.push(b':');
            }
            continue;
        }
        if is_ipv4 && p > 5 {
            out.push(if p == 6 { b':' } else { b'.' });
            write_decimal(u32::from(s[2 * p]), out);
            if p != 7 || bits > 120 {
                out.push(b'.');
                write_decimal(u32::from(s[2 * p + 1]), out);
            }
        } else {
            if out.len() != start {
                out.push(b':');
            }
            write_hex(u32::from(s[2 * p]) << 8 | u32::from(s[2 * p + 1]), out);
        }
    }
}

// ---- binary ----

/// inet_send / cidr_send: family, bits, is_cidr, address length, address.
pub fn write_binary(value: Inet, out: &mut Vec<u8>) {
    out.push(if value.v6 {
        PGSQL_AF_INET6
    } else {
        PGSQL_AF_INET
    });
    out.push(value.bits);
    out.push(u8::from(value.cidr));
    out.push(value.addr_len() as u8);
    out.extend_from_slice(&value.addr[..value.addr_len()]);
}

/// inet_recv / cidr_recv, with network_recv's checks (22P03).
pub fn read_binary(bytes: &[u8], cidr: bool) -> Result<Inet> {
    let type_name = if cidr { "cidr" } else { "inet" };
    let invalid = |what: &str| {
        Error::new(
            SqlState::InvalidBinaryRepresentation,
            format!("invalid {what} in external \"{type_name}\" value"),
        )
    };
    let [family, bits, _is_cidr, length, address @ ..] = bytes else {
        return Err(insufficient_data());
    };
    let v6 = match *family {
        PGSQL_AF_INET => false,
        PGSQL_AF_INET6 => true,
        _ => return Err(invalid("address family")),
    };
    let mut value = Inet {
        v6,
        bits: *bits,
        cidr,
        addr: [0; 16],
    };
    if *bits > value.max_bits() {
        return Err(invalid("bits"));
    }
    if usize::from(*length) != value.addr_len() {
        return Err(invalid("length"));
    }
    if address.len() < value.addr_len() {
        return Err(insufficient_data());
    }
    if address.len() > value.addr_len() {
        return Err(Error::new(
            SqlState::InvalidBinaryRepresentation,
            INCORRECT_BINARY_FORMAT,
        ));
    }
    value.addr[..address.len()].copy_from_slice(address);
    if cidr && !value.is_network() {
        return Err(Error::new(
            SqlState::InvalidBinaryRepresentation,
            "invalid external \"cidr\" value",
        )
        .with_detail("Value has bits set to right of mask."));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str, cidr: bool) -> String {
        let mut out = Vec::new();
        match parse_inet(text, cidr) {
            Ok(v) => write_inet(v, &mut out),
            Err(e) => return e.message,
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn text_forms_read_and_print_as_postgresql() {
        assert_eq!(round_trip("192.168.1.5", false), "192.168.1.5");
        assert_eq!(round_trip("10/8", true), "10.0.0.0/8");
        assert_eq!(round_trip("10.1/16", true), "10.1.0.0/16");
        assert_eq!(round_trip("192.168.1", true), "192.168.1.0/24");
        assert_eq!(round_trip("::ffff:1.2.3.4", false), "::ffff:1.2.3.4");
        assert_eq!(round_trip("10:23::f1/64", false), "10:23::f1/64");
        assert_eq!(round_trip("::", false), "::");
        assert_eq!(round_trip("1::", false), "1::");
        assert_eq!(
            round_trip("10.1.2.3/8", true),
            "invalid cidr value: \"10.1.2.3/8\""
        );
    }

    #[test]
    fn stored_values_read_back_and_bad_ones_are_refused() -> Result<()> {
        for text in ["10.1.0.0/16", "::ffff:1.2.3.0/120"] {
            let value = parse_inet(text, true)?;
            let back = Inet::from_stored(value.to_stored());
            assert_eq!(back.map(|v| (v, v.cidr)), Some((value, true)));
        }
        let mut host_bits = parse_inet("10.1.2.3/8", false)?.to_stored();
        assert!(Inet::from_stored(host_bits).is_some());
        host_bits[0] |= 2;
        assert!(
            Inet::from_stored(host_bits).is_none(),
            "a cidr with host bits"
        );
        let mut wide = parse_inet("10.1.2.3", false)?.to_stored();
        wide[1] = 33;
        assert!(Inet::from_stored(wide).is_none(), "an IPv4 mask over 32");
        Ok(())
    }

    #[test]
    fn the_binary_format_is_inet_send() -> Result<()> {
        let mut out = Vec::new();
        write_binary(parse_inet("192.168.1.5/24", false)?, &mut out);
        assert_eq!(out, [2, 24, 0, 4, 192, 168, 1, 5]);
        let network = parse_inet("2001:db8::/64", true)?;
        out.clear();
        write_binary(network, &mut out);
        assert_eq!(out[..4], [3, 64, 1, 16]);
        assert_eq!(read_binary(&out, true)?, network);
        let code = |bytes: &[u8]| read_binary(bytes, true).map_err(|e| e.sqlstate());
        assert_eq!(
            code(&[2, 8, 1, 4, 10, 1, 0, 0]),
            Err("22P03"),
            "host bits in a cidr"
        );
        assert_eq!(
            code(&[2, 33, 0, 4, 10, 1, 0, 0]),
            Err("22P03"),
            "mask over 32"
        );
        assert_eq!(
            code(&[3, 8, 0, 4, 10, 1, 0, 0]),
            Err("22P03"),
            "IPv6 of 4 bytes"
        );
        assert_eq!(
            code(&[4, 8, 0, 4, 10, 0, 0, 0]),
            Err("22P03"),
            "no such family"
        );
        assert_eq!(code(&[2, 8, 0, 4, 10, 0, 0]), Err("08P01"), "too short");
        Ok(())
    }

    #[test]
    fn the_sort_key_orders_as_the_comparison() -> Result<()> {
        let texts = [
            "10.0.0.0/8",
            "10.0.0.1",
            "10.0.0.0/16",
            "9.255.0.0/16",
            "::1",
            "0.0.0.0/0",
        ];
        let values: Vec<Inet> = texts
            .iter()
            .map(|t| parse_inet(t, false))
            .collect::<Result<_>>()?;
        for a in &values {
            for b in &values {
                let (mut ka, mut kb) = ([0u8; SORT_KEY_LEN], [0u8; SORT_KEY_LEN]);
                a.write_sort_key(&mut ka);
                b.write_sort_key(&mut kb);
                assert_eq!(ka.cmp(&kb), a.cmp(b), "{a:?} {b:?}");
            }
        }
        Ok(())
    }
}
