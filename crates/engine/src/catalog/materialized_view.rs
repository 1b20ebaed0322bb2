//! A materialized view: a table whose rows are the result of a query as of its last
//! REFRESH. It is stored like any table (so its rows go through the log and checkpoints);
//! this is what makes it a materialized view: the query, to run again at REFRESH, and
//! whether it holds rows at all (WITH NO DATA leaves it unreadable until a REFRESH).

use super::QualifiedName;

#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedView {
    /// The query, as sqlparser prints it: it parses back to the same statement.
    pub query_sql: String,
    /// The schemas (OIDs) unqualified names in the query were looked up in when it was
    /// created: as for a view, a later `search_path` never changes what it reads.
    pub search_path: Vec<u32>,
    /// False after WITH NO DATA (CREATE or REFRESH): reading it is 55000.
    pub populated: bool,
    /// The tables and views the query reads directly: they cannot be dropped while the
    /// materialized view exists, except with CASCADE.
    pub depends_on: Vec<QualifiedName>,
}
