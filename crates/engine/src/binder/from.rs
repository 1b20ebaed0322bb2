//! FROM clauses: tables, derived tables (subqueries), and joins (comma, CROSS, INNER,
//! LEFT/RIGHT/FULL with ON, USING or NATURAL), each adding its columns to the scope.

use std::sync::Arc;

use sqlparser::ast::{self, JoinConstraint, JoinOperator, TableFactor, TableWithJoins};

use super::expand_array::{EXPAND_ARRAY, EXPAND_ARRAY_COLUMNS};
use super::outer_join_row::mark_witnesses;
use super::scope::{Scope, ScopeColumn};
use super::{ident_name, Binder};
use crate::catalog::system::{self, SystemRelation};
use crate::catalog::{AclMode, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::function::{JsonFunction, JsonItems, ScalarFunction, TableFunction};
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr, SequenceFunction, TableFunctionCall};
use crate::types::{DataType, ScalarValue};

/// A WITH query, bound once; every reference to it reads its plan.
pub struct BoundCte {
    pub(super) name: String,
    pub(super) plan: LogicalPlan,
    pub(super) columns: Vec<crate::plan::ColumnInfo>,
    /// A data-modifying WITH query without RETURNING: it has no rows to read.
    pub(super) without_returning: bool,
    /// A WITH query reading the row of an enclosing query: how many enclosing queries it
    /// was bound under (its outer column references count levels from there).
    pub(super) correlated_at: Option<usize>,
}

