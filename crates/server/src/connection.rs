//! One client connection after the handshake, on its own thread with blocking socket I/O.
//!
//! Why a thread per connection rather than tokio tasks plus `spawn_blocking`: engine calls
//! are synchronous and may run for seconds, so they must not run on a runtime worker; with
//! the socket owned by the thread that runs the engine, a request/response round trip has
//! no cross-thread hand-off at all (read, execute, encode, write on one thread), a long
//! query only occupies its own thread, and a slow reader applies back-pressure through
//! the blocking write. The cost, one mostly idle thread per connection, is what
//! PostgreSQL pays with a process per connection.
//!
//! The loop: take every complete message already buffered and answer it into the output
//! buffer; only when no complete message is left (the server would wait for the client)
//! is the buffer written out — once for a whole pipeline — then read again, polling the
//! socket for a moment before sleeping on it ([`wait`]).

use std::sync::Arc;

use kestrel::{Database, Error, Session, TransactionStatus};

use crate::cancel::CancelRegistry;
use crate::copy::ClientInput;
use crate::disconnect;
use crate::extended::ExtendedState;
use crate::guard::{catch_panic, or_fallback};
use crate::handshake::StartupMessage;
use crate::protocol::backend::{self, Severity};
use crate::protocol::frontend::FrontendMessage;
use crate::protocol::input::{InputBuffer, ReadError};
use crate::protocol::output::Output;
use crate::protocol::wait;
use crate::startup;
use crate::transport::ClientStream;

/// The per-connection state every message handler works on.
pub(crate) struct Backend {
    pub session: Session,
    pub out: Output,
    pub extended: ExtendedState,
    /// After an error in an extended-query message, everything up to Sync is discarded.
    pub skipping_until_sync: bool,
}

/// Whether the connection goes on after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Close,
}

/// Serves one connection until the client leaves; never panics on client input.
pub(crate) fn run(
    stream: ClientStream,
    startup: StartupMessage,
    db: Database,
    registry: Arc<CancelRegistry>,
) {
    let reader = match stream.try_clone() {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("kestrel: cannot use client socket: {error}");
            return;
        }
    };
    let session = db.connect();
    let registration = registry.register(session.cancel_handle());
    // Without a watcher the connection still works; it only misses a client gone mid-statement.
    let _watch = stream
        .socket()
        .and_then(|socket| disconnect::watch(socket, session.cancel_handle()))
        .map_err(|error| eprintln!("kestrel: cannot watch client socket: {error}"))
        .ok();
    let mut backend = Backend {
        out: Output::new(stream, session.cancel_handle()),
        session,
        extended: ExtendedState::default(),
        skipping_until_sync: false,
    };
    let flow = startup::start(&mut backend, &startup, &registration);
    if flow == Flow::Continue {
        serve_messages(&mut backend, reader);
    }
    backend.out.flush();
}

fn serve_messages(backend: &mut Backend, reader: ClientStream) {
    let mut client = ClientInput {
        input: InputBuffer::new(),
        reader,
        executing: wait::Executing::start(),
    };
    loop {
        match client.input.next_frame() {
            Ok(Some(frame)) => {
                // A message that may start a COPY FROM STDIN is copied out of the input
                // buffer, which must then go on receiving the copy data.
                let flow = if matches!(frame.tag, b'Q' | b'E') {
                    let body = client.input.body(&frame).to_vec();
                    backend.handle(frame.tag, &body, Some(&mut client))
                } else {
                    backend.handle(frame.tag, client.input.body(&frame), None)
                };
                if flow == Flow::Close {
                    return;
                }
                backend.out.flush_if_full();
            }
            Ok(None) => {
                backend.out.flush();
                let ClientInput {
                    input,
                    reader,
                    executing,
                } = &mut client;
                let (idle_timeout, idle_error) = backend.session.idle_timeout().unzip();
                match wait::read_more(input, reader, executing, idle_timeout) {
                    Ok(()) => {}
                    Err(ReadError::Closed) => return,
                    Err(ReadError::Protocol(error)) => return backend.fatal(&error),
                    Err(ReadError::IdleTimeout) => {
                        if let Some(error) = idle_error {
                            backend.fatal(&error);
                        }
                        return;
                    }
                }
            }
            Err(error) => return backend.fatal(&error),
        }
        if backend.out.is_broken() {
            return;
        }
    }
}

impl Backend {
    /// `client`: the connection's input, for a message that may start a COPY FROM STDIN.
    fn handle(&mut self, tag: u8, body: &[u8], client: Option<&mut ClientInput>) -> Flow {
        if self.skipping_until_sync && !matches!(tag, b'S' | b'X') {
            return Flow::Continue;
        }
        let message = match FrontendMessage::decode(tag, body) {
            Ok(message) => message,
            Err(error) => {
                self.fatal(&error);
                return Flow::Close;
            }
        };
        match message {
            FrontendMessage::Query(sql) => self.simple_query(sql, client),
            FrontendMessage::Parse {
                name,
                sql,
                param_oids,
            } => {
                let result = self.parse(name, sql, &param_oids);
                self.extended_result(result);
            }
            FrontendMessage::Bind(bind) => {
                let result = self.bind(bind);
                self.extended_result(result);
            }
            FrontendMessage::Describe(target, name) => {
                let result = self.describe(target, name);
                self.extended_result(result);
            }
            FrontendMessage::Execute { portal, max_rows } => {
                let result = self.execute(portal, max_rows, client);
                self.extended_result(result);
            }
            FrontendMessage::Close(target, name) => {
                self.close(target, name);
            }
            FrontendMessage::Sync => self.sync(),
            FrontendMessage::Flush => self.out.flush(),
            FrontendMessage::Terminate => return Flow::Close,
            FrontendMessage::CopyIgnored => {}
        }
        Flow::Continue
    }

    /// An error in an extended-query message: report it and skip to the next Sync.
    fn extended_result(&mut self, result: Result<(), Error>) {
        if let Err(error) = result {
            backend::error_response(&mut self.out.buf, &error, Severity::Error);
            self.skipping_until_sync = true;
        }
    }

    /// A FATAL error ends the connection (broken framing, malformed messages).
    pub(crate) fn fatal(&mut self, error: &Error) {
        backend::error_response(&mut self.out.buf, error, Severity::Fatal);
    }

    fn sync(&mut self) {
        self.skipping_until_sync = false;
        self.ready_for_query();
    }

    /// ReadyForQuery, preceded by ParameterStatus for settings changed since the last one.
    /// Portals die with their transaction, as in PostgreSQL.
    pub(crate) fn ready_for_query(&mut self) {
        let session = &mut self.session;
        let status = or_fallback(|| session.transaction_status(), TransactionStatus::Idle);
        if status == TransactionStatus::Idle {
            self.extended.close_all_portals();
        }
        let changes = or_fallback(|| session.take_reported_setting_changes(), Vec::new());
        for (name, value) in changes {
            backend::parameter_status(&mut self.out.buf, &name, &value);
        }
        backend::ready_for_query(&mut self.out.buf, status);
    }

    /// Sends the notices the engine raised during the last call.
    pub(crate) fn send_notices(&mut self) {
        let session = &mut self.session;
        for notice in or_fallback(|| session.take_notices(), Vec::new()) {
            backend::notice_response(&mut self.out.buf, &notice);
        }
    }

    /// Runs an engine call with panics caught, then sends its notices.
    pub(crate) fn engine_call<T>(
        &mut self,
        call: impl FnOnce(&mut Session) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let session = &mut self.session;
        let result = catch_panic(|| call(session));
        self.send_notices();
        result
    }
}
