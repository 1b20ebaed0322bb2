//! Writes through simple views (PostgreSQL's automatically updatable views): INSERT, UPDATE
//! and DELETE naming a view whose query reads one table (or such a view) with no DISTINCT,
//! GROUP BY, HAVING, set operation, WITH, LIMIT/OFFSET, aggregate, window or set-returning
//! function write that table. The view's columns name the table's columns, the rest of the
//! table is out of reach, and UPDATE and DELETE only see the rows the view's WHERE (and
//! those of the views under it) lets through. Other views are refused with PostgreSQL's
//! 55000, its DETAIL naming the first reason it checks (rewriteHandler.c,
//! view_query_is_auto_updatable) and its HINT.
//!
//! A view WITH CHECK OPTION adds its WHERE (LOCAL), or its WHERE and those of the views
//! under it (CASCADED), to the checks of the rows an INSERT or UPDATE writes through it, as
//! PostgreSQL's rewriteTargetView collects its WithCheckOptions: innermost view first, and
//! a row fails unless the condition is true.
//!
//! Left out, with 0A000: views whose columns are expressions, repeat a column or list the
//! table's columns out of order, a WHERE with a subquery, and ON CONFLICT.

use std::sync::Arc;

use sqlparser::ast::{self, GroupByExpr, ObjectName, SetExpr, Statement, TableFactor};

use super::scope::{Scope, ScopeColumn};
use super::{ident_name, Binder};
use crate::catalog::{AclMode, QualifiedName, TableSchema, ViewCheckOption, ViewDef};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoolTest, CheckKind, LogicalPlan, RowCheck, ScalarExpr};

/// Which write names the view, for PostgreSQL's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WriteKind {
    Insert,
    Update,
    Delete,
}

impl WriteKind {
    /// The privilege a write of this kind needs on its target.
    pub(super) fn privilege(self) -> AclMode {
        match self {
            WriteKind::Insert => AclMode::INSERT,
            WriteKind::Update => AclMode::UPDATE,
            WriteKind::Delete => AclMode::DELETE,
        }
    }

    fn cannot(self) -> &'static str {
        match self {
            WriteKind::Insert => "insert into",
            WriteKind::Update => "update",
            WriteKind::Delete => "delete from",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            WriteKind::Insert => "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
            WriteKind::Update => "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
            WriteKind::Delete => "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
        }
    }
}

/// The table a row write changes, as the statement named it: the table itself or a view
/// over it.
pub(super) struct WriteTarget {
    pub(super) schema: Arc<TableSchema>,
    view: Option<ViewTarget>,
}

struct ViewTarget {
    name: String,
    /// Each view column's name and the table column it is, in increasing table order.
    columns: Vec<(String, usize)>,
    /// The WHERE of the view and of the views under it, over the table's rows.
    filter: Option<ScalarExpr>,
    /// The conditions of its check options, over the table's rows, innermost view first.
    check_options: Vec<RowCheck>,
}

impl WriteTarget {
    pub(super) fn table(schema: Arc<TableSchema>) -> WriteTarget {
        WriteTarget { schema, view: None }
    }

    /// The name the statement wrote, for messages.
    fn relation_name(&self) -> &str {
        self.view
            .as_ref()
            .map_or(self.schema.name.as_str(), |v| v.name.as_str())
    }

    /// The columns in scope, over the table's rows: through a view, its names for the
    /// columns it shows and nothing for the others.
    pub(super) fn scope(&self, visible: &str) -> Scope {
        let Some(view) = &self.view else {
            return super::dml::table_scope(&self.schema, visible);
        };
        let mut scope = super::dml::table_scope(&self.schema, visible);
        for (position, column) in scope.columns.iter_mut().enumerate() {
            match view.columns.iter().find(|(_, c)| *c == position) {
                Some((name, _)) => column.name = name.clone(),
                None => {
                    *column = ScopeColumn {
                        table: None,
                        name: String::new(),
                        ty: column.ty,
                        table_oid: column.table_oid,
                        attnum: column.attnum,
                        qualified_only: true,
                        null_extended: false,
                        padding_witness: false,
                        from_relation: column.from_relation,
                    }
                }
            }
        }
        scope
    }

