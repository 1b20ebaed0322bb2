//! The extended query protocol: Parse, Bind, Describe, Execute, Close. Statements live
//! until closed; portals until closed or until their transaction ends (at ReadyForQuery
//! outside a transaction block). The unnamed statement and portal are replaced by the
//! next Parse or Bind that names nothing.

use std::cell::RefCell;
use std::collections::HashMap;

use kestrel::{ColumnInfo, Error, PreparedStatement, SqlState};

use crate::connection::Backend;
use crate::copy::{ClientInput, WireCopy};
use crate::guard::{catch_panic, or_fallback};
use crate::portal::{Portal, PortalRun};
use crate::protocol::backend;
use crate::protocol::frontend::{protocol_violation, Bind, Target};
use crate::values::{decode_param, resolve_formats, Format};

/// Names are chosen by the client, but a connection only hurts itself with colliding ones:
/// foldhash, not SipHash.
type NameMap<V> = HashMap<String, V, foldhash::fast::RandomState>;

#[derive(Default)]
pub(crate) struct ExtendedState {
    statements: NameMap<PreparedStatement>,
    portals: NameMap<Portal>,
}

impl ExtendedState {
    pub(crate) fn forget_unnamed(&mut self) {
        self.statements.remove("");
        self.portals.remove("");
    }

    pub(crate) fn close_all_portals(&mut self) {
        self.portals.clear();
    }

    fn statement(&self, name: &str) -> Result<&PreparedStatement, Error> {
        self.statements.get(name).ok_or_else(|| {
            let message = if name.is_empty() {
                "unnamed prepared statement does not exist".to_owned()
            } else {
                format!("prepared statement \"{name}\" does not exist")
            };
            Error::new(SqlState::InvalidSqlStatementName, message)
        })
    }

    fn portal(&mut self, name: &str) -> Result<&mut Portal, Error> {
        self.portals.get_mut(name).ok_or_else(|| {
            Error::new(
                SqlState::InvalidCursorName,
                format!("portal \"{name}\" does not exist"),
            )
        })
    }
}

