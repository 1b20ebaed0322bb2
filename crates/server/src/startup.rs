//! Turning a StartupMessage into a ready session: apply the client's parameters, then
//! AuthenticationOk (trust), the ParameterStatus set PostgreSQL 15 reports,
//! BackendKeyData and the first ReadyForQuery.

use kestrel::{Error, SqlState};

use crate::cancel::Registration;
use crate::connection::{Backend, Flow};
use crate::guard::{catch_panic, or_fallback};
use crate::handshake::StartupMessage;
use crate::protocol::backend;

/// Startup parameters that are not settings.
const NOT_SETTINGS: [&str; 4] = ["user", "database", "options", "replication"];

/// What PostgreSQL 15 reports at startup, in its order, with our defaults when the engine
/// does not know the setting. `session_authorization` is the user.
const REPORTED_SETTINGS: [(&str, &str); 13] = [
    ("application_name", ""),
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("default_transaction_read_only", "off"),
    ("in_hot_standby", "off"),
    ("integer_datetimes", "on"),
    ("IntervalStyle", "postgres"),
    ("is_superuser", "on"),
    ("server_encoding", "UTF8"),
    // A bare version: suffixes such as "15.0 (KestrelDB)" break some drivers' parsers.
    ("server_version", "15.0"),
    ("session_authorization", ""),
    ("standard_conforming_strings", "on"),
    ("TimeZone", "UTC"),
];

pub(crate) fn start(
    backend: &mut Backend,
    startup: &StartupMessage,
    registration: &Registration,
) -> Flow {
    if startup.minor_version > 0 || !startup.protocol_options.is_empty() {
        backend::negotiate_protocol_version(&mut backend.out.buf, &startup.protocol_options);
    }
    let parameter = |wanted: &str| {
        startup
            .parameters
            .iter()
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.as_str())
    };
    let Some(user) = parameter("user") else {
        let error = Error::new(
            SqlState::InvalidAuthorizationSpecification,
            "no PostgreSQL user name specified in startup packet",
        );
        backend.fatal(&error);
        return Flow::Close;
    };
    // PostgreSQL's default database is the one named like the user. The identity comes
    // first: it applies the role's kept settings, which the client's then override.
    let database = parameter("database").unwrap_or(user);
    backend
        .session
        .set_identity(user, database, registration.process_id);
    if let Err(error) = apply_parameters(backend, startup) {
        backend.fatal(&error);
        return Flow::Close;
    }
    if let Err(error) = catch_panic(|| backend.session.check_connect()) {
        backend.fatal(&error);
        return Flow::Close;
    }

    let out = &mut backend.out.buf;
    backend::authentication_ok(out);
    for (name, default) in REPORTED_SETTINGS {
        let session = &backend.session;
        let value = match name {
            // Fixed by the server: the codec speaks UTF-8 and clients parse this version.
            "server_version" | "server_encoding" => None,
            "session_authorization" => Some(user.to_owned()),
            _ => or_fallback(|| session.setting(name), None),
        };
        backend::parameter_status(out, name, value.as_deref().unwrap_or(default));
    }
    backend::backend_key_data(out, registration.process_id, registration.secret_key);
    // The startup settings are reported above already.
    let session = &mut backend.session;
    or_fallback(|| drop(session.take_reported_setting_changes()), ());
    backend.ready_for_query();
    Flow::Continue
}

/// The settings in a startup `options` string: whitespace-separated words, a backslash
/// escaping the next character, `-c name=value` or `--name=value`.
fn command_line_options(options: &str) -> Vec<(String, String)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut settings = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let assignment = match word.as_str() {
            "-c" => words.next(),
            w => w
                .strip_prefix("--")
                .or_else(|| w.strip_prefix("-c"))
                .map(str::to_string),
        };
        if let Some((name, value)) = assignment.as_deref().and_then(|a| a.split_once('=')) {
            settings.push((name.replace('-', "_"), value.to_string()));
        }
    }
    settings
}

/// Passes settings to the session. Unknown names are ignored (drivers send settings we may
/// not have, such as `extra_float_digits`), but a bad value for a known one is fatal, as
/// in PostgreSQL.
fn apply_parameters(backend: &mut Backend, startup: &StartupMessage) -> Result<(), Error> {
    for (name, value) in &startup.parameters {
        if name == "options" {
            // `-c name=value` / `--name=value` (PGOPTIONS): every one must apply.
            for (name, value) in command_line_options(value) {
                let session = &mut backend.session;
                catch_panic(|| session.set_startup_parameter(&name, &value))?;
            }
            continue;
        }
        if NOT_SETTINGS.contains(&name.as_str()) {
            continue;
        }
        let session = &mut backend.session;
        match catch_panic(|| session.set_startup_parameter(name, value)) {
            Ok(()) => {}
            Err(error) if error.state == SqlState::UndefinedObject => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}
