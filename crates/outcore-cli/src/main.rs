//! The `outcore` command line.

mod build;
mod demo;
mod info;
mod partition;
mod query;
mod report;
mod run;
mod stdin;
mod update;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "outcore",
    version,
    about = "Graph analytics on graphs larger than memory, from an SSD, inside a memory budget"
)]
struct Cli {
    /// No progress output on stderr (a run prints its summary line only).
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a synthetic graph (Graph500 Kronecker, R-MAT, Erdős–Rényi, grid)
    /// into a store, or into a plain edge list with --edges.
    Generate(build::GenerateArgs),
    /// Import edge lists (SNAP, CSV/TSV, Matrix Market, LDBC, binary; .gz too) into a store.
    Import(build::ImportArgs),
    /// Add and remove edges of a store (the result equals importing the
    /// updated edge list; crash-safe). Updates land in a delta beside the
    /// base, merged into a new base once it passes --compact-at of it.
    #[command(
        override_usage = "outcore update <STORE> [--add <FILE>...] [--remove <FILE>...] [OPTIONS]"
    )]
    Update(update::UpdateArgs),
    /// Merge a store's delta (from `update`) into a new base: the
    /// store an import of its current edges would build (crash-safe).
    Compact(update::CompactArgs),
    /// Split a store into K shards by vertex, balanced by edges: one store
    /// per shard (the edges of its vertices, in global ids) and one id map.
    Partition(partition::PartitionArgs),
    /// Describe a store: counts, layouts, tiles, degrees, size.
    Info(info::InfoArgs),
    /// Recompute checksums and structural invariants; non-zero exit names the broken file.
    Verify(info::VerifyArgs),
    /// Write a layout back as an edge list in original ids.
    Export(info::ExportArgs),
    /// Run an algorithm (pagerank, wcc, bfs, sssp, kcore, cdlp, lcc, triangles, betweenness,
    /// coloring, mis, randomwalk) on a store.
    Run(run::RunArgs),
    /// Targeted queries on the select engine: khop, egonet, induced, cross.
    #[command(subcommand)]
    Query(query::Query),
    /// Measure random-read throughput against queue depth (RASP's in-flight target).
    Calibrate(query::CalibrateArgs),
    /// Draw stats files (`run --stats`, `import --stats`) as one HTML page of
    /// charts: time per iteration, bytes against the disk, engines, memory,
    /// import phases, the result's distribution; several side by side.
    Report(report::ReportArgs),
    /// Run the built-in demo: generate a Kronecker graph, build a store, show info.
    Demo(demo::DemoArgs),
}

/// Options shared by the commands that build stores.
#[derive(Args, Clone)]
pub struct StoreArgs {
    /// The store directory to create.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Memory budget: 512MiB, 4GiB or 4G (powers of 1024), 4GB (10^9), at most the RAM (or the cgroup memory limit, if lower); default: half of that.
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Replace an existing store.
    #[arg(long)]
    pub force: bool,
    /// Directory for sorted runs (default: beside the store).
    #[arg(long)]
    pub tmp_dir: Option<PathBuf>,
    /// Tests: caps every sort buffer at this many bytes, so a small input
    /// spills as a large one would.
    #[arg(long, hide = true, value_parser = parse_size)]
    pub sort_buffer: Option<u64>,
    /// Tests: bytes a CSR neighbour id takes, 4 or 8 (the wide layout,
    /// store format version 2, that ids beyond 2^32 will need).
    #[arg(long, hide = true, default_value_t = 4)]
    pub csr_id_bytes: u64,
    /// Tiles per physical group side (power of two).
    #[arg(long, default_value_t = outcore::store::tiles::DEFAULT_GROUP_TILES)]
    pub group_tiles: u32,
    /// Page size of the CSR adjacency files.
    #[arg(long, value_parser = parse_size, default_value = "4KiB")]
    pub page_size: u64,
    /// Drop self-loops (default: keep them, as NetworkX does).
    #[arg(long)]
    pub drop_self_loops: bool,
    /// Order of the store's internal vertex ids: `degree` (highest degree
    /// first, so hubs share tile blocks and the stream engine's cached tiles
    /// are denser; costs one more pass over the sorted edges), `original`
    /// (by original id), `bfs` (Cuthill-McKee: breadth-first levels, so
    /// neighbours get nearby ids and the coded layout has smaller gaps;
    /// costs a first build and a traversal of it), or `auto` (degree when
    /// the degrees are skewed, largest >= 16 x mean, and the budget holds 8
    /// bytes per vertex more, else original; on a coded store, bfs instead
    /// when its gaps cost under 90% of those bits). Every result is the
    /// same, in original ids.
    #[arg(long, default_value = "auto", value_name = "ORDER")]
    pub order: outcore::ingest::build::OrderChoice,
    /// The default: tiles are coded in frames of gaps between sorted edges
    /// (1.6-1.8 bytes an edge on Kronecker graphs instead of 4) and the
    /// CSR's pages in gaps, so I/O-bound runs read less and the caches hold
    /// more; every result is the same. `fast` (the default) codes the CSR
    /// in stream-vbyte (about 15 bits an edge on Kronecker graphs, decoded
    /// at 2.5 G entries/s a core); `--compress=small` in Huffman-coded bit
    /// lengths where smaller (about 11 bits, 25-35% fewer bytes, decoded
    /// ten times slower): for slow disks and small budgets.
    #[arg(long, value_name = "CODE", num_args = 0..=1, require_equals = true, default_missing_value = "fast")]
    pub compress: Option<outcore::store::csrcode::Code>,
    /// Keep the plain layout instead (4 bytes a tile edge and a CSR slot):
    /// of the runs measured, only SSSP on the select engine was faster
    /// plain (1-4%: it decodes every list it relaxes).
    #[arg(long, conflicts_with = "compress")]
    pub no_compress: bool,
}

