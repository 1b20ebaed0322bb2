//! Catalogs of features KestrelDB does not have (row security policies, extended
//! statistics, publications, triggers, rules, role membership, shared comments, foreign
//! and partitioned tables, event triggers): always empty, but there with PostgreSQL's
//! columns, since psql's `\d` queries read them.

use super::{BOOL, CHAR, INT2, INT4, NAME, OID, OPAQUE, TEXT, TEXT_ARRAY};
use crate::types::{DataType, OidKind};

const OID_ARRAY: DataType = DataType::Array(&DataType::Oid(OidKind::Oid));

pub(super) const PG_POLICY: &[(&str, DataType)] = &[
    ("oid", OID),
    ("polname", NAME),
    ("polrelid", OID),
    ("polcmd", CHAR),
    ("polpermissive", BOOL),
    ("polroles", OID_ARRAY),
    ("polqual", OPAQUE),
    ("polwithcheck", OPAQUE),
];

pub(super) const PG_STATISTIC_EXT: &[(&str, DataType)] = &[
    ("oid", OID),
    ("stxrelid", OID),
    ("stxname", NAME),
    ("stxnamespace", OID),
    ("stxowner", OID),
    ("stxstattarget", INT4),
    ("stxkeys", OPAQUE),
    ("stxkind", TEXT_ARRAY),
    ("stxexprs", OPAQUE),
];

pub(super) const PG_PUBLICATION: &[(&str, DataType)] = &[
    ("oid", OID),
    ("pubname", NAME),
    ("pubowner", OID),
    ("puballtables", BOOL),
    ("pubinsert", BOOL),
    ("pubupdate", BOOL),
    ("pubdelete", BOOL),
    ("pubtruncate", BOOL),
    ("pubviaroot", BOOL),
];

pub(super) const PG_PUBLICATION_NAMESPACE: &[(&str, DataType)] =
    &[("oid", OID), ("pnpubid", OID), ("pnnspid", OID)];

pub(super) const PG_PUBLICATION_REL: &[(&str, DataType)] = &[
    ("oid", OID),
    ("prpubid", OID),
    ("prrelid", OID),
    ("prqual", OPAQUE),
    // int2vector: psql subscripts it, which our int2[] supports (it is always NULL here).
    ("prattrs", DataType::Array(&DataType::Int16)),
];

pub(super) const PG_TRIGGER: &[(&str, DataType)] = &[
    ("oid", OID),
    ("tgrelid", OID),
    ("tgparentid", OID),
    ("tgname", NAME),
    ("tgfoid", OID),
    ("tgtype", INT2),
    ("tgenabled", CHAR),
    ("tgisinternal", BOOL),
    ("tgconstrrelid", OID),
    ("tgconstrindid", OID),
    ("tgconstraint", OID),
    ("tgdeferrable", BOOL),
    ("tginitdeferred", BOOL),
    ("tgnargs", INT2),
    ("tgattr", OPAQUE),
    ("tgargs", OPAQUE),
    ("tgqual", OPAQUE),
    ("tgoldtable", NAME),
    ("tgnewtable", NAME),
];

pub(super) const PG_REWRITE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("rulename", NAME),
    ("ev_class", OID),
    ("ev_type", CHAR),
    ("ev_enabled", CHAR),
    ("is_instead", BOOL),
    ("ev_qual", OPAQUE),
    ("ev_action", OPAQUE),
];

pub(super) const PG_AUTH_MEMBERS: &[(&str, DataType)] = &[
    ("roleid", OID),
    ("member", OID),
    ("grantor", OID),
    ("admin_option", BOOL),
];

pub(super) const PG_SHDESCRIPTION: &[(&str, DataType)] =
    &[("objoid", OID), ("classoid", OID), ("description", TEXT)];

pub(super) const PG_FOREIGN_TABLE: &[(&str, DataType)] = &[
    ("ftrelid", OID),
    ("ftserver", OID),
    ("ftoptions", TEXT_ARRAY),
];

pub(super) const PG_PARTITIONED_TABLE: &[(&str, DataType)] = &[
    ("partrelid", OID),
    ("partstrat", CHAR),
    ("partnatts", INT2),
    ("partdefid", OID),
    ("partattrs", OPAQUE),
    ("partclass", OPAQUE),
    ("partcollation", OPAQUE),
    ("partexprs", OPAQUE),
];

pub(super) const PG_EVENT_TRIGGER: &[(&str, DataType)] = &[
    ("oid", OID),
    ("evtname", NAME),
    ("evtevent", NAME),
    ("evtowner", OID),
    ("evtfoid", OID),
    ("evtenabled", CHAR),
    ("evttags", TEXT_ARRAY),
];
