//! `outcore query` (targeted queries on the select engine) and `outcore calibrate`.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use outcore::algo::query;
use outcore::api::query as api;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::io::calibrate;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::size::format_size;
use outcore::store::{IdLookup, Store};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Subcommand)]
pub enum Query {
    /// Vertices within --hops of --source (one original id per line).
    Khop(HopArgs),
    /// The subgraph induced by the vertices within --hops of --source (one `src dst` edge per line).
    Egonet(HopArgs),
    /// The subgraph induced by the vertices listed in --vertices FILE (one `src dst` edge per line).
    Induced(InducedArgs),
    /// Edges from a vertex of --set-a FILE to one of --set-b FILE (one `src dst` edge per line).
    Cross(CrossArgs),
}

/// Options every query kind takes.
#[derive(Args)]
pub struct Common {
    /// The store.
    pub store: PathBuf,
    /// Result file (default: standard output); for a name ending in
    /// .parquet, a Parquet file of column `id` (khop) or `source` and
    /// `target` (uint64, or string ids).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The format of --out: text or parquet (default: parquet for a name
    /// ending in .parquet, else text).
    #[arg(long, requires = "out")]
    pub out_format: Option<outcore::api::OutFormat>,
    /// Query statistics as JSON.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Memory budget of the buffer pool, like every command: default half of
    /// RAM (the pool never grows beyond the store's files).
    #[arg(long, value_parser = crate::parse_memory)]
    pub memory: Option<u64>,
    /// I/O backend: uring (io_uring + O_DIRECT) or sync (positioned reads);
    /// default: uring when available.
    #[arg(long)]
    pub io: Option<Backend>,
    /// Requests in flight (default: `outcore calibrate`'s best, else 64).
    #[arg(long)]
    pub depth: Option<usize>,
}

/// khop and egonet.
#[derive(Args)]
pub struct HopArgs {
    #[command(flatten)]
    pub common: Common,
    /// The source vertex (an original id: an integer, or a name in a store
    /// of string ids).
    #[arg(long, required_unless_present = "sources")]
    pub source: Option<String>,
    /// Run one query per source listed in FILE (original ids) and report
    /// latency percentiles instead of results.
    #[arg(long, conflicts_with = "source")]
    pub sources: Option<PathBuf>,
    /// With --sources: passes over the list (the first is cold, later ones warm).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Hops from the source.
    #[arg(long, default_value_t = 1)]
    pub hops: u32,
}

/// induced.
#[derive(Args)]
pub struct InducedArgs {
    #[command(flatten)]
    pub common: Common,
    /// File of original ids, one per line (`#` comments).
    #[arg(long)]
    pub vertices: PathBuf,
}

/// cross.
#[derive(Args)]
pub struct CrossArgs {
    #[command(flatten)]
    pub common: Common,
    /// File of original ids: the edges' sources.
    #[arg(long)]
    pub set_a: PathBuf,
    /// File of original ids: the edges' targets.
    #[arg(long)]
    pub set_b: PathBuf,
}

/// Every query's options in one place (what the kinds did not take is
/// empty).
pub struct QArgs {
    pub store: PathBuf,
    pub source: Option<String>,
    pub sources: Option<PathBuf>,
    pub repeat: usize,
    pub hops: u32,
    pub vertices: Option<PathBuf>,
    pub set_a: Option<PathBuf>,
    pub set_b: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub out_format: Option<outcore::api::OutFormat>,
    pub stats: Option<PathBuf>,
    pub memory: u64,
    pub io: Option<Backend>,
    pub depth: Option<usize>,
}

impl QArgs {
    fn new(c: Common) -> QArgs {
        QArgs {
            store: c.store,
            source: None,
            sources: None,
            repeat: 1,
            hops: 1,
            vertices: None,
            set_a: None,
            set_b: None,
            out: c.out,
            out_format: c.out_format,
            stats: c.stats,
            memory: c.memory.unwrap_or_else(Budget::default_limit),
            io: c.io,
            depth: c.depth,
        }
    }

    fn hops(h: HopArgs) -> QArgs {
        QArgs {
            source: h.source,
            sources: h.sources,
            repeat: h.repeat,
            hops: h.hops,
            ..QArgs::new(h.common)
        }
    }
}

/// Adds what was run to a stats object: command, version, start, store and
/// every parameter.
fn describe(j: &mut serde_json::Value, kind: &str, a: &QArgs) {
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    if let Some(o) = j.as_object_mut() {
        o.insert("command".into(), "query".into());
        o.insert("outcore_version".into(), env!("CARGO_PKG_VERSION").into());
        o.insert("started_at".into(), crate::utc_now().into());
        o.insert("store".into(), a.store.display().to_string().into());
        o.insert(
            "parameters".into(),
            serde_json::json!({
                "query": kind,
                "source": crate::id_json(a.source.as_deref()),
                "sources": path(&a.sources),
                "repeat": a.repeat,
                "hops": a.hops,
                "vertices": path(&a.vertices),
                "set_a": path(&a.set_a),
                "set_b": path(&a.set_b),
                "out": path(&a.out),
                "memory": a.memory,
                "io": a.io.map(|b| b.to_string()),
                "depth": a.depth,
            }),
        );
    }
}

