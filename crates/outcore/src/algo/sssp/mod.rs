//! Single-source shortest paths with LDBC Graphalytics semantics on the
//! select engine: non-negative real weights, along out-edges (both directions
//! when undirected: the undirected CSR already holds both), the source at 0,
//! unreachable vertices at infinity (printed `infinity`).
//!
//! **Delta-stepping** (Meyer & Sanders), label-correcting and exact with
//! non-negative weights:
//!
//! - A vertex waits in bucket `floor(dist / delta)` of a sparse bucket queue
//!   (ordered map from bucket index to vertex list). Any bucketing that is
//!   monotone in the distance is exact, so distances beyond `u64::MAX * delta`
//!   share the last bucket, and an infinite delta is Bellman-Ford in rounds.
//! - The lowest non-empty bucket is one **phase**: its vertices go to the
//!   select engine as one batch ([`SelectEngine::for_each_weighted`]), which
//!   requests all their pages at the in-flight depth before processing any.
//!   Every edge of a vertex is relaxed each time the vertex is processed (no
//!   light/heavy split: that would read each list twice). Vertices whose
//!   distance drops into the current bucket (zero or light edges) form the
//!   next round of the same phase, until the bucket stays empty; then its
//!   vertices are settled.
//! - **Run-ahead prefetch** (RASP §6.3.3, the select engine's, through
//!   [`SelectEngine::for_each_weighted_ahead`]): when
//!   a round holds fewer vertices than the I/O depth, the queue names its
//!   `2 x depth` queued vertices of smallest distance (next buckets first; at
//!   most `8 x depth` queue entries scanned), and the engine's run-ahead reads
//!   their lists along with the round's (they are not relaxed now).
//!   On the 1M-vertex G(n, 4n) graph with a tiny delta (212k phases) and a
//!   64 MiB budget this halves the run time (55 s to 29 s); with large
//!   phases it never triggers.
//! - The default delta (`SsspConfig::delta = None`) is Meyer & Sanders'
//!   `Θ(1/d)` in units of the mean weight: the mean weight of the lists of
//!   up to 256 vertices spread evenly over the id range (plus the source),
//!   read through the engine before the first phase, divided by the mean
//!   degree (adjacency entries / |V|); 1.0 when that sample holds no
//!   positive finite weight. Measured against fixed widths on Kronecker (avg
//!   degree 30), G(n, m) (degree 4) and grid graphs at small budgets, it is
//!   within about 1.5x of the best width on each, while the mean weight
//!   alone reads 2.7x more than the best on Kronecker (re-relaxations).
//!
//! Memory: 8 bytes of distance and 1 bit of "queued" flag per vertex, charged
//! before allocating; the bucket queue is charged as it grows (1 MiB at a
//! time) and compacted (stale entries dropped) when half of it is stale or a
//! charge is refused; batch buffers are charged once; the buffer pool takes
//! the rest (less 8 MiB of slack and room for the queue, a quarter of what is
//! left at most, when `SelectConfig::pool_bytes` is not given), but never
//! more than it takes to cache every page of the files (so an explicit
//! `pool_bytes` of 1 GiB on a small store allocates only what it can use).
//!
//! Statistics: one [`IterStats`](crate::engine::stats::IterStats) per phase (bucket); past 10,000 entries,
//! neighbouring entries are merged pairwise and later entries cover twice as
//! many phases, so the list stays bounded ([`IterStats::iteration`](crate::engine::stats::IterStats::iteration) is the
//! first phase an entry covers).
//!
//! Files: this one holds the settings, the result and the phase loop
//! ([`sssp`]); `state.rs` the distances and relaxation (`State`,
//! `bucket_of`) over the engine's bucket queue
//! ([`crate::engine::frontier::Buckets`]: queued bits, lookahead,
//! compaction, charged to the budget); `delta.rs` the default bucket width (`estimate_delta`);
//! `weights.rs` the error naming a bad weight's edge by original ids
//! (shared with weighted betweenness and the SSSP vertex program). The
//! in-memory reference is `crate::algo::reference::sssp` (`reference/paths.rs`).

mod delta;
mod state;
#[cfg(test)]
mod tests;
mod weights;

pub(crate) use state::bucket_of;
pub(crate) use weights::{bad_weight, bad_weight_named, original_id};

