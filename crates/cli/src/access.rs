//! Who may connect to `kestrel serve`: `--auth METHOD` (one rule for every client),
//! `--hba FILE` (rules in pg_hba.conf's format) or, by default, trust on the loopback
//! addresses (any user name, as a superuser) and SCRAM-SHA-256 from elsewhere; and
//! `--password-file`, which sets the bootstrap superuser's password at start-up.

use std::path::Path;

use kestrel::catalog::BOOTSTRAP_SUPERUSER;
use kestrel::Database;
use kestrel_server::auth::AuthConfig;
use kestrel_server::hba::{AuthMethod, HbaRules};

/// The authentication rules the options ask for.
pub(crate) fn auth_config(
    method: Option<&str>,
    hba_file: Option<&Path>,
) -> Result<AuthConfig, String> {
    let rules = match (method, hba_file) {
        (None, None) => return Ok(AuthConfig::default()),
        (Some(method), _) => HbaRules::everyone(AuthMethod::parse(method).ok_or_else(|| {
            format!(
                "invalid authentication method \"{method}\": use trust, reject, password, md5 or scram-sha-256"
            )
        })?),
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            HbaRules::parse(&text).map_err(|e| format!("{}: {e}", file.display()))?
        }
    };
    Ok(AuthConfig {
        rules,
        trust_unknown_roles: false,
    })
}

/// Sets the bootstrap superuser's password to the first line of `file` (stored as a
/// verifier, as ALTER ROLE stores it).
pub(crate) fn set_superuser_password(database: &Database, file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let password = text.lines().next().unwrap_or_default();
    if password.is_empty() {
        return Err(format!("{}: the password is empty", file.display()));
    }
    let sql = format!(
        "ALTER ROLE {BOOTSTRAP_SUPERUSER} PASSWORD '{}'",
        password.replace('\'', "''")
    );
    let mut session = database.connect();
    session
        .execute(&sql)
        .map(drop)
        .map_err(|e| format!("cannot set the password: {}", e.message))
}
