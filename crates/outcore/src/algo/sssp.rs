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
//! - **Run-ahead prefetch** (RASP §6.3.3, the priority-queue iterator): when a
//!   round holds fewer vertices than the I/O depth, the run-ahead window is
//!   the `2 x depth` queued vertices of smallest distance (next buckets
//!   first; at most `8 x depth` queue entries scanned). Once half of the
//!   window has not been requested yet (RASP's "issued" filter remembers the
//!   last `8 x depth` requested), that half rides along with the round's
//!   batch: its pages are read together with the batch's, so about `depth`
//!   lists are in flight instead of a handful, and they wait in the buffer
//!   pool for their own phase; they are not relaxed now (like RASP, a wrong
//!   guess only costs a read). The window counts vertices, not pages: a list
//!   takes at least a page unless it shares one. Only when the pool has at
//!   least `32 x depth` frames, so that prefetched pages survive until used.
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

use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::error::{Error, Result};
use crate::io::IoStats;
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, peak_rss_bytes, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::csr::files;
use crate::store::{IdLookup, Store};
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::ops::Range;
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

/// Vertices per select-engine call at most.
pub(crate) const VERTEX_CHUNK: usize = 1 << 16;
/// Adjacency slots per select-engine call at most (a longer list goes alone).
pub(crate) const SLOT_CHUNK: u64 = 1 << 18;
/// Slack left outside the buffer pool (as the select engine's default).
pub(crate) const POOL_SLACK: u64 = 8 << 20;
/// Phase statistics kept at most before merging.
const MAX_PHASE_STATS: usize = 10_000;
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
    let min_pool = min_pool_bytes(store, "out", true);
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
    let bad = |v: u32, u: u32, w: f64| bad_weight(store, v, u, w);

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
    let mut pre: Vec<u32> = Vec::new();
    let mut issued = Issued::new(8 * depth);
    // Prefetched pages must survive until their phase: only with room for
    // 16 pages per vertex of the window in the pool.
    let prefetch = pool_bytes / eng.page_bytes() >= 32 * depth as u64;
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
            pre.clear();
            if prefetch && cur.len() < depth {
                // The run-ahead window: the next 2 x depth vertices in
                // priority order. Once half of it has not been requested,
                // request that half together (depth lists in flight).
                st.lookahead(2 * depth, &mut pre);
                let window = pre.len();
                pre.retain(|&v| !issued.contains(v));
                if 2 * pre.len() >= window.max(1) && !pre.is_empty() {
                    issued.note(&pre);
                } else {
                    pre.clear();
                }
            }
            vs.clear();
            vs.extend_from_slice(&cur);
            vs.extend_from_slice(&pre);
            pre.sort_unstable();
            for chunk in vs.chunks(VERTEX_CHUNK) {
                for r in slot_batches(&mut [&mut eng], &[max_deg], chunk)? {
                    eng.for_each_weighted(&chunk[r], |v, nbrs, ws| {
                        if !pre.is_empty() && pre.binary_search(&v).is_ok() {
                            return Ok(()); // prefetched only
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
    drop(pre);
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
pub(crate) fn bad_weight(store: &Store, v: u32, u: u32, w: f64) -> Error {
    let what = if w.is_nan() { "NaN" } else { "negative" };
    let (a, b) = (original_id(store, v as u64), original_id(store, u as u64));
    let arrow = if store.manifest().directed {
        "->"
    } else {
        "--"
    };
    Error::Invalid(format!(
        "SSSP needs non-negative edge weights, but edge {a} {arrow} {b} has weight {w} ({what})"
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

/// The vertices prefetched lately (RASP's "Issued" set): the last `cap`,
/// so that a vertex waiting in a later bucket is not requested in every
/// phase until it is processed.
struct Issued {
    order: VecDeque<u32>,
    set: HashSet<u32>,
    cap: usize,
}

impl Issued {
    fn new(cap: usize) -> Issued {
        Issued {
            order: VecDeque::with_capacity(cap),
            set: HashSet::with_capacity(cap),
            cap,
        }
    }

    fn contains(&self, v: u32) -> bool {
        self.set.contains(&v)
    }

    fn note(&mut self, vs: &[u32]) {
        for &v in vs {
            if self.set.insert(v) {
                self.order.push_back(v);
            }
            while self.order.len() > self.cap {
                let old = self.order.pop_front().expect("non-empty");
                self.set.remove(&old);
            }
        }
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

/// The least buffer-pool memory the select engine takes for direction
/// `which` (4 frames per file, page tables and frame metadata).
pub(crate) fn min_pool_bytes(store: &Store, which: &str, weights: bool) -> u64 {
    let pb = store.manifest().csr.page_bytes;
    let per_file = 4 * pb + 4 * 30;
    let files = if weights { 3 } else { 2 };
    files * per_file + page_table_bytes(store, which, weights)
}

/// Frame bytes for the select engine(s) of `dirs` together: `requested`, or
/// what the budget leaves less [`POOL_SLACK`], the page tables, frame
/// metadata and `reserve(available)`; never more than caching every page of
/// the files takes under the engine's split (offsets an eighth, weights a
/// third, adjacency the rest).
pub(crate) fn pool_bytes(
    store: &Store,
    dirs: &[&str],
    weights: bool,
    requested: Option<u64>,
    budget: &Budget,
    reserve: impl FnOnce(u64) -> u64,
) -> u64 {
    let m = store.manifest();
    let pb = m.csr.page_bytes;
    let pages = |f: &str| m.files.get(f).map_or(0, |e| e.bytes.div_ceil(pb));
    let mut all = 0;
    for d in dirs {
        let (a, o, w) = files(d);
        let (a, o, w) = (pages(&a), pages(&o), if weights { pages(&w) } else { 0 });
        all += pb * ((3 * w).max(8 * o).max(2 * (a + o)) + 16);
    }
    let want = requested.unwrap_or_else(|| {
        let avail = budget.available();
        let tables: u64 = dirs
            .iter()
            .map(|d| page_table_bytes(store, d, weights))
            .sum();
        let left = avail.saturating_sub(POOL_SLACK + tables);
        let left = left.saturating_sub(reserve(left));
        // 30 bytes of metadata per frame.
        left / (pb + 30) * pb
    });
    want.min(all)
}

/// Bytes of the select engine's page tables for direction `which`.
pub(crate) fn page_table_bytes(store: &Store, which: &str, weights: bool) -> u64 {
    let m = store.manifest();
    let pb = m.csr.page_bytes;
    let (a, o, w) = files(which);
    let mut names = vec![a, o];
    if weights {
        names.push(w);
    }
    names
        .iter()
        .map(|f| 4 * m.files.get(f).map_or(0, |e| e.bytes.div_ceil(pb)))
        .sum()
}

/// Splits `vs` into ranges whose lists (summed over `engines`, whose longest
/// lists are `max_degs`) hold at most [`SLOT_CHUNK`] slots; a longer single
/// list gets a range of its own. Reads offsets (through the engines' offset
/// pools) only when the degree bound does not settle it.
pub(crate) fn slot_batches(
    engines: &mut [&mut SelectEngine],
    max_degs: &[u64],
    vs: &[u32],
) -> Result<Vec<Range<usize>>> {
    let bound: u64 = max_degs.iter().sum();
    let mut out = Vec::new();
    if vs.is_empty() || (vs.len() as u64).saturating_mul(bound) <= SLOT_CHUNK {
        out.push(0..vs.len());
        return Ok(out);
    }
    let mut lens = vec![0u64; vs.len()];
    for e in engines.iter_mut() {
        for (l, (s, t)) in lens.iter_mut().zip(e.ranges(vs)?) {
            *l += t - s;
        }
    }
    let (mut from, mut acc) = (0usize, 0u64);
    for (i, &l) in lens.iter().enumerate() {
        if acc + l > SLOT_CHUNK && i > from {
            out.push(from..i);
            from = i;
            acc = 0;
        }
        acc += l;
    }
    out.push(from..vs.len());
    Ok(out)
}

/// A snapshot of the engines' counters at the start of a phase.
pub(crate) struct Snap {
    t: Instant,
    io: IoStats,
    hits: u64,
    misses: u64,
    pages: u64,
}

fn pool_counts(e: &SelectEngine) -> (u64, u64) {
    let s = e.stats();
    (
        s.adjacency.hits + s.offsets.hits + s.weights.hits,
        s.adjacency.misses + s.offsets.misses + s.weights.misses,
    )
}

impl Snap {
    pub(crate) fn take(engines: &[&SelectEngine]) -> Snap {
        let mut io = IoStats::default();
        let (mut hits, mut misses, mut pages) = (0, 0, 0);
        for e in engines {
            io.add(&e.reader().stats());
            let (h, m) = pool_counts(e);
            hits += h;
            misses += m;
            pages += e.stats().pages_touched;
        }
        Snap {
            t: Instant::now(),
            io,
            hits,
            misses,
            pages,
        }
    }

    /// The statistics of what happened since the snapshot: `cache_hits` /
    /// `cache_misses` count buffer-pool pages (all files), `edges_processed`
    /// the neighbour entries read.
    pub(crate) fn finish(
        self,
        engines: &[&SelectEngine],
        iteration: usize,
        active: u64,
        edges: u64,
    ) -> IterStats {
        let now = Snap::take(engines);
        let io = now.io - self.io;
        let seconds = self.t.elapsed().as_secs_f64();
        let hits = now.hits - self.hits;
        let page = engines.first().map_or(0, |e| e.page_bytes());
        IterStats {
            iteration,
            seconds,
            bytes_read: io.bytes_read,
            read_requests: io.requests,
            cache_hits: hits,
            cache_misses: now.misses - self.misses,
            cache_hit_bytes: hits * page,
            tiles_processed: 0,
            edges_processed: edges,
            active_vertices: active,
            io_wait_seconds: io.wait_seconds,
            compute_seconds: (seconds - io.wait_seconds).max(0.0),
            cache_seconds: 0.0,
            engine: "select",
            pages_touched: now.pages - self.pages,
            ..Default::default()
        }
    }
}

/// Phase statistics, merged pairwise past [`MAX_PHASE_STATS`] entries.
#[derive(Default)]
struct Phases {
    list: Vec<IterStats>,
    open: Option<IterStats>,
    open_count: usize,
    /// Phases per closed entry.
    group: usize,
}

fn merge_into(a: &mut IterStats, b: &IterStats) {
    a.seconds += b.seconds;
    a.bytes_read += b.bytes_read;
    a.read_requests += b.read_requests;
    a.cache_hits += b.cache_hits;
    a.cache_misses += b.cache_misses;
    a.cache_hit_bytes += b.cache_hit_bytes;
    a.tiles_processed += b.tiles_processed;
    a.edges_processed += b.edges_processed;
    a.active_vertices += b.active_vertices;
    a.io_wait_seconds += b.io_wait_seconds;
    a.compute_seconds += b.compute_seconds;
    a.cache_seconds += b.cache_seconds;
    a.pages_touched += b.pages_touched;
}

impl Phases {
    fn add(&mut self, it: IterStats) {
        self.group = self.group.max(1);
        match &mut self.open {
            Some(o) => merge_into(o, &it),
            None => self.open = Some(it),
        }
        self.open_count += 1;
        if self.open_count >= self.group {
            self.list.extend(self.open.take());
            self.open_count = 0;
            if self.list.len() >= MAX_PHASE_STATS {
                let old = std::mem::take(&mut self.list);
                let mut it = old.into_iter();
                while let Some(mut a) = it.next() {
                    if let Some(b) = it.next() {
                        merge_into(&mut a, &b);
                    }
                    self.list.push(a);
                }
                self.group *= 2;
            }
        }
    }

    fn finish(mut self) -> Vec<IterStats> {
        self.list.extend(self.open.take());
        self.list
    }
}

/// Run totals over `engines` (I/O from their readers).
pub(crate) fn run_stats(
    algorithm: &str,
    engines: &[&SelectEngine],
    budget: &Budget,
    state_bytes: u64,
    pool_bytes: u64,
    start: Instant,
    iterations: Vec<IterStats>,
) -> RunStats {
    let mut io = IoStats::default();
    let mut pages = 0;
    for e in engines {
        io.add(&e.reader().stats());
        pages += e.stats().pages_touched;
    }
    let wall = start.elapsed().as_secs_f64();
    RunStats {
        algorithm: algorithm.into(),
        engine: "select".into(),
        io_backend: engines
            .first()
            .map(|e| e.reader().backend().to_string())
            .unwrap_or_default(),
        direct_io: engines.iter().all(|e| {
            let r = e.reader();
            (0..r.files()).all(|f| r.direct(f))
        }),
        wall_seconds: wall,
        bytes_read: io.bytes_read,
        bytes_written: io.bytes_written,
        read_requests: io.requests,
        io_wait_seconds: io.wait_seconds,
        compute_seconds: (wall - io.wait_seconds).max(0.0),
        peak_rss_bytes: peak_rss_bytes(),
        memory_budget: budget.limit(),
        vertex_state_bytes: state_bytes,
        segment_bytes: 0,
        cache_pool_bytes: pool_bytes,
        threads: 1,
        pages_touched: pages,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_stats_stay_bounded() {
        let mut p = Phases::default();
        for i in 0..100_000usize {
            p.add(IterStats {
                iteration: i,
                active_vertices: 1,
                engine: "select",
                ..Default::default()
            });
        }
        let list = p.finish();
        assert!(list.len() <= MAX_PHASE_STATS, "{}", list.len());
        assert!(list.len() >= MAX_PHASE_STATS / 4, "{}", list.len());
        assert_eq!(list.iter().map(|i| i.active_vertices).sum::<u64>(), 100_000);
        assert_eq!(list[0].iteration, 0);
        assert!(list.windows(2).all(|w| w[0].iteration < w[1].iteration));
    }

    #[test]
    fn buckets_are_monotone_and_saturate() {
        assert_eq!(bucket_of(0.0, 1.0), 0);
        assert_eq!(bucket_of(2.5, 1.0), 2);
        assert_eq!(bucket_of(1e300, 1e-300), u64::MAX);
        assert_eq!(bucket_of(5.0, f64::INFINITY), 0);
    }
}
