//! max_connections: one client past the limit gets PostgreSQL's 53300 at start-up, a
//! CancelRequest still gets through a full server, and a slot comes back when its client
//! leaves.

use std::time::Duration;

use kestrel::Database;
use tokio_postgres::error::SqlState;

mod common;

use common::{connect, start_server, TestResult};

#[tokio::test]
async fn the_client_past_max_connections_gets_53300_until_one_leaves() -> TestResult {
    let mut db = Database::new();
    db.set_setting_default("max_connections", "2")?;
    let port = kestrel_server::spawn_background(db)?.port;
    let first = connect(port).await?;
    let second = connect(port).await?;
    let refused = connect(port).await.err().ok_or("a third client got in")?;
    assert_eq!(refused.code(), Some(&SqlState::TOO_MANY_CONNECTIONS));
    assert_eq!(
        refused.as_db_error().map(|e| e.message()),
        Some("sorry, too many clients already")
    );
    // A cancel needs no slot.
    first
        .cancel_token()
        .cancel_query(tokio_postgres::NoTls)
        .await?;
    let shown = second.query_one("SHOW max_connections", &[]).await?;
    assert_eq!(shown.get::<_, &str>(0), "2");
    drop(first);
    // The slot comes back once the connection's thread has seen the client go.
    for _ in 0..100 {
        if let Ok(third) = connect(port).await {
            third.simple_query("SELECT 1").await?;
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err("the slot never came back".into())
}

#[tokio::test]
async fn max_connections_is_100_by_default_and_not_changed_by_set() -> TestResult {
    let client = connect(start_server()?).await?;
    let shown = client.query_one("SHOW max_connections", &[]).await?;
    assert_eq!(shown.get::<_, &str>(0), "100");
    let refused = client.simple_query("SET max_connections = 5").await.err();
    assert_eq!(
        refused.as_ref().and_then(|e| e.code()),
        Some(&SqlState::CANT_CHANGE_RUNTIME_PARAM)
    );
    Ok(())
}
