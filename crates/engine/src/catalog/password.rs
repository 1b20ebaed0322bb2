//! Password verifiers as PostgreSQL 15 stores them in pg_authid.rolpassword, and the checks
//! the wire server's authentication makes against them:
//!
//! - SCRAM-SHA-256 (RFC 5802 / 7677): `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`,
//!   base64, 4096 iterations and a 16-byte salt as PostgreSQL's default;
//! - md5: `md5` + hex(md5(password || user name)).
//!
//! A password given already in one of these forms is stored as it is, as PostgreSQL does
//! (clients such as psql's `\password` send verifiers, never the password). Passwords are
//! not SASLprep-normalised: an ASCII password is its own SASLprep form.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use md5::{Digest as _, Md5};
use sha2::Sha256;

use crate::error::{Error, Result, SqlState};

const SCRAM_PREFIX: &str = "SCRAM-SHA-256$";
const SCRAM_ITERATIONS: u32 = 4096;
const SCRAM_SALT_BYTES: usize = 16;
const SCRAM_KEY_BYTES: usize = 32;
const MD5_PREFIX: &str = "md5";
const MD5_HEX_LEN: usize = 32;

/// How a new password is stored: the `password_encryption` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordEncryption {
    ScramSha256,
    Md5,
}

impl PasswordEncryption {
    pub fn from_setting(value: &str) -> PasswordEncryption {
        match value {
            "md5" => PasswordEncryption::Md5,
            _ => PasswordEncryption::ScramSha256,
        }
    }
}

/// The verifier to store for `password` of role `user`.
pub fn encrypt(password: &str, user: &str, method: PasswordEncryption) -> Result<String> {
    if is_md5_verifier(password) || ScramSecret::parse(password).is_some() {
        return Ok(password.to_string());
    }
    match method {
        PasswordEncryption::Md5 => Ok(md5_verifier(password, user)),
        PasswordEncryption::ScramSha256 => {
            let mut salt = [0u8; SCRAM_SALT_BYTES];
            getrandom::getrandom(&mut salt).map_err(|e| {
                Error::new(
                    SqlState::InternalError,
                    format!("could not generate random salt: {e}"),
                )
            })?;
            Ok(scram_verifier(password, &salt, SCRAM_ITERATIONS))
        }
    }
}

