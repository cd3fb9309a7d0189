//! BFS with LDBC Graphalytics semantics on the stream engine: hop depth from
//! the source along out-edges (both directions when undirected); unreachable
//! vertices get `9223372036854775807`.
//!
//! Level-synchronous push: a tile is applied when its source block holds
//! vertices of the current level (selective fetching); a tile is cached when
//! a block it reads from already holds vertices of the next level (G-Store's
//! partial-knowledge caching rule for BFS).

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::{Flags, U32s};
use crate::engine::stats::{IterStats, RunStats};
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Depth of an unreachable vertex in the output.
pub const UNREACHABLE: i64 = i64::MAX;
const INF: u32 = u32::MAX;

/// BFS state.
pub struct Bfs {
    depth: U32s,
    level: u32,
    cur: Flags,
    next: Flags,
    found: AtomicU64,
    frontier: u64,
    directed: bool,
}

impl Bfs {
    /// A BFS from dense vertex `source` over `n` vertices.
    pub fn new(n: usize, source: usize, directed: bool) -> Bfs {
        let blocks = n.div_ceil(1 << TILE_BITS).max(1);
        let depth = U32s::new(n, INF);
        let next = Flags::new(blocks, false);
        if n > 0 {
            depth.set(source, 0);
            next.set(source >> TILE_BITS, true);
        }
        Bfs {
            depth,
            level: 0,
            cur: Flags::new(blocks, false),
            next,
            found: AtomicU64::new(0),
            frontier: (n > 0) as u64,
            directed,
        }
    }

    /// Hop depth of dense vertex `v` (UNREACHABLE when not reached).
    pub fn value(&self, v: usize) -> i64 {
        match self.depth.get(v) {
            INF => UNREACHABLE,
            d => d as i64,
        }
    }

    /// Bytes of vertex state for `n` vertices.
    pub fn state_bytes(n: u64) -> u64 {
        4 * n + 2 * n.div_ceil(1 << TILE_BITS)
    }

    #[inline]
    fn visit(&self, v: usize, block: u32, count: &mut u64) {
        if self.depth.get(v) == INF {
            self.depth.set(v, self.level + 1);
            self.next.set(block as usize, true);
            *count += 1;
        }
    }
}

impl TileProgram for Bfs {
    fn directions(&self) -> &'static [Dir] {
        if self.directed {
            &[Dir::Forward]
        } else {
            &[Dir::Forward, Dir::Reverse]
        }
    }

    fn begin(&mut self, iter: usize) -> bool {
        if self.frontier == 0 {
            return false;
        }
        self.level = iter as u32;
        std::mem::swap(&mut self.cur, &mut self.next);
        self.next.fill(false);
        self.found.store(0, Relaxed);
        true
    }

    fn active_vertices(&self) -> u64 {
        self.frontier
    }

    fn active(&self, block: u64) -> bool {
        self.cur.get(block as usize)
    }

    #[inline]
    fn apply(&self, tile: &Tile, dir: Dir) {
        let (sb, db) = (tile.src_base(), tile.dst_base());
        let lv = self.level;
        let mut count = 0;
        match dir {
            Dir::Forward => {
                for &e in tile.edges {
                    let (s, d) = unpack(e);
                    if self.depth.get(sb + s) == lv {
                        self.visit(db + d, tile.col, &mut count);
                    }
                }
            }
            Dir::Reverse => {
                for &e in tile.edges {
                    let (s, d) = unpack(e);
                    if self.depth.get(db + d) == lv {
                        self.visit(sb + s, tile.row, &mut count);
                    }
                }
            }
        }
        if count > 0 {
            self.found.fetch_add(count, Relaxed);
        }
    }

    fn end(&mut self, _iter: usize) -> IterEnd {
        self.frontier = self.found.load(Relaxed);
        IterEnd {
            active_vertices: self.frontier,
            done: self.frontier == 0,
        }
    }

    fn may_need_next(&self, row: u32, col: u32) -> bool {
        self.next.get(row as usize) || (!self.directed && self.next.get(col as usize))
    }
}

