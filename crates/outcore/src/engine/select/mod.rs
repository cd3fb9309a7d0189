//! The select engine (TurboGraph's pin-and-slide over CSR pages; DESIGN.md
//! "select"): only the pages holding the lists of the requested vertices are
//! read. Pages already in the buffer pool are processed at once; the others
//! are read asynchronously (up to the in-flight target) and each is processed
//! as soon as its read completes.
//!
//! A vertex's list is found through `csr/{dir}.off` (read page by page through
//! its own pool, so a point query never loads the whole offset array); lists
//! are page-packed (a list that fits a page lies in one page), so a short list
//! costs exactly one page.

use crate::engine::select::bufpool::{BufferPool, PoolStats};
use crate::error::{Error, Result};
use crate::io::calibrate;
use crate::io::{Backend, Reader};
use crate::mem::Budget;
use crate::store::csr::{files, Slot, SlotWidth};
use crate::store::csrcode::{CodedReads, PageDir};
use crate::store::pagesums::PageSums;
use crate::store::Store;
use std::sync::Arc;

pub mod bufpool;
mod delta;
mod pieces;
pub(crate) mod run;
mod runahead;
pub mod simple;
mod weighted;

/// Select engine settings.
#[derive(Clone, Debug, Default)]
pub struct SelectConfig {
    /// I/O backend (`None`: io_uring when available).
    pub io: Option<Backend>,
    /// Requests in flight (`None`: the store's calibration, else the default).
    pub depth: Option<usize>,
    /// Bytes of buffer pool (`None`: what the budget leaves, less 8 MiB).
    pub pool_bytes: Option<u64>,
    /// Turns run-ahead prefetch off (`select/runahead.rs`; tests and
    /// benchmarks).
    #[doc(hidden)]
    pub no_run_ahead: bool,
    /// Runs a program with a priority in Bellman-Ford rounds (every vertex
    /// in one bucket; [`crate::engine::phases`]; tests).
    #[doc(hidden)]
    pub no_priority: bool,
}

/// What the select engine did.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SelectStats {
    /// Distinct pages requested (adjacency, offsets, weights).
    pub pages_touched: u64,
    pub adjacency: PoolStats,
    pub offsets: PoolStats,
    pub weights: PoolStats,
}

/// Reads adjacency lists of chosen vertices.
pub struct SelectEngine {
    reader: Reader,
    adj_file: usize,
    off_file: usize,
    w_file: Option<usize>,
    adj: BufferPool,
    off: BufferPool,
    wts: Option<BufferPool>,
    page_bytes: u64,
    n: u64,
    /// The base's vertices (those with a list in the CSR files).
    n_base: u64,
    /// The delta's lists of this direction, merged on read (`delta.rs`).
    delta: Option<Arc<delta::Delta>>,
    pages_touched: u64,
    /// The store and its adjacency and offsets files, for errors.
    store_path: std::path::PathBuf,
    rels: [String; 2],
    /// Slots of a coded adjacency (its file's length says nothing of them).
    adj_slots: Option<u64>,
    /// Bytes a slot of the plain adjacency takes.
    width: SlotWidth,
    /// Run-ahead prefetch for frontier loops (`runahead.rs`).
    ahead: runahead::RunAhead,
}

/// Reads in flight of the select engine on `store`: `depth`, else the
/// store's calibration, else the default.
pub(crate) fn read_depth(store: &Store, depth: Option<usize>) -> usize {
    depth
        .or_else(|| calibrate::load(store.root()).map(|c| c.best_depth))
        .unwrap_or(calibrate::DEFAULT_DEPTH)
}

/// Most vertices [`SelectEngine::for_each_list`] reads a list of at once:
/// its tables (range, pages, touches) take about 40 bytes a vertex, outside
/// every charge, so a caller's list of millions (a chunk of random walkers)
/// would overrun the budget by that much; a window of 2^15 holds them near
/// 1.3 MiB, inside the engines' slack, and still queues thousands of pages.
pub const PIECE_WINDOW: usize = 1 << 15;

