//! The stream engine: G-Store's slide-cache-rewind over the tiles (G-Store
//! §VI; DESIGN.md "stream").
//!
//! Per iteration:
//! - **selective fetching**: a tile is needed when its row block is active
//!   (forward) or, for programs that also apply edges in reverse, its column
//!   block is; other tiles are not read;
//! - **rewind**: needed tiles already in the cache pool are processed first,
//!   while the first loads of uncached tiles are being read (one into every
//!   segment of the ring);
//! - **slide**: uncached needed tiles are planned in physical order into
//!   loads of at most a segment and read with direct I/O into a ring of K
//!   segments (2–4 by default, from the budget): load j goes to segment
//!   j mod K. While one segment is processed on every core, the next K - 1
//!   loads are being read, so the disk queue does not drain when one load is
//!   slow. Requests are tagged with their segment, so the completions of
//!   different loads, which arrive interleaved, are each counted (and checked
//!   for errors and short reads) against their own load; a segment is read
//!   into again only after its load was processed and cached;
//! - **cache**: after a load is processed, its tiles that the program says
//!   may be needed next iteration are copied into the cache pool (on every
//!   core), which takes the rest of the budget; when it is full, tiles no
//!   longer needed are evicted (proactive caching).
//!
//! Tiles are read in whole 64 KiB chunks, each verified against the store's
//! chunk checksums before use, so a damaged store is detected, not computed on.
//! Parallelism: each block is written by one thread per batch (blocks given
//! out longest-first), except hub blocks of reduction programs, whose work is
//! split over private copies merged after the batch (see [`process`]).

#[cfg(target_endian = "big")]
compile_error!("the tile format is little-endian; big-endian hosts are not supported");

use super::pool::CachePool;
use super::program::{Dir, Tile, TileProgram};
use super::state::BLOCK;
use super::stats::{IterStats, RunStats};
use super::tileset::{tile_bytes, TileMeta, TileSet, PIECE_BYTES};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Backend, Completion, ReadReq, Reader, ALIGN, MAX_DEPTH};
use crate::mem::{peak_rss_bytes, Budget};
use crate::progress::{Progress, Unit};
use crate::size::format_size;
use crate::store::tilecode;
use crate::store::tiles::{chunk_sum, CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Stream engine settings.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    /// I/O backend (`None`: io_uring when available, else the portable one).
    pub io: Option<Backend>,
    /// Segment size (default: the ring's share of what the budget leaves,
    /// see [`StreamConfig::segments`]; at least the largest tile).
    pub segment_bytes: Option<u64>,
    /// Segments in the ring, at least 2: one is processed while the others
    /// are read (default: up to 4, so that the ring takes about a quarter of
    /// what the budget leaves, 8–128 MiB, in segments of at least 16 MiB).
    pub segments: Option<usize>,
    /// Requests in flight (at least; the engine raises it so that every
    /// segment of the ring can be read at once).
    pub depth: usize,
    /// Bytes per read request.
    pub request_bytes: u64,
    /// Cache pool size (default: the rest of the budget).
    pub cache_bytes: Option<u64>,
    /// Name of the algorithm, for progress and statistics.
    pub label: String,
    /// Largest piece of a tile handled at once (default
    /// [`PIECE_BYTES`]; smaller values exercise the splitting in tests).
    pub piece_bytes: Option<u64>,
    /// Least work (edges) of one block in a batch for it to be shared over
    /// threads (default [`SHARE_MIN_EDGES`]; 0 in tests to share small
    /// graphs' blocks).
    pub share_min_edges: Option<u64>,
}

/// Default [`StreamConfig::share_min_edges`]: below a million edges a block's
/// work is too short for splitting to pay, and small graphs keep one writer
/// per block (and so the summation order of the Graphalytics reference).
pub const SHARE_MIN_EDGES: u64 = 1 << 20;

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            io: None,
            segment_bytes: None,
            segments: None,
            depth: 32,
            request_bytes: 1 << 20,
            cache_bytes: None,
            label: String::new(),
            piece_bytes: None,
            share_min_edges: None,
        }
    }
}

