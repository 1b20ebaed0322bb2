//! COPY: the table and columns (or the query) it copies, where the data goes, and its
//! options, validated with PostgreSQL's rules and messages (`ProcessCopyOptions`).

use std::sync::Arc;

use sqlparser::ast::{
    CopyLegacyCsvOption, CopyLegacyOption, CopyOption, CopySource, CopyTarget, Ident,
};

use super::present::{present_columns, Output};
use super::{ident_name, Binder};
use crate::catalog::{AclMode, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::plan::{
    BoundStatement, ColumnInfo, CopyColumn, CopyDirection, CopyEndpoint, CopyFormat, CopyHeader,
    CopyOptions, CopyStatement, LogicalPlan,
};
use crate::storage::RelationKind;

/// The options as written, before they are checked against each other.
#[derive(Default)]
struct Written {
    format: Option<CopyFormat>,
    freeze: Option<bool>,
    delimiter: Option<char>,
    null: Option<String>,
    header: Option<CopyHeader>,
    quote: Option<char>,
    escape: Option<char>,
    force_quote: Option<ForceQuote>,
    force_not_null: Option<Vec<Ident>>,
    force_null: Option<Vec<Ident>>,
    encoding: Option<String>,
}

/// The copied columns' names, and for the per-column options' errors every column of the
/// source and the table's name.
struct Copied {
    names: Vec<String>,
    all: Vec<String>,
    relation: Option<String>,
}

enum ForceQuote {
    All,
    Columns(Vec<Ident>),
}

fn redundant() -> Error {
    Error::syntax("conflicting or redundant options")
}

/// Sets an option once; a second time is PostgreSQL's "conflicting or redundant options".
fn set_once<T>(slot: &mut Option<T>, value: T) -> Result<()> {
    if slot.is_some() {
        return Err(redundant());
    }
    *slot = Some(value);
    Ok(())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(SqlState::InvalidParameterValue, message)
}

fn not_supported(message: impl Into<String>) -> Error {
    Error::new(SqlState::FeatureNotSupported, message)
}

impl Binder<'_> {
    pub(super) fn bind_copy(
        &mut self,
        source: &CopySource,
        to: bool,
        target: &CopyTarget,
        options: &[CopyOption],
        legacy_options: &[CopyLegacyOption],
        values: &[Option<String>],
    ) -> Result<BoundStatement> {
        // pg_restore sends `COPY ... FROM stdin;` with a newline after it, which sqlparser
        // reads as an empty line of inline data.
        let inline_data = values
            .iter()
            .any(|v| v.as_deref().is_none_or(|v| !v.trim().is_empty()));
        if inline_data {
            return Err(Error::unsupported("COPY data inline in the statement text"));
        }
        let endpoint = match target {
            CopyTarget::Stdin | CopyTarget::Stdout => CopyEndpoint::Client,
            CopyTarget::File { filename } => {
                if to && !std::path::Path::new(filename).is_absolute() {
                    return Err(Error::new(
                        SqlState::InvalidName,
                        "relative path not allowed for COPY to file",
                    ));
                }
                CopyEndpoint::File(filename.clone())
            }
            CopyTarget::Program { .. } => {
                return Err(Error::unsupported(if to {
                    "COPY TO PROGRAM"
                } else {
                    "COPY FROM PROGRAM"
                }))
            }
        };
        let mut written = Written::default();
        for option in options {
            written.add(option)?;
        }
        for option in legacy_options {
            written.add_legacy(option)?;
        }
        if self.copy_header_match {
            written.header = Some(CopyHeader::Match);
        }
        let (mut direction, copied) = match source {
            CopySource::Table {
                table_name: name,
                columns,
            } => {
                let name = self.open_relation(name)?;
                self.copy_table(&name, columns, to)?
            }
            CopySource::Query(query) => {
                let (plan, columns) = self.bind_query(query)?;
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                let copied = Copied {
                    all: names.clone(),
                    names,
                    relation: None,
                };
                let columns = Arc::from(columns);
                (CopyDirection::To { plan, columns }, copied)
            }
        };
        let options = written.validate(to, &copied)?;
        // Values leave as a query's do: enum labels, OID aliases' names (in binary, their
        // OIDs, as oidsend sends them).
        if let CopyDirection::To { plan, columns } = direction {
            let output = match options.format {
                CopyFormat::Binary => Output::Binary,
                CopyFormat::Text | CopyFormat::Csv | CopyFormat::Parquet => Output::Text,
            };
            let (plan, columns) = present_columns(plan, columns.to_vec(), output)?;
            direction = CopyDirection::To {
                plan,
                columns: Arc::from(columns),
            };
        }
        Ok(BoundStatement::Copy(Box::new(CopyStatement {
            direction,
            endpoint,
            options,
        })))
    }

    /// COPY table [(columns)] FROM or TO: the direction and the copied columns' names.
    fn copy_table(
        &mut self,
        name: &QualifiedName,
        columns: &[Ident],
        to: bool,
    ) -> Result<(CopyDirection, Copied)> {
        let kind = match self.state.relation_kind(name) {
            Some(RelationKind::View) => Some("view"),
            Some(RelationKind::MaterializedView) => Some("materialized view"),
            // COPY FROM would insert into it, which file_fdw cannot.
            Some(RelationKind::ForeignTable) if !to => {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot insert into foreign table \"{name}\""),
                ))
            }
            Some(RelationKind::ForeignTable) => Some("foreign table"),
            _ => None,
        };
        if let Some(kind) = kind {
            let error = Error::new(
                SqlState::WrongObjectType,
                format!(
                    "cannot copy {} {kind} \"{name}\"",
                    if to { "from" } else { "to" }
                ),
            );
            return Err(if to {
                error.with_hint("Try the COPY (SELECT ...) TO variant.")
            } else {
                error
            });
        }
        let schema = self.table(name)?.schema.clone();
        let needed = if to { AclMode::SELECT } else { AclMode::INSERT };
        self.require_relation(name, schema.oid, needed)?;
        let fields = copied_columns(&schema, columns)?;
        let names: Vec<String> = fields
            .iter()
            .map(|&c| schema.columns[c].name.clone())
            .collect();
        let copied = Copied {
            names: names.clone(),
            all: schema.columns.iter().map(|c| c.name.clone()).collect(),
            relation: Some(schema.name.clone()),
        };
        if to {
            let plan = LogicalPlan::Scan {
                table_oid: schema.oid,
                table_name: schema.name.clone(),
                columns: fields.clone(),
                types: fields
                    .iter()
                    .map(|&c| schema.columns[c].data_type)
                    .collect(),
            };
            let columns: Arc<[ColumnInfo]> = fields
                .iter()
                .map(|&c| ColumnInfo {
                    name: schema.columns[c].name.clone(),
                    data_type: schema.columns[c].data_type,
                    table_oid: schema.oid,
                    column_attnum: i16::try_from(c + 1).unwrap_or(i16::MAX),
                    presented_from: None,
                })
                .collect();
            return Ok((CopyDirection::To { plan, columns }, copied));
        }
        let mut row = (0..schema.columns.len())
            .map(|column| match fields.iter().position(|&f| f == column) {
                Some(field) => Ok(CopyColumn::Field(field)),
                None => Ok(CopyColumn::Default(self.column_default(&schema, column)?)),
            })
            .collect::<Result<Vec<_>>>()?;
        for (position, value) in self.generated_values(&schema)? {
            row[position] = CopyColumn::Generated(value);
        }
        let direction = CopyDirection::From {
            table_name: schema.qualified_name(),
            table_oid: schema.oid,
            field_names: names,
            row,
            checks: self.row_checks(&schema)?,
        };
        Ok((direction, copied))
    }
}

