//! ALTER TABLE: binds the subcommands in order against the schema as the earlier ones left
//! it, so `ADD COLUMN b, ALTER COLUMN b SET NOT NULL` works, and checks everything the
//! schema alone decides. What depends on the rows (NOT NULL, uniqueness) is checked when the
//! statement runs. Subcommands other than those below are 0A000.

use sqlparser::ast::{self, AlterColumnOperation, AlterTableOperation, ColumnOption};

use super::check::{rename_column_in_stored_exprs, WrittenCheck};
use super::ddl::serial_type;
use super::dml::table_scope;
use super::sequence::{identity_kind, sequence_options_for};
use super::{ident_name, Binder};
use crate::catalog::{ColumnDef, QualifiedName, TableSchema, UniqueKey};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::{AlterTable, BoundStatement, RowChange, ScalarExpr};
use crate::storage::SequenceOptions;
use crate::types::DataType;

/// The statement being bound: the schema so far and what the subcommands did.
struct Alteration {
    schema: TableSchema,
    row_changes: Vec<RowChange>,
    notices: Vec<String>,
    /// Sequences owned by the table: (name, owning column now; `None` once dropped).
    owned: Vec<(QualifiedName, Option<String>)>,
    /// Constraints the rows already there must pass: added (without NOT VALID) or
    /// validated by the statement.
    validate: Vec<String>,
    /// Foreign keys whose existing rows the statement checks.
    foreign_keys_to_check: Vec<String>,
    /// Sequences of the identity columns ADD GENERATED makes: (name, options, column).
    new_sequences: Vec<(QualifiedName, SequenceOptions, String)>,
}

impl Alteration {
    fn column(&self, name: &str) -> Result<usize> {
        self.schema.column_index(name).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    self.schema.name
                ),
            )
        })
    }

    fn check_new_column_name(&self, name: &str) -> Result<()> {
        if self.schema.column_index(name).is_some() {
            return Err(Error::new(
                SqlState::DuplicateColumn,
                format!(
                    "column \"{name}\" of relation \"{}\" already exists",
                    self.schema.name
                ),
            ));
        }
        Ok(())
    }
}

