//! Running an algorithm on the select engine (TurboGraph §3-5): sizing the
//! buffer pools inside the budget, cutting vertex batches so a call's lists
//! fit the batch buffers, per-phase statistics from the engines' counters,
//! and the run totals. Shared by the loops that drive the select engine
//! themselves (the phase runner `engine/phases.rs`, the pull mode
//! `engine/pull.rs`, the run-ahead and SSSP's relaxations).

use crate::engine::select::SelectEngine;
use crate::engine::stats::{IterStats, RunStats};
use crate::error::Result;
use crate::io::IoStats;
use crate::mem::{peak_rss_bytes, Budget};
use crate::store::csr::files;
use crate::store::Store;
use std::ops::Range;
use std::time::Instant;

/// Vertices per select-engine call at most.
pub(crate) const VERTEX_CHUNK: usize = 1 << 16;
/// Adjacency slots per select-engine call at most (a longer list goes alone).
pub(crate) const SLOT_CHUNK: u64 = 1 << 18;
/// Slack left outside the buffer pool (as the select engine's default).
pub(crate) const POOL_SLACK: u64 = 8 << 20;
/// Phase statistics kept at most before merging.
pub(crate) const MAX_PHASE_STATS: usize = 10_000;
/// The least buffer-pool memory the select engine takes for direction
/// `which` (4 frames per file, page tables and frame metadata).
pub(crate) fn min_pool_bytes(store: &Store, which: &str, weights: bool, budget: &Budget) -> u64 {
    let pb = store.manifest().csr.page_bytes;
    let per_file = 4 * pb + 4 * 30;
    let files = if weights { 3 } else { 2 };
    files * per_file + page_table_bytes(store, which, weights, budget)
}

/// Frame bytes for the select engine(s) of `dirs` together: `requested`, or
/// what the budget leaves less [`POOL_SLACK`], the page tables, frame
/// metadata and `reserve(available)`; never more than caching every page of
/// the files takes under the engine's split (offsets an eighth, weights a
/// third, adjacency the rest), with the page tables and staging the engine
/// takes from its share first.
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
        // A coded adjacency's frames hold plain pages.
        let slots = if *d == "in" {
            m.csr.in_slots
        } else {
            m.csr.out_slots
        };
        let a = match m.csr.compression {
            Some(_) => slots / m.slot_width().per_page(pb),
            None => pages(&a),
        };
        let (o, w) = (pages(&o), if weights { pages(&w) } else { 0 });
        all += pb * ((3 * w).max(8 * o).max(2 * (a + o)) + 16);
        // What the engine takes from its share before its frames (page
        // tables, checksums, a coded adjacency's directory and staging).
        all += page_table_bytes(store, d, weights, budget);
    }
    let want = requested.unwrap_or_else(|| {
        let avail = budget.available();
        let tables: u64 = dirs
            .iter()
            .map(|d| page_table_bytes(store, d, weights, budget))
            .sum();
        let left = avail.saturating_sub(POOL_SLACK + tables);
        let left = left.saturating_sub(reserve(left));
        // 30 bytes of metadata per frame.
        left / (pb + 30) * pb
    });
    want.min(all)
}

/// Bytes of the select engine's page tables for direction `which`, with
/// the files' page checksums.
pub(crate) fn page_table_bytes(store: &Store, which: &str, weights: bool, budget: &Budget) -> u64 {
    let m = store.manifest();
    let pb = m.csr.page_bytes;
    let (_, o, w) = files(which);
    let (_, pgi) = crate::store::csrcode::files(which);
    let coded = m.csr.compression.is_some();
    let mut names = vec![store.adjacency_file(which), o];
    if weights {
        names.push(w);
    }
    let file = |f: &str| m.files.get(f).map_or(0, |e| e.bytes);
    let tables: u64 = names
        .iter()
        .map(|f| 4 * file(f).div_ceil(pb) + file(&crate::store::pagesums::sums_file(f)))
        .sum();
    if !coded {
        return tables;
    }
    // A coded adjacency: its page table counts plain pages; the directory
    // and a staging buffer per read in flight come on top.
    let slots = if which == "in" {
        m.csr.in_slots
    } else {
        m.csr.out_slots
    };
    let depth = crate::engine::select::read_depth(store, None) as u64;
    tables
        + 4 * (slots / m.slot_width().per_page(pb)).saturating_sub(file(&names[0]).div_ceil(pb))
        + file(&pgi)
        + depth
            * crate::store::csrcode::CodedReads::staging_bytes(
                pb,
                depth as usize,
                budget.available(),
            )
}

/// Splits `vs` into ranges whose lists (summed over `engines`, whose longest
/// lists are `max_degs`) hold at most [`SLOT_CHUNK`] slots; a longer single
/// list gets a range of its own. Reads offsets (through the engines' offset
/// pools) only when the degree bound does not settle it.
pub(crate) fn slot_batches<T: crate::store::csr::Slot>(
    engines: &mut [&mut SelectEngine],
    max_degs: &[u64],
    vs: &[T],
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
pub(crate) struct Phases {
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
    pub(crate) fn add(&mut self, it: IterStats) {
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

    pub(crate) fn finish(mut self) -> Vec<IterStats> {
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
}
