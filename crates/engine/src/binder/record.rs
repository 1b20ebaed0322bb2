//! Composite values as expressions: a row constructor used as a value (`SELECT ROW(1,
//! 'a')`, `SELECT (a, b) FROM t`), a whole-row reference (`SELECT t FROM t`), field
//! selection (`(expr).field`), its expansion (`(expr).*` in a select list) and
//! PostgreSQL's null test of a row (`IS NULL` when every field is NULL, `IS NOT NULL` when
//! none is). Comparisons of two row constructors are expanded field by field in `row.rs`;
//! a record value compared with another is record_cmp's comparison, in
//! `function/compare.rs`.

use sqlparser::ast::{self, AccessExpr, Expr, ObjectName, ObjectNamePart};

use super::coerce::same_fields;
use super::scope::{Scope, ScopeColumn};
use super::{ident_name, Binder};
use crate::catalog::{
    composite_type_of, quote_identifier, row_type_named, row_type_oid, row_type_relation, AclMode,
    QualifiedName, RowTypeRelation,
};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::function::{RecordFunction, ScalarFunction};
use crate::plan::ScalarExpr;
use crate::storage::DbState;
use crate::types::record::{anonymous_field_name, RecordField, RecordType, RECORD_OID};
use crate::types::DataType;

/// The anonymous record of `fields`, named as given.
pub(super) fn row_of(fields: Vec<(String, ScalarExpr)>) -> Result<ScalarExpr> {
    typed_row_of(fields, RECORD_OID)
}

/// The record of `fields`, named as given, of pg_type's `type_oid`.
pub(super) fn typed_row_of(fields: Vec<(String, ScalarExpr)>, type_oid: u32) -> Result<ScalarExpr> {
    let (names, args): (Vec<String>, Vec<ScalarExpr>) = fields.into_iter().unzip();
    let record = RecordType::intern_row_type(
        names
            .into_iter()
            .zip(&args)
            .map(|(name, arg)| RecordField { name, ty: arg.ty() })
            .collect(),
        type_oid,
    )?;
    Ok(ScalarExpr::Function {
        func: ScalarFunction::Record(RecordFunction::Row(record)),
        args,
        ty: DataType::Record(record),
    })
}

/// Field `index` of the record `input`.
pub(super) fn field_of(input: ScalarExpr, index: usize, ty: DataType) -> ScalarExpr {
    ScalarExpr::Function {
        func: ScalarFunction::Record(RecordFunction::Field(index)),
        args: vec![input],
        ty,
    }
}

/// Every field of the record `input`, named: a row constructor's own arguments (so the
/// fields of a whole-row reference stay its columns), else a selection of each field.
pub(super) fn fields_of(input: &ScalarExpr) -> Option<Vec<(String, ScalarExpr)>> {
    let DataType::Record(record) = input.ty() else {
        return None;
    };
    if let ScalarExpr::Function {
        func: ScalarFunction::Record(RecordFunction::Row(_)),
        args,
        ..
    } = input
    {
        let names = record.fields.iter().map(|f| f.name.clone());
        return Some(names.zip(args.iter().cloned()).collect());
    }
    Some(
        record
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), field_of(input.clone(), i, f.ty)))
            .collect(),
    )
}