impl Binder<'_> {
    pub(super) fn bind_alter_table(&mut self, alter: &ast::AlterTable) -> Result<BoundStatement> {
        let ast::AlterTable {
            name,
            if_exists,
            // ONLY excludes inheritance children; there are none.
            only: _,
            operations,
            location,
            on_cluster,
            table_type,
            end_token: _,
        } = alter;
        if location.is_some() || on_cluster.is_some() || table_type.is_some() {
            return Err(Error::unsupported(format!("the ALTER TABLE form {alter}")));
        }
        let table = match if_exists {
            true => self.relation_name_if_exists(name)?,
            false => self.relation_name(name)?,
        };
        let is_view = self.state.views.contains_key(&table);
        if let [AlterTableOperation::OwnerTo { new_owner }] = operations.as_slice() {
            let owned = is_view
                || self.state.table_by_name(&table).is_some()
                || self.state.sequences.contains_key(&table);
            if owned {
                let new_owner = self.owner_name(new_owner);
                return self.bind_owner_change(&table, new_owner, "ALTER TABLE");
            }
        }
        let entry = self.state.table_by_name(&table);
        // ALTER TABLE may rename a materialized view but not change its columns.
        let entry = entry.filter(|e| {
            e.schema.materialized.is_none()
                || operations
                    .iter()
                    .all(super::materialized_view::allowed_on_materialized_view)
        });
        let Some(entry) = entry else {
            return match self.state.relation_kind(&table) {
                // pg_dump gives views and sequences their owner with ALTER TABLE.
                Some(_) if operations.iter().all(is_owner_to) => {
                    for operation in operations {
                        if let AlterTableOperation::OwnerTo { new_owner } = operation {
                            self.owner(new_owner)?;
                        }
                    }
                    Ok(BoundStatement::Maintenance {
                        tag: "ALTER TABLE",
                        tables: Vec::new(),
                    })
                }
                Some(_) => Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{table}\" is not a table"),
                )),
                None if *if_exists => Ok(BoundStatement::AlterTable {
                    alter: None,
                    notices: vec![format!("relation \"{table}\" does not exist, skipping")],
                    tag: "ALTER TABLE",
                }),
                None => Err(Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{table}\" does not exist"),
                )),
            };
        };
        self.require_relation_owner(&table, entry.schema.oid)?;
        let partitioning =
            entry.schema.partition_key.is_some() || entry.schema.partition_of.is_some();
        if partitioning && !operations.iter().all(is_rename) {
            return Err(Error::unsupported(
                "ALTER TABLE on a partitioned table or a partition, other than RENAME",
            ));
        }
        if operations.len() > 1 && operations.iter().any(is_rename) {
            return Err(Error::syntax("syntax error at or near \"RENAME\""));
        }
        let owned = self
            .state
            .sequences
            .values()
            .filter_map(|s| match &s.owned_by {
                Some((owner, column)) if s.name.schema == table.schema && *owner == table.name => {
                    Some((s.name.clone(), Some(column.clone())))
                }
                _ => None,
            })
            .collect();
        let mut alteration = Alteration {
            schema: (*entry.schema).clone(),
            row_changes: Vec::new(),
            notices: Vec::new(),
            owned,
            validate: Vec::new(),
            foreign_keys_to_check: Vec::new(),
            new_sequences: Vec::new(),
        };
        for operation in operations {
            self.bind_alter_operation(&mut alteration, operation)?;
        }
        self.refresh_stored_exprs(&mut alteration.schema)?;
        let Alteration {
            schema,
            row_changes,
            notices,
            owned,
            validate,
            foreign_keys_to_check,
            new_sequences,
        } = alteration;
        // Rewritten rows pass every validated check again, as in PostgreSQL.
        let checks = self
            .row_checks(&schema)?
            .into_iter()
            .filter(|check| {
                validate.contains(&check.name)
                    || (!row_changes.is_empty()
                        && schema.constraint(&check.name).is_some_and(|c| c.validated))
            })
            .collect();
        let sequence_owners = owned
            .into_iter()
            .map(|(sequence, column)| (sequence, column.map(|c| (schema.name.clone(), c))))
            .filter(|(sequence, owner)| {
                self.state
                    .sequences
                    .get(sequence)
                    .is_some_and(|s| s.owned_by != *owner)
            })
            .collect();
        Ok(BoundStatement::AlterTable {
            alter: Some(Box::new(AlterTable {
                table_name: table,
                table_oid: entry.schema.oid,
                schema,
                row_changes,
                sequence_owners,
                checks,
                foreign_keys_to_check,
                new_sequences,
            })),
            notices,
            tag: "ALTER TABLE",
        })
    }

    fn bind_alter_operation(
        &mut self,
        alteration: &mut Alteration,
        operation: &AlterTableOperation,
    ) -> Result<()> {
        let table = alteration.schema.name.clone();
        match operation {
            AlterTableOperation::AddColumn {
                column_keyword: _,
                if_not_exists,
                column_def,
                column_position: None,
            } => {
                let name = ident_name(&column_def.name);
                if *if_not_exists && alteration.schema.column_index(&name).is_some() {
                    alteration.notices.push(format!(
                        "column \"{name}\" of relation \"{table}\" already exists, skipping"
                    ));
                    return Ok(());
                }
                alteration.check_new_column_name(&name)?;
                self.bind_add_column(alteration, column_def)?;
            }
            AlterTableOperation::DropColumn {
                has_column_keyword: _,
                column_names,
                if_exists,
                // Only views could depend on a column, and they are checked when it runs.
                drop_behavior,
            } => {
                for column in column_names {
                    let name = ident_name(column);
                    if *if_exists && alteration.schema.column_index(&name).is_none() {
                        alteration.notices.push(format!(
                            "column \"{name}\" of relation \"{table}\" does not exist, skipping"
                        ));
                        continue;
                    }
                    let position = alteration.column(&name)?;
                    if let Some(reader) = self.generated_reader(&alteration.schema, position)? {
                        if drop_behavior.is_some_and(|b| b == ast::DropBehavior::Cascade) {
                            return Err(Error::unsupported(
                                "DROP COLUMN ... CASCADE of a column a generated column reads",
                            ));
                        }
                        return Err(Error::new(
                            SqlState::DependentObjectsStillExist,
                            format!(
                                "cannot drop column {name} of table {table} because other objects depend on it"
                            ),
                        )
                        .with_detail(format!(
                            "column {reader} of table {table} depends on column {name}"
                        ))
                        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                    }
                    self.drop_checks_on_column(&mut alteration.schema, position)?;
                    self.check_column_not_in_foreign_key(&alteration.schema, position, true)?;
                    drop_column(alteration, position);
                }
            }
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let old = ident_name(old_column_name);
                let new = ident_name(new_column_name);
                let position = alteration.schema.column_index(&old).ok_or_else(|| {
                    Error::new(
                        SqlState::UndefinedColumn,
                        format!("column \"{old}\" does not exist"),
                    )
                })?;
                alteration.check_new_column_name(&new)?;
                alteration.schema.columns[position].name = new.clone();
                rename_column_in_stored_exprs(&mut alteration.schema, &old, &new);
                for (_, column) in &mut alteration.owned {
                    if column.as_deref() == Some(old.as_str()) {
                        *column = Some(new.clone());
                    }
                }
            }
            AlterTableOperation::RenameTable { table_name: name } => {
                let (ast::RenameTableNameKind::To(name) | ast::RenameTableNameKind::As(name)) =
                    name;
                let name = self.written_name(name)?.name;
                let qualified = QualifiedName::new(alteration.schema.namespace, name.as_str());
                if self.state.relation_kind(&qualified).is_some() {
                    return Err(Error::new(
                        SqlState::DuplicateTable,
                        format!("relation \"{name}\" already exists"),
                    ));
                }
                alteration.schema.name = name;
            }
            AlterTableOperation::AlterColumn { column_name, op } => {
                let position = alteration.column(&ident_name(column_name))?;
                self.bind_alter_column(alteration, position, op)?;
            }
            AlterTableOperation::AddConstraint {
                constraint: ast::TableConstraint::ForeignKey(references),
                not_valid,
            } => {
                let mut key = self.bind_foreign_key(&alteration.schema, references)?;
                key.validated = !*not_valid;
                if key.validated {
                    alteration.foreign_keys_to_check.push(key.name.clone());
                }
                alteration.schema.foreign_keys.push(key);
            }
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid,
            } => self.bind_add_constraint(alteration, constraint, *not_valid)?,
            AlterTableOperation::ValidateConstraint { name } => {
                let name = ident_name(name);
                let schema = &mut alteration.schema;
                if let Some(key) = schema.foreign_keys.iter_mut().find(|k| k.name == name) {
                    if !key.validated {
                        key.validated = true;
                        alteration.foreign_keys_to_check.push(name);
                    }
                } else {
                    validate_constraint(alteration, &name)?
                }
            }
            AlterTableOperation::RenameConstraint { old_name, new_name } => {
                rename_constraint(alteration, &ident_name(old_name), &ident_name(new_name))?
            }
            AlterTableOperation::DropConstraint {
                if_exists,
                name,
                drop_behavior: _,
            } => {
                let name = ident_name(name);
                let foreign = &mut alteration.schema.foreign_keys;
                if let Some(key) = foreign.iter().position(|k| k.name == name) {
                    foreign.remove(key);
                    return Ok(());
                }
                let key = alteration
                    .schema
                    .unique_keys
                    .iter()
                    .position(|k| k.constraint && k.name == name);
                let other = alteration
                    .schema
                    .constraints
                    .iter()
                    .position(|c| c.name == name);
                match (key, other) {
                    (_, Some(other)) => {
                        alteration.schema.constraints.remove(other);
                    }
                    (Some(key), None) => {
                        self.check_unique_key_unreferenced(&alteration.schema, key)?;
                        alteration.schema.unique_keys.remove(key);
                    }
                    (None, None) if *if_exists => alteration.notices.push(format!(
                        "constraint \"{name}\" of relation \"{table}\" does not exist, skipping"
                    )),
                    (None, None) => {
                        return Err(Error::new(
                            SqlState::UndefinedObject,
                            format!("constraint \"{name}\" of relation \"{table}\" does not exist"),
                        ))
                    }
                }
            }
            AlterTableOperation::OwnerTo { new_owner } => {
                // Beside other actions, only an OWNER TO that changes nothing is done.
                let new_owner = self.owner_name(new_owner);
                let new_owner = self.role_oid_named(&new_owner);
                if new_owner != Some(self.relation_owner(alteration.schema.oid)) {
                    return Err(Error::unsupported(
                        "OWNER TO a new owner with other ALTER TABLE actions",
                    ));
                }
            }
            AlterTableOperation::SetOptionsParens { options } => {
                super::storage_parameters::check_storage_parameters(options)?
            }
            other => return Err(Error::unsupported(format!("ALTER TABLE ... {other}"))),
        }
        Ok(())
    }

    fn bind_add_column(
        &mut self,
        alteration: &mut Alteration,
        column_def: &ast::ColumnDef,
    ) -> Result<()> {
        let ast::ColumnDef {
            name,
            data_type,
            options,
        } = column_def;
        if serial_type(data_type).is_some() {
            return Err(Error::unsupported("ADD COLUMN of a serial column"));
        }
        let (data_type, domain) = self.bind_column_type(data_type)?;
        super::record::refuse_record_column(self.state, &ident_name(name), data_type)?;
        let mut def = ColumnDef {
            name: ident_name(name),
            data_type,
            not_null: false,
            default_sql: None,
            identity: None,
            generated: None,
            comment: None,
            domain,
            fdw_options: Vec::new(),
        };
        let position = alteration.schema.columns.len();
        let mut keys = Vec::new();
        let mut checks = Vec::new();
        let mut generated = None;
        for option in options {
            match &option.option {
                ColumnOption::Generated {
                    generated_as: ast::GeneratedAs::ExpStored,
                    sequence_options: None,
                    generation_expr: Some(expr),
                    generation_expr_mode: Some(ast::GeneratedExpressionMode::Stored),
                    generated_keyword: true,
                } => generated = Some(expr),
                ColumnOption::Check(check) => {
                    let mut check = WrittenCheck::from_ast(check)?;
                    check.name = check.name.or(option.name.as_ref());
                    checks.push(check);
                }
                ColumnOption::Null => {}
                ColumnOption::NotNull => def.not_null = true,
                ColumnOption::Default(expr) => {
                    self.check_default(&def, expr)?;
                    def.default_sql = Some(expr.to_string());
                }
                ColumnOption::PrimaryKey(_) => {
                    def.not_null = true;
                    keys.push((option.name.as_ref(), true));
                }
                ColumnOption::Unique(_) => keys.push((option.name.as_ref(), false)),
                other => return Err(Error::unsupported(format!("the column option {other}"))),
            }
        }
        if generated.is_some() && def.default_sql.is_some() {
            return Err(Error::syntax(format!(
                "both default and generation expression specified for column \"{}\" of table \"{}\"",
                def.name, alteration.schema.name
            )));
        }
        alteration.schema.columns.push(def);
        let value = match generated {
            Some(expr) => {
                self.add_generated(&mut alteration.schema, &[(position, expr)])?;
                self.bind_generation_expr(&alteration.schema, position, expr)?
            }
            None => self.column_default(&alteration.schema, position)?,
        };
        alteration.row_changes.push(RowChange::AddColumn { value });
        for (name, primary) in keys {
            self.add_unique_key(alteration, name, vec![position], primary)?;
        }
        for check in &checks {
            self.add_check(alteration, check, true)?;
        }
        Ok(())
    }

    fn bind_alter_column(
        &mut self,
        alteration: &mut Alteration,
        position: usize,
        op: &AlterColumnOperation,
    ) -> Result<()> {
        let schema = &mut alteration.schema;
        let is_default = matches!(
            op,
            AlterColumnOperation::SetDefault { .. } | AlterColumnOperation::DropDefault
        );
        if is_default && schema.columns[position].generated.is_some() {
            return Err(Error::syntax(format!(
                "column \"{}\" of relation \"{}\" is a generated column",
                schema.columns[position].name, schema.name
            )));
        }
        match op {
            AlterColumnOperation::SetNotNull => schema.columns[position].not_null = true,
            AlterColumnOperation::DropNotNull => {
                if schema
                    .unique_keys
                    .iter()
                    .any(|k| k.primary && k.columns.contains(&position))
                {
                    return Err(Error::new(
                        SqlState::InvalidTableDefinition,
                        format!(
                            "column \"{}\" is in a primary key",
                            schema.columns[position].name
                        ),
                    ));
                }
                schema.columns[position].not_null = false;
            }
            AlterColumnOperation::SetDefault { value } => {
                self.check_default(&schema.columns[position], value)?;
                schema.columns[position].default_sql = Some(value.to_string());
            }
            AlterColumnOperation::DropDefault => schema.columns[position].default_sql = None,
            AlterColumnOperation::SetDataType {
                data_type,
                using,
                had_set: _,
            } => {
                // The rows would have to pass the domain's checks, and the column name it.
                if self.domain_of(data_type).is_some() {
                    return Err(Error::unsupported("ALTER COLUMN ... TYPE of a domain"));
                }
                let ty = self.bind_type(data_type)?;
                super::record::refuse_record_column(
                    self.state,
                    &schema.columns[position].name,
                    ty,
                )?;
                if let Some(reader) = self.generated_reader(schema, position)? {
                    return Err(Error::new(
                        SqlState::FeatureNotSupported,
                        "cannot alter type of a column used by a generated column",
                    )
                    .with_detail(format!(
                        "Column \"{}\" is used by generated column \"{reader}\".",
                        schema.columns[position].name
                    )));
                }
                self.check_column_not_in_foreign_key(schema, position, false)?;
                let value = self.bind_new_column_value(schema, position, ty, using.as_ref())?;
                self.check_default_converts(schema, position, ty)?;
                schema.columns[position].data_type = ty;
                alteration.row_changes.push(RowChange::SetColumn {
                    column: position,
                    value,
                });
            }
            AlterColumnOperation::AddGenerated {
                generated_as,
                sequence_options,
            } => self.bind_add_identity(
                alteration,
                position,
                generated_as.as_ref(),
                sequence_options.as_deref().unwrap_or_default(),
            )?,
        }
        Ok(())
    }

    /// ALTER COLUMN ADD GENERATED ... AS IDENTITY: a new sequence owned by the column, which
    /// becomes its default.
    fn bind_add_identity(
        &mut self,
        alteration: &mut Alteration,
        position: usize,
        generated_as: Option<&ast::GeneratedAs>,
        options: &[ast::SequenceOptions],
    ) -> Result<()> {
        let schema = &alteration.schema;
        let column = &schema.columns[position];
        let prerequisite =
            |message: String| Err(Error::new(SqlState::ObjectNotInPrerequisiteState, message));
        let described = format!("column \"{}\" of relation \"{}\"", column.name, schema.name);
        if !matches!(
            column.data_type,
            DataType::Int16 | DataType::Int32 | DataType::Int64
        ) {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                "identity column type must be smallint, integer, or bigint",
            ));
        }
        if !column.not_null {
            return prerequisite(format!(
                "{described} must be declared NOT NULL before identity can be added"
            ));
        }
        if column.identity.is_some() {
            return prerequisite(format!("{described} is already an identity column"));
        }
        if column.default_sql.is_some() {
            return prerequisite(format!("{described} already has a default value"));
        }
        let options = sequence_options_for(options, column.data_type)?;
        let table = schema.qualified_name();
        let column_name = column.name.clone();
        let sequence = self.identity_sequence_name(&table, &column_name)?;
        let column = &mut alteration.schema.columns[position];
        column.identity = Some(identity_kind(generated_as));
        column.default_sql = Some(format!("nextval('{}')", sequence.name));
        alteration
            .new_sequences
            .push((sequence, options, column_name));
        Ok(())
    }

    /// ALTER COLUMN TYPE: the column's new value, its old value or `USING expr` (over the
    /// row), converted to `ty` by an assignment cast.
    fn bind_new_column_value(
        &mut self,
        schema: &TableSchema,
        position: usize,
        ty: DataType,
        using: Option<&ast::Expr>,
    ) -> Result<ScalarExpr> {
        let column = &schema.columns[position].name;
        let value = match using {
            Some(expr) => {
                let scope = table_scope(schema, &schema.name);
                self.aggregate_forbidden_in = Some("transform expressions");
                let bound = self.bind_expr(expr, &scope);
                self.aggregate_forbidden_in = None;
                let bound = bound?;
                let from = bound.ty();
                if from != DataType::Unknown && !can_cast(from, ty, CastContext::Assignment) {
                    return Err(Error::new(
                        SqlState::DatatypeMismatch,
                        format!(
                            "result of USING clause for column \"{column}\" cannot be cast \
                             automatically to type {ty}"
                        ),
                    )
                    .with_hint("You might need to add an explicit cast."));
                }
                bound
            }
            None => {
                let from = schema.columns[position].data_type;
                if !can_cast(from, ty, CastContext::Assignment) {
                    return Err(Error::new(
                        SqlState::DatatypeMismatch,
                        format!("column \"{column}\" cannot be cast automatically to type {ty}"),
                    )
                    .with_hint(format!(
                        "You might need to specify \"USING {column}::{ty}\"."
                    )));
                }
                ScalarExpr::Column {
                    index: position,
                    ty: from,
                }
            }
        };
        self.coerce(value, ty, CastContext::Assignment)
    }

    /// A column's DEFAULT must convert to its new type.
    fn check_default_converts(
        &mut self,
        schema: &TableSchema,
        position: usize,
        ty: DataType,
    ) -> Result<()> {
        let mut def = schema.columns[position].clone();
        let Some(sql) = def.default_sql.take() else {
            return Ok(());
        };
        let expr = super::dml::parse_expr(&sql)?;
        def.data_type = ty;
        self.check_default(&def, &expr).map_err(|e| match e.state {
            SqlState::DatatypeMismatch => Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "default for column \"{}\" cannot be cast automatically to type {ty}",
                    def.name
                ),
            ),
            _ => e,
        })
    }

    fn bind_add_constraint(
        &mut self,
        alteration: &mut Alteration,
        constraint: &ast::TableConstraint,
        not_valid: bool,
    ) -> Result<()> {
        if let ast::TableConstraint::Check(check) = constraint {
            return self.add_check(alteration, &WrittenCheck::from_ast(check)?, !not_valid);
        }
        if not_valid {
            let kind = match constraint {
                ast::TableConstraint::PrimaryKey(_) => "PRIMARY KEY",
                _ => "UNIQUE",
            };
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("{kind} constraints cannot be marked NOT VALID"),
            ));
        }
        let (name, columns, primary) = match constraint {
            ast::TableConstraint::PrimaryKey(pk) => (pk.name.as_ref(), &pk.columns, true),
            ast::TableConstraint::Unique(unique) => (unique.name.as_ref(), &unique.columns, false),
            other => return Err(Error::unsupported(format!("the constraint {other}"))),
        };
        let mut positions = Vec::with_capacity(columns.len());
        for key in columns {
            let ast::Expr::Identifier(ident) = &key.column.expr else {
                return Err(Error::unsupported(format!("the key column {}", key.column)));
            };
            let column = ident_name(ident);
            let position = alteration.schema.column_index(&column).ok_or_else(|| {
                Error::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{column}\" named in key does not exist"),
                )
            })?;
            positions.push(position);
        }
        if primary {
            for &position in &positions {
                alteration.schema.columns[position].not_null = true;
            }
        }
        self.add_unique_key(alteration, name, positions, primary)
    }

    /// Adds a CHECK constraint; a `validated` one is checked against the rows there.
    fn add_check(
        &mut self,
        alteration: &mut Alteration,
        check: &WrittenCheck<'_>,
        validated: bool,
    ) -> Result<()> {
        let constraint = self.new_check(&alteration.schema, check, validated)?;
        if validated {
            alteration.validate.push(constraint.name.clone());
        }
        alteration.schema.constraints.push(constraint);
        Ok(())
    }

    /// Adds a PRIMARY KEY or UNIQUE constraint, named `name` or as PostgreSQL names it
    /// (`t_pkey`, `t_a_key`, with a number added while the name is taken).
    fn add_unique_key(
        &mut self,
        alteration: &mut Alteration,
        name: Option<&ast::Ident>,
        columns: Vec<usize>,
        primary: bool,
    ) -> Result<()> {
        let schema = &alteration.schema;
        if primary && schema.unique_keys.iter().any(|k| k.primary) {
            return Err(Error::new(
                SqlState::InvalidTableDefinition,
                format!(
                    "multiple primary keys for table \"{}\" are not allowed",
                    schema.name
                ),
            ));
        }
        let taken = |n: &str| {
            self.state
                .relation_kind(&QualifiedName::new(schema.namespace, n))
                .is_some()
                || schema.index_names().any(|i| i == n)
        };
        let name = match name {
            Some(name) => {
                let name = ident_name(name);
                if taken(&name) {
                    return Err(Error::new(
                        SqlState::DuplicateTable,
                        format!("relation \"{name}\" already exists"),
                    ));
                }
                name
            }
            None => {
                let base = if primary {
                    format!("{}_pkey", schema.name)
                } else {
                    let names: Vec<&str> = columns
                        .iter()
                        .map(|&c| schema.columns[c].name.as_str())
                        .collect();
                    format!("{}_{}_key", schema.name, names.join("_"))
                };
                let mut candidate = base.clone();
                let mut n = 0;
                while taken(&candidate) {
                    n += 1;
                    candidate = format!("{base}{n}");
                }
                candidate
            }
        };
        alteration.schema.unique_keys.push(UniqueKey {
            name,
            columns,
            primary,
            constraint: true,
            constraint_comment: None,
            index_comment: None,
        });
        Ok(())
    }
}

