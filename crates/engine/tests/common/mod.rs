//! Helpers shared by the integration tests.

pub fn rows(session: &mut kestrel::Session, sql: &str) -> Vec<String> {
    let results = session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    for batch in &results[0].batches {
        for row in 0..batch.len() {
            let mut line = Vec::new();
            for (i, column) in batch.columns.iter().enumerate() {
                if i > 0 {
                    line.push(b'|');
                }
                if !column.write_text(row, &mut line) {
                    line.extend_from_slice(b"NULL");
                }
            }
            out.push(String::from_utf8_lossy(&line).into_owned());
        }
    }
    out
}

pub fn run(session: &mut kestrel::Session, sql: &str) {
    session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}
