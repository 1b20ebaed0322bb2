//! Relation names to schemas: a qualified name (`s.t`, `db.s.t`) names its schema, an
//! unqualified one is looked up along the session's `search_path`, and a new object named
//! without a schema goes to the path's first existing schema, as in PostgreSQL.

use sqlparser::ast::{Expr, Ident, ObjectName, ObjectNamePart};

use super::scope::{Scope, ScopeColumn};
use super::{ident_name, Binder};
use crate::catalog::{QualifiedName, SchemaDef, PG_CATALOG_OID};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::ScalarExpr;
use crate::storage::DbState;
use crate::types::{DataType, ScalarValue};

/// `text[]`, what current_schemas returns (`name[]` in PostgreSQL, the same text form).
const TEXT_ARRAY: DataType = DataType::Array(&DataType::Text);

/// The schema (if written) and the relation name of an object name.
pub(super) struct WrittenName {
    pub schema: Option<String>,
    pub name: String,
}

impl<'a> Binder<'a> {
    /// The relation `name` refers to: the one found along the search path for an
    /// unqualified name, else a name in no schema, which no relation has (so the caller
    /// reports it missing).
    pub(super) fn relation_name(&self, name: &ObjectName) -> Result<QualifiedName> {
        let written = self.written_name(name)?;
        match written.schema {
            Some(schema) => Ok(QualifiedName::new(self.schema(&schema)?.oid, written.name)),
            None => Ok(self.search(&written.name)),
        }
    }

