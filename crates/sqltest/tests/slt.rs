//! `cargo test -p kestrel-sqltest`: every `tests/slt/**/*.slt` file in-process (also with the
//! optimizer off, and on a durable data directory that `RESTART` records restart) and over
//! the wire against a `kestrel serve` process, listing every failing file with its diffs.
//! `SLT_FILTER=query/ cargo test -p kestrel-sqltest` runs only the files whose path contains
//! the filter.

use kestrel_sqltest::{corpus_dir, kestrel_binary, slt_files, FileReport, Target};

fn run_corpus(target: Target) {
    let filter = std::env::var("SLT_FILTER").unwrap_or_default();
    let files: Vec<_> = slt_files(&corpus_dir())
        .unwrap_or_else(|e| panic!("cannot read the corpus: {e}"))
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
        .collect();
    assert!(!files.is_empty(), "no .slt files match {filter:?}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("cannot start the async runtime: {e}"));
    let reports: Vec<FileReport> = files
        .iter()
        .map(|file| runtime.block_on(target.run_file(file)))
        .collect();
    let failures: Vec<String> = reports
        .iter()
        .filter(|r| !r.passed())
        .map(ToString::to_string)
        .collect();
    if !failures.is_empty() {
        panic!(
            "{} of {} files failed:\n\n{}",
            failures.len(),
            reports.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn in_process() {
    run_corpus(Target::Engine);
}

#[test]
fn in_process_optimizer_off() {
    run_corpus(Target::EngineOptimizerOff);
}

#[test]
fn durable() {
    run_corpus(Target::Durable);
}

#[test]
fn wire() {
    let binary = kestrel_binary().unwrap_or_else(|e| panic!("{e}"));
    run_corpus(Target::KestrelServer { binary });
}