use crate::algo::vertex::sssp::SsspVp;
use crate::engine::frontier::{Buckets, BUCKET_CHUNK};
use crate::engine::phases;
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::select_run::{
    min_pool_bytes, pool_bytes, run_stats, Phases, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::stats::RunStats;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::csr::Slot;
use crate::store::Store;
use delta::estimate_delta;
use state::State;
use std::time::Instant;

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
        8 * n + Buckets::<u64>::bits_bytes(n)
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

/// Runs SSSP from dense vertex `source` on the weighted `store` inside `budget`.
pub fn sssp(
    store: &Store,
    source: u64,
    cfg: &SsspConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Sssp, RunStats)> {
    crate::with_label!(store, sssp_as(store, source, cfg, select, budget))
}

/// [`sssp`] with queues and batches of ids of type `T` (u64 on a wide
/// store).
fn sssp_as<T: Slot + std::hash::Hash>(
    store: &Store,
    source: u64,
    cfg: &SsspConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Sssp, RunStats)> {
    let start = Instant::now();
    check(store, source, cfg)?;
    let m = store.manifest();
    let n = m.num_vertices;
    let state_bytes = Sssp::state_bytes(n);
    let max_deg = m.degrees.max_out;
    let entries = m.csr.out_entries;
    // for_each_weighted gathers ids (4 or 8), weights (8) and a piece
    // record (24) per slot; ranges and page lists take about 112 bytes per
    // vertex.
    let per_slot = 32 + std::mem::size_of::<T>() as u64;
    let batch_bytes = VERTEX_CHUNK.min(n as usize) as u64 * 112
        + SLOT_CHUNK.max(max_deg).min(entries + 1) * per_slot
        + 4096;
    let min_pool = min_pool_bytes(store, "out", true, budget);
    budget.require(
        &format!("sssp on {n} vertices"),
        &[
            ("distances", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("bucket queue", BUCKET_CHUNK),
            ("slack", 1 << 20),
        ],
    )?;
    let charge = budget.charge(state_bytes, "sssp distances")?;
    let _batch = budget.charge(batch_bytes, "sssp batch buffers")?;
    let pool_bytes = pool_bytes(store, &["out"], true, select.pool_bytes, budget, |avail| {
        (4 * n).min(avail / 4)
    });
    let used0 = budget.used();
    let mut eng = SelectEngine::new(
        store,
        "out",
        true,
        budget,
        &SelectConfig {
            pool_bytes: Some(pool_bytes),
            ..select.clone()
        },
    )?;
    let pool_charged = budget.used() - used0;
    let bad = |v: T, u: T, w: f64| bad_weight(store, "SSSP", v.get(), u.get(), w);

    let delta = match cfg.delta {
        Some(d) => d,
        None => {
            let mean_degree = entries as f64 / n as f64;
            estimate_delta(&mut eng, n, T::of(source), mean_degree, max_deg, &bad)?
        }
    };

    let mut st = State::<T> {
        dist: huge_vec(n as usize, |_| f64::INFINITY),
        queue: Buckets::new(n, budget, "sssp bucket queue"),
        delta,
        edges: 0,
    };
    st.dist[source as usize] = 0.0;
    st.enqueue(T::of(source))?;

    let mut phases = Phases::default();
    let mut progress = Progress::new("sssp");
    let mut phase = 0usize;
    let mut processed = 0u64;
    while let Some(b) = st.queue.first() {
        crate::cancel::check()?;
        let snap = Snap::take(&[&eng]);
        let mut active = 0u64;
        st.edges = 0;
        loop {
            let cur = st.take(b);
            if cur.is_empty() {
                break;
            }
            active += cur.len() as u64;
            // Run-ahead: the queue's next vertices in priority order.
            eng.for_each_weighted_ahead(
                &mut st,
                &cur,
                max_deg,
                |st, k, out| st.lookahead(k, out),
                |st, v, nbrs, ws| st.relax(v, nbrs, ws, &bad),
            )?;
            st.queue.done_with(cur);
            st.maybe_compact();
        }
        if active == 0 {
            continue; // only stale entries
        }
        processed += active;
        phases.add(snap.finish(&[&eng], phase, active, st.edges));
        phase += 1;
        progress.tick(|| {
            format!(
                "bucket {b} (phase {phase}): {processed} vertices processed, {} queued",
                st.queue.queued_count()
            )
        });
    }

    let iterations = phases.finish();
    let mut stats = run_stats(
        "sssp",
        &[&eng],
        budget,
        state_bytes,
        pool_charged,
        start,
        iterations,
    );
    stats.threads = 1;
    let summary = format!(
        "{phase} buckets (delta {delta}), {} read in {:.2}s (I/O wait {:.2}s)",
        format_size(stats.bytes_read),
        stats.wall_seconds,
        stats.io_wait_seconds
    );
    progress.done(|| summary);
    let State { dist, .. } = st;
    Ok((
        Sssp {
            dist,
            source,
            delta,
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

/// [`sssp`] as the vertex program [`SsspVp`] with its priority, run in
/// phases by the engine ([`crate::engine::phases`]): the same distances bit
/// for bit. Not the default yet: on kron-22 weighted at 1 GiB it measured
/// about 1.05x the driver's time (the 4096 x 4096 grid: 0.94x).
pub fn sssp_program(
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

/// The default bucket width on `store` (module docs), read through `eng`
/// (its out-lists with weights) around dense vertex `source`.
pub(crate) fn default_delta(store: &Store, eng: &mut SelectEngine, source: u64) -> Result<f64> {
    let m = store.manifest();
    let n = m.num_vertices;
    let mean_degree = m.csr.out_entries as f64 / n.max(1) as f64;
    let bad = |v: u64, u: u64, w: f64| bad_weight(store, "SSSP", v, u, w);
    estimate_delta(eng, n, source, mean_degree, m.degrees.max_out, &bad)
}