/// Budget the engine leaves free for small allocations (iteration lists,
/// statistics, the program's per-block flags).
const SLACK: u64 = 8 << 20;
/// The ring takes a quarter of what the budget leaves, within these bounds
/// (the total of the former two segments of 4–64 MiB).
const MIN_RING: u64 = 8 << 20;
const MAX_RING: u64 = 128 << 20;
/// A default segment is at least this large unless the ring has only two: a
/// small ring has fewer segments (a load is processed as one batch, and
/// larger batches keep more of the work on one column together).
const MIN_SEGMENT: u64 = 16 << 20;
/// Segments in the ring by default (at most).
const DEFAULT_SEGMENTS: usize = 4;

/// The smallest budget that runs a program needing `state_bytes` of vertex
/// state on `store`: the state, the tile index and two minimal segments.
pub fn required_bytes(store: &Store, state_bytes: u64) -> u64 {
    let m = store.manifest();
    let bytes = tile_bytes(store);
    let pieces = bytes / PIECE_BYTES;
    let index = (m.tiles.index_entries() + 1) * 40
        + pieces * std::mem::size_of::<TileMeta>() as u64
        + bytes / CHUNK_BYTES * 8
        + 4096;
    let seg = min_segment((m.tiles.max_tile_edges * 4).min(PIECE_BYTES));
    let decode = match m.tiles.compressed() {
        true => decode_bytes(rayon::current_num_threads()),
        false => 0,
    };
    state_bytes + index + 2 * seg + decode + SLACK
}

/// Frame decoding scratch of compressed tiles for `threads` threads.
fn decode_bytes(threads: usize) -> u64 {
    threads as u64 * tilecode::SCRATCH_WORDS * 4
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
    /// The ring: load j of an iteration is read into segment j mod K. Declared
    /// after `reader`, so the reader (which waits for its reads in flight
    /// when dropped) goes first.
    segs: Vec<AlignedBuf>,
    /// The reads of the load in each segment.
    flight: Flight,
    pool: CachePool,
    /// Private copies of shared hub blocks, per thread (see [`process`]).
    scratch: Option<Scratch>,
    cfg: StreamConfig,
    threads: usize,
    budget: Budget,
    /// Compressed tiles: each thread's frame decoding scratch, charged.
    coded: Option<crate::mem::budget::Charge>,
    /// Compressed tiles whose decoded words all fit in the cache pool: it
    /// holds them decoded (decoding is then paid once, not per iteration),
    /// each decoded first into this scratch (charged); else it holds them
    /// coded, and more of them.
    pool_plain: Option<(Vec<u32>, crate::mem::budget::Charge)>,
}

