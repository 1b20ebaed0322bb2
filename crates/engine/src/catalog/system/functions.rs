//! The catalog's own functions: what psql and drivers call to print the catalog
//! (`format_type`, `pg_get_indexdef`, `pg_table_is_visible`, ...) and the reg* conversions
//! between OIDs and names (`'t'::regclass`, `oid::regclass`). They read the snapshot the
//! statement reads, so they are evaluated at run time and never folded into a shared plan.

use super::comments::comment;
use super::has_privilege::{has_privilege, PrivilegeFunction};
use super::relations::{indexes, Derived, IndexInfo};
use super::sql_functions::{function_visible, sql_function};
use super::types::{builtin, FUNCTIONS};
use super::views::{index_definition, quote_identifier};
use super::{namespaces, CatalogSnapshot, OID, RELATIONS};
use crate::catalog::{QualifiedName, ReferentialAction, SearchPath};
use crate::error::{Error, Result, SqlState};
use crate::storage::{DbState, TableEntry};
use crate::types::text_io::parse_oid;
use crate::types::{DataType, IntervalTypmod, OidKind, ScalarValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFunction {
    /// pg_table_is_visible and the other `*_is_visible`: a user relation is visible when
    /// the search path finds it by its bare name; everything else is in pg_catalog.
    IsVisible,
    GetUserById,
    /// pg_get_partkeydef(oid).
    GetPartKeyDef,
    /// The relations pg_partition_ancestors(regclass) lists, as a regclass array the
    /// binder unnests: a partition and its ancestors, a partitioned table itself, else none.
    PartitionAncestors,
    FormatType,
    /// pg_get_expr(adbin, relid [, pretty]): our expression trees are their SQL text.
    GetExpr,
    GetIndexDef,
    GetConstraintDef,
    GetViewDef,
    /// obj_description, col_description, shobj_description: the comments initdb makes.
    Description,
    EncodingToChar,
    /// has_table_privilege and the like (see `has_privilege.rs`).
    HasPrivilege(PrivilegeFunction),
    GetSerialSequence,
    /// pg_relation_size and the like: KestrelDB keeps no pages, so sizes are 0.
    RelationSize,
    /// pg_size_pretty(bigint): what psql prints those sizes with.
    SizePretty,
    /// current_setting(name [, missing_ok]).
    CurrentSetting,
    /// set_config(name, value, is_local): SET, applied when the statement has run.
    SetConfig,
    /// to_regclass(text), to_regtype(text), ...: the reg* input function, NULL where it
    /// finds nothing instead of an error.
    ToReg(OidKind),
    /// pg_relation_is_publishable: there are no publications to publish in.
    IsPublishable,
    /// pg_is_in_recovery (pg_dump asks first): there are no standbys, so never.
    IsInRecovery,
    /// pg_get_statisticsobjdef_columns and pg_get_ruledef: there are no extended statistics
    /// and no rules, so no definition (NULL).
    NoDefinition,
    /// pg_get_function_arguments, or without DEFAULTs pg_get_function_identity_arguments.
    FunctionArguments {
        defaults: bool,
    },
    FunctionResult,
    /// pg_get_functiondef(oid): a SQL function's CREATE statement.
    FunctionDef,
    /// `text::regclass` (and the other aliases) of a value only known at run time: the OID
    /// of the object named.
    NameToOid(OidKind),
    /// `oid::regclass` printed: the relation's name, or the number if there is none.
    RegClassOut,
    RegTypeOut,
    RegProcOut,
    RegNamespaceOut,
    RegRoleOut,
    /// pg_[try_]advisory[_xact]_lock[_shared]: the session's advisory locks (they live with
    /// the session, as the catalog functions read it).
    AdvisoryLock {
        shared: bool,
        transaction: bool,
        wait: bool,
    },
    /// pg_advisory_unlock[_shared].
    AdvisoryUnlock {
        shared: bool,
    },
    AdvisoryUnlockAll,
    /// acldefault(objtype, owner): the privileges an object of that kind starts with, in
    /// aclitem's text form (pg_dump compares them with the object's ACL).
    AclDefault,
    /// enum_in of the enum type with this OID: a label's stored value (its sort order).
    EnumIn(u32),
    /// enum_out of the enum type with this OID: a stored value's label.
    EnumOut(u32),
    /// pg_sleep(seconds) and pg_sleep_for(interval): waits, cancellable and bounded by
    /// statement_timeout as any statement.
    Sleep,
}

/// An argument's type: coerced to that type, or taken as it is.
pub type Parameter = Option<DataType>;

const TEXT: Parameter = Some(DataType::Text);
const ANY: Parameter = None;
const OID_ARG: Parameter = Some(OID);
const RELATION: Parameter = Some(DataType::Oid(OidKind::RegClass));
const INT4: Parameter = Some(DataType::Int32);
const BOOL: Parameter = Some(DataType::Bool);

impl CatalogFunction {
    /// The function `name` called with `arguments` arguments: its parameters and result.
    pub fn resolve(name: &str, arguments: usize) -> Option<(Self, Vec<Parameter>, DataType)> {
        use CatalogFunction as F;
        let text = DataType::Text;
        let (func, parameters, result): (F, &[Parameter], DataType) = match (name, arguments) {
            (
                "pg_table_is_visible"
                | "pg_type_is_visible"
                | "pg_function_is_visible"
                | "pg_operator_is_visible"
                | "pg_opclass_is_visible"
                | "pg_opfamily_is_visible"
                | "pg_collation_is_visible"
                | "pg_conversion_is_visible"
                | "pg_statistics_obj_is_visible"
                | "pg_ts_parser_is_visible"
                | "pg_ts_dict_is_visible"
                | "pg_ts_template_is_visible"
                | "pg_ts_config_is_visible",
                1,
            ) => (F::IsVisible, &[OID_ARG], DataType::Bool),
            ("pg_get_userbyid", 1) => (F::GetUserById, &[OID_ARG], text),
            ("pg_get_partkeydef", 1) => (F::GetPartKeyDef, &[OID_ARG], text),
            ("format_type", 2) => (F::FormatType, &[OID_ARG, INT4], text),
            ("pg_get_expr", 2) => (F::GetExpr, &[TEXT, OID_ARG], text),
            ("pg_get_expr", 3) => (F::GetExpr, &[TEXT, OID_ARG, BOOL], text),
            ("pg_get_indexdef", 1) => (F::GetIndexDef, &[OID_ARG], text),
            ("pg_get_indexdef", 3) => (F::GetIndexDef, &[OID_ARG, INT4, BOOL], text),
            ("pg_get_constraintdef", 1) => (F::GetConstraintDef, &[OID_ARG], text),
            ("pg_get_constraintdef", 2) => (F::GetConstraintDef, &[OID_ARG, BOOL], text),
            // There are no rules, and so no rule definitions.
            ("pg_get_ruledef", 1) => (F::NoDefinition, &[OID_ARG], text),
            ("pg_get_ruledef", 2) => (F::NoDefinition, &[OID_ARG, BOOL], text),
            // Foreign keys are not triggers here: there are no triggers.
            ("pg_get_triggerdef", 1) => (F::NoDefinition, &[OID_ARG], text),
            ("pg_get_triggerdef", 2) => (F::NoDefinition, &[OID_ARG, BOOL], text),
            // Its text variant takes a relation's name: a name is looked up as regclass is.
            ("pg_get_viewdef", 1) => (F::GetViewDef, &[RELATION], text),
            ("pg_get_viewdef", 2) => (F::GetViewDef, &[RELATION, ANY], text),
            ("obj_description", 1) => (F::Description, &[OID_ARG], text),
            ("obj_description" | "shobj_description", 2) => {
                (F::Description, &[OID_ARG, TEXT], text)
            }
            ("col_description", 2) => (F::Description, &[OID_ARG, INT4], text),
            ("pg_encoding_to_char", 1) => (F::EncodingToChar, &[INT4], text),
            (
                name @ ("has_table_privilege"
                | "has_schema_privilege"
                | "has_database_privilege"
                | "has_sequence_privilege"
                | "has_function_privilege"
                | "has_column_privilege"
                | "has_any_column_privilege"
                | "has_type_privilege"),
                2..=4,
            ) => (
                F::HasPrivilege(PrivilegeFunction::of(name)),
                &[ANY, ANY, ANY, ANY],
                DataType::Bool,
            ),
            ("pg_get_serial_sequence", 2) => (F::GetSerialSequence, &[TEXT, TEXT], text),
            (
                "pg_relation_size" | "pg_total_relation_size" | "pg_table_size" | "pg_indexes_size",
                1,
            ) => (F::RelationSize, &[ANY], DataType::Int64),
            ("current_setting", 1) => (F::CurrentSetting, &[TEXT], text),
            ("current_setting", 2) => (F::CurrentSetting, &[TEXT, BOOL], text),
            ("set_config", 3) => (F::SetConfig, &[TEXT, TEXT, BOOL], text),
            (name, 1) if name.starts_with("to_reg") => {
                let kind = OidKind::ALL
                    .into_iter()
                    .find(|k| *k != OidKind::Oid && name == format!("to_{}", k.name()))?;
                return Some((F::ToReg(kind), vec![TEXT], DataType::Oid(kind)));
            }
            ("pg_size_pretty", 1) => (F::SizePretty, &[Some(DataType::Int64)], text),
            ("pg_relation_is_publishable", 1) => (F::IsPublishable, &[ANY], DataType::Bool),
            ("pg_is_in_recovery", 0) => (F::IsInRecovery, &[], DataType::Bool),
            ("pg_get_statisticsobjdef_columns", 1) => (F::NoDefinition, &[OID_ARG], text),
            ("pg_get_function_arguments", 1) => {
                (F::FunctionArguments { defaults: true }, &[OID_ARG], text)
            }
            ("pg_get_function_identity_arguments", 1) => {
                (F::FunctionArguments { defaults: false }, &[OID_ARG], text)
            }
            ("pg_get_function_result", 1) => (F::FunctionResult, &[OID_ARG], text),
            ("pg_get_functiondef", 1) => (F::FunctionDef, &[OID_ARG], text),
            ("pg_advisory_unlock_all", 0) => (F::AdvisoryUnlockAll, &[], text),
            ("pg_sleep", 1) => (F::Sleep, &[Some(DataType::Float64)], text),
            ("pg_sleep_for", 1) => (
                F::Sleep,
                &[Some(DataType::Interval(IntervalTypmod::NONE))],
                text,
            ),
            ("acldefault", 2) => (F::AclDefault, &[TEXT, OID_ARG], super::ACL),
            (name, 1 | 2) if name.starts_with("pg_") && name.contains("advisory") => {
                let func = advisory_function(name)?;
                let result = match func {
                    F::AdvisoryLock { wait: true, .. } => text,
                    _ => DataType::Bool,
                };
                let parameters = match arguments {
                    1 => vec![Some(DataType::Int64)],
                    _ => vec![INT4, INT4],
                };
                return Some((func, parameters, result));
            }
            _ => return None,
        };
        Some((func, parameters[..arguments].to_vec(), result))
    }

    /// The output function of an OID alias type: its values as the names of the objects.
    /// `None` for plain `oid`, which prints as a number.
    pub fn output_of(kind: OidKind) -> Option<Self> {
        Some(match kind {
            OidKind::Oid => return None,
            OidKind::RegClass => CatalogFunction::RegClassOut,
            OidKind::RegType => CatalogFunction::RegTypeOut,
            OidKind::RegProc | OidKind::RegProcedure => CatalogFunction::RegProcOut,
            OidKind::RegNamespace => CatalogFunction::RegNamespaceOut,
            OidKind::RegRole => CatalogFunction::RegRoleOut,
        })
    }

    /// Whether the result depends on nothing but the arguments and the catalog, which a
    /// cached result is checked against (its version): the enum conversions.
    pub fn is_catalog_deterministic(self) -> bool {
        matches!(
            self,
            CatalogFunction::EnumIn(_) | CatalogFunction::EnumOut(_)
        )
    }

    /// Whether a NULL argument makes the result NULL without a call (format_type is not).
    pub fn is_strict(self) -> bool {
        self != CatalogFunction::FormatType
    }

    /// The result for one row's arguments (never all NULL for a strict function).
    pub(crate) fn eval(
        self,
        args: &[ScalarValue],
        snapshot: &CatalogSnapshot,
    ) -> Result<ScalarValue> {
        use CatalogFunction as F;
        let oid = || arg_oid(args.first());
        let text = |s: String| Ok(ScalarValue::Text(s));
        // The OID alias types print the invalid OID 0 as a dash.
        let alias_out = matches!(
            self,
            F::RegClassOut | F::RegTypeOut | F::RegProcOut | F::RegNamespaceOut | F::RegRoleOut
        );
        if alias_out && oid() == 0 {
            return text("-".to_string());
        }
        match self {
            F::IsVisible => Ok(ScalarValue::Bool(
                super::enum_types::enum_type_visible(snapshot, oid())
                    .or_else(|| function_visible(snapshot, oid()))
                    .unwrap_or_else(|| snapshot.relation_visible(oid())),
            )),
            F::HasPrivilege(function) => has_privilege(function, args, snapshot),
            F::IsPublishable | F::IsInRecovery => Ok(ScalarValue::Bool(false)),
            F::Description => Ok(match args.get(1) {
                // col_description(table, column)
                Some(ScalarValue::Int32(column)) => comment(snapshot, oid(), None, *column),
                Some(ScalarValue::Text(catalog)) => comment(snapshot, oid(), Some(catalog), 0),
                _ => comment(snapshot, oid(), None, 0),
            }
            .map_or(ScalarValue::Null, ScalarValue::Text)),
            F::NoDefinition => Ok(ScalarValue::Null),
            F::RelationSize => Ok(ScalarValue::Int64(0)),
            F::CurrentSetting => current_setting(args, snapshot),
            F::SetConfig => set_config(args, snapshot),
            F::AdvisoryLock {
                shared,
                transaction,
                wait,
            } => {
                let taken = advisory(snapshot)?.lock(
                    advisory_key(args)?,
                    advisory_mode(shared),
                    transaction,
                    wait,
                )?;
                Ok(match wait {
                    true => ScalarValue::Text(String::new()),
                    false => ScalarValue::Bool(taken),
                })
            }
            F::AdvisoryUnlock { shared } => Ok(ScalarValue::Bool(
                advisory(snapshot)?.unlock(advisory_key(args)?, advisory_mode(shared)),
            )),
            F::AdvisoryUnlockAll => {
                advisory(snapshot)?.unlock_all();
                Ok(ScalarValue::Text(String::new()))
            }
            F::Sleep => {
                let seconds = match args.first() {
                    Some(ScalarValue::Float64(seconds)) => *seconds,
                    // extract(epoch from interval), as pg_sleep_for's SQL body takes it.
                    Some(ScalarValue::Interval(i)) => {
                        f64::from(i.months) * 30.4375 * 86_400.0
                            + f64::from(i.days) * 86_400.0
                            + i.micros as f64 / 1e6
                    }
                    _ => 0.0,
                };
                sleep(seconds)?;
                Ok(ScalarValue::Text(String::new()))
            }
            // A name that finds nothing is NULL; a malformed one is still an error.
            F::ToReg(kind) => match args.first() {
                // to_regclass and the others look up names only: `-` and digits name
                // nothing.
                Some(ScalarValue::Text(written))
                    if numeric_alias_input(written).map_or(true, |oid| oid.is_some()) =>
                {
                    Ok(ScalarValue::Null)
                }
                Some(ScalarValue::Text(written)) => {
                    match object_oid(kind, written, snapshot.state, snapshot.search_path) {
                        Ok(found) => Ok(ScalarValue::Int64(i64::from(found))),
                        Err(error) if error.state == SqlState::InvalidName => Err(error),
                        Err(_) => Ok(ScalarValue::Null),
                    }
                }
                _ => Ok(ScalarValue::Null),
            },
            F::SizePretty => Ok(match args.first() {
                Some(ScalarValue::Int64(bytes)) => ScalarValue::Text(size_pretty(*bytes)),
                _ => ScalarValue::Null,
            }),
            F::GetUserById | F::RegRoleOut => text(snapshot.role_name(oid())),
            F::PartitionAncestors => {
                let tables = &snapshot.state.tables;
                let mut ancestors = Vec::new();
                let mut current = tables.get(&oid());
                while let Some(entry) = current {
                    let schema = &entry.schema;
                    if schema.partition_key.is_none() && schema.partition_of.is_none() {
                        break;
                    }
                    ancestors.push(ScalarValue::Int64(i64::from(schema.oid)));
                    current = (schema.partition_of.as_ref()).and_then(|of| tables.get(&of.parent));
                }
                Ok(ScalarValue::Array(ancestors))
            }
            F::GetPartKeyDef => Ok(match snapshot.state.tables.get(&oid()) {
                Some(entry) => match &entry.schema.partition_key {
                    Some(key) => ScalarValue::Text(crate::catalog::partition::key_definition(
                        key,
                        &entry.schema,
                    )),
                    None => ScalarValue::Null,
                },
                None => ScalarValue::Null,
            }),
            F::AclDefault => acl_default(args, snapshot),
            F::FormatType => match args.first() {
                Some(ScalarValue::Null) | None => Ok(ScalarValue::Null),
                Some(_) => {
                    let typmod = match args.get(1) {
                        Some(ScalarValue::Int32(m)) => *m,
                        _ => -1,
                    };
                    text(type_name(snapshot, oid(), typmod))
                }
            },
            F::RegTypeOut => text(type_name(snapshot, oid(), -1)),
            F::GetExpr => Ok(match (args.first(), args.get(2)) {
                (Some(ScalarValue::Text(plain)), Some(ScalarValue::Bool(true))) => {
                    let relation = arg_oid(args.get(1));
                    let pretty = super::constraints::pretty_expr(relation, plain, snapshot);
                    ScalarValue::Text(pretty.unwrap_or_else(|| plain.clone()))
                }
                (first, _) => first.cloned().unwrap_or(ScalarValue::Null),
            }),
            F::GetIndexDef => {
                let Some((table, index)) = find_index(oid(), snapshot) else {
                    return Ok(ScalarValue::Null);
                };
                // A column number asks for that key column alone.
                let column = match args.get(1) {
                    Some(ScalarValue::Int32(n)) if *n > 0 => Some(*n),
                    _ => None,
                };
                Ok(match column {
                    None => {
                        let pretty = matches!(args.get(2), Some(ScalarValue::Bool(true)));
                        let schema_name = snapshot.schema_name(table.schema.namespace);
                        ScalarValue::Text(index_definition(
                            &table.schema,
                            &schema_name,
                            &index,
                            pretty,
                        ))
                    }
                    Some(n) => usize::try_from(n - 1)
                        .ok()
                        .and_then(|i| index.columns.get(i))
                        .and_then(|&c| table.schema.columns.get(c))
                        .map_or(ScalarValue::Text(String::new()), |c| {
                            ScalarValue::Text(quote_identifier(&c.name))
                        }),
                })
            }
            F::GetConstraintDef => {
                let pretty = matches!(args.get(1), Some(ScalarValue::Bool(true)));
                Ok(constraint_definition(oid(), pretty, snapshot)
                    .map_or(ScalarValue::Null, ScalarValue::Text))
            }
            F::GetViewDef => {
                let view = snapshot.state.views.values().find(|v| v.oid == oid());
                let definition = match view {
                    Some(view) => Some(super::views::view_definition(view, snapshot)),
                    None => snapshot.state.tables.get(&oid()).and_then(|t| {
                        super::views::materialized_view_definition(&t.schema, snapshot)
                    }),
                };
                Ok(definition.map_or(ScalarValue::Null, ScalarValue::Text))
            }
            F::EncodingToChar => text(match args.first() {
                Some(ScalarValue::Int32(6)) => "UTF8".to_string(),
                Some(ScalarValue::Int32(0)) => "SQL_ASCII".to_string(),
                _ => String::new(),
            }),
            F::GetSerialSequence => serial_sequence(args, snapshot),
            F::FunctionArguments { defaults } if sql_function(snapshot, oid()).is_some() => Ok(
                sql_function(snapshot, oid()).map_or(ScalarValue::Null, |f| {
                    ScalarValue::Text(super::sql_functions::function_arguments(
                        snapshot, f, defaults,
                    ))
                }),
            ),
            F::FunctionResult if sql_function(snapshot, oid()).is_some() => {
                Ok(
                    sql_function(snapshot, oid()).map_or(ScalarValue::Null, |f| {
                        ScalarValue::Text(super::sql_functions::function_result(snapshot, f))
                    }),
                )
            }
            F::FunctionDef => Ok(
                sql_function(snapshot, oid()).map_or(ScalarValue::Null, |f| {
                    let schema = snapshot.schema_name(f.name.schema);
                    ScalarValue::Text(super::sql_functions::function_definition(
                        snapshot, f, &schema,
                    ))
                }),
            ),
            F::FunctionArguments { .. } => {
                Ok(FUNCTIONS
                    .iter()
                    .find(|f| f.0 == oid())
                    .map_or(ScalarValue::Null, |f| {
                        let names: Vec<String> = f.2.iter().map(|t| format_type(*t, -1)).collect();
                        ScalarValue::Text(names.join(", "))
                    }))
            }
            F::FunctionResult => Ok(FUNCTIONS
                .iter()
                .find(|f| f.0 == oid())
                .map_or(ScalarValue::Null, |f| {
                    ScalarValue::Text(format_type(f.3, -1))
                })),
            F::NameToOid(kind) => match args.first() {
                Some(ScalarValue::Text(name)) => Ok(ScalarValue::Int64(i64::from(object_oid(
                    kind,
                    name,
                    snapshot.state,
                    snapshot.search_path,
                )?))),
                _ => Ok(ScalarValue::Null),
            },
            F::RegClassOut => text(relation_name(oid(), snapshot).unwrap_or(oid().to_string())),
            F::RegProcOut => text(match sql_function(snapshot, oid()) {
                Some(function) => function.name.name.clone(),
                None => FUNCTIONS
                    .iter()
                    .find(|f| f.0 == oid())
                    .map_or(oid().to_string(), |f| f.1.to_string()),
            }),
            F::RegNamespaceOut => text(snapshot.schema_name(oid())),
            // Run a vector at a time by the executor (`exec/expression.rs`).
            F::EnumIn(_) | F::EnumOut(_) => Err(Error::internal(
                "enum conversions are evaluated a vector at a time",
            )),
        }
    }
}

/// An OID argument; OIDs are unsigned 32-bit, so out-of-range values name nothing.
fn arg_oid(value: Option<&ScalarValue>) -> u32 {
    match value {
        Some(ScalarValue::Int64(v)) => u32::try_from(*v).unwrap_or(0),
        Some(ScalarValue::Int32(v)) => u32::try_from(*v).unwrap_or(0),
        _ => 0,
    }
}

/// PostgreSQL's acldefault(): the owner holds every privilege of the object kind, and
/// PUBLIC the ones it gets by default (listed first, as PostgreSQL prints them).
fn acl_default(args: &[ScalarValue], snapshot: &CatalogSnapshot) -> Result<ScalarValue> {
    let kind = match args.first() {
        Some(ScalarValue::Text(kind)) => kind.as_str(),
        _ => return Ok(ScalarValue::Null),
    };
    let (owner_privileges, public_privileges) = match kind {
        "c" => ("U", ""),
        "r" => ("arwdDxt", ""),
        "s" => ("rwU", ""),
        "d" => ("CTc", "Tc"),
        "f" => ("X", "X"),
        "l" => ("U", "U"),
        "L" => ("rw", ""),
        "n" => ("UC", ""),
        "t" => ("C", ""),
        "F" | "S" => ("U", ""),
        "T" => ("U", "U"),
        // PostgreSQL reports it as an internal error too.
        other => {
            return Err(Error::internal(format!(
                "unrecognized objtype abbreviation: {other}"
            )))
        }
    };
    let owner = quote_identifier(&snapshot.role_name(arg_oid(args.get(1))));
    let mut items = Vec::new();
    if !public_privileges.is_empty() {
        items.push(format!("={public_privileges}/{owner}"));
    }
    items.push(format!("{owner}={owner_privileges}/{owner}"));
    Ok(ScalarValue::Array(
        items.into_iter().map(ScalarValue::Text).collect(),
    ))
}

/// current_setting(name [, missing_ok]): the session's value, 42704 for an unknown name
/// unless missing_ok (then NULL).
fn current_setting(args: &[ScalarValue], snapshot: &CatalogSnapshot) -> Result<ScalarValue> {
    let Some(ScalarValue::Text(name)) = args.first() else {
        return Ok(ScalarValue::Null);
    };
    let settings = snapshot.settings.unwrap_or_default();
    if let Some(found) = settings.iter().find(|s| s.name.eq_ignore_ascii_case(name)) {
        return Ok(ScalarValue::Text(found.setting.clone()));
    }
    match args.get(1) {
        Some(ScalarValue::Bool(true)) => Ok(ScalarValue::Null),
        _ => Err(Error::new(
            SqlState::UndefinedObject,
            format!("unrecognized configuration parameter \"{name}\""),
        )),
    }
}

/// The advisory lock function called `name`.
fn advisory_function(name: &str) -> Option<CatalogFunction> {
    let rest = name.strip_prefix("pg_")?;
    let (wait, rest) = match rest.strip_prefix("try_") {
        Some(rest) => (false, rest),
        None => (true, rest),
    };
    let (shared, rest) = match rest.strip_suffix("_shared") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    Some(match rest {
        "advisory_lock" => CatalogFunction::AdvisoryLock {
            shared,
            transaction: false,
            wait,
        },
        "advisory_xact_lock" => CatalogFunction::AdvisoryLock {
            shared,
            transaction: true,
            wait,
        },
        "advisory_unlock" if wait => CatalogFunction::AdvisoryUnlock { shared },
        _ => return None,
    })
}

fn advisory<'a>(snapshot: &CatalogSnapshot<'a>) -> Result<&'a crate::storage::AdvisoryLocks> {
    snapshot
        .advisory
        .ok_or_else(|| Error::unsupported("advisory locks outside a session"))
}

