//! CHECK constraints: binding a constraint's expression over its table's row with
//! PostgreSQL's rules (boolean, no subqueries, aggregates or window functions), naming it as
//! PostgreSQL does, and binding a table's constraints for the writes that must pass them.

use sqlparser::ast::{self, Ident};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::dml::{parse_expr, table_scope};
use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::{
    quote_identifier, CheckConstraint, Constraint, ConstraintKind, IndexDef, StoredExpr,
    TableSchema,
};
use crate::error::{Error, Result, SqlState};
use crate::plan::{deparse_expr, CheckKind, RowCheck, ScalarExpr};

/// A CHECK as written in CREATE TABLE or ALTER TABLE ADD CONSTRAINT.
pub(super) struct WrittenCheck<'a> {
    pub name: Option<&'a Ident>,
    pub expr: &'a ast::Expr,
    pub no_inherit: bool,
}

impl<'a> WrittenCheck<'a> {
    /// A column or table CHECK of sqlparser; MySQL's [NOT] ENFORCED is PostgreSQL's syntax
    /// error.
    pub fn from_ast(check: &'a ast::CheckConstraint) -> Result<WrittenCheck<'a>> {
        let ast::CheckConstraint {
            name,
            expr,
            no_inherit,
            enforced,
        } = check;
        if enforced.is_some() {
            return Err(Error::syntax("syntax error at or near \"ENFORCED\""));
        }
        Ok(WrittenCheck {
            name: name.as_ref(),
            expr,
            no_inherit: *no_inherit,
        })
    }
}

impl Binder<'_> {
    /// A CHECK expression bound over `schema`'s row.
    fn bind_check_expr(&mut self, schema: &TableSchema, expr: &ast::Expr) -> Result<ScalarExpr> {
        let names = ("check constraint", "check constraints");
        self.bind_stored_row_expr(schema, names, |binder, scope| {
            binder.bind_condition(expr, scope, "CHECK")
        })
    }

    /// An expression over `schema`'s row that the schema keeps (a CHECK, a generation
    /// expression; `names`, singular and plural, name it in the errors): aggregates and
    /// subqueries are refused as PostgreSQL refuses them there.
    pub(super) fn bind_stored_row_expr(
        &mut self,
        schema: &TableSchema,
        (what, what_plural): (&'static str, &'static str),
        bind: impl FnOnce(&mut Self, &Scope) -> Result<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let scope = table_scope(schema, &schema.name);
        self.bind_stored_expr(&scope, (what, what_plural), bind)
    }

