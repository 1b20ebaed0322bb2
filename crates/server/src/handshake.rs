//! The start of a connection, before a session exists: SSLRequest (answered 'S' and
//! followed by the TLS handshake when the server has a certificate, 'N' otherwise),
//! GSSENCRequest (always 'N'), CancelRequest, and the StartupMessage with its parameters.
//! It runs on the tokio runtime, so clients that connect and say nothing cost a task, not
//! a thread; the TLS session it set up then goes on, blocking, on the connection's thread.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use kestrel::{Error, SqlState};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::cancel::CancelRegistry;
use crate::protocol::backend::{error_response, Severity};
use crate::transport::ClientStream;

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

/// A client that sent its StartupMessage, over the stream it sent it on.
pub(crate) struct Negotiated {
    pub startup: StartupMessage,
    pub stream: NegotiatedStream,
}

pub(crate) enum NegotiatedStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl NegotiatedStream {
    /// The blocking stream the connection thread serves (TLS keeps its session state and
    /// whatever it has already received).
    pub(crate) fn into_blocking(self) -> io::Result<ClientStream> {
        let blocking = |socket: TcpStream| {
            let socket = socket.into_std()?;
            socket.set_nonblocking(false)?;
            Ok::<_, io::Error>(socket)
        };
        Ok(match self {
            NegotiatedStream::Plain(socket) => ClientStream::Plain(blocking(socket)?),
            NegotiatedStream::Tls(stream) => {
                let (socket, connection) = stream.into_inner();
                ClientStream::tls(connection, blocking(socket)?)
            }
        })
    }

    /// PostgreSQL's answer when every connection slot is taken (the client may retry later).
    pub(crate) async fn reject_too_many(&mut self) {
        self.refuse("sorry, too many clients already").await;
    }

    /// PostgreSQL's answer to a role that is not a superuser when only the reserved slots
    /// are left.
    pub(crate) async fn reject_reserved(&mut self) {
        self.refuse(
            "remaining connection slots are reserved for non-replication superuser connections",
        )
        .await;
    }

    /// PostgreSQL's answer past a role's CONNECTION LIMIT.
    pub(crate) async fn reject_role_limit(&mut self, role: &str) {
        self.refuse(&format!("too many connections for role \"{role}\""))
            .await;
    }

    /// A FATAL 53300 with `message`. The client learns nothing more either way; a failed
    /// write means it is gone already.
    async fn refuse(&mut self, message: &str) {
        let error = Error::new(SqlState::TooManyConnections, message);
        let _ = reject::<(), _>(self, error).await;
    }
}

/// The stream before the hand-over, plain or encrypted alike for authentication.
impl AsyncRead for NegotiatedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NegotiatedStream::Plain(socket) => Pin::new(socket).poll_read(cx, buf),
            NegotiatedStream::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for NegotiatedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            NegotiatedStream::Plain(socket) => Pin::new(socket).poll_write(cx, buf),
            NegotiatedStream::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NegotiatedStream::Plain(socket) => Pin::new(socket).poll_flush(cx),
            NegotiatedStream::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NegotiatedStream::Plain(socket) => Pin::new(socket).poll_shutdown(cx),
            NegotiatedStream::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}

/// What came before the StartupMessage.
enum Opening {
    Startup(StartupMessage),
    /// The client asked for TLS and was answered 'S'.
    Tls,
    /// A CancelRequest, a bad packet (answered with a FATAL error) or EOF.
    Done,
}

/// Reads packets until a StartupMessage arrives (returned, with the stream, encrypted if
/// the client asked and `tls` is set) or the connection is done.
pub(crate) async fn negotiate(
    mut stream: TcpStream,
    registry: &CancelRegistry,
    tls: Option<&TlsAcceptor>,
) -> io::Result<Option<Negotiated>> {
    match opening(&mut stream, registry, tls.is_some()).await? {
        Opening::Startup(startup) => Ok(Some(Negotiated {
            startup,
            stream: NegotiatedStream::Plain(stream),
        })),
        Opening::Done => Ok(None),
        Opening::Tls => {
            let Some(acceptor) = tls else {
                return Ok(None);
            };
            let mut encrypted = acceptor.accept(stream).await?;
            match opening(&mut encrypted, registry, false).await? {
                Opening::Startup(startup) => Ok(Some(Negotiated {
                    startup,
                    stream: NegotiatedStream::Tls(Box::new(encrypted)),
                })),
                Opening::Tls | Opening::Done => Ok(None),
            }
        }
    }
}

/// The packets before the StartupMessage: encryption requests, answered 'S' when
/// `offer_tls` (the caller then starts TLS) and 'N' otherwise, or a CancelRequest.
async fn opening<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    registry: &CancelRegistry,
    offer_tls: bool,
) -> io::Result<Opening> {
    for _ in 0..NEGOTIATION_ROUNDS_MAX {
        let Some(packet) = read_packet(stream).await? else {
            return Ok(Opening::Done);
        };
        let (code, rest) = packet.split_at(4);
        let code = u32::from_be_bytes([code[0], code[1], code[2], code[3]]);
        match code {
            SSL_REQUEST_CODE if offer_tls => {
                stream.write_all(b"S").await?;
                return Ok(Opening::Tls);
            }
            SSL_REQUEST_CODE | GSSENC_REQUEST_CODE => {
                stream.write_all(b"N").await?;
                stream.flush().await?;
            }
            CANCEL_REQUEST_CODE => {
                if let [a, b, c, d, e, f, g, h] = *rest {
                    let process_id = i32::from_be_bytes([a, b, c, d]);
                    let secret_key = i32::from_be_bytes([e, f, g, h]);
                    registry.cancel(process_id, secret_key);
                }
                return Ok(Opening::Done);
            }
            _ => {
                return Ok(match startup_message(stream, code, rest).await? {
                    Some(startup) => Opening::Startup(startup),
                    None => Opening::Done,
                })
            }
        }
    }
    reject(stream, protocol_violation("too many encryption requests"))
        .await
        .map(|_: Option<()>| Opening::Done)
}

async fn startup_message<S: AsyncWrite + Unpin>(
    stream: &mut S,
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
async fn read_packet<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
) -> io::Result<Option<Vec<u8>>> {
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
async fn reject<T, S: AsyncWrite + Unpin>(stream: &mut S, error: Error) -> io::Result<Option<T>> {
    let mut out = Vec::new();
    error_response(&mut out, &error, Severity::Fatal);
    stream.write_all(&out).await?;
    // TLS holds written records until flushed.
    stream.flush().await?;
    Ok(None)
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