/// VALIDATE CONSTRAINT: a NOT VALID constraint becomes valid once the rows pass it.
fn validate_constraint(alteration: &mut Alteration, name: &str) -> Result<()> {
    let schema = &mut alteration.schema;
    if schema
        .unique_keys
        .iter()
        .any(|k| k.constraint && k.name == name)
    {
        return Ok(());
    }
    let Some(constraint) = schema.constraints.iter_mut().find(|c| c.name == name) else {
        return Err(Error::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{name}\" of relation \"{}\" does not exist",
                schema.name
            ),
        ));
    };
    if !constraint.validated {
        constraint.validated = true;
        alteration.validate.push(name.to_string());
    }
    Ok(())
}

/// RENAME CONSTRAINT; a unique key's index takes the new name too, as in PostgreSQL.
fn rename_constraint(alteration: &mut Alteration, old: &str, new: &str) -> Result<()> {
    let schema = &mut alteration.schema;
    if schema.constraint_names().all(|n| n != old) {
        return Err(Error::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{old}\" for table \"{}\" does not exist",
                schema.name
            ),
        ));
    }
    if schema.constraint_names().any(|n| n == new) {
        return Err(Error::new(
            SqlState::DuplicateObject,
            format!(
                "constraint \"{new}\" for relation \"{}\" already exists",
                schema.name
            ),
        ));
    }
    for key in schema.unique_keys.iter_mut().filter(|k| k.name == old) {
        key.name = new.to_string();
    }
    for constraint in schema.constraints.iter_mut().filter(|c| c.name == old) {
        constraint.name = new.to_string();
    }
    for key in schema.foreign_keys.iter_mut().filter(|k| k.name == old) {
        key.name = new.to_string();
    }
    for name in alteration
        .foreign_keys_to_check
        .iter_mut()
        .filter(|n| *n == old)
    {
        *name = new.to_string();
    }
    for name in alteration.validate.iter_mut().filter(|n| *n == old) {
        *name = new.to_string();
    }
    Ok(())
}

