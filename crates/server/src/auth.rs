//! Authentication, between the StartupMessage and AuthenticationOk: the hba rules pick a
//! method for the connection, then the client proves its role's password in clear
//! (`password`), with an md5 challenge (`md5`) or with SCRAM-SHA-256 over SASL
//! (`scram-sha-256`, RFC 5802 / 7677, no channel binding: only SCRAM-SHA-256 is offered).
//! Verifiers come from the role catalog (`kestrel::catalog::password`).
//!
//! As in PostgreSQL, an unknown role, a role without a password and a wrong password all
//! fail with the same 28P01 message (the SCRAM exchange runs to its end against a mock
//! secret), and each failure is answered only after a delay, so guessing is slow.

use std::io;
use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kestrel::catalog::password::{self, ScramSecret};
use kestrel::catalog::Role;
use kestrel::{Database, Error, SqlState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::handshake::NegotiatedStream;
use crate::hba::{AuthMethod, HbaRules, RoleMembership};
use crate::protocol::backend::{begin, error_response, finish, put_i32, Severity};

/// How long a failed authentication waits before it answers (PostgreSQL's auth_delay
/// module, which a server exposed to others should load).
const FAILURE_DELAY: Duration = Duration::from_millis(500);
/// The longest authentication message a client may send (PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH).
const AUTH_MESSAGE_BYTES_MAX: usize = 65_535;
const SCRAM_MECHANISM: &str = "SCRAM-SHA-256";
/// AuthenticationRequest codes.
const AUTH_CLEARTEXT: i32 = 3;
const AUTH_MD5: i32 = 5;
const AUTH_SASL: i32 = 10;
const AUTH_SASL_CONTINUE: i32 = 11;
const AUTH_SASL_FINAL: i32 = 12;
/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// How the server authenticates: its rules, and whether a trusted client may name a role
/// that does not exist (the development default: it is then the bootstrap superuser).
#[derive(Debug, Clone)]
pub struct AuthConfig {
    pub rules: HbaRules,
    pub trust_unknown_roles: bool,
}

impl Default for AuthConfig {
    /// Trust on the loopback addresses, as KestrelDB always did there (any user name,
    /// none needing a password); SCRAM-SHA-256 from anywhere else.
    fn default() -> Self {
        AuthConfig {
            rules: HbaRules::loopback_trust(AuthMethod::ScramSha256),
            trust_unknown_roles: true,
        }
    }
}

/// Who got in.
pub(crate) struct Authenticated {
    pub superuser: bool,
    /// The role's CONNECTION LIMIT (-1: none).
    pub connection_limit: i32,
}

struct CatalogRoles<'a>(&'a Database);

impl RoleMembership for CatalogRoles<'_> {
    fn is_member(&self, user: &str, role: &str) -> bool {
        self.0.is_role_member(user, role)
    }
}

/// Runs the authentication `config` asks of `user`; `Ok(None)` once the client was sent a
/// FATAL error (or left).
pub(crate) async fn authenticate(
    stream: &mut NegotiatedStream,
    config: &AuthConfig,
    db: &Database,
    user: &str,
    database: &str,
    client: IpAddr,
) -> io::Result<Option<Authenticated>> {
    let Some(method) = config
        .rules
        .method_for(database, user, client, &CatalogRoles(db))
    else {
        let message = format!(
            "no pg_hba.conf entry for host \"{client}\", user \"{user}\", database \"{database}\", no encryption"
        );
        return fail(stream, SqlState::InvalidAuthorizationSpecification, message).await;
    };
    let role = db.role(user);
    let proven = match method {
        AuthMethod::Reject => {
            let message = format!(
                "pg_hba.conf rejects connection for host \"{client}\", user \"{user}\", database \"{database}\", no encryption"
            );
            return fail(stream, SqlState::InvalidAuthorizationSpecification, message).await;
        }
        AuthMethod::Trust => match &role {
            Some(_) => true,
            None if config.trust_unknown_roles => {
                return Ok(Some(Authenticated {
                    superuser: true,
                    connection_limit: -1,
                }))
            }
            None => {
                let message = format!("role \"{user}\" does not exist");
                return fail(stream, SqlState::InvalidAuthorizationSpecification, message).await;
            }
        },
        AuthMethod::Password => {
            let Some(response) = request_password(stream, AUTH_CLEARTEXT, &[]).await? else {
                return Ok(None);
            };
            let verifier = usable_verifier(role.as_deref());
            verifier.is_some_and(|v| password::cleartext_matches(v, user, &response))
        }
        AuthMethod::Md5 if !usable_verifier(role.as_deref()).is_some_and(password::is_scram) => {
            let mut salt = [0u8; 4];
            random_bytes(&mut salt)?;
            let Some(response) = request_password(stream, AUTH_MD5, &salt).await? else {
                return Ok(None);
            };
            let verifier = usable_verifier(role.as_deref());
            verifier.is_some_and(|v| password::md5_response_matches(v, salt, &response))
        }
        // md5 with a SCRAM verifier is done with SCRAM, as PostgreSQL does.
        AuthMethod::Md5 | AuthMethod::ScramSha256 => {
            let secret = usable_verifier(role.as_deref()).and_then(ScramSecret::parse);
            match scram_exchange(stream, secret.as_ref(), user).await? {
                Some(proven) => proven,
                None => return Ok(None),
            }
        }
    };
    let Some(role) = role.filter(|_| proven) else {
        let message = format!("password authentication failed for user \"{user}\"");
        return fail(stream, SqlState::InvalidPassword, message).await;
    };
    if !role.login {
        let message = format!("role \"{user}\" is not permitted to log in");
        return fail(stream, SqlState::InvalidAuthorizationSpecification, message).await;
    }
    Ok(Some(Authenticated {
        superuser: role.superuser,
        connection_limit: role.connection_limit,
    }))
}

