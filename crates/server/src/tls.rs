//! TLS for clients that send SSLRequest: the server's certificate chain and private key,
//! read once when the server starts from PostgreSQL's settings `ssl`, `ssl_cert_file` and
//! `ssl_key_file` (PEM files; `kestrel serve --ssl-cert/--ssl-key` set them). With `ssl`
//! off the server declines encryption, as PostgreSQL does.

use std::io;
use std::sync::Arc;

use kestrel::Database;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

/// The acceptor for encrypted connections, or `None` when `ssl` is off. A certificate or
/// key that cannot be used is an error: PostgreSQL refuses to start with `ssl` on and
/// either missing.
pub(crate) fn acceptor(db: &Database) -> io::Result<Option<TlsAcceptor>> {
    if db.setting_default("ssl") != Some("on") {
        return Ok(None);
    }
    let cert_file = db.setting_default("ssl_cert_file").unwrap_or_default();
    let key_file = db.setting_default("ssl_key_file").unwrap_or_default();
    let certificates = CertificateDer::pem_file_iter(cert_file)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|error| {
            io::Error::other(format!(
                "could not load server certificate file \"{cert_file}\": {error}"
            ))
        })?;
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|error| {
        io::Error::other(format!(
            "could not load private key file \"{key_file}\": {error}"
        ))
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .map_err(|error| {
            io::Error::other(format!(
                "could not use certificate \"{cert_file}\" with key \"{key_file}\": {error}"
            ))
        })?;
    Ok(Some(TlsAcceptor::from(Arc::new(config))))
}
