//! The relation namespace: in each schema, tables, sequences, views and indexes (constraint
//! indexes included) share one set of names, as in PostgreSQL.

use std::sync::Arc;

use super::DbState;
use crate::catalog::{CommittedEnum, CompositeType, Domain, EnumType, QualifiedName};

/// What a name of the relation namespace denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationKind {
    Table,
    Sequence,
    Index {
        table: String,
    },
    View,
    MaterializedView,
    ForeignTable,
    /// A composite type of CREATE TYPE ... AS (...): PostgreSQL's relkind 'c'.
    CompositeType,
}

impl RelationKind {
    /// The kind as PostgreSQL's messages name it ("a table"), and its DROP keyword.
    pub fn names(&self) -> (&'static str, &'static str) {
        match self {
            RelationKind::Table => ("a table", "TABLE"),
            RelationKind::Sequence => ("a sequence", "SEQUENCE"),
            RelationKind::Index { .. } => ("an index", "INDEX"),
            RelationKind::View => ("a view", "VIEW"),
            RelationKind::MaterializedView => ("a materialized view", "MATERIALIZED VIEW"),
            RelationKind::ForeignTable => ("a foreign table", "FOREIGN TABLE"),
            RelationKind::CompositeType => ("a type", "TYPE"),
        }
    }
}

/// A table's kind: a materialized view and a foreign table are stored as tables.
pub fn table_kind(schema: &crate::catalog::TableSchema) -> RelationKind {
    match (&schema.materialized, &schema.foreign) {
        (Some(_), _) => RelationKind::MaterializedView,
        (None, Some(_)) => RelationKind::ForeignTable,
        (None, None) => RelationKind::Table,
    }
}

impl DbState {
    /// The relation named `name`, if any.
    /// What the committed state a transaction's view was built on knew of enum type `oid`.
    pub fn committed_enum_type(&self, oid: u32) -> CommittedEnum<'_> {
        let Some(base) = &self.base else {
            return CommittedEnum::AllCommitted;
        };
        match base.enum_types.get(&oid) {
            Some(before) => CommittedEnum::Was(before),
            None => CommittedEnum::CreatedNow,
        }
    }

    /// The enum type called `name`.
    pub fn enum_type_named(&self, name: &QualifiedName) -> Option<&Arc<EnumType>> {
        self.enum_types.values().find(|t| t.name == *name)
    }

    /// The composite type called `name`.
    pub fn composite_type_named(&self, name: &QualifiedName) -> Option<&Arc<CompositeType>> {
        self.composite_types.values().find(|c| c.name == *name)
    }

    /// The domain called `name`.
    pub fn domain_named(&self, name: &QualifiedName) -> Option<&Arc<Domain>> {
        self.domains.values().find(|d| d.name == *name)
    }

    pub fn relation_kind(&self, name: &QualifiedName) -> Option<RelationKind> {
        if let Some(table) = self.table_by_name(name) {
            return Some(table_kind(&table.schema));
        }
        if self.sequences.contains_key(name) {
            return Some(RelationKind::Sequence);
        }
        if self.views.contains_key(name) {
            return Some(RelationKind::View);
        }
        if self.composite_type_named(name).is_some() {
            return Some(RelationKind::CompositeType);
        }
        self.tables
            .values()
            .find(|t| {
                t.schema.namespace == name.schema && t.schema.index_names().any(|i| i == name.name)
            })
            .map(|t| RelationKind::Index {
                table: t.schema.name.clone(),
            })
    }
}