/// Runs BFS from dense vertex `source` on `store` inside `budget`.
pub fn bfs(
    store: &Store,
    source: u64,
    engine: StreamConfig,
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    let m = store.manifest();
    let n = m.num_vertices;
    if source >= n {
        return Err(Error::Invalid(format!(
            "source vertex {source} is not in the graph"
        )));
    }
    let need = required_bytes(store, Bfs::state_bytes(n));
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "bfs on {n} vertices needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    let _state = budget.charge(Bfs::state_bytes(n), "bfs vertex state")?;
    let mut prog = Bfs::new(n as usize, source as usize, m.directed);
    let mut eng = StreamEngine::new(store, budget, engine)?;
    let mut stats = eng.run(&mut prog, usize::MAX)?;
    stats.vertex_state_bytes = Bfs::state_bytes(n);
    Ok((prog, stats))
}

pub use crate::engine::planner::{CostModel, EngineChoice};

/// BFS with an engine per level: the planner compares, before each level,
/// the tile bytes the stream engine would read (active rows, cached tiles
/// free) with the pages the select engine would read (each list's pages and
/// its offsets page, a whole page each), priced with the device's sequential
/// and random throughput, and runs the level on the cheaper engine.
pub fn bfs_planned(
    store: &Store,
    source: u64,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: crate::engine::select::SelectConfig,
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    let cfg = (choice, stream_cfg, select_cfg);
    crate::with_label!(store, levels(store, source, cfg, budget))
}

