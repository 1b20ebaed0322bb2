//! CancelRequest, statement_timeout, lock waits and the idle timeouts, as PostgreSQL 15
//! reports them: each test asserts the SQLSTATE and message, not the timing, and that the
//! session (or the server) goes on afterwards.

use std::io::Write;
use std::time::Duration;

use raw::{connected, read_until};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

mod common;
#[path = "common/raw.rs"]
mod raw;

use common::{connect, start_server, TestResult};

/// Long enough that no run finishes it before the cancel or timeout.
const LONG_COUNT: &str = "SELECT count(*) FROM generate_series(1, 200000000)";

/// The SQLSTATE and message of `sql`'s error (a test failure if it succeeded).
async fn error_of(client: &Client, sql: &str) -> Result<(SqlState, String), String> {
    match client.simple_query(sql).await {
        Ok(_) => Err(format!("{sql} succeeded")),
        Err(error) => error
            .as_db_error()
            .map(|e| (e.code().clone(), e.message().to_string()))
            .ok_or_else(|| format!("{sql}: {error}")),
    }
}

#[tokio::test]
async fn a_cancel_request_stops_a_long_count() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    let token = client.cancel_token();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel_query(NoTls).await
    });
    let error = error_of(&client, LONG_COUNT).await?;
    canceller.await??;
    assert_eq!(
        error,
        (
            SqlState::QUERY_CANCELED,
            "canceling statement due to user request".to_string()
        )
    );
    // The next statement is not cancelled.
    let rows = client.query_one("SELECT 1::int4", &[]).await?;
    assert_eq!(rows.get::<_, i32>(0), 1);
    Ok(())
}

#[tokio::test]
async fn statement_timeout_stops_a_long_count_and_each_statement_gets_its_own() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client
        .simple_query("SET statement_timeout = '100ms'")
        .await?;
    let error = error_of(&client, LONG_COUNT).await?;
    assert_eq!(
        error,
        (
            SqlState::QUERY_CANCELED,
            "canceling statement due to statement timeout".to_string()
        )
    );
    // A quick statement fits its own timeout; RESET lifts it.
    client
        .simple_query("SELECT count(*) FROM generate_series(1, 1000)")
        .await?;
    client.simple_query("RESET statement_timeout").await?;
    let row = client
        .query_one("SELECT count(*) FROM generate_series(1, 100000)", &[])
        .await?;
    assert_eq!(row.get::<_, i64>(0), 100_000);
    Ok(())
}

#[tokio::test]
async fn a_lock_wait_ends_on_cancel_statement_timeout_and_lock_timeout() -> TestResult {
    let port = start_server()?;
    let holder = connect(port).await?;
    let waiter = connect(port).await?;
    holder.simple_query("SELECT pg_advisory_lock(7)").await?;

    let token = waiter.cancel_token();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel_query(NoTls).await
    });
    let cancelled = error_of(&waiter, "SELECT pg_advisory_lock(7)").await?;
    canceller.await??;
    assert_eq!(
        cancelled,
        (
            SqlState::QUERY_CANCELED,
            "canceling statement due to user request".to_string()
        )
    );

    waiter
        .simple_query("SET statement_timeout = '100ms'")
        .await?;
    let timed_out = error_of(&waiter, "SELECT pg_advisory_lock(7)").await?;
    assert_eq!(
        timed_out,
        (
            SqlState::QUERY_CANCELED,
            "canceling statement due to statement timeout".to_string()
        )
    );

    waiter
        .simple_query("SET statement_timeout = 0; SET lock_timeout = '50ms'")
        .await?;
    let lock_timed_out = error_of(&waiter, "SELECT pg_advisory_lock(7)").await?;
    assert_eq!(
        lock_timed_out,
        (
            SqlState::LOCK_NOT_AVAILABLE,
            "canceling statement due to lock timeout".to_string()
        )
    );

    // Once the holder lets go, the waiter takes the lock.
    holder.simple_query("SELECT pg_advisory_unlock(7)").await?;
    waiter.simple_query("SELECT pg_advisory_lock(7)").await?;
    Ok(())
}

/// The SQLSTATE field of an ErrorResponse body.
fn sqlstate(body: &[u8]) -> Option<String> {
    body.split(|&b| b == 0)
        .find_map(|field| field.strip_prefix(b"C"))
        .map(|code| String::from_utf8_lossy(code).into_owned())
}

/// Sends `sql` as a simple query and reads up to its ReadyForQuery.
fn simple_query(stream: &mut std::net::TcpStream, sql: &str) -> std::io::Result<()> {
    let mut message = vec![b'Q'];
    message.extend_from_slice(&((sql.len() + 5) as i32).to_be_bytes());
    message.extend_from_slice(sql.as_bytes());
    message.push(0);
    stream.write_all(&message)?;
    read_until(stream, b'Z').map(|_| ())
}

/// Waits, idle, for the FATAL error that closes the connection; its SQLSTATE.
fn fatal_while_idle(stream: &mut std::net::TcpStream) -> std::io::Result<Option<String>> {
    let messages = read_until(stream, b'E')?;
    Ok(messages.last().and_then(|(_, body)| sqlstate(body)))
}

#[test]
fn idle_in_transaction_session_timeout_closes_the_connection() -> TestResult {
    let port = start_server()?;
    let mut stream = connected(port)?;
    // Idle outside a transaction: this timeout does not apply.
    simple_query(
        &mut stream,
        "SET idle_in_transaction_session_timeout = '100ms'",
    )?;
    std::thread::sleep(Duration::from_millis(300));
    simple_query(&mut stream, "BEGIN")?;
    assert_eq!(fatal_while_idle(&mut stream)?.as_deref(), Some("25P03"));
    Ok(())
}

#[test]
fn idle_session_timeout_closes_the_connection() -> TestResult {
    let port = start_server()?;
    let mut stream = connected(port)?;
    simple_query(&mut stream, "SET idle_session_timeout = '100ms'")?;
    assert_eq!(fatal_while_idle(&mut stream)?.as_deref(), Some("57P05"));
    Ok(())
}
