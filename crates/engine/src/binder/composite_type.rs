//! CREATE TYPE ... AS (field type, ...): the fields of a composite type, bound as a table's
//! columns are. What a field cannot be here is 0A000: a domain (its checks would have to
//! run on every cast to the type), an array, a table's row type and a COLLATE clause.

use sqlparser::ast::{self, Expr, Ident, ObjectName, UserDefinedTypeCompositeAttributeDef};

use super::scope::Scope;
use super::updatable_view::WriteTarget;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::{BoundStatement, ScalarExpr, TypeChange};
use crate::types::DataType;

impl Binder<'_> {
    pub(super) fn bind_create_composite(
        &mut self,
        name: &ObjectName,
        attributes: &[UserDefinedTypeCompositeAttributeDef],
    ) -> Result<BoundStatement> {
        let mut fields = Vec::with_capacity(attributes.len());
        for attribute in attributes {
            let UserDefinedTypeCompositeAttributeDef {
                name: field_name,
                data_type,
                collation,
            } = attribute;
            if collation.is_some() {
                return Err(Error::unsupported("COLLATE on a composite type's field"));
            }
            if self.domain_of(data_type).is_some() {
                return Err(Error::unsupported("a composite type's field of a domain"));
            }
            let field_name = ident_name(field_name);
            if super::record::is_record_type_name(data_type) {
                return Err(Error::new(
                    SqlState::InvalidTableDefinition,
                    format!("column \"{field_name}\" has pseudo-type record"),
                ));
            }
            if fields.iter().any(|(known, _)| *known == field_name) {
                return Err(Error::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{field_name}\" specified more than once"),
                ));
            }
            let ty = self.bind_type(data_type)?;
            // A record's fields are stored as an array's elements are, which are no arrays.
            if ty.element().is_some() {
                return Err(Error::unsupported(
                    "a composite type's field of an array type",
                ));
            }
            // A table's row type as a field is not supported, as it is not as a column.
            super::record::refuse_record_column(self.state, &field_name, ty)?;
            fields.push((field_name, ty));
        }
        Ok(BoundStatement::ChangeType(TypeChange::CreateComposite {
            name: self.creation_name(name)?,
            fields,
        }))
    }
}

impl Binder<'_> {
    /// The column and field `column.field` names as the target of an UPDATE's SET or an
    /// INSERT's column list, with PostgreSQL's errors when the column is not composite or
    /// has no such field.
    pub(super) fn field_target(
        &self,
        target: &WriteTarget,
        (column, field): (&Ident, &Ident),
    ) -> Result<(usize, usize)> {
        let written = ObjectName(vec![ast::ObjectNamePart::Identifier(column.clone())]);
        let index = target.column(&written)?;
        let (column_name, field_name) = (ident_name(column), ident_name(field));
        let ty = target.schema.columns[index].data_type;
        let DataType::Record(record) = ty else {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "cannot assign to field \"{field_name}\" of column \"{column_name}\" because its type {} is not a composite type",
                    self.type_display(ty)
                ),
            ));
        };
        let Some((replaced, _)) = record.field(&field_name) else {
            return Err(Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "cannot assign to field \"{field_name}\" of column \"{column_name}\" because there is no such column in data type {}",
                    self.type_display(ty)
                ),
            ));
        };
        Ok((index, replaced))
    }

    /// UPDATE's `SET column.field = value`: the column's new value is its row with that
    /// field replaced (a NULL row gets the field and NULLs, as in PostgreSQL). Several
    /// fields of one column may be set: a row an earlier `column.field` built for the
    /// column (`piecewise` lists the columns assigned by field or subscript) is taken out of
    /// `bound` and is the one changed here. Gives the column and the new row.
    pub(super) fn field_assignment(
        &mut self,
        target: &WriteTarget,
        (column, field): (&Ident, &Ident),
        value: &Expr,
        scope: &Scope,
        bound: &mut Vec<(usize, ScalarExpr)>,
        piecewise: &mut Vec<usize>,
    ) -> Result<(usize, ScalarExpr)> {
        let (index, replaced) = self.field_target(target, (column, field))?;
        // The fields an earlier `column.field` built for the column; a whole value assigned
        // to it before is a second assignment to it.
        let mut earlier = None;
        if let Some(position) = bound.iter().position(|(c, _)| *c == index) {
            if !piecewise.contains(&index) {
                return Err(Error::syntax(format!(
                    "multiple assignments to same column \"{}\"",
                    ident_name(column)
                )));
            }
            earlier = Some(bound.remove(position).1);
        }
        piecewise.push(index);
        let ty = target.schema.columns[index].data_type;
        let value = self.bind_expr(value, scope)?;
        let row = self.row_with_field(ty, (replaced, value), earlier, |binder, name, _| {
            let current = Expr::CompoundFieldAccess {
                root: Box::new(Expr::Nested(Box::new(Expr::Identifier(column.clone())))),
                access_chain: vec![ast::AccessExpr::Dot(Expr::Identifier(Ident::with_quote(
                    '"', name,
                )))],
            };
            binder.bind_expr(&current, scope)
        })?;
        Ok((index, row))
    }

    /// The row of composite type `ty` with field `replaced` set to `value` (assignment-cast
    /// to it): its other fields are those of `earlier`, a row an earlier assignment to
    /// another field built, or else what `current` gives for the field's name and type.
    pub(super) fn row_with_field(
        &mut self,
        ty: DataType,
        (replaced, value): (usize, ScalarExpr),
        earlier: Option<ScalarExpr>,
        mut current: impl FnMut(&mut Self, &str, DataType) -> Result<ScalarExpr>,
    ) -> Result<ScalarExpr> {
        let DataType::Record(record) = ty else {
            return Err(Error::internal(
                "a field assignment to a non-composite column",
            ));
        };
        let mut earlier = match earlier {
            Some(ScalarExpr::Function { args, .. }) => Some(args),
            _ => None,
        };
        let mut value = Some(value);
        let mut fields = Vec::with_capacity(record.fields.len());
        for (i, f) in record.fields.iter().enumerate() {
            let expr = match value.take_if(|_| i == replaced) {
                Some(value) => self.coerce(value, f.ty, CastContext::Assignment)?,
                None => match earlier.as_mut().and_then(|e| e.get_mut(i)) {
                    Some(earlier) => std::mem::replace(earlier, ScalarExpr::null(f.ty)),
                    None => current(self, f.name.as_str(), f.ty)?,
                },
            };
            fields.push((f.name.clone(), expr));
        }
        super::record::typed_row_of(fields, record.type_oid)
    }
}
