//! PostgreSQL's `"char"`: one byte, the type of the catalogs' kind columns (pg_class.relkind,
//! pg_type.typtype). A value is kept as its output text (charout), so it reads, compares and
//! hashes as text: the byte itself when it is ASCII, an empty string for the zero byte, and
//! `\ooo` (three octal digits) for a byte with the high bit set, since that byte alone is
//! not UTF-8. Clients see OID 18 and, in binary, the byte: asyncpg reads `typtype` so.

/// charin, and text_char (the cast from text): `\ooo` is the byte it spells, anything else
/// its first byte (the zero byte for an empty string).
pub fn parse(text: &str) -> String {
    match octal_escape(text.as_bytes()) {
        Some(byte) => from_byte(byte),
        None => from_byte(text.as_bytes().first().copied().unwrap_or(0)),
    }
}

/// charout of `byte`.
pub fn from_byte(byte: u8) -> String {
    match byte {
        0 => String::new(),
        b if b.is_ascii() => char::from(b).to_string(),
        b => format!("\\{:03o}", b),
    }
}

/// The byte a stored value stands for (charsend, the cast to integer).
pub fn to_byte(value: &str) -> u8 {
    octal_escape(value.as_bytes()).unwrap_or_else(|| value.as_bytes().first().copied().unwrap_or(0))
}

fn octal_escape(bytes: &[u8]) -> Option<u8> {
    let [b'\\', digits @ ..] = bytes else {
        return None;
    };
    let [a, b, c] = digits else {
        return None;
    };
    let octal = |d: &u8| (b'0'..=b'7').contains(d).then(|| u32::from(d - b'0'));
    let value = (octal(a)? << 6) + (octal(b)? << 3) + octal(c)?;
    // PostgreSQL keeps the low byte of \400 and above.
    Some(value as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_and_output_are_charin_and_charout() {
        assert_eq!(parse("abc"), "a");
        assert_eq!(parse(""), "");
        assert_eq!(parse("\\101"), "A");
        assert_eq!(parse("é"), "\\303");
        assert_eq!(to_byte("\\303"), 0xc3);
        assert_eq!(to_byte(""), 0);
    }
}
