//! Shared by the wire tests: a fresh in-memory server per test, a connected client, and a raw
//! socket for what a client library does not let a test send or see.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use kestrel::Database;
use tokio_postgres::{Client, NoTls};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Starts a server on its own database and returns its port.
pub fn start_server() -> Result<u16, std::io::Error> {
    Ok(kestrel_server::spawn_background(Database::new())?.port)
}

/// A tokio-postgres client; its connection task runs on the test's runtime.
pub async fn connect(port: u16) -> Result<Client, tokio_postgres::Error> {
    let config = format!("host=127.0.0.1 port={port} user=kestrel application_name=wire_test");
    let (client, connection) = tokio_postgres::connect(&config, NoTls).await?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            eprintln!("connection ended: {error}");
        }
    });
    Ok(client)
}

pub fn startup_packet(user: &str) -> Vec<u8> {
    let mut body = 196_608i32.to_be_bytes().to_vec();
    for part in ["user", user, ""] {
        body.extend_from_slice(part.as_bytes());
        body.push(0);
    }
    let mut packet = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    packet.extend(body);
    packet
}

/// Reads messages until `tag` arrives; returns the bodies of every message read.
pub fn read_until(stream: &mut TcpStream, tag: u8) -> std::io::Result<Vec<(u8, Vec<u8>)>> {
    let mut messages = Vec::new();
    loop {
        let mut header = [0u8; 5];
        stream.read_exact(&mut header)?;
        let len = i32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let mut body = vec![0; len - 4];
        stream.read_exact(&mut body)?;
        let done = header[0] == tag;
        messages.push((header[0], body));
        if done {
            return Ok(messages);
        }
    }
}

pub fn connected(port: u16) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet("raw"))?;
    read_until(&mut stream, b'Z')?;
    Ok(stream)
}