impl Binder<'_> {
    pub(super) fn bind_with(&mut self, with: &ast::With) -> Result<()> {
        // Only the statement's own WITH clause may hold data-modifying queries.
        let writes_allowed = std::mem::replace(&mut self.writes_allowed, false);
        for cte in &with.cte_tables {
            if cte.from.is_some() {
                return Err(Error::unsupported(format!("the WITH item {cte}")));
            }
            let name = ident_name(&cte.alias.name);
            if with
                .cte_tables
                .iter()
                .filter(|c| ident_name(&c.alias.name) == name)
                .count()
                > 1
            {
                return Err(Error::new(
                    SqlState::DuplicateAlias,
                    format!("WITH query name \"{name}\" specified more than once"),
                ));
            }
            if let Some(statement) = super::modifying_cte::written_statement(&cte.query.body) {
                if !writes_allowed {
                    return Err(Error::unsupported(
                        "WITH clause containing a data-modifying statement must be at the top level",
                    ));
                }
                let bound = self.bind_modifying_cte(name, cte, statement)?;
                self.ctes.push(bound);
                continue;
            }
            let saved = (self.aggregates.take(), self.aggregate_forbidden_in.take());
            // Whether the WITH query reads a row of an enclosing query: the innermost
            // enclosing scope's flag says so once it has been bound.
            let read_outside = self.outer_scopes.last_mut().map(|(_, c)| std::mem::take(c));
            let bound = match with.recursive {
                true => match self.bind_recursive_cte(&name, cte) {
                    Ok(Some(bound)) => Ok(bound),
                    Ok(None) => self.bind_query(&cte.query),
                    Err(e) => Err(e),
                },
                false => self.bind_query(&cte.query),
            };
            let correlated = match (self.outer_scopes.last_mut(), read_outside) {
                (Some((_, flag)), Some(before)) => {
                    let correlated = *flag;
                    *flag |= before;
                    correlated
                }
                _ => false,
            };
            (self.aggregates, self.aggregate_forbidden_in) = saved;
            let (plan, mut columns) = bound?;
            // One result for the statement, unless it depends on the enclosing row: then
            // each reference computes it for the row at hand.
            let plan = match correlated {
                true => plan,
                false => {
                    self.subquery_count += 1;
                    LogicalPlan::SharedCte {
                        id: self.subquery_count,
                        input: Box::new(plan),
                    }
                }
            };
            let names = alias_names(
                &name,
                &cte.alias.columns,
                columns.iter().map(|c| c.name.clone()).collect(),
            )?;
            for (column, name) in columns.iter_mut().zip(names) {
                column.name = name;
            }
            self.ctes.push(BoundCte {
                name,
                plan,
                columns,
                without_returning: false,
                correlated_at: correlated.then_some(self.outer_scopes.len()),
            });
        }
        Ok(())
    }

    pub(super) fn bind_from(&mut self, from: &[TableWithJoins]) -> Result<(LogicalPlan, Scope)> {
        self.bind_from_where(from, None)
    }

    /// FROM, with `where_before_last` (a WHERE) filtering the rows of the items before the
    /// last one joins: the select list's set-returning calls, moved to the end of FROM
    /// (`select_srf.rs`), then run only on the rows WHERE keeps, as in PostgreSQL.
    pub(super) fn bind_from_where(
        &mut self,
        from: &[TableWithJoins],
        where_before_last: Option<&ast::Expr>,
    ) -> Result<(LogicalPlan, Scope)> {
        // Nothing is left of a FROM clause's first item, whatever encloses the query: the
        // items left of the enclosing one are out of its reach.
        let unreachable = self.unreachable_scopes.len();
        let enclosing = (
            self.lateral_scope.take(),
            std::mem::take(&mut self.lateral_outer),
        );
        let further_left = enclosing.1.iter().map(|(scope, _)| scope.clone());
        self.unreachable_scopes.extend(further_left);
        self.unreachable_scopes.extend(enclosing.0.clone());
        let bound = self.bind_from_items(from, where_before_last);
        (self.lateral_scope, self.lateral_outer) = enclosing;
        self.unreachable_scopes.truncate(unreachable);
        bound
    }

    fn bind_from_items(
        &mut self,
        from: &[TableWithJoins],
        where_before_last: Option<&ast::Expr>,
    ) -> Result<(LogicalPlan, Scope)> {
        let mut items = from.iter();
        let Some(first) = items.next() else {
            return Ok((
                LogicalPlan::Values {
                    rows: Arc::new(vec![Vec::new()]),
                    types: Vec::new(),
                },
                Scope::default(),
            ));
        };
        let (mut plan, mut scope) = self.bind_table_with_joins(first)?;
        // `FROM a, b` is a cross join.
        let count = from.len();
        for (position, item) in items.enumerate() {
            if let (Some(condition), true) = (where_before_last, position + 2 == count) {
                let outside = self.aggregate_forbidden_in.replace("WHERE");
                let predicate = self.bind_condition(condition, &scope, "WHERE");
                self.aggregate_forbidden_in = outside;
                plan = LogicalPlan::Filter {
                    input: Box::new(plan),
                    predicate: predicate?,
                };
            }
            self.lateral_scope = Some(scope.clone());
            let bound = self.bind_table_with_joins(item);
            self.lateral_scope = None;
            let (right, right_scope) = bound?;
            check_duplicate_aliases(&scope, &right_scope)?;
            plan = match std::mem::take(&mut self.lateral_correlated) {
                true => lateral_join(plan, right, JoinKind::Inner, None),
                false => join(plan, right, JoinKind::Inner, None),
            };
            scope.append(right_scope);
        }
        Ok((plan, scope))
    }

    /// A FROM item and its joins; `lateral_scope` holds the items left of it, which its
    /// LATERAL items may read (`lateral_correlated` then says one did).
    fn bind_table_with_joins(&mut self, item: &TableWithJoins) -> Result<(LogicalPlan, Scope)> {
        let left = self.lateral_scope.clone();
        let (plan, scope) = self.bind_table_factor(&item.relation)?;
        self.lateral_scope = None;
        let mut reads_left = std::mem::take(&mut self.lateral_correlated);
        if item.joins.is_empty() {
            self.lateral_correlated = reads_left;
            return Ok((plan, scope));
        }
        // The joins' LATERAL items may read the items left of this one too.
        if let Some(left) = &left {
            self.lateral_outer.push((left.clone(), false));
        }
        let bound = self.bind_joins(plan, scope, &item.joins);
        if left.is_some() {
            reads_left |= self.lateral_outer.pop().is_some_and(|(_, read)| read);
        }
        self.lateral_correlated = reads_left;
        bound
    }

    fn bind_joins(
        &mut self,
        mut plan: LogicalPlan,
        mut scope: Scope,
        joins: &[ast::Join],
    ) -> Result<(LogicalPlan, Scope)> {
        for join_clause in joins {
            if join_clause.global {
                return Err(Error::unsupported("GLOBAL joins"));
            }
            self.lateral_scope = Some(scope.clone());
            let bound = self.bind_table_factor(&join_clause.relation);
            self.lateral_scope = None;
            let (right, right_scope) = bound?;
            check_duplicate_aliases(&scope, &right_scope)?;
            let lateral = std::mem::take(&mut self.lateral_correlated);
            let (kind, constraint) = match &join_clause.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinKind::Inner, c),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinKind::Left, c),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinKind::Right, c),
                JoinOperator::FullOuter(c) => (JoinKind::Full, c),
                JoinOperator::CrossJoin(JoinConstraint::None) => {
                    (JoinKind::Inner, &JoinConstraint::None)
                }
                other => return Err(Error::unsupported(format!("the join {other:?}"))),
            };
            let mut right_scope = right_scope;
            let (left_padded, right_padded) = match kind {
                JoinKind::Left => (false, true),
                JoinKind::Right => (true, false),
                JoinKind::Full => (true, true),
                _ => (false, false),
            };
            for (columns, padded) in [
                (&mut scope.columns, left_padded),
                (&mut right_scope.columns, right_padded),
            ] {
                for column in columns.iter_mut().filter(|_| padded) {
                    column.null_extended = true;
                }
            }
            if lateral {
                (plan, scope) =
                    self.bind_lateral_join(plan, scope, right, right_scope, kind, constraint)?;
                continue;
            }
            (plan, scope) = self.bind_join(plan, scope, right, right_scope, kind, constraint)?;
        }
        Ok((plan, scope))
    }

    /// `left [LEFT] JOIN LATERAL (...) ON ...`: only INNER and LEFT, as in PostgreSQL.
    fn bind_lateral_join(
        &mut self,
        left: LogicalPlan,
        left_scope: Scope,
        right: LogicalPlan,
        right_scope: Scope,
        kind: JoinKind,
        constraint: &JoinConstraint,
    ) -> Result<(LogicalPlan, Scope)> {
        if !matches!(kind, JoinKind::Inner | JoinKind::Left) {
            return Err(Error::new(
                SqlState::InvalidColumnReference,
                "invalid reference to FROM-clause entry for table",
            )
            .with_detail(
                "The combining JOIN type must be INNER or LEFT for a LATERAL reference.",
            ));
        }
        let left_width = left_scope.columns.len();
        let mut scope = left_scope;
        scope.append(right_scope);
        let condition = match constraint {
            JoinConstraint::On(expr) => {
                self.aggregate_forbidden_in = Some("JOIN conditions");
                let condition = self.bind_condition(expr, &scope, "JOIN/ON");
                self.aggregate_forbidden_in = None;
                let condition = condition?;
                mark_witnesses(&mut scope, left_width, kind, &condition);
                Some(condition)
            }
            JoinConstraint::None => None,
            JoinConstraint::Using(_) | JoinConstraint::Natural => {
                return Err(Error::unsupported("USING or NATURAL with LATERAL"))
            }
        };
        Ok((lateral_join(left, right, kind, condition), scope))
    }

    fn bind_join(
        &mut self,
        left: LogicalPlan,
        left_scope: Scope,
        right: LogicalPlan,
        right_scope: Scope,
        kind: JoinKind,
        constraint: &JoinConstraint,
    ) -> Result<(LogicalPlan, Scope)> {
        let left_width = left_scope.columns.len();
        let mut scope = left_scope;
        scope.append(right_scope);
        let (using, alias): (Vec<String>, _) = match constraint {
            JoinConstraint::On(expr) => {
                self.aggregate_forbidden_in = Some("JOIN conditions");
                let condition = self.bind_condition(expr, &scope, "JOIN/ON");
                self.aggregate_forbidden_in = None;
                let condition = condition?;
                mark_witnesses(&mut scope, left_width, kind, &condition);
                return Ok((join(left, right, kind, Some(condition)), scope));
            }
            JoinConstraint::None => {
                if kind != JoinKind::Inner {
                    return Err(Error::syntax(
                        "syntax error: an outer join needs a join condition",
                    ));
                }
                return Ok((join(left, right, kind, None), scope));
            }
            JoinConstraint::Using(names) => {
                let (names, alias) = crate::parser::split_join_alias(names);
                let names = (names.iter())
                    .map(super::names::single_identifier)
                    .collect::<Result<_>>()?;
                (names, alias.map(ident_name))
            }
            JoinConstraint::Natural => {
                let left_names: Vec<&str> = scope.columns[..left_width]
                    .iter()
                    .filter(|c| !c.qualified_only)
                    .map(|c| c.name.as_str())
                    .collect();
                let names = scope.columns[left_width..]
                    .iter()
                    .filter(|c| !c.qualified_only && left_names.contains(&c.name.as_str()))
                    .map(|c| c.name.clone())
                    .collect();
                (names, None)
            }
        };
        if let Some(alias) = &alias {
            // The alias names a FROM item of the join's level, as the tables do.
            if scope
                .columns
                .iter()
                .any(|c| c.table.as_ref() == Some(alias))
            {
                return Err(Error::new(
                    SqlState::DuplicateAlias,
                    format!("table name \"{alias}\" specified more than once"),
                ));
            }
        }
        let using = UsingColumns {
            names: &using,
            alias,
        };
        self.bind_using_join(left, right, scope, left_width, kind, using)
    }

    /// USING / NATURAL: equality on the named columns, which then appear once (first, in
    /// USING order), merged as PostgreSQL does (COALESCE for FULL joins); a USING alias
    /// names the merged columns only.
    fn bind_using_join(
        &mut self,
        left: LogicalPlan,
        right: LogicalPlan,
        mut scope: Scope,
        left_width: usize,
        kind: JoinKind,
        using: UsingColumns<'_>,
    ) -> Result<(LogicalPlan, Scope)> {
        let UsingColumns {
            names: using,
            alias,
        } = using;
        let find = |range: std::ops::Range<usize>, name: &str, side: &str| -> Result<usize> {
            let matches: Vec<usize> = range
                .filter(|&i| !scope.columns[i].qualified_only && scope.columns[i].name == name)
                .collect();
            match matches.as_slice() {
                [one] => Ok(*one),
                [] => Err(Error::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{name}\" specified in USING clause does not exist in {side} table"),
                )),
                _ => Err(Error::new(
                    SqlState::AmbiguousColumn,
                    format!("common column name \"{name}\" appears more than once in {side} table"),
                )),
            }
        };
        let width = scope.columns.len();
        let mut pairs = Vec::with_capacity(using.len());
        let mut condition: Option<ScalarExpr> = None;
        for name in using {
            let l = find(0..left_width, name, "left")?;
            let r = find(left_width..width, name, "right")?;
            // The join reads both sides' columns, as PostgreSQL marks them.
            self.note_column_use(&scope.columns[l], AclMode::SELECT);
            self.note_column_use(&scope.columns[r], AclMode::SELECT);
            let left_col = ScalarExpr::Column {
                index: l,
                ty: scope.columns[l].ty,
            };
            let right_col = ScalarExpr::Column {
                index: r,
                ty: scope.columns[r].ty,
            };
            let equal = self.compare(
                crate::plan::CompareOp::Eq,
                left_col.clone(),
                right_col.clone(),
            )?;
            condition = Some(match condition {
                None => equal,
                Some(c) => ScalarExpr::And(Box::new(c), Box::new(equal)),
            });
            pairs.push((l, r, left_col, right_col));
        }
        if let Some(condition) = &condition {
            mark_witnesses(&mut scope, left_width, kind, condition);
        }
        let plan = join(left, right, kind, condition);
        // Project: merged columns, the other columns, then both sides' USING columns for
        // qualified references only.
        let mut exprs = Vec::with_capacity(width + pairs.len());
        let mut columns = Vec::with_capacity(width + pairs.len());
        for (l, _, left_col, right_col) in &pairs {
            let merged = match kind {
                JoinKind::Inner | JoinKind::Left => left_col.clone(),
                JoinKind::Right => right_col.clone(),
                JoinKind::Full => {
                    let (a, b, ty) = self.coerce_pair(left_col.clone(), right_col.clone(), "=")?;
                    ScalarExpr::Coalesce {
                        args: vec![a, b],
                        ty,
                    }
                }
            };
            columns.push(ScopeColumn {
                table: alias.clone(),
                ty: merged.ty(),
                table_oid: 0,
                attnum: 0,
                qualified_only: false,
                null_extended: false,
                padding_witness: false,
                from_relation: false,
                name: scope.columns[*l].name.clone(),
            });
            exprs.push(merged);
        }
        let in_using = |i: usize| pairs.iter().any(|(l, r, _, _)| *l == i || *r == i);
        for (index, column) in scope.columns.iter().enumerate() {
            if !in_using(index) {
                exprs.push(ScalarExpr::Column {
                    index,
                    ty: column.ty,
                });
                columns.push(column.clone());
            }
        }
        for (index, column) in scope.columns.iter().enumerate() {
            if in_using(index) {
                exprs.push(ScalarExpr::Column {
                    index,
                    ty: column.ty,
                });
                columns.push(ScopeColumn {
                    qualified_only: true,
                    ..column.clone()
                });
            }
        }
        let Scope {
            hidden,
            mut join_using_aliases,
            ..
        } = scope;
        join_using_aliases.extend(alias);
        Ok((
            LogicalPlan::Project {
                input: Box::new(plan),
                exprs,
            },
            Scope {
                columns,
                hidden,
                join_using_aliases,
            },
        ))
    }

    fn bind_table_factor(&mut self, factor: &TableFactor) -> Result<(LogicalPlan, Scope)> {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args,
                with_hints,
                version,
                with_ordinality,
                partitions,
                json_path,
                sample,
                index_hints,
            } => {
                if let Some(args) = args {
                    if !with_hints.is_empty()
                        || version.is_some()
                        || !partitions.is_empty()
                        || json_path.is_some()
                        || sample.is_some()
                        || !index_hints.is_empty()
                    {
                        return Err(Error::unsupported(format!("the FROM item {factor}")));
                    }
                    if args.settings.is_some() {
                        return Err(Error::unsupported("table function settings"));
                    }
                    if let Some(bound) = self.bind_sql_function_in_from(
                        name,
                        &args.args,
                        alias.as_ref(),
                        *with_ordinality,
                    )? {
                        return Ok(bound);
                    }
                    let function_name = self.function_name(name)?;
                    if super::file_function::is_file_function(&function_name) {
                        if *with_ordinality {
                            return Err(Error::unsupported("WITH ORDINALITY on a file"));
                        }
                        return self.bind_file_function(&function_name, &args.args, alias.as_ref());
                    }
                    let call = FunctionInFrom {
                        name: function_name,
                        args: function_arg_exprs(&args.args)?,
                        alias: alias.as_ref(),
                        ordinality: *with_ordinality,
                    };
                    return self.bind_table_function(call);
                }
                if !with_hints.is_empty()
                    || version.is_some()
                    || *with_ordinality
                    || !partitions.is_empty()
                    || json_path.is_some()
                    || sample.is_some()
                    || !index_hints.is_empty()
                {
                    return Err(Error::unsupported(format!("the FROM item {factor}")));
                }
                self.bind_table(name, alias.as_ref())
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                if sample.is_some() {
                    return Err(Error::unsupported(format!("the FROM item {factor}")));
                }
                let Some(alias) = alias else {
                    return Err(Error::syntax("subquery in FROM must have an alias")
                        .with_hint("For example, FROM (SELECT ...) [AS] foo."));
                };
                let saved = (self.aggregates.take(), self.aggregate_forbidden_in.take());
                let lateral = match lateral {
                    true => Some(self.enter_lateral()),
                    false => None,
                };
                let bound = self.bind_query(subquery);
                if let Some(lateral) = lateral {
                    self.leave_lateral(lateral);
                }
                (self.aggregates, self.aggregate_forbidden_in) = saved;
                let (plan, columns) = bound?;
                let visible = ident_name(&alias.name);
                let scope = output_scope(&visible, &alias.columns, &columns)?;
                Ok((plan, scope))
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (plan, scope) = self.bind_table_with_joins(table_with_joins)?;
                let Some(alias) = alias else {
                    return Ok((plan, scope));
                };
                let visible = ident_name(&alias.name);
                let names = scope.join_column_names();
                let names = renamed_columns("join expression", &visible, &alias.columns, names)?;
                Ok((plan, scope.under_join_alias(&visible, names)))
            }
            // PostgreSQL treats every function in FROM as LATERAL, written or not.
            TableFactor::Function {
                lateral: _,
                name,
                args,
                with_ordinality,
                alias,
            } => {
                if let Some(bound) =
                    self.bind_sql_function_in_from(name, args, alias.as_ref(), *with_ordinality)?
                {
                    return Ok(bound);
                }
                let function_name = self.function_name(name)?;
                if super::file_function::is_file_function(&function_name) && !*with_ordinality {
                    return self.bind_file_function(&function_name, args, alias.as_ref());
                }
                self.bind_table_function(FunctionInFrom {
                    name: function_name,
                    args: function_arg_exprs(args)?,
                    alias: alias.as_ref(),
                    ordinality: *with_ordinality,
                })
            }
            TableFactor::UNNEST {
                alias,
                array_exprs,
                with_offset: false,
                with_offset_alias: None,
                with_ordinality,
            } => {
                if array_exprs.len() != 1 {
                    return Err(Error::unsupported("unnest of several arrays"));
                }
                self.bind_table_function(FunctionInFrom {
                    name: "unnest".to_string(),
                    args: array_exprs.iter().collect(),
                    alias: alias.as_ref(),
                    ordinality: *with_ordinality,
                })
            }
            other => Err(Error::unsupported(format!("the FROM item {other}"))),
        }
    }

    fn bind_table(
        &mut self,
        name: &ast::ObjectName,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        if let [ast::ObjectNamePart::Identifier(ident)] = name.0.as_slice() {
            let cte_name = ident_name(ident);
            if let Some(cte) = self.ctes.iter().rev().find(|c| c.name == cte_name) {
                if cte
                    .correlated_at
                    .is_some_and(|level| level != self.outer_scopes.len())
                {
                    // Its outer references would have to count the levels in between.
                    return Err(Error::unsupported(format!(
                        "WITH query \"{cte_name}\" reading an enclosing query's columns, \
                         referenced from a subquery"
                    )));
                }
                if cte.without_returning {
                    return Err(Error::unsupported(format!(
                        "WITH query \"{cte_name}\" does not have a RETURNING clause"
                    )));
                }
                if let LogicalPlan::WorkTable { id, .. } = &cte.plan {
                    let in_subquery = (self.recursive_terms.iter())
                        .any(|(term, depth)| term == id && self.sublink_depth > *depth);
                    if in_subquery {
                        let error = Error::new(
                            SqlState::InvalidRecursion,
                            format!(
                                "recursive reference to query \"{cte_name}\" must not appear \
                                 within a subquery"
                            ),
                        );
                        return Err(self.at_name(error, name));
                    }
                    self.work_tables_read.push(*id);
                }
                let visible = alias.map_or_else(|| cte_name.clone(), |a| ident_name(&a.name));
                let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
                let scope = output_scope(&visible, column_aliases, &cte.columns)?;
                return Ok((cte.plan.clone(), scope));
            }
        }
        if let Some(relation) = system_relation(name)? {
            // pg_authid holds the password verifiers; pg_roles is what others read.
            if relation.name == "pg_authid" && !self.session_is_superuser() {
                return Err(Error::new(
                    SqlState::InsufficientPrivilege,
                    "permission denied for table pg_authid",
                ));
            }
            return bind_system_relation(relation, alias);
        }
        let name = self.open_relation_at(name)?;
        if let Some(view) = self.state.views.get(&name) {
            return self.bind_view(view, alias);
        }
        if let Some(sequence) = self.state.sequences.get(&name) {
            self.require_sequence(&name, sequence.oid, AclMode::SELECT, false)?;
            return bind_sequence_relation(&name, sequence.oid, alias);
        }
        let entry = self.table(&name)?;
        self.require_relation_or_columns(&name, entry.schema.oid, AclMode::SELECT)?;
        if !self.unpopulated_readable {
            super::materialized_view::check_populated(&entry.schema)?;
        }
        self.referenced.push(name.clone());
        let schema = &entry.schema;
        let visible = alias.map_or_else(|| name.name.clone(), |a| ident_name(&a.name));
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let names = alias_names(
            &visible,
            column_aliases,
            schema.columns.iter().map(|c| c.name.clone()).collect(),
        )?;
        let scope = Scope {
            columns: schema
                .columns
                .iter()
                .zip(names)
                .enumerate()
                .map(|(i, (c, name))| ScopeColumn {
                    table: Some(visible.clone()),
                    name,
                    ty: c.data_type,
                    table_oid: schema.oid,
                    attnum: (i + 1) as i16,
                    qualified_only: false,
                    null_extended: false,
                    padding_witness: c.not_null,
                    from_relation: true,
                })
                .collect(),
            ..Scope::default()
        };
        if let Some(foreign) = &schema.foreign {
            return self.bind_foreign_table_scan(schema, foreign, scope);
        }
        Ok((self.table_scan(schema), scope))
    }
}

