//! The stream engine: G-Store's slide-cache-rewind over the tiles (G-Store
//! §VI; DESIGN.md "stream").
//!
//! Per iteration:
//! - **selective fetching**: a tile is needed when its row block is active
//!   (forward) or, for programs that also apply edges in reverse, its column
//!   block is; other tiles are not read;
//! - **rewind**: needed tiles already in the cache pool are processed first,
//!   while the first segment of uncached tiles is being read;
//! - **slide**: uncached needed tiles are read in physical order into two
//!   alternating segments with direct I/O (several requests in flight); while
//!   one segment is processed on every core, the next is being read;
//! - **cache**: after a segment is processed, its tiles that the program says
//!   may be needed next iteration are copied into the cache pool, which takes
//!   the rest of the budget; when it is full, tiles no longer needed are
//!   evicted (proactive caching).
//!
//! Tiles are read in whole 64 KiB chunks, each verified against the store's
//! chunk checksums before use, so a damaged store is detected, not computed on.
//! Parallelism: thread t applies the direction of a tile whose written block
//! is t modulo the thread count, so no two threads write one block at a time.

#[cfg(target_endian = "big")]
compile_error!("the tile format is little-endian; big-endian hosts are not supported");

use super::pool::CachePool;
use super::program::{Dir, Tile, TileProgram};
use super::stats::{IterStats, RunStats};
use super::tileset::{TileMeta, TileSet};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Backend, Completion, ReadReq, Reader, ALIGN};
use crate::mem::{peak_rss_bytes, Budget};
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::tiles::{chunk_sum, CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use std::time::Instant;

/// Stream engine settings.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    /// I/O backend (`None`: io_uring when available, else the portable one).
    pub io: Option<Backend>,
    /// Segment size (default: an eighth of what the budget leaves, 4–64 MiB,
    /// at least the largest tile).
    pub segment_bytes: Option<u64>,
    /// Requests in flight.
    pub depth: usize,
    /// Bytes per read request.
    pub request_bytes: u64,
    /// Cache pool size (default: the rest of the budget).
    pub cache_bytes: Option<u64>,
    /// Name of the algorithm, for progress and statistics.
    pub label: String,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            io: None,
            segment_bytes: None,
            depth: 32,
            request_bytes: 1 << 20,
            cache_bytes: None,
            label: String::new(),
        }
    }
}

/// Budget the engine leaves free for small allocations (iteration lists,
/// statistics, the program's per-block flags).
const SLACK: u64 = 8 << 20;
const MIN_SEGMENT: u64 = 4 << 20;
const MAX_SEGMENT: u64 = 64 << 20;

/// The smallest budget that runs a program needing `state_bytes` of vertex
/// state on `store`: the state, the tile index and two minimal segments.
pub fn required_bytes(store: &Store, state_bytes: u64) -> u64 {
    let m = store.manifest();
    let index = (m.tiles.num_tiles + 1) * 40 + m.tiles.edges * 4 / CHUNK_BYTES * 8 + 4096;
    let seg = min_segment(m.tiles.max_tile_edges * 4);
    state_bytes + index + 2 * seg + SLACK
}

fn min_segment(max_tile_bytes: u64) -> u64 {
    // A tile may start anywhere in a chunk: room for it plus two chunk edges.
    (max_tile_bytes + 2 * CHUNK_BYTES).next_multiple_of(CHUNK_BYTES)
}

/// The engine bound to one store.
pub struct StreamEngine {
    store: Store,
    reader: Reader,
    file: usize,
    tiles: TileSet,
    segs: [AlignedBuf; 2],
    pool: CachePool,
    cfg: StreamConfig,
    threads: usize,
    budget: Budget,
    /// (offset, length) of each request of the load in flight, by tag.
    inflight: Vec<(u64, u64)>,
}

/// One range of `tiles/edges.bin` read into a segment.
struct Range {
    file_off: u64,
    len: u64,
    buf_off: u64,
}

