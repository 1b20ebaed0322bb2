//! Values as a constraint violation's DETAIL prints them (`Key (k)=(blue) already exists.`,
//! `Failing row contains (1, blue).`): each as its type's output function writes it, NULL as
//! `null`, as PostgreSQL's BuildIndexValueDescription and ExecBuildSlotValueDescription do.
//! An enum value is stored as its label's sort order, so its label comes from the catalog.

use std::sync::Arc;

use super::Map;
use crate::catalog::EnumType;
use crate::types::DataType;
use crate::vector::Vector;

/// The enum types a statement sees, by OID ([`super::DbState::enum_types`]).
pub type EnumTypes = Map<u32, Arc<EnumType>>;

/// `values` (each column with its type) at `row`, comma-separated.
pub(crate) fn values_text(
    values: &[(&Vector, &DataType)],
    row: usize,
    enums: &EnumTypes,
) -> String {
    let mut out = Vec::new();
    for (i, (column, ty)) in values.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        let labels = enum_of(ty).and_then(|oid| enums.get(&oid));
        let labelled = labels.and_then(|labels| {
            let one_row = column.gather(&[u32::try_from(row).ok()?]);
            labels.label_vector(&one_row).ok()
        });
        let written = match labelled {
            Some(labelled) => labelled.write_text(0, &mut out),
            None => column.write_text(row, &mut out),
        };
        if !written {
            out.extend_from_slice(b"null");
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `(a, b)=(1, blue)`: a key's column names and values.
pub(crate) fn key_text(
    names: &[&str],
    values: &[(&Vector, &DataType)],
    row: usize,
    enums: &EnumTypes,
) -> String {
    format!(
        "({})=({})",
        names.join(", "),
        values_text(values, row, enums)
    )
}

/// The enum type of values of type `ty`, or of their elements.
fn enum_of(ty: &DataType) -> Option<u32> {
    match ty {
        DataType::Enum(oid) | DataType::Array(DataType::Enum(oid)) => Some(*oid),
        _ => None,
    }
}
