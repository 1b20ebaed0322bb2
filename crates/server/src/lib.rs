//! KestrelDB's PostgreSQL wire protocol (v3) server.
//!
//! A connection starts on the tokio runtime ([`handshake`]: TLS set up when the client asks
//! and the server has a certificate ([`tls`]), CancelRequests served, the StartupMessage
//! read; then [`auth`]: the [`hba`] rules' method and the password exchange), then moves to
//! a thread of its own ([`connection`]) that owns the engine session and the socket or TLS
//! stream ([`transport`]): it decodes messages
//! ([`protocol`]), runs the simple ([`simple_query`]) and extended ([`extended`],
//! [`portal`]) query protocols and COPY's sub-protocol ([`copy`]), and encodes results column by column from the engine's
//! vectors ([`values`]) into one output buffer flushed once per batch of responses; a
//! client gone mid-statement has the statement cancelled ([`disconnect`]).
//!
//! [`serve`] runs a server on a listener; [`spawn_background`] starts one on an
//! ephemeral port for tests.

pub mod auth;
mod cancel;
mod connection;
mod connection_slots;
mod copy;
mod disconnect;
mod extended;
mod guard;
mod handshake;
pub mod hba;
mod portal;
mod protocol;
mod simple_query;
mod startup;
mod tls;
mod transport;
mod values;

use std::io;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use kestrel::Database;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use crate::auth::AuthConfig;
use crate::cancel::CancelRegistry;
use crate::connection_slots::ConnectionSlots;
use crate::handshake::Negotiated;

/// Connection threads run the engine's recursive binder and planner on deep expressions.
const CONNECTION_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Pause after a failed accept (e.g. out of file descriptors) before trying again.
const ACCEPT_RETRY_DELAY: Duration = Duration::from_millis(100);

/// PostgreSQL's default `max_connections`, for a database that does not set it.
const MAX_CONNECTIONS_DEFAULT: usize = 100;
/// PostgreSQL's default `superuser_reserved_connections`.
const SUPERUSER_RESERVED_CONNECTIONS_DEFAULT: usize = 3;

/// Accepts connections on `listener` forever, each served against `db`, at most
/// `max_connections` (the database's setting) at a time, authenticated as the default
/// [`AuthConfig`] says, over TLS for clients that ask when the `ssl` setting is on. Fails at
/// once if `ssl` is on and its certificate or key cannot be loaded.
pub async fn serve(listener: TcpListener, db: Database) -> io::Result<()> {
    serve_with(listener, db, AuthConfig::default()).await
}

/// [`serve`] with its authentication rules.
pub async fn serve_with(listener: TcpListener, db: Database, auth: AuthConfig) -> io::Result<()> {
    let tls = tls::acceptor(&db)?;
    let registry = Arc::new(CancelRegistry::default());
    let setting = |name: &str, default: usize| {
        db.setting_default(name)
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    };
    let slots = Arc::new(ConnectionSlots::new(
        setting("max_connections", MAX_CONNECTIONS_DEFAULT),
        setting(
            "superuser_reserved_connections",
            SUPERUSER_RESERVED_CONNECTIONS_DEFAULT,
        ),
    ));
    let auth = Arc::new(auth);
    loop {
        match listener.accept().await {
            Ok((stream, client)) => {
                let (registry, slots) = (Arc::clone(&registry), Arc::clone(&slots));
                let auth = Arc::clone(&auth);
                let client = Client {
                    address: client.ip(),
                    auth,
                };
                tokio::spawn(accept(
                    stream,
                    db.clone(),
                    client,
                    registry,
                    slots,
                    tls.clone(),
                ));
            }
            Err(error) => {
                eprintln!("kestrel: accept failed: {error}");
                tokio::time::sleep(ACCEPT_RETRY_DELAY).await;
            }
        }
    }
}

/// Where a connection comes from and the rules it is authenticated by.
struct Client {
    address: std::net::IpAddr,
    auth: Arc<AuthConfig>,
}

/// Handshake and authentication on the runtime, then hand the socket to a connection
/// thread.
async fn accept(
    stream: TcpStream,
    db: Database,
    client: Client,
    registry: Arc<CancelRegistry>,
    slots: Arc<ConnectionSlots>,
    tls: Option<TlsAcceptor>,
) {
    // Responses are written whole, so Nagle's algorithm would only add latency.
    if let Err(error) = stream.set_nodelay(true) {
        eprintln!("kestrel: cannot set TCP_NODELAY: {error}");
    }
    // A client must finish its startup packets, and then its authentication, within
    // authentication_timeout: a half-open connection holds no slot, but a socket and a task.
    let startup_timeout = db.authentication_timeout();
    let negotiated = tokio::time::timeout(
        startup_timeout,
        handshake::negotiate(stream, &registry, tls.as_ref()),
    )
    .await;
    let Ok(Ok(Some(Negotiated {
        startup,
        mut stream,
    }))) = negotiated
    else {
        return;
    };
    // Only a StartupMessage takes a slot: a CancelRequest must get through a full server.
    let Some(mut slot) = slots.take() else {
        stream.reject_too_many().await;
        return;
    };
    let parameter = |wanted: &str| {
        startup
            .parameters
            .iter()
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.clone())
    };
    // Without a user name the session start reports the error.
    if let Some(user) = parameter("user") {
        let database = parameter("database").unwrap_or_else(|| user.clone());
        let authenticated = tokio::time::timeout(
            startup_timeout,
            auth::authenticate(
                &mut stream,
                &client.auth,
                &db,
                &user,
                &database,
                client.address,
            ),
        )
        .await;
        let Ok(Ok(Some(authenticated))) = authenticated else {
            return;
        };
        if !authenticated.superuser {
            if !slots.left_for_others() {
                stream.reject_reserved().await;
                return;
            }
            if !slot.claim_for_role(&user, authenticated.connection_limit) {
                stream.reject_role_limit(&user).await;
                return;
            }
        }
    }
    let stream = match stream.into_blocking() {
        Ok(stream) => stream,
        Err(error) => {
            eprintln!("kestrel: cannot hand over client socket: {error}");
            return;
        }
    };
    let spawned = thread::Builder::new()
        .name("kestrel-connection".to_owned())
        .stack_size(CONNECTION_STACK_BYTES)
        .spawn(move || {
            connection::run(stream, startup, db, registry);
            drop(slot);
        });
    if let Err(error) = spawned {
        eprintln!("kestrel: cannot start a connection thread: {error}");
    }
}

/// A server running on a background thread (see [`spawn_background`]).
#[derive(Debug, Clone, Copy)]
pub struct BackgroundServer {
    pub port: u16,
}

/// Starts a server for `db` on 127.0.0.1 at an ephemeral port, on a thread of its own
/// with a single-threaded runtime, and returns once it accepts connections. It runs until
/// the process exits. Meant for tests.
pub fn spawn_background(db: Database) -> io::Result<BackgroundServer> {
    spawn_background_with(db, AuthConfig::default())
}

/// [`spawn_background`] with its authentication rules.
pub fn spawn_background_with(db: Database, auth: AuthConfig) -> io::Result<BackgroundServer> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    thread::Builder::new()
        .name("kestrel-server".to_owned())
        .spawn(move || {
            let result = runtime.block_on(async move {
                let listener = TcpListener::from_std(listener)?;
                serve_with(listener, db, auth).await
            });
            if let Err(error) = result {
                eprintln!("kestrel: background server stopped: {error}");
            }
        })?;
    Ok(BackgroundServer { port })
}