/// The system relation `name` refers to, if any: `pg_catalog.x`, or `x` found first in
/// pg_catalog, which is implicitly first in every search path.
fn system_relation(name: &ast::ObjectName) -> Result<Option<&'static SystemRelation>> {
    let parts: Vec<&ast::Ident> = name
        .0
        .iter()
        .filter_map(|part| match part {
            ast::ObjectNamePart::Identifier(ident) => Some(ident),
            ast::ObjectNamePart::Function(_) => None,
        })
        .collect();
    match parts.as_slice() {
        [relation] => Ok(system::lookup(None, &ident_name(relation))),
        [schema, relation] => {
            let (schema, relation) = (ident_name(schema), ident_name(relation));
            match system::lookup(Some(&schema), &relation) {
                Some(found) => Ok(Some(found)),
                None if system::is_system_schema(&schema) => Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{schema}.{relation}\" does not exist"),
                )),
                None => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

/// A system relation in FROM: a scan whose rows are computed when it runs.
fn bind_system_relation(
    relation: &'static SystemRelation,
    alias: Option<&ast::TableAlias>,
) -> Result<(LogicalPlan, Scope)> {
    let visible = alias.map_or_else(|| relation.name.to_string(), |a| ident_name(&a.name));
    let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
    let names = alias_names(
        &visible,
        column_aliases,
        relation
            .columns
            .iter()
            .map(|(n, _)| n.to_string())
            .collect(),
    )?;
    let types = relation.columns.iter().map(|(_, ty)| *ty);
    let scope = Scope::of_relation(&visible, relation.oid, names.into_iter().zip(types));
    let plan = LogicalPlan::SystemScan {
        relation,
        types: relation.types(),
    };
    Ok((plan, scope))
}