/// The role's verifier, unless it has none or it expired (VALID UNTIL).
fn usable_verifier(role: Option<&Role>) -> Option<&str> {
    let role = role?;
    if let Some(until) = role.valid_until {
        let now_micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        if until < now_micros.saturating_sub(POSTGRES_EPOCH_MICROS) {
            return None;
        }
    }
    role.password.as_deref()
}

/// Sends AuthenticationCleartextPassword or AuthenticationMD5Password and reads the
/// PasswordMessage's string.
async fn request_password(
    stream: &mut NegotiatedStream,
    code: i32,
    salt: &[u8],
) -> io::Result<Option<String>> {
    let mut out = Vec::new();
    let start = begin(&mut out, b'R');
    put_i32(&mut out, code);
    out.extend_from_slice(salt);
    finish(&mut out, start);
    stream.write_all(&out).await?;
    let Some(body) = read_password_message(stream).await? else {
        return Ok(None);
    };
    match body.strip_suffix(&[0]).map(std::str::from_utf8) {
        Some(Ok(text)) if !text.contains('\0') => Ok(Some(text.to_string())),
        _ => protocol_violation(stream, "invalid password packet").await,
    }
}

/// The SCRAM-SHA-256 exchange; `Some(proven)` when it ran to its end. Without a secret
/// (no such role, no or an md5 password) it runs against a mock one and fails.
async fn scram_exchange(
    stream: &mut NegotiatedStream,
    secret: Option<&ScramSecret>,
    user: &str,
) -> io::Result<Option<bool>> {
    let mock = ScramSecret::mock(user);
    let (secret, real) = match secret {
        Some(secret) => (secret, true),
        None => (&mock, false),
    };
    let mut mechanisms = SCRAM_MECHANISM.as_bytes().to_vec();
    mechanisms.extend_from_slice(b"\0\0");
    send_auth(stream, AUTH_SASL, &mechanisms).await?;
    let Some(initial) = read_password_message(stream).await? else {
        return Ok(None);
    };
    let Some(client_first) = sasl_initial_response(&initial) else {
        return protocol_violation(stream, "malformed SCRAM message").await;
    };
    let client_first = match client_first {
        Ok(first) => first,
        Err(message) => return protocol_violation(stream, message).await,
    };
    let mut server_nonce = [0u8; 18];
    random_bytes(&mut server_nonce)?;
    let nonce = format!("{}{}", client_first.nonce, STANDARD.encode(server_nonce));
    let server_first = format!(
        "r={nonce},s={},i={}",
        STANDARD.encode(&secret.salt),
        secret.iterations
    );
    send_auth(stream, AUTH_SASL_CONTINUE, server_first.as_bytes()).await?;
    let Some(final_message) = read_password_message(stream).await? else {
        return Ok(None);
    };
    let Ok(client_final) = std::str::from_utf8(&final_message) else {
        return protocol_violation(stream, "malformed SCRAM message").await;
    };
    let Some((without_proof, proof)) = client_final.rsplit_once(",p=") else {
        return protocol_violation(stream, "malformed SCRAM message").await;
    };
    let binding_ok = without_proof
        .split(',')
        .next()
        .and_then(|c| c.strip_prefix("c="))
        .and_then(|c| STANDARD.decode(c).ok())
        .is_some_and(|header| header == client_first.gs2_header.as_bytes());
    let nonce_ok = without_proof.split(',').nth(1) == Some(&format!("r={nonce}"));
    if !binding_ok || !nonce_ok {
        return protocol_violation(stream, "SCRAM channel binding or nonce check failed").await;
    }
    let auth_message = format!("{},{server_first},{without_proof}", client_first.bare);
    let proof = STANDARD.decode(proof).unwrap_or_default();
    let Some(signature) = secret.verify_proof(auth_message.as_bytes(), &proof) else {
        return Ok(Some(false));
    };
    let server_final = format!("v={}", STANDARD.encode(signature));
    send_auth(stream, AUTH_SASL_FINAL, server_final.as_bytes()).await?;
    Ok(Some(real))
}

struct ClientFirst {
    /// `n,,` or `y,,`: what the client-final message's `c=` must repeat.
    gs2_header: String,
    /// client-first-message-bare, part of the AuthMessage.
    bare: String,
    nonce: String,
}