impl Backend {
    pub(crate) fn parse(&mut self, name: &str, sql: &str, param_oids: &[u32]) -> Result<(), Error> {
        if !name.is_empty() && self.extended.statements.contains_key(name) {
            return Err(Error::new(
                SqlState::DuplicatePreparedStatement,
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let statement = self.engine_call(|session| {
            let param_types = (param_oids.iter().enumerate())
                .map(|(idx, &oid)| {
                    session.type_of_oid(oid).ok_or_else(|| {
                        Error::new(
                            SqlState::FeatureNotSupported,
                            format!(
                                "type with OID {oid} of parameter ${} is not supported",
                                idx + 1
                            ),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            session.prepare(sql, &param_types)
        })?;
        // Only named statements are listed in pg_prepared_statements, as in PostgreSQL.
        if !name.is_empty() {
            self.session.list_protocol_statement(name, &statement);
        }
        self.extended.statements.insert(name.to_owned(), statement);
        backend::parse_complete(&mut self.out.buf);
        Ok(())
    }

    pub(crate) fn bind(&mut self, bind: Bind<'_>) -> Result<(), Error> {
        let statement = self.extended.statement(bind.statement)?.clone();
        let param_types = statement.param_types();
        if bind.params.len() != param_types.len() {
            return Err(protocol_violation(format!(
                "bind message supplies {} parameters, but prepared statement \"{}\" requires {}",
                bind.params.len(),
                bind.statement,
                param_types.len()
            )));
        }
        let param_formats =
            resolve_formats(&bind.param_formats, bind.params.len()).ok_or_else(|| {
                protocol_violation(format!(
                    "bind message has {} parameter formats but {} parameters",
                    bind.param_formats.len(),
                    bind.params.len()
                ))
            })??;
        let params = bind
            .params
            .iter()
            .zip(&param_formats)
            .zip(param_types)
            .enumerate()
            .map(|(idx, ((bytes, &format), &ty))| {
                decode_param(*bytes, format, ty.param_value_type(), idx + 1)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let column_count = statement.columns().map_or(0, |columns| columns.len());
        let formats = resolve_formats(&bind.result_formats, column_count).ok_or_else(|| {
            protocol_violation(format!(
                "bind message has {} result formats but query has {column_count} columns",
                bind.result_formats.len()
            ))
        })??;
        if let Some(columns) = statement.columns() {
            binary_output_exists(columns, &formats)?;
        }
        if !bind.portal.is_empty() && self.extended.portals.contains_key(bind.portal) {
            // PostgreSQL's code is 42P03 (duplicate_cursor), which the engine lacks.
            return Err(Error::new(
                SqlState::DuplicateObject,
                format!("cursor \"{}\" already exists", bind.portal),
            ));
        }
        let portal = Portal {
            statement,
            params,
            formats,
            run: None,
        };
        self.extended.portals.insert(bind.portal.to_owned(), portal);
        backend::bind_complete(&mut self.out.buf);
        Ok(())
    }

    pub(crate) fn describe(&mut self, target: Target, name: &str) -> Result<(), Error> {
        let out = &mut self.out.buf;
        match target {
            Target::Statement => {
                let statement = self.extended.statement(name)?;
                let oids = statement.param_types().iter().map(|ty| ty.oid());
                backend::parameter_description(out, oids);
                match statement.columns() {
                    Some(columns) => {
                        let formats = vec![Format::Text; columns.len()];
                        backend::row_description(out, columns, &formats);
                    }
                    None => backend::no_data(out),
                }
            }
            // A cursor DECLAREd in SQL is a portal too (psycopg describes its named cursors
            // so); its FETCHes return text.
            Target::Portal if !self.extended.portals.contains_key(name) => {
                let columns = self.session.cursor_columns(name).ok_or_else(|| {
                    Error::new(
                        SqlState::InvalidCursorName,
                        format!("portal \"{name}\" does not exist"),
                    )
                })?;
                let formats = vec![Format::Text; columns.len()];
                backend::row_description(&mut self.out.buf, &columns, &formats);
            }
            Target::Portal => {
                let portal = self.extended.portal(name)?;
                match portal.columns() {
                    Some(columns) => backend::row_description(out, columns, &portal.formats),
                    None => backend::no_data(out),
                }
            }
        }
        Ok(())
    }

    /// Runs the portal's statement on its first Execute, then sends up to `max_rows` rows
    /// (all if it is zero or negative).
    pub(crate) fn execute(
        &mut self,
        name: &str,
        max_rows: i32,
        client: Option<&mut ClientInput>,
    ) -> Result<(), Error> {
        let portal = self.extended.portal(name)?;
        let statement = &portal.statement;
        if or_fallback(|| statement.is_empty(), false) {
            backend::empty_query_response(&mut self.out.buf);
            return Ok(());
        }
        if portal.run.is_none() {
            let (statement, params) = (portal.statement.clone(), portal.params.clone());
            let session = &mut self.session;
            let out = RefCell::new(&mut self.out);
            let mut copy = WireCopy::new(&out, client, session);
            let result =
                catch_panic(|| session.execute_prepared_with_copy(&statement, &params, &mut copy));
            self.send_notices();
            let result = result?;
            self.extended.portal(name)?.run = Some(PortalRun::new(result));
        }
        let portal = self.extended.portal(name)?;
        let Some(run) = portal.run.as_mut() else {
            return Err(Error::internal("portal has no result after running"));
        };
        let rows_max = usize::try_from(max_rows)
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or(usize::MAX);
        let sent = run.send_rows(&mut self.out, &portal.formats, rows_max);
        if sent.finished {
            backend::command_complete(&mut self.out.buf, &run.completion_tag(sent.rows));
        } else {
            backend::portal_suspended(&mut self.out.buf);
        }
        Ok(())
    }

    /// Closing something that does not exist is not an error.
    pub(crate) fn close(&mut self, target: Target, name: &str) {
        match target {
            Target::Statement => {
                if self.extended.statements.remove(name).is_some() {
                    self.session.unlist_protocol_statement(name);
                }
            }
            Target::Portal => drop(self.extended.portals.remove(name)),
        }
        backend::close_complete(&mut self.out.buf);
    }
}

/// 0A000 for a result column asked for in binary whose values have no binary form here (an
/// OID alias sent as its name, an array of enum labels; see `ColumnInfo::has_binary_output`).
fn binary_output_exists(columns: &[ColumnInfo], formats: &[Format]) -> Result<(), Error> {
    for (column, format) in columns.iter().zip(formats) {
        if *format == Format::Binary && !column.has_binary_output() {
            return Err(Error::unsupported(format!(
                "binary output of column \"{}\" of type {}",
                column.name,
                column.wire_type()
            )));
        }
    }
    Ok(())
}