    /// The table column a column name of the statement's target means.
    pub(super) fn column(&self, column: &ObjectName) -> Result<usize> {
        let name = match column.0.as_slice() {
            [ast::ObjectNamePart::Identifier(ident)] => ident_name(ident),
            _ => return Err(Error::unsupported(format!("the column reference {column}"))),
        };
        let found = match &self.view {
            None => self.schema.column_index(&name),
            Some(view) => view.columns.iter().find(|(n, _)| *n == name).map(|c| c.1),
        };
        found.ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    self.relation_name()
                ),
            )
        })
    }

    /// The name the statement's target gives table column `index`.
    pub(super) fn column_label(&self, index: usize) -> &str {
        let view_name = self
            .view
            .as_ref()
            .and_then(|v| v.columns.iter().find(|(_, c)| *c == index));
        match view_name {
            Some((name, _)) => name,
            None => &self.schema.columns[index].name,
        }
    }

    /// The columns an INSERT without a column list fills, in order.
    pub(super) fn all_columns(&self) -> Vec<usize> {
        match &self.view {
            None => (0..self.schema.columns.len()).collect(),
            Some(view) => view.columns.iter().map(|c| c.1).collect(),
        }
    }

    /// The statement's own WHERE and the view's.
    pub(super) fn filter(&self, own: Option<ScalarExpr>) -> Option<ScalarExpr> {
        let view = self.view.as_ref().and_then(|v| v.filter.clone());
        match (own, view) {
            (Some(own), Some(view)) => Some(and(view, own)),
            (own, view) => own.or(view),
        }
    }

    pub(super) fn is_view(&self) -> bool {
        self.view.is_some()
    }

    /// The table's CHECK constraints (`constraints`), then the conditions of the check
    /// options of the views the write goes through: what the rows it writes must pass.
    pub(super) fn checks(&self, mut constraints: Vec<RowCheck>) -> Vec<RowCheck> {
        if let Some(view) = &self.view {
            constraints.extend(view.check_options.iter().cloned());
        }
        constraints
    }
}

fn and(left: ScalarExpr, right: ScalarExpr) -> ScalarExpr {
    ScalarExpr::And(Box::new(left), Box::new(right))
}

/// A view's query reduced to its table: the table, each output column's table column
/// (`None`: an expression), and the filters over the table's rows.
struct Flattened {
    table_oid: u32,
    outputs: Vec<Option<usize>>,
    filters: Vec<ScalarExpr>,
}

fn flatten(plan: &LogicalPlan) -> Option<Flattened> {
    match plan {
        LogicalPlan::Scan {
            table_oid, columns, ..
        } => Some(Flattened {
            table_oid: *table_oid,
            outputs: columns.iter().map(|&c| Some(c)).collect(),
            filters: Vec::new(),
        }),
        LogicalPlan::Sort { input, .. } => flatten(input),
        LogicalPlan::Filter { input, predicate } => {
            let mut flat = flatten(input)?;
            let mut readable = true;
            predicate.visit(&mut |e| match e {
                ScalarExpr::Column { index, .. } => {
                    readable &= flat.outputs.get(*index).copied().flatten().is_some()
                }
                ScalarExpr::Subquery(_) => readable = false,
                _ => {}
            });
            if !readable {
                return None;
            }
            let outputs = flat.outputs.clone();
            let on_table = predicate
                .clone()
                .map_columns(&|index| outputs[index].unwrap_or(index));
            flat.filters.push(on_table);
            Some(flat)
        }
        LogicalPlan::Project { input, exprs } => {
            let mut flat = flatten(input)?;
            flat.outputs = exprs
                .iter()
                .map(|e| match e {
                    ScalarExpr::Column { index, .. } => flat.outputs.get(*index).copied().flatten(),
                    _ => None,
                })
                .collect();
            Some(flat)
        }
        _ => None,
    }
}

