//! Raw protocol messages over a plain socket, for tests that look at bytes a client
//! library hides (ParameterStatus, hostile input).
// Each test crate that includes this file uses a part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A protocol 3.0 StartupMessage with `parameters` (which should include `user`).
pub fn startup_packet(parameters: &[(&str, &str)]) -> Vec<u8> {
    let mut body = 196_608i32.to_be_bytes().to_vec();
    for part in parameters.iter().flat_map(|(name, value)| [*name, *value]) {
        body.extend_from_slice(part.as_bytes());
        body.push(0);
    }
    body.push(0);
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

/// A raw connection to the server on `port`, past start-up (ReadyForQuery read).
pub fn connected(port: u16) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet(&[("user", "raw")]))?;
    read_until(&mut stream, b'Z')?;
    Ok(stream)
}
