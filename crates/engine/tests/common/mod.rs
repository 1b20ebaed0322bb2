//! Helpers shared by the integration tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

pub fn rows(session: &mut kestrel::Session, sql: &str) -> Vec<String> {
    let results = session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    results[0].text_lines()
}

/// xorshift64*: a fixed pseudo-random series from a seed, so a failure reproduces.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A position in a collection of `len` items (0 when it is empty).
    pub fn index(&mut self, len: usize) -> usize {
        (self.next() % len.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

pub fn run(session: &mut kestrel::Session, sql: &str) {
    session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Runs `sessions` sessions of `db` on their own threads, each executing `steps` statements
/// that `statement(rng, session, step)` writes, and fails the test if any of them panicked or
/// failed with an internal error (XX000). Other errors are part of the race: a failed block
/// is rolled back before the session goes on.
pub fn race_sessions<F>(db: &kestrel::Database, sessions: u64, steps: u64, seed: u64, statement: F)
where
    F: Fn(&mut Random, u64, u64) -> String + Send + Sync + 'static,
{
    let statement = std::sync::Arc::new(statement);
    let workers: Vec<_> = (0..sessions)
        .map(|session| {
            let mut s = db.connect();
            let statement = std::sync::Arc::clone(&statement);
            std::thread::spawn(move || {
                let mut rng = Random((seed ^ (session + 1).wrapping_mul(0x9E37_79B9)) | 1);
                let mut internal = Vec::new();
                for step in 0..steps {
                    let sql = statement(&mut rng, session, step);
                    if let Err(e) = s.execute(&sql) {
                        if e.sqlstate() == "XX000" {
                            internal.push(format!("{sql}: {e}"));
                        }
                        // A failed explicit block must be ended before the next statement.
                        let _ = s.execute("ROLLBACK");
                    }
                }
                internal
            })
        })
        .collect();
    let mut internal = Vec::new();
    for worker in workers {
        match worker.join() {
            Ok(errors) => internal.extend(errors),
            Err(_) => internal.push("a session panicked".into()),
        }
    }
    assert!(internal.is_empty(), "internal errors: {internal:#?}");
}

/// Runs `sql` on a new session of `db` on another thread while `holder` keeps its
/// transaction open for a moment, then ends it with `end`; the other statement's SQLSTATE
/// (or "ok"). Fails the test if the statement did not wait for `holder` (`waiter` names it).
pub fn race_with_holder(
    db: &kestrel::Database,
    holder: &mut kestrel::Session,
    sql: &str,
    end: &str,
    waiter: &str,
) -> String {
    let mut other = db.connect();
    let sql = sql.to_string();
    let thread = std::thread::spawn(move || match other.execute(&sql) {
        Ok(_) => "ok".to_string(),
        Err(e) => e.sqlstate().to_string(),
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !thread.is_finished(),
        "{waiter} did not wait for the holder"
    );
    run(holder, end);
    thread.join().unwrap_or_else(|_| "panicked".into())
}