impl Binder<'_> {
    /// `ROW(a, b)` or `(a, b)` as a value: an anonymous record of fields f1, f2, ...
    /// Untyped literals are text, as PostgreSQL resolves them.
    pub(super) fn bind_row_value(&mut self, fields: &[&Expr], scope: &Scope) -> Result<ScalarExpr> {
        let mut bound = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let value = self.bind_expr(field, scope)?;
            let value = match value.ty() {
                DataType::Unknown => self.coerce(value, DataType::Text, CastContext::Implicit)?,
                _ => value,
            };
            bound.push((anonymous_field_name(i), value));
        }
        row_of(bound)
    }

    /// `t` naming a FROM item rather than a column: the record of its columns.
    pub(super) fn whole_row(&self, scope: &Scope, name: &str) -> Option<Result<ScalarExpr>> {
        let columns = row_columns(scope, name);
        let padded = match super::outer_join_row::padded_test(&columns) {
            Ok(padded) => padded,
            Err(e) => return Some(Err(e)),
        };
        let type_oid = self.row_type_of(&columns);
        let fields: Vec<(String, ScalarExpr)> = columns
            .into_iter()
            .map(|(index, c)| (c.name.clone(), ScalarExpr::Column { index, ty: c.ty }))
            .collect();
        (!fields.is_empty()).then(|| {
            typed_row_of(fields, type_oid)
                .map(|row| super::outer_join_row::null_where_padded(row, padded))
        })
    }

    /// `t` or `t.*` as a value: the row of the FROM item `t` of this query or, failing
    /// that, of the nearest enclosing query that has one (then the subqueries between read
    /// outside themselves). `None` when no level has such an item.
    pub(super) fn whole_row_reference(
        &mut self,
        scope: &Scope,
        name: &str,
    ) -> Option<Result<ScalarExpr>> {
        let levels = self.outer_scopes.len();
        let (depth, row, reads) = (0..=levels).find_map(|depth| {
            let level_scope = match depth {
                0 => scope,
                _ => &self.outer_scopes[levels - depth].0,
            };
            let row = self.whole_row(level_scope, name)?;
            let reads: Vec<(u32, i16)> = level_scope
                .columns
                .iter()
                .filter(|c| c.table.as_deref() == Some(name))
                .map(|c| (c.table_oid, c.attnum))
                .collect();
            Some((depth, row, reads))
        })?;
        for (oid, attnum) in reads {
            self.note_attribute_use(oid, attnum, AclMode::SELECT);
        }
        if depth == 0 {
            return Some(row);
        }
        for (_, correlated) in &mut self.outer_scopes[levels - depth..] {
            *correlated = true;
        }
        Some(row.map(|row| super::sql_function::shift_outward(row, depth)))
    }

    /// `function` with its `t.*` arguments made values, as PostgreSQL reads them there: in
    /// `ROW(...)` t's columns one by one, elsewhere t's whole row. `None` when it has none.
    pub(super) fn with_whole_row_arguments(
        &self,
        function: &ast::Function,
        scope: &Scope,
    ) -> Option<ast::Function> {
        let ast::FunctionArguments::List(list) = &function.args else {
            return None;
        };
        let star = |arg: &ast::FunctionArg| match arg {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::QualifiedWildcard(name)) => {
                Some(name.clone())
            }
            _ => None,
        };
        if !list.args.iter().any(|arg| star(arg).is_some()) {
            return None;
        }
        let is_row = matches!(
            function.name.0.as_slice(),
            [ObjectNamePart::Identifier(ident)] if ident.value.eq_ignore_ascii_case("row")
                && ident.quote_style.is_none()
        );
        let mut args = Vec::with_capacity(list.args.len());
        for arg in &list.args {
            let Some(name) = star(arg) else {
                args.push(arg.clone());
                continue;
            };
            let expr = |e: Expr| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e));
            let columns = match (is_row, name.0.as_slice()) {
                (true, [ObjectNamePart::Identifier(table)]) => {
                    self.column_names_of_from_item(scope, &ident_name(table))
                }
                _ => None,
            };
            match columns {
                Some(columns) => args.extend(columns.into_iter().map(|column| {
                    let table = match name.0.first() {
                        Some(ObjectNamePart::Identifier(table)) => table.clone(),
                        _ => ast::Ident::new(""),
                    };
                    expr(Expr::CompoundIdentifier(vec![
                        table,
                        ast::Ident::with_quote('"', column),
                    ]))
                })),
                None => args.push(expr(Expr::QualifiedWildcard(
                    name,
                    ast::helpers::attached_token::AttachedToken::empty(),
                ))),
            }
        }
        let mut function = function.clone();
        if let ast::FunctionArguments::List(list) = &mut function.args {
            list.args = args;
        }
        Some(function)
    }

    /// The column names of the FROM item `name` of this query or the nearest enclosing one
    /// that has it, in its row's order.
    fn column_names_of_from_item(&self, scope: &Scope, name: &str) -> Option<Vec<String>> {
        let levels = self.outer_scopes.len();
        (0..=levels).find_map(|depth| {
            let level_scope = match depth {
                0 => scope,
                _ => &self.outer_scopes[levels - depth].0,
            };
            let columns = row_columns(level_scope, name);
            (!columns.is_empty())
                .then(|| columns.into_iter().map(|(_, c)| c.name.clone()).collect())
        })
    }

    /// The row type of the FROM item of `columns`: that of the table or view whose every
    /// column they are, in order, else the anonymous record.
    fn row_type_of(&self, columns: &[(usize, &ScopeColumn)]) -> u32 {
        let Some((_, first)) = columns.first() else {
            return RECORD_OID;
        };
        let relation_oid = first.table_oid;
        let Some(relation) = row_type_relation(self.state, row_type_oid(relation_oid)) else {
            return RECORD_OID;
        };
        let whole = relation.columns.len() == columns.len()
            && columns.iter().zip(1..).all(|((_, c), attnum)| {
                c.from_relation && c.table_oid == relation_oid && c.attnum == attnum
            });
        match whole {
            true => row_type_oid(relation_oid),
            false => RECORD_OID,
        }
    }

    /// `(expr).field` (also chained, `((expr).a).b`); `None` when the chain is not made of
    /// field names, or `root` is a plain name (`t.col` parses the same way and is a column).
    pub(super) fn bind_field_selection(
        &mut self,
        root: &Expr,
        access_chain: &[AccessExpr],
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        if is_row_expansion(access_chain) {
            return Some(Err(Error::unsupported(
                "row expansion via \"*\" is not supported here",
            )));
        }
        if matches!(root, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
            return None;
        }
        let names = access_chain
            .iter()
            .map(|access| match access {
                AccessExpr::Dot(Expr::Identifier(ident)) => Some(super::ident_name(ident)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(self.bind_expr(root, scope).and_then(|mut value| {
            for name in names {
                value = select_field(value, &name)?;
            }
            Ok(value)
        }))
    }

    /// `(expr).*` in a select list (`access_chain` ends in the `*`): each field of the
    /// record, named after it.
    pub(super) fn bind_row_expansion(
        &mut self,
        root: &Expr,
        access_chain: &[AccessExpr],
        scope: &Scope,
    ) -> Result<Vec<(String, ScalarExpr)>> {
        let record = match access_chain.split_last() {
            Some((_, [])) | None => self.bind_expr(root, scope)?,
            Some((_, fields)) => self
                .bind_field_selection(root, fields, scope)
                .unwrap_or_else(|| Err(Error::syntax("syntax error at or near \"*\"")))?,
        };
        fields_of(&record).ok_or_else(|| {
            Error::new(
                SqlState::WrongObjectType,
                format!("type {} is not composite", record.ty()),
            )
        })
    }

    /// `inner::record`: a record stays what it is; NULL is a record of no known fields; a
    /// string is PostgreSQL's 0A000 (record_in needs the fields' types); anything else
    /// cannot be cast.
    pub(super) fn cast_to_record(&mut self, inner: &Expr, scope: &Scope) -> Result<ScalarExpr> {
        let value = self.bind_expr(inner, scope)?;
        match value.ty() {
            DataType::Record(_) => Ok(value),
            DataType::Unknown if matches!(value, ScalarExpr::Literal { ref value, .. } if value.is_null()) => {
                Ok(ScalarExpr::null(DataType::Record(RecordType::intern(
                    Vec::new(),
                )?)))
            }
            DataType::Unknown => Err(Error::new(
                SqlState::FeatureNotSupported,
                "input of anonymous composite types is not implemented",
            )),
            other => Err(Error::new(
                SqlState::CannotCoerce,
                format!("cannot cast type {} to record", self.type_display(other)),
            )),
        }
    }

    /// The row type of the table or view `name`, if there is one of that name.
    pub(super) fn row_type(&self, name: &ObjectName) -> Option<Result<DataType>> {
        let qualified = self
            .type_named(name, |state, q| row_type_named(state, q).is_some())
            .ok()?;
        let relation = row_type_named(self.state, &qualified)?;
        Some(relation_row_type(&relation).map(DataType::Record))
    }

    /// `expr` as a value of `record`: a record of the same field types as it is (a row
    /// constructor takes the type's name and field names), a row constructor field by
    /// field, as PostgreSQL casts them.
    pub(super) fn coerce_record(
        &mut self,
        expr: ScalarExpr,
        record: &'static RecordType,
        context: CastContext,
    ) -> Result<ScalarExpr> {
        let from = expr.ty();
        let args = match expr {
            ScalarExpr::Function {
                func: ScalarFunction::Record(RecordFunction::Row(_)),
                args,
                ..
            } => args,
            _ if matches!(from, DataType::Record(x) if same_fields(x, record)) => return Ok(expr),
            _ => return Err(self.cannot_cast(from, DataType::Record(record), context)),
        };
        if args.len() != record.fields.len() {
            let detail = match args.len() < record.fields.len() {
                true => "Input has too few columns.",
                false => "Input has too many columns.",
            };
            return Err(self
                .cannot_cast(from, DataType::Record(record), context)
                .with_detail(detail));
        }
        let fields = (record.fields.iter().zip(args))
            .map(|(field, arg)| Ok((field.name.clone(), self.coerce(arg, field.ty, context)?)))
            .collect::<Result<Vec<_>>>()?;
        typed_row_of(fields, record.type_oid)
    }

    /// A row type's name as format_type writes it: qualified by its schema unless the
    /// search path finds it by its name. `None` for an anonymous record.
    pub(super) fn row_type_display(&self, record: &RecordType) -> Option<String> {
        let relation = row_type_relation(self.state, record.type_oid)?;
        let QualifiedName { schema, name } = &relation.name;
        let found = (self.searched.iter())
            .map(|&searched| QualifiedName::new(searched, name.as_str()))
            .find(|q| row_type_named(self.state, q).is_some());
        let quoted = quote_identifier(name);
        Some(match found {
            Some(q) if q.schema == *schema => quoted,
            _ => {
                let schema = self.state.schemas.get(schema)?;
                format!("{}.{quoted}", quote_identifier(&schema.name))
            }
        })
    }

    /// `expr IS [NOT] NULL`: for a record, whether every field is (not) NULL.
    pub(super) fn null_test(&self, input: ScalarExpr, negated: bool) -> ScalarExpr {
        // `ROW()` has no field that could be (not) NULL: both tests hold, as in PostgreSQL.
        if matches!(fields_of(&input), Some(fields) if fields.is_empty())
            && matches!(
                input,
                ScalarExpr::Function {
                    func: ScalarFunction::Record(RecordFunction::Row(_)),
                    ..
                }
            )
        {
            return ScalarExpr::literal(crate::types::ScalarValue::Bool(true), DataType::Bool);
        }
        let per_field = fields_of(&input)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, field)| ScalarExpr::IsNull {
                input: Box::new(field),
                negated,
            })
            .reduce(|acc, next| ScalarExpr::And(Box::new(acc), Box::new(next)));
        per_field.unwrap_or_else(|| ScalarExpr::IsNull {
            input: Box::new(input),
            negated,
        })
    }
}

