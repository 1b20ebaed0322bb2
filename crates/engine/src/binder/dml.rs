//! INSERT, UPDATE and DELETE: target columns, assignment casts and column defaults.

use std::sync::Arc;

use sqlparser::ast::{
    self, AssignmentTarget, Delete, Expr, FromTable, Insert, ObjectName, SetExpr, TableFactor,
    TableObject, Update,
};

use super::position::{about_a_name, placed};
use super::row::row_fields;
use super::scope::{Scope, ScopeColumn};
use super::subscript_assignment::{
    subscripted_target, target_parts, Assigned, SubscriptedAssignment,
};
use super::updatable_view::{WriteKind, WriteTarget};
use super::{ident_name, Binder};
use crate::catalog::{AclMode, Identity, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::parser::Overriding;
use crate::plan::{BoundStatement, ColumnInfo, LogicalPlan, Returning, ScalarExpr, SubqueryKind};
use crate::types::record::RECORD_OID;
use crate::types::DataType;

/// Column `column`'s DEFAULT bound on its own, for an ON DELETE / ON UPDATE SET DEFAULT
/// action, which writes a table no statement named.
pub(crate) fn column_default_expr(
    state: &crate::storage::DbState,
    schema: &TableSchema,
    column: usize,
) -> Result<ScalarExpr> {
    let path = crate::catalog::SearchPath::default();
    Binder::new(state, &path, &[]).column_default(schema, column)
}

impl Binder<'_> {
    pub(super) fn bind_insert(&mut self, insert: &Insert) -> Result<BoundStatement> {
        let Insert {
            insert_token: _,
            optimizer_hints,
            or,
            ignore,
            into: _,
            table,
            table_alias,
            columns,
            overwrite,
            source,
            assignments,
            partitioned,
            after_columns,
            has_table_keyword,
            on,
            returning,
            output,
            replace_into,
            priority,
            insert_alias,
            settings,
            format_clause,
            multi_table_insert_type,
            multi_table_into_clauses,
            multi_table_when_clauses,
            multi_table_else_clause,
        } = insert;
        if !optimizer_hints.is_empty()
            || or.is_some()
            || *ignore
            || *overwrite
            || !assignments.is_empty()
            || partitioned.is_some()
            || !after_columns.is_empty()
            || *has_table_keyword
            || output.is_some()
            || *replace_into
            || priority.is_some()
            || insert_alias.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || multi_table_insert_type.is_some()
            || !multi_table_into_clauses.is_empty()
            || !multi_table_when_clauses.is_empty()
            || multi_table_else_clause.is_some()
        {
            return Err(Error::unsupported(format!("the INSERT form {insert}")));
        }
        let TableObject::TableName(name) = table else {
            return Err(Error::unsupported("INSERT into a table function"));
        };
        let name = self.open_relation_at(name)?;
        let target = self.write_target(&name, WriteKind::Insert)?;
        if returning.is_some() {
            self.require_read(&name)?;
        }
        let schema = target.schema.clone();
        let targets = self.target_columns(&target, columns)?;
        let explicit = !columns.is_empty();
        self.note_inserted_columns(&target, &targets, source.as_deref());
        let source = match source {
            None => self.default_row(&schema)?,
            Some(query) => match (
                query.body.as_ref(),
                &query.order_by,
                &query.limit_clause,
                &query.with,
            ) {
                (SetExpr::Values(values), None, None, None) => {
                    self.insert_values(&schema, &targets, explicit, values)?
                }
                _ => self.insert_query(&schema, &targets, explicit, query)?,
            },
        };
        let source = self.with_generated(&schema, source)?;
        // The target's columns are in scope only for ON CONFLICT and RETURNING: a plain
        // INSERT builds no scope.
        let (on_conflict, returning) = if on.is_none() && returning.is_none() {
            (None, None)
        } else {
            let visible = table_alias
                .as_ref()
                .map_or_else(|| name.name.clone(), |a| ident_name(&a.alias));
            let scope = target.scope(&visible);
            let on_conflict = match on {
                None => None,
                Some(ast::OnInsert::OnConflict(_)) if schema.partition_key.is_some() => {
                    return Err(Error::unsupported(
                        "INSERT ... ON CONFLICT on a partitioned table",
                    ))
                }
                Some(ast::OnInsert::OnConflict(_)) if target.is_view() => {
                    return Err(Error::unsupported("INSERT ... ON CONFLICT on a view"))
                }
                Some(ast::OnInsert::OnConflict(on_conflict)) => {
                    Some(self.bind_on_conflict(&target, &scope, on_conflict)?)
                }
                Some(other) => {
                    return Err(Error::unsupported(format!("the INSERT clause {other}")))
                }
            };
            (
                on_conflict,
                self.bind_returning(returning.as_deref(), &scope)?,
            )
        };
        Ok(BoundStatement::Insert {
            table_name: schema.qualified_name(),
            table_oid: schema.oid,
            source,
            returning,
            on_conflict,
            checks: target.checks(self.row_checks(&schema)?),
        })
    }

    /// `DEFAULT VALUES`: one row of defaults.
    fn default_row(&mut self, schema: &TableSchema) -> Result<LogicalPlan> {
        let row = (0..schema.columns.len())
            .map(|c| self.column_default(schema, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(LogicalPlan::Values {
            rows: Arc::new(vec![row]),
            types: schema.column_types(),
        })
    }

    fn insert_values(
        &mut self,
        schema: &TableSchema,
        targets: &[InsertTarget],
        explicit: bool,
        values: &ast::Values,
    ) -> Result<LogicalPlan> {
        let empty = Scope::default();
        let mut rows = Vec::with_capacity(values.rows.len());
        for row in &values.rows {
            let exprs = &row.content;
            check_insert_width(exprs.len(), targets.len(), explicit)?;
            if rows.is_empty() && values.rows.iter().any(|r| r.content.len() != exprs.len()) {
                return Err(Error::syntax("VALUES lists must all be the same length"));
            }
            let mut full: Vec<Option<ScalarExpr>> = vec![None; schema.columns.len()];
            for (expr, target) in exprs.iter().zip(targets) {
                let column = target.column;
                if let Some(indirection) = &target.indirection {
                    if is_default_keyword(expr) {
                        let what = match indirection {
                            Indirection::Subscripts(_) => "an array element",
                            Indirection::Field(_) => "a subfield",
                        };
                        let error = Error::new(
                            SqlState::FeatureNotSupported,
                            format!("cannot set {what} to DEFAULT"),
                        );
                        return Err(placed(error, target.position));
                    }
                    let value = Assigned::Sql(expr);
                    let assigned =
                        self.assign_part(schema, &mut full, target, indirection, value)?;
                    full[column] = Some(assigned);
                    continue;
                }
                full[column] = Some(
                    if is_default_keyword(expr) || self.user_value_ignored(schema, column) {
                        self.column_default(schema, column)?
                    } else {
                        self.check_insertable(schema, column)?;
                        self.located(
                            |binder| {
                                let ty = schema.columns[column].data_type;
                                let bound = binder.bind_expr_for(expr, ty, &empty)?;
                                binder.assign(schema, column, bound)
                            },
                            |binder, error| binder.assigned_value_position(error, expr),
                        )?
                    },
                );
            }
            let full = full
                .into_iter()
                .enumerate()
                .map(|(column, e)| match e {
                    Some(e) => Ok(e),
                    None => self.column_default(schema, column),
                })
                .collect::<Result<Vec<_>>>()?;
            rows.push(full);
        }
        Ok(LogicalPlan::Values {
            rows: Arc::new(rows),
            types: schema.column_types(),
        })
    }

    fn insert_query(
        &mut self,
        schema: &TableSchema,
        targets: &[InsertTarget],
        explicit: bool,
        query: &ast::Query,
    ) -> Result<LogicalPlan> {
        // A plain SELECT's untyped outputs (`SELECT 1, NULL`) take the target columns' types,
        // as PostgreSQL leaves them unresolved for INSERT.
        if query.with.is_none() && matches!(query.body.as_ref(), SetExpr::Select(_)) {
            self.untyped_outputs_kept = true;
        }
        let bound = self.bind_query(query);
        self.untyped_outputs_kept = false;
        let (plan, columns) = bound?;
        check_insert_width(columns.len(), targets.len(), explicit)?;
        let mut full: Vec<Option<ScalarExpr>> = vec![None; schema.columns.len()];
        for (index, (info, target)) in columns.iter().zip(targets).enumerate() {
            let column = target.column;
            let source = ScalarExpr::Column {
                index,
                ty: info.data_type,
            };
            if let Some(indirection) = &target.indirection {
                let value = Assigned::Bound(source);
                let assigned = self.assign_part(schema, &mut full, target, indirection, value)?;
                full[column] = Some(assigned);
                continue;
            }
            if self.user_value_ignored(schema, column) {
                full[column] = Some(self.column_default(schema, column)?);
                continue;
            }
            self.check_insertable(schema, column)?;
            full[column] = Some(self.assign(schema, column, source)?);
        }
        let exprs = full
            .into_iter()
            .enumerate()
            .map(|(column, e)| match e {
                Some(e) => Ok(e),
                None => self.column_default(schema, column),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
        })
    }

    /// Brings a value to a column's type with an assignment cast, PostgreSQL's error if none.
    fn assign(
        &mut self,
        schema: &TableSchema,
        column: usize,
        value: ScalarExpr,
    ) -> Result<ScalarExpr> {
        let def = &schema.columns[column];
        let from = value.ty();
        // An anonymous record (a row constructor) goes to a composite column field by
        // field, as PostgreSQL's coerce_record_to_complex takes it in any context.
        let row_to_composite = matches!(
            (from, def.data_type),
            (DataType::Record(r), DataType::Record(_)) if r.type_oid == RECORD_OID
        );
        if from != DataType::Unknown
            && !row_to_composite
            && !can_cast(from, def.data_type, CastContext::Assignment)
        {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" is of type {} but expression is of type {}",
                    def.name,
                    self.type_display(def.data_type),
                    self.type_display(from)
                ),
            )
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce(value, def.data_type, CastContext::Assignment)
    }

    /// An INSERT's target of a part of a column given `value`: assigned into what earlier
    /// targets of the list made of the column, or into a NULL of its type.
    fn assign_part(
        &mut self,
        schema: &TableSchema,
        full: &mut [Option<ScalarExpr>],
        target: &InsertTarget,
        indirection: &Indirection,
        value: Assigned<'_>,
    ) -> Result<ScalarExpr> {
        let column = target.column;
        self.check_insertable(schema, column)?;
        let ty = schema.columns[column].data_type;
        let earlier = full[column].take();
        let assigned = match indirection {
            Indirection::Subscripts(subscripted) => {
                let (root, subscripts) = target_parts(subscripted)?;
                let assignment = SubscriptedAssignment {
                    column: root,
                    value,
                    subscripts,
                    position: target.position,
                };
                let current = earlier.unwrap_or_else(|| ScalarExpr::null(ty));
                self.bind_subscripted_assignment(&assignment, Some(current), &Scope::default())?
            }
            Indirection::Field(field) => {
                let null = |_: &mut Self, _: &str, ty| Ok(ScalarExpr::null(ty));
                match value {
                    Assigned::Sql(expr) => self.located(
                        |binder| {
                            let value = binder.bind_expr(expr, &Scope::default())?;
                            binder.row_with_field(ty, (*field, value), earlier, null)
                        },
                        |binder, error| binder.assigned_value_position(error, expr),
                    )?,
                    Assigned::Bound(value) => {
                        self.row_with_field(ty, (*field, value), earlier, null)?
                    }
                }
            }
        };
        self.assign(schema, column, assigned)
    }

    /// The DEFAULT of a column (NULL if it has none), bound and cast to the column type.
    pub(super) fn column_default(
        &mut self,
        schema: &TableSchema,
        column: usize,
    ) -> Result<ScalarExpr> {
        let def = &schema.columns[column];
        // A column of a domain without a DEFAULT of its own takes the domain's.
        let default = match (&def.default_sql, def.domain) {
            (Some(sql), _) => Some((sql.clone(), schema.namespace)),
            (None, Some(domain)) => self.domain_default(domain),
            (None, None) => None,
        };
        let Some((sql, namespace)) = default else {
            return Ok(ScalarExpr::null(def.data_type));
        };
        let expr = parse_expr(&sql)?;
        // The names in a DEFAULT (a SERIAL's sequence) are looked up in the table's schema
        // first, whatever the path of the statement that writes the row.
        self.searched.insert(0, namespace);
        let bound = self.bind_expr(&expr, &Scope::default());
        self.searched.remove(0);
        self.assign(schema, column, bound?)
    }

    pub(super) fn bind_update(&mut self, update: &Update) -> Result<BoundStatement> {
        let Update {
            update_token: _,
            optimizer_hints,
            table,
            assignments,
            from,
            selection,
            returning,
            output,
            or,
            order_by,
            limit,
        } = update;
        if !optimizer_hints.is_empty()
            || matches!(from, Some(ast::UpdateTableFromKind::BeforeSet(_)))
            || output.is_some()
            || or.is_some()
            || !order_by.is_empty()
            || limit.is_some()
        {
            return Err(Error::unsupported(format!("the UPDATE form {update}")));
        }
        let reads = selection.is_some()
            || returning.is_some()
            || assignments.iter().any(|a| reads_columns(&a.value));
        let (target, scope) = self.dml_target(table, WriteKind::Update, reads)?;
        let schema = target.schema.clone();
        let from_items = match from {
            Some(ast::UpdateTableFromKind::AfterSet(items)) => items.as_slice(),
            _ => &[],
        };
        let (source, scope) = self.dml_source(from_items, scope)?;
        let bound = self.bind_assignments(&target, assignments, &scope)?;
        let filter = target.filter(self.dml_filter(selection.as_ref(), &scope)?);
        let returning = self.bind_returning(returning.as_deref(), &scope)?;
        let checks =
            self.row_checks_coercing(&schema, |p| bound.iter().any(|(column, _)| *column == p))?;
        Ok(BoundStatement::Update {
            table_name: schema.qualified_name(),
            table_oid: schema.oid,
            source,
            filter,
            assignments: bound,
            returning,
            checks: target.checks(checks),
        })
    }

    /// `SET column = value, ...` of UPDATE and ON CONFLICT DO UPDATE, over `scope`.
    pub(super) fn bind_assignments(
        &mut self,
        target: &WriteTarget,
        assignments: &[ast::Assignment],
        scope: &Scope,
    ) -> Result<Vec<(usize, ScalarExpr)>> {
        let schema: &TableSchema = &target.schema;
        let mut bound = Vec::with_capacity(assignments.len());
        // The columns given a value by `SET column.field = ...`, which may set several fields.
        let mut piecewise = Vec::new();
        for assignment in assignments {
            match &assignment.target {
                AssignmentTarget::ColumnName(name) => {
                    let value = Assigned::Sql(&assignment.value);
                    self.bind_assignment(target, name, value, scope, &mut bound, &mut piecewise)?;
                }
                AssignmentTarget::Tuple(names) => {
                    let values: Vec<Assigned> = match &assignment.value {
                        Expr::Subquery(query) => self
                            .bind_multiple_assignment_subquery(query, names, scope)?
                            .into_iter()
                            .map(Assigned::Bound)
                            .collect(),
                        value => multiple_assignment_values(value, names.len())?
                            .into_iter()
                            .map(Assigned::Sql)
                            .collect(),
                    };
                    for (name, value) in names.iter().zip(values) {
                        self.bind_assignment(
                            target,
                            name,
                            value,
                            scope,
                            &mut bound,
                            &mut piecewise,
                        )?;
                    }
                }
            }
        }
        // A generated column is computed from the new row, whatever was assigned to it.
        bound.retain(|(column, _)| schema.columns[*column].generated.is_none());
        self.assign_generated(schema, &mut bound)?;
        Ok(bound)
    }

    /// `SET (a, b, ...) = (SELECT x, y, ...)`: one value per column, each a column of the
    /// subquery's single row (NULLs without a row, 21000 for several). The values share one
    /// subquery, so an uncorrelated one runs once; a correlated one runs once per value,
    /// so it must give the same row each time.
    fn bind_multiple_assignment_subquery(
        &mut self,
        query: &ast::Query,
        names: &[ObjectName],
        scope: &Scope,
    ) -> Result<Vec<ScalarExpr>> {
        let (plan, columns, correlated) = self.bind_subquery(query, scope)?;
        if columns.len() != names.len() {
            return Err(Error::syntax(
                "number of columns does not match number of values",
            ));
        }
        if correlated && columns.len() > 1 && !plan.is_deterministic() {
            return Err(Error::unsupported(
                "a multiple-column UPDATE from a correlated sub-SELECT that is volatile",
            ));
        }
        let shared = self.subquery(plan, correlated, SubqueryKind::Scalar(DataType::Unknown));
        let ScalarExpr::Subquery(shared) = shared else {
            return Err(Error::internal("a subquery bound as something else"));
        };
        let values = columns.iter().enumerate().map(|(index, column)| {
            let mut subquery = shared.clone();
            subquery.kind = SubqueryKind::Column {
                index,
                ty: column.data_type,
            };
            ScalarExpr::Subquery(subquery)
        });
        Ok(values.collect())
    }

    /// One `column = value` of a SET list, appended to `bound`.
    fn bind_assignment(
        &mut self,
        target: &WriteTarget,
        name: &ObjectName,
        value: Assigned<'_>,
        scope: &Scope,
        bound: &mut Vec<(usize, ScalarExpr)>,
        piecewise: &mut Vec<usize>,
    ) -> Result<()> {
        if let (
            [ast::ObjectNamePart::Identifier(column), ast::ObjectNamePart::Identifier(field)],
            Assigned::Sql(value),
        ) = (name.0.as_slice(), &value)
        {
            let (column, row) =
                self.field_assignment(target, (column, field), value, scope, bound, piecewise)?;
            let column_name = ObjectName(vec![ast::ObjectNamePart::Identifier(
                ast::Ident::with_quote('"', target.column_label(column)),
            )]);
            let row = Assigned::Bound(row);
            return self.bind_assignment(target, &column_name, row, scope, bound, piecewise);
        }
        let schema = &target.schema;
        let column = target
            .column(name)
            .map_err(|error| self.name_error(error, name))?;
        let attnum = i16::try_from(column + 1).unwrap_or(i16::MAX);
        self.note_attribute_use(schema.oid, attnum, AclMode::UPDATE);
        let subscripted = match &value {
            Assigned::Sql(value) => super::subscript_assignment::subscripted_assignment(value),
            Assigned::Bound(_) => None,
        };
        // What earlier subscripted assignments to this column made of it.
        let mut earlier = None;
        if let Some(position) = bound.iter().position(|(c, _)| *c == column) {
            if subscripted.is_none() || !piecewise.contains(&column) {
                return Err(Error::syntax(format!(
                    "multiple assignments to same column \"{}\"",
                    schema.columns[column].name
                )));
            }
            earlier = Some(bound.remove(position).1);
        }
        let value = if matches!(value, Assigned::Sql(value) if is_default_keyword(value)) {
            self.column_default(schema, column)?
        } else {
            let column_def = &schema.columns[column];
            let why = match (&column_def.generated, column_def.identity) {
                (Some(_), _) => Some("is a generated column"),
                (None, Some(Identity::Always)) => {
                    Some("is an identity column defined as GENERATED ALWAYS")
                }
                _ => None,
            };
            if let Some(why) = why {
                return Err(Error::new(
                    SqlState::GeneratedAlways,
                    format!(
                        "column \"{}\" can only be updated to DEFAULT",
                        column_def.name
                    ),
                )
                .with_detail(format!("Column \"{}\" {why}.", column_def.name)));
            }
            match (value, &subscripted) {
                (_, Some(assignment)) => {
                    piecewise.push(column);
                    let bound = self.bind_subscripted_assignment(assignment, earlier, scope)?;
                    self.assign(schema, column, bound)?
                }
                (Assigned::Sql(value), None) => self.located(
                    |binder| {
                        let bound = binder.bind_expr(value, scope)?;
                        binder.assign(schema, column, bound)
                    },
                    |binder, error| binder.assigned_value_position(error, value),
                )?,
                (Assigned::Bound(value), None) => self.assign(schema, column, value)?,
            }
        };
        bound.push((column, value));
        Ok(())
    }

    pub(super) fn bind_delete(&mut self, delete: &Delete) -> Result<BoundStatement> {
        let Delete {
            delete_token: _,
            optimizer_hints,
            tables,
            from,
            using,
            selection,
            returning,
            output,
            order_by,
            limit,
        } = delete;
        if !optimizer_hints.is_empty()
            || !tables.is_empty()
            || output.is_some()
            || !order_by.is_empty()
            || limit.is_some()
        {
            return Err(Error::unsupported(format!("the DELETE form {delete}")));
        }
        let [table] = (match from {
            FromTable::WithFromKeyword(tables) | FromTable::WithoutKeyword(tables) => tables,
        })
        .as_slice() else {
            return Err(Error::unsupported("DELETE from several tables"));
        };
        let reads = selection.is_some() || returning.is_some();
        let (target, scope) = self.dml_target(table, WriteKind::Delete, reads)?;
        let schema = target.schema.clone();
        let (source, scope) = self.dml_source(using.as_deref().unwrap_or_default(), scope)?;
        let filter = target.filter(self.dml_filter(selection.as_ref(), &scope)?);
        let returning = self.bind_returning(returning.as_deref(), &scope)?;
        Ok(BoundStatement::Delete {
            table_name: schema.qualified_name(),
            table_oid: schema.oid,
            source,
            filter,
            returning,
        })
    }

    /// The table an UPDATE or DELETE writes, and the scope of its columns; one that
    /// `reads` its rows (a WHERE, RETURNING, a value computed from columns) also needs
    /// SELECT on it.
    fn dml_target(
        &mut self,
        table: &ast::TableWithJoins,
        kind: WriteKind,
        reads: bool,
    ) -> Result<(WriteTarget, Scope)> {
        if !table.joins.is_empty() {
            return Err(Error::unsupported("joins in UPDATE or DELETE"));
        }
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = &table.relation
        else {
            return Err(Error::unsupported(format!("the target {}", table.relation)));
        };
        let name = self.open_relation_at(name)?;
        let target = self.write_target(&name, kind)?;
        if reads {
            self.require_read(&name)?;
        }
        let visible = alias
            .as_ref()
            .map_or_else(|| name.name.clone(), |a| ident_name(&a.name));
        let scope = target.scope(&visible);
        Ok((target, scope))
    }

    /// The FROM items of UPDATE (USING of DELETE): their plan, and the scope of the target's
    /// columns followed by theirs.
    fn dml_source(
        &mut self,
        items: &[ast::TableWithJoins],
        target: Scope,
    ) -> Result<(Option<LogicalPlan>, Scope)> {
        if items.is_empty() {
            return Ok((None, target));
        }
        self.unreachable_scopes.push(target.clone());
        let bound = self.bind_from(items);
        self.unreachable_scopes.pop();
        let (plan, source_scope) = bound?;
        super::from::check_duplicate_aliases(&target, &source_scope)?;
        let mut scope = target;
        scope.append(source_scope);
        Ok((Some(plan), scope))
    }

    /// `RETURNING items` over the target table's columns (and the FROM items').
    fn bind_returning(
        &mut self,
        items: Option<&[ast::SelectItem]>,
        scope: &Scope,
    ) -> Result<Option<Returning>> {
        let Some(items) = items else { return Ok(None) };
        self.aggregate_forbidden_in = Some("RETURNING");
        let outputs = self.bind_projection(items, scope);
        self.aggregate_forbidden_in = None;
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        for output in outputs? {
            let ty = output.expr.ty();
            let (expr, presented_from) = match ty {
                DataType::Unknown => (
                    self.coerce(output.expr, DataType::Text, CastContext::Implicit)?,
                    None,
                ),
                // Returned rows leave the engine: enum values as their labels.
                ty if ty.enum_oid().is_some() => (super::present::present(output.expr)?, Some(ty)),
                _ => (output.expr, None),
            };
            columns.push(ColumnInfo {
                name: output.name,
                data_type: expr.ty(),
                table_oid: output.table_oid,
                column_attnum: output.attnum,
                presented_from,
            });
            exprs.push(expr);
        }
        Ok(Some(Returning {
            exprs,
            columns: columns.into(),
        }))
    }

    fn dml_filter(
        &mut self,
        selection: Option<&Expr>,
        scope: &Scope,
    ) -> Result<Option<ScalarExpr>> {
        self.aggregate_forbidden_in = Some("WHERE");
        let filter = selection
            .map(|s| self.bind_condition(s, scope, "WHERE"))
            .transpose();
        self.aggregate_forbidden_in = None;
        filter
    }

    /// OVERRIDING USER VALUE: an identity column takes its default whatever is written.
    fn user_value_ignored(&self, schema: &TableSchema, column: usize) -> bool {
        self.insert_overriding == Some(Overriding::UserValue)
            && schema.columns[column].identity.is_some()
    }

    /// 428C9 for a value written into a column only DEFAULT may be written to: a generated
    /// column, or a GENERATED ALWAYS identity unless the INSERT says OVERRIDING SYSTEM VALUE.
    fn check_insertable(&self, schema: &TableSchema, column: usize) -> Result<()> {
        let def = &schema.columns[column];
        if def.generated.is_some() {
            return Err(Error::new(
                SqlState::GeneratedAlways,
                format!(
                    "cannot insert a non-DEFAULT value into column \"{}\"",
                    def.name
                ),
            )
            .with_detail(format!("Column \"{}\" is a generated column.", def.name)));
        }
        if def.identity == Some(Identity::Always)
            && self.insert_overriding != Some(Overriding::SystemValue)
        {
            return Err(Error::new(
                SqlState::GeneratedAlways,
                format!(
                    "cannot insert a non-DEFAULT value into column \"{}\"",
                    def.name
                ),
            )
            .with_detail(format!(
                "Column \"{}\" is an identity column defined as GENERATED ALWAYS.",
                def.name
            ))
            .with_hint("Use OVERRIDING SYSTEM VALUE to override."));
        }
        Ok(())
    }
}

/// Parses a stored expression (a DEFAULT, a CHECK). Its tokens lose their spans: they
/// point into the stored text, so an error binding it has no position in the statement's.
pub(super) fn parse_expr(sql: &str) -> Result<Expr> {
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::parser::Parser;
    use sqlparser::tokenizer::{Span, Tokenizer};
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql).tokenize_with_location();
    tokens
        .map_err(Into::into)
        .and_then(|mut tokens| {
            for token in &mut tokens {
                token.span = Span::empty();
            }
            Parser::new(&dialect)
                .with_tokens_with_locations(tokens)
                .parse_expr()
        })
        .map_err(|e| Error::internal(format!("stored expression {sql} does not parse: {e}")))
}