/// Original <-> dense ids without loading the whole maps: positioned reads
/// of `ids.bin` (sorted: a binary search), `order.bin` and `order.inv`.
struct Ids(IdLookup);

impl Ids {
    fn open(store: &Store) -> Result<Ids> {
        Ok(Ids(IdLookup::open(store)?))
    }

    fn dense(&self, id: &str) -> Result<Option<u64>> {
        Ok(self.0.dense_of_text(id)?)
    }

    fn must(&self, id: &str) -> Result<u64> {
        self.dense(id)?
            .ok_or_else(|| anyhow::anyhow!("vertex {id} is not in the graph"))
    }

    fn read_set(&self, path: &PathBuf) -> Result<Vec<u64>> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let (mut lines, mut ids) = (Vec::new(), Vec::new());
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if !t.is_empty() && !t.starts_with('#') {
                lines.push(i + 1);
                ids.push(t);
            }
        }
        let at = |i: usize| format!("{}:{}: ", path.display(), lines[i]);
        Ok(api::dense_ids(&self.0, &ids, at)?)
    }
}

pub fn query(q: Query) -> Result<()> {
    let (kind, a) = match q {
        Query::Khop(h) => ("khop", QArgs::hops(h)),
        Query::Egonet(h) => ("egonet", QArgs::hops(h)),
        Query::Induced(i) => (
            "induced",
            QArgs {
                vertices: Some(i.vertices),
                ..QArgs::new(i.common)
            },
        ),
        Query::Cross(c) => (
            "cross",
            QArgs {
                set_a: Some(c.set_a),
                set_b: Some(c.set_b),
                ..QArgs::new(c.common)
            },
        ),
    };
    for path in [&a.out, &a.stats].into_iter().flatten() {
        outcore::outfile::check_writable(path)?;
    }
    let t = Instant::now();
    let store = Store::open_with_delta(&a.store)?;
    let directed = store.manifest().directed;
    let ids = Ids::open(&store)?;
    let budget = Budget::checked(a.memory)?;
    let cfg = SelectConfig {
        io: a.io,
        depth: a.depth,
        ..Default::default()
    };
    let mut eng = SelectEngine::new(&store, "out", false, &budget, &cfg)?;
    if let Some(list) = &a.sources {
        return latency_run(kind, &a, &ids, &mut eng, list, directed);
    }
    let need = |o: &Option<PathBuf>, flag: &str| {
        o.clone()
            .ok_or_else(|| anyhow::anyhow!("{kind} needs --{flag} FILE"))
    };
    let src = || {
        a.source
            .as_deref()
            .ok_or_else(|| anyhow::anyhow!("{kind} needs --source ID"))
            .and_then(|s| ids.must(s))
    };
    let (sa, sb);
    let q = match kind {
        "khop" => api::Query::Khop {
            source: src()?,
            hops: a.hops,
        },
        "egonet" => api::Query::Egonet {
            source: src()?,
            hops: a.hops,
        },
        "induced" => {
            sa = ids.read_set(&need(&a.vertices, "vertices")?)?;
            api::Query::Induced { vertices: &sa }
        }
        _ => {
            (sa, sb) = (
                ids.read_set(&need(&a.set_a, "set-a")?)?,
                ids.read_set(&need(&a.set_b, "set-b")?)?,
            );
            api::Query::Cross { a: &sa, b: &sb }
        }
    };
    let parquet = match (&a.out, a.out_format) {
        (_, Some(f)) => f == outcore::api::OutFormat::Parquet,
        (Some(p), None) => outcore::api::OutFormat::of(p) == outcore::api::OutFormat::Parquet,
        (None, None) => false,
    };
    let dash = PathBuf::from("-");
    let mut outf = match parquet {
        false => Some(outcore::outfile::OutFile::create(
            a.out.as_ref().unwrap_or(&dash),
        )?),
        true => None,
    };
    let (answer, stats) = api::run(&store, &ids.0, &mut eng, &q)?;
    if let (Some(path), true) = (&a.out, parquet) {
        let strings = store.manifest().string_ids;
        let cols = match answer {
            api::Answer::Vertices(vs) => vec![("id", vs)],
            api::Answer::Edges(es) => {
                let (s, d) = es.into_iter().unzip();
                vec![("source", s), ("target", d)]
            }
        };
        outcore::api::write_id_columns(path, strings, &cols)?;
    } else if let Some(outf) = outf.as_mut() {
        let out = outf.writer();
        match answer {
            api::Answer::Vertices(vs) => {
                for v in vs {
                    writeln!(out, "{v}")?;
                }
            }
            api::Answer::Edges(es) => {
                for (s, d) in es {
                    writeln!(out, "{s} {d}")?;
                }
            }
        }
    }
    if let Some(outf) = outf {
        outf.commit()?;
    }
    let total = t.elapsed().as_secs_f64();
    eprintln!(
        "{kind}: {} results in {:.3} ms (query {:.3} ms), read {} in {} requests, {} pages touched, io {}",
        stats.result_size,
        total * 1e3,
        stats.seconds * 1e3,
        format_size(stats.bytes_read),
        stats.read_requests,
        stats.pages_touched,
        eng.reader().backend()
    );
    if let Some(p) = &a.stats {
        let mut j = serde_json::to_value(&stats)?;
        j["total_seconds"] = serde_json::json!(total);
        j["peak_rss_bytes"] = serde_json::json!(outcore::mem::budget::peak_rss_bytes());
        j["query"] = serde_json::json!(kind);
        describe(&mut j, kind, &a);
        outcore::outfile::write(p, (serde_json::to_string_pretty(&j)? + "\n").as_bytes())?;
    }
    Ok(())
}

