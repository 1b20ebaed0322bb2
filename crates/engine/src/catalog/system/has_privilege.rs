//! has_table_privilege, has_column_privilege, has_schema_privilege,
//! has_database_privilege and has_sequence_privilege, evaluated with the ACLs `catalog/privilege.rs` keeps, as
//! PostgreSQL's acl.c does: `([role,] object, privileges)`, where the role and the object
//! are a name or an OID, and privileges a comma-separated list of which any one held
//! (`WITH GRANT OPTION`: with it) answers true. An unknown object named by OID gives NULL.
//! The kinds that keep no ACLs here (functions, types) answer true.

use super::functions::{identifier_from_text, object_oid};
use super::CatalogSnapshot;
use crate::catalog::system::SUPERUSER_OID;
use crate::catalog::{AclMode, ObjectKind, ObjectPrivileges, ParamMode};
use crate::error::{Error, Result, SqlState};
use crate::types::{OidKind, ScalarValue};

/// Which has_*_privilege function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivilegeFunction {
    Table,
    /// has_column_privilege: the table's privilege, or the column's own.
    Column,
    Schema,
    Database,
    /// Types: no ACLs are kept for them.
    Unchecked,
    Sequence,
    /// has_any_column_privilege: the table's privilege, or one column's.
    AnyColumn,
    /// has_function_privilege: EXECUTE on a SQL function (built-in ones are PUBLIC's).
    Function,
}

impl PrivilegeFunction {
    pub fn of(name: &str) -> PrivilegeFunction {
        match name {
            "has_table_privilege" => PrivilegeFunction::Table,
            "has_column_privilege" => PrivilegeFunction::Column,
            "has_any_column_privilege" => PrivilegeFunction::AnyColumn,
            "has_schema_privilege" => PrivilegeFunction::Schema,
            "has_database_privilege" => PrivilegeFunction::Database,
            "has_sequence_privilege" => PrivilegeFunction::Sequence,
            "has_function_privilege" => PrivilegeFunction::Function,
            _ => PrivilegeFunction::Unchecked,
        }
    }

    /// The privilege names the function accepts, and their bits.
    fn privilege_names(self) -> &'static [(&'static str, AclMode)] {
        match self {
            PrivilegeFunction::Table => &[
                ("SELECT", AclMode::SELECT),
                ("INSERT", AclMode::INSERT),
                ("UPDATE", AclMode::UPDATE),
                ("DELETE", AclMode::DELETE),
                ("TRUNCATE", AclMode::TRUNCATE),
                ("REFERENCES", AclMode::REFERENCES),
                ("TRIGGER", AclMode::TRIGGER),
                ("RULE", AclMode::NONE),
            ],
            PrivilegeFunction::Column | PrivilegeFunction::AnyColumn => &[
                ("SELECT", AclMode::SELECT),
                ("INSERT", AclMode::INSERT),
                ("UPDATE", AclMode::UPDATE),
                ("REFERENCES", AclMode::REFERENCES),
            ],
            PrivilegeFunction::Schema => &[("CREATE", AclMode::CREATE), ("USAGE", AclMode::USAGE)],
            PrivilegeFunction::Database => &[
                ("CREATE", AclMode::CREATE),
                ("TEMPORARY", AclMode::TEMPORARY),
                ("TEMP", AclMode::TEMPORARY),
                ("CONNECT", AclMode::CONNECT),
            ],
            PrivilegeFunction::Unchecked => &[],
            PrivilegeFunction::Function => &[("EXECUTE", AclMode::EXECUTE)],
            PrivilegeFunction::Sequence => &[
                ("USAGE", AclMode::USAGE),
                ("SELECT", AclMode::SELECT),
                ("UPDATE", AclMode::UPDATE),
            ],
        }
    }
}