/// SASLInitialResponse: the mechanism, then the client-first-message. `None` when the
/// message is malformed; `Some(Err)` for what the exchange refuses.
fn sasl_initial_response(body: &[u8]) -> Option<Result<ClientFirst, &'static str>> {
    let end = body.iter().position(|&b| b == 0)?;
    let mechanism = std::str::from_utf8(&body[..end]).ok()?;
    if mechanism != SCRAM_MECHANISM {
        return Some(Err(
            "client selected an invalid SASL authentication mechanism",
        ));
    }
    let rest = body.get(end + 1..)?;
    let (length, data) = rest.split_at_checked(4)?;
    let length = i32::from_be_bytes(length.try_into().ok()?);
    if usize::try_from(length).ok()? != data.len() {
        return None;
    }
    let message = std::str::from_utf8(data).ok()?;
    let (flag, rest) = message.split_once(',')?;
    let (authzid, bare) = rest.split_once(',')?;
    match flag {
        "n" | "y" => {}
        _ if flag.starts_with("p=") => {
            return Some(Err("channel binding is not supported without SSL"))
        }
        _ => return None,
    }
    if !authzid.is_empty() {
        return Some(Err(
            "client uses authorization identity, but it is not supported",
        ));
    }
    let mut attributes = bare.split(',');
    attributes.next()?.strip_prefix("n=")?;
    let nonce = attributes.next()?.strip_prefix("r=")?;
    if nonce.is_empty() || !nonce.bytes().all(|b| b.is_ascii_graphic() && b != b',') {
        return None;
    }
    Some(Ok(ClientFirst {
        gs2_header: format!("{flag},,"),
        bare: bare.to_string(),
        nonce: nonce.to_string(),
    }))
}

async fn send_auth(stream: &mut NegotiatedStream, code: i32, data: &[u8]) -> io::Result<()> {
    let mut out = Vec::new();
    let start = begin(&mut out, b'R');
    put_i32(&mut out, code);
    out.extend_from_slice(data);
    finish(&mut out, start);
    stream.write_all(&out).await
}

/// A PasswordMessage ('p': also SASLInitialResponse and SASLResponse); `None` at EOF or
/// after another message (then the connection is over, as in PostgreSQL).
async fn read_password_message(stream: &mut NegotiatedStream) -> io::Result<Option<Vec<u8>>> {
    let mut header = [0u8; 5];
    match stream.read_exact(&mut header).await {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = i32::from_be_bytes([header[1], header[2], header[3], header[4]]);
    let length = match usize::try_from(length) {
        Ok(length) if header[0] == b'p' && (4..=AUTH_MESSAGE_BYTES_MAX).contains(&length) => length,
        _ if header[0] == b'X' => return Ok(None),
        _ => return protocol_violation(stream, "expected password response").await,
    };
    let mut body = vec![0; length - 4];
    stream.read_exact(&mut body).await?;
    Ok(Some(body))
}

fn random_bytes(buf: &mut [u8]) -> io::Result<()> {
    getrandom::getrandom(buf).map_err(|e| io::Error::other(e.to_string()))
}

async fn protocol_violation<T>(
    stream: &mut NegotiatedStream,
    message: &str,
) -> io::Result<Option<T>> {
    send_fatal(stream, Error::new(SqlState::ProtocolViolation, message)).await?;
    Ok(None)
}

/// A failed authentication: answered after the delay.
async fn fail<T>(
    stream: &mut NegotiatedStream,
    state: SqlState,
    message: String,
) -> io::Result<Option<T>> {
    tokio::time::sleep(FAILURE_DELAY).await;
    send_fatal(stream, Error::new(state, message)).await?;
    Ok(None)
}

async fn send_fatal(stream: &mut NegotiatedStream, error: Error) -> io::Result<()> {
    let mut out = Vec::new();
    error_response(&mut out, &error, Severity::Fatal);
    stream.write_all(&out).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn initial(mechanism: &str, message: &str) -> Vec<u8> {
        let mut body = mechanism.as_bytes().to_vec();
        body.push(0);
        body.extend_from_slice(&(message.len() as i32).to_be_bytes());
        body.extend_from_slice(message.as_bytes());
        body
    }

    #[test]
    fn client_first_messages_are_checked() {
        let ok = sasl_initial_response(&initial(SCRAM_MECHANISM, "n,,n=,r=abc"));
        assert!(matches!(ok, Some(Ok(ref f)) if f.nonce == "abc" && f.bare == "n=,r=abc"));
        let refused = [
            initial("SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc"),
            initial(SCRAM_MECHANISM, "p=tls-server-end-point,,n=,r=abc"),
            initial(SCRAM_MECHANISM, "n,a=admin,n=,r=abc"),
        ];
        for body in refused {
            assert!(matches!(sasl_initial_response(&body), Some(Err(_))));
        }
        for malformed in ["n,,n=", "x,,n=,r=abc", "n,,r=abc", "n,,n=,r="] {
            let body = initial(SCRAM_MECHANISM, malformed);
            assert!(sasl_initial_response(&body).is_none(), "{malformed}");
        }
        assert!(sasl_initial_response(b"SCRAM-SHA-256").is_none());
    }
}
