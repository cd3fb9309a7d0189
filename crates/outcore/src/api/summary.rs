//! What a run's report shows of its answer (issue 52): the distribution
//! that fits the algorithm and its top vertices or groups, from one or two
//! passes over the values wherever they are held, inside the budget. It
//! lands in the stats JSON as `result` (beside the disk rate the run was
//! priced with, `disk`), so a report is drawn from the stats alone.
//!
//! - scores (PageRank, betweenness, LCC, triangles, walk visits, SSSP
//!   distances): vertices per quarter decade of value, zeros and
//!   unreached apart, and the top 20 vertices;
//! - groups (WCC components, CDLP communities): groups per power of two
//!   of sizes and the 20 largest;
//! - counts (BFS depths, core numbers, colours, MIS membership): vertices
//!   per value, and for core numbers the top 20 vertices.

use super::figures::{self, readable};
use super::run::Algorithm;
use super::values::{Kind, VertexValues};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::{IdLookup, Store};
use serde::Serialize;
use std::collections::BTreeMap;

/// Vertices or groups in the top table.
pub const TOP: usize = 20;

/// Distinct values counted one by one (beyond: a note, the rest dropped).
const MAX_COUNTS: usize = 10_000;

/// Bins per decade of a score histogram.
const PER_DECADE: f64 = 4.0;

/// A run's answer, for the report; see the module docs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ResultSummary {
    pub algorithm: String,
    pub vertices: u64,
    /// `scores`, `groups` or `counts`.
    pub shape: &'static str,
    /// What a value is: `pagerank`, `component size`, `depth`...
    pub what: String,
    /// scores: (low, high, vertices) of the positive values, by quarter
    /// decade.
    pub histogram: Vec<(f64, f64, u64)>,
    pub zero: u64,
    pub negative: u64,
    /// Vertices not reached (bfs, sssp).
    pub unreached: u64,
    /// counts: (value, vertices), ascending.
    pub counts: Vec<(i64, u64)>,
    /// groups: their number (None when only the largest were counted).
    pub groups: Option<u64>,
    /// groups: (smallest size, largest size, groups) per power of two.
    pub sizes: Vec<(u64, u64, u64)>,
    /// (original id, value) of the top vertices, or (label, size) of the
    /// largest groups.
    pub top: Vec<(String, String)>,
    pub note: Option<String>,
}

/// The summary of `values`, the answer of `alg` on `store`.
pub fn summarize(
    alg: Algorithm,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
) -> Result<ResultSummary> {
    let mut s = ResultSummary {
        algorithm: alg.name().to_string(),
        vertices: store.manifest().num_vertices,
        ..Default::default()
    };
    let lookup = IdLookup::open(store)?;
    let what = match alg {
        Algorithm::Wcc => "component",
        Algorithm::Cdlp => "community",
        Algorithm::Bfs => "depth",
        Algorithm::Kcore => "core number",
        Algorithm::Coloring => "colour",
        Algorithm::Mis => "in the set (1) or not (0)",
        Algorithm::Pagerank => "pagerank",
        Algorithm::Betweenness => "betweenness",
        Algorithm::Lcc => "clustering coefficient",
        Algorithm::Triangles => "triangles",
        Algorithm::Randomwalk => "visits",
        Algorithm::Sssp => "distance",
    };
    s.what = what.to_string();
    match alg {
        Algorithm::Wcc | Algorithm::Cdlp => {
            s.shape = "groups";
            groups(&mut s, values, store, budget, &lookup)?;
            return Ok(s);
        }
        Algorithm::Bfs | Algorithm::Kcore | Algorithm::Coloring | Algorithm::Mis => {
            s.shape = "counts";
            counts(&mut s, values, store, budget)?;
            if alg != Algorithm::Kcore {
                return Ok(s);
            }
        }
        _ => {
            s.shape = "scores";
            scores(&mut s, values, store, budget)?;
        }
    }
    let kind = values.kind();
    for (v, x) in figures::top_vertices(values, store, budget, TOP)? {
        s.top
            .push((lookup.original(v)?.to_string(), shown(kind, x)));
    }
    Ok(s)
}

/// A value as a person reads it.
fn shown(kind: Kind, x: u64) -> String {
    match kind {
        Kind::Float => readable(f64::from_bits(x)),
        _ => (x as i64).to_string(),
    }
}

