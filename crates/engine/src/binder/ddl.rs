//! CREATE TABLE and DROP TABLE.

use std::sync::OnceLock;

use sqlparser::ast::{
    self, ColumnOption, CreateTable, CreateTableOptions, ObjectName, ObjectType, Statement,
    TableConstraint,
};

use super::check::WrittenCheck;
use super::scope::Scope;
use super::sequence::sequence_options_for;
use super::{ident_name, Binder};
use crate::catalog::{ColumnDef, IndexDef, QualifiedName, TableSchema, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::{BoundStatement, OnCommitAction};
use crate::storage::{RelationKind, SequenceOptions};
use crate::types::DataType;

/// How many columns a table may have: PostgreSQL's MaxHeapAttributeNumber.
const MAX_TABLE_COLUMNS: usize = 1600;

/// A CREATE TABLE with every clause we implement cleared; a statement that differs from it
/// after clearing uses a clause we do not implement.
fn plain_create_table() -> &'static Option<CreateTable> {
    static PLAIN: OnceLock<Option<CreateTable>> = OnceLock::new();
    PLAIN.get_or_init(|| match crate::parser::parse("CREATE TABLE t ()") {
        Ok(mut statements) => match statements.pop() {
            Some(crate::parser::Parsed {
                statement: crate::parser::Statement::Sql(Statement::CreateTable(create)),
                ..
            }) => Some(clear_supported(create)),
            _ => None,
        },
        Err(_) => None,
    })
}

fn clear_supported(mut create: CreateTable) -> CreateTable {
    create.name = ObjectName(Vec::new());
    create.columns.clear();
    create.constraints.clear();
    create.if_not_exists = false;
    create.query = None;
    create.unlogged = false;
    create.temporary = false;
    create.on_commit = None;
    // Bound by `bind_partition_key` and `bind_create_partition`.
    create.partition_by = None;
    create.partition_of = None;
    create.for_values = None;
    // CREATE TABLE ... AS ... WITH [NO] DATA (AND STATISTICS is not PostgreSQL's).
    if matches!(
        create.with_data,
        Some(ast::WithData {
            statistics: None,
            ..
        })
    ) {
        create.with_data = None;
    }
    // Checked by `check_storage_parameters`; nothing to keep.
    if matches!(create.table_options, CreateTableOptions::With(_)) {
        create.table_options = CreateTableOptions::None;
    }
    create
}

