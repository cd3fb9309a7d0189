//! The library's front door: import a graph, run an algorithm, read the
//! results, as the `outcore` command line does (it is a thin shell over
//! this module) and as the Python package does. Each function takes every
//! option the CLI has, with the CLI's defaults.

mod algorithm;
mod build;
pub mod figures;
pub mod info;
mod parquet_out;
pub mod partition;
pub mod query;
pub mod report;
pub mod run;
mod run_more;
pub mod shard;
pub mod summary;
pub mod update;
pub mod values;

pub use build::build;
pub use info::info_json;
pub use parquet_out::{export_parquet, write_id_columns, OutFormat};

pub use run::{run, Algorithm, Run, RunOptions};
pub use update::{update, UpdateOptions, UpdateReport};
pub use values::{Columns, IdColumn, Kind, ValueColumn, VertexValues};

use crate::error::{Error, Result};
use crate::ingest::build::{BuildOptions, BuildReport};
use crate::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use crate::size::format_size;
use std::path::{Path, PathBuf};

/// Guesses the input format: Parquet or Arrow IPC by their first bytes (a
/// directory: a Parquet dataset), Matrix Market by its banner, else from
/// the first input's extension (`.gz` looked through), else snap. A file
/// that cannot be read is an error, not a guess.
pub fn guess_format(p: &Path) -> Result<InputFormat> {
    if let Some(f) = parse::columnar_format(p)? {
        return Ok(f);
    }
    if parse::is_matrix_market(p)? {
        return Ok(InputFormat::Mtx);
    }
    let name = p.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    Ok(match name.rsplit('.').next().unwrap_or("") {
        "csv" => InputFormat::Csv,
        "tsv" => InputFormat::Tsv,
        "mtx" => InputFormat::Mtx,
        "e" | "v" => InputFormat::Ldbc,
        "bin32" => InputFormat::Bin32,
        "bin64" => InputFormat::Bin64,
        "parquet" => InputFormat::Parquet,
        "arrow" | "feather" => InputFormat::Arrow,
        _ => InputFormat::Snap,
    })
}

/// Imports edge lists into a store at `out`: `format` (default: guessed
/// from the first input), `parse` says how to read them (its `directed`
/// and `weighted` are the store's), `build` how to build (its `directed`,
/// `weighted` and `format` are set from `parse` and `format` here).
pub fn import(
    inputs: &[PathBuf],
    out: &Path,
    format: Option<InputFormat>,
    parse: &ParseOptions,
    build: &BuildOptions,
) -> Result<BuildReport> {
    build.validate()?;
    crate::store::check_store_dest(out, build.force, inputs)?;
    let (mut source, format, popts) = open_inputs(inputs, format, parse)?;
    let opts = BuildOptions {
        directed: popts.directed,
        weighted: popts.weighted,
        format: format!("{format:?}").to_lowercase(),
        ..build.clone()
    };
    crate::api::build(source.as_mut(), out, &opts)
}

/// Opens `inputs` as one edge source: `format` (default: guessed from the
/// first input; binary and Matrix Market ids are integers by definition).
/// Returns the source, its format and the options it was opened with.
pub fn open_inputs(
    inputs: &[PathBuf],
    format: Option<InputFormat>,
    parse: &ParseOptions,
) -> Result<(
    Box<dyn crate::ingest::EdgeSource>,
    InputFormat,
    ParseOptions,
)> {
    let Some(first) = inputs.first() else {
        return Err(Error::Invalid("no input files to import".into()));
    };
    let format = match format {
        Some(f) => f,
        None => guess_format(first)?,
    };
    let mut popts = parse.clone();
    if popts.ids == IdKind::Auto
        && matches!(
            format,
            InputFormat::Mtx | InputFormat::Bin32 | InputFormat::Bin64
        )
    {
        popts.ids = IdKind::Int;
    }
    Ok((parse::open(inputs, format, &popts)?, format, popts))
}

/// A finished build as stats JSON (`import --stats`, and the report's
/// import sections): seconds per phase, bytes in, spilled and written,
/// peak memory against `budget`.
pub fn import_stats(r: &BuildReport, budget: u64) -> serde_json::Value {
    let m = &r.manifest;
    let phases: Vec<serde_json::Value> = (r.phases.iter())
        .map(|(p, s)| serde_json::json!({"name": p, "seconds": s}))
        .collect();
    serde_json::json!({
        "command": "import",
        "store": r.path.display().to_string(),
        "format": m.build.format,
        "seconds": r.seconds,
        "phases": phases,
        "input_bytes": r.input_bytes,
        "input_edges": m.build.input_edges,
        "spilled_bytes": r.spilled_bytes,
        "store_bytes": m.files.values().map(|f| f.bytes).sum::<u64>(),
        "peak_rss_bytes": r.peak_rss_bytes,
        "memory_budget": budget,
        "num_vertices": m.num_vertices,
        "num_edges": m.num_edges,
        "directed": m.directed,
        "weighted": m.weighted,
    })
}

/// Builds a store at `out` from a stream of record batches (what Python
/// hands over through the Arrow C stream interface), called `name` in
/// messages, of about `rows` rows when known: the columns by name as for
/// Parquet (`parse.columns`), read once, the batches read also spilled
/// beside the store for a build that reads its input again
/// ([`crate::ingest::parse::BatchSource`]).
pub fn import_batches(
    stream: Box<dyn arrow_array::RecordBatchReader + Send>,
    name: &str,
    rows: Option<u64>,
    out: &Path,
    parse: &ParseOptions,
    build: &BuildOptions,
) -> Result<BuildReport> {
    build.validate()?;
    crate::store::check_store_dest(out, build.force, &[])?;
    let mut source = parse::BatchSource::open(stream, name, rows, out, parse)?;
    let opts = BuildOptions {
        directed: parse.directed,
        weighted: parse.weighted,
        format: "arrow stream".into(),
        ..build.clone()
    };
    crate::api::build(&mut source, out, &opts)
}

/// One line describing a finished build, for stderr.
pub fn report_line(r: &BuildReport) -> String {
    let m = &r.manifest;
    let size: u64 = m.files.values().map(|f| f.bytes).sum();
    let mbps = r
        .input_bytes
        .map(|b| format!(", {:.1} MB/s of input", b as f64 / 1e6 / r.seconds))
        .unwrap_or_default();
    let phases: Vec<String> = r
        .phases
        .iter()
        .map(|(p, s)| format!("{p} {s:.1}s"))
        .collect();
    format!(
        "built {}: {} vertices, {} edges ({}{}) from {} input edges in {:.1}s ({}){mbps}; spilled {}; store {}; peak RSS {}",
        r.path.display(),
        m.num_vertices,
        m.num_edges,
        if m.directed { "directed" } else { "undirected" },
        if m.weighted { ", weighted" } else { "" },
        m.build.input_edges,
        r.seconds,
        phases.join(", "),
        format_size(r.spilled_bytes),
        format_size(size),
        format_size(r.peak_rss_bytes),
    )
}