/// A histogram of the values by quarter decade.
fn scores(
    s: &mut ResultSummary,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
) -> Result<()> {
    let kind = values.kind();
    let mut bins: BTreeMap<i64, u64> = BTreeMap::new();
    let (mut zero, mut negative, mut unreached) = (0, 0, 0);
    values.for_each_dense(store, budget, &mut |_, x| {
        let x = match kind {
            Kind::Float => f64::from_bits(x),
            _ => x as i64 as f64,
        };
        // NaNs are left out.
        if x.is_nan() {
        } else if x.is_infinite() || x == i64::MAX as f64 {
            unreached += 1;
        } else if x == 0.0 {
            zero += 1;
        } else if x < 0.0 {
            negative += 1;
        } else {
            *bins
                .entry((x.log10() * PER_DECADE).floor() as i64)
                .or_default() += 1;
        }
    })?;
    let edge = |b: i64| 10f64.powf(b as f64 / PER_DECADE);
    s.histogram = bins
        .into_iter()
        .map(|(b, c)| (edge(b), edge(b + 1), c))
        .collect();
    (s.zero, s.negative, s.unreached) = (zero, negative, unreached);
    Ok(())
}

/// Vertices per value (depths, core numbers, colours).
fn counts(
    s: &mut ResultSummary,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
) -> Result<()> {
    let mut by: BTreeMap<i64, u64> = BTreeMap::new();
    let (mut unreached, mut dropped) = (0u64, 0u64);
    values.for_each_dense(store, budget, &mut |_, x| {
        let x = x as i64;
        if x == crate::algo::bfs::UNREACHABLE {
            unreached += 1;
        } else if let Some(c) = by.get_mut(&x) {
            *c += 1;
        } else if by.len() < MAX_COUNTS {
            by.insert(x, 1);
        } else {
            dropped += 1;
        }
    })?;
    s.counts = by.into_iter().collect();
    s.unreached = unreached;
    if dropped > 0 {
        s.note = Some(format!(
            "{dropped} vertices with values beyond the first {MAX_COUNTS} distinct ones not shown"
        ));
    }
    Ok(())
}

/// Group sizes: exact when the budget holds a counter per label, else the
/// largest groups only.
fn groups(
    s: &mut ResultSummary,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
    lookup: &IdLookup,
) -> Result<()> {
    let n = store.manifest().num_vertices;
    let width = if n <= u32::MAX as u64 { 4 } else { 8 };
    let top = match budget.charge(n * width, "group sizes") {
        Ok(_charge) => {
            let g = if width == 4 {
                figures::exact::<u32>(values, store, budget, TOP)?
            } else {
                figures::exact::<u64>(values, store, budget, TOP)?
            };
            s.groups = Some(g.count);
            s.sizes = (g.by_size.iter().enumerate())
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| (1 << i, (2 << i) - 1, c))
                .collect();
            g.top
        }
        Err(_) => {
            let k = (budget.available() / 16 / 48).clamp(64, 1 << 20) as usize;
            let (top, floor) =
                figures::heavy_hitters(k, TOP, |f| values.for_each_dense(store, budget, f))?;
            s.note = Some(format!(
                "the budget holds no counter per label: only groups of more than {floor} vertices were counted"
            ));
            top
        }
    };
    for (size, label) in top {
        s.top.push((
            lookup.original_of_rank(label)?.to_string(),
            size.to_string(),
        ));
    }
    Ok(())
}

/// The disk rate a run can be read against: the store's calibration
/// (`outcore calibrate STORE`) when it has one, as JSON for the stats
/// (`disk`), else None.
pub fn disk_rate(store: &Store) -> Option<serde_json::Value> {
    let c = crate::io::calibrate::load(store.root())?;
    let (_, iops, mbs, _) = *c.points.iter().find(|p| p.0 == c.best_depth)?;
    Some(serde_json::json!({
        "source": "outcore calibrate",
        "bytes_per_second": mbs * 1e6,
        "iops": iops,
        "depth": c.best_depth,
        "page_bytes": c.page_bytes,
        "backend": c.backend,
    }))
}

/// Adds the run's answer (`result`) and the disk rate (`disk`, when known)
/// to a stats object.
pub fn annotate(
    stats: &mut serde_json::Value,
    alg: Algorithm,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
) -> Result<()> {
    let summary = summarize(alg, values, store, budget)?;
    if let Some(o) = stats.as_object_mut() {
        let j = serde_json::to_value(summary).map_err(|e| Error::Invalid(e.to_string()))?;
        o.insert("result".into(), j);
        if let Some(d) = disk_rate(store) {
            o.insert("disk".into(), d);
        }
    }
    Ok(())
}
