//! The relations that describe types, functions and access methods: pg_type (every
//! built-in type with PostgreSQL's OIDs), pg_range, pg_enum, pg_collation, pg_am, pg_proc,
//! pg_operator, pg_extension, pg_available_extensions and pg_language. Their rows are
//! static but for the enum types (`enum_types.rs`), the SQL functions and the installed
//! extensions.

use super::relations::{BTREE_AM, HASH_AM, HEAP_AM, HNSW_AM};
use super::{
    boolean, char, int2, int4, oid, oid_vector, text, BuiltinType, CatalogSnapshot, Rows, ACL,
    BOOL, BUILTIN_TYPES, CHAR, FLOAT4, INT2, INT4, NAME, NULL, OID, OIDVECTOR, OPAQUE,
    PG_CATALOG_OID, REGPROC, SUPERUSER_OID, TEXT, TEXT_ARRAY,
};
use crate::catalog::{Extension, AVAILABLE_EXTENSIONS};
use crate::types::{DataType, OidKind, ScalarValue};

/// The built-in type with OID `type_oid`.
pub(crate) fn builtin(type_oid: u32) -> Option<&'static BuiltinType> {
    BUILTIN_TYPES.iter().find(|t| t.oid == type_oid)
}

pub(super) const PG_TYPE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("typname", NAME),
    ("typnamespace", OID),
    ("typowner", OID),
    ("typlen", INT2),
    ("typbyval", BOOL),
    ("typtype", CHAR),
    ("typcategory", CHAR),
    ("typispreferred", BOOL),
    ("typisdefined", BOOL),
    ("typdelim", CHAR),
    ("typrelid", OID),
    ("typsubscript", REGPROC),
    ("typelem", OID),
    ("typarray", OID),
    ("typinput", REGPROC),
    ("typoutput", REGPROC),
    ("typreceive", REGPROC),
    ("typsend", REGPROC),
    ("typmodin", REGPROC),
    ("typmodout", REGPROC),
    ("typanalyze", REGPROC),
    ("typalign", CHAR),
    ("typstorage", CHAR),
    ("typnotnull", BOOL),
    ("typbasetype", OID),
    ("typtypmod", INT4),
    ("typndims", INT4),
    ("typcollation", OID),
    ("typdefaultbin", OPAQUE),
    ("typdefault", TEXT),
    ("typacl", ACL),
];

pub(super) fn pg_type(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows: Rows = BUILTIN_TYPES
        .iter()
        .map(|t| {
            vec![
                oid(t.oid),
                text(t.name),
                oid(PG_CATALOG_OID),
                oid(SUPERUSER_OID),
                int2(t.len),
                boolean(t.by_value),
                char(t.kind),
                char(t.category),
                boolean(t.preferred),
                boolean(true),
                char(t.delimiter),
                oid(0),
                text(t.subscript),
                oid(t.element),
                oid(t.array),
                text(t.input),
                text(t.output),
                text(t.receive),
                text(t.send),
                text(t.modifier_input),
                text(t.modifier_output),
                text(t.analyze),
            ]
            .into_iter()
            .chain(pg_type_tail(t.align, t.storage, t.collation))
            .collect()
        })
        .collect();
    rows.extend(super::enum_types::pg_type_rows(snapshot));
    rows.extend(super::row_types::pg_type_rows(snapshot));
    let domains = super::domains::pg_type_rows(snapshot, &rows);
    rows.extend(domains);
    rows
}

/// pg_type's last columns, typalign to typacl, of a type that is not a domain.
pub(super) fn pg_type_tail(align: u8, storage: u8, collation: u32) -> [ScalarValue; 10] {
    [
        char(align),
        char(storage),
        boolean(false),
        oid(0),
        int4(-1),
        int4(0),
        oid(collation),
        NULL,
        NULL,
        NULL,
    ]
}

pub(super) const PG_RANGE: &[(&str, DataType)] = &[
    ("rngtypid", OID),
    ("rngsubtype", OID),
    ("rngmultitypid", OID),
    ("rngcollation", OID),
    ("rngsubopc", OID),
    ("rngcanonical", REGPROC),
    ("rngsubdiff", REGPROC),
];