/// One item of an INSERT's column list: a column, or a part of one.
struct InsertTarget {
    column: usize,
    indirection: Option<Indirection>,
    /// Where the statement names it, for errors about it.
    position: Option<u32>,
}

/// What of a column an INSERT's target assigns: elements or slices (`column[s1]...`,
/// parsed), or one field of a composite column (`column.field`, by its position).
enum Indirection {
    Subscripts(Box<Expr>),
    Field(usize),
}

impl InsertTarget {
    fn whole(column: usize) -> InsertTarget {
        InsertTarget {
            column,
            indirection: None,
            position: None,
        }
    }
}

fn check_insert_width(values: usize, targets: usize, explicit: bool) -> Result<()> {
    if values > targets {
        return Err(Error::syntax(
            "INSERT has more expressions than target columns",
        ));
    }
    if explicit && values < targets {
        return Err(Error::syntax(
            "INSERT has more target columns than expressions",
        ));
    }
    Ok(())
}

/// The values of `SET (a, b, ...) = (x, y, ...)`, one per column (a sub-SELECT source is
/// bound by `bind_multiple_assignment_subquery`).
fn multiple_assignment_values(source: &Expr, columns: usize) -> Result<Vec<&Expr>> {
    let Some(values) = row_fields(source) else {
        if matches!(source, Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("row")) {
            return Err(Error::unsupported(format!(
                "the multiple-column UPDATE source {source}"
            )));
        }
        return Err(Error::syntax(
            "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression",
        ));
    };
    if values.len() != columns {
        return Err(Error::syntax(
            "number of columns does not match number of values",
        ));
    }
    Ok(values)
}