fn advisory_key(args: &[ScalarValue]) -> Result<crate::storage::AdvisoryKey> {
    use crate::storage::AdvisoryKey;
    match args {
        [ScalarValue::Int64(key)] => Ok(AdvisoryKey::Big(*key)),
        [ScalarValue::Int32(a), ScalarValue::Int32(b)] => Ok(AdvisoryKey::Pair(*a, *b)),
        _ => Err(Error::internal(
            "invariant: advisory lock keys are bigint or two integers",
        )),
    }
}

fn advisory_mode(shared: bool) -> crate::storage::LockMode {
    match shared {
        true => crate::storage::LockMode::Share,
        false => crate::storage::LockMode::Exclusive,
    }
}

/// `set_config(name, value, is_local)`: recorded for the session, which applies (and
/// checks) it as SET would once the statement has run; the value is its result.
fn set_config(args: &[ScalarValue], snapshot: &CatalogSnapshot) -> Result<ScalarValue> {
    let (Some(ScalarValue::Text(name)), Some(ScalarValue::Text(value)), Some(local)) =
        (args.first(), args.get(1), args.get(2))
    else {
        return Ok(ScalarValue::Null);
    };
    snapshot
        .setting_changes
        .borrow_mut()
        .push(crate::exec::SettingChange {
            name: name.to_lowercase(),
            value: value.clone(),
            local: matches!(local, ScalarValue::Bool(true)),
        });
    Ok(ScalarValue::Text(value.clone()))
}

