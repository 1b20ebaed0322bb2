//! The byte stream of an established connection: the client's TCP socket, or a TLS
//! session over it. The connection thread reads and writes it with blocking calls, and its
//! reader and writer halves share one TLS state (they run on the same thread, one at a
//! time, so the lock is never contended). Waiting ([`crate::protocol::wait`]) sets the
//! socket's blocking mode and read timeout underneath either.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rustls::{ServerConnection, StreamOwned};

type TlsStream = StreamOwned<ServerConnection, TcpStream>;

pub(crate) enum ClientStream {
    Plain(TcpStream),
    Tls(Arc<Mutex<TlsStream>>),
}

impl ClientStream {
    /// A TLS session whose handshake is done (on the runtime, see [`crate::handshake`]);
    /// `connection` keeps any bytes it has already received.
    pub(crate) fn tls(connection: ServerConnection, socket: TcpStream) -> ClientStream {
        ClientStream::Tls(Arc::new(Mutex::new(StreamOwned::new(connection, socket))))
    }

    /// A second handle on the same stream: the reader of a connection, beside its writer.
    pub(crate) fn try_clone(&self) -> io::Result<ClientStream> {
        match self {
            ClientStream::Plain(socket) => socket.try_clone().map(ClientStream::Plain),
            ClientStream::Tls(stream) => Ok(ClientStream::Tls(Arc::clone(stream))),
        }
    }

    /// A second handle on the TCP socket underneath (beneath TLS, if any).
    pub(crate) fn socket(&self) -> io::Result<TcpStream> {
        match self {
            ClientStream::Plain(socket) => socket.try_clone(),
            ClientStream::Tls(stream) => lock(stream)?.sock.try_clone(),
        }
    }

    pub(crate) fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.set_nonblocking(nonblocking),
            ClientStream::Tls(stream) => lock(stream)?.sock.set_nonblocking(nonblocking),
        }
    }

    /// Shuts both directions of the socket (TLS sends no close_notify: the connection is
    /// being dropped, as when the client vanishes).
    pub(crate) fn shutdown(&self) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.shutdown(Shutdown::Both),
            ClientStream::Tls(stream) => lock(stream)?.sock.shutdown(Shutdown::Both),
        }
    }

    pub(crate) fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.set_read_timeout(timeout),
            ClientStream::Tls(stream) => lock(stream)?.sock.set_read_timeout(timeout),
        }
    }
}

/// A poisoned lock means a panic mid-record: the TLS state cannot be trusted any more.
fn lock(stream: &Mutex<TlsStream>) -> io::Result<MutexGuard<'_, TlsStream>> {
    stream
        .lock()
        .map_err(|_| io::Error::other("TLS state lost after a panic"))
}

impl Read for ClientStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ClientStream::Plain(socket) => socket.read(buf),
            ClientStream::Tls(stream) => lock(stream)?.read(buf),
        }
    }
}

impl Write for ClientStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            ClientStream::Plain(socket) => socket.write(buf),
            ClientStream::Tls(stream) => lock(stream)?.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.flush(),
            ClientStream::Tls(stream) => lock(stream)?.flush(),
        }
    }
}