/// RENAME subcommands cannot be combined with others.
fn is_rename(operation: &AlterTableOperation) -> bool {
    matches!(
        operation,
        AlterTableOperation::RenameColumn { .. }
            | AlterTableOperation::RenameTable { .. }
            | AlterTableOperation::RenameConstraint { .. }
    )
}

fn is_owner_to(operation: &AlterTableOperation) -> bool {
    matches!(operation, AlterTableOperation::OwnerTo { .. })
}

/// Removes a column with the keys and indexes that use it, as PostgreSQL does, and renumbers
/// the positions after it.
fn drop_column(alteration: &mut Alteration, position: usize) {
    let schema = &mut alteration.schema;
    let name = schema.columns.remove(position).name;
    schema
        .unique_keys
        .retain(|k| !k.columns.contains(&position));
    schema.indexes.retain(|i| !i.columns.contains(&position));
    schema
        .foreign_keys
        .retain(|k| !k.columns.contains(&position));
    let renumber = |columns: &mut Vec<usize>| {
        for c in columns.iter_mut().filter(|c| **c > position) {
            *c -= 1;
        }
    };
    schema
        .unique_keys
        .iter_mut()
        .for_each(|k| renumber(&mut k.columns));
    schema
        .indexes
        .iter_mut()
        .for_each(|i| renumber(&mut i.columns));
    let oid = schema.oid;
    for key in &mut schema.foreign_keys {
        renumber(&mut key.columns);
        if key.referenced_table == oid {
            renumber(&mut key.referenced_columns);
        }
    }
    for (_, column) in &mut alteration.owned {
        if column.as_deref() == Some(name.as_str()) {
            *column = None;
        }
    }
    alteration
        .row_changes
        .push(RowChange::DropColumn { column: position });
}
