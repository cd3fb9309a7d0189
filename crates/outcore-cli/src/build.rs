//! `outcore generate` and `outcore import`.

use crate::StoreArgs;
use anyhow::{bail, Result};
use clap::Args;
use outcore::gen::{self, EdgeFileFormat, GenConfig, GenKind};
use outcore::ingest::build::{BuildOptions, BuildReport};
use outcore::ingest::parse::ParseOptions;
use outcore::mem::Budget;
use outcore::size::format_size;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct GenerateArgs {
    /// kron (Graph500 Kronecker), rmat, er (G(n, m)) or grid.
    pub kind: GenKind,
    /// kron/rmat: 2^SCALE vertices.
    #[arg(long, default_value_t = 16)]
    pub scale: u32,
    /// kron/rmat: EDGE_FACTOR * 2^SCALE edge samples.
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u64,
    /// rmat: initiator probability a (d = 1 - a - b - c); default 0.57.
    #[arg(long)]
    pub a: Option<f64>,
    /// rmat: initiator probability b; default 0.19.
    #[arg(long)]
    pub b: Option<f64>,
    /// rmat: initiator probability c; default 0.19.
    #[arg(long)]
    pub c: Option<f64>,
    /// er: number of vertices n.
    #[arg(long, default_value_t = 1 << 16)]
    pub vertices: u64,
    /// er: number of distinct edges m (default 16 n).
    #[arg(long)]
    pub num_edges: Option<u64>,
    /// grid: rows and columns.
    #[arg(long, default_value_t = 256)]
    pub rows: u64,
    #[arg(long, default_value_t = 256)]
    pub cols: u64,
    /// grid: integer weights uniform in 1..=MAX_WEIGHT.
    #[arg(long, default_value_t = 100)]
    pub max_weight: u64,
    /// Random seed: the same seed gives the same graph on any machine and thread count.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Undirected graph (the default for kron and grid).
    #[arg(long, conflicts_with = "directed")]
    pub undirected: bool,
    /// Directed graph (the default for rmat and er).
    #[arg(long)]
    pub directed: bool,
    /// Random weights (kron/rmat/er: uniform [0, 1); grid: integers).
    #[arg(long)]
    pub weighted: bool,
    /// Write a plain edge list to FILE instead of a store.
    #[arg(long, conflicts_with = "out")]
    pub edges: Option<PathBuf>,
    /// Format of --edges.
    #[arg(long, default_value = "text")]
    pub edge_format: EdgeFileFormat,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Args)]
pub struct ImportArgs {
    /// Input files (read one after the other; .gz is decompressed), or
    /// directories of Parquet files (a dataset).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// snap, csv, tsv, mtx, ldbc, bin32, bin64, parquet or arrow (default:
    /// Parquet and Arrow IPC by their first bytes, else from the extension,
    /// else snap).
    #[arg(long, short)]
    pub format: Option<outcore::ingest::parse::InputFormat>,
    /// Keep edge direction (the default).
    #[arg(long, conflicts_with = "undirected")]
    pub directed: bool,
    /// Treat every edge as undirected.
    #[arg(long)]
    pub undirected: bool,
    /// Read a weight column.
    #[arg(long)]
    pub weighted: bool,
    /// snap/csv/tsv: the first line of each file is a header. (Without it,
    /// a first line that is not numeric while the next is is read as a
    /// header too; a note says so.)
    #[arg(long)]
    pub header: bool,
    /// csv/tsv: SRC,DST[,W] as 0-based column numbers, or header names with
    /// --header. parquet/arrow: column names (or numbers); default the first
    /// two integer or string columns (a note says which).
    #[arg(long)]
    pub columns: Option<String>,
    /// csv/tsv: the field separator, one ASCII character (`;`, `|`, `tab`).
    #[arg(long, value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// What the vertex ids are: `int` (non-negative integers below 2^64),
    /// `string` (any bytes; csv/tsv fields may be quoted; text formats only),
    /// or `auto`: strings when the first data line's ids are not integers
    /// (a note on stderr says so).
    #[arg(long, default_value = "auto")]
    pub ids: outcore::ingest::parse::IdKind,
    /// Build a store without edges from an input that has none (empty
    /// files, only comments or a header), instead of refusing it.
    #[arg(long)]
    pub allow_empty: bool,
    /// Write the import's statistics as JSON: seconds per phase, bytes
    /// read, spilled and written, peak memory.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Write an HTML report of the import (see `outcore report`).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub(crate) fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        "space" => Ok(b' '),
        _ if s.len() == 1 && s.is_ascii() && s != "\"" && s != "\n" => Ok(s.as_bytes()[0]),
        _ => Err(format!(
            "expected one ASCII character such as `;` or `|`, or `tab`; got `{s}`"
        )),
    }
}

