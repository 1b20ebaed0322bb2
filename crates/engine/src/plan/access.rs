//! What a bound statement does to the database, as the transaction rules need it: which
//! tables it reads (a SERIALIZABLE transaction checks them at COMMIT) and which command a
//! READ ONLY transaction refuses.

use super::{BoundStatement, CopyDirection, LogicalPlan, ScalarExpr};

/// Adds the tables `plan` scans to `tables`, once each.
fn add_plan(tables: &mut Vec<u32>, plan: &LogicalPlan) {
    for oid in plan.tables_read() {
        if !tables.contains(&oid) {
            tables.push(oid);
        }
    }
}

/// Adds the tables scanned by the subqueries of `expr`.
fn add_expr(tables: &mut Vec<u32>, expr: &ScalarExpr) {
    expr.visit(&mut |e| {
        if let ScalarExpr::Subquery(subquery) = e {
            add_plan(tables, &subquery.plan);
        }
    });
}

impl BoundStatement {
    /// The OIDs of the tables whose rows the statement reads; the target of UPDATE and
    /// DELETE counts, as does INSERT's with ON CONFLICT (it reads the conflicting rows).
    pub fn tables_read(&self) -> Vec<u32> {
        let mut tables = Vec::new();
        match self {
            BoundStatement::Query { plan, .. } | BoundStatement::Explain { plan, .. } => {
                add_plan(&mut tables, plan)
            }
            BoundStatement::Copy(copy) => match &copy.direction {
                CopyDirection::To { plan, .. } => add_plan(&mut tables, plan),
                CopyDirection::From { .. } => {}
            },
            BoundStatement::Insert {
                table_oid,
                source,
                on_conflict,
                returning: _,
                table_name: _,
                checks: _,
            } => {
                add_plan(&mut tables, source);
                if on_conflict.is_some() {
                    tables.push(*table_oid);
                }
            }
            BoundStatement::Update {
                table_oid,
                source,
                filter,
                assignments,
                returning: _,
                table_name: _,
                checks: _,
            } => {
                tables.push(*table_oid);
                if let Some(source) = source {
                    add_plan(&mut tables, source);
                }
                for expr in filter.iter().chain(assignments.iter().map(|(_, e)| e)) {
                    add_expr(&mut tables, expr);
                }
            }
            BoundStatement::Delete {
                table_oid,
                source,
                filter,
                returning: _,
                table_name: _,
            } => {
                tables.push(*table_oid);
                if let Some(source) = source {
                    add_plan(&mut tables, source);
                }
                if let Some(filter) = filter {
                    add_expr(&mut tables, filter);
                }
            }
            BoundStatement::CreateTable { source, .. } => {
                if let Some(source) = source {
                    add_plan(&mut tables, source);
                }
            }
            BoundStatement::RefreshMaterializedView { oid, source, .. } => {
                tables.push(*oid);
                if let Some(source) = source {
                    add_plan(&mut tables, source);
                }
            }
            BoundStatement::WithWrites { writes, main } => {
                for statement in writes.iter().map(|(_, w)| w).chain([main.as_ref()]) {
                    for oid in statement.tables_read() {
                        if !tables.contains(&oid) {
                            tables.push(oid);
                        }
                    }
                }
            }
            BoundStatement::CreateSequence { .. }
            | BoundStatement::Comment { .. }
            | BoundStatement::AlterSequence { .. }
            | BoundStatement::SetConstraints { .. }
            | BoundStatement::DropSequence { .. }
            | BoundStatement::DropTable { .. }
            | BoundStatement::CreateView { .. }
            | BoundStatement::DropView { .. }
            | BoundStatement::ChangeType(_)
            | BoundStatement::ChangeRole(_)
            | BoundStatement::ChangeFunction(_)
            | BoundStatement::ChangeExtension(_)
            | BoundStatement::ChangeForeignData(_)
            | BoundStatement::CreateIndex(_)
            | BoundStatement::CreateSchema { .. }
            | BoundStatement::DropSchema { .. }
            | BoundStatement::RenameSchema { .. }
            | BoundStatement::AlterTable { .. }
            | BoundStatement::Truncate { .. }
            | BoundStatement::DropIndex { .. }
            | BoundStatement::Maintenance { .. }
            | BoundStatement::Begin { .. }
            | BoundStatement::SetTransaction { .. }
            | BoundStatement::LockTable { .. }
            | BoundStatement::Commit { .. }
            | BoundStatement::Rollback { .. }
            | BoundStatement::Savepoint { .. }
            | BoundStatement::Set(_)
            | BoundStatement::Show { .. } => {}
            BoundStatement::FunctionCall(call) => {
                for arg in &call.args {
                    add_expr(&mut tables, arg);
                }
            }
        }
        tables
    }