fn is_md5_verifier(text: &str) -> bool {
    text.strip_prefix(MD5_PREFIX)
        .is_some_and(|hex| hex.len() == MD5_HEX_LEN && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn md5_hex(parts: &[&[u8]]) -> String {
    let mut hash = Md5::new();
    for part in parts {
        hash.update(part);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn md5_verifier(password: &str, user: &str) -> String {
    format!(
        "{MD5_PREFIX}{}",
        md5_hex(&[password.as_bytes(), user.as_bytes()])
    )
}

fn hmac(key: &[u8], data: &[u8]) -> [u8; SCRAM_KEY_BYTES] {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key).expect("invariant: HMAC accepts keys of any length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

fn sha256(data: &[u8]) -> [u8; SCRAM_KEY_BYTES] {
    use sha2::Digest as _;
    Sha256::digest(data).into()
}

/// RFC 5802's Hi(): PBKDF2 with HMAC-SHA-256 and one output block.
fn salted_password(password: &[u8], salt: &[u8], iterations: u32) -> [u8; SCRAM_KEY_BYTES] {
    let mut block = hmac(password, &[salt, &[0, 0, 0, 1]].concat());
    let mut result = block;
    for _ in 1..iterations {
        block = hmac(password, &block);
        for (r, b) in result.iter_mut().zip(block) {
            *r ^= b;
        }
    }
    result
}

fn scram_verifier(password: &str, salt: &[u8], iterations: u32) -> String {
    let salted = salted_password(password.as_bytes(), salt, iterations);
    let stored_key = sha256(&hmac(&salted, b"Client Key"));
    let server_key = hmac(&salted, b"Server Key");
    format!(
        "{SCRAM_PREFIX}{iterations}:{}${}:{}",
        STANDARD.encode(salt),
        STANDARD.encode(stored_key),
        STANDARD.encode(server_key)
    )
}

/// A SCRAM-SHA-256 verifier taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScramSecret {
    pub iterations: u32,
    pub salt: Vec<u8>,
    stored_key: [u8; SCRAM_KEY_BYTES],
    server_key: [u8; SCRAM_KEY_BYTES],
}

impl ScramSecret {
    pub fn parse(verifier: &str) -> Option<ScramSecret> {
        let rest = verifier.strip_prefix(SCRAM_PREFIX)?;
        let (iterations_salt, keys) = rest.split_once('$')?;
        let (iterations, salt) = iterations_salt.split_once(':')?;
        let (stored_key, server_key) = keys.split_once(':')?;
        let key = |text: &str| -> Option<[u8; SCRAM_KEY_BYTES]> {
            STANDARD.decode(text).ok()?.try_into().ok()
        };
        Some(ScramSecret {
            iterations: iterations.parse().ok().filter(|&i| i > 0)?,
            salt: STANDARD.decode(salt).ok()?,
            stored_key: key(stored_key)?,
            server_key: key(server_key)?,
        })
    }

    /// A secret no password matches, for a role that has none or does not exist: the
    /// exchange then runs to its end and fails like a wrong password, so a client cannot
    /// tell which roles exist (PostgreSQL's mock authentication).
    pub fn mock(seed: &str) -> ScramSecret {
        let salt = sha256(seed.as_bytes())[..SCRAM_SALT_BYTES].to_vec();
        ScramSecret {
            iterations: SCRAM_ITERATIONS,
            salt,
            stored_key: [0; SCRAM_KEY_BYTES],
            server_key: [0; SCRAM_KEY_BYTES],
        }
    }

    /// Checks a client's proof over `auth_message`; returns the ServerSignature the client
    /// checks in turn, or `None` when the proof is wrong.
    pub fn verify_proof(&self, auth_message: &[u8], proof: &[u8]) -> Option<[u8; 32]> {
        let signature = hmac(&self.stored_key, auth_message);
        if proof.len() != SCRAM_KEY_BYTES {
            return None;
        }
        let client_key: Vec<u8> = proof.iter().zip(signature).map(|(p, s)| p ^ s).collect();
        // Constant-time comparison: timing must not reveal how much of the proof matched.
        let difference = sha256(&client_key)
            .iter()
            .zip(self.stored_key)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        (difference == 0 && self.stored_key != [0; SCRAM_KEY_BYTES])
            .then(|| hmac(&self.server_key, auth_message))
    }
}

/// Whether `password`, sent in clear, matches the stored `verifier` of role `user`.
pub fn cleartext_matches(verifier: &str, user: &str, password: &str) -> bool {
    if let Some(secret) = ScramSecret::parse(verifier) {
        return scram_verifier(password, &secret.salt, secret.iterations) == verifier;
    }
    is_md5_verifier(verifier) && md5_verifier(password, user) == verifier
}

/// Whether an md5 authentication `response` (`md5` + hex(md5(hex part of the verifier ||
/// salt))) matches `verifier`; a SCRAM verifier cannot answer md5 authentication.
pub fn md5_response_matches(verifier: &str, salt: [u8; 4], response: &str) -> bool {
    let Some(hex) = verifier
        .strip_prefix(MD5_PREFIX)
        .filter(|_| is_md5_verifier(verifier))
    else {
        return false;
    };
    format!("{MD5_PREFIX}{}", md5_hex(&[hex.as_bytes(), &salt])) == response
}

/// Whether `verifier` is a SCRAM one (md5 authentication then switches to SCRAM, as
/// PostgreSQL does).
pub fn is_scram(verifier: &str) -> bool {
    ScramSecret::parse(verifier).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifiers_match_postgresql() {
        // md5('secret' || 'u'), as PostgreSQL 15 stores it with password_encryption = md5.
        assert_eq!(
            md5_verifier("secret", "u"),
            "md514ac701963725e89bfe34a2219d114a2"
        );
        let verifier = scram_verifier("pencil", b"0123456789abcdef", 4096);
        let secret = ScramSecret::parse(&verifier);
        assert!(secret.is_some());
        assert!(cleartext_matches(&verifier, "u", "pencil"));
        assert!(!cleartext_matches(&verifier, "u", "pencil2"));
        let md5 = md5_verifier("pencil", "u");
        assert!(cleartext_matches(&md5, "u", "pencil"));
        let salt = [1, 2, 3, 4];
        let response = format!("md5{}", md5_hex(&[&md5.as_bytes()[3..], &salt]));
        assert!(md5_response_matches(&md5, salt, &response));
        assert!(!md5_response_matches(&verifier, salt, &response));
        assert_eq!(
            encrypt(&md5, "other", PasswordEncryption::ScramSha256).ok(),
            Some(md5)
        );
    }

    #[test]
    fn scram_proof_round_trip() {
        // RFC 7677's example exchange.
        let salt = STANDARD
            .decode("W22ZaJ0SNY7soEsUEjb6gQ==")
            .unwrap_or_default();
        let verifier = scram_verifier("pencil", &salt, 4096);
        let Some(secret) = ScramSecret::parse(&verifier) else {
            panic!("verifier must parse");
        };
        let auth_message = "n=user,r=rOprNGfwEbeRWgbNEkqO,\
r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,\
c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        let proof = STANDARD
            .decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .unwrap_or_default();
        let signature = secret.verify_proof(auth_message.as_bytes(), &proof);
        assert_eq!(
            signature.map(|s| STANDARD.encode(s)).as_deref(),
            Some("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
        );
        assert!(secret
            .verify_proof(auth_message.as_bytes(), &[0; 32])
            .is_none());
        assert!(ScramSecret::mock("x")
            .verify_proof(b"m", &[0; 32])
            .is_none());
    }
}
