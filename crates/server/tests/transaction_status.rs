//! ReadyForQuery's transaction status around savepoints, as PostgreSQL 15 reports it: a
//! failed block is 'E' until ROLLBACK TO a savepoint makes it 'T' again.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use raw::{read_until, startup_packet};

#[path = "common/raw.rs"]
mod raw;

/// Runs a simple query; the status byte of its ReadyForQuery and the SQLSTATE of its
/// error, if any.
fn run(stream: &mut TcpStream, sql: &str) -> std::io::Result<(u8, Option<String>)> {
    let mut message = vec![b'Q'];
    message.extend_from_slice(&((sql.len() + 5) as i32).to_be_bytes());
    message.extend_from_slice(sql.as_bytes());
    message.push(0);
    stream.write_all(&message)?;
    let messages = read_until(stream, b'Z')?;
    let error = messages
        .iter()
        .find(|(tag, _)| *tag == b'E')
        .and_then(|(_, body)| {
            body.split(|&b| b == 0)
                .find_map(|field| field.strip_prefix(b"C"))
                .map(|code| String::from_utf8_lossy(code).into_owned())
        });
    let status = messages.last().and_then(|(_, body)| body.first()).copied();
    Ok((status.unwrap_or(0), error))
}

#[test]
fn rollback_to_savepoint_leaves_the_failed_state() -> Result<(), Box<dyn std::error::Error>> {
    let port = kestrel_server::spawn_background(kestrel::Database::new())?.port;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet(&[("user", "postgres")]))?;
    read_until(&mut stream, b'Z')?;
    let steps: [(&str, u8, Option<&str>); 8] = [
        ("SAVEPOINT a", b'I', Some("25P01")),
        ("BEGIN", b'T', None),
        ("SAVEPOINT a", b'T', None),
        ("SELECT 1/0", b'E', Some("22012")),
        ("SELECT 1", b'E', Some("25P02")),
        ("ROLLBACK TO SAVEPOINT a", b'T', None),
        ("RELEASE a", b'T', None),
        ("COMMIT", b'I', None),
    ];
    for (sql, status, error) in steps {
        let (got_status, got_error) = run(&mut stream, sql)?;
        assert_eq!(
            (got_status, got_error.as_deref()),
            (status, error),
            "after {sql}"
        );
    }
    Ok(())
}
