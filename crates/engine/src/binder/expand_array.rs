//! `information_schema._pg_expandarray(anyarray)`, as PostgreSQL's information_schema.sql
//! defines it: `RETURNS SETOF RECORD (x anyelement, n int)`, each element with its position
//! counted from 1. JDBC's DatabaseMetaData reads index and constraint keys with it
//! (`(information_schema._pg_expandarray(con.conkey)).n`). It runs as two set-returning
//! calls in lockstep, the array's unnest and the series 1 .. its cardinality, so a NULL or
//! empty array gives no row.

use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::TableFunction;
use crate::plan::{ScalarExpr, TableFunctionCall};
use crate::types::{DataType, ScalarValue};

/// The name the binder knows the function by: only reachable schema-qualified, as in
/// PostgreSQL, where information_schema is not on the search path.
pub(super) const EXPAND_ARRAY: &str = "information_schema._pg_expandarray";

/// Its output columns.
pub(super) const EXPAND_ARRAY_COLUMNS: [&str; 2] = ["x", "n"];

/// Whether `schema.name` is the function.
pub(super) fn is_expand_array(schema: &str, name: &str) -> bool {
    schema == "information_schema" && name == "_pg_expandarray"
}

impl Binder<'_> {
    /// The calls giving x and n for the bound argument list.
    pub(super) fn bind_expand_array(
        &mut self,
        args: Vec<ScalarExpr>,
    ) -> Result<Vec<TableFunctionCall>> {
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let undefined = || super::expr::undefined_function(EXPAND_ARRAY, &types);
        let [array] = <[ScalarExpr; 1]>::try_from(args).map_err(|_| undefined())?;
        let array = self.vector_as_array(array)?;
        if array.ty().element().is_none() {
            return Err(undefined());
        }
        let count = self
            .bind_array_function("cardinality", vec![array.clone()])
            .unwrap_or_else(|| Err(Error::new(SqlState::UndefinedFunction, "cardinality")))?;
        let elements = self.unnest_call(TableFunction::Unnest, EXPAND_ARRAY, vec![array])?;
        let one = ScalarExpr::literal(ScalarValue::Int32(1), DataType::Int32);
        let positions = self.unnest_call(
            TableFunction::GenerateSeries,
            EXPAND_ARRAY,
            vec![one, count],
        )?;
        Ok(vec![elements, positions])
    }
}