/// PostgreSQL 15's pg_size_pretty: bytes below 10 kB, then the largest unit that keeps
/// the number under 20,480, rounded half away from zero.
fn size_pretty(bytes: i64) -> String {
    const LIMIT: i64 = 10 * 1024;
    if bytes.abs() < LIMIT {
        return format!("{bytes} bytes");
    }
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    // One extra bit is kept for rounding.
    let mut size = bytes >> 9;
    for unit in ["kB", "MB", "GB", "TB"] {
        if size.abs() < LIMIT * 2 - 1 {
            return format!("{} {unit}", half_rounded(size));
        }
        size >>= 10;
    }
    format!("{} PB", half_rounded(size))
}

/// format_type with the catalog at hand: enum types, domains, row types and arrays of enum
/// and row types are named too.
pub(super) fn type_name(snapshot: &CatalogSnapshot, type_oid: u32, typmod: i32) -> String {
    if let Some(relation) = crate::catalog::row_array_relation(snapshot.state, type_oid) {
        let element = crate::catalog::row_type_oid(relation.oid);
        return format!("{}[]", type_name(snapshot, element, -1));
    }
    if let Some(element) = super::enum_types::enum_array_element(snapshot.state, type_oid) {
        return format!("{}[]", type_name(snapshot, element, -1));
    }
    super::enum_types::enum_type_name(snapshot, type_oid)
        .unwrap_or_else(|| format_type(type_oid, typmod))
}