impl SelectEngine {
    /// Opens direction `which` ("out" or "in") of `store`; with `weights`, the
    /// weights file too. Pools are charged to `budget`.
    pub fn new(
        store: &Store,
        which: &str,
        weights: bool,
        budget: &Budget,
        cfg: &SelectConfig,
    ) -> Result<SelectEngine> {
        let m = store.manifest();
        if weights && !m.weighted {
            return Err(Error::Invalid(format!(
                "{} is not weighted; build it with --weighted",
                store.path().display()
            )));
        }
        let page_bytes = m.csr.page_bytes;
        let depth = read_depth(store, cfg.depth);
        let mut reader = Reader::new(cfg.io, depth)?;
        let (a, o, w) = files(which);
        // A coded adjacency is read through its directory and decoded into
        // the pool's frames ([`crate::store::csrcode`]).
        let dir = PageDir::load(store, which, budget)?.map(Arc::new);
        let a = match dir {
            Some(_) => crate::store::csrcode::files(which).0,
            None => a,
        };
        let adj_file = store.open_in(&mut reader, &a, "adjacency")?;
        let off_file = store.open_in(&mut reader, &o, "offsets")?;
        let w_file = if weights {
            Some(store.open_in(&mut reader, &w, "weights")?)
        } else {
            None
        };
        // Page checksums and the delta's lists first (charged), so the
        // pools share what is left.
        let delta = delta::Delta::load(store, which, budget)?.map(Arc::new);
        let sums = |rel: &str| PageSums::load(store, rel, budget);
        let (adj_sums, off_sums) = (sums(&a)?, sums(&o)?);
        let w_sums = if weights { sums(&w)? } else { None };
        let adj_pages = dir.as_ref().map(|d| d.pages());
        let pages = |f: usize, r: &Reader| match adj_pages {
            Some(p) if f == adj_file => p,
            _ => r.file_len(f).div_ceil(page_bytes),
        };
        // The pools' share of the budget includes their bookkeeping: a
        // 4-byte page-table entry per file page and 31 bytes per frame.
        // A share given covers the checksums too (charged already).
        let coded = match &dir {
            Some(d) => Some(CodedReads::new(d.clone(), depth, budget)?),
            None => None,
        };
        let coded_bytes = match (&dir, &coded) {
            (Some(d), Some(c)) => 8 * (d.pages() + 1) + c.staging(),
            _ => 0,
        };
        let sums_bytes: u64 = [&adj_sums, &off_sums, &w_sums]
            .iter()
            .map(|s| s.as_ref().map_or(0, |s| 8 * s.sums().len() as u64))
            .sum::<u64>()
            + coded_bytes;
        let share = cfg.pool_bytes.map_or_else(
            || budget.available().saturating_sub(8 << 20),
            |b| b.saturating_sub(sums_bytes),
        );
        let file_pages: u64 = [Some(adj_file), Some(off_file), w_file]
            .into_iter()
            .flatten()
            .map(|f| pages(f, &reader))
            .sum();
        let total = share.saturating_sub(4 * file_pages) / (page_bytes + 31) * page_bytes;
        // Offsets: an eighth; weights (8 bytes a slot): a third; the rest
        // adjacency; no pool larger than its file.
        let frames_for = |bytes: u64, f: usize, r: &Reader| {
            (bytes / page_bytes).clamp(4, pages(f, r).max(4)) as usize
        };
        let off_frames = frames_for(total / 8, off_file, &reader);
        let w_frames = match w_file {
            Some(f) => frames_for(total / 3, f, &reader),
            None => 0,
        };
        let adj_frames = frames_for(
            total.saturating_sub((off_frames + w_frames) as u64 * page_bytes),
            adj_file,
            &reader,
        );
        let mut off = BufferPool::new(
            off_frames,
            page_bytes as usize,
            pages(off_file, &reader),
            budget,
        )?;
        off.set_page_sums(off_sums);
        let mut adj = BufferPool::new(
            adj_frames,
            page_bytes as usize,
            pages(adj_file, &reader),
            budget,
        )?;
        adj.set_page_sums(adj_sums);
        if let Some(c) = coded {
            adj.set_coded(c);
        }
        let wts = match w_file {
            Some(f) => {
                let mut p =
                    BufferPool::new(w_frames, page_bytes as usize, pages(f, &reader), budget)?;
                p.set_page_sums(w_sums);
                Some(p)
            }
            None => None,
        };
        Ok(SelectEngine {
            reader,
            adj_file,
            off_file,
            w_file,
            adj,
            off,
            wts,
            page_bytes,
            n: m.num_vertices,
            n_base: store.base().num_vertices,
            delta,
            pages_touched: 0,
            store_path: store.path().to_path_buf(),
            rels: [a, o],
            adj_slots: adj_pages.map(|p| p * m.slot_width().per_page(page_bytes)),
            width: m.slot_width(),
            // Run-ahead needs room for the prefetched pages: priced by the
            // pool's share.
            ahead: runahead::RunAhead::new(
                depth,
                cfg.pool_bytes.unwrap_or(share) / page_bytes,
                cfg.no_run_ahead,
            ),
        })
    }

