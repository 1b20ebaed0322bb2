//! COPY in the session's transaction: rows streamed from the client or a server file into
//! a table, or a query's rows streamed out. A COPY FROM is one write: nothing of it is
//! left when any line fails, the client sends CopyFail or goes away.

use std::fs::File;
use std::io::{BufWriter, Read, Write};

use super::Session;
use crate::api::copy::{read_chunk, write_error, CopyChannel, COPY_CHUNK_BYTES};
use crate::api::StatementResult;
use crate::error::{Error, Result, SqlState};
use crate::exec::copy_from::{CopyParser, CopyTarget};
use crate::exec::copy_to::CopyEncoder;
use crate::exec::modify::Appender;
use crate::exec::ExecContext;
use crate::physical::create_operator;
use crate::plan::{CopyDirection, CopyEndpoint, CopyFormat, CopyStatement};

/// Where COPY FROM reads.
enum Input<'a> {
    Client(&'a mut dyn CopyChannel),
    File(File, &'a str),
}

impl Input<'_> {
    fn read(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        match self {
            Input::Client(channel) => channel.read_copy_data(buf),
            Input::File(file, path) => {
                read_chunk(file as &mut dyn Read, buf, &format!("COPY file \"{path}\""))
            }
        }
    }
}

/// Where COPY TO writes.
enum Output<'a> {
    Client(&'a mut dyn CopyChannel),
    File(BufWriter<File>, &'a str),
}

impl Output<'_> {
    fn write(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Output::Client(channel) => channel.write_copy_data(data),
            Output::File(file, path) => file
                .write_all(data)
                .map_err(|e| write_error(&e, &format!("COPY file \"{path}\""))),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Output::Client(channel) => channel.end_copy_out(),
            Output::File(mut file, path) => file
                .flush()
                .map_err(|e| write_error(&e, &format!("COPY file \"{path}\""))),
        }
    }
}

fn file_error(error: &std::io::Error, path: &str, purpose: &str) -> Error {
    let state = match error.kind() {
        std::io::ErrorKind::NotFound => SqlState::UndefinedFile,
        _ => SqlState::IoError,
    };
    Error::new(
        state,
        format!(
            "could not open file \"{path}\" for {purpose}: {}",
            io_reason(error)
        ),
    )
}

/// The C library's wording, as PostgreSQL prints `%m`.
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => error.to_string(),
    }
}

impl Session {
    pub(super) fn run_copy(
        &mut self,
        statement: &CopyStatement,
        ctx: &ExecContext,
        channel: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        if statement.options.format == CopyFormat::Binary {
            return Err(Error::unsupported("COPY in BINARY format"));
        }
        let count = match &statement.direction {
            CopyDirection::From {
                table_name,
                table_oid,
                field_names,
                row,
            } => {
                let input = match &statement.endpoint {
                    CopyEndpoint::Client => {
                        channel.begin_copy_in(false, field_names.len())?;
                        Input::Client(channel)
                    }
                    CopyEndpoint::File(path) => Input::File(
                        File::open(path).map_err(|e| file_error(&e, path, "reading"))?,
                        path,
                    ),
                };
                let mut appender = Appender::open(self.transaction(), table_name, *table_oid)?;
                let types = appender.schema().column_types();
                let target = CopyTarget {
                    table_name,
                    field_names,
                    types: &types,
                    row,
                };
                let parser = CopyParser::new(&statement.options, target);
                copy_in(parser, input, &mut appender, ctx)?;
                appender.finish(self.transaction())
            }
            CopyDirection::To { plan, columns } => {
                let output = match &statement.endpoint {
                    CopyEndpoint::Client => {
                        channel.begin_copy_out(false, columns.len())?;
                        Output::Client(channel)
                    }
                    CopyEndpoint::File(path) => Output::File(
                        BufWriter::with_capacity(
                            COPY_CHUNK_BYTES,
                            File::create(path).map_err(|e| file_error(&e, path, "writing"))?,
                        ),
                        path,
                    ),
                };
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                let mut encoder = CopyEncoder::new(&statement.options);
                copy_out(&mut encoder, &names, plan, output, ctx)?
            }
        };
        Ok(StatementResult::command(format!("COPY {count}")))
    }
}

fn copy_in(
    mut parser: CopyParser<'_>,
    mut input: Input<'_>,
    appender: &mut Appender,
    ctx: &ExecContext,
) -> Result<()> {
    let mut sink = |batch| appender.append(&batch);
    while input.read(parser.buffer())? {
        ctx.check_cancelled()?;
        parser.parse(ctx, &mut sink)?;
    }
    parser.finish(ctx, &mut sink)
}

fn copy_out(
    encoder: &mut CopyEncoder<'_>,
    names: &[String],
    plan: &crate::plan::LogicalPlan,
    mut output: Output<'_>,
    ctx: &ExecContext,
) -> Result<u64> {
    let mut write = |line: &[u8]| output.write(line);
    encoder.header(names, &mut write)?;
    let mut operator = create_operator(plan, &ctx.state);
    let mut count = 0u64;
    while let Some(batch) = operator.next(ctx)? {
        encoder.rows(&batch, &mut write)?;
        count += batch.len() as u64;
    }
    output.finish()?;
    Ok(count)
}