    /// The relation a query or a DML statement reads or writes: PostgreSQL's parserOpenTable
    /// reports one that is missing (its schema included) as 42P01, named as written.
    pub(super) fn open_relation(&self, name: &ObjectName) -> Result<QualifiedName> {
        let written = self.written_name(name)?;
        let found = match &written.schema {
            Some(schema) => self
                .schema_if_exists(schema)?
                .map(|s| QualifiedName::new(s.oid, written.name.as_str())),
            None => Some(self.search(&written.name)),
        };
        match found {
            Some(name) if self.state.relation_kind(&name).is_some() => Ok(name),
            _ => {
                let shown = match &written.schema {
                    Some(schema) => format!("{schema}.{}", written.name),
                    None => written.name,
                };
                Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{shown}\" does not exist"),
                ))
            }
        }
    }

    /// The relations a DROP names, each resolved as [`Binder::relation_name`] does, or
    /// with IF EXISTS as [`Binder::relation_name_if_exists`] does.
    pub(super) fn relation_names_to_drop(
        &self,
        names: &[ObjectName],
        if_exists: bool,
    ) -> Result<Vec<QualifiedName>> {
        names
            .iter()
            .map(|name| match if_exists {
                true => self.relation_name_if_exists(name),
                false => self.relation_name(name),
            })
            .collect()
    }

    /// [`Binder::relation_name`] for IF EXISTS: a missing schema is a missing relation.
    pub(super) fn relation_name_if_exists(&self, name: &ObjectName) -> Result<QualifiedName> {
        match self.relation_name(name) {
            Err(e) if e.state == SqlState::InvalidSchemaName => {
                Ok(QualifiedName::nowhere(self.written_name(name)?.name))
            }
            other => other,
        }
    }

    /// The unqualified `name` looked up along the search path.
    pub(super) fn search(&self, name: &str) -> QualifiedName {
        self.searched
            .iter()
            .map(|&oid| QualifiedName::new(oid, name))
            .find(|q| self.state.relation_kind(q).is_some())
            .unwrap_or_else(|| QualifiedName::nowhere(name))
    }

    /// The name a new relation called `name` gets: in its written schema, else in the
    /// search path's creation schema.
    pub(super) fn creation_name(&self, name: &ObjectName) -> Result<QualifiedName> {
        let written = self.written_name(name)?;
        let schema = match &written.schema {
            Some(schema) => self.schema(schema)?.oid,
            None => self.search_path.creation_schema(self.state)?,
        };
        if schema == PG_CATALOG_OID {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "permission denied to create \"pg_catalog.{}\"",
                    written.name
                ),
            )
            .with_detail("System catalog modifications are currently disallowed."));
        }
        self.require_schema(schema, crate::catalog::AclMode::CREATE)?;
        Ok(QualifiedName::new(schema, written.name))
    }

    /// The type `name` refers to: in its written schema, else the first schema along the
    /// search path where `exists` finds it; a name in no schema when there is none (the
    /// caller reports it missing).
    pub(super) fn type_named(
        &self,
        name: &ObjectName,
        exists: impl Fn(&DbState, &QualifiedName) -> bool,
    ) -> Result<QualifiedName> {
        let written = self.written_name(name)?;
        if let Some(schema) = written.schema {
            return Ok(QualifiedName::new(self.schema(&schema)?.oid, written.name));
        }
        Ok(self
            .searched
            .iter()
            .map(|&schema| QualifiedName::new(schema, written.name.as_str()))
            .find(|q| exists(self.state, q))
            .unwrap_or_else(|| QualifiedName::nowhere(written.name)))
    }

    /// The schema called `name`, or PostgreSQL's 3F000.
    pub(super) fn schema(&self, name: &str) -> Result<&'a SchemaDef> {
        self.schema_if_exists(name)?.ok_or_else(|| {
            Error::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{name}\" does not exist"),
            )
        })
    }

    /// The schema called `name` (`pg_temp`: the session's temporary one), if any; another
    /// session's temporary schema is 0A000, as PostgreSQL cannot read its rows either.
    fn schema_if_exists(&self, name: &str) -> Result<Option<&'a SchemaDef>> {
        let alias = self.search_path.schema_alias(name);
        let Some(schema) = self.state.schema_by_name(alias) else {
            return Ok(None);
        };
        if schema.is_temporary() && self.search_path.temp_schema(self.state) != Some(schema.oid) {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "cannot access temporary tables of other sessions",
            ));
        }
        Ok(Some(schema))
    }

    /// The parts of `name`: `[db.]schema.relation` or `relation`; a database other than the
    /// current one is PostgreSQL's 0A000.
    pub(super) fn written_name(&self, name: &ObjectName) -> Result<WrittenName> {
        let parts = name_parts(name)?;
        match parts.as_slice() {
            [table] => Ok(WrittenName {
                schema: None,
                name: ident_name(table),
            }),
            [schema, table] => Ok(WrittenName {
                schema: Some(ident_name(schema)),
                name: ident_name(table),
            }),
            [database, schema, table] => {
                if ident_name(database) != self.search_path.database() {
                    return Err(Error::unsupported(format!(
                        "cross-database references are not implemented: {name}"
                    )));
                }
                Ok(WrittenName {
                    schema: Some(ident_name(schema)),
                    name: ident_name(table),
                })
            }
            _ => Err(Error::syntax(format!(
                "improper qualified name (too many dotted names): {name}"
            ))),
        }
    }

    /// The name of an object that takes no schema (an index, a constraint): PostgreSQL's
    /// grammar has no qualified form there.
    pub(super) fn unqualified_name(&self, name: &ObjectName) -> Result<String> {
        match self.written_name(name)? {
            WrittenName { schema: None, name } => Ok(name),
            WrittenName {
                schema: Some(_), ..
            } => Err(Error::syntax(format!("syntax error at or near \"{name}\""))),
        }
    }

    /// A function's name in FROM: functions live in `pg_catalog`, so a name qualified by
    /// another schema names no function.
    pub(super) fn function_name(&self, name: &ObjectName) -> Result<String> {
        match self.written_name(name)? {
            WrittenName { schema: None, name } => Ok(name),
            WrittenName {
                schema: Some(schema),
                name,
            } if schema == "pg_catalog" => Ok(name),
            WrittenName {
                schema: Some(schema),
                name,
            } if super::expand_array::is_expand_array(&schema, &name) => {
                Ok(super::expand_array::EXPAND_ARRAY.to_string())
            }
            WrittenName {
                schema: Some(schema),
                name,
            } => Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {schema}.{name} does not exist"),
            )),
        }
    }

    /// `schema.table.column` and `schema.table.*`: `table` must be a table of `schema`
    /// read by this query or an enclosing one.
    pub(super) fn check_schema_qualifier(
        &self,
        scope: &Scope,
        schema: &str,
        table: &str,
    ) -> Result<()> {
        let oid = self.state.schema_by_name(schema).map(|s| s.oid);
        let found = std::iter::once(scope)
            .chain(self.outer_scopes.iter().map(|(outer, _)| outer))
            .flat_map(|s| s.columns.iter())
            .any(|c| {
                c.table.as_deref() == Some(table)
                    && oid.is_some()
                    && self.namespace_of(c.table_oid) == oid
            });
        if found {
            return Ok(());
        }
        Err(Error::new(
            SqlState::UndefinedTable,
            format!("missing FROM-clause entry for table \"{table}\""),
        ))
    }

    /// current_schema: the first schema of the search path that exists (NULL if none),
    /// fixed at binding as the plan caches key on the path.
    pub(super) fn current_schema(&self) -> ScalarExpr {
        let first = self.search_path.listed(self.state).first().copied();
        match first.and_then(|oid| self.state.schemas.get(&oid)) {
            Some(schema) => {
                ScalarExpr::literal(ScalarValue::Text(schema.name.clone()), DataType::Text)
            }
            None => ScalarExpr::null(DataType::Text),
        }
    }

    /// current_schemas(include_implicit): the existing schemas of the search path, with
    /// `pg_catalog` first when implicit ones are asked for and it is not listed.
    pub(super) fn current_schemas(&mut self, implicit: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        let bound = self.bind_expr(implicit, scope)?;
        let bound = self.coerce(bound, DataType::Bool, CastContext::Implicit)?;
        let implicit = match bound {
            ScalarExpr::Literal {
                value: ScalarValue::Bool(implicit),
                ..
            } => implicit,
            ScalarExpr::Literal {
                value: ScalarValue::Null,
                ..
            } => return Ok(ScalarExpr::null(TEXT_ARRAY)),
            _ => return Err(Error::unsupported("current_schemas of a computed argument")),
        };
        let oids = if implicit {
            self.search_path.searched(self.state)
        } else {
            self.search_path.listed(self.state)
        };
        let names = oids
            .iter()
            .filter_map(|oid| self.state.schemas.get(oid))
            .map(|s| ScalarValue::Text(s.name.clone()))
            .collect();
        Ok(ScalarExpr::literal(ScalarValue::Array(names), TEXT_ARRAY))
    }

    /// PostgreSQL's error for `table.` naming no FROM-clause entry: when a table or view of
    /// this or an enclosing query is named `table` but aliased, the hint names its alias;
    /// when a join alias hides the item `table` names, the hint says it is out of reach.
    pub(super) fn missing_from_entry(&self, scope: &Scope, table: &str) -> Error {
        let scopes = || std::iter::once(scope).chain(self.outer_scopes.iter().map(|(s, _)| s));
        let aliased = scopes()
            .flat_map(|s| s.columns.iter())
            .filter(|c| c.from_relation && c.table.as_deref() != Some(table))
            .find(|c| self.relation_name_of(c.table_oid) == Some(table));
        let invalid = || {
            Error::new(
                SqlState::UndefinedTable,
                format!("invalid reference to FROM-clause entry for table \"{table}\""),
            )
        };
        if let Some(alias) = aliased.and_then(|c| c.table.as_deref()) {
            return invalid().with_hint(format!(
                "Perhaps you meant to reference the table alias \"{alias}\"."
            ));
        }
        let names = |name: &str, relation_oid: Option<u32>| {
            name == table
                || relation_oid.is_some_and(|oid| self.relation_name_of(oid) == Some(table))
        };
        let hidden = scopes()
            .flat_map(|s| s.hidden.iter())
            .find(|h| names(&h.name, h.relation_oid))
            .map(|h| h.name.as_str());
        let out_of_reach = self
            .out_of_reach_columns()
            .find(|(name, c)| names(name, c.from_relation.then_some(c.table_oid)))
            .map(|(name, _)| name);
        match hidden.or(out_of_reach) {
            Some(name) => invalid().with_hint(format!(
                "There is an entry for table \"{name}\", but it cannot be referenced from this \
                 part of the query."
            )),
            None => Error::new(
                SqlState::UndefinedTable,
                format!("missing FROM-clause entry for table \"{table}\""),
            ),
        }
    }

    /// The columns of the FROM items bound before the one being bound but out of its reach
    /// (unless it is LATERAL), with their item's name.
    fn out_of_reach_columns(&self) -> impl Iterator<Item = (&str, &ScopeColumn)> {
        (self.unreachable_scopes.iter())
            .chain(self.lateral_outer.iter().map(|(s, _)| s))
            .chain(self.lateral_scope.iter())
            .flat_map(|s| s.columns.iter())
            .filter_map(|c| Some((c.table.as_deref()?, c)))
    }

    /// PostgreSQL's hint for a column `name` found nowhere in reach, when a FROM item out
    /// of reach has it.
    pub(super) fn with_out_of_reach_column_hint(&self, error: Error, name: &str) -> Error {
        let found = self.out_of_reach_columns().find(|(_, c)| c.name == name);
        match found {
            Some((table, _)) => error.with_hint(format!(
                "There is a column named \"{name}\" in table \"{table}\", but it cannot be \
                 referenced from this part of the query."
            )),
            None => error,
        }
    }

    /// The name of the table or view `oid`.
    fn relation_name_of(&self, oid: u32) -> Option<&str> {
        if let Some(table) = self.state.tables.get(&oid) {
            return Some(&table.schema.name);
        }
        let view = self.state.views.values().find(|v| v.oid == oid);
        view.map(|v| v.name.as_str())
    }

    /// The OID of the schema the table or view `oid` lives in.
    pub(super) fn namespace_of(&self, oid: u32) -> Option<u32> {
        if let Some(table) = self.state.tables.get(&oid) {
            return Some(table.schema.namespace);
        }
        self.state
            .views
            .values()
            .find(|v| v.oid == oid)
            .map(|v| v.namespace)
            .or_else(|| crate::catalog::system::namespace_of(oid))
    }
}