impl Binder<'_> {
    pub(super) fn bind_create_table(&mut self, create: &CreateTable) -> Result<BoundStatement> {
        if Some(clear_supported(create.clone())) != *plain_create_table() {
            return Err(Error::unsupported(format!(
                "the CREATE TABLE form {create}"
            )));
        }
        if let CreateTableOptions::With(options) = &create.table_options {
            super::storage_parameters::check_storage_parameters(options)?;
        }
        let qualified = self.relation_creation_name(&create.name, create.temporary)?;
        let on_commit = match create.on_commit {
            Some(_) if !create.temporary && !self.is_temp_schema(qualified.schema) => {
                return Err(Error::new(
                    SqlState::InvalidTableDefinition,
                    "ON COMMIT can only be used on temporary tables",
                ))
            }
            None | Some(ast::OnCommit::PreserveRows) => None,
            Some(ast::OnCommit::DeleteRows) => Some(OnCommitAction::DeleteRows),
            Some(ast::OnCommit::Drop) => Some(OnCommitAction::Drop),
        };
        if create.query.is_none() && !self.table_as_columns.is_empty() {
            // Bare names are a column list only before AS.
            return Err(Error::syntax("syntax error at or near \")\""));
        }
        if let Some(parent) = &create.partition_of {
            return self.bind_create_partition(qualified, create, parent, on_commit);
        }
        let mut bound = match &create.query {
            Some(_) if create.partition_by.is_some() => {
                return Err(Error::unsupported("CREATE TABLE ... PARTITION BY ... AS"))
            }
            Some(query) => self.bind_create_table_as(qualified, create, query)?,
            None => self.bind_create_table_columns(qualified, create)?,
        };
        if let BoundStatement::CreateTable {
            on_commit: slot,
            schema,
            ..
        } = &mut bound
        {
            if let Some(spec) = &create.partition_by {
                schema.partition_key = Some(self.bind_partition_key(schema, spec)?);
            }
            if schema.columns.len() > MAX_TABLE_COLUMNS {
                return Err(Error::new(
                    SqlState::TooManyColumns,
                    format!("tables can have at most {MAX_TABLE_COLUMNS} columns"),
                ));
            }
            *slot = on_commit;
        }
        Ok(bound)
    }

    /// Whether `schema` is the session's temporary schema.
    fn is_temp_schema(&self, schema: u32) -> bool {
        self.search_path.temp_schema(self.state) == Some(schema)
    }

    /// Where CREATE [TEMP] TABLE (or SELECT INTO, VIEW, SEQUENCE) puts the relation: a
    /// temporary one in the session's temporary schema, which the session created before
    /// binding the statement.
    pub(super) fn relation_creation_name(
        &self,
        name: &ObjectName,
        temporary: bool,
    ) -> Result<QualifiedName> {
        if !temporary {
            return self.creation_name(name);
        }
        let written = self.written_name(name)?;
        let temp = self.search_path.temp_schema(self.state).ok_or_else(|| {
            Error::internal("invariant: the session creates its temporary schema before binding")
        })?;
        if let Some(schema) = &written.schema {
            if self.schema(schema)?.oid != temp {
                return Err(Error::new(
                    SqlState::InvalidTableDefinition,
                    "cannot create temporary relation in non-temporary schema",
                ));
            }
        }
        Ok(QualifiedName::new(temp, written.name))
    }

    /// CREATE TABLE with column definitions (and LIKE elements).
    fn bind_create_table_columns(
        &mut self,
        qualified: QualifiedName,
        create: &CreateTable,
    ) -> Result<BoundStatement> {
        let name = qualified.name.clone();
        let mut columns: Vec<ColumnDef> = Vec::with_capacity(create.columns.len());
        let mut unique_keys: Vec<UniqueKey> = Vec::new();
        let mut indexes: Vec<IndexDef> = Vec::new();
        let mut sequences = Vec::new();
        let mut checks = Vec::new();
        let mut copied_checks = Vec::new();
        let mut generated = Vec::new();
        // Bound once the table's columns and keys are known, in PostgreSQL's order.
        let mut foreign_keys: Vec<ast::ForeignKeyConstraint> = Vec::new();
        let likes = std::mem::take(&mut self.table_likes);
        let mut likes = likes.iter().peekable();
        for written in 0..=create.columns.len() {
            // The LIKE elements written before this column, then the column.
            while let Some(like) = likes.next_if(|l| l.column_position <= written) {
                let taken: Vec<&str> = unique_keys
                    .iter()
                    .map(|k| k.name.as_str())
                    .chain(indexes.iter().map(|i| i.name.as_str()))
                    .collect();
                let copy = self.bind_table_like(like, &name, columns.len(), &taken)?;
                for column in copy.columns {
                    check_new_column(&columns, &column.name)?;
                    columns.push(column);
                }
                for (position, options) in copy.identities {
                    sequences.push((Some(options), position, None));
                }
                unique_keys.extend(copy.unique_keys);
                indexes.extend(copy.indexes);
                copied_checks.extend(copy.checks);
            }
            let Some(column) = create.columns.get(written) else {
                break;
            };
            let column_name = ident_name(&column.name);
            check_new_column(&columns, &column_name)?;
            let serial = serial_type(&column.data_type);
            let (data_type, domain) = match serial {
                Some(ty) => (ty, None),
                None => self.bind_column_type(&column.data_type)?,
            };
            super::record::refuse_record_column(self.state, &column_name, data_type)?;
            let mut def = ColumnDef {
                name: column_name,
                data_type,
                not_null: false,
                default_sql: None,
                identity: None,
                generated: None,
                comment: None,
                domain,
                fdw_options: Vec::new(),
            };
            let position = columns.len();
            let mut identity = serial.is_some();
            for option in &column.options {
                match &option.option {
                    ColumnOption::Generated {
                        generated_as,
                        sequence_options,
                        generation_expr: None,
                        generation_expr_mode: None,
                        generated_keyword: true,
                    } if !matches!(generated_as, ast::GeneratedAs::ExpStored) => {
                        if identity || def.default_sql.is_some() {
                            return Err(Error::syntax(format!(
                                "multiple default values specified for column \"{}\" of table \"{name}\"",
                                def.name
                            )));
                        }
                        let ty = def.data_type;
                        if !matches!(ty, DataType::Int16 | DataType::Int32 | DataType::Int64) {
                            return Err(Error::new(
                                SqlState::InvalidParameterValue,
                                "identity column type must be smallint, integer, or bigint",
                            ));
                        }
                        identity = true;
                        def.identity = Some(super::sequence::identity_kind(Some(generated_as)));
                        let options = sequence_options
                            .as_deref()
                            .map(|o| sequence_options_for(o, ty))
                            .transpose()?;
                        let sequence = self.identity_sequence_name(&qualified, &def.name)?;
                        sequences.push((options, position, Some(sequence)));
                    }
                    ColumnOption::Generated {
                        generated_as: ast::GeneratedAs::ExpStored,
                        sequence_options: None,
                        generation_expr: Some(expr),
                        generation_expr_mode: Some(ast::GeneratedExpressionMode::Stored),
                        generated_keyword: true,
                    } => {
                        if generated.iter().any(|(p, _)| *p == position) {
                            return Err(Error::syntax(format!(
                                "multiple generation clauses specified for column \"{}\" of table \"{name}\"",
                                def.name
                            )));
                        }
                        generated.push((position, expr));
                    }
                    ColumnOption::Null => {}
                    ColumnOption::NotNull => def.not_null = true,
                    ColumnOption::Default(expr) => {
                        self.check_default(&def, expr)?;
                        def.default_sql = Some(expr.to_string());
                    }
                    ColumnOption::Check(check) => {
                        let mut check = WrittenCheck::from_ast(check)?;
                        check.name = check.name.or(option.name.as_ref());
                        checks.push(check);
                    }
                    ColumnOption::PrimaryKey(_) => {
                        def.not_null = true;
                        unique_keys.push(unique_key(
                            &name,
                            option.name.as_ref(),
                            vec![position],
                            true,
                            &[&def.name],
                        ));
                    }
                    ColumnOption::Unique(_) => {
                        unique_keys.push(unique_key(
                            &name,
                            option.name.as_ref(),
                            vec![position],
                            false,
                            &[&def.name],
                        ));
                    }
                    ColumnOption::ForeignKey(references) => {
                        let mut references = references.clone();
                        references.name = option.name.clone();
                        references.columns = vec![column.name.clone()];
                        foreign_keys.push(references);
                    }
                    other => return Err(Error::unsupported(format!("the column option {other}"))),
                }
            }
            if generated.iter().any(|(p, _)| *p == position) {
                let other = match (identity, def.default_sql.is_some()) {
                    (true, _) => Some("identity"),
                    (false, true) => Some("default"),
                    (false, false) => None,
                };
                if let Some(other) = other {
                    return Err(Error::syntax(format!(
                        "both {other} and generation expression specified for column \"{}\" of table \"{name}\"",
                        def.name
                    )));
                }
            }
            if identity {
                // SERIAL and identity columns take their values from an owned sequence.
                def.not_null = true;
                if serial.is_some() {
                    sequences.push((None, position, None));
                }
            }
            columns.push(def);
        }
        let sequences = sequences
            .into_iter()
            .map(|(options, position, sequence)| {
                let column = &mut columns[position];
                let sequence = sequence.unwrap_or_else(|| {
                    QualifiedName::new(qualified.schema, format!("{name}_{}_seq", column.name))
                });
                column.default_sql = Some(format!("nextval('{}')", sequence.name));
                let options =
                    options.unwrap_or_else(|| SequenceOptions::ascending(column.data_type));
                (sequence, options, column.name.clone())
            })
            .collect();
        for constraint in &create.constraints {
            let (constraint_name, key_columns, primary) = match constraint {
                TableConstraint::PrimaryKey(pk) => (pk.name.as_ref(), &pk.columns, true),
                TableConstraint::Unique(unique) => (unique.name.as_ref(), &unique.columns, false),
                TableConstraint::Check(check) => {
                    checks.push(WrittenCheck::from_ast(check)?);
                    continue;
                }
                TableConstraint::ForeignKey(references) => {
                    foreign_keys.push(references.clone());
                    continue;
                }
                other => return Err(Error::unsupported(format!("the constraint {other}"))),
            };
            let mut positions = Vec::with_capacity(key_columns.len());
            for key in key_columns {
                let ast::Expr::Identifier(ident) = &key.column.expr else {
                    return Err(Error::unsupported(format!("the key column {}", key.column)));
                };
                let column_name = ident_name(ident);
                let position = columns
                    .iter()
                    .position(|c| c.name == column_name)
                    .ok_or_else(|| {
                        Error::new(
                            SqlState::UndefinedColumn,
                            format!("column \"{column_name}\" named in key does not exist"),
                        )
                    })?;
                if primary {
                    columns[position].not_null = true;
                }
                positions.push(position);
            }
            let names: Vec<&str> = positions
                .iter()
                .map(|&p| columns[p].name.as_str())
                .collect();
            unique_keys.push(unique_key(
                &name,
                constraint_name,
                positions.clone(),
                primary,
                &names,
            ));
        }
        if unique_keys.iter().filter(|k| k.primary).count() > 1 {
            return Err(Error::new(
                SqlState::InvalidTableDefinition,
                format!("multiple primary keys for table \"{name}\" are not allowed"),
            ));
        }
        let mut schema = TableSchema {
            oid: 0,
            namespace: qualified.schema,
            name,
            columns,
            unique_keys,
            indexes,
            constraints: Vec::new(),
            foreign_keys: Vec::new(),
            unlogged: create.unlogged,
            comment: None,
            materialized: None,
            foreign: None,
            partition_key: None,
            partition_of: None,
        };
        self.add_generated(&mut schema, &generated)?;
        schema.constraints.extend(copied_checks);
        for check in &checks {
            let constraint = self.new_check(&schema, check, true)?;
            schema.constraints.push(constraint);
        }
        for references in &foreign_keys {
            let key = self.bind_foreign_key(&schema, references)?;
            schema.foreign_keys.push(key);
        }
        Ok(BoundStatement::CreateTable {
            schema,
            if_not_exists: create.if_not_exists,
            sequences,
            source: None,
            on_commit: None,
        })
    }

    /// CREATE TABLE name AS query: the columns are the query's (untyped literals become text).
    fn bind_create_table_as(
        &mut self,
        name: QualifiedName,
        create: &CreateTable,
        query: &ast::Query,
    ) -> Result<BoundStatement> {
        if !create.columns.is_empty() || !create.constraints.is_empty() {
            return Err(Error::unsupported("column definitions in CREATE TABLE AS"));
        }
        let names = std::mem::take(&mut self.table_as_columns);
        let names = names.iter().map(ident_name).collect();
        let mut bound =
            self.bind_table_from_query(name, create.if_not_exists, create.unlogged, query, names)?;
        if let (
            BoundStatement::CreateTable { source, .. },
            Some(ast::WithData { data: false, .. }),
        ) = (&mut bound, &create.with_data)
        {
            *source = None;
        }
        Ok(bound)
    }

    /// A new table `name` holding the rows of `query` (CREATE TABLE AS, SELECT INTO,
    /// CREATE MATERIALIZED VIEW), its first columns named `names`, the others as the query
    /// names them.
    pub(super) fn bind_table_from_query(
        &mut self,
        name: QualifiedName,
        if_not_exists: bool,
        unlogged: bool,
        query: &ast::Query,
        names: Vec<String>,
    ) -> Result<BoundStatement> {
        let (plan, outputs) = self.bind_query(query)?;
        if names.len() > outputs.len() {
            return Err(Error::syntax("too many column names were specified"));
        }
        let mut columns: Vec<ColumnDef> = Vec::with_capacity(outputs.len());
        let mut names = names.into_iter();
        for output in &outputs {
            let name = names.next().unwrap_or_else(|| output.name.clone());
            if columns.iter().any(|c| c.name == name) {
                return Err(Error::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{name}\" specified more than once"),
                ));
            }
            super::record::refuse_record_column(self.state, &output.name, output.data_type)?;
            columns.push(ColumnDef {
                name,
                data_type: match output.data_type {
                    DataType::Unknown => DataType::Text,
                    ty => ty,
                },
                not_null: false,
                default_sql: None,
                identity: None,
                generated: None,
                comment: None,
                domain: None,
                fdw_options: Vec::new(),
            });
        }
        Ok(BoundStatement::CreateTable {
            schema: TableSchema {
                oid: 0,
                namespace: name.schema,
                name: name.name,
                columns,
                unique_keys: Vec::new(),
                indexes: Vec::new(),
                constraints: Vec::new(),
                foreign_keys: Vec::new(),
                unlogged,
                comment: None,
                materialized: None,
                foreign: None,
                partition_key: None,
                partition_of: None,
            },
            if_not_exists,
            sequences: Vec::new(),
            source: Some(plan),
            on_commit: None,
        })
    }

    /// PostgreSQL checks a DEFAULT at CREATE time: it must bind without columns and convert
    /// to the column's type; the type's length or precision limit applies only when a row is
    /// written.
    pub(super) fn check_default(&mut self, def: &ColumnDef, expr: &ast::Expr) -> Result<()> {
        self.aggregate_forbidden_in = Some("DEFAULT expressions");
        let bound = self.bind_expr(expr, &Scope::default());
        self.aggregate_forbidden_in = None;
        let bound = bound.map_err(|e| match e.state {
            SqlState::UndefinedColumn | SqlState::UndefinedTable => Error::new(
                SqlState::FeatureNotSupported,
                "cannot use column reference in DEFAULT expression",
            ),
            _ => e,
        })?;
        let from = bound.ty();
        if from != crate::types::DataType::Unknown
            && !can_cast(from, def.data_type, CastContext::Assignment)
        {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" is of type {} but default expression is of type {from}",
                    def.name, def.data_type
                ),
            )
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce(bound, without_limit(def.data_type), CastContext::Assignment)?;
        Ok(())
    }

    pub(super) fn bind_drop(
        &mut self,
        object_type: ObjectType,
        if_exists: bool,
        names: &[ObjectName],
        cascade: bool,
        unsupported_clause: bool,
    ) -> Result<BoundStatement> {
        if unsupported_clause {
            return Err(Error::unsupported(format!("DROP {object_type}")));
        }
        if object_type == ObjectType::Type {
            return self.bind_drop_types(names, if_exists, cascade);
        }
        if matches!(object_type, ObjectType::Role | ObjectType::User) {
            return self.bind_drop_roles(names, if_exists, cascade);
        }
        if object_type == ObjectType::Schema {
            let names = names
                .iter()
                .map(super::names::single_identifier)
                .collect::<Result<Vec<_>>>()?;
            return Ok(BoundStatement::DropSchema {
                names,
                if_exists,
                cascade,
                searched: self.searched.clone(),
            });
        }
        let names = self.relation_names_to_drop(names, if_exists)?;
        if matches!(
            object_type,
            ObjectType::Table | ObjectType::View | ObjectType::Sequence
        ) {
            for name in &names {
                self.require_owner_if_exists(name)?;
            }
        }
        match object_type {
            ObjectType::Table | ObjectType::MaterializedView => Ok(BoundStatement::DropTable {
                names: self.with_partitions(names),
                if_exists,
                cascade,
                kind: match object_type {
                    ObjectType::MaterializedView => RelationKind::MaterializedView,
                    _ => RelationKind::Table,
                },
            }),
            ObjectType::View => Ok(BoundStatement::DropView {
                names,
                if_exists,
                cascade,
            }),
            ObjectType::Sequence => Ok(BoundStatement::DropSequence { names, if_exists }),
            ObjectType::Index => Ok(BoundStatement::DropIndex {
                names,
                if_exists,
                concurrently: false,
            }),
            other => Err(Error::unsupported(format!("DROP {other}"))),
        }
    }
}