pub(super) fn pg_range(_: &CatalogSnapshot) -> Rows {
    [
        (
            3904,
            23,
            4451,
            1978,
            "int4range_canonical",
            "int4range_subdiff",
        ),
        (3906, 1700, 4532, 3125, "-", "numrange_subdiff"),
        (3908, 1114, 4533, 3128, "-", "tsrange_subdiff"),
        (3910, 1184, 4534, 3127, "-", "tstzrange_subdiff"),
        (
            3912,
            1082,
            4535,
            3122,
            "daterange_canonical",
            "daterange_subdiff",
        ),
        (
            3926,
            20,
            4536,
            3124,
            "int8range_canonical",
            "int8range_subdiff",
        ),
    ]
    .into_iter()
    .map(
        |(range, subtype, multirange, opclass, canonical, subdiff)| {
            vec![
                oid(range),
                oid(subtype),
                oid(multirange),
                oid(0),
                oid(opclass),
                text(canonical),
                text(subdiff),
            ]
        },
    )
    .collect()
}

pub(super) const PG_ENUM: &[(&str, DataType)] = &[
    ("oid", OID),
    ("enumtypid", OID),
    ("enumsortorder", FLOAT4),
    ("enumlabel", NAME),
];

pub(super) const PG_COLLATION: &[(&str, DataType)] = &[
    ("oid", OID),
    ("collname", NAME),
    ("collnamespace", OID),
    ("collowner", OID),
    ("collprovider", CHAR),
    ("collisdeterministic", BOOL),
    ("collencoding", INT4),
    ("collcollate", TEXT),
    ("collctype", TEXT),
    ("colliculocale", TEXT),
    ("collversion", TEXT),
];

/// The collations every PostgreSQL has; text here always compares by byte, which is what
/// "C" (and the default of a cluster made with `--locale=C.UTF-8`) means.
pub(super) fn pg_collation(_: &CatalogSnapshot) -> Rows {
    [
        (100, "default", b'd', -1, None),
        (950, "C", b'c', -1, Some("C")),
        (951, "POSIX", b'c', -1, Some("POSIX")),
        (12340, "ucs_basic", b'c', 6, Some("C")),
    ]
    .into_iter()
    .map(|(id, name, provider, encoding, locale)| {
        let locale = locale.map_or(NULL, text);
        vec![
            oid(id),
            text(name),
            oid(PG_CATALOG_OID),
            oid(SUPERUSER_OID),
            char(provider),
            boolean(true),
            int4(encoding),
            locale.clone(),
            locale,
            NULL,
            NULL,
        ]
    })
    .collect()
}

pub(super) const PG_AM: &[(&str, DataType)] = &[
    ("oid", OID),
    ("amname", NAME),
    ("amhandler", REGPROC),
    ("amtype", CHAR),
];

pub(super) fn pg_am(_: &CatalogSnapshot) -> Rows {
    [
        (HEAP_AM, "heap", "heap_tableam_handler", b't'),
        (BTREE_AM, "btree", "bthandler", b'i'),
        (HASH_AM, "hash", "hashhandler", b'i'),
        (HNSW_AM, "hnsw", "hnswhandler", b'i'),
    ]
    .into_iter()
    .map(|(id, name, handler, kind)| vec![oid(id), text(name), text(handler), char(kind)])
    .collect()
}

pub(super) const PG_PROC: &[(&str, DataType)] = &[
    ("oid", OID),
    ("proname", NAME),
    ("pronamespace", OID),
    ("proowner", OID),
    ("prolang", OID),
    ("procost", FLOAT4),
    ("prorows", FLOAT4),
    ("provariadic", OID),
    ("prosupport", REGPROC),
    ("prokind", CHAR),
    ("prosecdef", BOOL),
    ("proleakproof", BOOL),
    ("proisstrict", BOOL),
    ("proretset", BOOL),
    ("provolatile", CHAR),
    ("proparallel", CHAR),
    ("pronargs", INT2),
    ("pronargdefaults", INT2),
    ("prorettype", OID),
    ("proargtypes", OIDVECTOR),
    ("proallargtypes", OPAQUE),
    ("proargmodes", OPAQUE),
    ("proargnames", TEXT_ARRAY),
    ("proargdefaults", OPAQUE),
    ("protrftypes", OPAQUE),
    ("prosrc", TEXT),
    ("probin", TEXT),
    ("prosqlbody", OPAQUE),
    ("proconfig", TEXT_ARRAY),
    ("proacl", ACL),
];