/// A sequence in FROM: its one row (last_value, log_cnt, is_called), read when the
/// statement runs, as pg_dump does to dump the counter.
fn bind_sequence_relation(
    name: &QualifiedName,
    oid: u32,
    alias: Option<&ast::TableAlias>,
) -> Result<(LogicalPlan, Scope)> {
    const COLUMNS: [(&str, SequenceFunction); 3] = [
        ("last_value", SequenceFunction::ReadLastValue),
        ("log_cnt", SequenceFunction::ReadLogCount),
        ("is_called", SequenceFunction::ReadIsCalled),
    ];
    let visible = alias.map_or_else(|| name.name.clone(), |a| ident_name(&a.name));
    let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
    let names = alias_names(
        &visible,
        column_aliases,
        COLUMNS.iter().map(|(n, _)| n.to_string()).collect(),
    )?;
    let types: Vec<DataType> = COLUMNS.iter().map(|(_, f)| f.result_type()).collect();
    let row = COLUMNS
        .iter()
        .map(|&(_, func)| ScalarExpr::SequenceCall {
            func,
            sequence: Some(name.clone()),
            args: Vec::new(),
        })
        .collect();
    let scope = Scope::of_relation(&visible, oid, names.into_iter().zip(types.iter().copied()));
    let plan = LogicalPlan::Values {
        rows: Arc::new(vec![row]),
        types,
    };
    Ok((plan, scope))
}