/// Many queries in one process: latency percentiles per pass.
fn latency_run(
    kind: &str,
    a: &QArgs,
    ids: &Ids,
    eng: &mut SelectEngine,
    list: &PathBuf,
    directed: bool,
) -> Result<()> {
    let sources = ids.read_set(list)?;
    if sources.is_empty() {
        bail!("{}: no sources", list.display());
    }
    let mut report = Vec::new();
    for pass in 0..a.repeat.max(1) {
        let mut lat = Vec::with_capacity(sources.len());
        let (mut bytes, mut pages, mut results) = (0u64, 0u64, 0u64);
        for &s in &sources {
            let t = Instant::now();
            let st = match kind {
                "khop" => query::khop(eng, s, a.hops)?.1,
                "egonet" => query::egonet(eng, s, a.hops, directed)?.1,
                _ => bail!("--sources applies to khop and egonet"),
            };
            lat.push(t.elapsed().as_secs_f64() * 1e3);
            bytes += st.bytes_read;
            pages += st.pages_touched;
            results += st.result_size;
        }
        lat.sort_by(|x, y| x.total_cmp(y));
        let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
        let q = sources.len() as f64;
        let line = serde_json::json!({
            "pass": pass + 1,
            "cold": pass == 0,
            "queries": sources.len(),
            "median_ms": pct(0.5),
            "p99_ms": pct(0.99),
            "max_ms": lat[lat.len() - 1],
            "mean_bytes_read": bytes as f64 / q,
            "mean_pages_touched": pages as f64 / q,
            "mean_results": results as f64 / q,
        });
        eprintln!(
            "{kind} --hops {} pass {} ({}): median {:.3} ms, p99 {:.3} ms over {} queries; {:.0} bytes read, {:.1} pages touched, {:.0} results per query",
            a.hops,
            pass + 1,
            if pass == 0 { "cold" } else { "warm" },
            pct(0.5),
            pct(0.99),
            sources.len(),
            bytes as f64 / q,
            pages as f64 / q,
            results as f64 / q
        );
        report.push(line);
    }
    if let Some(p) = &a.stats {
        let mut report = serde_json::to_value(&report)?;
        describe(&mut report, kind, a);
        outcore::outfile::write(
            p,
            (serde_json::to_string_pretty(&report)? + "\n").as_bytes(),
        )?;
    }
    Ok(())
}

#[derive(Args)]
pub struct CalibrateArgs {
    /// A store: measures its largest file and records the result in STORE/calibration.json.
    pub store: Option<PathBuf>,
    /// Measure this file instead (nothing is recorded).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Bytes per read.
    #[arg(long, value_parser = crate::parse_size, default_value = "4KiB")]
    pub page_size: u64,
    /// Queue depths to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64,128")]
    pub depths: Vec<usize>,
    /// Seconds per depth.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// I/O backend: uring or sync.
    #[arg(long)]
    pub io: Option<Backend>,
}

pub fn calibrate(a: CalibrateArgs) -> Result<()> {
    // Open while its file is read: the file's path is valid while it is.
    let mut held = None;
    let path = match (&a.file, &a.store) {
        (Some(f), _) => f.clone(),
        (None, Some(s)) => {
            // The store's largest file: random reads over as many pages as
            // the store offers (a coded adjacency can be under a page).
            let store: &Store = held.insert(Store::open(s)?);
            let files = &store.manifest().files;
            let largest = files
                .iter()
                .max_by_key(|(_, e)| e.bytes)
                .map(|(rel, _)| rel);
            store.file(largest.map_or("csr/out.adj", |r| r.as_str()))
        }
        (None, None) => bail!("give a STORE or --file PATH to measure"),
    };
    let budget = Budget::new(1 << 30);
    let c = calibrate::calibrate(&path, a.page_size, &a.depths, a.seconds, a.io, &budget)?;
    crate::out!("{}", c.table())?;
    if a.file.is_none() {
        if let Some(s) = &a.store {
            calibrate::save(s, &c)?;
            eprintln!("recorded in {}", s.join(calibrate::FILE_NAME).display());
        }
    }
    Ok(())
}