/// A segment's worth of reads.
struct Load {
    ranges: Vec<Range>,
    /// (tile index, word offset in the segment)
    tiles: Vec<(usize, usize)>,
    bytes: u64,
}

impl StreamEngine {
    /// Opens the engine on `store`; vertex state must already be charged to
    /// `budget`, the engine takes segments and the cache pool from the rest.
    pub fn new(store: &Store, budget: &Budget, cfg: StreamConfig) -> Result<StreamEngine> {
        let tiles = TileSet::load(store, budget)?;
        let min_seg = min_segment(tiles.max_tile_bytes);
        let free = budget.available().saturating_sub(SLACK);
        let seg = match cfg.segment_bytes {
            Some(s) => s.next_multiple_of(CHUNK_BYTES).max(min_seg),
            None => (free / 8)
                .clamp(MIN_SEGMENT, MAX_SEGMENT)
                .next_multiple_of(CHUNK_BYTES)
                .max(min_seg),
        };
        if 2 * seg > free {
            return Err(Error::Budget(format!(
                "two {} segments do not fit: {} of the {} budget is left after vertex state and the tile index; \
                 this run needs --memory of at least {}",
                format_size(seg),
                format_size(free),
                format_size(budget.limit()),
                format_size(budget.limit() - free + 2 * min_seg + SLACK),
            )));
        }
        let segs = [
            AlignedBuf::new(seg as usize, budget, "segment")?,
            AlignedBuf::new(seg as usize, budget, "segment")?,
        ];
        let pool_bytes = match cfg.cache_bytes {
            Some(c) => c.min(budget.available().saturating_sub(SLACK)),
            None => budget.available().saturating_sub(SLACK),
        };
        let pool = CachePool::new(pool_bytes, tiles.tiles.len(), budget)?;
        let mut reader = Reader::new(cfg.io, cfg.depth)?;
        let file = reader.open(&store.file(EDGES_FILE))?;
        Ok(StreamEngine {
            store: store.clone(),
            reader,
            file,
            tiles,
            segs,
            pool,
            cfg,
            threads: rayon::current_num_threads().max(1),
            budget: budget.clone(),
            inflight: Vec::new(),
        })
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Statistics of a run on this engine, without iterations yet.
    pub fn new_stats(&self) -> RunStats {
        RunStats {
            algorithm: self.cfg.label.clone(),
            engine: "stream".into(),
            io_backend: self.reader.backend().to_string(),
            direct_io: self.reader.direct(self.file),
            memory_budget: self.budget.limit(),
            segment_bytes: self.segs[0].len() as u64,
            cache_pool_bytes: self.pool.capacity_bytes(),
            threads: self.threads,
            ..Default::default()
        }
    }

    /// Runs `prog` to completion, at most `max_iterations` iterations.
    pub fn run<P: TileProgram>(&mut self, prog: &mut P, max_iterations: usize) -> Result<RunStats> {
        let start = Instant::now();
        let mut stats = self.new_stats();
        let mut progress = Progress::new(self.cfg.label.clone());
        for iter in 0..max_iterations {
            crate::cancel::check()?;
            if !prog.begin(iter) {
                break;
            }
            let it = self.iterate(prog, iter, &mut progress)?;
            let end = prog.end(iter);
            let line = format!(
                "iteration {iter}: {} active, {} read, {}/{} tiles cached, {:.2}s",
                it.active_vertices,
                format_size(it.bytes_read),
                it.cache_hits,
                it.tiles_processed,
                it.seconds
            );
            progress.tick(|| line);
            stats.iterations.push(it);
            if end.done {
                break;
            }
        }
        self.finish_stats(&mut stats, start);
        let summary = format!(
            "{} iterations, {} read in {:.2}s (I/O wait {:.2}s, compute {:.2}s)",
            stats.iterations.len(),
            format_size(stats.bytes_read),
            stats.wall_seconds,
            stats.io_wait_seconds,
            stats.compute_seconds
        );
        progress.done(|| summary);
        Ok(stats)
    }

    /// Fills the run totals of `stats` (I/O of this engine's reader).
    pub fn finish_stats(&self, stats: &mut RunStats, start: Instant) {
        let io = self.reader.stats();
        stats.bytes_read = io.bytes_read;
        stats.read_requests = io.requests;
        stats.io_wait_seconds = io.wait_seconds;
        stats.compute_seconds = stats.iterations.iter().map(|i| i.compute_seconds).sum();
        stats.wall_seconds = start.elapsed().as_secs_f64();
        stats.peak_rss_bytes = peak_rss_bytes();
    }

    /// Bytes of the tiles one iteration of `prog` would read (selective
    /// fetching applied, cached tiles excluded): the planner's estimate.
    pub fn estimate_bytes<P: TileProgram>(&self, prog: &P) -> u64 {
        let dirs = prog.directions();
        let (fwd, rev) = (dirs.contains(&Dir::Forward), dirs.contains(&Dir::Reverse));
        self.tiles
            .tiles
            .iter()
            .enumerate()
            .filter(|&(i, t)| {
                ((fwd && prog.active(t.row as u64)) || (rev && prog.active(t.col as u64)))
                    && !self.pool.contains(i)
            })
            .map(|(_, t)| t.bytes)
            .sum()
    }

    /// One iteration of `prog` (after its `begin`, before its `end`).
    pub fn iterate<P: TileProgram>(
        &mut self,
        prog: &P,
        iter: usize,
        progress: &mut Progress,
    ) -> Result<IterStats> {
        let dirs = prog.directions();
        let (fwd, rev) = (dirs.contains(&Dir::Forward), dirs.contains(&Dir::Reverse));
        let t0 = Instant::now();
        let io0 = self.reader.stats();
        let mut it = IterStats {
            iteration: iter,
            active_vertices: prog.active_vertices(),
            engine: "stream",
            ..Default::default()
        };
        // Which directions of which tiles this iteration needs.
        let needs: Vec<u8> = self
            .tiles
            .tiles
            .iter()
            .map(|t| {
                (fwd && prog.active(t.row as u64)) as u8
                    | ((rev && prog.active(t.col as u64)) as u8) << 1
            })
            .collect();
        let uncached: Vec<usize> = (0..needs.len())
            .filter(|&i| needs[i] != 0 && !self.pool.contains(i))
            .collect();
        let loads = self.plan(&uncached);
        if let Some(first) = loads.first() {
            self.submit(first, 0)?;
        }
        // Rewind: the cache pool first, while the first segment loads.
        let cached: Vec<usize> = self.pool.tiles().filter(|&i| needs[i] != 0).collect();
        let tc = Instant::now();
        {
            let batch: Vec<(usize, &[u32])> = cached
                .iter()
                .map(|&i| (i, self.pool.get(i).expect("cached")))
                .collect();
            it.cache_hit_bytes = batch.iter().map(|(_, e)| e.len() as u64 * 4).sum();
            it.edges_processed += process(prog, &self.tiles.tiles, &needs, &batch, self.threads);
        }
        it.compute_seconds += tc.elapsed().as_secs_f64();
        it.cache_hits = cached.len() as u64;
        // Slide.
        for (k, load) in loads.iter().enumerate() {
            self.wait()?;
            if let Some(next) = loads.get(k + 1) {
                self.submit(next, (k + 1) % 2)?;
            }
            let tc = Instant::now();
            let seg = &self.segs[k % 2];
            verify_chunks(seg.as_slice(), load, &self.tiles, &self.store)?;
            let words = as_words(seg.as_slice());
            let batch: Vec<(usize, &[u32])> = load
                .tiles
                .iter()
                .map(|&(i, w)| (i, &words[w..w + (self.tiles.tiles[i].bytes / 4) as usize]))
                .collect();
            it.edges_processed += process(prog, &self.tiles.tiles, &needs, &batch, self.threads);
            it.compute_seconds += tc.elapsed().as_secs_f64();
            // Cache what the next iteration may need.
            let tk = Instant::now();
            self.pool.new_round();
            let metas = &self.tiles.tiles;
            for &(i, edges) in &batch {
                let t = metas[i];
                if prog.may_need_next(t.row, t.col) {
                    self.pool
                        .insert(i, edges, |j| prog.may_need_next(metas[j].row, metas[j].col));
                }
            }
            it.cache_seconds += tk.elapsed().as_secs_f64();
            it.cache_misses += load.tiles.len() as u64;
            let done = k + 1;
            progress.tick(|| format!("iteration {iter}: segment {done}/{}", loads.len()));
        }
        let io1 = self.reader.stats();
        it.tiles_processed = it.cache_hits + it.cache_misses;
        it.bytes_read = io1.bytes_read - io0.bytes_read;
        it.read_requests = io1.requests - io0.requests;
        it.io_wait_seconds = io1.wait_seconds - io0.wait_seconds;
        it.seconds = t0.elapsed().as_secs_f64();
        Ok(it)
    }

    /// Groups tiles (in physical order) into chunk-aligned ranges and the
    /// ranges into segment-sized loads.
    fn plan(&self, tiles: &[usize]) -> Vec<Load> {
        let seg = self.segs[0].len() as u64;
        let file_end = self.tiles.file_len.next_multiple_of(ALIGN as u64);
        let mut loads = Vec::new();
        let mut cur = Load {
            ranges: Vec::new(),
            tiles: Vec::new(),
            bytes: 0,
        };
        for &i in tiles {
            let t = &self.tiles.tiles[i];
            let start = t.offset / CHUNK_BYTES * CHUNK_BYTES;
            let end = (t.offset + t.bytes)
                .next_multiple_of(CHUNK_BYTES)
                .min(file_end);
            // Extend the last range if this tile starts inside or right after it.
            let extend = cur.ranges.last().map(|r| {
                let r_end = r.file_off + r.len;
                (start <= r_end, r_end)
            });
            let grow = match extend {
                Some((true, r_end)) => end.saturating_sub(r_end),
                _ => end - start,
            };
            if cur.bytes + grow > seg && !cur.tiles.is_empty() {
                loads.push(std::mem::replace(
                    &mut cur,
                    Load {
                        ranges: Vec::new(),
                        tiles: Vec::new(),
                        bytes: 0,
                    },
                ));
            }
            let extend_now = cur
                .ranges
                .last()
                .is_some_and(|r| start <= r.file_off + r.len);
            if extend_now {
                let r = cur.ranges.last_mut().expect("a range");
                let r_end = r.file_off + r.len;
                if end > r_end {
                    r.len += end - r_end;
                    cur.bytes += end - r_end;
                }
            } else {
                cur.ranges.push(Range {
                    file_off: start,
                    len: end - start,
                    buf_off: cur.bytes,
                });
                cur.bytes += end - start;
            }
            let r = cur.ranges.last().expect("a range");
            cur.tiles
                .push((i, ((r.buf_off + t.offset - r.file_off) / 4) as usize));
        }
        if !cur.tiles.is_empty() {
            loads.push(cur);
        }
        loads
    }

    fn submit(&mut self, load: &Load, seg: usize) -> Result<()> {
        let base = self.segs[seg].as_mut_ptr();
        let mut reqs = Vec::new();
        self.inflight.clear();
        for r in &load.ranges {
            let mut off = 0;
            while off < r.len {
                let len = (r.len - off).min(self.cfg.request_bytes);
                reqs.push(ReadReq {
                    file: self.file,
                    offset: r.file_off + off,
                    len: len as usize,
                    // SAFETY: buf_off + off + len <= segment length (plan keeps loads within a segment).
                    buf: unsafe { base.add((r.buf_off + off) as usize) },
                    tag: self.inflight.len() as u64,
                });
                self.inflight.push((r.file_off + off, len));
                off += len;
            }
        }
        // SAFETY: the segment is not touched until `wait` has returned every completion.
        unsafe { self.reader.submit(&reqs) }
    }

    fn wait(&mut self) -> Result<()> {
        let want = self.inflight.len();
        let mut done: Vec<Completion> = Vec::with_capacity(want);
        while done.len() < want {
            let before = done.len();
            self.reader.wait(want - done.len(), &mut done)?;
            if done.len() == before {
                return Err(Error::Invalid("the I/O layer lost a request".into()));
            }
        }
        let path = self.store.file(EDGES_FILE);
        for c in done {
            let got = c.result.map_err(|e| Error::io(&path, e))?;
            let (offset, len) = self.inflight[c.tag as usize];
            let want = len.min(self.tiles.file_len.saturating_sub(offset));
            if (got as u64) < want {
                return Err(Error::store(
                    self.store.path(),
                    format!("{EDGES_FILE}: short read at offset {offset} ({got} of {want} bytes)"),
                ));
            }
        }
        Ok(())
    }
}

/// Reinterprets a 4-byte-aligned byte slice as little-endian u32 words.
fn as_words(b: &[u8]) -> &[u32] {
    assert!((b.as_ptr() as usize).is_multiple_of(4));
    // SAFETY: aligned, in bounds, and every bit pattern is a valid u32.
    unsafe { std::slice::from_raw_parts(b.as_ptr() as *const u32, b.len() / 4) }
}

/// Checks every chunk a load read against the store's chunk checksums.
fn verify_chunks(seg: &[u8], load: &Load, tiles: &TileSet, store: &Store) -> Result<()> {
    use rayon::prelude::*;
    let chunks: Vec<(u64, u64)> = load
        .ranges
        .iter()
        .flat_map(|r| {
            (0..r.len.div_ceil(CHUNK_BYTES))
                .map(move |k| (r.file_off + k * CHUNK_BYTES, r.buf_off + k * CHUNK_BYTES))
        })
        .collect();
    chunks.par_iter().try_for_each(|&(file_off, buf_off)| {
        let c = (file_off / CHUNK_BYTES) as usize;
        let len = CHUNK_BYTES.min(tiles.file_len.saturating_sub(file_off)) as usize;
        let bytes = &seg[buf_off as usize..buf_off as usize + len];
        if tiles.chunk_sums.get(c) != Some(&chunk_sum(bytes)) {
            return Err(Error::store(
                store.path(),
                format!("{EDGES_FILE}: chunk {c} (offset {file_off}) fails its checksum; the store is damaged"),
            ));
        }
        Ok(())
    })
}

/// Applies a batch of tiles on every thread; returns edges processed.
fn process<P: TileProgram>(
    prog: &P,
    metas: &[TileMeta],
    needs: &[u8],
    batch: &[(usize, &[u32])],
    threads: usize,
) -> u64 {
    if batch.is_empty() {
        return 0;
    }
    // Each thread takes the directions whose written block is its own. Edges
    // in a tile are sorted by source, so the target side is accessed at
    // random in both directions: ordering the work by column keeps that
    // column's slice of vertex state in cache across consecutive tiles.
    let run = |t: usize| {
        let mut work: Vec<(u32, u32, u32, Dir)> = Vec::with_capacity(batch.len());
        for (b, &(i, _)) in batch.iter().enumerate() {
            let m = metas[i];
            if needs[i] & 1 != 0 && m.col as usize % threads == t {
                work.push((m.col, m.row, b as u32, Dir::Forward));
            }
            if needs[i] & 2 != 0 && m.row as usize % threads == t {
                work.push((m.col, m.row | 1 << 31, b as u32, Dir::Reverse));
            }
        }
        work.sort_unstable_by_key(|w| (w.0, w.1));
        for (_, _, b, dir) in work {
            let (i, edges) = batch[b as usize];
            let m = metas[i];
            let tile = Tile {
                row: m.row,
                col: m.col,
                edges,
            };
            prog.apply(&tile, dir);
        }
    };
    if threads == 1 {
        run(0);
    } else {
        rayon::scope(|s| {
            for t in 0..threads {
                s.spawn(move |_| run(t));
            }
        });
    }
    batch
        .iter()
        .map(|&(i, e)| e.len() as u64 * (needs[i].count_ones() as u64))
        .sum()
}
