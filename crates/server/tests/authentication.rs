//! Authentication over the wire with a real client (tokio-postgres): SCRAM-SHA-256, md5 and
//! cleartext passwords against verifiers made by CREATE / ALTER ROLE, PostgreSQL's errors
//! for a wrong password, an unknown role, a role without LOGIN, an expired password and hba
//! rules that reject, and the connection slots reserved for superusers.

use kestrel::Database;
use kestrel_server::auth::AuthConfig;
use kestrel_server::hba::{AuthMethod, HbaRules};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A server with `rules` over a database where `setup` ran as the bootstrap superuser.
fn server(rules: HbaRules, setup: &str) -> Result<u16, Box<dyn std::error::Error>> {
    let db = Database::new();
    db.connect().execute(setup)?;
    let auth = AuthConfig {
        rules,
        trust_unknown_roles: false,
    };
    Ok(kestrel_server::spawn_background_with(db, auth)?.port)
}

async fn login(port: u16, user: &str, password: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::Config::new()
        .host("127.0.0.1")
        .port(port)
        .user(user)
        .password(password)
        .dbname("shop")
        .connect(NoTls)
        .await?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            eprintln!("connection ended: {error}");
        }
    });
    Ok(client)
}

/// The SQLSTATE and message a refused login got.
async fn refused(port: u16, user: &str, password: &str) -> Result<(SqlState, String), String> {
    let error = login(port, user, password)
        .await
        .err()
        .ok_or(format!("{user} got in"))?;
    let db_error = error
        .as_db_error()
        .ok_or(format!("not a server error: {error}"))?;
    Ok((db_error.code().clone(), db_error.message().to_string()))
}

async fn current_user(client: &Client) -> Result<String, tokio_postgres::Error> {
    Ok(client.query_one("SELECT current_user", &[]).await?.get(0))
}

fn wrong_password(user: &str) -> (SqlState, String) {
    (
        SqlState::INVALID_PASSWORD,
        format!("password authentication failed for user \"{user}\""),
    )
}

#[tokio::test]
async fn scram_sha_256_checks_the_password_and_hides_which_roles_exist() -> TestResult {
    let port = server(
        HbaRules::everyone(AuthMethod::ScramSha256),
        "CREATE USER alice PASSWORD 'apple pie'; CREATE USER nopass; \
         SET password_encryption = md5; CREATE USER md5user PASSWORD 'm'",
    )?;
    let alice = login(port, "alice", "apple pie").await?;
    assert_eq!(current_user(&alice).await?, "alice");
    assert_eq!(
        refused(port, "alice", "apple").await?,
        wrong_password("alice")
    );
    assert_eq!(
        refused(port, "mallory", "x").await?,
        wrong_password("mallory")
    );
    assert_eq!(refused(port, "nopass", "").await?, wrong_password("nopass"));
    // An md5 verifier cannot answer SCRAM, as in PostgreSQL.
    assert_eq!(
        refused(port, "md5user", "m").await?,
        wrong_password("md5user")
    );
    // A changed password is the one asked next time.
    alice
        .batch_execute("ALTER ROLE alice PASSWORD 'cherry'")
        .await?;
    assert_eq!(
        refused(port, "alice", "apple pie").await?,
        wrong_password("alice")
    );
    login(port, "alice", "cherry").await?;
    Ok(())
}

#[tokio::test]
async fn md5_and_cleartext_passwords() -> TestResult {
    let setup = "SET password_encryption = md5; CREATE USER bob PASSWORD 'builder'; \
                 RESET password_encryption; CREATE USER carol PASSWORD 'singer'";
    let md5 = server(HbaRules::everyone(AuthMethod::Md5), setup)?;
    assert_eq!(
        current_user(&login(md5, "bob", "builder").await?).await?,
        "bob"
    );
    assert_eq!(refused(md5, "bob", "b").await?, wrong_password("bob"));
    // md5 with a SCRAM verifier runs SCRAM.
    assert_eq!(
        current_user(&login(md5, "carol", "singer").await?).await?,
        "carol"
    );
    let cleartext = server(HbaRules::everyone(AuthMethod::Password), setup)?;
    login(cleartext, "bob", "builder").await?;
    login(cleartext, "carol", "singer").await?;
    assert_eq!(
        refused(cleartext, "carol", "x").await?,
        wrong_password("carol")
    );
    Ok(())
}

#[tokio::test]
async fn connect_needs_the_connect_privilege_on_the_database() -> TestResult {
    let setup = "CREATE USER alice; CREATE USER bob; \
                 REVOKE CONNECT ON DATABASE kestrel FROM PUBLIC; \
                 GRANT CONNECT ON DATABASE kestrel TO alice";
    let trust = server(HbaRules::everyone(AuthMethod::Trust), setup)?;
    assert_eq!(
        current_user(&login(trust, "alice", "").await?).await?,
        "alice"
    );
    let denied = (
        SqlState::INSUFFICIENT_PRIVILEGE,
        "permission denied for database \"shop\"".to_string(),
    );
    assert_eq!(refused(trust, "bob", "").await?, denied);
    Ok(())
}