/// The name a regclass literal spells (`'s.seq'`, `'"Seq"'`): dot-separated identifiers,
/// folded to lower case unless double-quoted, as PostgreSQL's regclass input reads them.
pub(super) fn regclass_name(text: &str) -> Result<ObjectName> {
    match crate::catalog::split_identifiers(text, '.') {
        Some(names) if !names.is_empty() => Ok(ObjectName(
            names
                .into_iter()
                .map(|name| ObjectNamePart::Identifier(Ident::with_quote('"', name)))
                .collect(),
        )),
        _ => Err(Error::new(SqlState::InvalidName, "invalid name syntax")),
    }
}

/// The identifiers of `name`; reserved words unquoted are PostgreSQL's syntax error.
fn name_parts(name: &ObjectName) -> Result<Vec<&Ident>> {
    let parts: Vec<&Ident> = name
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => Ok(ident),
            ObjectNamePart::Function(_) => Err(Error::unsupported(format!("the name {name}"))),
        })
        .collect::<Result<_>>()?;
    if let Some(reserved) = parts.iter().find(|p| {
        p.quote_style.is_none()
            && crate::keywords::keyword(&p.value.to_lowercase())
                == Some(crate::keywords::Keyword::NotAName)
    }) {
        return Err(Error::syntax(format!(
            "syntax error at or near \"{}\"",
            reserved.value
        )));
    }
    Ok(parts)
}