/// A small set of built-in functions, with PostgreSQL's OIDs: those client catalog queries
/// look up by name: (oid, name, argument types, result type, volatility).
pub(super) const FUNCTIONS: &[(u32, &str, &[u32], u32, u8)] = &[
    (1242, "boolin", &[2275], 16, b'i'),
    (42, "int4in", &[2275], 23, b'i'),
    (46, "textin", &[2275], 25, b'i'),
    (1317, "length", &[25], 23, b'i'),
    (870, "lower", &[25], 25, b'i'),
    (871, "upper", &[25], 25, b'i'),
    (1299, "now", &[], 1184, b's'),
    (1574, "nextval", &[2205], 20, b'v'),
    (1575, "currval", &[2205], 20, b'v'),
    (2147, "count", &[2276], 20, b'i'),
    (2803, "count", &[], 20, b'i'),
    (1081, "format_type", &[26, 23], 25, b's'),
    (2079, "pg_table_is_visible", &[26], 16, b's'),
    (1402, "current_schema", &[], 19, b's'),
    (861, "current_database", &[], 19, b's'),
    (745, "current_user", &[], 19, b's'),
    (89, "version", &[], 25, b's'),
    // The functions behind the operators of pg_operator (its oprcode).
    (65, "int4eq", &[23, 23], 16, b'i'),
    (66, "int4lt", &[23, 23], 16, b'i'),
    (67, "texteq", &[25, 25], 16, b'i'),
    (144, "int4ne", &[23, 23], 16, b'i'),
    (147, "int4gt", &[23, 23], 16, b'i'),
    (157, "textne", &[25, 25], 16, b'i'),
    (467, "int8eq", &[20, 20], 16, b'i'),
    (468, "int8ne", &[20, 20], 16, b'i'),
    (850, "textlike", &[25, 25], 16, b'i'),
    (851, "textnlike", &[25, 25], 16, b'i'),
    (1254, "textregexeq", &[25, 25], 16, b'i'),
    (1256, "textregexne", &[25, 25], 16, b'i'),
];

pub(super) fn pg_proc(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows: Rows = FUNCTIONS
        .iter()
        .map(|&(id, name, arguments, result, volatility)| {
            let aggregate = name == "count";
            vec![
                oid(id),
                text(name),
                oid(PG_CATALOG_OID),
                oid(SUPERUSER_OID),
                oid(12),
                ScalarValue::Float32(1.0),
                ScalarValue::Float32(0.0),
                oid(0),
                text("-"),
                char(if aggregate { b'a' } else { b'f' }),
                boolean(false),
                boolean(false),
                boolean(!aggregate),
                boolean(false),
                char(volatility),
                char(b's'),
                int2(i16::try_from(arguments.len()).unwrap_or(i16::MAX)),
                int2(0),
                oid(result),
                oid_vector(arguments.iter().copied()),
                NULL,
                NULL,
                NULL,
                NULL,
                NULL,
                text(if aggregate { "aggregate_dummy" } else { name }),
                NULL,
                NULL,
                NULL,
                NULL,
            ]
        })
        .collect();
    rows.extend(super::sql_functions::pg_proc_rows(snapshot));
    rows
}

pub(super) const PG_OPERATOR: &[(&str, DataType)] = &[
    ("oid", OID),
    ("oprname", NAME),
    ("oprnamespace", OID),
    ("oprowner", OID),
    ("oprkind", CHAR),
    ("oprcanmerge", BOOL),
    ("oprcanhash", BOOL),
    ("oprleft", OID),
    ("oprright", OID),
    ("oprresult", OID),
    ("oprcom", OID),
    ("oprnegate", OID),
    // An OID, which pg_dump casts to oid; printed as the function's name.
    ("oprcode", DataType::Oid(OidKind::RegProc)),
    ("oprrest", REGPROC),
    ("oprjoin", REGPROC),
];