    /// The I/O reader (statistics, backend).
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// Pool statistics and pages touched so far.
    pub fn stats(&self) -> SelectStats {
        SelectStats {
            pages_touched: self.pages_touched,
            adjacency: self.adj.stats(),
            offsets: self.off.stats(),
            weights: self.wts.as_ref().map(|w| w.stats()).unwrap_or_default(),
        }
    }

    /// The adjacency read is damaged: `why` ([`Error::damaged`]).
    pub fn damaged(&self, why: impl std::fmt::Display) -> Error {
        Error::damaged(&self.store_path, &self.rels[0], why)
    }

    /// Page size of the CSR files.
    pub fn page_bytes(&self) -> u64 {
        self.page_bytes
    }

    /// Slot ranges `[start, end)` of the lists of `vs` (any order), aligned with `vs`.
    pub fn ranges<T: Slot>(&mut self, vs: &[T]) -> Result<Vec<(u64, u64)>> {
        let per_page = self.page_bytes / 8;
        let mut want: Vec<(u64, usize, bool)> = Vec::with_capacity(2 * vs.len());
        for (i, &v) in vs.iter().enumerate() {
            let v = v.get();
            if v >= self.n {
                return Err(Error::Invalid(format!("vertex {v} is out of range")));
            }
            if v >= self.n_base {
                continue; // a new vertex: no base list
            }
            want.push((v, i, false));
            want.push((v + 1, i, true));
        }
        want.sort_unstable();
        let mut pages: Vec<u64> = want.iter().map(|w| w.0 / per_page).collect();
        pages.dedup();
        self.pages_touched += pages.len() as u64;
        let mut out = vec![(0u64, 0u64); vs.len()];
        self.off
            .for_each_page(&mut self.reader, self.off_file, &pages, |page, bytes| {
                let first = page * per_page;
                let lo = want.partition_point(|w| w.0 < first);
                let hi = want.partition_point(|w| w.0 < first + per_page);
                for &(k, i, is_end) in &want[lo..hi] {
                    let at = ((k - first) * 8) as usize;
                    let Some(b) = bytes.get(at..at + 8) else {
                        return Err(Error::Invalid(format!(
                            "offset {k} lies past the end of the offsets file"
                        )));
                    };
                    let x = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                    if is_end {
                        out[i].1 = x;
                    } else {
                        out[i].0 = x;
                    }
                }
                Ok(())
            })?;
        // Lists are read unverified (no checksum per page): a range outside
        // the adjacency file is a corrupted store, never a wrong answer.
        let slots = self
            .adj_slots
            .unwrap_or_else(|| self.reader.file_len(self.adj_file) / self.width.bytes());
        if let Some(&(s, e)) = out.iter().find(|&&(s, e)| s > e || e > slots) {
            let why = format!("an adjacency list spans slots {s}..{e} of {slots}");
            return Err(Error::damaged(&self.store_path, &self.rels[1], why));
        }
        Ok(out)
    }

    /// Calls `f(v, neighbours)` for every vertex of `vs` with a non-empty
    /// list; a list spanning several pages arrives in several calls, each as
    /// soon as its page is available (pin-and-slide). Padding is removed.
    /// Ids come as `T`: u32 (a wide store's ids past 32 bits refused as a
    /// corrupted store) or u64 (either width whole).
    pub fn for_each_list<T: Slot>(
        &mut self,
        vs: &[T],
        mut f: impl FnMut(T, &[T]) -> Result<()>,
    ) -> Result<()> {
        self.pieces(vs, |v, _slot, _start, nbrs| f(v, nbrs))
    }

    /// Like [`for_each_list`](Self::for_each_list), with the position in
    /// the vertex's list of each piece's first neighbour.
    pub fn for_each_piece<T: Slot>(
        &mut self,
        vs: &[T],
        mut f: impl FnMut(T, u64, &[T]) -> Result<()>,
    ) -> Result<()> {
        self.pieces(vs, |v, slot, start, nbrs| f(v, slot - start, nbrs))
    }
}
