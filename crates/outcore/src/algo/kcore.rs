//! k-core decomposition on the select engine: the core number of every
//! vertex, direction and self-loops ignored (`networkx.core_number` on the
//! undirected simple graph: a vertex's neighbours are `out ∪ in` as a set,
//! without itself).
//!
//! **h-index iteration** (Montresor, De Pellegrini, Miorandi, "Distributed
//! k-core decomposition", TPDS 2013; Lü et al. 2016): every estimate starts
//! above the core number (infinity, which the first update turns into the
//! degree) and is lowered to the h-index of the neighbours' estimates — the
//! largest `h` such that at least `h` neighbours have an estimate `>= h` —
//! until no estimate changes; the fixed point is the core numbers.
//!
//! - Iteration 1 processes every vertex; later iterations only vertices with a
//!   neighbour whose estimate dropped from `>= est(u)` to below it (the only
//!   change that can lower `u`'s h-index). The active set is a bitmap scanned
//!   in id order; a batch's updates are applied before the next batch, so a
//!   vertex activated ahead of the scan is processed in the same iteration.
//! - Active vertices go to the select engine in batches of up to 64 Ki
//!   vertices in id order (smaller when their lists exceed 256 Ki slots):
//!   only the pages of their lists are read. Directed stores open two engines
//!   ("out" and "in", each half of the buffer pool). A batch's list pieces
//!   (one per page of a list, arriving in any order) are ordered by (vertex,
//!   direction, first neighbour), which restores each sorted list; the out-
//!   and in-list of a vertex are merged without duplicates or itself.
//!
//! Threads: the h-indices of a batch are computed on every core from the
//! estimates before the batch (Jacobi inside a batch, Gauss-Seidel across
//! batches), then applied; so are the activation tests, which see the new
//! estimates. The random reads of neighbours' estimates dominate the compute.
//!
//! Memory: 4 bytes of estimate and 1 active bit per vertex, charged before
//! allocating, plus the batch buffers; the buffer pools take the rest (less
//! 8 MiB of slack) when `SelectConfig::pool_bytes` is not given.
//!
//! PartitionedVC (Matam et al.) runs k-core as one pass of edge deletions
//! with all vertices active; the h-index form needs no graph updates, reads
//! the lists of active vertices only, and its active set shrinks quickly.

use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::select_run::{
    min_pool_bytes, pool_bytes, run_stats, slot_batches, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::stats::RunStats;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::Store;
use rayon::prelude::*;
use std::time::Instant;

/// k-core result: the core number of every vertex.
pub struct KCore {
    core: Vec<u32>,
    max_core: u32,
    _charge: Charge,
}

impl std::fmt::Debug for KCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KCore")
            .field("vertices", &self.core.len())
            .field("max_core", &self.max_core)
            .finish()
    }
}

impl KCore {
    /// Core number of dense vertex `v`.
    pub fn value(&self, v: usize) -> u32 {
        self.core[v]
    }

    /// The largest core number (0 for a graph without edges).
    pub fn max_core(&self) -> u32 {
        self.max_core
    }

    /// Bytes of vertex state for `n` vertices: a u32 estimate and an active bit each.
    pub fn state_bytes(n: u64) -> u64 {
        4 * n + 8 * n.div_ceil(64)
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }
}

/// The k-core subgraph's vertices (core number >= `min_core`), sorted dense ids.
pub fn kcore_vertices(k: &KCore, min_core: u32) -> Vec<u32> {
    (0..k.core.len() as u32)
        .filter(|&v| k.core[v as usize] >= min_core)
        .collect()
}