/// The positions of the listed columns (all but the generated ones when none are),
/// PostgreSQL's errors for a missing, repeated or generated one.
fn copied_columns(schema: &TableSchema, columns: &[Ident]) -> Result<Vec<usize>> {
    if columns.is_empty() {
        return Ok((0..schema.columns.len())
            .filter(|&c| schema.columns[c].generated.is_none())
            .collect());
    }
    let mut positions = Vec::with_capacity(columns.len());
    for ident in columns {
        let name = ident_name(ident);
        let position = schema.column_index(&name).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    schema.name
                ),
            )
        })?;
        if positions.contains(&position) {
            return Err(Error::new(
                SqlState::DuplicateColumn,
                format!("column \"{name}\" specified more than once"),
            ));
        }
        if schema.columns[position].generated.is_some() {
            return Err(Error::new(
                SqlState::InvalidColumnReference,
                format!("column \"{name}\" is a generated column"),
            )
            .with_detail("Generated columns cannot be used in COPY."));
        }
        positions.push(position);
    }
    Ok(positions)
}

/// A file_fdw foreign table's COPY options, checked as COPY FROM checks them (file_fdw
/// hands them to PostgreSQL's `ProcessCopyOptions`).
pub(super) fn copy_from_options(
    options: &[CopyOption],
    schema: &TableSchema,
) -> Result<CopyOptions> {
    let mut written = Written::default();
    for option in options {
        written.add(option)?;
    }
    let names: Vec<String> = schema.columns.iter().map(|c| c.name.clone()).collect();
    let copied = Copied {
        all: names.clone(),
        names,
        relation: Some(schema.name.clone()),
    };
    written.validate(false, &copied)
}

