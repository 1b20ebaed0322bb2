//! `search_path`: the schemas unqualified names resolve along, and the one new objects go
//! to, with PostgreSQL's rules: `pg_catalog` is searched first unless the path lists it,
//! `"$user"` is the session user's schema, names of schemas that do not exist are skipped,
//! and the session's temporary schema (once it has one) is searched first, or where the
//! path lists its alias `pg_temp`. A schema the user lacks USAGE on is skipped silently, as
//! PostgreSQL's recomputeNamespacePath does: its objects are then not found by bare names.

use super::namespace::{SchemaDef, PG_TEMP};
use super::system::SUPERUSER_OID;
use super::{AclMode, ObjectKind, PG_CATALOG_OID};
use crate::error::{Error, Result, SqlState};
use crate::storage::DbState;

/// A parsed `search_path` setting, `"$user"` replaced by the session's user, with the
/// session's user (the only role there is) and database (the only one a three-part name
/// may name).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SearchPath {
    /// The setting's text, which with the user and database decides everything else.
    setting: String,
    names: Vec<String>,
    user: String,
    database: String,
    /// The name of the session's temporary schema, once the session has created one: only
    /// then does the path search it (and differ from other sessions' in cache keys).
    temp_schema: Option<String>,
}

impl SearchPath {
    /// Parses the setting's text as PostgreSQL's SplitIdentifierString does: a comma-separated
    /// list of identifiers, lower-cased unless double-quoted.
    pub fn parse(setting: &str, user: &str, database: &str) -> Result<SearchPath> {
        let invalid = || {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for parameter \"search_path\": \"{setting}\""),
            )
            .with_detail("List syntax is invalid.")
        };
        let (user, database) = (user.to_string(), database.to_string());
        // PostgreSQL takes `""` (what SET search_path = '' gives): a name no schema has.
        let names = split_identifiers(setting, ',')
            .ok_or_else(invalid)?
            .into_iter()
            .map(|name| if name == "$user" { user.clone() } else { name })
            .collect();
        Ok(SearchPath {
            setting: setting.to_string(),
            names,
            user,
            database,
            temp_schema: None,
        })
    }

    /// The path with the session's temporary schema, searched first unless listed as `pg_temp`.
    pub fn with_temp_schema(mut self, name: Option<String>) -> SearchPath {
        self.temp_schema = name;
        self
    }

    /// Whether this is what `parse(setting, user, database)` with `temp_schema` gives.
    pub fn is_for(
        &self,
        setting: &str,
        user: &str,
        database: &str,
        temp_schema: Option<&str>,
    ) -> bool {
        self.setting == setting
            && self.user == user
            && self.database == database
            && self.temp_schema.as_deref() == temp_schema
    }

    /// What tells two paths apart in a cache key (the database only matters to names that
    /// fail to resolve, which are never cached): the setting, the user and the temporary
    /// schema (empty without one).
    pub fn cache_tag(&self) -> [&str; 3] {
        [
            &self.setting,
            &self.user,
            self.temp_schema.as_deref().unwrap_or_default(),
        ]
    }

    /// The session's temporary schema, if it exists in `state`.
    pub fn temp_schema(&self, state: &DbState) -> Option<u32> {
        let name = self.temp_schema.as_deref()?;
        state.schema_by_name(name).map(|s| s.oid)
    }

    /// The schema a written schema name means: `pg_temp` is the session's temporary schema.
    pub fn schema_alias<'n>(&'n self, name: &'n str) -> &'n str {
        match (name, &self.temp_schema) {
            (PG_TEMP, Some(temp)) => temp,
            _ => name,
        }
    }

    pub fn user(&self) -> &str {
        &self.user
    }

    pub fn database(&self) -> &str {
        &self.database
    }

    /// The listed schemas that exist in `state` and the user may use, in order, each once.
    pub fn listed(&self, state: &DbState) -> Vec<u32> {
        let mut oids: Vec<u32> = Vec::new();
        for name in &self.names {
            if let Some(schema) = state.schema_by_name(self.schema_alias(name)) {
                if !oids.contains(&schema.oid) && self.may_use(state, schema) {
                    oids.push(schema.oid);
                }
            }
        }
        oids
    }

    /// Whether the user holds USAGE on `schema` (its own temporary schema always).
    fn may_use(&self, state: &DbState, schema: &SchemaDef) -> bool {
        let roles = &state.roles;
        let role = roles.by_name(&self.user).map_or(SUPERUSER_OID, |r| r.oid);
        if schema.is_temporary() || roles.is_superuser(role) {
            return true;
        }
        let object = roles.schema_privileges(schema);
        let (held, _) = roles.privileges_of(role, ObjectKind::Schema, &object);
        held.contains(AclMode::USAGE)
    }

    /// Every schema an unqualified name is looked up in, in order: the temporary schema and
    /// then `pg_catalog` first unless listed, then the listed ones.
    pub fn searched(&self, state: &DbState) -> Vec<u32> {
        let mut oids = self.listed(state);
        if !oids.contains(&PG_CATALOG_OID) {
            oids.insert(0, PG_CATALOG_OID);
        }
        if let Some(temp) = self.temp_schema(state).filter(|t| !oids.contains(t)) {
            oids.insert(0, temp);
        }
        oids
    }

    /// The schema objects named without one are created in: the first listed that exists.
    pub fn creation_schema(&self, state: &DbState) -> Result<u32> {
        self.listed(state).first().copied().ok_or_else(|| {
            Error::new(
                SqlState::InvalidSchemaName,
                "no schema has been selected to create in",
            )
        })
    }
}