    /// An expression over `scope` that the catalog keeps: see [`Binder::bind_stored_row_expr`].
    pub(super) fn bind_stored_expr(
        &mut self,
        scope: &Scope,
        (what, what_plural): (&'static str, &'static str),
        bind: impl FnOnce(&mut Self, &Scope) -> Result<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        self.aggregate_forbidden_in = Some(what_plural);
        let bound = bind(self, scope);
        self.aggregate_forbidden_in = None;
        let bound = bound?;
        let mut subquery = false;
        bound.visit(&mut |e| subquery |= matches!(e, ScalarExpr::Subquery(_)));
        if subquery {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("cannot use subquery in {what}"),
            ));
        }
        Ok(bound)
    }

    /// A new CHECK constraint of `schema` (whose constraints so far are in the schema): its
    /// name as written, which must be free on the table, or PostgreSQL's
    /// `table_column_check` (the column when the expression reads exactly one) with a number
    /// added while the name is taken in the table's schema.
    pub(super) fn new_check(
        &mut self,
        schema: &TableSchema,
        check: &WrittenCheck<'_>,
        validated: bool,
    ) -> Result<Constraint> {
        let bound = self.bind_check_expr(schema, check.expr)?;
        let name = match check.name {
            Some(name) => {
                let name = ident_name(name);
                if schema.constraint_names().any(|n| n == name) {
                    return Err(Error::new(
                        SqlState::DuplicateObject,
                        format!(
                            "constraint \"{name}\" for relation \"{}\" already exists",
                            schema.name
                        ),
                    ));
                }
                name
            }
            None => {
                let base = match referenced_columns(&bound).as_slice() {
                    [column] => format!("{}_{}_check", schema.name, schema.columns[*column].name),
                    _ => format!("{}_check", schema.name),
                };
                self.free_constraint_name(schema, base)
            }
        };
        Ok(Constraint {
            name,
            kind: ConstraintKind::Check(CheckConstraint {
                expr: stored_expr(schema, check.expr, &bound),
                no_inherit: check.no_inherit,
            }),
            validated,
            comment: None,
        })
    }

    /// The positions of the columns `check`'s expression reads.
    fn check_columns(&mut self, schema: &TableSchema, sql: &str) -> Result<Vec<usize>> {
        let bound = self.bind_check_expr(schema, &parse_expr(sql)?)?;
        Ok(referenced_columns(&bound))
    }

    /// DROP COLUMN takes the CHECK constraints that read the column with it.
    pub(super) fn drop_checks_on_column(
        &mut self,
        schema: &mut TableSchema,
        position: usize,
    ) -> Result<()> {
        let mut kept = Vec::with_capacity(schema.constraints.len());
        for constraint in &schema.constraints {
            let reads_column = match &constraint.kind {
                ConstraintKind::Check(check) => self
                    .check_columns(schema, &check.expr.sql)?
                    .contains(&position),
            };
            if !reads_column {
                kept.push(constraint.clone());
            }
        }
        schema.constraints = kept;
        // Likewise the indexes whose expressions or WHERE read it.
        let mut kept = Vec::with_capacity(schema.indexes.len());
        for index in &schema.indexes {
            let mut reads_column = false;
            for expr in index_exprs(index) {
                let bound =
                    self.bind_stored_row_expr(schema, INDEX_EXPRESSION, |binder, scope| {
                        binder.bind_expr(&parse_expr(&expr.sql)?, scope)
                    })?;
                reads_column |= referenced_columns(&bound).contains(&position);
            }
            if !reads_column {
                kept.push(index.clone());
            }
        }
        schema.indexes = kept;
        Ok(())
    }

    /// Binds every CHECK and generation expression of `schema` again and prints it again,
    /// after ALTER TABLE renamed or retyped its columns: PostgreSQL's definitions follow
    /// the columns.
    pub(super) fn refresh_stored_exprs(&mut self, schema: &mut TableSchema) -> Result<()> {
        let mut refreshed = schema.clone();
        for constraint in &mut refreshed.constraints {
            match &mut constraint.kind {
                ConstraintKind::Check(check) => {
                    let written = parse_expr(&check.expr.sql)?;
                    let bound = self.bind_check_expr(schema, &written)?;
                    check.expr = stored_expr(schema, &written, &bound);
                }
            }
        }
        for index in &mut refreshed.indexes {
            let exprs =
                (index.expressions.iter_mut().map(|e| &mut e.expr)).chain(index.predicate.as_mut());
            for expr in exprs {
                let written = parse_expr(&expr.sql)?;
                let bound =
                    self.bind_stored_row_expr(schema, INDEX_EXPRESSION, |binder, scope| {
                        binder.bind_expr(&written, scope)
                    })?;
                *expr = stored_expr(schema, &written, &bound);
            }
        }
        for (position, column) in refreshed.columns.iter_mut().enumerate() {
            if let Some(generated) = &mut column.generated {
                let written = parse_expr(&generated.sql)?;
                let bound = self.bind_generation_expr(schema, position, &written)?;
                *generated = stored_expr(schema, &written, &bound);
            }
        }
        *schema = refreshed;
        Ok(())
    }

    /// `base`, or `base` with the first number that makes it no constraint's name in the
    /// table's schema (PostgreSQL's ChooseConstraintName).
    fn free_constraint_name(&self, schema: &TableSchema, base: String) -> String {
        let taken = |name: &str| {
            schema.constraint_names().any(|n| n == name)
                || self.state.tables.values().any(|entry| {
                    entry.schema.namespace == schema.namespace
                        && entry.schema.oid != schema.oid
                        && entry.schema.constraint_names().any(|n| n == name)
                })
        };
        let mut candidate = base.clone();
        let mut n = 0;
        while taken(&candidate) {
            n += 1;
            candidate = format!("{base}{n}");
        }
        candidate
    }

    /// The checks of the domains of `schema`'s columns, then its CHECK constraints by
    /// name, bound over its row: what a write to it must pass (the domains' first, as
    /// PostgreSQL coerces the values to the column types before it checks the row).
    pub(super) fn row_checks(&mut self, schema: &TableSchema) -> Result<Vec<RowCheck>> {
        self.row_checks_coercing(schema, |_| true)
    }

    /// [`Binder::row_checks`] with the domain checks of the columns `coerced` picks only:
    /// PostgreSQL checks a domain where a value is coerced to it, so an UPDATE checks the
    /// domains of the columns it assigns, not those of the others.
    pub(super) fn row_checks_coercing(
        &mut self,
        schema: &TableSchema,
        coerced: impl Fn(usize) -> bool,
    ) -> Result<Vec<RowCheck>> {
        let mut domain_checks = Vec::new();
        for (position, column) in schema.columns.iter().enumerate() {
            if let Some(domain) = column.domain.filter(|_| coerced(position)) {
                domain_checks.extend(self.domain_checks(domain, position)?);
            }
        }
        let mut checks = Vec::new();
        for constraint in &schema.constraints {
            match &constraint.kind {
                ConstraintKind::Check(check) => {
                    let expr = parse_expr(&check.expr.sql)?;
                    checks.push(RowCheck {
                        name: constraint.name.clone(),
                        kind: CheckKind::Constraint,
                        expr: self.bind_check_expr(schema, &expr)?,
                    });
                }
            }
        }
        checks.sort_by(|a, b| a.name.cmp(&b.name));
        domain_checks.extend(checks);
        Ok(domain_checks)
    }
}