impl Written {
    fn add(&mut self, option: &CopyOption) -> Result<()> {
        match option {
            CopyOption::Format(name) => {
                let format = match ident_name(name).as_str() {
                    "text" => CopyFormat::Text,
                    "csv" => CopyFormat::Csv,
                    "binary" => CopyFormat::Binary,
                    "parquet" => CopyFormat::Parquet,
                    other => {
                        return Err(invalid(format!("COPY format \"{other}\" not recognized")))
                    }
                };
                set_once(&mut self.format, format)
            }
            CopyOption::Freeze(on) => set_once(&mut self.freeze, *on),
            CopyOption::Delimiter(c) => set_once(&mut self.delimiter, *c),
            CopyOption::Null(s) => set_once(&mut self.null, s.clone()),
            CopyOption::Header(on) => set_once(
                &mut self.header,
                if *on {
                    CopyHeader::Present
                } else {
                    CopyHeader::Absent
                },
            ),
            CopyOption::Quote(c) => set_once(&mut self.quote, *c),
            CopyOption::Escape(c) => set_once(&mut self.escape, *c),
            CopyOption::ForceQuote(columns) => {
                set_once(&mut self.force_quote, force_quote(columns))
            }
            CopyOption::ForceNotNull(columns) => {
                set_once(&mut self.force_not_null, columns.clone())
            }
            CopyOption::ForceNull(columns) => set_once(&mut self.force_null, columns.clone()),
            CopyOption::Encoding(name) => set_once(&mut self.encoding, name.clone()),
        }
    }

    /// The pre-9.0 syntax: `BINARY`, `DELIMITER [AS]`, `NULL [AS]`, `CSV [HEADER] [QUOTE
    /// [AS]] [ESCAPE [AS]] [FORCE QUOTE ...] [FORCE NOT NULL ...]`.
    fn add_legacy(&mut self, option: &CopyLegacyOption) -> Result<()> {
        match option {
            CopyLegacyOption::Binary => set_once(&mut self.format, CopyFormat::Binary),
            CopyLegacyOption::Delimiter(c) => set_once(&mut self.delimiter, *c),
            CopyLegacyOption::Null(s) => set_once(&mut self.null, s.clone()),
            CopyLegacyOption::Header => set_once(&mut self.header, CopyHeader::Present),
            CopyLegacyOption::Csv(csv_options) => {
                set_once(&mut self.format, CopyFormat::Csv)?;
                for option in csv_options {
                    match option {
                        CopyLegacyCsvOption::Header => {
                            set_once(&mut self.header, CopyHeader::Present)?
                        }
                        CopyLegacyCsvOption::Quote(c) => set_once(&mut self.quote, *c)?,
                        CopyLegacyCsvOption::Escape(c) => set_once(&mut self.escape, *c)?,
                        CopyLegacyCsvOption::ForceQuote(columns) => {
                            set_once(&mut self.force_quote, force_quote(columns))?
                        }
                        CopyLegacyCsvOption::ForceNotNull(columns) => {
                            set_once(&mut self.force_not_null, columns.clone())?
                        }
                    }
                }
                Ok(())
            }
            other => Err(Error::syntax(format!(
                "syntax error at or near \"{}\"",
                other
                    .to_string()
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
            ))),
        }
    }