/// PostgreSQL's `format_type(type, typmod)`.
pub fn format_type(type_oid: u32, typmod: i32) -> String {
    if let Some(ty) = DataType::from_oid(type_oid) {
        // bit without a length is quoted, as the keyword would mean bit(1).
        if ty == DataType::Bit(None) && typmod <= 0 {
            return "\"bit\"".to_string();
        }
        let ty = ty.with_typmod(typmod);
        // PostgreSQL prints bpchar without a length as "bpchar".
        match ty {
            DataType::Char(None) => return "bpchar".to_string(),
            DataType::Array(DataType::Bit(None)) => return "\"bit\"[]".to_string(),
            // An array's modifier is its element's: `character varying(3)[]`.
            DataType::Array(elem) if *elem != elem.unmodified() => return format!("{elem}[]"),
            _ => {}
        }
        return ty.to_string();
    }
    match builtin(type_oid) {
        Some(t) if t.category == b'A' => format!("{}[]", format_type(t.element, -1)),
        Some(t) if t.name == "char" => "\"char\"".to_string(),
        Some(t) => t.name.to_string(),
        None => "???".to_string(),
    }
}

/// The table and index whose derived OID is `index_oid`.
fn find_index<'a>(
    index_oid: u32,
    snapshot: &'a CatalogSnapshot,
) -> Option<(&'a TableEntry, IndexInfo<'a>)> {
    snapshot.state.tables.values().find_map(|entry| {
        let found = indexes(&entry.schema)
            .into_iter()
            .find(|i| i.oid == index_oid)?;
        Some((entry.as_ref(), found))
    })
}