pub(super) fn has_privilege(
    function: PrivilegeFunction,
    args: &[ScalarValue],
    snapshot: &CatalogSnapshot,
) -> Result<ScalarValue> {
    if args.iter().any(|a| matches!(a, ScalarValue::Null)) {
        return Ok(ScalarValue::Null);
    }
    if function == PrivilegeFunction::Unchecked {
        return Ok(ScalarValue::Bool(true));
    }
    // has_column_privilege takes (table, column, privilege) after the optional role.
    let object_args = match function {
        PrivilegeFunction::Column => 2,
        _ => 1,
    };
    let (role, rest) = match args.len().saturating_sub(object_args) {
        1 => (snapshot.session.role_oid, args),
        _ => (role_oid(&args[0], snapshot)?, &args[1..]),
    };
    let (Some(object), Some(ScalarValue::Text(privileges))) = (rest.first(), rest.last()) else {
        return Ok(ScalarValue::Null);
    };
    let (wanted, with_grant_option) = parse_privileges(function, privileges)?;
    let roles = &snapshot.state.roles;
    let (kind, privileges) = match function {
        PrivilegeFunction::Table | PrivilegeFunction::Column | PrivilegeFunction::AnyColumn => {
            let Some(oid) = relation(object, snapshot)? else {
                return Ok(ScalarValue::Null);
            };
            let state = snapshot.state;
            let columns = match function {
                PrivilegeFunction::Column => match column(oid, &rest[1], snapshot)? {
                    Some(attnum) => vec![attnum],
                    None => return Ok(ScalarValue::Null),
                },
                _ => roles
                    .privileges
                    .columns
                    .of_table(oid)
                    .map(|(n, _)| n)
                    .collect(),
            };
            if state.sequences.values().any(|s| s.oid == oid) {
                (ObjectKind::Sequence, roles.sequence_privileges(oid))
            } else if !state.tables.contains_key(&oid)
                && !state.views.values().any(|v| v.oid == oid)
            {
                // A system relation: everyone may read it (initdb's =r ACL).
                let public_read = !with_grant_option && wanted.contains(AclMode::SELECT);
                return Ok(ScalarValue::Bool(public_read || roles.is_superuser(role)));
            } else if function != PrivilegeFunction::Table {
                let on_column = |attnum: i16| {
                    let (held, options) = roles.column_privileges_and_options(role, oid, attnum);
                    let held = if with_grant_option { options } else { held };
                    !held.intersection(wanted).is_empty()
                };
                if columns.into_iter().any(on_column) {
                    return Ok(ScalarValue::Bool(true));
                }
                (ObjectKind::Relation, roles.relation_privileges(oid))
            } else {
                (ObjectKind::Relation, roles.relation_privileges(oid))
            }
        }
        PrivilegeFunction::Sequence => {
            let Some(oid) = relation(object, snapshot)? else {
                return Ok(ScalarValue::Null);
            };
            if !snapshot.state.sequences.values().any(|s| s.oid == oid) {
                let name = match object {
                    ScalarValue::Text(name) => name.clone(),
                    _ => oid.to_string(),
                };
                return Err(Error::new(
                    SqlState::WrongObjectType,
                    format!("\"{name}\" is not a sequence"),
                ));
            }
            (ObjectKind::Sequence, roles.sequence_privileges(oid))
        }
        PrivilegeFunction::Schema => {
            let Some(oid) = schema(object, snapshot)? else {
                return Ok(ScalarValue::Null);
            };
            match snapshot.state.schemas.get(&oid) {
                Some(schema) => (ObjectKind::Schema, roles.schema_privileges(schema)),
                None => return Ok(ScalarValue::Bool(roles.is_superuser(role))),
            }
        }
        PrivilegeFunction::Database => (ObjectKind::Database, roles.database_privileges()),
        PrivilegeFunction::Function => match function_oid(object, snapshot)? {
            FunctionFound::Sql(oid) => (ObjectKind::Function, roles.function_privileges(oid)),
            FunctionFound::BuiltIn => return Ok(ScalarValue::Bool(true)),
            FunctionFound::Missing => return Ok(ScalarValue::Null),
        },
        PrivilegeFunction::Unchecked => return Ok(ScalarValue::Bool(true)),
    };
    Ok(ScalarValue::Bool(holds(
        roles,
        role,
        kind,
        &privileges,
        wanted,
        with_grant_option,
    )))
}

/// What a has_function_privilege argument names.
enum FunctionFound {
    Sql(u32),
    /// Not a SQL function: taken as a built-in one, which everyone may execute.
    BuiltIn,
    /// An OID of no function: NULL.
    Missing,
}

/// The function `value` names: an OID, or `name(argument types)` as regprocedure reads
/// it (42883 when a SQL function of that name has no such arguments).
fn function_oid(value: &ScalarValue, snapshot: &CatalogSnapshot) -> Result<FunctionFound> {
    let functions = &snapshot.state.functions;
    let text = match value {
        ScalarValue::Text(text) => text.trim(),
        other => {
            return Ok(match int_oid(other) {
                Some(oid) if functions.contains_key(&oid) => FunctionFound::Sql(oid),
                // PostgreSQL's own objects have OIDs below the first user one.
                Some(oid) if oid < 16384 => FunctionFound::BuiltIn,
                _ => FunctionFound::Missing,
            });
        }
    };
    let (name, args) = text.split_once('(').unwrap_or((text, ")"));
    let args = args.trim_end().strip_suffix(')').unwrap_or(args);
    let (schema, name) = match name.trim().rsplit_once('.') {
        Some((schema, name)) => (
            Some(identifier_from_text(schema)),
            identifier_from_text(name),
        ),
        None => (None, identifier_from_text(name)),
    };
    let mut types = Vec::new();
    for arg in split_arguments(args) {
        types.push(object_oid(
            OidKind::RegType,
            arg,
            snapshot.state,
            snapshot.search_path,
        )?);
    }
    let named: Vec<_> = functions
        .values()
        .filter(|f| f.name.name == name)
        .filter(|f| {
            schema.as_deref().is_none_or(|s| {
                snapshot
                    .state
                    .schemas
                    .get(&f.name.schema)
                    .is_some_and(|d| d.name == s)
            })
        })
        .collect();
    if named.is_empty() {
        return Ok(FunctionFound::BuiltIn);
    }
    let found = named.iter().find(|f| {
        let inputs = f.args.iter().filter(|a| a.mode != ParamMode::Out);
        inputs.map(|a| a.ty.oid()).eq(types.iter().copied())
    });
    match found {
        Some(f) => Ok(FunctionFound::Sql(f.oid)),
        None => Err(Error::new(
            SqlState::UndefinedFunction,
            format!("function \"{text}\" does not exist"),
        )),
    }
}

