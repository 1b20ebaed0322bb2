//! `kestrel sql`: runs statements on a database and prints each result the
//! way `psql -A` does — a header line, rows with `|` between values (NULL is empty), and
//! `(N rows)`; a command prints its tag. An error goes to stderr as psql words it.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use kestrel::{Database, Error, StatementResult};

pub(crate) fn run_sql(database: &Database, sql: &str) -> ExitCode {
    let mut session = database.connect();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut write_error = None;
    let result = session.simple_query(sql, &mut |result| {
        if write_error.is_none() {
            write_error = print_result(&mut out, &result).err();
        }
    });
    let flushed = out.flush();
    if let Some(error) = write_error.or(flushed.err()) {
        eprintln!("kestrel: cannot write output: {error}");
        return ExitCode::FAILURE;
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            print_error(&error);
            ExitCode::FAILURE
        }
    }
}

fn print_result(out: &mut impl Write, result: &StatementResult) -> io::Result<()> {
    let Some(columns) = &result.columns else {
        return writeln!(out, "{}", result.tag);
    };
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    writeln!(out, "{}", names.join("|"))?;
    let mut line = Vec::new();
    for batch in &result.batches {
        for row in 0..batch.len() {
            line.clear();
            for (idx, column) in batch.columns.iter().enumerate() {
                if idx > 0 {
                    line.push(b'|');
                }
                column.write_text(row, &mut line);
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
    }
    let rows = result.row_count();
    writeln!(out, "({rows} {})", if rows == 1 { "row" } else { "rows" })?;
    // psql also shows the tag of a data-modifying statement with RETURNING.
    if ["INSERT", "UPDATE", "DELETE"]
        .iter()
        .any(|verb| result.tag.starts_with(verb))
    {
        writeln!(out, "{}", result.tag)?;
    }
    Ok(())
}

fn print_error(error: &Error) {
    eprintln!("ERROR:  {}", error.message);
    if let Some(detail) = &error.detail {
        eprintln!("DETAIL:  {detail}");
    }
    if let Some(hint) = &error.hint {
        eprintln!("HINT:  {hint}");
    }
}
