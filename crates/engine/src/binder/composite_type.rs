//! CREATE TYPE ... AS (field type, ...): the fields of a composite type, bound as a table's
//! columns are. What a field cannot be here is 0A000: a domain (its checks would have to
//! run on every cast to the type), an array, a table's row type and a COLLATE clause.

use sqlparser::ast::{ObjectName, UserDefinedTypeCompositeAttributeDef};

use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::plan::{BoundStatement, TypeChange};

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