/// `written`, bound over `schema`'s row as `bound`, as the schema keeps it: its text and
/// PostgreSQL's printed forms (the text as written where we cannot print one).
pub(super) fn stored_expr(
    schema: &TableSchema,
    written: &ast::Expr,
    bound: &ScalarExpr,
) -> StoredExpr {
    let column_names: Vec<String> = schema.columns.iter().map(|c| c.name.clone()).collect();
    let (definition, definition_pretty) = deparse_expr(bound, &column_names)
        .unwrap_or_else(|| (format!("({written})"), written.to_string()));
    StoredExpr {
        sql: written.to_string(),
        definition,
        definition_pretty,
    }
}

/// How errors name an index's expressions.
const INDEX_EXPRESSION: (&str, &str) = ("index expression", "index expressions");

/// The expressions of an index: its expression keys, and its WHERE.
fn index_exprs(index: &IndexDef) -> impl Iterator<Item = &StoredExpr> {
    (index.expressions.iter().map(|e| &e.expr)).chain(index.predicate.as_ref())
}

/// The distinct columns a bound expression reads.
pub(super) fn referenced_columns(bound: &ScalarExpr) -> Vec<usize> {
    let mut columns = Vec::new();
    bound.visit(&mut |e| {
        if let ScalarExpr::Column { index, .. } = e {
            if !columns.contains(index) {
                columns.push(*index);
            }
        }
    });
    columns
}

/// RENAME COLUMN in the text of the table's CHECK and generation expressions: every
/// identifier naming the column (not a function of that name) is replaced by the new name,
/// quoted if it needs to be; the rest of the text is kept token by token.
pub(super) fn rename_column_in_stored_exprs(schema: &mut TableSchema, old: &str, new: &str) {
    let checks = schema.constraints.iter_mut().map(|c| match &mut c.kind {
        ConstraintKind::Check(check) => &mut check.expr,
    });
    let generated = schema
        .columns
        .iter_mut()
        .filter_map(|c| c.generated.as_mut());
    let indexes = schema.indexes.iter_mut().flat_map(|index| {
        (index.expressions.iter_mut().map(|e| &mut e.expr)).chain(index.predicate.as_mut())
    });
    for expr in checks.chain(generated).chain(indexes) {
        if let Some(renamed) = rename_identifier(&expr.sql, old, new) {
            expr.sql = renamed;
        }
    }
}

/// `sql` with the column identifier `old` renamed to `new`; `None` if it does not tokenize
/// (it always does: we wrote it from a parsed expression).
fn rename_identifier(sql: &str, old: &str, new: &str) -> Option<String> {
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize().ok()?;
    let mut out = String::with_capacity(sql.len());
    for (i, token) in tokens.iter().enumerate() {
        let names_old = match token {
            Token::Word(word) => match word.quote_style {
                Some(_) => word.value == old,
                None => word.value.to_lowercase() == old,
            },
            _ => false,
        };
        let is_call = tokens[i + 1..]
            .iter()
            .find(|t| !matches!(t, Token::Whitespace(_)))
            .is_some_and(|t| matches!(t, Token::LParen));
        match names_old && !is_call {
            true => out.push_str(&quote_identifier(new)),
            false => out.push_str(&token.to_string()),
        }
    }
    Some(out)
}

/// Where a table keeps an expression that may call SQL functions.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredExprOwner {
    /// The DEFAULT of the column at this position.
    Default(usize),
    /// The CHECK constraint of this name.
    Check(String),
}

/// The column DEFAULTs and CHECK constraints of `schema` with the SQL functions each calls,
/// which PostgreSQL records as their dependencies (what a function's body calls is not).
/// An expression that no longer binds calls nothing that could be dropped.
pub fn stored_expr_functions(
    state: &crate::storage::DbState,
    schema: &TableSchema,
) -> Vec<(StoredExprOwner, Vec<u32>)> {
    let path = crate::catalog::SearchPath::default();
    let mut found = Vec::new();
    for (position, column) in schema.columns.iter().enumerate() {
        if column.default_sql.is_none() {
            continue;
        }
        let mut binder = Binder::new(state, &path, &[]);
        if binder.column_default(schema, position).is_ok() {
            found.push((StoredExprOwner::Default(position), binder.functions_called));
        }
    }
    for constraint in &schema.constraints {
        match &constraint.kind {
            ConstraintKind::Check(check) => {
                let mut binder = Binder::new(state, &path, &[]);
                // As a DEFAULT's, its names are looked up in the table's schema first.
                binder.searched.insert(0, schema.namespace);
                let bound =
                    parse_expr(&check.expr.sql).and_then(|e| binder.bind_check_expr(schema, &e));
                if bound.is_ok() {
                    let owner = StoredExprOwner::Check(constraint.name.clone());
                    found.push((owner, binder.functions_called));
                }
            }
        }
    }
    found.retain(|(_, functions)| !functions.is_empty());
    found
}
