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
//! split over private copies merged after the batch (see `work.rs`).

#[cfg(target_endian = "big")]
compile_error!("the tile format is little-endian; big-endian hosts are not supported");

use super::pool::CachePool;
use super::program::{Dir, Tile, TileProgram};
use super::state::BLOCK;
use super::stats::{IterStats, RunStats};
use super::tileset::{TileMeta, TileSet, PIECE_BYTES};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Completion, ReadReq, Reader, ALIGN, MAX_DEPTH};
use crate::mem::{peak_rss_bytes, Budget};
use crate::progress::{Progress, Unit};
use crate::size::format_size;
use crate::store::tilecode;
use crate::store::tiles::{chunk_sum, CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use work::Scratch;

mod config;
mod delta;
mod iterate;
mod plan;
mod work;

use config::{decode_bytes, min_segment, DEFAULT_SEGMENTS, MAX_RING, MIN_RING, MIN_SEGMENT, SLACK};
pub use config::{required_bytes, StreamConfig, SHARE_MIN_EDGES};

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
    /// Private copies of shared hub blocks, per thread (see [`work::process`]).
    scratch: Option<Scratch>,
    cfg: StreamConfig,
    threads: usize,
    budget: Budget,
    /// Compressed tiles: each thread's frame decoding scratch, charged.
    coded: Option<crate::mem::budget::Charge>,
    /// Compressed tiles whose decoded words all fit in the cache pool: it
    /// holds them decoded (decoding is then paid once, not per iteration),
    /// each decoded straight into its arena; else it holds them coded, and
    /// more of them.
    pool_plain: bool,
    /// The store's delta: tombstones filtered from base pieces, additions
    /// applied as tiles of their own (see [`delta`]).
    delta: Option<delta::StreamDelta>,
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
        let delta = delta::StreamDelta::load(store, budget, &tiles, piece)?;
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
        // Decoded tiles all fit: cache them so.
        let plain_bytes = store.manifest().tiles.edges * 4;
        // The rest of the budget, but never more than every tile (decoded,
        // when coded): the arena is reserved whole, and a large budget over
        // a small graph must not reserve the budget.
        let all_tiles = tiles
            .file_len
            .max(if coded.is_some() { plain_bytes } else { 0 });
        let pool_bytes = |budget: &Budget| {
            let avail = budget.available().saturating_sub(SLACK).min(all_tiles);
            cfg.cache_bytes.map_or(avail, |c| c.min(avail))
        };
        let pool_plain = coded.is_some() && pool_bytes(budget) >= plain_bytes;
        let pool = CachePool::new(pool_bytes(budget), tiles.tiles.len(), budget)?;
        // Room in flight for every segment's load at once (loads of whole
        // segments; a load of many small ranges has more requests, the rest
        // queue in the reader and go out as completions are taken).
        let per_seg = seg.div_ceil(cfg.request_bytes.max(ALIGN as u64)) as usize;
        let depth = cfg.depth.max(k * per_seg).min(MAX_DEPTH);
        let mut reader = Reader::new(cfg.io, depth)?;
        let file = store.open_in(&mut reader, EDGES_FILE, "tiles")?;
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
            delta,
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
        stats.compute_seconds = stats
            .iterations
            .iter()
            .fold(0.0, |s, i| s + i.compute_seconds);
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
}