impl Binder<'_> {
    /// `FROM generate_series(1, 10) [WITH ORDINALITY] [AS] g(x [, n])`, or the select
    /// list's set-returning calls run in lockstep (`select_srf.rs`). As in PostgreSQL, a
    /// function in FROM may read the columns of the FROM items left of it (it is
    /// implicitly LATERAL).
    fn bind_table_function(&mut self, call: FunctionInFrom<'_>) -> Result<(LogicalPlan, Scope)> {
        let FunctionInFrom {
            name: function_name,
            args,
            alias,
            ordinality,
        } = call;
        // The select list's set-returning calls, moved here to run in lockstep.
        let in_select_list = function_name == super::select_srf::LOCKSTEP;
        let sql_srfs = match in_select_list {
            true => self.set_returning_sql_functions(),
            false => Vec::new(),
        };
        let mut calls = if in_select_list {
            args.iter()
                .map(|arg| super::select_srf::call_parts(arg, &sql_srfs))
                .collect::<Result<Vec<_>>>()?
        } else {
            vec![(function_name.clone(), args)]
        };
        if let Some(bound) = self.bind_sql_srf_in_select_list(&calls, alias, &sql_srfs)? {
            return Ok(bound);
        }
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let definitions = if in_select_list {
            &[][..]
        } else {
            column_aliases
        };
        let lateral = self.enter_lateral();
        let record_columns = match &mut calls[..] {
            [(name, args)] if !in_select_list => self.json_record_columns(name, args, definitions),
            _ => Ok(Vec::new()),
        };
        let options_table = function_name == OPTIONS_TO_TABLE;
        let bound = record_columns.and_then(|record_columns| {
            let bound = match options_table {
                true => self.bind_options_to_table(&calls[0].1).map(|c| vec![c]),
                false => calls
                    .iter()
                    .map(|(name, args)| {
                        self.bind_function_call(name, args, definitions, &record_columns)
                    })
                    .collect::<Result<Vec<_>>>(),
            };
            bound.map(|bound| (bound, record_columns))
        });
        self.leave_lateral(lateral);
        let (bound, record_columns) = bound?;
        if in_select_list && bound.iter().any(|columns| columns.len() > 1) {
            return self.select_list_records(&calls, bound, alias);
        }
        let visible = alias.map_or_else(|| function_name.clone(), |a| ident_name(&a.name));
        // A column is named after its function, or after the alias of a single function,
        // unless it has a name of its own (json_each's key and value).
        let mut default_names = Vec::new();
        for (name, _) in &calls {
            match JsonItems::columns(name) {
                Some(columns) => {
                    default_names.extend(columns.into_iter().map(|(items, own)| {
                        match (alias, items.has_own_name()) {
                            (Some(_), false) if calls.len() == 1 => visible.clone(),
                            _ => own.to_string(),
                        }
                    }))
                }
                None if JsonItems::record_field(name).is_some() => {
                    default_names.extend(record_columns.iter().map(|(name, _)| name.clone()))
                }
                None if options_table => default_names.extend(OPTION_COLUMNS.map(String::from)),
                // Its OUT parameter's name, which PostgreSQL prefers to an alias.
                None if name == PARTITION_ANCESTORS => default_names.push("relid".to_string()),
                None if name == EXPAND_ARRAY => {
                    default_names.extend(EXPAND_ARRAY_COLUMNS.map(String::from))
                }
                None if alias.is_some() && calls.len() == 1 => default_names.push(visible.clone()),
                None => default_names.push(name.clone()),
            }
        }
        let bound: Vec<TableFunctionCall> = bound.into_iter().flatten().collect();
        let mut types: Vec<DataType> = bound.iter().map(|c| c.ty).collect();
        if ordinality {
            default_names.push("ordinality".to_string());
            types.push(DataType::Int64);
        }
        let mut plan = LogicalPlan::TableFunction {
            calls: bound,
            ordinality,
        };
        if !record_columns.is_empty() {
            // json_to_record's fields arrive as text (or json) and take the declared types
            // as a cast from text would.
            let exprs = types
                .iter()
                .enumerate()
                .map(|(index, &ty)| {
                    let column = ScalarExpr::Column { index, ty };
                    match record_columns.get(index) {
                        Some(&(_, to)) => {
                            self.coerce(column, to, crate::function::cast::CastContext::Explicit)
                        }
                        None => Ok(column),
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            types = exprs.iter().map(ScalarExpr::ty).collect();
            plan = LogicalPlan::Project {
                input: Box::new(plan),
                exprs,
            };
        }
        let names = alias_names(&visible, column_aliases, default_names)?;
        let scope = Scope::of_computed(&visible, names.into_iter().zip(types));
        Ok((plan, scope))
    }

    /// The select list's set-returning calls when one has several columns (json_each,
    /// _pg_expandarray): as in PostgreSQL, each such call is one record column whose
    /// fields are its columns.
    fn select_list_records(
        &mut self,
        calls: &[(String, Vec<&ast::Expr>)],
        bound: Vec<Vec<TableFunctionCall>>,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let mut exprs = Vec::with_capacity(calls.len());
        let mut index = 0;
        for ((name, _), columns) in calls.iter().zip(&bound) {
            let mut fields = Vec::with_capacity(columns.len());
            for (i, column) in columns.iter().enumerate() {
                let field = match JsonItems::columns(name) {
                    Some(names) => names.get(i).map(|(_, own)| own.to_string()),
                    None if name == EXPAND_ARRAY => {
                        EXPAND_ARRAY_COLUMNS.get(i).map(|n| n.to_string())
                    }
                    None => None,
                };
                let field = field.unwrap_or_else(|| crate::types::record::anonymous_field_name(i));
                fields.push((
                    field,
                    ScalarExpr::Column {
                        index,
                        ty: column.ty,
                    },
                ));
                index += 1;
            }
            // A call that runs out before the others is padded with NULL fields, where
            // PostgreSQL's record is NULL itself: a field the function never leaves NULL
            // tells the padding apart.
            let never_null = match JsonItems::columns(name) {
                Some(columns) => columns.iter().position(|(items, _)| items.keys),
                None if name == EXPAND_ARRAY => Some(1),
                None => None,
            };
            let marker = never_null
                .and_then(|i| fields.get(i))
                .map(|(_, f)| f.clone());
            exprs.push(match <[_; 1]>::try_from(fields) {
                Ok([(_, single)]) => single,
                Err(_) if calls.len() > 1 && marker.is_none() => return Err(Error::unsupported(
                    "a set-returning function of several columns beside another in a select list",
                )),
                Err(fields) => {
                    let record = super::record::row_of(fields)?;
                    match marker.filter(|_| calls.len() > 1) {
                        Some(marker) => {
                            let ty = record.ty();
                            ScalarExpr::Case {
                                whens: vec![(
                                    ScalarExpr::IsNull {
                                        input: Box::new(marker),
                                        negated: false,
                                    },
                                    ScalarExpr::null(ty),
                                )],
                                else_result: Some(Box::new(record)),
                                ty,
                            }
                        }
                        None => record,
                    }
                }
            });
        }
        let types: Vec<DataType> = exprs.iter().map(ScalarExpr::ty).collect();
        let plan = LogicalPlan::Project {
            input: Box::new(LogicalPlan::TableFunction {
                calls: bound.into_iter().flatten().collect(),
                ordinality: false,
            }),
            exprs,
        };
        let visible = alias.map_or_else(String::new, |a| ident_name(&a.name));
        let column_aliases = alias.map_or(&[][..], |a| a.columns.as_slice());
        let names = alias_names(
            &visible,
            column_aliases,
            calls.iter().map(|(n, _)| n.clone()).collect(),
        )?;
        Ok((
            plan,
            Scope::of_computed(&visible, names.into_iter().zip(types)),
        ))
    }

    /// `pg_options_to_table(options)`: the `name=value` items of a reloptions-style array
    /// as the columns option_name and option_value, two unnests run in lockstep.
    fn bind_options_to_table(&mut self, args: &[&ast::Expr]) -> Result<Vec<TableFunctionCall>> {
        let [options] = args else {
            return Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {OPTIONS_TO_TABLE} does not exist"),
            ));
        };
        let options = self.bind_expr(options, &Scope::default())?;
        let text_array = DataType::array_of(DataType::Text)
            .ok_or_else(|| Error::internal("text[] is an array type"))?;
        let options = self.coerce(
            options,
            text_array,
            crate::function::cast::CastContext::Implicit,
        )?;
        Ok([false, true]
            .into_iter()
            .map(|value| TableFunctionCall {
                func: TableFunction::Unnest,
                args: vec![ScalarExpr::Function {
                    func: ScalarFunction::Array {
                        func: crate::function::ArrayFunction::OptionParts { value },
                        result: text_array,
                    },
                    args: vec![options.clone()],
                    ty: text_array,
                }],
                ty: DataType::Text,
            })
            .collect())
    }

    /// One set-returning call: its function, and its arguments bound (they see no column
    /// of this FROM item's own query, only a lateral left side) and coerced. A json
    /// function gives one unnest per output column, run in lockstep.
    fn bind_function_call(
        &mut self,
        function_name: &str,
        args: &[&ast::Expr],
        definitions: &[ast::TableAliasColumnDef],
        record_columns: &[(String, DataType)],
    ) -> Result<Vec<TableFunctionCall>> {
        if JsonItems::record_field(function_name).is_some() {
            return self.bind_json_record(function_name, args, record_columns);
        }
        if function_name == EXPAND_ARRAY {
            let empty = Scope::default();
            let bound = args
                .iter()
                .map(|e| self.bind_expr(e, &empty))
                .collect::<Result<Vec<_>>>()?;
            return self.bind_expand_array(bound);
        }
        if definitions.iter().any(|d| d.data_type.is_some()) {
            return Err(Error::new(
                SqlState::SyntaxError,
                "a column definition list is only allowed for functions returning \"record\"",
            ));
        }
        let json_columns = JsonItems::columns(function_name);
        let by_name = match json_columns {
            Some(_) => Some(TableFunction::Unnest),
            None => TableFunction::by_name(function_name),
        };
        let Some(func) = by_name else {
            return Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {function_name} does not exist"),
            ));
        };
        let empty = Scope::default();
        let mut bound = args
            .iter()
            .map(|e| self.bind_expr(e, &empty))
            .collect::<Result<Vec<_>>>()?;
        let parameters = json_columns
            .as_ref()
            .and_then(|columns| columns.first())
            .map(|(items, _)| items.parameters());
        if let (Some(columns), Some((types, required))) = (json_columns, parameters) {
            let castable = bound.iter().zip(&types).all(|(arg, &ty)| {
                crate::function::cast::can_cast(
                    arg.ty(),
                    ty,
                    crate::function::cast::CastContext::Implicit,
                )
            });
            if !castable || !(required..=types.len()).contains(&bound.len()) {
                let bound_types: Vec<_> = bound.iter().map(|a| a.ty()).collect();
                return Err(self.undefined_function(function_name, &bound_types));
            }
            let args = bound
                .into_iter()
                .zip(types)
                .map(|(arg, ty)| self.coerce(arg, ty, crate::function::cast::CastContext::Implicit))
                .collect::<Result<Vec<_>>>()?;
            return columns
                .into_iter()
                .map(|(items, _)| {
                    let items = JsonFunction::Items(items);
                    let array = ScalarExpr::Function {
                        func: ScalarFunction::Json(items),
                        args: args.clone(),
                        ty: items.result(),
                    };
                    self.unnest_call(func, function_name, vec![array])
                })
                .collect();
        }
        if func == TableFunction::Unnest {
            bound = bound
                .into_iter()
                .map(|arg| self.vector_as_array(arg))
                .collect::<Result<_>>()?;
        }
        if function_name == "generate_subscripts" {
            bound = self.subscript_bounds(bound)?;
        }
        if function_name == "string_to_table" {
            let types: Vec<DataType> = bound.iter().map(ScalarExpr::ty).collect();
            let array = self
                .bind_array_function("string_to_array", bound)
                .unwrap_or_else(|| Err(self.undefined_function(function_name, &types)))?;
            bound = vec![array];
        }
        if function_name == PARTITION_ANCESTORS {
            // psql's \d asks.
            let [relation] = bound.as_slice() else {
                return Err(Error::new(
                    SqlState::UndefinedFunction,
                    "function pg_partition_ancestors does not exist",
                ));
            };
            let regclass = DataType::Oid(crate::types::OidKind::RegClass);
            let relation = self.coerce(
                relation.clone(),
                regclass,
                crate::function::cast::CastContext::Implicit,
            )?;
            let ty = DataType::array_of(DataType::Oid(crate::types::OidKind::Oid))
                .ok_or_else(|| Error::internal("oid[] is an array type"))?;
            bound = vec![ScalarExpr::CatalogCall {
                func: crate::catalog::system::CatalogFunction::PartitionAncestors,
                args: vec![relation],
                ty,
            }];
        }
        let mut call = self.unnest_call(func, function_name, bound)?;
        if function_name == PARTITION_ANCESTORS {
            // Unnested from an oid[] (there is no regclass[]): the same values.
            call.ty = DataType::Oid(crate::types::OidKind::RegClass);
        }
        Ok(vec![call])
    }

    /// generate_subscripts(array, dim)'s series: from array_lower(array, dim) to
    /// array_upper(array, dim), none for a NULL or empty array.
    fn subscript_bounds(&mut self, args: Vec<ScalarExpr>) -> Result<Vec<ScalarExpr>> {
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let undefined = || super::expr::undefined_function("generate_subscripts", &types);
        if args.len() != 2 {
            return Err(undefined());
        }
        ["array_lower", "array_upper"]
            .into_iter()
            .map(|bound| {
                self.bind_array_function(bound, args.clone())
                    .unwrap_or_else(|| Err(undefined()))
            })
            .collect()
    }

    /// `json[b]_to_record(set)(document) AS x(name type, ...)`: per defined column, the
    /// unnest of the named field's values (as text, or json for a json or jsonb column).
    fn bind_json_record(
        &mut self,
        function_name: &str,
        args: &[&ast::Expr],
        columns: &[(String, DataType)],
    ) -> Result<Vec<TableFunctionCall>> {
        let [document] = args else {
            return Err(Error::new(
                SqlState::UndefinedFunction,
                format!("function {function_name} does not exist"),
            ));
        };
        let document = self.bind_expr(document, &Scope::default())?;
        columns
            .iter()
            .map(|(name, declared)| {
                let items = JsonItems::record_field(function_name)
                    .ok_or_else(|| Error::internal("a json record function"))?
                    .reading(*declared);
                let document = self.coerce(
                    document.clone(),
                    items.argument(),
                    crate::function::cast::CastContext::Implicit,
                )?;
                let field = ScalarExpr::literal(ScalarValue::Text(name.clone()), DataType::Text);
                let func = JsonFunction::Items(items);
                let array = ScalarExpr::Function {
                    func: ScalarFunction::Json(func),
                    args: vec![document, field],
                    ty: func.result(),
                };
                self.unnest_call(TableFunction::Unnest, function_name, vec![array])
            })
            .collect()
    }

    /// The columns of a json record function in FROM, each with its type: those of the
    /// column definition list of json[b]_to_record(set), or of the row type of the base of
    /// json[b]_populate_record(set)(base, document), which becomes the same call of
    /// json[b]_to_record(set) on the document (the base must be NULL: its fields would
    /// fill in the keys the document lacks). None for any other function.
    fn json_record_columns(
        &mut self,
        name: &mut String,
        args: &mut Vec<&ast::Expr>,
        definitions: &[ast::TableAliasColumnDef],
    ) -> Result<Vec<(String, DataType)>> {
        if let Some(to_record) = super::populate_record::populate_to_record(name) {
            let [base, document] = args.as_slice() else {
                return Err(Error::new(
                    SqlState::UndefinedFunction,
                    format!("function {name} does not exist"),
                ));
            };
            if definitions.iter().any(|d| d.data_type.is_some()) {
                return Err(Error::new(
                    SqlState::SyntaxError,
                    "a column definition list is only allowed for functions returning \"record\"",
                ));
            }
            let base = self.bind_expr(base, &Scope::default())?;
            let record = super::populate_record::populated_row_type(name, &base)?;
            *args = vec![*document];
            *name = to_record.to_string();
            return Ok(record
                .fields
                .iter()
                .map(|field| (field.name.clone(), field.ty))
                .collect());
        }
        if JsonItems::record_field(name).is_none() {
            return Ok(Vec::new());
        }
        if definitions.is_empty() || definitions.iter().any(|d| d.data_type.is_none()) {
            return Err(Error::new(
                SqlState::SyntaxError,
                "a column definition list is required for functions returning \"record\"",
            ));
        }
        definitions
            .iter()
            .map(|definition| {
                let declared = match &definition.data_type {
                    Some(ty) => super::data_type::bind_data_type(ty)?,
                    None => DataType::Text,
                };
                Ok((ident_name(&definition.name), declared))
            })
            .collect()
    }

    /// A table function call with its arguments coerced to its signature.
    pub(super) fn unnest_call(
        &mut self,
        func: TableFunction,
        function_name: &str,
        bound: Vec<ScalarExpr>,
    ) -> Result<TableFunctionCall> {
        let types: Vec<_> = bound.iter().map(|a| a.ty()).collect();
        let Some(ty) = func.signature(&types) else {
            return Err(self.undefined_function(function_name, &types));
        };
        let args = bound
            .into_iter()
            .enumerate()
            .map(|(i, a)| {
                let to = func.argument_type(ty, i);
                self.coerce(a, to, crate::function::cast::CastContext::Implicit)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TableFunctionCall { func, args, ty })
    }
}

