//! TLS on the wire: a CA and a server certificate made for each test, a server with `ssl`
//! on, and tokio-postgres over rustls verifying the chain and the host name (libpq's
//! `sslmode=verify-full`), through a simple query, a result of several TLS records, the
//! extended protocol and COPY FROM STDIN; clients that do not ask for TLS still get in.

mod common;

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use common::TestResult;
use futures_util::SinkExt;
use kestrel::Database;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use tokio_postgres::Client;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The CA's certificate, to trust on the client.
struct Certificates {
    ca: CertificateDer<'static>,
}

/// Writes `server.crt` (for `localhost`) and `server.key` into `dir`, signed by a new CA.
fn make_certificates(dir: &Path) -> Result<Certificates, Box<dyn std::error::Error>> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;
    let server_key = KeyPair::generate()?;
    let server =
        CertificateParams::new(vec!["localhost".to_string()])?.signed_by(&server_key, &*ca)?;
    std::fs::write(dir.join("server.crt"), server.pem())?;
    std::fs::write(dir.join("server.key"), server_key.serialize_pem())?;
    Ok(Certificates {
        ca: ca.der().clone(),
    })
}

/// A server with `ssl` on and the certificate in `dir`; returns its port.
fn start_tls_server(dir: &Path) -> Result<u16, Box<dyn std::error::Error>> {
    let mut db = Database::new();
    db.set_setting_default("ssl", "on")?;
    let file = |name: &str| dir.join(name).display().to_string();
    db.set_setting_default("ssl_cert_file", &file("server.crt"))?;
    db.set_setting_default("ssl_key_file", &file("server.key"))?;
    Ok(kestrel_server::spawn_background(db)?.port)
}

fn scratch_dir(test: &str) -> Result<std::path::PathBuf, std::io::Error> {
    let dir = std::env::temp_dir().join(format!("kestrel-tls-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn verifying_tls(ca: &CertificateDer<'static>) -> Result<MakeRustlsConnect, rustls::Error> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

fn spawn_connection(
    connection: impl std::future::Future<Output = Result<(), tokio_postgres::Error>> + Send + 'static,
) {
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            eprintln!("connection ended: {error}");
        }
    });
}

async fn show_ssl(client: &Client) -> Result<String, tokio_postgres::Error> {
    client.query_one("SHOW ssl", &[]).await?.try_get(0)
}

#[tokio::test]
async fn verify_full_client_runs_queries_and_copy_over_tls() -> TestResult {
    let dir = scratch_dir("verify")?;
    let certificates = make_certificates(&dir)?;
    let port = start_tls_server(&dir)?;
    let config = format!("host=localhost port={port} user=kestrel sslmode=require");
    let (client, connection) =
        tokio_postgres::connect(&config, verifying_tls(&certificates.ca)?).await?;
    spawn_connection(connection);
    assert_eq!(show_ssl(&client).await?, "on");

    // A result of many TLS records (each holds at most 16 KiB).
    let rows = client
        .query(
            "SELECT i, repeat('x', 100) FROM generate_series(1, 5000) AS i",
            &[],
        )
        .await?;
    assert_eq!(rows.len(), 5000);
    let last: i32 = rows[4999].try_get(0)?;
    assert_eq!(last, 5000);

    client
        .batch_execute("CREATE TABLE t (id int, name text)")
        .await?;
    let sink = client.copy_in::<_, Bytes>("COPY t FROM STDIN").await?;
    let mut sink = std::pin::pin!(sink);
    for chunk in 0..20 {
        let lines: String = (0..500)
            .map(|i| format!("{}\tname\n", chunk * 500 + i))
            .collect();
        sink.send(Bytes::from(lines)).await?;
    }
    assert_eq!(sink.as_mut().finish().await?, 10_000);
    let total: i64 = client
        .query_one("SELECT sum(id) FROM t WHERE id > $1", &[&-1i32])
        .await?
        .try_get(0)?;
    assert_eq!(total, 49_995_000);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[tokio::test]
async fn a_certificate_for_another_host_is_refused_and_plain_clients_still_connect() -> TestResult {
    let dir = scratch_dir("hosts")?;
    let certificates = make_certificates(&dir)?;
    let port = start_tls_server(&dir)?;
    // verify-full: the certificate names localhost, not 127.0.0.1.
    let config = format!("host=127.0.0.1 port={port} user=kestrel sslmode=require");
    let refused = tokio_postgres::connect(&config, verifying_tls(&certificates.ca)?).await;
    assert!(refused.is_err());

    // A client without TLS (sslmode=disable) still gets in.
    let client = common::connect(port).await?;
    assert_eq!(show_ssl(&client).await?, "on");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[tokio::test]
async fn a_server_without_ssl_declines_and_require_fails() -> TestResult {
    let dir = scratch_dir("off")?;
    let certificates = make_certificates(&dir)?;
    let port = common::start_server()?;
    let config = format!("host=localhost port={port} user=kestrel sslmode=require");
    let declined = tokio_postgres::connect(&config, verifying_tls(&certificates.ca)?).await;
    assert!(declined.is_err());
    let config = format!("host=localhost port={port} user=kestrel sslmode=prefer");
    let (client, connection) =
        tokio_postgres::connect(&config, verifying_tls(&certificates.ca)?).await?;
    spawn_connection(connection);
    assert_eq!(show_ssl(&client).await?, "off");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_missing_certificate_stops_the_server_from_starting() -> TestResult {
    let mut db = Database::new();
    db.set_setting_default("ssl", "on")?;
    db.set_setting_default("ssl_cert_file", "/nonexistent/server.crt")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        kestrel_server::serve(listener, db).await
    });
    let message = served.err().map(|error| error.to_string());
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.contains("could not load server certificate file")),
        "{message:?}"
    );
    Ok(())
}
