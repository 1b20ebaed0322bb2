//! COPY in the session's transaction: rows streamed from the client or a server file into
//! a table, or a query's rows streamed out. A COPY FROM is one write: nothing of it is
//! left when any line fails, the client sends CopyFail or goes away.

use std::fs::File;
use std::io::{BufWriter, Read, Write};

use super::Session;
use crate::api::copy::{read_chunk, write_error, CopyChannel, COPY_CHUNK_BYTES};
use crate::api::StatementResult;
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::exec::copy_from::{CopyParser, CopyRows, CopyTarget};
use crate::exec::copy_from_binary::BinaryCopyParser;
use crate::exec::copy_to::CopyEncoder;
use crate::exec::modify::Appender;
use crate::exec::ExecContext;
use crate::files::{ParquetFile, ParquetWriter, RowGroupFilter};
use crate::function::cast::{can_cast, cast_vector, CastContext};
use crate::physical::create_operator;
use crate::plan::{CopyColumn, CopyDirection, CopyEndpoint, CopyFormat, CopyStatement, RowCheck};
use crate::types::DataType;

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

impl Session {
    pub(super) fn run_copy(
        &mut self,
        statement: &CopyStatement,
        ctx: &ExecContext,
        channel: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        let binary = statement.options.format == CopyFormat::Binary;
        if statement.options.format == CopyFormat::Parquet {
            let count = self.copy_parquet(statement, ctx)?;
            return Ok(StatementResult::command(format!("COPY {count}")));
        }
        let count = match &statement.direction {
            CopyDirection::From {
                table_name,
                table_oid,
                field_names,
                row,
                checks,
            } => {
                let input = match &statement.endpoint {
                    CopyEndpoint::Client => {
                        channel.begin_copy_in(binary, field_names.len())?;
                        Input::Client(channel)
                    }
                    CopyEndpoint::File(path) => Input::File(
                        File::open(path)
                            .map_err(|e| crate::files::open_error_for(&e, path, "reading"))?,
                        path,
                    ),
                };
                let into = CopyInto {
                    table_name,
                    table_oid: *table_oid,
                    field_names,
                    row,
                    checks,
                };
                self.load_copy(into, |target, appender| match binary {
                    true => copy_in(BinaryCopyParser::new(target), input, appender, ctx),
                    false => {
                        let parser = CopyParser::new(&statement.options, target);
                        copy_in(parser, input, appender, ctx)
                    }
                })?
            }
            CopyDirection::To { plan, columns } => {
                let output = match &statement.endpoint {
                    CopyEndpoint::Client => {
                        channel.begin_copy_out(binary, columns.len())?;
                        Output::Client(channel)
                    }
                    CopyEndpoint::File(path) => Output::File(
                        BufWriter::with_capacity(
                            COPY_CHUNK_BYTES,
                            File::create(path)
                                .map_err(|e| crate::files::open_error_for(&e, path, "writing"))?,
                        ),
                        path,
                    ),
                };
                let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
                // A binary array names its element type as clients are told of it: an
                // enum's labels leave as text, under the enum's OID (array_send).
                let types = (columns.iter())
                    .map(|c| if binary { c.wire_type() } else { c.data_type })
                    .collect();
                let mut encoder = CopyEncoder::new(&statement.options, types);
                copy_out(&mut encoder, &names, plan, output, ctx)?
            }
        };
        Ok(StatementResult::command(format!("COPY {count}")))
    }
}

/// The table a COPY FROM loads, as its plan names it.
struct CopyInto<'a> {
    table_name: &'a QualifiedName,
    table_oid: u32,
    field_names: &'a [String],
    row: &'a [CopyColumn],
    checks: &'a [RowCheck],
}

impl Session {
    /// Opens the table for appending, lets `load` feed it the rows of every format, and
    /// finishes the load: the number of rows loaded.
    fn load_copy(
        &mut self,
        into: CopyInto,
        load: impl FnOnce(CopyTarget, &mut Appender) -> Result<()>,
    ) -> Result<u64> {
        let mut appender = Appender::open(
            self.transaction(),
            into.table_name,
            into.table_oid,
            into.checks,
        )?;
        let types = appender.schema().column_types();
        let target = CopyTarget {
            table_name: &into.table_name.name,
            field_names: into.field_names,
            types: &types,
            row: into.row,
        };
        load(target, &mut appender)?;
        appender.finish(self.transaction())
    }
}

