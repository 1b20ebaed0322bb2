//! The key and options of CREATE INDEX ... USING hnsw (pgvector's syntax): one `vector(n)`
//! column with its operator class, and WITH (m, ef_construction), with pgvector's checks
//! and messages.

use sqlparser::ast::{self, BinaryOperator, Expr};

use super::ident_name;
use super::storage_parameters::{integer_option, invalid};
use crate::catalog::{HnswOptions, TableSchema, VectorOpClass};
use crate::error::{Error, Result, SqlState};
use crate::types::DataType;

/// The indexed column and the index's options.
pub(super) fn bind_hnsw_key(
    schema: &TableSchema,
    columns: &[ast::IndexColumn],
    with: &[Expr],
) -> Result<(usize, HnswOptions)> {
    let [ast::IndexColumn {
        column,
        operator_class,
    }] = columns
    else {
        return Err(Error::unsupported("hnsw indexes over more than one column"));
    };
    let ast::OrderByExpr {
        expr,
        options,
        with_fill,
    } = column;
    // ASC/DESC and NULLS FIRST/LAST mean nothing to a graph; PostgreSQL refuses them for an
    // access method that cannot order, and so do we, more plainly.
    if with_fill.is_some() || options.sort.is_some() || options.nulls_first.is_some() {
        return Err(Error::unsupported(format!("the hnsw index key {column}")));
    }
    let Expr::Identifier(ident) = expr else {
        return Err(Error::unsupported("expression indexes"));
    };
    let name = ident_name(ident);
    let position = schema.column_index(&name).ok_or_else(|| {
        Error::new(
            SqlState::UndefinedColumn,
            format!("column \"{name}\" does not exist"),
        )
    })?;
    let data_type = schema.columns[position].data_type;
    let Some(operator_class) = operator_class else {
        return Err(Error::new(
            SqlState::UndefinedObject,
            format!(
                "data type {} has no default operator class for access method \"hnsw\"",
                data_type.name()
            ),
        )
        .with_hint(
            "You must specify an operator class for the index or define a default operator \
             class for the data type.",
        ));
    };
    let class_name = operator_class.to_string();
    let opclass = VectorOpClass::from_name(&class_name).ok_or_else(|| {
        Error::new(
            SqlState::UndefinedObject,
            format!("operator class \"{class_name}\" does not exist for access method \"hnsw\""),
        )
    })?;
    let dims = match data_type {
        DataType::FloatVector(dims) => dims,
        other => {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "operator class \"{class_name}\" does not accept data type {}",
                    other.name()
                ),
            ))
        }
    };
    let options = bind_options(opclass, with)?;
    match dims {
        None => Err(invalid("column does not have dimensions".into())),
        Some(n) if n as usize > HnswOptions::DIMS_MAX => Err(Error::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "column cannot have more than {} dimensions for hnsw index",
                HnswOptions::DIMS_MAX
            ),
        )),
        Some(_) => Ok((position, options)),
    }
}

/// WITH (m = .., ef_construction = ..): pgvector's reloptions.
fn bind_options(opclass: VectorOpClass, with: &[Expr]) -> Result<HnswOptions> {
    let mut options = HnswOptions {
        opclass,
        m: None,
        ef_construction: None,
    };
    let range = |(low, high): (u16, u16)| (i64::from(low), i64::from(high));
    for option in with {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = option
        else {
            return Err(Error::unsupported(format!("the index option {option}")));
        };
        let Expr::Identifier(key) = left.as_ref() else {
            return Err(Error::unsupported(format!("the index option {option}")));
        };
        let key = ident_name(key);
        let slot = match key.as_str() {
            "m" => (&mut options.m, HnswOptions::M_RANGE),
            "ef_construction" => (
                &mut options.ef_construction,
                HnswOptions::EF_CONSTRUCTION_RANGE,
            ),
            _ => return Err(invalid(format!("unrecognized parameter \"{key}\""))),
        };
        let value = integer_option(&key, right, range(slot.1))?;
        // Within the range just checked, which fits u16.
        *slot.0 = u16::try_from(value).ok();
    }
    if options.ef_construction() < 2 * options.m() {
        return Err(invalid(
            "ef_construction must be greater than or equal to 2 * m".into(),
        ));
    }
    Ok(options)
}
