//! Single-source shortest paths with LDBC Graphalytics semantics on the
//! select engine: non-negative real weights, along out-edges (both directions
//! when undirected: the undirected CSR already holds both), the source at 0,
//! unreachable vertices at infinity (printed `infinity`).
//!
//! **Delta-stepping** (Meyer & Sanders), label-correcting and exact with
//! non-negative weights, as the vertex program
//! [`SsspVp`](crate::algo::vertex::sssp::SsspVp) (in place, min-combining,
//! priority `floor(dist / delta)`) run in phases by the engine
//! ([`crate::engine::phases`]):
//!
//! - A vertex waits in bucket `floor(dist / delta)` of the engine's bucket
//!   queue ([`crate::engine::frontier::Buckets`]). Any bucketing that is
//!   monotone in the distance is exact, so distances beyond
//!   `u64::MAX * delta` share the last bucket, and an infinite delta is
//!   Bellman-Ford in rounds.
//! - The lowest non-empty bucket is one **phase**: its vertices go to the
//!   select engine as one batch, which requests all their pages at the
//!   in-flight depth before processing any. Every edge of a vertex is
//!   relaxed each time the vertex is processed (no light/heavy split: that
//!   would read each list twice). Vertices whose distance drops into the
//!   current bucket (zero or light edges) form the next round of the same
//!   phase, until the bucket stays empty; then its vertices are settled.
//! - **Run-ahead prefetch** (RASP §6.3.3, the select engine's): when a
//!   round holds fewer vertices than the I/O depth, the queue names its
//!   queued vertices of smallest distance (next buckets first), and the
//!   engine reads their lists along with the round's (they are not relaxed
//!   now). On the 1M-vertex G(n, 4n) graph with a tiny delta (212k phases)
//!   and a 64 MiB budget this halves the run time; with large phases it
//!   never triggers.
//! - The default delta (`SsspConfig::delta = None`) is Meyer & Sanders'
//!   `Θ(1/d)` in units of the mean weight: the mean weight of the lists of
//!   up to 256 vertices spread evenly over the id range (plus the source),
//!   read through the engine before the first phase (the program's
//!   `setup`), divided by the mean degree (adjacency entries / |V|); 1.0
//!   when that sample holds no positive finite weight. Measured against
//!   fixed widths on Kronecker (avg degree 30), G(n, m) (degree 4) and grid
//!   graphs at small budgets, it is within about 1.5x of the best width on
//!   each, while the mean weight alone reads 2.7x more than the best on
//!   Kronecker (re-relaxations).
//!
//! Memory, statistics (one entry per phase, bounded): the phase runner's.
//!
//! Files: this one holds the settings, the result and the run ([`sssp`]);
//! `delta.rs` the default bucket width (`estimate_delta`); `weights.rs`
//! the error naming a bad weight's edge by original ids (shared with
//! weighted betweenness and the SSSP vertex program). The in-memory
//! reference is `crate::algo::reference::sssp` (`reference/paths.rs`).

mod delta;
#[cfg(test)]
mod tests;
mod weights;

pub(crate) use weights::{bad_weight, bad_weight_named, original_id};

use crate::algo::vertex::sssp::SsspVp;
use crate::engine::phases;
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::RunStats;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::Store;
use delta::estimate_delta;

/// Bucket index of a finite non-negative distance (saturating).
#[inline]
pub(crate) fn bucket_of(d: f64, delta: f64) -> u64 {
    (d / delta) as u64
}

/// SSSP settings.
#[derive(Clone, Debug, Default)]
pub struct SsspConfig {
    /// Bucket width (> 0; `f64::INFINITY` = one bucket, Bellman-Ford rounds).
    /// `None`: a sample's mean edge weight divided by the mean degree (module docs).
    pub delta: Option<f64>,
}

/// SSSP result: the distance of every vertex.
pub struct Sssp {
    dist: Vec<f64>,
    source: u64,
    delta: f64,
    _charge: Charge,
}

impl std::fmt::Debug for Sssp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sssp")
            .field("vertices", &self.dist.len())
            .field("source", &self.source)
            .field("delta", &self.delta)
            .finish()
    }
}

impl Sssp {
    /// Distance of dense vertex `v` from the source (`f64::INFINITY` when unreachable).
    pub fn value(&self, v: usize) -> f64 {
        self.dist[v]
    }

    /// Bytes of vertex state for `n` vertices: 8 of distance and a queued bit each.
    pub fn state_bytes(n: u64) -> u64 {
        phases::state_bytes(n)
    }

    /// The bucket width used.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// The dense source vertex.
    pub fn source(&self) -> u64 {
        self.source
    }

    /// Vertices reached from the source (finite distance).
    pub fn reached(&self) -> u64 {
        self.dist.iter().filter(|d| d.is_finite()).count() as u64
    }
}

/// Runs SSSP from dense vertex `source` on the weighted `store` inside
/// `budget`: the program [`SsspVp`] with its priority, in phases on the
/// select engine ([`crate::engine::phases`]).
pub fn sssp(
    store: &Store,
    source: u64,
    cfg: &SsspConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Sssp, RunStats)> {
    check(store, source, cfg)?;
    let mut prog = SsspVp::new(source, cfg.delta);
    let r = phases::run(store, &mut prog, select, budget);
    if let Some((v, u, w)) = prog.bad() {
        return Err(bad_weight(store, "SSSP", v, u, w));
    }
    let (states, stats) = r?;
    let (words, charge) = states.into_words();
    Ok((
        Sssp {
            dist: words.into_iter().map(f64::from_bits).collect(),
            source,
            delta: prog.delta.unwrap_or(f64::INFINITY),
            _charge: charge,
        },
        stats,
    ))
}

/// The checks of a run's input: a weighted store, the source in range, a
/// positive bucket width.
fn check(store: &Store, source: u64, cfg: &SsspConfig) -> Result<()> {
    let m = store.manifest();
    let n = m.num_vertices;
    if !m.weighted {
        return Err(Error::Invalid(format!(
            "{} is not weighted: SSSP needs edge weights; import the graph with --weighted",
            store.path().display()
        )));
    }
    if source >= n {
        return Err(Error::Invalid(format!(
            "source vertex {source} is not in the graph (dense ids 0..{n})"
        )));
    }
    if let Some(d) = cfg.delta {
        if d.is_nan() || d <= 0.0 {
            return Err(Error::Invalid(format!(
                "the SSSP bucket width (delta) must be > 0, not {d}"
            )));
        }
    }
    Ok(())
}

/// The default bucket width on `store` (module docs), read through `eng`
/// (its out-lists with weights) around dense vertex `source`.
pub(crate) fn default_delta(store: &Store, eng: &mut SelectEngine, source: u64) -> Result<f64> {
    let m = store.manifest();
    let n = m.num_vertices;
    let mean_degree = m.csr.out_entries as f64 / n.max(1) as f64;
    let bad = |v: u64, u: u64, w: f64| bad_weight(store, "SSSP", v, u, w);
    estimate_delta(eng, n, source, mean_degree, m.degrees.max_out, &bad)
}
