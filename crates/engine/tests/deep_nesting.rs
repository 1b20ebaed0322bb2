//! Statements that nest or chain thousands of levels deep, run in-process on a test thread's
//! small stack: long AND/OR chains are answered, anything past the nesting limit is 54001,
//! and nothing overflows the stack (sizes beyond what the .slt corpus holds comfortably).

fn rows(session: &mut kestrel::Session, sql: &str) -> Result<usize, String> {
    match session.execute(sql) {
        Ok(results) => Ok(results.last().map_or(0, |r| r.row_count())),
        Err(error) => Err(error.sqlstate().to_string()),
    }
}

#[test]
fn long_chains_and_deep_nesting_never_overflow() {
    let mut session = kestrel::Database::new().connect();
    let or_chain = format!(
        "SELECT 1 WHERE {} OR 1 = 1",
        vec!["1 = 0"; 5000].join(" OR ")
    );
    assert_eq!(rows(&mut session, &or_chain), Ok(1));
    let and_chain = format!("SELECT 1 WHERE {}", vec!["1 = 1"; 20000].join(" AND "));
    assert_eq!(rows(&mut session, &and_chain), Ok(1));
    let sum = format!("SELECT {}", vec!["1"; 1500].join(" + "));
    assert_eq!(rows(&mut session, &sum), Ok(1));
    let union = vec!["SELECT 1"; 1000].join(" UNION ALL ");
    assert_eq!(rows(&mut session, &union), Ok(1000));
    let too_long = format!("SELECT {}", vec!["1"; 3000].join(" + "));
    assert_eq!(rows(&mut session, &too_long), Err("54001".into()));
    let too_deep = format!("SELECT {}1", "- ".repeat(1500));
    assert_eq!(rows(&mut session, &too_deep), Err("54001".into()));
    let too_many = vec!["SELECT 1"; 3000].join(" UNION ALL ");
    assert_eq!(rows(&mut session, &too_many), Err("54001".into()));
}

/// Each level of parentheses once scanned ahead to its matching `)` to look for `(expr).*`,
/// so a few thousand levels took minutes of a core (1,000: 40 s in a debug build) before
/// the nesting limit answered: the answer must come at once, at any depth.
#[test]
fn deeply_nested_parentheses_are_refused_without_scanning_each_level() {
    let mut session = kestrel::Database::new().connect();
    let depth = 100_000;
    let parens = format!("SELECT {}1{}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(rows(&mut session, &parens), Err("54001".into()));
    let expanded = format!("SELECT {}ROW(1, 2){}.*", "(".repeat(50), ")".repeat(50));
    assert_eq!(rows(&mut session, &expanded), Ok(1));
}