/// `PRIMARY KEY (id)`, `UNIQUE (a, b)`, `CHECK (a > 0)` or `FOREIGN KEY (a) REFERENCES
/// p(id) ...`.
fn constraint_definition(
    constraint_oid: u32,
    pretty: bool,
    snapshot: &CatalogSnapshot,
) -> Option<String> {
    foreign_key_definition(constraint_oid, snapshot)
        .or_else(|| key_or_check_definition(constraint_oid, pretty, snapshot))
        .or_else(|| super::domains::check_definition(snapshot, constraint_oid, pretty))
}

/// A foreign key as ruleutils.c prints it: the referenced table named as regclass would,
/// MATCH FULL, the actions other than NO ACTION, then DEFERRABLE, INITIALLY DEFERRED and
/// NOT VALID.
fn foreign_key_definition(constraint_oid: u32, snapshot: &CatalogSnapshot) -> Option<String> {
    let state = snapshot.state;
    let (schema, key) = state.tables.values().find_map(|entry| {
        let schema = &entry.schema;
        let position = (0..schema.foreign_keys.len())
            .position(|i| super::relations::foreign_key_oid(schema, i) == constraint_oid)?;
        Some((schema, &schema.foreign_keys[position]))
    })?;
    let referenced = state.tables.get(&key.referenced_table)?;
    let names = |table: &crate::catalog::TableSchema, columns: &[usize]| {
        columns
            .iter()
            .filter_map(|&c| table.columns.get(c))
            .map(|c| quote_identifier(&c.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "FOREIGN KEY ({}) REFERENCES {}({})",
        names(schema, &key.columns),
        relation_name(key.referenced_table, snapshot)?,
        names(&referenced.schema, &key.referenced_columns)
    );
    if key.match_full {
        out.push_str(" MATCH FULL");
    }
    for (event, action) in [("UPDATE", key.on_update), ("DELETE", key.on_delete)] {
        if action != ReferentialAction::NoAction {
            out.push_str(&format!(" ON {event} {}", action.sql()));
        }
    }
    if key.deferrable {
        out.push_str(" DEFERRABLE");
    }
    if key.initially_deferred {
        out.push_str(" INITIALLY DEFERRED");
    }
    if !key.validated {
        out.push_str(" NOT VALID");
    }
    Some(out)
}

fn key_or_check_definition(
    constraint_oid: u32,
    pretty: bool,
    snapshot: &CatalogSnapshot,
) -> Option<String> {
    snapshot.state.tables.values().find_map(|entry| {
        let schema = &entry.schema;
        if let Some(definition) = super::constraints::definition(schema, constraint_oid, pretty) {
            return Some(definition);
        }
        indexes(schema)
            .iter()
            .enumerate()
            .find_map(|(position, index)| {
                let oid = super::relations::derived_oid(schema.oid, Derived::Constraint, position);
                if !index.constraint || oid != constraint_oid {
                    return None;
                }
                let columns: Vec<String> = index
                    .columns
                    .iter()
                    .filter_map(|&c| schema.columns.get(c))
                    .map(|c| quote_identifier(&c.name))
                    .collect();
                let kind = if index.primary {
                    "PRIMARY KEY"
                } else {
                    "UNIQUE"
                };
                Some(format!("{kind} ({})", columns.join(", ")))
            })
    })
}

/// The name `oid::regclass` prints: qualified only where the search path would not find it.
fn relation_name(relation_oid: u32, snapshot: &CatalogSnapshot) -> Option<String> {
    if let Some(r) = RELATIONS.iter().find(|r| r.oid == relation_oid) {
        return Some(r.name.to_string());
    }
    let name = super::user_relation_name(snapshot.state, relation_oid)?;
    // Qualified unless the search path finds it by its bare name.
    match snapshot.namespace_of(relation_oid) {
        _ if snapshot.relation_visible(relation_oid) => Some(quote_identifier(&name)),
        namespace => Some(format!(
            "{}.{}",
            quote_identifier(&snapshot.schema_name(namespace)),
            quote_identifier(&name)
        )),
    }
}

/// The input function of an OID alias (regclassin, regtypein, ...): the OID of the object
/// `written` names along `search_path` (a guess without one); a number is taken as the
/// OID itself.
pub fn object_oid(
    kind: OidKind,
    written: &str,
    state: &DbState,
    search_path: Option<&SearchPath>,
) -> Result<u32> {
    if let Some(oid) = numeric_alias_input(written)? {
        return Ok(oid);
    }
    match kind {
        OidKind::Oid | OidKind::RegClass => relation_oid(written, state, search_path),
        OidKind::RegNamespace => {
            let name = identifier_from_text(written);
            namespaces(state)
                .into_iter()
                .find(|(_, n)| *n == name)
                .map(|(oid, _)| oid)
                .ok_or_else(|| {
                    Error::new(
                        SqlState::InvalidSchemaName,
                        format!("schema \"{name}\" does not exist"),
                    )
                })
        }
        OidKind::RegType => {
            let name = written.trim().to_lowercase();
            let name = name.strip_prefix("pg_catalog.").unwrap_or(&name);
            // The SQL spellings the grammar knows besides the catalog's names.
            let name = match name {
                "int" => "integer",
                "float" => "double precision",
                "decimal" => "numeric",
                other => other,
            };
            super::BUILTIN_TYPES
                .iter()
                .find(|t| t.name == name || format_type(t.oid, -1) == name)
                .map(|t| t.oid)
                .or_else(|| super::enum_types::enum_type_oid(state, name))
                .ok_or_else(|| {
                    Error::new(
                        SqlState::UndefinedObject,
                        format!("type \"{}\" does not exist", written.trim()),
                    )
                })
        }
        OidKind::RegProc | OidKind::RegProcedure | OidKind::RegRole => Err(Error::unsupported(
            format!("names as {} values", kind.name()),
        )),
    }
}

/// The OID an alias type's input takes as written: a number, or `-` for 0.
fn numeric_alias_input(written: &str) -> Result<Option<u32>> {
    let written = written.trim();
    if written == "-" {
        return Ok(Some(0));
    }
    if !written.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let oid = u32::try_from(parse_oid(written)?);
    oid.map(Some)
        .map_err(|_| Error::out_of_range("OID out of range"))
}

/// regclassin: the OID of the relation a name finds (`'t'::regclass`), or 42P01; a
/// number is taken as the OID itself.
pub fn relation_oid(
    written: &str,
    state: &DbState,
    search_path: Option<&SearchPath>,
) -> Result<u32> {
    if let Some(oid) = numeric_alias_input(written)? {
        return Ok(oid);
    }
    let parts = crate::catalog::split_identifiers(written, '.')
        .filter(|parts| !parts.is_empty())
        .ok_or_else(|| Error::new(SqlState::InvalidName, "invalid name syntax"))?;
    let (schema, name) = match parts.as_slice() {
        [name] => (None, name.as_str()),
        [schema, name] => (Some(schema.as_str()), name.as_str()),
        _ => {
            return Err(Error::syntax(format!(
                "improper relation name (too many dotted names): {written}"
            )))
        }
    };
    let oid = match (schema, search_path) {
        (None, Some(path)) => path.searched(state).into_iter().find_map(|schema| {
            if schema == super::PG_CATALOG_OID {
                super::lookup(None, name).map(|r| r.oid)
            } else {
                user_relation_oid(&QualifiedName::new(schema, name), state)
            }
        }),
        (None, None) => super::lookup(None, name).map(|r| r.oid).or_else(|| {
            // Without the session's search path: `public` first, then the other
            // non-temporary schemas in OID order.
            let mut schemas: Vec<u32> = state
                .schema_list()
                .iter()
                .filter(|s| !s.is_temporary())
                .map(|s| s.oid)
                .collect();
            schemas.sort_by_key(|&oid| (oid != super::PUBLIC_OID, oid));
            schemas
                .into_iter()
                .find_map(|schema| user_relation_oid(&QualifiedName::new(schema, name), state))
        }),
        (Some(schema), _) => {
            match state.schema_by_name(search_path.map_or(schema, |p| p.schema_alias(schema))) {
                Some(def) if def.is_system() => super::lookup(Some(schema), name).map(|r| r.oid),
                Some(def) => user_relation_oid(&QualifiedName::new(def.oid, name), state),
                None => {
                    return Err(Error::new(
                        SqlState::InvalidSchemaName,
                        format!("schema \"{schema}\" does not exist"),
                    ))
                }
            }
        }
    };
    match oid {
        Some(oid) => Ok(oid),
        None => Err(Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{written}\" does not exist"),
        )),
    }
}