/// PostgreSQL's SplitIdentifierString: `separator`-separated identifiers, each lower-cased
/// unless double-quoted (`""` inside quotes is one `"`), with whitespace around them; `None`
/// for invalid list syntax. An empty text is an empty list.
pub fn split_identifiers(text: &str, separator: char) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Some(names);
    }
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next()? {
                    (i, '"') if quoted[i + 1..].starts_with('"') => {
                        value.push('"');
                        chars.next();
                    }
                    (i, '"') => break i + 1,
                    (_, c) => value.push(c),
                }
            };
            names.push(value);
            rest = &quoted[end..];
        } else {
            let end = rest
                .find(|c: char| c == separator || c.is_whitespace())
                .unwrap_or(rest.len());
            if end == 0 || rest[..end].contains('"') {
                return None;
            }
            names.push(rest[..end].to_lowercase());
            rest = &rest[end..];
        }
        rest = rest.trim_start();
        match rest.strip_prefix(separator) {
            Some(after) => rest = after.trim_start(),
            None if rest.is_empty() => return Some(names),
            None => return None,
        }
    }
}

/// PostgreSQL's quote_identifier: a name is quoted unless it is a plain lower-case word
/// that no keyword spells, as SHOW search_path prints each entry.
pub fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && crate::keywords::keyword(name).is_none();
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(setting: &str) -> Vec<String> {
        match SearchPath::parse(setting, "alice", "db") {
            Ok(path) => path.names,
            Err(e) => vec![e.to_string()],
        }
    }

    #[test]
    fn parses_postgres_list_syntax() {
        assert_eq!(names("\"$user\", public"), ["alice", "public"]);
        assert_eq!(names(" A ,\"B\"\"c\""), ["a", "B\"c"]);
        assert_eq!(names(""), Vec::<String>::new());
        assert_eq!(names("a b").len(), 1);
        assert!(names("a,,b")[0].contains("invalid value"));
    }

    #[test]
    fn quotes_like_quote_identifier() {
        assert_eq!(quote_identifier("public"), "public");
        assert_eq!(quote_identifier("$user"), "\"$user\"");
        assert_eq!(quote_identifier("Mixed"), "\"Mixed\"");
        assert_eq!(quote_identifier("select"), "\"select\"");
    }
}