const OPTIONS_TO_TABLE: &str = "pg_options_to_table";
const PARTITION_ANCESTORS: &str = "pg_partition_ancestors";
const OPTION_COLUMNS: [&str; 2] = ["option_name", "option_value"];

/// A function call in FROM, whichever syntax sqlparser gave it.
struct FunctionInFrom<'a> {
    name: String,
    args: Vec<&'a ast::Expr>,
    alias: Option<&'a ast::TableAlias>,
    ordinality: bool,
}

/// The positional arguments of a call; named ones are not supported.
/// The columns a USING clause names, and the alias it gives them.
struct UsingColumns<'a> {
    names: &'a [String],
    alias: Option<String>,
}

fn function_arg_exprs(args: &[ast::FunctionArg]) -> Result<Vec<&ast::Expr>> {
    args.iter()
        .map(|arg| match arg {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(expr)) => Ok(expr),
            other => Err(Error::unsupported(format!("the argument {other}"))),
        })
        .collect()
}

fn lateral_join(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
) -> LogicalPlan {
    LogicalPlan::LateralJoin {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        condition,
    }
}

fn join(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
) -> LogicalPlan {
    LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        condition,
    }
}

/// The scope of a derived table or CTE named `visible`: its output columns, renamed by any
/// column aliases.
fn output_scope(
    visible: &str,
    aliases: &[ast::TableAliasColumnDef],
    columns: &[crate::plan::ColumnInfo],
) -> Result<Scope> {
    let names = alias_names(
        visible,
        aliases,
        columns.iter().map(|c| c.name.clone()).collect(),
    )?;
    Ok(Scope {
        columns: columns
            .iter()
            .zip(names)
            .map(|(c, name)| ScopeColumn {
                table: Some(visible.to_string()),
                name,
                ty: c.data_type,
                table_oid: c.table_oid,
                attnum: c.column_attnum,
                qualified_only: false,
                null_extended: false,
                padding_witness: false,
                from_relation: false,
            })
            .collect(),
        ..Scope::default()
    })
}