fn options(store: &StoreArgs, directed: bool, weighted: bool, format: String) -> BuildOptions {
    let mut opts = BuildOptions {
        directed,
        weighted,
        drop_self_loops: store.drop_self_loops,
        memory: store.memory.unwrap_or_else(Budget::default_limit),
        scratch_dir: store.tmp_dir.clone(),
        force: store.force,
        group_tiles: store.group_tiles,
        page_bytes: store.page_size,
        format,
        compress: !store.no_compress,
        csr_code: store.compress.unwrap_or_default(),
        sort_buffer_cap: store.sort_buffer,
        csr_id_bytes: store.csr_id_bytes,
        ..BuildOptions::default()
    };
    store.order.apply(&mut opts);
    opts
}

pub fn generate(a: GenerateArgs) -> Result<()> {
    let mut cfg = GenConfig::new(a.kind);
    cfg.scale = a.scale;
    cfg.edge_factor = a.edge_factor;
    if a.kind == GenKind::Rmat {
        (cfg.a, cfg.b, cfg.c) = (
            a.a.unwrap_or(cfg.a),
            a.b.unwrap_or(cfg.b),
            a.c.unwrap_or(cfg.c),
        );
    } else if a.a.is_some() || a.b.is_some() || a.c.is_some() {
        bail!("--a, --b and --c set the R-MAT initiator and apply to `generate rmat` only (kron uses Graph500's 0.57, 0.19, 0.19)");
    }
    cfg.vertices = a.vertices;
    cfg.edges = a.num_edges.unwrap_or(16 * a.vertices);
    cfg.rows = a.rows;
    cfg.cols = a.cols;
    cfg.max_weight = a.max_weight;
    cfg.seed = a.seed;
    if a.directed {
        cfg.directed = true;
    } else if a.undirected {
        cfg.directed = false;
    }
    cfg.weighted = a.weighted;
    cfg.validate()?;
    let mut source = gen::generator(&cfg)?;
    if let Some(path) = a.edges {
        let t = Instant::now();
        let n = gen::write_edge_file(
            source.as_mut(),
            &path,
            a.edge_format,
            cfg.weighted,
            a.store.force,
        )?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let secs = t.elapsed().as_secs_f64();
        eprintln!(
            "wrote {n} edges of {} to {} ({}, {:.1}s, {:.1} M edges/s; isolated vertices are not in an edge list)",
            cfg.describe(),
            path.display(),
            format_size(bytes),
            secs,
            n as f64 / secs / 1e6
        );
        return Ok(());
    }
    let Some(out) = a.store.out.clone() else {
        bail!("say where to write: --out STORE (a store) or --edges FILE (a plain edge list)");
    };
    let opts = options(
        &a.store,
        cfg.directed,
        cfg.weighted,
        format!("generate {}", cfg.describe()),
    );
    let report = outcore::api::build(source.as_mut(), &out, &opts)?;
    print_report(&report);
    Ok(())
}

pub fn import(mut a: ImportArgs) -> Result<()> {
    let Some(out) = a.store.out.clone() else {
        bail!("say where to write the store: --out STORE");
    };
    // Before standard input is spooled beside it, or anything is read.
    outcore::store::check_store_dest(&out, a.store.force, &a.inputs)?;
    for path in [&a.stats, &a.report].into_iter().flatten() {
        outcore::outfile::check_writable(path)?;
    }
    let started = crate::utc_now();
    // `-`: standard input, spooled to a temporary file beside the store
    // (the parser reads files in parallel blocks); removed when done.
    let _spool = crate::stdin::spool(&mut a.inputs, &out)?;
    let directed = !a.undirected;
    let popts = ParseOptions {
        weighted: a.weighted,
        header: a.header,
        columns: a.columns.clone(),
        directed,
        delimiter: a.delimiter,
        ids: a.ids,
        allow_empty: a.allow_empty,
        store_ids: false,
    };
    let opts = options(&a.store, directed, a.weighted, String::new());
    let report = outcore::api::import(&a.inputs, &out, a.format, &popts, &opts)?;
    print_report(&report);
    if a.stats.is_some() || a.report.is_some() {
        let mut j = outcore::api::import_stats(&report, opts.memory);
        if let Some(o) = j.as_object_mut() {
            o.insert("outcore_version".into(), env!("CARGO_PKG_VERSION").into());
            o.insert("started_at".into(), started.into());
            let inputs: Vec<String> = a.inputs.iter().map(|p| p.display().to_string()).collect();
            o.insert("inputs".into(), inputs.into());
        }
        if let Some(path) = &a.stats {
            let text = serde_json::to_string_pretty(&j)?;
            outcore::outfile::write(path, (text + "\n").as_bytes())?;
        }
        if let Some(path) = &a.report {
            crate::report::write_one(path, &j, &format!("import into {}", out.display()))?;
        }
    }
    Ok(())
}

fn print_report(r: &BuildReport) {
    eprintln!("{}", outcore::api::report_line(r));
}
