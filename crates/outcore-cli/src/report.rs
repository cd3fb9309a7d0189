//! `outcore report`: stats files into one HTML page (a shell over
//! [`outcore::api::report`]).

use anyhow::Result;
use clap::Args;
use outcore::api::report;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReportArgs {
    /// Stats files written by `outcore run --stats` or `outcore import
    /// --stats`; several are drawn side by side on shared scales.
    #[arg(required = true, value_name = "STATS.json")]
    pub stats: Vec<PathBuf>,
    /// The HTML page to write (self-contained: it needs no network).
    #[arg(long, short)]
    pub out: PathBuf,
}

pub fn report(a: ReportArgs) -> Result<()> {
    outcore::outfile::check_writable(&a.out)?;
    let docs = report::load(&a.stats)?;
    report::write(&a.out, &docs)?;
    eprintln!(
        "wrote {}: a report of {} stats file{}",
        a.out.display(),
        docs.len(),
        if docs.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// `--report FILE` of run and import: the page for this one stats object.
pub fn write_one(path: &Path, stats: &serde_json::Value, name: &str) -> Result<()> {
    let doc = report::Doc {
        name: name.to_string(),
        json: stats.clone(),
    };
    report::write(path, &[doc])?;
    eprintln!("wrote the report {}", path.display());
    Ok(())
}