/// Runs the k-core decomposition of `store` inside `budget`.
pub fn kcore(store: &Store, select: &SelectConfig, budget: &Budget) -> Result<(KCore, RunStats)> {
    let start = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    if n >= u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{n} vertices do not fit u32 dense ids"
        )));
    }
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    let max_degs: Vec<u64> = if m.directed {
        vec![m.degrees.max_out, m.degrees.max_in]
    } else {
        vec![m.degrees.max_out]
    };
    let entries = m.csr.out_entries + m.csr.in_entries;
    let bound: u64 = max_degs.iter().sum();
    let state_bytes = KCore::state_bytes(n);
    // Gathered neighbours and neighbours to wake (4 + 4 bytes a slot),
    // pieces (24 bytes, one per vertex and page), per thread the scratch
    // lists and h-index counts (16 bytes per entry of the longest union),
    // per vertex the engines' ranges and page lists (about 112 bytes) and
    // the batch, bounds, h-indices and drops (32 bytes).
    let threads = rayon::current_num_threads().max(1) as u64;
    let slots = SLOT_CHUNK.max(bound).min(entries + 1);
    let vertices = VERTEX_CHUNK.min(n as usize) as u64;
    let batch_bytes = slots * 8
        + (vertices + slots / 256 + 1) * 24
        + threads * 16 * (bound.min(n) + 1)
        + vertices * (112 + 32)
        + 4096;
    let min_pool: u64 = dirs
        .iter()
        .map(|d| min_pool_bytes(store, d, false, budget))
        .sum();
    budget.require(
        &format!("kcore on {n} vertices"),
        &[
            ("estimates", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("slack", 1 << 20),
        ],
    )?;
    let charge = budget.charge(state_bytes, "kcore estimates")?;
    let _batch = budget.charge(batch_bytes, "kcore batch buffers")?;
    // The pool of each engine: half of the total for directed stores.
    let per_engine =
        pool_bytes(store, dirs, false, select.pool_bytes, budget, |_| 0) / dirs.len() as u64;
    let used0 = budget.used();
    let mut engines: Vec<SelectEngine> = dirs
        .iter()
        .map(|d| {
            SelectEngine::new(
                store,
                d,
                false,
                budget,
                &SelectConfig {
                    pool_bytes: Some(per_engine),
                    ..select.clone()
                },
            )
        })
        .collect::<Result<_>>()?;
    let pool_charged = budget.used() - used0;

    let mut st = State {
        est: huge_vec(n as usize, |_| u32::MAX),
        active: vec![u64::MAX; n.div_ceil(64) as usize],
        active_count: n,
    };
    if n & 63 != 0 {
        if let Some(last) = st.active.last_mut() {
            *last = (1u64 << (n % 64)) - 1;
        }
    }

    let mut iterations = Vec::new();
    let mut progress = Progress::new("kcore");
    let mut g = Gather::default();
    let mut batch: Vec<u32> = Vec::new();
    let mut iter = 0usize;
    while st.active_count > 0 {
        let snap = Snap::take(&engines.iter().collect::<Vec<_>>());
        let (mut processed, mut edges, mut changed) = (0u64, 0u64, 0u64);
        let mut cursor = 0u64;
        loop {
            crate::cancel::check()?;
            st.take_active(&mut cursor, n, &mut batch);
            if batch.is_empty() {
                break;
            }
            processed += batch.len() as u64;
            let mut refs: Vec<&mut SelectEngine> = engines.iter_mut().collect();
            let ranges = slot_batches(&mut refs, &max_degs, &batch)?;
            for r in ranges {
                let vs = &batch[r];
                g.clear();
                for (dir, e) in refs.iter_mut().enumerate() {
                    e.for_each_list(vs, |v, nbrs| {
                        g.piece(v, dir as u8, nbrs);
                        Ok(())
                    })?;
                }
                edges += g.flat.len() as u64;
                g.pieces.sort_unstable_by_key(|p| (p.v, p.dir, p.first));
                changed += st.update(vs, &g);
            }
            let done = cursor;
            progress.tick(|| format!("iteration {iter}: {done}/{n} scanned, {processed} active"));
        }
        let refs: Vec<&SelectEngine> = engines.iter().collect();
        iterations.push(snap.finish(&refs, iter, processed, edges));
        let line = format!("iteration {iter}: {processed} active, {changed} lowered");
        progress.tick(|| line);
        iter += 1;
    }
    drop(g);
    drop(batch);
    let refs: Vec<&SelectEngine> = engines.iter().collect();
    let mut stats = run_stats(
        "kcore",
        &refs,
        budget,
        state_bytes,
        pool_charged,
        start,
        iterations,
    );
    stats.threads = threads as usize;
    let State { est, .. } = st;
    let max_core = est.iter().copied().max().unwrap_or(0);
    let summary = format!(
        "{iter} iterations, max core {max_core}, {} read in {:.2}s (I/O wait {:.2}s)",
        format_size(stats.bytes_read),
        stats.wall_seconds,
        stats.io_wait_seconds
    );
    progress.done(|| summary);
    Ok((
        KCore {
            core: est,
            max_core,
            _charge: charge,
        },
        stats,
    ))
}

/// Estimates, the active bitmap and the h-index scratch.
struct State {
    est: Vec<u32>,
    active: Vec<u64>,
    active_count: u64,
}

