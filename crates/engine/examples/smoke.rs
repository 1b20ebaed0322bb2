fn main() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    let sql = std::env::args().nth(1).unwrap_or_default();
    for stmt in sql.split(";;") {
        match s.execute(stmt) {
            Ok(results) => {
                for r in results {
                    if let Some(cols) = &r.columns {
                        println!(
                            "{}",
                            cols.iter()
                                .map(|c| format!("{}:{}", c.name, c.data_type))
                                .collect::<Vec<_>>()
                                .join("|")
                        );
                        for b in &r.batches {
                            for row in 0..b.len() {
                                let mut line = Vec::new();
                                for (i, c) in b.columns.iter().enumerate() {
                                    if i > 0 {
                                        line.push(b'|');
                                    }
                                    if !c.write_text(row, &mut line) {
                                        line.extend_from_slice(b"NULL");
                                    }
                                }
                                println!("{}", String::from_utf8_lossy(&line));
                            }
                        }
                    }
                    println!("-- {}", r.tag);
                }
            }
            Err(e) => println!("ERROR: {e}"),
        }
    }
}