/// `print!` that returns the write's error (a closed pipe ends the command
/// quietly in `main`) instead of panicking.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        write!(o, $($t)*).and_then(|_| o.flush())
    }};
}

/// `println!` that returns the write's error, like [`out!`].
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        writeln!(o, $($t)*).and_then(|_| o.flush())
    }};
}

/// The current time, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn parse_size(s: &str) -> Result<u64, String> {
    outcore::size::parse_size(s).map_err(|e| e.to_string())
}

/// A `--memory` value: a size, refused above the machine's RAM before any
/// work starts.
fn parse_memory(s: &str) -> Result<u64, String> {
    let bytes = parse_size(s)?;
    outcore::mem::budget::check_limit(bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

fn main() {
    let cli = Cli::parse();
    outcore::progress::set_quiet(cli.quiet);
    let _ = ctrlc::set_handler(|| {
        eprintln!("\ninterrupted: cleaning up (press Ctrl-C again to exit at once)");
        static ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if ONCE.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(130);
        }
        outcore::cancel::request();
    });
    let result: Result<()> = match cli.command {
        Command::Generate(a) => build::generate(a),
        Command::Import(a) => build::import(a),
        Command::Update(a) => update::update(a),
        Command::Compact(a) => update::compact(a),
        Command::Partition(a) => partition::partition(a),
        Command::Info(a) => info::info(a),
        Command::Verify(a) => info::verify(a),
        Command::Export(a) => info::export(a),
        Command::Run(a) => run::run(a),
        Command::Query(q) => query::query(q),
        Command::Calibrate(a) => query::calibrate(a),
        Command::Report(a) => report::report(a),
        Command::Demo(a) => demo::demo(a),
    };
    if let Err(e) = result {
        let interrupted = matches!(
            e.downcast_ref::<outcore::Error>(),
            Some(outcore::Error::Interrupted)
        );
        // A reader that went away (`| head`) is not an error.
        if broken_pipe(&e) {
            std::process::exit(0);
        }
        eprintln!("error: {}", render(&e));
        std::process::exit(if interrupted { 130 } else { 1 });
    }
}

/// True when the error comes from writing into a closed pipe.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, each cause once (a cause already quoted in
/// the message before it is not repeated).
fn render(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !out.contains(&c) {
            out.push_str(": ");
            out.push_str(&c);
        }
    }
    out
}

/// A vertex id as the user gave it, for `--stats`: a number when it is an
/// integer, else the text (a name).
pub fn id_json(id: Option<&str>) -> serde_json::Value {
    match id {
        None => serde_json::Value::Null,
        Some(s) => s.parse::<u64>().map_or_else(|_| s.into(), Into::into),
    }
}
