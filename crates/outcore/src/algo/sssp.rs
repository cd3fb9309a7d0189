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
//! - **Run-ahead prefetch** (RASP §6.3.3, [`crate::engine::runahead`]): when
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
//! Statistics: one [`IterStats`] per phase (bucket); past 10,000 entries,
//! neighbouring entries are merged pairwise and later entries cover twice as
//! many phases, so the list stays bounded ([`IterStats::iteration`] is the
//! first phase an entry covers).

use crate::engine::runahead::RunAhead;
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::select_run::{
    min_pool_bytes, pool_bytes, run_stats, slot_batches, Phases, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::stats::RunStats;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::{IdLookup, Store};
use std::collections::BTreeMap;
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
        8 * n + 8 * n.div_ceil(64)
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

/// Bucket-queue memory is charged in steps of this.
const QUEUE_CHUNK: u64 = 1 << 20;
/// Approximate bytes of map overhead per non-empty bucket.
const BUCKET_OVERHEAD: u64 = 64;
/// Vertices sampled for the default delta.
const DELTA_SAMPLE: u64 = 256;

/// Runs SSSP from dense vertex `source` on the weighted `store` inside `budget`.
pub fn sssp(
    store: &Store,
    source: u64,
    cfg: &SsspConfig,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(Sssp, RunStats)> {
    let start = Instant::now();
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
    let state_bytes = Sssp::state_bytes(n);
    let max_deg = m.degrees.max_out;
    let entries = m.csr.out_entries;
    // for_each_weighted gathers ids (4), weights (8) and a piece record (24)
    // per slot; ranges and page lists take about 112 bytes per vertex.
    let batch_bytes = VERTEX_CHUNK.min(n as usize) as u64 * 112
        + SLOT_CHUNK.max(max_deg).min(entries + 1) * 36
        + 4096;
    let min_pool = min_pool_bytes(store, "out", true, budget);
    budget.require(
        &format!("sssp on {n} vertices"),
        &[
            ("distances", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("bucket queue", QUEUE_CHUNK),
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
    let depth = eng.reader().depth();
    let bad = |v: u32, u: u32, w: f64| bad_weight(store, "SSSP", v, u, w);

    let delta = match cfg.delta {
        Some(d) => d,
        None => {
            let mean_degree = entries as f64 / n as f64;
            estimate_delta(&mut eng, n, source as u32, mean_degree, max_deg, &bad)?
        }
    };

    let mut st = State {
        dist: huge_vec(n as usize, |_| f64::INFINITY),
        queued: vec![0u64; n.div_ceil(64) as usize],
        queued_count: 0,
        queue: Queue::new(budget),
        delta,
        edges: 0,
    };
    st.dist[source as usize] = 0.0;
    st.enqueue(source as u32, 0)?;

    let mut phases = Phases::default();
    let mut progress = Progress::new("sssp");
    let mut phase = 0usize;
    let mut processed = 0u64;
    let mut ahead = RunAhead::new(depth, pool_bytes / eng.page_bytes(), select.no_run_ahead);
    let mut vs: Vec<u32> = Vec::new();
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
            let pre = ahead.window(cur.len(), |k, out| st.lookahead(k, out));
            vs.clear();
            vs.extend_from_slice(&cur);
            vs.extend_from_slice(pre);
            for chunk in vs.chunks(VERTEX_CHUNK) {
                for r in slot_batches(&mut [&mut eng], &[max_deg], chunk)? {
                    eng.for_each_weighted(&chunk[r], |v, nbrs, ws| {
                        if ahead.prefetch_only(v) {
                            return Ok(()); // read for a later phase
                        }
                        st.relax(v, nbrs, ws, &bad)
                    })?;
                }
            }
            st.queue.done_with(cur);
            st.maybe_compact()?;
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
                st.queued_count
            )
        });
    }
    drop(vs);

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

/// The default bucket width: the mean weight of the lists of up to
/// [`DELTA_SAMPLE`] vertices spread over the id range and `source`, divided
/// by `mean_degree`; 1.0 without a positive finite weight in the sample.
fn estimate_delta(
    eng: &mut SelectEngine,
    n: u64,
    source: u32,
    mean_degree: f64,
    max_deg: u64,
    bad: &dyn Fn(u32, u32, f64) -> Error,
) -> Result<f64> {
    let k = DELTA_SAMPLE.min(n);
    let mut vs: Vec<u32> = (0..k).map(|i| (i * n / k) as u32).collect();
    vs.push(source);
    vs.sort_unstable();
    vs.dedup();
    let (mut sum, mut count) = (0f64, 0u64);
    for r in slot_batches(&mut [&mut *eng], &[max_deg], &vs)? {
        eng.for_each_weighted(&vs[r], |v, nbrs, ws| {
            for (&u, &w) in nbrs.iter().zip(ws) {
                if w.is_nan() || w < 0.0 {
                    return Err(bad(v, u, w));
                }
                if w.is_finite() {
                    sum += w;
                    count += 1;
                }
            }
            Ok(())
        })?;
    }
    let mean = if count > 0 { sum / count as f64 } else { 0.0 };
    if mean <= 0.0 || !mean.is_finite() {
        return Ok(1.0);
    }
    let delta = if mean_degree > 0.0 {
        mean / mean_degree
    } else {
        mean
    };
    Ok(if delta > 0.0 && delta.is_finite() {
        delta
    } else {
        mean
    })
}

/// The error for a negative or NaN weight on edge `v -> u` (dense ids),
/// naming the edge by original ids.
pub(crate) fn bad_weight(store: &Store, alg: &str, v: u32, u: u32, w: f64) -> Error {
    let what = if w.is_nan() { "NaN" } else { "negative" };
    let (a, b) = (original_id(store, v as u64), original_id(store, u as u64));
    let arrow = if store.manifest().directed {
        "->"
    } else {
        "--"
    };
    Error::Invalid(format!(
        "{alg} needs non-negative edge weights, but edge {a} {arrow} {b} has weight {w} ({what})"
    ))
}

/// The original id of dense vertex `v`, read from the id maps (the dense id
/// if they cannot be read).
pub(crate) fn original_id(store: &Store, v: u64) -> crate::store::Id<'static> {
    IdLookup::open(store)
        .and_then(|ids| ids.original(v))
        .unwrap_or(crate::store::Id::Int(v))
}

/// Bucket index of a finite non-negative distance (saturating).
#[inline]
fn bucket_of(d: f64, delta: f64) -> u64 {
    (d / delta) as u64
}

/// Distances, queued flags and the bucket queue.
struct State {
    dist: Vec<f64>,
    /// Bit v: v's current distance has not been relaxed from yet; then v has
    /// exactly one live entry, in bucket `bucket_of(dist[v])`.
    queued: Vec<u64>,
    queued_count: u64,
    queue: Queue,
    delta: f64,
    /// Edges relaxed in the current phase.
    edges: u64,
}

impl State {
    #[inline]
    fn is_queued(&self, v: u32) -> bool {
        self.queued[(v >> 6) as usize] >> (v & 63) & 1 != 0
    }

    #[inline]
    fn set_queued(&mut self, v: u32, on: bool) {
        let w = &mut self.queued[(v >> 6) as usize];
        let bit = 1u64 << (v & 63);
        if on {
            *w |= bit;
            self.queued_count += 1;
        } else {
            *w &= !bit;
            self.queued_count -= 1;
        }
    }

    /// Marks `v` queued and files it in bucket `b`.
    fn enqueue(&mut self, v: u32, b: u64) -> Result<()> {
        self.set_queued(v, true);
        self.push(v, b)
    }

    fn push(&mut self, v: u32, b: u64) -> Result<()> {
        if self.queue.push(b, v) {
            return Ok(());
        }
        // A charge was refused: drop stale entries and try again.
        self.compact();
        if self.queue.fit() {
            Ok(())
        } else {
            Err(Error::Budget(format!(
                "the SSSP bucket queue needs {} ({} vertices queued) and the budget has no room \
                 left; raise --memory or give the buffer pool less",
                format_size(self.queue.bytes()),
                self.queued_count
            )))
        }
    }

    /// The live entries of bucket `b`, removed from the queue and unflagged.
    fn take(&mut self, b: u64) -> Vec<u32> {
        let mut cur = self.queue.take(b);
        let delta = self.delta;
        cur.retain(|&v| {
            let w = &mut self.queued[(v >> 6) as usize];
            let bit = 1u64 << (v & 63);
            if *w & bit != 0 && bucket_of(self.dist[v as usize], delta) == b {
                *w &= !bit;
                self.queued_count -= 1;
                true
            } else {
                false
            }
        });
        cur
    }

    /// Relaxes the edges `v -> nbrs` with weights `ws`.
    #[inline]
    fn relax(
        &mut self,
        v: u32,
        nbrs: &[u32],
        ws: &[f64],
        bad: &dyn Fn(u32, u32, f64) -> Error,
    ) -> Result<()> {
        let dv = self.dist[v as usize];
        self.edges += nbrs.len() as u64;
        for (&u, &w) in nbrs.iter().zip(ws) {
            if w.is_nan() || w < 0.0 {
                return Err(bad(v, u, w));
            }
            let nd = dv + w;
            let old = self.dist[u as usize];
            if nd < old {
                self.dist[u as usize] = nd;
                let b = bucket_of(nd, self.delta);
                if !self.is_queued(u) {
                    self.enqueue(u, b)?;
                } else if b != bucket_of(old, self.delta) {
                    // The entry in the old bucket becomes stale.
                    self.push(u, b)?;
                }
            }
        }
        Ok(())
    }

    /// Up to `k` queued vertices of the lowest buckets, smallest distance
    /// first (RASP's priority-queue run-ahead), appended to `out`.
    fn lookahead(&self, k: usize, out: &mut Vec<u32>) {
        let mut scan = 4 * k;
        let mut cand: Vec<u32> = Vec::new();
        for (&b, list) in &self.queue.buckets {
            cand.clear();
            for &v in list.iter().take(scan) {
                if self.is_queued(v) && bucket_of(self.dist[v as usize], self.delta) == b {
                    cand.push(v);
                }
            }
            scan = scan.saturating_sub(list.len());
            let want = k - out.len();
            if cand.len() >= want {
                cand.sort_unstable_by(|&a, &c| {
                    self.dist[a as usize].total_cmp(&self.dist[c as usize])
                });
                out.extend_from_slice(&cand[..want]);
                return;
            }
            out.extend_from_slice(&cand);
            if scan == 0 {
                return;
            }
        }
    }

    /// Compacts the queue when more than half of it (and over a million
    /// entries) is stale.
    fn maybe_compact(&mut self) -> Result<()> {
        let stale = self.queue.entries - self.queued_count;
        if stale > self.queued_count.max(1 << 20) {
            self.compact();
        }
        Ok(())
    }

    /// Drops every stale entry.
    fn compact(&mut self) {
        let (queued, dist, delta) = (&self.queued, &self.dist, self.delta);
        self.queue.retain(|b, v| {
            queued[(v >> 6) as usize] >> (v & 63) & 1 != 0
                && bucket_of(dist[v as usize], delta) == b
        });
    }
}

/// The bucket queue: sparse buckets of vertex ids (with stale entries),
/// charged to the budget by capacity.
struct Queue {
    buckets: BTreeMap<u64, Vec<u32>>,
    /// Entries in `buckets`.
    entries: u64,
    /// Sum of the capacities of the vectors in `buckets`, in entries.
    cap: u64,
    /// Capacity of a taken bucket still being processed.
    held: u64,
    charges: Vec<Charge>,
    budget: Budget,
}

impl Queue {
    fn new(budget: &Budget) -> Queue {
        Queue {
            buckets: BTreeMap::new(),
            entries: 0,
            cap: 0,
            held: 0,
            charges: Vec::new(),
            budget: budget.clone(),
        }
    }

    fn first(&self) -> Option<u64> {
        self.buckets.first_key_value().map(|(&b, _)| b)
    }

    fn bytes(&self) -> u64 {
        (self.cap + self.held) * 4 + self.buckets.len() as u64 * BUCKET_OVERHEAD
    }

    /// Pushes; false if the memory charge was refused (the entry is in).
    fn push(&mut self, b: u64, v: u32) -> bool {
        let fresh = !self.buckets.contains_key(&b);
        let list = self.buckets.entry(b).or_default();
        let before = list.capacity();
        list.push(v);
        let after = list.capacity();
        self.entries += 1;
        if after != before || fresh {
            self.cap += (after - before) as u64;
            return self.fit();
        }
        true
    }

    /// Charges or releases whole chunks to cover [`Queue::bytes`]; false if
    /// a charge was refused.
    fn fit(&mut self) -> bool {
        let need = self.bytes().div_ceil(QUEUE_CHUNK) as usize;
        while self.charges.len() < need {
            match self.budget.charge(QUEUE_CHUNK, "sssp bucket queue") {
                Ok(c) => self.charges.push(c),
                Err(_) => return false,
            }
        }
        while self.charges.len() > need + 2 {
            self.charges.pop();
        }
        true
    }

    /// Removes bucket `b` (empty if absent); its memory stays counted until
    /// [`Queue::done_with`].
    fn take(&mut self, b: u64) -> Vec<u32> {
        let list = self.buckets.remove(&b).unwrap_or_default();
        self.entries -= list.len() as u64;
        self.cap -= list.capacity() as u64;
        self.held += list.capacity() as u64;
        list
    }

    /// Releases a list from [`Queue::take`].
    fn done_with(&mut self, list: Vec<u32>) {
        self.held -= list.capacity() as u64;
        drop(list);
        self.fit();
    }

    fn retain(&mut self, keep: impl Fn(u64, u32) -> bool) {
        let (mut entries, mut cap) = (0u64, 0u64);
        self.buckets.retain(|&b, list| {
            list.retain(|&v| keep(b, v));
            list.shrink_to_fit();
            entries += list.len() as u64;
            cap += list.capacity() as u64;
            !list.is_empty()
        });
        self.entries = entries;
        self.cap = cap;
        self.fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_saturate() {
        assert_eq!(bucket_of(0.0, 1.0), 0);
        assert_eq!(bucket_of(2.5, 1.0), 2);
        assert_eq!(bucket_of(1e300, 1e-300), u64::MAX);
        assert_eq!(bucket_of(5.0, f64::INFINITY), 0);
    }
}