#[tokio::test]
async fn roles_that_may_not_log_in_are_refused() -> TestResult {
    let setup = "CREATE ROLE group_role PASSWORD 'g'; \
                 CREATE USER expired PASSWORD 'e' VALID UNTIL '2001-01-01 00:00:00+00'";
    let scram = server(HbaRules::everyone(AuthMethod::ScramSha256), setup)?;
    let no_login = (
        SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
        "role \"group_role\" is not permitted to log in".to_string(),
    );
    assert_eq!(refused(scram, "group_role", "g").await?, no_login);
    assert_eq!(
        refused(scram, "expired", "e").await?,
        wrong_password("expired")
    );
    let trust = server(HbaRules::everyone(AuthMethod::Trust), setup)?;
    assert_eq!(refused(trust, "group_role", "").await?, no_login);
    let missing = (
        SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
        "role \"ghost\" does not exist".to_string(),
    );
    assert_eq!(refused(trust, "ghost", "").await?, missing);
    login(trust, "expired", "").await?;
    Ok(())
}

#[tokio::test]
async fn hba_rules_reject_and_choose_methods() -> TestResult {
    let rules = HbaRules::parse(
        "host all  dave 127.0.0.1/32 reject\n\
         host shop all  127.0.0.1/32 scram-sha-256\n",
    )?;
    let port = server(
        rules,
        "CREATE USER dave PASSWORD 'd'; CREATE USER erin PASSWORD 'e'",
    )?;
    let rejected = (
        SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
        "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"dave\", database \"shop\", no encryption".to_string(),
    );
    assert_eq!(refused(port, "dave", "d").await?, rejected);
    login(port, "erin", "e").await?;
    let config = format!("host=127.0.0.1 port={port} user=erin password=e dbname=other");
    let error = tokio_postgres::connect(&config, NoTls)
        .await
        .err()
        .ok_or("erin got into another database")?;
    assert_eq!(
        error.as_db_error().map(|e| e.message()),
        Some("no pg_hba.conf entry for host \"127.0.0.1\", user \"erin\", database \"other\", no encryption")
    );
    Ok(())
}

#[tokio::test]
async fn the_last_slots_are_for_superusers() -> TestResult {
    let mut db = Database::new();
    db.set_setting_default("max_connections", "3")?;
    db.set_setting_default("superuser_reserved_connections", "2")?;
    db.connect()
        .execute("CREATE USER frank PASSWORD 'f'; ALTER ROLE kestrel PASSWORD 'k'")?;
    let auth = AuthConfig {
        rules: HbaRules::everyone(AuthMethod::ScramSha256),
        trust_unknown_roles: false,
    };
    let port = kestrel_server::spawn_background_with(db, auth)?.port;
    let _first = login(port, "frank", "f").await?;
    let reserved = (
        SqlState::TOO_MANY_CONNECTIONS,
        "remaining connection slots are reserved for non-replication superuser connections"
            .to_string(),
    );
    assert_eq!(refused(port, "frank", "f").await?, reserved);
    let superuser = login(port, "kestrel", "k").await?;
    assert_eq!(current_user(&superuser).await?, "kestrel");
    Ok(())
}

#[tokio::test]
async fn a_role_connects_at_most_its_connection_limit_times() -> TestResult {
    let port = server(
        HbaRules::everyone(AuthMethod::ScramSha256),
        "CREATE USER grace PASSWORD 'g' CONNECTION LIMIT 1",
    )?;
    let first = login(port, "grace", "g").await?;
    let limited = (
        SqlState::TOO_MANY_CONNECTIONS,
        "too many connections for role \"grace\"".to_string(),
    );
    assert_eq!(refused(port, "grace", "g").await?, limited);
    drop(first);
    // The slot comes back once the connection's thread has seen the client go.
    for _ in 0..100 {
        if login(port, "grace", "g").await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Err("grace's connection never came back".into())
}

#[tokio::test]
async fn a_plan_cached_for_a_superuser_does_not_open_pg_authid_to_others() -> TestResult {
    let port = server(
        HbaRules::everyone(AuthMethod::ScramSha256),
        "ALTER ROLE kestrel PASSWORD 'k'; CREATE USER heidi PASSWORD 'h'",
    )?;
    let query = "SELECT rolname FROM pg_authid WHERE rolname = 'heidi'";
    let superuser = login(port, "kestrel", "k").await?;
    for _ in 0..3 {
        assert_eq!(superuser.query(query, &[]).await?.len(), 1);
    }
    let heidi = login(port, "heidi", "h").await?;
    let error = heidi
        .query(query, &[])
        .await
        .err()
        .ok_or("heidi read pg_authid")?;
    assert_eq!(error.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE));
    let visible = "SELECT rolname FROM pg_roles WHERE rolname = 'heidi'";
    assert_eq!(heidi.query(visible, &[]).await?.len(), 1);
    Ok(())
}
