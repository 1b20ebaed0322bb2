//! Hostile bytes over a raw socket: a broken message gets a FATAL 08P01 ErrorResponse and
//! the connection is closed, while the server keeps serving everyone else.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{connect, start_server, TestResult};
use raw::{connected, read_until, startup_packet};

#[path = "common/raw.rs"]
mod raw;

/// Sends `bytes`, expects a FATAL 08P01 error and then the end of the connection.
fn expect_protocol_violation(port: u16, bytes: &[u8]) -> TestResult {
    let mut stream = connected(port)?;
    stream.write_all(bytes)?;
    let messages = read_until(&mut stream, b'E')?;
    let (_, error) = messages.last().ok_or("no error")?;
    let text = String::from_utf8_lossy(error);
    assert!(text.contains("C08P01"), "unexpected error {text}");
    assert!(text.contains("SFATAL"), "unexpected error {text}");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest)?;
    assert!(rest.is_empty());
    Ok(())
}

#[test]
fn broken_messages_close_only_their_connection() -> TestResult {
    let port = start_server()?;
    // Unknown message type.
    expect_protocol_violation(port, b"?\0\0\0\x04")?;
    // Length below 4 and absurdly large.
    expect_protocol_violation(port, b"Q\0\0\0\x02")?;
    expect_protocol_violation(port, b"Q\x7f\xff\xff\xff")?;
    // A Query whose string is not NUL-terminated, and a truncated Bind.
    expect_protocol_violation(port, b"Q\0\0\0\x08abcd")?;
    expect_protocol_violation(port, b"B\0\0\0\x06\0\0")?;
    // A startup packet with a bad length.
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&[0, 0, 0, 2])?;
    let messages = read_until(&mut stream, b'E')?;
    assert!(String::from_utf8_lossy(&messages[0].1).contains("C08P01"));

    // Someone else is still served.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let client = connect(port).await?;
        client.simple_query("SELECT 1").await?;
        Ok(())
    })
}

#[test]
fn encryption_requests_are_declined_and_terminate_closes() -> TestResult {
    let port = start_server()?;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    for code in [80_877_103i32, 80_877_104] {
        let mut request = 8i32.to_be_bytes().to_vec();
        request.extend_from_slice(&code.to_be_bytes());
        stream.write_all(&request)?;
        let mut answer = [0u8; 1];
        stream.read_exact(&mut answer)?;
        assert_eq!(&answer, b"N");
    }
    stream.write_all(&startup_packet(&[("user", "raw")]))?;
    let messages = read_until(&mut stream, b'Z')?;
    let tags: Vec<u8> = messages.iter().map(|(tag, _)| *tag).collect();
    assert_eq!(tags.first(), Some(&b'R'));
    assert!(tags.contains(&b'K'));
    assert!(messages
        .iter()
        .any(|(tag, body)| *tag == b'S' && body.starts_with(b"server_version\x0015.0\0")));
    stream.write_all(b"X\0\0\0\x04")?;
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest)?;
    assert!(rest.is_empty());
    Ok(())
}