/// The row type of the table or view `relation`.
fn relation_row_type(relation: &RowTypeRelation) -> Result<&'static RecordType> {
    let fields = (relation.columns.iter())
        .map(|&(name, ty)| RecordField {
            name: name.to_string(),
            ty,
        })
        .collect();
    RecordType::intern_row_type(fields, row_type_oid(relation.oid))
}

/// A table or view column cannot be an anonymous record, in PostgreSQL either (its rows
/// would have no type to be read back as); one of a composite type (CREATE TYPE ... AS) can
/// be, whose DROP checks its columns; one of a table's or view's row type is not supported
/// here (dropping the table would not check its columns).
pub(super) fn refuse_record_column(state: &DbState, name: &str, ty: DataType) -> Result<()> {
    match ty {
        // Stored values of a record hold their fields as an array holds its elements: one
        // level deep.
        DataType::Record(record)
            if composite_type_of(state, record.type_oid).is_some()
                && (record.fields.iter()).any(|f| matches!(f.ty, DataType::Record(_))) =>
        {
            Err(Error::unsupported(format!(
                "column \"{name}\" of a composite type with a composite field"
            )))
        }
        DataType::Record(record) if composite_type_of(state, record.type_oid).is_some() => Ok(()),
        DataType::Record(record) if record.type_oid != RECORD_OID => Err(Error::unsupported(
            format!("column \"{name}\" of a table's or view's row type"),
        )),
        DataType::Record(_) => Err(Error::new(
            SqlState::InvalidTableDefinition,
            format!("column \"{name}\" has pseudo-type record"),
        )),
        _ => Ok(()),
    }
}