impl Session {
    /// COPY to or from a Parquet file: the file's columns, in order, are the copied
    /// columns (converted by assignment casts, or a text column by the input function as
    /// in a CSV file; a column with no such conversion is 42804), and a query's rows are
    /// written a row group at a time.
    fn copy_parquet(&mut self, statement: &CopyStatement, ctx: &ExecContext) -> Result<u64> {
        let CopyEndpoint::File(path) = &statement.endpoint else {
            return Err(Error::unsupported(
                "COPY (FORMAT parquet) with STDIN or STDOUT",
            ));
        };
        match &statement.direction {
            CopyDirection::From {
                table_name,
                table_oid,
                field_names,
                row,
                checks,
            } => {
                let file = ParquetFile::open(path)?;
                let file_types: Vec<DataType> = file.columns().iter().map(|(_, t)| *t).collect();
                let into = CopyInto {
                    table_name,
                    table_oid: *table_oid,
                    field_names,
                    row,
                    checks,
                };
                self.load_copy(into, |target, appender| {
                let field_types = target.field_types();
                if file_types.len() != field_names.len() {
                    return Err(Error::new(
                        SqlState::DatatypeMismatch,
                        format!(
                            "file \"{path}\" has {} columns, COPY expects {}",
                            file_types.len(),
                            field_names.len()
                        ),
                    ));
                }
                for (field, (&from, &to)) in file_types.iter().zip(&field_types).enumerate() {
                    if from != to && !can_cast(from, to, cast_context(from)) {
                        return Err(Error::new(
                            SqlState::DatatypeMismatch,
                            format!(
                                "column \"{}\" is of type {to} but column {} of file \"{path}\" is of type {from}",
                                field_names[field],
                                field + 1
                            ),
                        ));
                    }
                }
                let all: Vec<usize> = (0..file_types.len()).collect();
                for batch in file.read(&all, &RowGroupFilter::default())? {
                    ctx.check_cancelled()?;
                    let fields = batch.columns.iter().map(|c| Some((**c).clone())).collect();
                    let rows =
                        target.full_rows(fields, batch.len(), ctx, |values, ty, field| {
                            match file_types[field] == ty {
                                true => Ok(values),
                                false => cast_vector(
                                    &values,
                                    file_types[field],
                                    ty,
                                    cast_context(file_types[field]),
                                ),
                            }
                        })?;
                        appender.append(&rows, ctx)?;
                    }
                    Ok(())
                })
            }
            CopyDirection::To { plan, columns } => {
                let columns: Vec<(String, DataType)> = columns
                    .iter()
                    .map(|c| (c.name.clone(), c.data_type))
                    .collect();
                let mut writer = ParquetWriter::create(path, &columns)?;
                let mut operator = create_operator(plan, &ctx.state);
                let mut count = 0u64;
                while let Some(batch) = operator.next(ctx)? {
                    count += batch.len() as u64;
                    writer.write(batch)?;
                }
                writer.finish()?;
                Ok(count)
            }
        }
    }
}

/// How a Parquet column becomes a table column's type: text through the type's input
/// function, as COPY reads any text field; other types by assignment casts.
fn cast_context(from: DataType) -> CastContext {
    match from {
        DataType::Text => CastContext::Explicit,
        _ => CastContext::Assignment,
    }
}

fn copy_in(
    mut parser: impl CopyRows,
    mut input: Input<'_>,
    appender: &mut Appender,
    ctx: &ExecContext,
) -> Result<()> {
    let mut sink = |batch| appender.append(&batch, ctx);
    // The bytes of an unfinished record the last parse left.
    let mut unfinished_bytes = 0;
    while input.read(parser.buffer())? {
        let pending_bytes = parser.buffer().len();
        check_record_bytes(pending_bytes)?;
        // A record of a hundred megabytes is held whole: 53200 past the statement's memory.
        crate::interrupt::check_value_bytes(pending_bytes)?;
        // A parse scans an unfinished record again from its start: parse only once it has
        // doubled, so that one enormous line costs linear time, not quadratic.
        if pending_bytes - unfinished_bytes < unfinished_bytes {
            continue;
        }
        parser.parse(ctx, &mut sink)?;
        unfinished_bytes = parser.buffer().len();
        check_record_bytes(unfinished_bytes)?;
    }
    parser.finish(ctx, &mut sink)
}

/// PostgreSQL's largest allocation (MaxAllocSize): a record, which COPY holds whole until
/// its end arrives, may not grow past it.
const RECORD_BYTES_MAX: usize = (1 << 30) - 1;