    /// The command a READ ONLY transaction may not run (PostgreSQL's name for it, as its
    /// 25006 error says it), or `None` if the statement changes nothing stored. A query
    /// that locks rows counts (FOR NO KEY UPDATE and FOR KEY SHARE are named as the
    /// stronger strength they take here).
    pub fn write_command(&self) -> Option<&'static str> {
        Some(match self {
            BoundStatement::Query { plan, .. } => {
                let mut command = None;
                plan.visit_all(&mut |p| {
                    if let LogicalPlan::LockRows { exclusive, .. } = p {
                        command = Some(match exclusive {
                            true => "SELECT FOR UPDATE",
                            false => "SELECT FOR SHARE",
                        });
                    }
                });
                return command;
            }
            BoundStatement::Insert { .. } => "INSERT",
            BoundStatement::Update { .. } => "UPDATE",
            BoundStatement::Delete { .. } => "DELETE",
            // PostgreSQL names the first write it meets.
            BoundStatement::WithWrites { writes, main } => {
                return writes
                    .iter()
                    .map(|(_, write)| write)
                    .chain(std::iter::once(main.as_ref()))
                    .find_map(BoundStatement::write_command)
            }
            BoundStatement::Comment { .. } => "COMMENT",
            BoundStatement::AlterSequence { .. } => "ALTER SEQUENCE",
            BoundStatement::Copy(copy) => match &copy.direction {
                CopyDirection::From { .. } => "COPY FROM",
                CopyDirection::To { .. } => return None,
            },
            BoundStatement::CreateTable {
                source: Some(_), ..
            } => "CREATE TABLE AS",
            BoundStatement::CreateTable { source: None, .. } => "CREATE TABLE",
            BoundStatement::CreateSequence { .. } => "CREATE SEQUENCE",
            BoundStatement::DropSequence { .. } => "DROP SEQUENCE",
            BoundStatement::DropTable { .. } => "DROP TABLE",
            BoundStatement::CreateView { .. } => "CREATE VIEW",
            BoundStatement::DropView { .. } => "DROP VIEW",
            BoundStatement::ChangeType(change) => change.tag(),
            BoundStatement::ChangeRole(change) => change.tag(),
            BoundStatement::ChangeFunction(change) => change.tag(),
            BoundStatement::ChangeExtension(change) => change.tag(),
            BoundStatement::ChangeForeignData(change) => change.tag(),
            BoundStatement::CreateIndex(_) => "CREATE INDEX",
            BoundStatement::CreateSchema { .. } => "CREATE SCHEMA",
            BoundStatement::DropSchema { .. } => "DROP SCHEMA",
            BoundStatement::RenameSchema { .. } => "ALTER SCHEMA",
            BoundStatement::AlterTable { tag, .. } => tag,
            BoundStatement::Truncate { .. } => "TRUNCATE TABLE",
            BoundStatement::DropIndex { .. } => "DROP INDEX",
            BoundStatement::RefreshMaterializedView { .. } => "REFRESH MATERIALIZED VIEW",
            BoundStatement::Explain { .. }
            | BoundStatement::Maintenance { .. }
            | BoundStatement::Begin { .. }
            | BoundStatement::SetTransaction { .. }
            | BoundStatement::LockTable { .. }
            | BoundStatement::Commit { .. }
            | BoundStatement::Rollback { .. }
            | BoundStatement::Savepoint { .. }
            | BoundStatement::Set(_)
            | BoundStatement::SetConstraints { .. }
            | BoundStatement::Show { .. }
            // Each statement of the body is checked as it runs, as PostgreSQL does.
            | BoundStatement::FunctionCall(_) => return None,
        })
    }
}