/// [`bfs_planned`] with frontiers of ids of type `T` (u64 on a wide store).
fn levels<T: crate::store::csr::Slot>(
    store: &Store,
    source: u64,
    (choice, stream_cfg, select_cfg): (
        EngineChoice,
        StreamConfig,
        crate::engine::select::SelectConfig,
    ),
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    use crate::engine::select::SelectEngine;
    use crate::progress::Progress;
    use crate::store::degrees::Degrees;
    use std::time::Instant;

    if choice == EngineChoice::Stream {
        return bfs(store, source, stream_cfg, budget);
    }
    let m = store.manifest();
    let n = m.num_vertices;
    if source >= n {
        return Err(Error::Invalid(format!(
            "source vertex {source} is not in the graph"
        )));
    }
    let start = Instant::now();
    let state = Bfs::state_bytes(n) + Degrees::memory_bytes(n);
    let need = required_bytes(store, state) + (4 << 20);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "bfs on {n} vertices needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    let _state = budget.charge(state, "bfs vertex state")?;
    let deg = Degrees::load(store.root(), "out")?;
    let mut prog = Bfs::new(n as usize, source as usize, m.directed);
    // Auto keeps both engines: the stream engine's cache takes half of what
    // is left, the select engine's buffer pool the rest.
    let mut stream = if choice == EngineChoice::Auto {
        let mut cfg = stream_cfg;
        if cfg.cache_bytes.is_none() {
            cfg.cache_bytes = Some(budget.available() / 2);
        }
        Some(StreamEngine::new(store, budget, cfg)?)
    } else {
        None
    };
    let mut select = SelectEngine::new(store, "out", false, budget, &select_cfg)?;
    let model = CostModel::for_store(store);
    let page = m.csr.page_bytes;
    let slots_per_page = m.slot_width().per_page(page);
    let mut stats = match &stream {
        Some(s) => s.new_stats(),
        None => RunStats::default(),
    };
    stats.algorithm = "bfs".into();
    stats.engine = format!("{choice:?}").to_lowercase();
    stats.io_backend = select.reader().backend().to_string();
    stats.direct_io = select.reader().direct(0);
    stats.memory_budget = budget.limit();
    stats.vertex_state_bytes = state;
    let mut progress = Progress::new("bfs");
    // Frontiers of up to CHUNK vertices travel as lists.
    const CHUNK: usize = 1 << 16;
    let mut frontier: Option<Vec<T>> = Some(vec![T::of(source)]);
    let mut level = 0usize;
    while prog.begin(level) {
        crate::cancel::check()?;
        let t0 = Instant::now();
        // The frontier: a short list when the last level left one, else the
        // vertices whose depth is this level, found by scanning in chunks
        // (memory stays O(chunk), whatever the frontier's size).
        let small = frontier.take();
        let lv = level as u32;
        let scan = |f: &mut dyn FnMut(&[T]) -> Result<()>| -> Result<()> {
            match &small {
                Some(l) => l.chunks(CHUNK).try_for_each(&mut *f),
                None => {
                    let mut buf = Vec::with_capacity(CHUNK);
                    for v in 0..n as usize {
                        if prog.depth.get(v) == lv {
                            buf.push(T::of(v as u64));
                            if buf.len() == CHUNK {
                                f(&buf)?;
                                buf.clear();
                            }
                        }
                    }
                    if buf.is_empty() {
                        Ok(())
                    } else {
                        f(&buf)
                    }
                }
            }
        };
        // Select's cost: each list's pages plus its offsets page (distinct,
        // counted along the sorted frontier), each a whole page.
        let (mut active, mut select_pages, mut last_off) = (0u64, 0u64, u64::MAX);
        scan(&mut |chunk: &[T]| {
            for &v in chunk {
                let v = v.get();
                active += 1;
                select_pages += deg.get(v as usize).div_ceil(slots_per_page).max(1);
                let op = v * 8 / page;
                if op != last_off {
                    select_pages += 1;
                    last_off = op;
                }
            }
            Ok(())
        })?;
        let est = crate::engine::planner::choose(
            &model,
            stream.as_ref().map(|s| s.estimate_bytes(&prog)),
            Some((select_pages, page)),
            Some(&crate::engine::planner::ExternalWork::estimate(
                active,
                n,
                m.csr.out_entries,
                m.adjacency_bytes("out"),
                8,
                4,
            )),
        );
        let use_stream = est.chosen == "stream";
        let mut it = if use_stream {
            let s = stream.as_mut().expect("stream engine");
            let mut it = s.iterate(&prog, level, &mut progress)?;
            it.planner = Some(est);
            it
        } else {
            let io0 = select.reader().stats();
            let p0 = select.stats().pages_touched;
            let mut next = Some(Vec::new());
            let mut count = 0u64;
            let mut edges = 0u64;
            let tc = Instant::now();
            scan(&mut |chunk: &[T]| {
                select.for_each_list(chunk, |_, nbrs| {
                    edges += nbrs.len() as u64;
                    for &u in nbrs {
                        let before = count;
                        let x = u.get();
                        prog.visit(x as usize, (x >> TILE_BITS) as u32, &mut count);
                        if count > before {
                            if let Some(l) = next.as_mut() {
                                l.push(u);
                                if l.len() > CHUNK {
                                    next = None;
                                }
                            }
                        }
                    }
                    Ok(())
                })
            })?;
            prog.found.fetch_add(count, Relaxed);
            frontier = next.map(|mut l| {
                l.sort_unstable();
                l
            });
            let io1 = select.reader().stats();
            IterStats {
                iteration: level,
                seconds: t0.elapsed().as_secs_f64(),
                bytes_read: io1.bytes_read - io0.bytes_read,
                read_requests: io1.requests - io0.requests,
                io_wait_seconds: io1.wait_seconds - io0.wait_seconds,
                compute_seconds: tc.elapsed().as_secs_f64() - (io1.wait_seconds - io0.wait_seconds),
                pages_touched: select.stats().pages_touched - p0,
                edges_processed: edges,
                engine: "select",
                planner: Some(est),
                ..Default::default()
            }
        };
        it.active_vertices = active;
        it.seconds = t0.elapsed().as_secs_f64();
        let end = prog.end(level);
        if use_stream {
            frontier = None;
        }
        let line = format!(
            "level {level}: {} active on {}, {:.3}s",
            it.active_vertices, it.engine, it.seconds
        );
        progress.tick(|| line);
        stats.iterations.push(it);
        level += 1;
        if end.done {
            break;
        }
    }
    let summed: u64 = stats.iterations.iter().map(|i| i.bytes_read).sum();
    stats.read_requests = stats.iterations.iter().map(|i| i.read_requests).sum();
    stats.io_wait_seconds = stats.iterations.iter().map(|i| i.io_wait_seconds).sum();
    stats.compute_seconds = stats
        .iterations
        .iter()
        .fold(0.0, |s, i| s + i.compute_seconds);
    stats.bytes_read = summed;
    stats.pages_touched = select.stats().pages_touched;
    stats.wall_seconds = start.elapsed().as_secs_f64();
    stats.peak_rss_bytes = crate::mem::peak_rss_bytes();
    let summary = format!(
        "{level} levels, {} read in {:.2}s",
        crate::size::format_size(summed),
        stats.wall_seconds
    );
    progress.done(|| summary);
    Ok((prog, stats))
}