/// The comparison operators of the common types, with PostgreSQL's OIDs.
/// (oid, name, left, right, commutator, negator, function).
const OPERATORS: &[(u32, &str, u32, u32, u32, u32, &str)] = &[
    (96, "=", 23, 23, 96, 518, "int4eq"),
    (518, "<>", 23, 23, 518, 96, "int4ne"),
    (97, "<", 23, 23, 521, 525, "int4lt"),
    (521, ">", 23, 23, 97, 523, "int4gt"),
    (410, "=", 20, 20, 410, 411, "int8eq"),
    (411, "<>", 20, 20, 411, 410, "int8ne"),
    (98, "=", 25, 25, 98, 531, "texteq"),
    (531, "<>", 25, 25, 531, 98, "textne"),
    (641, "~", 25, 25, 0, 642, "textregexeq"),
    (642, "!~", 25, 25, 0, 641, "textregexne"),
    (1209, "~~", 25, 25, 0, 1210, "textlike"),
    (1210, "!~~", 25, 25, 0, 1209, "textnlike"),
];

pub(super) fn pg_operator(_: &CatalogSnapshot) -> Rows {
    OPERATORS
        .iter()
        .map(|&(id, name, left, right, commutator, negator, function)| {
            let equality = name == "=";
            let result = 16;
            vec![
                oid(id),
                text(name),
                oid(PG_CATALOG_OID),
                oid(SUPERUSER_OID),
                char(b'b'),
                boolean(equality),
                boolean(equality),
                oid(left),
                oid(right),
                oid(result),
                oid(commutator),
                oid(negator),
                oid(FUNCTIONS
                    .iter()
                    .find(|f| f.1 == function)
                    .map_or(0, |f| f.0)),
                text(if equality { "eqsel" } else { "-" }),
                text(if equality { "eqjoinsel" } else { "-" }),
            ]
        })
        .collect()
}

pub(super) const PG_EXTENSION: &[(&str, DataType)] = &[
    ("oid", OID),
    ("extname", NAME),
    ("extowner", OID),
    ("extnamespace", OID),
    ("extrelocatable", BOOL),
    ("extversion", TEXT),
    ("extconfig", OPAQUE),
    ("extcondition", TEXT_ARRAY),
];

/// The installed extensions (plpgsql in a new database).
pub(super) fn pg_extension(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .extensions
        .values()
        .map(|extension| {
            let relocatable = Extension::available(&extension.name).is_some_and(|e| e.relocatable);
            vec![
                oid(extension.oid),
                text(&extension.name),
                oid(extension.owner),
                oid(extension.schema),
                boolean(relocatable),
                text(&extension.version),
                NULL,
                NULL,
            ]
        })
        .collect()
}

pub(super) const PG_AVAILABLE_EXTENSIONS: &[(&str, DataType)] = &[
    ("name", NAME),
    ("default_version", TEXT),
    ("installed_version", TEXT),
    ("comment", TEXT),
];

/// The extensions built into the server, and which of them are installed.
pub(super) fn pg_available_extensions(snapshot: &CatalogSnapshot) -> Rows {
    AVAILABLE_EXTENSIONS
        .iter()
        .map(|available| {
            let installed = snapshot.state.extensions.get(available.name);
            vec![
                text(available.name),
                text(available.version),
                installed.map_or(NULL, |e| text(&e.version)),
                text(available.comment),
            ]
        })
        .collect()
}

pub(super) const PG_LANGUAGE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("lanname", NAME),
    ("lanowner", OID),
    ("lanispl", BOOL),
    ("lanpltrusted", BOOL),
    ("lanplcallfoid", OID),
    ("laninline", OID),
    ("lanvalidator", OID),
    ("lanacl", ACL),
];

/// The languages initdb creates, with PostgreSQL 15's OIDs (plpgsql's is the extension's).
pub(super) fn pg_language(_: &CatalogSnapshot) -> Rows {
    [
        (12, "internal", false, false, 0, 0, 2246),
        (13, "c", false, false, 0, 0, 2247),
        (14, "sql", false, true, 0, 0, 2248),
        (13563, "plpgsql", true, true, 13560, 13561, 13562),
    ]
    .into_iter()
    .map(
        |(id, name, procedural, trusted, handler, inline, validator)| {
            vec![
                oid(id),
                text(name),
                oid(SUPERUSER_OID),
                boolean(procedural),
                boolean(trusted),
                oid(handler),
                oid(inline),
                oid(validator),
                NULL,
            ]
        },
    )
    .collect()
}