impl State {
    /// Moves up to [`VERTEX_CHUNK`] active vertices at or after `cursor`
    /// (ascending) into `batch`, clearing their bits; advances `cursor`.
    fn take_active(&mut self, cursor: &mut u64, n: u64, batch: &mut Vec<u32>) {
        batch.clear();
        while *cursor < n && batch.len() < VERTEX_CHUNK {
            let wi = (*cursor / 64) as usize;
            let mut word = self.active[wi] & (u64::MAX << (*cursor % 64));
            if word == 0 {
                *cursor = (wi as u64 + 1) * 64;
                continue;
            }
            while word != 0 && batch.len() < VERTEX_CHUNK {
                let b = word.trailing_zeros() as u64;
                word &= word - 1;
                batch.push((wi as u64 * 64 + b) as u32);
                self.active[wi] &= !(1u64 << b);
                self.active_count -= 1;
                *cursor = wi as u64 * 64 + b + 1;
            }
        }
    }

    #[inline]
    fn activate(&mut self, u: u32) {
        let w = &mut self.active[(u >> 6) as usize];
        let bit = 1u64 << (u & 63);
        if *w & bit == 0 {
            *w |= bit;
            self.active_count += 1;
        }
    }

    /// Lowers the estimate of every vertex of `vs` (ascending) to the h-index
    /// of its neighbours (`g`: the batch's list pieces, sorted) and
    /// activates the neighbours that may follow; returns how many estimates
    /// dropped.
    ///
    /// The h-indices of a batch are computed in parallel from the estimates
    /// before the batch (Jacobi inside a batch, Gauss-Seidel across
    /// batches), then applied; the activation test then sees the new
    /// estimates, so a neighbour in the same batch is activated if it
    /// counted a vertex that dropped.
    fn update(&mut self, vs: &[u32], g: &Gather) -> u64 {
        // The pieces of vs[i] are pieces[bounds[i]..bounds[i + 1]].
        let mut bounds = Vec::with_capacity(vs.len() + 1);
        let mut at = 0usize;
        bounds.push(0);
        for &v in vs {
            while at < g.pieces.len() && g.pieces[at].v == v {
                at += 1;
            }
            bounds.push(at);
        }
        debug_assert_eq!(at, g.pieces.len(), "pieces of vertices outside the batch");
        let chunk = (vs.len() / (8 * rayon::current_num_threads())).max(64);
        let est = &self.est;
        let hs: Vec<u32> = vs
            .par_chunks(chunk)
            .enumerate()
            .flat_map_iter(|(c, part)| {
                let mut sc = Scratch::default();
                let base = c * chunk;
                part.iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        let i = base + k;
                        g.neighbours(v, bounds[i]..bounds[i + 1], &mut sc);
                        h_index(est, &sc.set, est[v as usize], &mut sc.counts)
                    })
                    .collect::<Vec<u32>>()
            })
            .collect();
        // (index in vs, old estimate, new estimate)
        let mut dropped: Vec<(usize, u32, u32)> = Vec::new();
        for (i, (&v, &h)) in vs.iter().zip(&hs).enumerate() {
            let old = self.est[v as usize];
            if h < old {
                self.est[v as usize] = h;
                dropped.push((i, old, h));
            }
        }
        // u counted v while est(v) >= est(u); it no longer does if est(u) > h.
        let est = &self.est;
        let wake: Vec<Vec<u32>> = dropped
            .par_chunks((dropped.len() / (8 * rayon::current_num_threads())).max(64))
            .map(|part| {
                let mut sc = Scratch::default();
                let mut out = Vec::new();
                for &(i, old, h) in part {
                    g.neighbours(vs[i], bounds[i]..bounds[i + 1], &mut sc);
                    out.extend(sc.set.iter().copied().filter(|&u| {
                        let eu = est[u as usize];
                        eu > h && eu <= old
                    }));
                }
                out
            })
            .collect();
        for u in wake.into_iter().flatten() {
            self.activate(u);
        }
        dropped.len() as u64
    }
}

/// The largest h <= `cap` such that at least h of `nbrs` have an estimate
/// >= h (`counts`: zeroed scratch, left zeroed).
fn h_index(est: &[u32], nbrs: &[u32], cap: u32, counts: &mut Vec<u32>) -> u32 {
    let k = (nbrs.len() as u64).min(cap as u64) as usize;
    if k == 0 {
        return 0;
    }
    if counts.len() < k + 1 {
        counts.resize(k + 1, 0);
    }
    let counts = &mut counts[..=k];
    for &u in nbrs {
        let e = est[u as usize] as usize;
        counts[e.min(k)] += 1;
    }
    let mut h = 0;
    let mut at_least = 0u32;
    for c in (1..=k).rev() {
        at_least += counts[c];
        if at_least as usize >= c {
            h = c as u32;
            break;
        }
    }
    counts.fill(0);
    h
}

/// Per-thread scratch: one vertex's out- and in-list, its neighbour set and
/// the h-index counts.
#[derive(Default)]
struct Scratch {
    out: Vec<u32>,
    inn: Vec<u32>,
    set: Vec<u32>,
    counts: Vec<u32>,
}