/// Column names after `alias(a, b)`: the aliases first, the original names for the rest.
pub(super) fn alias_names(
    visible: &str,
    aliases: &[ast::TableAliasColumnDef],
    names: Vec<String>,
) -> Result<Vec<String>> {
    renamed_columns("table", visible, aliases, names)
}

/// [`alias_names`] for the item PostgreSQL's errors call `what` ("table", "join
/// expression").
fn renamed_columns(
    what: &str,
    visible: &str,
    aliases: &[ast::TableAliasColumnDef],
    mut names: Vec<String>,
) -> Result<Vec<String>> {
    if aliases.len() > names.len() {
        return Err(Error::new(
            SqlState::InvalidColumnReference,
            format!(
                "{what} \"{visible}\" has {} columns available but {} columns specified",
                names.len(),
                aliases.len()
            ),
        ));
    }
    for (name, alias) in names.iter_mut().zip(aliases) {
        *name = ident_name(&alias.name);
    }
    Ok(names)
}

/// PostgreSQL rejects the same table name twice at one level of FROM.
pub(super) fn check_duplicate_aliases(left: &Scope, right: &Scope) -> Result<()> {
    for column in &right.columns {
        if let Some(table) = &column.table {
            if left.columns.iter().any(|c| c.table.as_ref() == Some(table)) {
                return Err(Error::new(
                    SqlState::DuplicateAlias,
                    format!("table name \"{table}\" specified more than once"),
                ));
            }
        }
    }
    Ok(())
}
