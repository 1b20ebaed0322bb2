//! ParameterStatus as PostgreSQL 15 sends it: every GUC_REPORT setting at start-up, in
//! its order, and afterwards only a reported setting whose value differs from the one the
//! client last saw. The expected messages were read from a PostgreSQL 15 server.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use raw::{read_until, startup_packet};

#[path = "common/raw.rs"]
mod raw;

/// The (name, value) of each ParameterStatus among `messages`.
fn statuses(messages: &[(u8, Vec<u8>)]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|(tag, _)| *tag == b'S')
        .filter_map(|(_, body)| {
            let mut parts = body.split(|&b| b == 0);
            let name = String::from_utf8_lossy(parts.next()?).into_owned();
            let value = String::from_utf8_lossy(parts.next()?).into_owned();
            Some((name, value))
        })
        .collect()
}

/// Sends a simple query and returns the ParameterStatus messages of its answer.
fn query(stream: &mut TcpStream, sql: &str) -> std::io::Result<Vec<(String, String)>> {
    let mut message = vec![b'Q'];
    message.extend_from_slice(&((sql.len() + 5) as i32).to_be_bytes());
    message.extend_from_slice(sql.as_bytes());
    message.push(0);
    stream.write_all(&message)?;
    Ok(statuses(&read_until(stream, b'Z')?))
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn reported_settings_follow_postgresql() -> Result<(), Box<dyn std::error::Error>> {
    let port = kestrel_server::spawn_background(kestrel::Database::new())?.port;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let startup = [
        ("user", "postgres"),
        ("database", "postgres"),
        ("application_name", "psql"),
        ("client_encoding", "unicode"),
        ("DateStyle", "ISO"),
    ];
    stream.write_all(&startup_packet(&startup))?;
    let at_startup = statuses(&read_until(&mut stream, b'Z')?);
    let expected = pairs(&[
        ("application_name", "psql"),
        ("client_encoding", "UTF8"),
        ("DateStyle", "ISO, MDY"),
        ("default_transaction_read_only", "off"),
        ("in_hot_standby", "off"),
        ("integer_datetimes", "on"),
        ("IntervalStyle", "postgres"),
        ("is_superuser", "on"),
        ("server_encoding", "UTF8"),
        ("server_version", "15.0"),
        ("session_authorization", "postgres"),
        ("standard_conforming_strings", "on"),
        ("TimeZone", "UTC"),
    ]);
    assert_eq!(at_startup, expected);

    let cases: [(&str, &[(&str, &str)]); 13] = [
        ("SET application_name='x'", &[("application_name", "x")]),
        ("SET application_name='x'", &[]),
        ("SET DateStyle='mdy'", &[]),
        ("SET client_encoding='unicode'", &[]),
        (
            "SET client_encoding='sql_ascii'",
            &[("client_encoding", "SQL_ASCII")],
        ),
        // Back to what the client last saw: nothing to report.
        ("BEGIN; SET TimeZone='GMT'; ROLLBACK", &[]),
        ("SET extra_float_digits=2", &[]),
        (
            "BEGIN; SAVEPOINT a; SET application_name='y'; ROLLBACK TO a; COMMIT",
            &[],
        ),
        // SET LOCAL ends with its transaction.
        ("BEGIN; SET LOCAL application_name='z'; COMMIT", &[]),
        ("BEGIN", &[]),
        (
            "SET LOCAL application_name='z'",
            &[("application_name", "z")],
        ),
        ("COMMIT", &[("application_name", "x")]),
        // RESET goes back to the start-up values.
        (
            "RESET ALL",
            &[("application_name", "psql"), ("client_encoding", "UTF8")],
        ),
    ];
    for (sql, expected) in cases {
        assert_eq!(query(&mut stream, sql)?, pairs(expected), "after {sql}");
    }
    Ok(())
}