/// The reads in flight, per segment of the ring. A request's tag is
/// `segment << 32 | index`, so completions of loads in different segments,
/// which arrive interleaved, are each counted against their own load.
struct Flight {
    /// Per segment: (file offset, length) of each request of its load.
    reqs: Vec<Vec<(u64, u64)>>,
    /// Per segment: requests of its load that have not completed yet.
    pending: Vec<usize>,
    /// Scratch for completions taken from the reader.
    done: Vec<Completion>,
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
        let piece = cfg.piece_bytes.unwrap_or(PIECE_BYTES).max(4) & !3;
        let tiles = TileSet::load(store, budget, piece)?;
        let min_seg = min_segment(tiles.max_tile_bytes);
        let free = budget.available().saturating_sub(SLACK);
        if let Some(k) = cfg.segments.filter(|&k| k < 2) {
            return Err(Error::Invalid(format!(
                "the stream engine needs at least two segments, not {k}"
            )));
        }
        // The ring's share of the budget (all of it at the smallest budgets),
        // split into K segments.
        let ring = (free / 4).clamp(MIN_RING, MAX_RING).min(free);
        let share = |k: usize| (ring / k as u64 / CHUNK_BYTES * CHUNK_BYTES).max(min_seg);
        let (k, seg) = match (cfg.segments, cfg.segment_bytes) {
            (k, Some(s)) => {
                let seg = s.next_multiple_of(CHUNK_BYTES).max(min_seg);
                let k = k.unwrap_or(((ring / seg) as usize).clamp(2, DEFAULT_SEGMENTS));
                (k, seg)
            }
            (Some(k), None) => (k, share(k)),
            (None, None) => {
                let k = ((ring / MIN_SEGMENT.max(min_seg)) as usize).clamp(2, DEFAULT_SEGMENTS);
                (k, share(k))
            }
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
        // Two always fit now; a default ring gives up segments that do not.
        let k = match cfg.segments {
            None => k.min((free / seg) as usize),
            Some(k) if (k as u64).saturating_mul(seg) > free => {
                return Err(Error::Budget(format!(
                    "{k} {} segments do not fit: {} of the {} budget is left after vertex state and the tile index; \
                     this run needs --memory of at least {} (or fewer segments)",
                    format_size(seg),
                    format_size(free),
                    format_size(budget.limit()),
                    format_size((budget.limit() - free + SLACK).saturating_add((k as u64).saturating_mul(seg))),
                )));
            }
            Some(k) => k,
        };
        let mut segs = Vec::with_capacity(k);
        for _ in 0..k {
            segs.push(AlignedBuf::new(seg as usize, budget, "segment")?);
        }
        // Thread ids are u16 in work plans.
        let threads = rayon::current_num_threads().clamp(1, u16::MAX as usize);
        let scratch = Scratch::new(threads, budget);
        let coded = match store.manifest().tiles.compressed() {
            true => Some(budget.charge(decode_bytes(threads), "tile decoding")?),
            false => None,
        };
        let pool_bytes = |budget: &Budget| {
            let avail = budget.available().saturating_sub(SLACK);
            cfg.cache_bytes.map_or(avail, |c| c.min(avail))
        };
        // Decoded tiles all fit (beside the decoding scratch): cache them so.
        let scratch_words = tiles.max_tile_bytes;
        let plain_bytes = store.manifest().tiles.edges * 4 + 4 * scratch_words;
        let pool_plain = match coded.is_some() && pool_bytes(budget) >= plain_bytes {
            true => Some((
                Vec::with_capacity(scratch_words as usize),
                budget.charge(4 * scratch_words, "decoded tile for the cache pool")?,
            )),
            false => None,
        };
        let pool = CachePool::new(pool_bytes(budget), tiles.tiles.len(), budget)?;
        // Room in flight for every segment's load at once (loads of whole
        // segments; a load of many small ranges has more requests, the rest
        // queue in the reader and go out as completions are taken).
        let per_seg = seg.div_ceil(cfg.request_bytes.max(ALIGN as u64)) as usize;
        let depth = cfg.depth.max(k * per_seg).min(MAX_DEPTH);
        let mut reader = Reader::new(cfg.io, depth)?;
        let file = reader.open(&store.file(EDGES_FILE))?;
        Ok(StreamEngine {
            store: store.clone(),
            reader,
            file,
            tiles,
            flight: Flight {
                reqs: vec![Vec::new(); segs.len()],
                pending: vec![0; segs.len()],
                done: Vec::new(),
            },
            segs,
            pool,
            scratch,
            cfg,
            threads,
            budget: budget.clone(),
            coded,
            pool_plain,
        })
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Segments in the ring.
    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    /// Bytes per segment.
    pub fn segment_bytes(&self) -> u64 {
        self.segs[0].len() as u64
    }

    /// Statistics of a run on this engine, without iterations yet.
    pub fn new_stats(&self) -> RunStats {
        RunStats {
            algorithm: self.cfg.label.clone(),
            engine: "stream".into(),
            io_backend: self.reader.backend().to_string(),
            direct_io: self.reader.direct(self.file),
            memory_budget: self.budget.limit(),
            segment_bytes: self.segment_bytes(),
            cache_pool_bytes: self.pool.capacity_bytes(),
            threads: self.threads,
            ..Default::default()
        }
    }

    /// Runs `prog` to completion, at most `max_iterations` iterations.
    pub fn run<P: TileProgram>(&mut self, prog: &mut P, max_iterations: usize) -> Result<RunStats> {
        let start = Instant::now();
        let mut stats = self.new_stats();
        let mut progress = if max_iterations < usize::MAX {
            Progress::bar(self.cfg.label.clone(), max_iterations as u64, Unit::Steps)
        } else {
            Progress::new(self.cfg.label.clone())
        };
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
            progress.set(iter as u64 + 1);
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
        // Reads of an iteration that failed part-way (none normally) must not
        // land in the ring from now on.
        self.flight.drain(&mut self.reader)?;
        // No segment is in use during the rewind: fill the whole ring.
        let k = self.segs.len();
        for (j, load) in loads.iter().enumerate().take(k) {
            self.submit(load, j)?;
        }
        // Rewind: the cache pool first, while the first loads are read.
        let cached: Vec<usize> = self.pool.tiles().filter(|&i| needs[i] != 0).collect();
        let tc = Instant::now();
        {
            let batch: Vec<(usize, &[u32])> = cached
                .iter()
                .map(|&i| (i, self.pool.get(i).expect("cached")))
                .collect();
            it.cache_hit_bytes = batch.iter().map(|(_, e)| e.len() as u64 * 4).sum();
            let coded = self.coded.is_some() && self.pool_plain.is_none();
            self.process(prog, &needs, &batch, coded, &mut it);
        }
        it.compute_seconds += tc.elapsed().as_secs_f64();
        it.cache_hits = cached.len() as u64;
        // Slide: load j is in segment j mod K; while it is processed, the
        // next K - 1 loads are being read.
        let file_len = self.tiles.file_len;
        for (j, load) in loads.iter().enumerate() {
            let s = j % k;
            self.flight
                .wait_for(s, &mut self.reader, &self.store, file_len)?;
            {
                let tc = Instant::now();
                let seg = &self.segs[s];
                verify_chunks(seg.as_slice(), load, &self.tiles, &self.store)?;
                // Take completions (no waiting) so that requests queued in
                // the reader go out: the disk queue stays full.
                self.flight
                    .collect(&mut self.reader, 0, &self.store, file_len)?;
                let words = as_words(seg.as_slice());
                let batch: Vec<(usize, &[u32])> = load
                    .tiles
                    .iter()
                    .map(|&(i, w)| (i, &words[w..w + (self.tiles.tiles[i].bytes / 4) as usize]))
                    .collect();
                self.process(prog, &needs, &batch, self.coded.is_some(), &mut it);
                it.compute_seconds += tc.elapsed().as_secs_f64();
                self.flight
                    .collect(&mut self.reader, 0, &self.store, file_len)?;
                // Cache what the next iteration may need.
                let tk = Instant::now();
                self.pool.new_round();
                let metas = &self.tiles.tiles;
                let next: Vec<(usize, &[u32])> = batch
                    .iter()
                    .copied()
                    .filter(|&(i, _)| prog.may_need_next(metas[i].row, metas[i].col))
                    .collect();
                let keep = |j: usize| prog.may_need_next(metas[j].row, metas[j].col);
                match &mut self.pool_plain {
                    Some((plain, _)) => {
                        for &(i, words) in &next {
                            plain.clear();
                            tilecode::decode(words, plain);
                            self.pool.insert(i, plain, keep);
                        }
                    }
                    None => _ = self.pool.insert_all(&next, keep),
                }
                it.cache_seconds += tk.elapsed().as_secs_f64();
            }
            // Segment s is processed and its tiles cached: the load K after
            // this one goes there.
            if let Some(next) = loads.get(j + k) {
                self.submit(next, s)?;
            }
            it.cache_misses += load.tiles.len() as u64;
            let done = j + 1;
            progress.tick(|| format!("iteration {iter}: segment {done}/{}", loads.len()));
        }
        it.segments = k;
        it.loads = loads.len() as u64;
        let io1 = self.reader.stats();
        it.tiles_processed = it.cache_hits + it.cache_misses;
        it.bytes_read = io1.bytes_read - io0.bytes_read;
        it.read_requests = io1.requests - io0.requests;
        it.io_wait_seconds = io1.wait_seconds - io0.wait_seconds;
        it.seconds = t0.elapsed().as_secs_f64();
        Ok(it)
    }

    /// Applies a batch of tiles (see [`process`]).
    fn process<P: TileProgram>(
        &self,
        prog: &P,
        needs: &[u8],
        batch: &[(usize, &[u32])],
        coded: bool,
        it: &mut IterStats,
    ) {
        let min = self.cfg.share_min_edges.unwrap_or(SHARE_MIN_EDGES);
        let share = self.scratch.as_ref().map(|s| (s, min));
        process(
            prog,
            &self.tiles.tiles,
            needs,
            batch,
            self.threads,
            share,
            coded,
            it,
        );
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

    /// Starts the reads of `load` into segment `seg`, which must be free
    /// (its previous load arrived, was processed and cached).
    fn submit(&mut self, load: &Load, seg: usize) -> Result<()> {
        assert_eq!(
            self.flight.pending[seg], 0,
            "segment {seg} is still being read"
        );
        let base = self.segs[seg].as_mut_ptr();
        let meta = &mut self.flight.reqs[seg];
        meta.clear();
        let mut reqs = Vec::new();
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
                    tag: (seg as u64) << 32 | meta.len() as u64,
                });
                meta.push((r.file_off + off, len));
                off += len;
            }
        }
        self.flight.pending[seg] = reqs.len();
        // SAFETY: the segment is not touched until `Flight::wait_for(seg)` has
        // taken every completion of this load (and not written to by another
        // load before: `pending` is 0 here).
        unsafe { self.reader.submit(&reqs) }
    }
}

