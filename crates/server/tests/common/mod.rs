//! Shared by the wire tests: a fresh in-memory server per test and a connected client (raw
//! sockets are in `raw.rs`).

use kestrel::Database;
use tokio_postgres::{Client, NoTls};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Starts a server on its own database and returns its port.
pub fn start_server() -> Result<u16, std::io::Error> {
    Ok(kestrel_server::spawn_background(Database::new())?.port)
}

/// A tokio-postgres client; its connection task runs on the test's runtime.
pub async fn connect(port: u16) -> Result<Client, tokio_postgres::Error> {
    let config = format!("host=127.0.0.1 port={port} user=kestrel application_name=wire_test");
    let (client, connection) = tokio_postgres::connect(&config, NoTls).await?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            eprintln!("connection ended: {error}");
        }
    });
    Ok(client)
}