impl Binder<'_> {
    /// What an INSERT, UPDATE or DELETE naming `name` writes.
    pub(super) fn write_target(
        &mut self,
        name: &QualifiedName,
        kind: WriteKind,
    ) -> Result<WriteTarget> {
        let Some(view) = self.state.views.get(name).cloned() else {
            let schema = self.table(name)?.schema.clone();
            match kind {
                WriteKind::Insert | WriteKind::Update => {
                    self.require_relation_or_columns(name, schema.oid, kind.privilege())?
                }
                WriteKind::Delete => self.require_relation(name, schema.oid, kind.privilege())?,
            }
            super::materialized_view::check_writable(&schema)?;
            if schema.foreign.is_some() {
                // file_fdw has no write callbacks.
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot {} foreign table \"{}\"", kind.cannot(), schema.name),
                ));
            }
            return Ok(WriteTarget::table(schema));
        };
        self.require_relation(name, view.oid, kind.privilege())?;
        let below = self.check_updatable(&view, kind)?;
        let plan = self.expand_view(&view)?;
        let unsupported = || {
            Error::unsupported(format!(
                "writing through view \"{}\", whose columns are not its table's columns in \
                 their order or whose WHERE has a subquery",
                view.name
            ))
        };
        let flat = flatten(&plan).ok_or_else(unsupported)?;
        let schema = self
            .state
            .tables
            .get(&flat.table_oid)
            .map(|t| t.schema.clone())
            .ok_or_else(unsupported)?;
        // Each level is written with its owner's privileges on the level below, down to
        // the table (PostgreSQL rewrites one view at a time, each checked as its owner).
        let levels: Vec<&ViewDef> = std::iter::once(view.as_ref())
            .chain(below.iter().map(|v| v.as_ref()))
            .collect();
        for (depth, upper) in levels.iter().enumerate() {
            let (lower_name, lower_oid) = match levels.get(depth + 1) {
                Some(lower) => (lower.qualified_name(), lower.oid),
                None => (schema.qualified_name(), schema.oid),
            };
            let upper_owner = Some(self.relation_owner(upper.oid));
            let caller = std::mem::replace(&mut self.view_owner, upper_owner);
            let allowed = self.require_relation(&lower_name, lower_oid, kind.privilege());
            self.view_owner = caller;
            allowed?;
        }
        let mut columns = Vec::with_capacity(view.columns.len());
        for ((name, _), output) in view.columns.iter().zip(&flat.outputs) {
            match output {
                Some(c) if columns.last().is_none_or(|(_, last)| last < c) => {
                    columns.push((name.clone(), *c))
                }
                _ => return Err(unsupported()),
            }
        }
        let filter = flat.filters.into_iter().reduce(and);
        let check_options = match kind {
            WriteKind::Insert | WriteKind::Update => self.check_options(&view, below)?,
            WriteKind::Delete => Vec::new(),
        };
        Ok(WriteTarget {
            schema,
            view: Some(ViewTarget {
                name: view.name.clone(),
                columns,
                filter,
                check_options,
            }),
        })
    }

    /// The check options a write through `view` (over the views `below` it, outermost
    /// first) must pass: each view's own WHERE, where its own option or a CASCADED one
    /// above it asks for it, innermost first.
    fn check_options(
        &mut self,
        view: &Arc<ViewDef>,
        below: Vec<Arc<ViewDef>>,
    ) -> Result<Vec<RowCheck>> {
        let chain: Vec<Arc<ViewDef>> = std::iter::once(view.clone()).chain(below).collect();
        if chain.iter().all(|v| v.check_option.is_none()) {
            return Ok(Vec::new());
        }
        // Each view's filters, over the table: those of the views under it come first.
        let mut filters = Vec::with_capacity(chain.len());
        for level in &chain {
            let plan = self.expand_view(level)?;
            let flat = flatten(&plan).ok_or_else(|| {
                Error::internal("invariant: a view under an updatable view flattens")
            })?;
            filters.push(flat.filters);
        }
        let mut checks = Vec::new();
        let mut cascaded = false;
        for (level, view) in chain.iter().enumerate() {
            let inherited = filters.get(level + 1).map_or(0, Vec::len);
            let own = filters[level][inherited..].iter().cloned().reduce(and);
            let checked = match (cascaded, view.check_option) {
                (true, _) | (false, Some(ViewCheckOption::Cascaded)) => {
                    cascaded = true;
                    true
                }
                (false, Some(ViewCheckOption::Local)) => true,
                (false, None) => false,
            };
            if let (true, Some(own)) = (checked, own) {
                checks.push(RowCheck {
                    name: view.name.clone(),
                    kind: CheckKind::ViewCheckOption,
                    // A row the view would not show fails, NULL included.
                    expr: ScalarExpr::BoolTest {
                        input: Box::new(own),
                        test: BoolTest::IsTrue,
                    },
                });
            }
        }
        checks.reverse();
        Ok(checks)
    }

    /// CREATE VIEW ... WITH CHECK OPTION: only on a view PostgreSQL can write through.
    pub(super) fn check_option_allowed(&mut self, view: &ViewDef) -> Result<()> {
        match self.check_updatable(view, WriteKind::Insert) {
            Err(e) if e.state == SqlState::ObjectNotInPrerequisiteState => {
                let mut error = Error::new(
                    SqlState::FeatureNotSupported,
                    "WITH CHECK OPTION is supported only on automatically updatable views",
                );
                error.hint = e.detail;
                Err(error)
            }
            other => other.map(|_| ()),
        }
    }

    /// PostgreSQL's checks of an automatically updatable view, in its order, down through
    /// the views it reads; returns those views, outermost first.
    fn check_updatable(&mut self, view: &ViewDef, kind: WriteKind) -> Result<Vec<Arc<ViewDef>>> {
        let refuse = |detail: &str| {
            Error::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!("cannot {} view \"{}\"", kind.cannot(), view.name),
            )
            .with_detail(format!("{detail} are not automatically updatable."))
            .with_hint(kind.hint())
        };
        let mut statements = crate::parser::parse_stored(&view.query_sql)?;
        let (Some(parsed), None) = (statements.pop(), statements.pop()) else {
            return Err(Error::internal("a view's query is one statement"));
        };
        let crate::parser::Statement::Sql(Statement::Query(query)) = parsed.statement else {
            return Err(Error::internal("a view's query is a query"));
        };
        let select = match query.body.as_ref() {
            SetExpr::Select(select) => Some(select),
            _ => None,
        };
        if let Some(select) = select {
            if select.distinct.is_some() {
                return Err(refuse("Views containing DISTINCT"));
            }
            let grouped = match &select.group_by {
                GroupByExpr::All(_) => true,
                GroupByExpr::Expressions(keys, _) => !keys.is_empty(),
            };
            if grouped {
                return Err(refuse("Views containing GROUP BY"));
            }
            if select.having.is_some() {
                return Err(refuse("Views containing HAVING"));
            }
        }
        if matches!(query.body.as_ref(), SetExpr::SetOperation { .. }) {
            return Err(refuse("Views containing UNION, INTERSECT, or EXCEPT"));
        }
        if query.with.is_some() {
            return Err(refuse("Views containing WITH"));
        }
        if query.limit_clause.is_some() || query.fetch.is_some() {
            return Err(refuse("Views containing LIMIT or OFFSET"));
        }
        let plan = self.expand_view(view)?;
        let mut found = (false, false, false);
        plan.visit_all(&mut |p| match p {
            LogicalPlan::Aggregate { .. } => found.0 = true,
            LogicalPlan::Window { .. } => found.1 = true,
            LogicalPlan::TableFunction { .. } => found.2 = true,
            _ => {}
        });
        let table = select.and_then(|s| match s.from.as_slice() {
            [only] if only.joins.is_empty() => match &only.relation {
                TableFactor::Table {
                    name, args: None, ..
                } => Some(name.clone()),
                _ => None,
            },
            _ => None,
        });
        match (found, table) {
            ((true, _, _), _) => Err(refuse("Views that return aggregate functions")),
            ((_, true, _), _) => Err(refuse("Views that return window functions")),
            ((_, _, true), Some(_)) => Err(refuse("Views that return set-returning functions")),
            (_, None) => Err(refuse(
                "Views that do not select from a single table or view",
            )),
            (_, Some(table)) => {
                // The relation it reads, named as the view's own search path finds it.
                let searched = std::mem::replace(&mut self.searched, view.search_path.clone());
                let relation = self.open_relation(&table);
                self.searched = searched;
                match self.state.views.get(&relation?).cloned() {
                    Some(inner) => {
                        let mut below = self.check_updatable(&inner, kind)?;
                        below.insert(0, inner);
                        Ok(below)
                    }
                    None => Ok(Vec::new()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::Database;

    /// PostgreSQL 15's DETAIL and HINT for writes it refuses to make through a view.
    #[test]
    fn refusals_say_why_and_what_would_allow_the_write() {
        let db = Database::new();
        let mut session = db.connect();
        let setup = "CREATE TABLE t (a int, b text); \
                     CREATE VIEW v_agg AS SELECT count(*) AS n FROM t; \
                     CREATE VIEW v_group AS SELECT a, count(*) AS n FROM t GROUP BY a; \
                     CREATE VIEW v_join AS SELECT t1.a FROM t t1, t t2; \
                     CREATE VIEW v_srf AS SELECT a, generate_series(1, 2) AS g FROM t";
        assert!(session.execute(setup).is_ok());
        let cases = [
            (
                "UPDATE v_agg SET n = 1",
                "cannot update view \"v_agg\"",
                "Views that return aggregate functions are not automatically updatable.",
                "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
            ),
            (
                "INSERT INTO v_group VALUES (1, 2)",
                "cannot insert into view \"v_group\"",
                "Views containing GROUP BY are not automatically updatable.",
                "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
            ),
            (
                "DELETE FROM v_join",
                "cannot delete from view \"v_join\"",
                "Views that do not select from a single table or view are not automatically updatable.",
                "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
            ),
            (
                "DELETE FROM v_srf",
                "cannot delete from view \"v_srf\"",
                "Views that return set-returning functions are not automatically updatable.",
                "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
            ),
        ];
        for (sql, message, detail, hint) in cases {
            let error = session.execute(sql).expect_err(sql);
            assert_eq!(error.sqlstate(), "55000", "{sql}");
            assert_eq!(error.message, message, "{sql}");
            assert_eq!(error.detail.as_deref(), Some(detail), "{sql}");
            assert_eq!(error.hint.as_deref(), Some(hint), "{sql}");
        }
    }
}