impl Flight {
    /// Takes the completions `reader` has (first blocking until there are at
    /// least `min`), checks each and counts it against its segment's load.
    /// Returns how many were taken.
    fn collect(
        &mut self,
        reader: &mut Reader,
        min: usize,
        store: &Store,
        file_len: u64,
    ) -> Result<usize> {
        self.done.clear();
        reader.wait(min, &mut self.done)?;
        let n = self.done.len();
        for c in self.done.drain(..) {
            let (seg, i) = ((c.tag >> 32) as usize, (c.tag & 0xffff_ffff) as usize);
            let req = self.reqs.get(seg).and_then(|r| r.get(i)).copied();
            let Some((offset, len)) = req.filter(|_| self.pending[seg] > 0) else {
                return Err(Error::Invalid(format!(
                    "the I/O layer returned a read (tag {:#x}) that no load is waiting for",
                    c.tag
                )));
            };
            let got = c.result.map_err(|e| Error::io(store.file(EDGES_FILE), e))?;
            let want = len.min(file_len.saturating_sub(offset));
            if (got as u64) < want {
                return Err(Error::store(
                    store.path(),
                    format!("{EDGES_FILE}: short read at offset {offset} ({got} of {want} bytes)"),
                ));
            }
            self.pending[seg] -= 1;
        }
        Ok(n)
    }