/// Whether a field access ends in `.*`: the record's fields expanded, `(t).*`.
pub(super) fn is_row_expansion(access_chain: &[AccessExpr]) -> bool {
    matches!(
        access_chain.last(),
        Some(AccessExpr::Dot(Expr::Wildcard(_)))
    )
}

/// Field `name` of `value`, with PostgreSQL's errors for a missing field or a value that
/// is no record.
fn select_field(value: ScalarExpr, name: &str) -> Result<ScalarExpr> {
    let DataType::Record(record) = value.ty() else {
        return Err(Error::new(
            SqlState::WrongObjectType,
            format!(
                "column notation .{name} applied to type {}, which is not a composite type",
                value.ty()
            ),
        ));
    };
    let Some((index, field)) = record.field(name) else {
        return Err(Error::new(
            SqlState::UndefinedColumn,
            format!("could not identify column \"{name}\" in record data type"),
        ));
    };
    Ok(field_of(value, index, field.ty))
}

/// Whether `ty` names the pseudo-type record (`record` or `pg_catalog.record`).
pub(super) fn is_record_type_name(ty: &ast::DataType) -> bool {
    let ast::DataType::Custom(name, modifiers) = ty else {
        return false;
    };
    let names: Option<Vec<String>> = (name.0.iter())
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some(ident_name(ident)),
            _ => None,
        })
        .collect();
    let record = match names.as_deref() {
        Some([one]) => one == "record",
        Some([schema, one]) => schema == "pg_catalog" && one == "record",
        _ => false,
    };
    record && modifiers.is_empty()
}

/// The columns of the FROM item `name` in `scope`, with their positions, in its row's order.
fn row_columns<'s>(scope: &'s Scope, name: &str) -> Vec<(usize, &'s ScopeColumn)> {
    let mut columns: Vec<(usize, &ScopeColumn)> = scope
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.table.as_deref() == Some(name))
        .collect();
    // A join USING moves its columns last: a relation's row keeps its column order.
    if columns.iter().all(|(_, c)| c.from_relation) {
        columns.sort_by_key(|(_, c)| c.attnum);
    }
    columns
}