/// 54000 once the unfinished record left after parsing is longer than a record may be, so
/// an input without line breaks cannot take the server's memory.
fn check_record_bytes(pending_bytes: usize) -> Result<()> {
    if pending_bytes <= RECORD_BYTES_MAX {
        return Ok(());
    }
    Err(
        Error::new(SqlState::ProgramLimitExceeded, "out of memory").with_detail(format!(
            "Cannot enlarge string buffer containing {RECORD_BYTES_MAX} bytes by {} more bytes.",
            pending_bytes - RECORD_BYTES_MAX
        )),
    )
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
    encoder.trailer(&mut write)?;
    output.finish()?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use crate::api::Database;
    use crate::error::{Result, SqlState};

    #[test]
    fn a_record_longer_than_postgres_allows_is_54000() {
        assert!(super::check_record_bytes(super::RECORD_BYTES_MAX).is_ok());
        let too_long = super::check_record_bytes(super::RECORD_BYTES_MAX + 1);
        let error = too_long.err().map(|e| (e.sqlstate(), e.message));
        assert_eq!(error, Some(("54000", "out of memory".to_string())));
    }

    /// Hands out its bytes `step` at a time, so records are cut at every possible place.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(self.bytes.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Loads `data` with `copy` a few bytes at a time; returns the table's rows as COPY TO
    /// writes them.
    fn round_trip(create: &str, copy: &str, data: &str, step: usize) -> Result<String> {
        let db = Database::new();
        let mut session = db.connect();
        session.execute(create)?;
        let mut reader = Trickle {
            bytes: data.as_bytes(),
            step,
        };
        session.copy_from(copy, &mut reader)?;
        let mut out = Vec::new();
        session.copy_to("COPY t TO STDOUT", &mut out)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn records_cut_anywhere_load_the_same() -> Result<()> {
        let data = "1\ta\\tb\n2\t\\N\r\n3\tlast line without newline";
        let expected = "1\ta\\tb\n2\t\\N\n3\tlast line without newline\n";
        for step in [1, 2, 3, 7, 64] {
            let copied = round_trip(
                "CREATE TABLE t (a int, b text)",
                "COPY t FROM STDIN",
                data,
                step,
            )?;
            assert_eq!(copied, expected, "step {step}");
        }
        Ok(())
    }

    #[test]
    fn csv_quoted_newlines_span_reads() -> Result<()> {
        let data = "1,\"two\nlines\"\n2,\"say \"\"hi\"\"\"\n3,\n";
        let expected = "1\ttwo\\nlines\n2\tsay \"hi\"\n3\t\\N\n";
        for step in [1, 5, 100] {
            let copied = round_trip(
                "CREATE TABLE t (a int, b text)",
                "COPY t FROM STDIN (FORMAT csv)",
                data,
                step,
            )?;
            assert_eq!(copied, expected, "step {step}");
        }
        Ok(())
    }

    #[test]
    fn many_batches_and_an_error_in_the_last_leave_nothing() -> Result<()> {
        let db = Database::new();
        let mut session = db.connect();
        session.execute("CREATE TABLE t (a int)")?;
        let mut data: String = (0..10_000).map(|i| format!("{i}\n")).collect();
        data.push_str("oops\n");
        let error = session
            .copy_from("COPY t FROM STDIN", &mut data.as_bytes())
            .err()
            .ok_or_else(|| crate::error::Error::internal("COPY succeeded"))?;
        assert_eq!(error.state, SqlState::InvalidTextRepresentation);
        assert_eq!(
            error.context.as_deref(),
            Some("COPY t, line 10001, column a: \"oops\"")
        );
        let count = session.execute("SELECT count(*) FROM t")?;
        assert_eq!(count[0].text_lines(), vec!["0"]);
        Ok(())
    }

    #[test]
    fn copy_to_a_file_and_back() -> Result<()> {
        let db = Database::new();
        let mut session = db.connect();
        let path =
            std::env::temp_dir().join(format!("kestrel-copy-test-{}.csv", std::process::id()));
        let path = path.to_string_lossy().into_owned();
        session.execute("CREATE TABLE t (a int, b text)")?;
        session.execute("INSERT INTO t VALUES (1, 'x,y'), (2, NULL)")?;
        session.execute(&format!("COPY t TO '{path}' (FORMAT csv, HEADER)"))?;
        session.execute(&format!("COPY t FROM '{path}' (FORMAT csv, HEADER)"))?;
        let _ = std::fs::remove_file(&path);
        let rows = session.execute("SELECT count(*), count(b) FROM t")?;
        assert_eq!(rows[0].text_lines(), vec!["4|2"]);
        Ok(())
    }
}