/// The argument types of `name(a, b)`, split at commas outside parentheses.
fn split_arguments(args: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = args[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// The attribute number of the column of relation `oid` named or numbered by `value`:
/// 42703 for an unknown name, `None` for an unknown number (acl.c's
/// convert_column_name and column_privilege_check).
fn column(oid: u32, value: &ScalarValue, snapshot: &CatalogSnapshot) -> Result<Option<i16>> {
    let state = snapshot.state;
    let (relation, names): (String, Vec<&str>) = match state.tables.get(&oid) {
        Some(table) => (
            table.schema.name.clone(),
            table
                .schema
                .columns
                .iter()
                .map(|c| c.name.as_str())
                .collect(),
        ),
        None => match state.views.values().find(|v| v.oid == oid) {
            Some(view) => (
                view.name.clone(),
                view.columns.iter().map(|(n, _)| n.as_str()).collect(),
            ),
            None => return Ok(Some(1)),
        },
    };
    match value {
        ScalarValue::Text(name) => match names.iter().position(|n| n == name) {
            Some(position) => Ok(i16::try_from(position + 1).ok()),
            None => Err(Error::new(
                SqlState::UndefinedColumn,
                format!("column \"{name}\" of relation \"{relation}\" does not exist"),
            )),
        },
        ScalarValue::Int16(n) if *n >= 1 && usize::try_from(*n).is_ok_and(|n| n <= names.len()) => {
            Ok(Some(*n))
        }
        _ => Ok(None),
    }
}

fn holds(
    roles: &crate::catalog::RoleCatalog,
    role: u32,
    kind: ObjectKind,
    object: &ObjectPrivileges,
    wanted: AclMode,
    with_grant_option: bool,
) -> bool {
    let (held, options) = roles.privileges_of(role, kind, object);
    let held = if with_grant_option { options } else { held };
    !held.intersection(wanted).is_empty()
}

/// The privileges a text names (22023 for an unknown one), and whether each asked for
/// its grant option.
fn parse_privileges(function: PrivilegeFunction, text: &str) -> Result<(AclMode, bool)> {
    let mut wanted = AclMode::NONE;
    let mut with_grant_option = false;
    for part in text.split(',') {
        let words: Vec<String> = part
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        let (name, grant) = match words.as_slice() {
            [name] => (name.as_str(), false),
            [name, with, grant, option]
                if with == "WITH" && grant == "GRANT" && option == "OPTION" =>
            {
                (name.as_str(), true)
            }
            _ => (part.trim(), false),
        };
        let Some((_, bits)) = function
            .privilege_names()
            .iter()
            .find(|(known, _)| *known == name)
        else {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("unrecognized privilege type: \"{}\"", part.trim()),
            ));
        };
        wanted = wanted.union(*bits);
        with_grant_option |= grant;
    }
    Ok((wanted, with_grant_option))
}

/// A role named or given by OID (42704 for an unknown name).
fn role_oid(value: &ScalarValue, snapshot: &CatalogSnapshot) -> Result<u32> {
    match value {
        ScalarValue::Text(name) => {
            let session = snapshot.session.session_role();
            match name.as_str() {
                "public" => Ok(crate::catalog::PUBLIC_GRANTEE),
                name => Ok(snapshot.state.roles.named(name, &session)?.oid),
            }
        }
        other => Ok(int_oid(other).unwrap_or(SUPERUSER_OID)),
    }
}

/// A relation named (42P01 when missing) or given by OID (`None` when missing).
fn relation(value: &ScalarValue, snapshot: &CatalogSnapshot) -> Result<Option<u32>> {
    match value {
        ScalarValue::Text(name) => object_oid(
            OidKind::RegClass,
            name,
            snapshot.state,
            snapshot.search_path,
        )
        .map(Some),
        other => Ok(int_oid(other).filter(|oid| {
            snapshot.state.tables.contains_key(oid)
                || snapshot.state.views.values().any(|v| v.oid == *oid)
                || snapshot.state.sequences.values().any(|s| s.oid == *oid)
                || super::RELATIONS.iter().any(|r| r.oid == *oid)
        })),
    }
}

/// A schema named (3F000 when missing) or given by OID (`None` when missing).
fn schema(value: &ScalarValue, snapshot: &CatalogSnapshot) -> Result<Option<u32>> {
    match value {
        ScalarValue::Text(name) => object_oid(
            OidKind::RegNamespace,
            name,
            snapshot.state,
            snapshot.search_path,
        )
        .map(Some),
        other => Ok(int_oid(other).filter(|oid| snapshot.state.schemas.contains_key(oid))),
    }
}

fn int_oid(value: &ScalarValue) -> Option<u32> {
    match value {
        ScalarValue::Int64(v) => u32::try_from(*v).ok(),
        ScalarValue::Int32(v) => u32::try_from(*v).ok(),
        _ => None,
    }
}