/// One piece of an adjacency list from the select engine.
#[derive(Clone, Copy)]
struct Piece {
    v: u32,
    /// Index of the engine (0 = out, 1 = in).
    dir: u8,
    /// The piece's first neighbour: pieces of one list are disjoint sorted
    /// runs, so ordering them by it restores the sorted list.
    first: u32,
    at: usize,
    len: u32,
}

/// A batch's list pieces, gathered as they arrive (in any page order).
#[derive(Default)]
struct Gather {
    flat: Vec<u32>,
    pieces: Vec<Piece>,
}

impl Gather {
    fn clear(&mut self) {
        self.flat.clear();
        self.pieces.clear();
    }

    fn piece(&mut self, v: u32, dir: u8, nbrs: &[u32]) {
        self.pieces.push(Piece {
            v,
            dir,
            first: nbrs[0],
            at: self.flat.len(),
            len: nbrs.len() as u32,
        });
        self.flat.extend_from_slice(nbrs);
    }

    /// The neighbour set of `v` (its pieces are `pieces[r]`, sorted by
    /// direction and first neighbour) without `v`, sorted, into `sc.set`.
    fn neighbours(&self, v: u32, r: std::ops::Range<usize>, sc: &mut Scratch) {
        sc.set.clear();
        sc.out.clear();
        sc.inn.clear();
        for p in &self.pieces[r] {
            let list = &self.flat[p.at..p.at + p.len as usize];
            if p.dir == 0 {
                sc.out.extend_from_slice(list);
            } else {
                sc.inn.extend_from_slice(list);
            }
        }
        if sc.inn.is_empty() {
            sc.set.extend(sc.out.iter().copied().filter(|&u| u != v));
            return;
        }
        // Each list is sorted and unique: merge the two without duplicates.
        let (a, b) = (&sc.out, &sc.inn);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let x = if j == b.len() || (i < a.len() && a[i] < b[j]) {
                i += 1;
                a[i - 1]
            } else if i == a.len() || b[j] < a[i] {
                j += 1;
                b[j - 1]
            } else {
                i += 1;
                j += 1;
                a[i - 1]
            };
            if x != v {
                sc.set.push(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(est: Vec<u32>) -> State {
        let n = est.len() as u64;
        State {
            est,
            active: vec![0; n.div_ceil(64) as usize],
            active_count: 0,
        }
    }

    #[test]
    fn h_index_of_estimates() {
        let est = vec![5, 1, 2, 3, 3, 0];
        let mut counts = Vec::new();
        let nbrs: Vec<u32> = (1..6).collect();
        // estimates 1, 2, 3, 3, 0: three neighbours >= 2, two >= 3: h = 2.
        assert_eq!(h_index(&est, &nbrs, u32::MAX, &mut counts), 2);
        assert_eq!(h_index(&est, &nbrs, 1, &mut counts), 1);
        assert_eq!(h_index(&est, &[], 7, &mut counts), 0);
        assert_eq!(h_index(&est, &nbrs[4..], 9, &mut counts), 0);
        assert!(counts.iter().all(|&c| c == 0));
    }

    #[test]
    fn neighbours_merge_pieces() {
        let mut g = Gather::default();
        // Vertex 7: out-list 1 3 7 9 | 12 (two pages, arriving late page first),
        // in-list 3 5 | 9 12 20.
        g.piece(7, 0, &[12]);
        g.piece(7, 1, &[9, 12, 20]);
        g.piece(7, 0, &[1, 3, 7, 9]);
        g.piece(7, 1, &[3, 5]);
        g.pieces.sort_unstable_by_key(|p| (p.v, p.dir, p.first));
        let mut sc = Scratch::default();
        g.neighbours(7, 0..4, &mut sc);
        assert_eq!(sc.set, vec![1, 3, 5, 9, 12, 20]);
        g.neighbours(7, 0..2, &mut sc);
        assert_eq!(sc.set, vec![1, 3, 9, 12]);
    }

    #[test]
    fn take_active_scans_in_order() {
        let mut s = state(vec![0; 200]);
        for v in [3u32, 64, 65, 130, 199] {
            s.activate(v);
        }
        let mut cursor = 0;
        let mut batch = Vec::new();
        s.take_active(&mut cursor, 200, &mut batch);
        assert_eq!(batch, vec![3, 64, 65, 130, 199]);
        assert_eq!(s.active_count, 0);
        s.activate(10);
        s.take_active(&mut cursor, 200, &mut batch);
        assert!(batch.is_empty(), "behind the cursor: next iteration");
        let mut cursor = 0;
        s.take_active(&mut cursor, 200, &mut batch);
        assert_eq!(batch, vec![10]);
    }
}
