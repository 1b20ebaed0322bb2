//! SQL's substring(value FROM start [FOR count]) clipping, shared by the byte and bit
//! strings: positions before the first count towards the length, and a range past either
//! end is cut to the value.

use crate::error::{Error, Result, SqlState};

/// The 0-based range of a value of `len` units that `start` (1-based) and `count` select.
pub fn range(len: usize, start: i32, count: Option<i32>) -> Result<std::ops::Range<usize>> {
    let len = len as i64;
    let first = i64::from(start);
    let end = match count {
        Some(c) if c < 0 => {
            return Err(Error::new(
                SqlState::SubstringError,
                "negative substring length not allowed",
            ))
        }
        Some(c) => (first + i64::from(c)).clamp(1, len + 1),
        None => len + 1,
    };
    let from = first.clamp(1, len + 1);
    Ok(match from < end {
        true => from as usize - 1..end as usize - 1,
        false => 0..0,
    })
}
