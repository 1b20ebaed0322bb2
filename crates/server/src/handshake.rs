//! The start of a connection, before a session exists: SSLRequest and GSSENCRequest
//! (answered 'N': no encryption), CancelRequest, and the StartupMessage with its
//! parameters. It runs on the tokio runtime, so clients that connect and say nothing cost
//! a task, not a thread.

use std::io;

use kestrel::{Error, SqlState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::cancel::CancelRegistry;
use crate::protocol::backend::{error_response, Severity};

/// PostgreSQL's MAX_STARTUP_PACKET_LENGTH.
const STARTUP_PACKET_BYTES_MAX: usize = 10_000;
const SSL_REQUEST_CODE: u32 = 80_877_103;
const GSSENC_REQUEST_CODE: u32 = 80_877_104;
const CANCEL_REQUEST_CODE: u32 = 80_877_102;
/// An encryption request may precede the startup packet; more rounds are a confused client.
const NEGOTIATION_ROUNDS_MAX: usize = 3;

/// A client's StartupMessage.
#[derive(Debug)]
pub(crate) struct StartupMessage {
    pub minor_version: u16,
    pub parameters: Vec<(String, String)>,
    /// `_pq_.*` protocol options, none of which we know.
    pub protocol_options: Vec<String>,
}

/// Reads packets until a StartupMessage arrives (returned) or the connection is done
/// (a CancelRequest, a bad packet — answered with a FATAL error — or EOF).
pub(crate) async fn negotiate(
    stream: &mut TcpStream,
    registry: &CancelRegistry,
) -> io::Result<Option<StartupMessage>> {
    for _ in 0..NEGOTIATION_ROUNDS_MAX {
        let Some(packet) = read_packet(stream).await? else {
            return Ok(None);
        };
        let (code, rest) = packet.split_at(4);
        let code = u32::from_be_bytes([code[0], code[1], code[2], code[3]]);
        match code {
            SSL_REQUEST_CODE | GSSENC_REQUEST_CODE => stream.write_all(b"N").await?,
            CANCEL_REQUEST_CODE => {
                if let [a, b, c, d, e, f, g, h] = *rest {
                    let process_id = i32::from_be_bytes([a, b, c, d]);
                    let secret_key = i32::from_be_bytes([e, f, g, h]);
                    registry.cancel(process_id, secret_key);
                }
                return Ok(None);
            }
            _ => return startup_message(stream, code, rest).await,
        }
    }
    reject(stream, protocol_violation("too many encryption requests")).await
}

async fn startup_message(
    stream: &mut TcpStream,
    code: u32,
    rest: &[u8],
) -> io::Result<Option<StartupMessage>> {
    let (major, minor) = (code >> 16, (code & 0xFFFF) as u16);
    if major != 3 {
        let error = Error::new(
            SqlState::FeatureNotSupported,
            format!("unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"),
        );
        return reject(stream, error).await;
    }
    match parse_parameters(minor, rest) {
        Ok(startup) => Ok(Some(startup)),
        Err(error) => reject(stream, error).await,
    }
}

/// Name/value pairs of NUL-terminated strings, ended by an empty name.
fn parse_parameters(minor_version: u16, bytes: &[u8]) -> Result<StartupMessage, Error> {
    let invalid =
        || protocol_violation("invalid startup packet layout: expected terminator as last byte");
    let mut strings = bytes.split(|&b| b == 0);
    let mut parameters = Vec::new();
    let mut protocol_options = Vec::new();
    loop {
        let name = strings.next().ok_or_else(invalid)?;
        if name.is_empty() {
            break;
        }
        let value = strings.next().ok_or_else(invalid)?;
        let (Ok(name), Ok(value)) = (std::str::from_utf8(name), std::str::from_utf8(value)) else {
            return Err(protocol_violation("invalid UTF-8 in startup packet"));
        };
        if name.starts_with("_pq_.") {
            protocol_options.push(name.to_owned());
        } else {
            parameters.push((name.to_owned(), value.to_owned()));
        }
    }
    // After the terminating empty name only the split's empty tail may remain.
    match (strings.next(), strings.next()) {
        (Some([]), None) => Ok(StartupMessage {
            minor_version,
            parameters,
            protocol_options,
        }),
        _ => Err(invalid()),
    }
}

/// One length-prefixed startup-phase packet (length included), without the length.
async fn read_packet(stream: &mut TcpStream) -> io::Result<Option<Vec<u8>>> {
    let mut len_bytes = [0u8; 4];
    match stream.read_exact(&mut len_bytes).await {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = i32::from_be_bytes(len_bytes);
    let len = match usize::try_from(len) {
        Ok(len) if (8..=STARTUP_PACKET_BYTES_MAX).contains(&len) => len,
        _ => {
            return reject(
                stream,
                protocol_violation("invalid length of startup packet"),
            )
            .await
        }
    };
    let mut packet = vec![0; len - 4];
    stream.read_exact(&mut packet).await?;
    Ok(Some(packet))
}

/// Sends a FATAL error and ends the connection.
async fn reject<T>(stream: &mut TcpStream, error: Error) -> io::Result<Option<T>> {
    let mut out = Vec::new();
    error_response(&mut out, &error, Severity::Fatal);
    stream.write_all(&out).await?;
    Ok(None)
}

/// PostgreSQL's answer when every connection slot is taken (the client may retry later).
pub(crate) async fn reject_too_many(stream: &mut TcpStream) {
    let error = Error::new(
        SqlState::TooManyConnections,
        "sorry, too many clients already",
    );
    // The client learns nothing more either way; a failed write means it is gone already.
    let _ = reject::<()>(stream, error).await;
}

/// PostgreSQL's answer to a role that is not a superuser when only the reserved slots are
/// left.
pub(crate) async fn reject_reserved(stream: &mut TcpStream) {
    let error = Error::new(
        SqlState::TooManyConnections,
        "remaining connection slots are reserved for non-replication superuser connections",
    );
    // As above: a failed write means the client is gone.
    let _ = reject::<()>(stream, error).await;
}

/// PostgreSQL's answer past a role's CONNECTION LIMIT.
pub(crate) async fn reject_role_limit(stream: &mut TcpStream, role: &str) {
    let error = Error::new(
        SqlState::TooManyConnections,
        format!("too many connections for role \"{role}\""),
    );
    // As above: a failed write means the client is gone.
    let _ = reject::<()>(stream, error).await;
}

fn protocol_violation(message: &str) -> Error {
    Error::new(SqlState::ProtocolViolation, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_parameters_and_protocol_options() -> Result<(), Error> {
        let startup = parse_parameters(0, b"user\0alice\0_pq_.x\0y\0database\0db\0\0")?;
        let (parameters, options) = (startup.parameters, startup.protocol_options);
        assert_eq!(
            parameters,
            vec![
                ("user".to_owned(), "alice".to_owned()),
                ("database".to_owned(), "db".to_owned())
            ]
        );
        assert_eq!(options, vec!["_pq_.x".to_owned()]);
        assert!(parse_parameters(0, b"user\0alice\0").is_err());
        assert!(parse_parameters(0, b"user\0alice\0\0junk").is_err());
        assert!(parse_parameters(0, b"user").is_err());
        Ok(())
    }
}