    /// PostgreSQL's checks of the options against each other and the direction; `names`
    /// are the copied columns, which the per-column options must name.
    fn validate(self, to: bool, copied: &Copied) -> Result<CopyOptions> {
        let names = &copied.names;
        let format = self.format.unwrap_or(CopyFormat::Text);
        let csv = format == CopyFormat::Csv;
        if let Some(mode) = match format {
            CopyFormat::Binary => Some("BINARY"),
            CopyFormat::Parquet => Some("PARQUET"),
            CopyFormat::Text | CopyFormat::Csv => None,
        } {
            if self.delimiter.is_some() {
                return Err(Error::syntax(format!(
                    "cannot specify DELIMITER in {mode} mode"
                )));
            }
            if self.null.is_some() {
                return Err(Error::syntax(format!("cannot specify NULL in {mode} mode")));
            }
            if self.header.is_some_and(|h| h != CopyHeader::Absent) {
                return Err(not_supported(format!(
                    "cannot specify HEADER in {mode} mode"
                )));
            }
        }
        let delimiter = one_byte(self.delimiter, if csv { ',' } else { '\t' }, "delimiter")?;
        let null = self
            .null
            .unwrap_or_else(|| if csv { String::new() } else { "\\N".into() });
        if delimiter == b'\n' || delimiter == b'\r' {
            return Err(invalid(
                "COPY delimiter cannot be newline or carriage return",
            ));
        }
        if null.contains(['\n', '\r']) {
            return Err(invalid(
                "COPY null representation cannot use newline or carriage return",
            ));
        }
        if !csv && b"\\.abcdefghijklmnopqrstuvwxyz0123456789".contains(&delimiter) {
            return Err(invalid(format!(
                "COPY delimiter cannot be \"{}\"",
                delimiter as char
            )));
        }
        if to && self.header == Some(CopyHeader::Match) {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "cannot use \"match\" with HEADER in COPY TO",
            ));
        }
        if !csv && self.quote.is_some() {
            return Err(not_supported("COPY quote available only in CSV mode"));
        }
        let quote = one_byte(self.quote, '"', "quote")?;
        if csv && delimiter == quote {
            return Err(invalid("COPY delimiter and quote must be different"));
        }
        if !csv && self.escape.is_some() {
            return Err(not_supported("COPY escape available only in CSV mode"));
        }
        let escape = one_byte(self.escape, quote as char, "escape")?;
        let force_quote = match self.force_quote {
            None => vec![false; names.len()],
            Some(_) if !csv => {
                return Err(not_supported("COPY force quote available only in CSV mode"))
            }
            Some(_) if !to => {
                return Err(not_supported(
                    "COPY force quote only available using COPY TO",
                ))
            }
            Some(ForceQuote::All) => vec![true; names.len()],
            Some(ForceQuote::Columns(columns)) => flags(&columns, copied, "FORCE_QUOTE")?,
        };
        let force_not_null = match self.force_not_null {
            None => vec![false; names.len()],
            Some(_) if !csv => {
                return Err(not_supported(
                    "COPY force not null available only in CSV mode",
                ))
            }
            Some(_) if to => {
                return Err(not_supported(
                    "COPY force not null only available using COPY FROM",
                ))
            }
            Some(columns) => flags(&columns, copied, "FORCE_NOT_NULL")?,
        };
        let force_null = match self.force_null {
            None => vec![false; names.len()],
            Some(_) if !csv => {
                return Err(not_supported("COPY force null available only in CSV mode"))
            }
            Some(_) if to => {
                return Err(not_supported(
                    "COPY force null only available using COPY FROM",
                ))
            }
            Some(columns) => flags(&columns, copied, "FORCE_NULL")?,
        };
        if null.as_bytes().contains(&delimiter) {
            return Err(not_supported(
                "COPY delimiter must not appear in the NULL specification",
            ));
        }
        if csv && null.as_bytes().contains(&quote) {
            return Err(not_supported(
                "CSV quote character must not appear in the NULL specification",
            ));
        }
        if let Some(encoding) = &self.encoding {
            let normalized: String = encoding
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_lowercase();
            if !matches!(normalized.as_str(), "utf8" | "unicode") {
                return Err(Error::unsupported(format!(
                    "COPY with ENCODING '{encoding}'"
                )));
            }
        }
        Ok(CopyOptions {
            format,
            delimiter,
            null,
            header: self.header.unwrap_or(CopyHeader::Absent),
            quote,
            escape,
            force_quote,
            force_not_null,
            force_null,
        })
    }
}

/// FORCE_QUOTE's columns; `*` (see `parser::copy_options`) is all of them.
fn force_quote(columns: &[Ident]) -> ForceQuote {
    match columns {
        [only] if only.value == "*" => ForceQuote::All,
        _ => ForceQuote::Columns(columns.to_vec()),
    }
}

/// DELIMITER, QUOTE and ESCAPE must be one single-byte character.
fn one_byte(value: Option<char>, default: char, what: &str) -> Result<u8> {
    let c = value.unwrap_or(default);
    u8::try_from(c)
        .ok()
        .filter(u8::is_ascii)
        .ok_or_else(|| not_supported(format!("COPY {what} must be a single one-byte character")))
}

/// One flag per copied column: whether `columns` names it.
fn flags(columns: &[Ident], copied: &Copied, option: &str) -> Result<Vec<bool>> {
    let names = &copied.names;
    let mut flags = vec![false; names.len()];
    for ident in columns {
        let name = ident_name(ident);
        let Some(position) = names.iter().position(|n| *n == name) else {
            if !copied.all.contains(&name) {
                let message = match &copied.relation {
                    Some(relation) => {
                        format!("column \"{name}\" of relation \"{relation}\" does not exist")
                    }
                    None => format!("column \"{name}\" does not exist"),
                };
                return Err(Error::new(SqlState::UndefinedColumn, message));
            }
            return Err(Error::new(
                SqlState::InvalidColumnReference,
                format!("{option} column \"{name}\" not referenced by COPY"),
            ));
        };
        flags[position] = true;
    }
    Ok(flags)
}
