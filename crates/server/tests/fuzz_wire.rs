//! Randomized fuzzing of the wire decoder: start-up packets (lengths, protocol codes,
//! parameters) and, after a valid start-up, frames of every tag with random lengths and
//! bodies. The server runs in this process, so a panic anywhere in it (a connection's
//! thread included, even one the engine catches) trips the panic hook; a healthy client
//! must still be served afterwards.
//!
//! `cargo test` runs a few seconds (CI) from a fixed seed; `KESTREL_FUZZ_SEED=S` runs from
//! another (or replays a run), `KESTREL_FUZZ_ROUNDS=N` runs N times as many connections.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use raw::{connected, read_until};

#[path = "common/raw.rs"]
mod raw;

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// xorshift64*: reproducible from one seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Up to `len_max - 1` random bytes.
    fn bytes(&mut self, len_max: usize) -> Vec<u8> {
        let len = self.below(len_max);
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A length that is sometimes right, sometimes off by a little, sometimes absurd.
fn length_for(body_len: usize, rng: &mut Rng) -> i32 {
    let right = body_len as i32 + 4;
    match rng.below(6) {
        0 => right - 1,
        1 => right + 1 + rng.below(16) as i32,
        2 => rng.next() as i32,
        _ => right,
    }
}

/// A start-up phase packet: a protocol code (real or not) and parameters (well formed or
/// not), behind a length that may lie.
fn startup_fuzz(rng: &mut Rng) -> Vec<u8> {
    let codes = [
        196_608u32, 80_877_103, 80_877_104, 80_877_102, 131_072, 196_609,
    ];
    let code = match rng.below(4) {
        0 => rng.next() as u32,
        _ => codes[rng.below(codes.len())],
    };
    let mut body = code.to_be_bytes().to_vec();
    match rng.below(3) {
        0 => body.extend(rng.bytes(64)),
        1 => body.extend(b"user\0fuzz\0database\0x\0\0"),
        _ => body.extend(b"user\0fuzz\0options\0-c statement_timeout=1\0_pq_.x\0y\0\0"),
    }
    let mut packet = length_for(body.len(), rng).to_be_bytes().to_vec();
    packet.extend(body);
    packet
}

/// Frontend messages after start-up: real tags with random bodies, and a few real ones.
fn frames_fuzz(rng: &mut Rng) -> Vec<u8> {
    const TAGS: &[u8] = b"QPBEDCSHXdcfFp\0z";
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let tag = TAGS[rng.below(TAGS.len())];
        let body = match rng.below(3) {
            0 => b"SELECT 1\0".to_vec(),
            1 => {
                let mut body = rng.bytes(32);
                body.push(0);
                body
            }
            _ => rng.bytes(64),
        };
        out.push(tag);
        out.extend(length_for(body.len(), rng).to_be_bytes());
        out.extend(body);
    }
    out
}

/// Sends `bytes` and reads what comes back until the server closes or goes quiet.
fn exchange(port: u16, bytes: &[u8], after_startup: bool) -> std::io::Result<()> {
    let mut stream = if after_startup {
        connected(port)?
    } else {
        TcpStream::connect(("127.0.0.1", port))?
    };
    stream.set_read_timeout(Some(Duration::from_millis(100)))?;
    // The server may close before it reads everything: a failed write is an answer too.
    let _ = stream.write_all(bytes);
    let mut sink = [0u8; 4096];
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    Ok(())
}

#[test]
fn malformed_startup_packets_and_frames_never_crash_the_server() -> std::io::Result<()> {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let seed = std::env::var("KESTREL_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        // A fixed default, so CI checks the same inputs on every run; set the variable to
        // explore others.
        .unwrap_or(0x5EED)
        | 1;
    let rounds: usize = std::env::var("KESTREL_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut rng = Rng(seed);
    let port = kestrel_server::spawn_background(kestrel::Database::new())?.port;
    let connections = rounds * 60;
    for i in 0..connections {
        let (bytes, after_startup) = match rng.below(2) {
            0 => (startup_fuzz(&mut rng), false),
            _ => (frames_fuzz(&mut rng), true),
        };
        exchange(port, &bytes, after_startup)?;
        assert_eq!(
            PANICS.load(Ordering::SeqCst),
            0,
            "panic (KESTREL_FUZZ_SEED={seed}, connection {i}) on {bytes:?}"
        );
    }
    // The server still serves a well-behaved client.
    let mut healthy = connected(port)?;
    let query = b"Q\0\0\0\x0dSELECT 1\0";
    healthy.write_all(query)?;
    read_until(&mut healthy, b'Z')?;
    eprintln!("fuzz wire: {connections} connections, seed {seed}");
    Ok(())
}