    /// Waits until the load in segment `seg` has arrived; completions of
    /// the other loads in flight are taken as they come.
    fn wait_for(
        &mut self,
        seg: usize,
        reader: &mut Reader,
        store: &Store,
        file_len: u64,
    ) -> Result<()> {
        while self.pending[seg] > 0 {
            if self.collect(reader, 1, store, file_len)? == 0 {
                return Err(Error::Invalid("the I/O layer lost a request".into()));
            }
        }
        Ok(())
    }

    /// Waits for every read the reader still has and forgets every load.
    fn drain(&mut self, reader: &mut Reader) -> Result<()> {
        while reader.pending() > 0 {
            self.done.clear();
            reader.wait(reader.pending(), &mut self.done)?;
        }
        self.done.clear();
        self.pending.fill(0);
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

/// Blocks per side of the square of tiles whose work is done together (see
/// [`process`]): 16 blocks of 2^16 vertices keep the read side of the square's
/// vertex state (8 bytes per vertex) in the last-level cache.
const WORK_SQUARE_SHIFT: u32 = 4;

/// Applies a batch of tiles on every thread; counts the edges processed
/// and the blocks shared in `it`.
///
/// - **Ownership**: every direction of a tile writes one block, and a block
///   is written by one thread only, so programs need no atomics. Blocks are
///   given to threads by longest-processing-time-first on the batch's edge
///   counts (not modulo the thread count).
/// - **Shared hub blocks**: on degree-ordered stores the first block holds
///   the hubs and may receive half of all edge work, more than one thread's
///   fair share. For programs whose edge function is a reduction
///   ([`TileProgram::shares_blocks`]), up to [`MAX_SHARED`] such blocks
///   with at least [`StreamConfig::share_min_edges`] of work have it split
///   over threads: the owner writes the block, the others private zeroed
///   copies, merged after the batch.
/// - **Order**: each thread works square by square (16 x 16 blocks), column
///   by column inside a square. Edges in a tile are sorted by source, so one
///   side of a tile is read in order and the other at random; consecutive
///   tiles of a column share the random side (kept in L2), and the in-order
///   sides of a square stay in the last-level cache.
#[allow(clippy::too_many_arguments)]
fn process<P: TileProgram>(
    prog: &P,
    metas: &[TileMeta],
    needs: &[u8],
    batch: &[(usize, &[u32])],
    threads: usize,
    share: Option<(&Scratch, u64)>,
    coded: bool,
    it: &mut IterStats,
) {
    if batch.is_empty() {
        return;
    }
    let (share, min) = match share {
        Some((s, min)) if prog.shares_blocks() => (Some(s), Some(min)),
        _ => (None, None),
    };
    let plan = assign_work(metas, needs, batch, threads, min);
    let edges_done = AtomicU64::new(0);
    let run = |t: usize| {
        let mut work: Vec<(u64, u32, Dir)> = Vec::with_capacity(batch.len());
        let key = |row: u32, col: u32, rev: bool| {
            // Blocks are < 2^16: square (24 bits), column, row, direction.
            let sq = ((row >> WORK_SQUARE_SHIFT) as u64) << 12 | (col >> WORK_SQUARE_SHIFT) as u64;
            sq << 33 | (col as u64) << 17 | (row as u64) << 1 | rev as u64
        };
        for (b, &(i, _)) in batch.iter().enumerate() {
            let m = metas[i];
            if needs[i] & 1 != 0 && plan.thread[b][0] as usize == t {
                work.push((key(m.row, m.col, false), b as u32, Dir::Forward));
            }
            if needs[i] & 2 != 0 && plan.thread[b][1] as usize == t {
                work.push((key(m.row, m.col, true), b as u32, Dir::Reverse));
            }
        }
        work.sort_unstable_by_key(|w| (w.0, w.1));
        let mut frame = Vec::new();
        let mut decoded = 0;
        let mut w = 0;
        while w < work.len() {
            let (_, b, dir) = work[w];
            // Both directions of a tile on this thread are adjacent (the key
            // differs in its last bit only): a coded tile is decoded once.
            let both = work.get(w + 1).is_some_and(|x| x.1 == b);
            w += 1 + both as usize;
            let (i, edges) = batch[b as usize];
            let m = metas[i];
            let apply = |edges: &[u32], dir: Dir| {
                let tile = Tile {
                    row: m.row,
                    col: m.col,
                    edges,
                };
                let wb = tile.written_block(dir);
                match plan.shared.iter().position(|s| s.block == wb) {
                    Some(k) if plan.shared[k].owner as usize != t => {
                        let into = share.expect("sharing needs scratch").block(t, k);
                        prog.apply_private(&tile, dir, into);
                    }
                    _ => prog.apply(&tile, dir),
                }
            };
            let dirs: &[Dir] = match (both, dir) {
                (true, _) => &[Dir::Forward, Dir::Reverse],
                (false, Dir::Forward) => &[Dir::Forward],
                (false, Dir::Reverse) => &[Dir::Reverse],
            };
            match coded {
                true => {
                    let n = tilecode::for_each_frame(edges, &mut frame, |e| {
                        dirs.iter().for_each(|&d| apply(e, d))
                    });
                    decoded += n * dirs.len() as u64;
                }
                false => dirs.iter().for_each(|&d| apply(edges, d)),
            }
        }
        edges_done.fetch_add(decoded, Relaxed);
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
    if let Some(scratch) = share {
        for (k, sh) in plan.shared.iter().enumerate() {
            for t in (0..threads).filter(|&t| t != sh.owner as usize && sh.quota[t] > 0) {
                let copy = scratch.block(t, k);
                prog.merge_private(sh.block, copy);
                for c in copy.iter() {
                    c.store(0, Relaxed);
                }
            }
        }
    }
    it.shared_blocks += plan.shared.len() as u64;
    it.edges_processed += match coded {
        true => edges_done.load(Relaxed),
        false => batch
            .iter()
            .map(|&(i, e)| e.len() as u64 * (needs[i].count_ones() as u64))
            .sum::<u64>(),
    };
}

/// Blocks whose work may be split over threads in one batch.
const MAX_SHARED: usize = 2;

/// Private zeroed copies of [`MAX_SHARED`] blocks for every thread, charged
/// to the budget (1 MiB per thread).
struct Scratch {
    cells: Vec<AtomicU64>,
    _charge: crate::mem::budget::Charge,
}

impl Scratch {
    /// `None` with one thread, or when the budget cannot spare the copies
    /// (the engine then keeps one writer per block).
    fn new(threads: usize, budget: &Budget) -> Option<Scratch> {
        if threads < 2 {
            return None;
        }
        let n = threads * MAX_SHARED * BLOCK;
        let charge = budget.charge(n as u64 * 8, "shared-block copies").ok()?;
        Some(Scratch {
            cells: crate::mem::huge_vec(n, |_| AtomicU64::new(0)),
            _charge: charge,
        })
    }

    /// Thread `t`'s copy of the `k`-th shared block.
    fn block(&self, t: usize, k: usize) -> &[AtomicU64; BLOCK] {
        let at = (t * MAX_SHARED + k) * BLOCK;
        self.cells[at..at + BLOCK]
            .try_into()
            .expect("a whole block")
    }
}

/// A block whose work is split over threads.
struct SharedBlock {
    block: u32,
    /// The thread writing the block itself (the largest share).
    owner: u16,
    /// Edges of the block's work per thread.
    quota: Vec<u64>,
}

/// Who applies what in a batch.
struct WorkPlan {
    /// For each batch entry: the thread applying its forward and its reverse
    /// direction.
    thread: Vec<[u16; 2]>,
    shared: Vec<SharedBlock>,
}

/// Gives each block's work to a thread: blocks heavier than half a thread's
/// fair share and carrying at least `share_min` edges (when given) are split
/// (at most [`MAX_SHARED`]) so as to
/// level the threads' loads; the others go, heaviest first, each to the
/// least-loaded thread so far.
fn assign_work(
    metas: &[TileMeta],
    needs: &[u8],
    batch: &[(usize, &[u32])],
    threads: usize,
    share_min: Option<u64>,
) -> WorkPlan {
    let blocks = batch
        .iter()
        .map(|&(i, _)| metas[i].row.max(metas[i].col) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut load = vec![0u64; blocks];
    for &(i, e) in batch {
        let m = metas[i];
        if needs[i] & 1 != 0 {
            load[m.col as usize] += e.len() as u64;
        }
        if needs[i] & 2 != 0 {
            load[m.row as usize] += e.len() as u64;
        }
    }
    let total: u64 = load.iter().sum();
    let mut order: Vec<u32> = (0..blocks as u32)
        .filter(|&b| load[b as usize] > 0)
        .collect();
    order.sort_unstable_by_key(|&b| (std::cmp::Reverse(load[b as usize]), b));
    let split = if let (Some(min), true) = (share_min, threads > 1) {
        order
            .iter()
            .take(MAX_SHARED)
            .take_while(|&&b| {
                let l = load[b as usize];
                l * 2 * threads as u64 > total && l >= min
            })
            .count()
    } else {
        0
    };
    let mut owner = vec![0u16; blocks];
    let mut tot = vec![0u64; threads];
    for &b in &order[split..] {
        let t = (0..threads).min_by_key(|&t| (tot[t], t)).unwrap_or(0);
        owner[b as usize] = t as u16;
        tot[t] += load[b as usize];
    }
    // Water-fill the split blocks' work over the threads.
    let mut shared = Vec::with_capacity(split);
    for &b in &order[..split] {
        let l = load[b as usize];
        let mut by: Vec<usize> = (0..threads).collect();
        by.sort_unstable_by_key(|&t| tot[t]);
        // The k least-loaded threads share it, k the largest such that the
        // block's work lifts them all to the (k+1)-th thread's load.
        let mut k = 1;
        while k < threads && by[..k].iter().map(|&t| tot[by[k]] - tot[t]).sum::<u64>() <= l {
            k += 1;
        }
        let sum = by[..k].iter().map(|&t| tot[t]).sum::<u64>() + l;
        let (level, rem) = (sum / k as u64, sum % k as u64);
        let mut quota = vec![0u64; threads];
        for (j, &t) in by[..k].iter().enumerate() {
            quota[t] = level + ((j as u64) < rem) as u64 - tot[t];
        }
        let own = (0..threads)
            .max_by_key(|&t| (quota[t], std::cmp::Reverse(t)))
            .unwrap_or(0);
        for t in 0..threads {
            tot[t] += quota[t];
        }
        owner[b as usize] = own as u16;
        shared.push(SharedBlock {
            block: b,
            owner: own as u16,
            quota,
        });
    }
    // Each direction of each batch entry: its block's owner, or for a
    // shared block the next thread with quota left (in batch order).
    let mut left: Vec<Vec<u64>> = shared.iter().map(|s| s.quota.clone()).collect();
    let thread = batch
        .iter()
        .map(|&(i, e)| {
            let m = metas[i];
            let mut pick = |b: u32| -> u16 {
                match shared.iter().position(|s| s.block == b) {
                    None => owner[b as usize],
                    Some(k) => {
                        let q = &mut left[k];
                        let t = (0..threads)
                            .find(|&t| q[t] > 0)
                            .unwrap_or(shared[k].owner as usize);
                        q[t] = q[t].saturating_sub(e.len() as u64);
                        t as u16
                    }
                }
            };
            let f = if needs[i] & 1 != 0 { pick(m.col) } else { 0 };
            let r = if needs[i] & 2 != 0 { pick(m.row) } else { 0 };
            [f, r]
        })
        .collect();
    WorkPlan { thread, shared }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch over `tiles` (row, col, edges), both directions needed.
    fn plan(tiles: &[(u32, u32, usize)], threads: usize, share: bool) -> (WorkPlan, Vec<u64>) {
        let metas: Vec<TileMeta> = tiles
            .iter()
            .map(|&(row, col, e)| TileMeta {
                row,
                col,
                offset: 0,
                bytes: e as u64 * 4,
            })
            .collect();
        let words = vec![0u32; tiles.iter().map(|t| t.2).max().unwrap_or(0)];
        let batch: Vec<(usize, &[u32])> = tiles
            .iter()
            .enumerate()
            .map(|(i, t)| (i, &words[..t.2]))
            .collect();
        let needs = vec![3u8; tiles.len()];
        let p = assign_work(&metas, &needs, &batch, threads, share.then_some(0));
        let mut per_thread = vec![0u64; threads];
        for (b, t) in p.thread.iter().enumerate() {
            per_thread[t[0] as usize] += tiles[b].2 as u64;
            per_thread[t[1] as usize] += tiles[b].2 as u64;
        }
        (p, per_thread)
    }

    #[test]
    fn unshared_blocks_have_one_writer_and_loads_are_levelled() {
        // A hub block 0 with most of the work, pieces of it, light blocks.
        let mut tiles = vec![(0, 0, 100); 40];
        tiles.extend((1..30).map(|c| (0, c, 10)));
        tiles.extend((1..30).map(|c| (c, c, 5)));
        for threads in 1..=4 {
            for share in [false, true] {
                let (p, per) = plan(&tiles, threads, share);
                assert_eq!(
                    per.iter().sum::<u64>(),
                    2 * tiles.iter().map(|t| t.2 as u64).sum::<u64>()
                );
                // Every block not shared is written by one thread.
                let mut writer = std::collections::HashMap::new();
                for (b, t) in p.thread.iter().enumerate() {
                    let (r, c) = (tiles[b].0, tiles[b].1);
                    for (blk, th) in [(c, t[0]), (r, t[1])] {
                        if p.shared.iter().any(|s| s.block == blk) {
                            continue;
                        }
                        assert_eq!(*writer.entry(blk).or_insert(th), th, "block {blk}");
                    }
                }
                if share && threads > 1 {
                    assert_eq!(p.shared.first().map(|s| s.block), Some(0));
                    let (lo, hi) = (per.iter().min().unwrap(), per.iter().max().unwrap());
                    // Levelled to within a piece (100 edges) and a light block.
                    assert!(hi - lo <= 200, "{per:?}");
                    for s in &p.shared {
                        assert!(s.quota[s.owner as usize] == *s.quota.iter().max().unwrap());
                    }
                } else {
                    assert!(p.shared.is_empty());
                }
            }
        }
    }
}
