//! File names with wildcards: `data/part-*.parquet` lists the matching files of the
//! directory, sorted by name so a glob reads its files in a stable order (as DuckDB does).
//! Wildcards (`*`, `?`) are taken in the last component only.

use crate::error::{Error, Result, SqlState};

/// The files `pattern` names: itself when it has no wildcard, else the matching files.
pub fn expand(pattern: &str) -> Result<Vec<String>> {
    let (dir, name) = match pattern.rfind('/') {
        Some(slash) => (&pattern[..=slash], &pattern[slash + 1..]),
        None => ("", pattern),
    };
    if !name.contains(['*', '?']) {
        return Ok(vec![pattern.to_string()]);
    }
    if dir.contains(['*', '?']) {
        return Err(Error::unsupported(format!(
            "wildcards in directory names (\"{pattern}\")"
        )));
    }
    let listing = std::fs::read_dir(if dir.is_empty() { "." } else { dir })
        .map_err(|e| super::open_error(&e, pattern))?;
    let mut paths = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| super::open_error(&e, pattern))?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if matches(name.as_bytes(), file_name.as_bytes())
            && entry.file_type().is_ok_and(|t| !t.is_dir())
        {
            paths.push(format!("{dir}{file_name}"));
        }
    }
    if paths.is_empty() {
        return Err(Error::new(
            SqlState::UndefinedFile,
            format!("no files found that match the pattern \"{pattern}\""),
        ));
    }
    paths.sort();
    Ok(paths)
}

/// Whether `name` matches `pattern` (`*` any run of bytes, `?` one byte), by the usual
/// backtracking to the last star.
fn matches(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn wildcards_match_as_in_a_shell() {
        assert!(matches(b"part-*.parquet", b"part-1.parquet"));
        assert!(matches(b"*", b"x"));
        assert!(matches(b"a?c*", b"abc"));
        assert!(!matches(b"part-*.parquet", b"part-1.csv"));
        assert!(matches(b"*a*b", b"xaxxab"));
        assert!(!matches(b"a?", b"a"));
    }
}