/// The integer type of SERIAL, BIGSERIAL and SMALLSERIAL.
pub(super) fn serial_type(ty: &ast::DataType) -> Option<DataType> {
    let ast::DataType::Custom(name, modifiers) = ty else {
        return None;
    };
    if !modifiers.is_empty() {
        return None;
    }
    match name.to_string().to_lowercase().as_str() {
        "serial" | "serial4" => Some(DataType::Int32),
        "bigserial" | "serial8" => Some(DataType::Int64),
        "smallserial" | "serial2" => Some(DataType::Int16),
        _ => None,
    }
}

/// 42701 for a second column of the same name.
fn check_new_column(columns: &[ColumnDef], name: &str) -> Result<()> {
    if columns.iter().any(|c| c.name == name) {
        return Err(Error::new(
            SqlState::DuplicateColumn,
            format!("column \"{name}\" specified more than once"),
        ));
    }
    Ok(())
}

/// A type without its length or precision limit.
fn without_limit(ty: crate::types::DataType) -> crate::types::DataType {
    use crate::types::DataType;
    match ty {
        DataType::Varchar(_) => DataType::Varchar(None),
        DataType::Char(_) => DataType::Char(None),
        DataType::Numeric(_) => DataType::Numeric(None),
        other => other,
    }
}

/// PostgreSQL's constraint names: `t_pkey` and `t_a_b_key`.
fn unique_key(
    table: &str,
    name: Option<&ast::Ident>,
    columns: Vec<usize>,
    primary: bool,
    column_names: &[&str],
) -> UniqueKey {
    let name = match name {
        Some(n) => ident_name(n),
        None if primary => format!("{table}_pkey"),
        None => format!("{table}_{}_key", column_names.join("_")),
    };
    UniqueKey {
        name,
        columns,
        primary,
        constraint: true,
        constraint_comment: None,
        index_comment: None,
    }
}
