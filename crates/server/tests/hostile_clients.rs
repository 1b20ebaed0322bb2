//! Clients that would hold a server's resources forever: one that disconnects while its
//! statement runs (the statement is cancelled and its slot comes back), one that never
//! sends its startup packet (closed after `authentication_timeout`) and one that sends
//! queries without reading their results (its connection stops reading it, and others go
//! on). Each test waits for
//! the outcome with a generous bound instead of asserting a time.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use kestrel::Database;

mod common;
#[path = "common/raw.rs"]
mod raw;

use common::{connect, start_server, TestResult};
use raw::connected;

/// Ten billion rows: no run finishes it within the test.
const ENDLESS_COUNT: &str =
    "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b";

/// Far beyond the time the outcome takes, so a slow machine does not fail the test.
const PATIENCE: Duration = Duration::from_secs(30);

fn simple_query_message(sql: &str) -> Vec<u8> {
    let mut message = vec![b'Q'];
    message.extend_from_slice(&((sql.len() + 5) as i32).to_be_bytes());
    message.extend_from_slice(sql.as_bytes());
    message.push(0);
    message
}

#[tokio::test]
async fn a_statement_whose_client_disconnected_is_cancelled_and_frees_its_slot() -> TestResult {
    let mut db = Database::new();
    db.set_setting_default("max_connections", "1")?;
    db.set_setting_default("superuser_reserved_connections", "0")?;
    let port = kestrel_server::spawn_background(db)?.port;
    let mut stream = connected(port)?;
    stream.write_all(&simple_query_message(ENDLESS_COUNT))?;
    drop(stream);
    // The only slot comes back once the statement has stopped and its thread ended.
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if let Ok(client) = connect(port).await {
            let row = client.query_one("SELECT 1::int4", &[]).await?;
            assert_eq!(row.get::<_, i32>(0), 1);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err("the abandoned statement kept its connection slot".into())
}

#[test]
fn a_client_that_never_sends_its_startup_packet_is_closed() -> TestResult {
    let mut db = Database::new();
    db.set_setting_default("authentication_timeout", "1s")?;
    let port = kestrel_server::spawn_background(db)?.port;
    let mut silent = TcpStream::connect(("127.0.0.1", port))?;
    silent.set_read_timeout(Some(PATIENCE))?;
    let mut byte = [0u8; 1];
    // End of input (or a reset): the server gave up on it rather than the read timing out.
    match silent.read(&mut byte) {
        Ok(0) => Ok(()),
        Ok(_) => Err("the server sent something to a silent client".into()),
        Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => Ok(()),
        Err(error) => Err(format!("still open: {error}").into()),
    }
}

#[tokio::test]
async fn a_client_that_never_reads_its_results_does_not_hold_up_others() -> TestResult {
    let port = start_server()?;
    let mut greedy = connected(port)?;
    // A megabyte a result, far more than the socket buffers hold: the server blocks
    // writing to this client and stops reading its later queries.
    let query = simple_query_message("SELECT repeat('x', 1000000)");
    greedy.set_write_timeout(Some(Duration::from_millis(200)))?;
    for _ in 0..200 {
        if greedy.write_all(&query).is_err() {
            break; // The server stopped reading: back-pressure reached the client.
        }
    }
    let other = connect(port).await?;
    let row = other.query_one("SELECT 2::int4", &[]).await?;
    assert_eq!(row.get::<_, i32>(0), 2);
    drop(greedy);
    Ok(())
}
