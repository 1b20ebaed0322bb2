//! Catalogs of features KestrelDB does not have (row security policies, extended
//! statistics, publications, triggers, role membership, shared comments, partitioned
//! tables, event triggers, operator classes, text search, user mappings, default
//! privileges, conversions, user-defined casts and transforms,
//! subscriptions, large objects, security labels, per-database settings): always empty,
//! but there with PostgreSQL's columns, since psql's `\d` queries and pg_dump read them.

use super::{ACL, BOOL, CHAR, INT2, INT2VECTOR, INT4, NAME, OID, OPAQUE, TEXT, TEXT_ARRAY};
use crate::types::{DataType, OidKind};

const OID_ARRAY: DataType = DataType::Array(&DataType::Oid(OidKind::Oid));
/// regproc as an OID (these catalogs are empty, so no name is ever printed), which pg_dump
/// casts to oid and compares with pg_proc.oid.
const REGPROC: DataType = DataType::Oid(OidKind::RegProc);

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
    ("tgattr", INT2VECTOR),
    ("tgargs", OPAQUE),
    ("tgqual", OPAQUE),
    ("tgoldtable", NAME),
    ("tgnewtable", NAME),
];

pub(super) const PG_SHDESCRIPTION: &[(&str, DataType)] =
    &[("objoid", OID), ("classoid", OID), ("description", TEXT)];

pub(super) const PG_PARTITIONED_TABLE: &[(&str, DataType)] = &[
    ("partrelid", OID),
    ("partstrat", CHAR),
    ("partnatts", INT2),
    ("partdefid", OID),
    ("partattrs", OPAQUE),
    ("partclass", OID_ARRAY),
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

pub(super) const PG_OPCLASS: &[(&str, DataType)] = &[
    ("oid", OID),
    ("opcmethod", OID),
    ("opcname", NAME),
    ("opcnamespace", OID),
    ("opcowner", OID),
    ("opcfamily", OID),
    ("opcintype", OID),
    ("opcdefault", BOOL),
    ("opckeytype", OID),
];

pub(super) const PG_OPFAMILY: &[(&str, DataType)] = &[
    ("oid", OID),
    ("opfmethod", OID),
    ("opfname", NAME),
    ("opfnamespace", OID),
    ("opfowner", OID),
];

pub(super) const PG_AMOP: &[(&str, DataType)] = &[
    ("oid", OID),
    ("amopfamily", OID),
    ("amoplefttype", OID),
    ("amoprighttype", OID),
    ("amopstrategy", INT2),
    ("amoppurpose", CHAR),
    ("amopopr", OID),
    ("amopmethod", OID),
    ("amopsortfamily", OID),
];

pub(super) const PG_AMPROC: &[(&str, DataType)] = &[
    ("oid", OID),
    ("amprocfamily", OID),
    ("amproclefttype", OID),
    ("amprocrighttype", OID),
    ("amprocnum", INT2),
    ("amproc", REGPROC),
];

pub(super) const PG_TS_PARSER: &[(&str, DataType)] = &[
    ("oid", OID),
    ("prsname", NAME),
    ("prsnamespace", OID),
    ("prsstart", REGPROC),
    ("prstoken", REGPROC),
    ("prsend", REGPROC),
    ("prsheadline", REGPROC),
    ("prslextype", REGPROC),
];

pub(super) const PG_TS_TEMPLATE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("tmplname", NAME),
    ("tmplnamespace", OID),
    ("tmplinit", REGPROC),
    ("tmpllexize", REGPROC),
];

pub(super) const PG_TS_DICT: &[(&str, DataType)] = &[
    ("oid", OID),
    ("dictname", NAME),
    ("dictnamespace", OID),
    ("dictowner", OID),
    ("dicttemplate", OID),
    ("dictinitoption", TEXT),
];

pub(super) const PG_TS_CONFIG: &[(&str, DataType)] = &[
    ("oid", OID),
    ("cfgname", NAME),
    ("cfgnamespace", OID),
    ("cfgowner", OID),
    ("cfgparser", OID),
];

pub(super) const PG_DEFAULT_ACL: &[(&str, DataType)] = &[
    ("oid", OID),
    ("defaclrole", OID),
    ("defaclnamespace", OID),
    ("defaclobjtype", CHAR),
    ("defaclacl", ACL),
];

pub(super) const PG_CONVERSION: &[(&str, DataType)] = &[
    ("oid", OID),
    ("conname", NAME),
    ("connamespace", OID),
    ("conowner", OID),
    ("conforencoding", INT4),
    ("contoencoding", INT4),
    ("conproc", REGPROC),
    ("condefault", BOOL),
];

pub(super) const PG_CAST: &[(&str, DataType)] = &[
    ("oid", OID),
    ("castsource", OID),
    ("casttarget", OID),
    ("castfunc", OID),
    ("castcontext", CHAR),
    ("castmethod", CHAR),
];

pub(super) const PG_TRANSFORM: &[(&str, DataType)] = &[
    ("oid", OID),
    ("trftype", OID),
    ("trflang", OID),
    ("trffromsql", REGPROC),
    ("trftosql", REGPROC),
];

pub(super) const PG_SUBSCRIPTION: &[(&str, DataType)] = &[
    ("oid", OID),
    ("subdbid", OID),
    ("subskiplsn", OPAQUE),
    ("subname", NAME),
    ("subowner", OID),
    ("subenabled", BOOL),
    ("subbinary", BOOL),
    ("substream", BOOL),
    ("subtwophasestate", CHAR),
    ("subdisableonerr", BOOL),
    ("subconninfo", TEXT),
    ("subslotname", NAME),
    ("subsynccommit", TEXT),
    ("subpublications", TEXT_ARRAY),
];

pub(super) const PG_LARGEOBJECT_METADATA: &[(&str, DataType)] =
    &[("oid", OID), ("lomowner", OID), ("lomacl", ACL)];

pub(super) const PG_SECLABELS: &[(&str, DataType)] = &[
    ("objoid", OID),
    ("classoid", OID),
    ("objsubid", INT4),
    ("objtype", TEXT),
    ("objnamespace", OID),
    ("objname", TEXT),
    ("provider", TEXT),
    ("label", TEXT),
];

pub(super) const PG_SHSECLABEL: &[(&str, DataType)] = &[
    ("objoid", OID),
    ("classoid", OID),
    ("provider", TEXT),
    ("label", TEXT),
];
