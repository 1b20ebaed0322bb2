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
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

pub fn run(session: &mut kestrel::Session, sql: &str) {
    session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}