/// A name that must be one identifier (a role, a schema, a server, a USING column), or
/// PostgreSQL's syntax error at it.
pub(super) fn single_identifier(name: &ObjectName) -> Result<String> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => Ok(ident_name(ident)),
        _ => Err(Error::syntax(format!("syntax error at or near \"{name}\""))),
    }
}

#[cfg(test)]
mod tests {
    use crate::api::{Database, Session};

    fn lines(session: &mut Session, sql: &str) -> Vec<String> {
        match session.execute(sql) {
            Ok(results) => results.last().map(|r| r.text_lines()).unwrap_or_default(),
            Err(e) => vec![format!("{} {}", e.sqlstate(), e)],
        }
    }

    /// Needs the session's own user and database, which differ between PostgreSQL runs of
    /// the slt corpus: `"$user"` in the default path and a three-part name.
    #[test]
    fn user_schema_and_current_database_names() {
        let db = Database::new();
        let mut session = db.connect();
        session.set_identity("alice", "shop", 1);
        let setup = "CREATE SCHEMA alice; CREATE TABLE t (a integer); INSERT INTO t VALUES (1)";
        assert!(session.execute(setup).is_ok());
        assert_eq!(lines(&mut session, "SELECT current_schema"), ["alice"]);
        assert_eq!(lines(&mut session, "SELECT a FROM shop.alice.t"), ["1"]);
        assert_eq!(
            lines(&mut session, "SELECT current_schemas(true)"),
            ["{pg_catalog,alice,public}"]
        );
        assert!(lines(&mut session, "SELECT a FROM other.alice.t")[0].starts_with("0A000"));
        assert!(lines(&mut session, "SELECT a FROM public.t")[0].starts_with("42P01"));
    }

    /// The plan and result caches are shared by sessions and keyed by statement text: a
    /// plan or result bound under one search path must never answer under another.
    #[test]
    fn caches_never_cross_search_paths() {
        let db = Database::new();
        let mut first = db.connect();
        let setup = "CREATE SCHEMA a; CREATE SCHEMA b; \
                     CREATE TABLE a.t AS SELECT g AS x FROM generate_series(1, 3000) g; \
                     CREATE TABLE b.t AS SELECT g AS x FROM generate_series(1, 2000) g";
        assert!(first.execute(setup).is_ok());
        let query = "SELECT count(*) FROM t";
        assert!(first.execute("SET search_path = a").is_ok());
        for _ in 0..3 {
            assert_eq!(lines(&mut first, query), ["3000"]);
        }
        let mut second = db.connect();
        assert!(second.execute("SET search_path = b").is_ok());
        for _ in 0..3 {
            assert_eq!(lines(&mut second, query), ["2000"]);
        }
        assert!(first.execute("SET search_path = b, a").is_ok());
        assert_eq!(lines(&mut first, query), ["2000"]);
        assert!(first.execute("SET search_path = public").is_ok());
        assert!(lines(&mut first, query)[0].starts_with("42P01"));
    }
}
