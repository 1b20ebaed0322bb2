//! uuid's text format, as PostgreSQL's `uuid_in` and `uuid_out`. A uuid is held as a
//! big-endian `u128`, so integer order is PostgreSQL's order (memcmp of the 16 bytes).

use crate::error::{Error, Result};

/// uuid_in: 32 hex digits in either case, optionally in braces, with an optional hyphen
/// after any group of four digits (so the canonical 8-4-4-4-12 form, none at all, or one
/// every four digits). No surrounding white space.
pub fn parse_uuid(text: &str) -> Result<u128> {
    let invalid = || Error::invalid_input("uuid", text);
    let bytes = text.as_bytes();
    let (inner, braced) = match bytes {
        [b'{', inner @ .., b'}'] => (inner, true),
        _ => (bytes, false),
    };
    if !braced && bytes.first() == Some(&b'{') {
        return Err(invalid());
    }
    let mut value: u128 = 0;
    let mut at = 0;
    for byte_idx in 0..16 {
        let pair = inner.get(at..at + 2).ok_or_else(invalid)?;
        for &digit in pair {
            let nibble = (digit as char).to_digit(16).ok_or_else(invalid)?;
            value = value << 4 | u128::from(nibble);
        }
        at += 2;
        if inner.get(at) == Some(&b'-') && byte_idx % 2 == 1 && byte_idx < 15 {
            at += 1;
        }
    }
    if at != inner.len() {
        return Err(invalid());
    }
    Ok(value)
}

/// uuid_out: lower case, hyphens after the 4th, 6th, 8th and 10th bytes.
pub fn write_uuid(value: u128, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, byte) in value.to_be_bytes().iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push(b'-');
        }
        out.push(HEX[usize::from(byte >> 4)]);
        out.push(HEX[usize::from(byte & 0xf)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_form_reads_the_same_value() -> Result<()> {
        let canonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
        let expected = parse_uuid(canonical)?;
        for form in [
            "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            assert_eq!(parse_uuid(form)?, expected, "{form}");
        }
        for bad in [
            "",
            "a0eebc99",
            "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
            "a0e-ebc999c0b4ef8bb6d6bb9bd380a11",
        ] {
            assert!(parse_uuid(bad).is_err(), "{bad}");
        }
        let mut out = Vec::new();
        write_uuid(expected, &mut out);
        assert_eq!(out, canonical.as_bytes());
        Ok(())
    }
}