fn is_default_keyword(expr: &Expr) -> bool {
    matches!(expr, Expr::Identifier(ident) if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default"))
}

impl Binder<'_> {
    /// The columns an INSERT writes, by position; all columns when none are named. A column
    /// may be named again only by subscripted targets (`(a[1], a[2])`), as in PostgreSQL.
    fn target_columns(
        &self,
        target: &WriteTarget,
        columns: &[ObjectName],
    ) -> Result<Vec<InsertTarget>> {
        if columns.is_empty() {
            let all = target.all_columns().into_iter();
            return Ok(all.map(InsertTarget::whole).collect());
        }
        let mut targets: Vec<InsertTarget> = Vec::with_capacity(columns.len());
        for name in columns {
            let (column, indirection) = self.target_column(target, name)?;
            let repeated = targets
                .iter()
                .any(|t| t.column == column && (t.indirection.is_none() || indirection.is_none()));
            if repeated {
                let error = Error::new(
                    SqlState::DuplicateColumn,
                    format!(
                        "column \"{}\" specified more than once",
                        target.column_label(column)
                    ),
                );
                let position = self.name_position(name).or(self.stand_in_position(name));
                return Err(placed(error, position));
            }
            let position = self.name_position(name).or(self.stand_in_position(name));
            targets.push(InsertTarget {
                column,
                indirection,
                position,
            });
        }
        Ok(targets)
    }

    /// One item of an INSERT's column list: a column, `column.field` or `column[s1]...`.
    fn target_column(
        &self,
        target: &WriteTarget,
        name: &ObjectName,
    ) -> Result<(usize, Option<Indirection>)> {
        let placed_at_name = |binder: &Self, error: Error| {
            let position = binder
                .name_position(name)
                .or(binder.stand_in_position(name));
            let position = about_a_name(&error).then_some(position).flatten();
            placed(error, position)
        };
        if let Some(subscripted) = subscripted_target(name).transpose()? {
            let (root, _) = target_parts(&subscripted)?;
            let Expr::Identifier(root) = root else {
                return Err(Error::unsupported(format!(
                    "the INSERT target column {subscripted}"
                )));
            };
            let root = ObjectName(vec![ast::ObjectNamePart::Identifier(root.clone())]);
            let column = target
                .column(&root)
                .map_err(|error| placed_at_name(self, error))?;
            return Ok((column, Some(Indirection::Subscripts(Box::new(subscripted)))));
        }
        if let [ast::ObjectNamePart::Identifier(column), ast::ObjectNamePart::Identifier(field)] =
            name.0.as_slice()
        {
            let (column, field) = self
                .field_target(target, (column, field))
                .map_err(|error| placed(error, self.name_position(name)))?;
            return Ok((column, Some(Indirection::Field(field))));
        }
        let column = target
            .column(name)
            .map_err(|error| self.name_error(error, name))?;
        Ok((column, None))
    }

    /// Notes the columns an INSERT writes: those named, or as many of the table's as
    /// VALUES gives (PostgreSQL's implicit list is only as long as the rows).
    fn note_inserted_columns(
        &mut self,
        target: &WriteTarget,
        targets: &[InsertTarget],
        source: Option<&ast::Query>,
    ) {
        let given = match source.map(|query| query.body.as_ref()) {
            None => 0,
            Some(SetExpr::Values(values)) => values.rows.first().map_or(0, |row| row.len()),
            Some(_) => targets.len(),
        };
        for column in targets.iter().take(given).map(|t| t.column) {
            let attnum = i16::try_from(column + 1).unwrap_or(i16::MAX);
            self.note_attribute_use(target.schema.oid, attnum, AclMode::INSERT);
        }
    }
}

/// The scope of a table's columns under the name `visible`.
pub(super) fn table_scope(schema: &TableSchema, visible: &str) -> Scope {
    Scope {
        columns: schema
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| ScopeColumn {
                table: Some(visible.to_string()),
                name: c.name.clone(),
                ty: c.data_type,
                table_oid: schema.oid,
                attnum: (i + 1) as i16,
                qualified_only: false,
                null_extended: false,
                padding_witness: false,
                from_relation: true,
            })
            .collect(),
        ..Scope::default()
    }
}

/// Whether an assigned value may read the row's columns (anything but a constant or
/// DEFAULT): the write then needs SELECT too.
fn reads_columns(value: &Expr) -> bool {
    match value {
        Expr::Value(_) => false,
        Expr::Identifier(ident) => {
            !(ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default"))
        }
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => reads_columns(expr),
        Expr::Cast { expr, .. } => reads_columns(expr),
        _ => true,
    }
}
