//! Name resolution: the columns visible to an expression, by table alias and name.

use crate::error::{Error, Result, SqlState};
use crate::plan::ScalarExpr;
use crate::types::DataType;

#[derive(Debug, Clone)]
pub struct ScopeColumn {
    /// The table's name or alias, for `t.col`.
    pub table: Option<String>,
    pub name: String,
    pub ty: DataType,
    pub table_oid: u32,
    /// 1-based attribute number in the table, 0 if computed.
    pub attnum: i16,
    /// Reachable only as `table.name`: a join's USING column of one side, whose unqualified
    /// name means the merged column.
    pub qualified_only: bool,
    /// On the side an outer join pads with NULLs. A whole-row reference to such a side is
    /// NULL in PostgreSQL when the row was padded, which the columns alone cannot tell...
    pub null_extended: bool,
    /// ...unless one of them is non-NULL wherever its FROM item's row is present (a NOT
    /// NULL column, or one a join condition compared): then it is NULL exactly when the
    /// row was padded (`outer_join_row.rs`).
    pub padding_witness: bool,
    /// Read straight from a table or view, not passed on by a subquery: a whole-row
    /// reference to all of a relation's columns has the relation's row type.
    pub from_relation: bool,
}

/// The columns of a FROM clause, in the order of the input batches.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub columns: Vec<ScopeColumn>,
    /// FROM items an alias of a parenthesized join hides (`(a JOIN b) AS j`): no longer
    /// referable, but PostgreSQL's error for a reference says they exist.
    pub hidden: Vec<HiddenItem>,
    /// The aliases of joins' USING columns (`a JOIN b USING (i) AS x`), which name no FROM
    /// item of their own: hidden, they are simply missing.
    pub join_using_aliases: Vec<String>,
}

/// A FROM item hidden by a join alias: its name, and the relation it reads (if any), which
/// a reference may also name.
#[derive(Debug, Clone)]
pub struct HiddenItem {
    pub name: String,
    pub relation_oid: Option<u32>,
}

impl Scope {
    /// This scope followed by `right`'s, as a join lays out its input rows.
    pub fn append(&mut self, right: Scope) {
        self.columns.extend(right.columns);
        self.hidden.extend(right.hidden);
        self.join_using_aliases.extend(right.join_using_aliases);
    }

    /// The scope `(join) AS alias (names...)` leaves: the join's columns all named by the
    /// alias (renamed by `names`), the rest unreachable, the names inside hidden.
    pub fn under_join_alias(mut self, alias: &str, names: Vec<String>) -> Scope {
        for column in &self.columns {
            let Some(table) = &column.table else { continue };
            if self.join_using_aliases.contains(table)
                || self.hidden.iter().any(|h| &h.name == table)
            {
                continue;
            }
            self.hidden.push(HiddenItem {
                name: table.clone(),
                relation_oid: column.from_relation.then_some(column.table_oid),
            });
        }
        let mut names = names.into_iter();
        for column in &mut self.columns {
            column.from_relation = false;
            // A row present under the alias may have a padded side inside it.
            column.padding_witness = false;
            if column.qualified_only {
                column.table = None;
                continue;
            }
            column.table = Some(alias.to_string());
            if let Some(name) = names.next() {
                column.name = name;
            }
        }
        self.join_using_aliases.clear();
        self
    }

    /// The names of the columns a join alias would name, in order.
    pub fn join_column_names(&self) -> Vec<String> {
        (self.columns.iter())
            .filter(|c| !c.qualified_only)
            .map(|c| c.name.clone())
            .collect()
    }

    /// The columns of relation `table_oid` (a view or a system relation) as `visible`
    /// names them, numbered from 1.
    pub fn of_relation(
        visible: &str,
        table_oid: u32,
        columns: impl Iterator<Item = (String, DataType)>,
    ) -> Scope {
        Scope::named(visible, Some(table_oid), columns)
    }

    /// Computed columns (a table function's, a file's) as `visible` names them: no relation
    /// behind them, so no attribute numbers and no system columns.
    pub fn of_computed(visible: &str, columns: impl Iterator<Item = (String, DataType)>) -> Scope {
        Scope::named(visible, None, columns)
    }

    fn named(
        visible: &str,
        table_oid: Option<u32>,
        columns: impl Iterator<Item = (String, DataType)>,
    ) -> Scope {
        Scope {
            hidden: Vec::new(),
            join_using_aliases: Vec::new(),
            columns: columns
                .enumerate()
                .map(|(i, (name, ty))| ScopeColumn {
                    table: Some(visible.to_string()),
                    name,
                    ty,
                    table_oid: table_oid.unwrap_or(0),
                    attnum: match table_oid {
                        Some(_) => i16::try_from(i + 1).unwrap_or(i16::MAX),
                        None => 0,
                    },
                    qualified_only: false,
                    null_extended: false,
                    padding_witness: false,
                    from_relation: table_oid.is_some(),
                })
                .collect(),
        }
    }

    /// The relation `table` (or, unqualified, the one relation of the scope) reads, for its
    /// system columns: `None` when no relation, or several, match (PostgreSQL then says the
    /// column does not exist).
    pub fn relation_oid(&self, table: Option<&str>) -> Option<u32> {
        let mut oids = self
            .columns
            .iter()
            .filter(|c| c.attnum > 0 && (table.is_none() || c.table.as_deref() == table))
            .map(|c| c.table_oid);
        let first = oids.next()?;
        oids.all(|oid| oid == first).then_some(first)
    }

    /// Resolves `name` or `table.name` to a column expression.
    pub fn resolve(&self, table: Option<&str>, name: &str) -> Result<ScalarExpr> {
        if let Some(table) = table {
            if !self
                .columns
                .iter()
                .any(|c| c.table.as_deref() == Some(table))
            {
                return Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("missing FROM-clause entry for table \"{table}\""),
                ));
            }
        }
        let mut found = None;
        for (index, column) in self.columns.iter().enumerate() {
            if column.name != name
                || (table.is_some() && column.table.as_deref() != table)
                || (table.is_none() && column.qualified_only)
            {
                continue;
            }
            if found.is_some() {
                return Err(Error::new(
                    SqlState::AmbiguousColumn,
                    format!("column reference \"{name}\" is ambiguous"),
                ));
            }
            found = Some(ScalarExpr::Column {
                index,
                ty: column.ty,
            });
        }
        found.ok_or_else(|| {
            let message = match table {
                Some(t) => format!("column {t}.{name} does not exist"),
                None => format!("column \"{name}\" does not exist"),
            };
            Error::new(SqlState::UndefinedColumn, message)
        })
    }
}