fn user_relation_oid(name: &QualifiedName, state: &DbState) -> Option<u32> {
    state
        .names
        .get(name)
        .copied()
        .or_else(|| state.views.get(name).map(|v| v.oid))
        .or_else(|| state.sequences.get(name).map(|s| s.oid))
        .or_else(|| state.composite_type_named(name).map(|c| c.oid))
        .or_else(|| {
            state
                .tables
                .values()
                .filter(|entry| entry.schema.namespace == name.schema)
                .find_map(|entry| {
                    indexes(&entry.schema)
                        .into_iter()
                        .find(|i| i.name == name.name)
                        .map(|i| i.oid)
                })
        })
}

/// An identifier written in a string, as PostgreSQL reads it: folded to lower case unless
/// double-quoted.
pub(super) fn identifier_from_text(part: &str) -> String {
    let part = part.trim();
    match part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\"\"", "\""),
        None => part.to_lowercase(),
    }
}

/// `pg_get_serial_sequence('table', 'column')`: the sequence a SERIAL or identity column
/// takes its values from, schema-qualified.
fn serial_sequence(args: &[ScalarValue], snapshot: &CatalogSnapshot) -> Result<ScalarValue> {
    let (Some(ScalarValue::Text(table)), Some(ScalarValue::Text(column))) =
        (args.first(), args.get(1))
    else {
        return Ok(ScalarValue::Null);
    };
    let relation = relation_oid(table, snapshot.state, snapshot.search_path)?;
    let Some(entry) = snapshot.state.tables.get(&relation) else {
        return Err(Error::new(
            SqlState::WrongObjectType,
            format!("\"{table}\" is not a table"),
        ));
    };
    let table = entry.schema.name.clone();
    let column = identifier_from_text(column);
    if entry.schema.column_index(&column).is_none() {
        return Err(Error::new(
            SqlState::UndefinedColumn,
            format!("column \"{column}\" of relation \"{table}\" does not exist"),
        ));
    }
    let owned = snapshot.state.sequences.values().find(|s| {
        s.name.schema == entry.schema.namespace
            && s.owned_by
                .as_ref()
                .is_some_and(|(t, c)| *t == table && *c == column)
    });
    Ok(owned.map_or(ScalarValue::Null, |s| {
        ScalarValue::Text(format!(
            "{}.{}",
            quote_identifier(&snapshot.schema_name(s.name.schema)),
            quote_identifier(&s.name.name)
        ))
    }))
}

/// pg_sleep: waits `seconds` (nothing for a negative or NaN count) in slices short enough
/// that a CancelRequest or statement_timeout ends it at once, as PostgreSQL's latch wait does.
fn sleep(seconds: f64) -> Result<()> {
    const SLICE: std::time::Duration = std::time::Duration::from_millis(10);
    if seconds.is_nan() || seconds <= 0.0 {
        return crate::interrupt::check_running();
    }
    let total = std::time::Duration::try_from_secs_f64(seconds).unwrap_or(std::time::Duration::MAX);
    let start = std::time::Instant::now();
    loop {
        crate::interrupt::check_running()?;
        let Some(left) = total.checked_sub(start.elapsed()).filter(|d| !d.is_zero()) else {
            return Ok(());
        };
        std::thread::sleep(left.min(SLICE));
    }
}
