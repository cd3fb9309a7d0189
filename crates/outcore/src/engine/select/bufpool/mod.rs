//! A buffer pool of page frames charged to the budget: TurboGraph's buffer
//! manager (§3.2) for the select engine.
//!
//! - Frames of `page_bytes` (a power of two, at least [`ALIGN`]) live in one
//!   [`AlignedBuf`] arena, so every frame is a valid target of a direct read.
//! - The page table is an array indexed by page number (TurboGraph: "we use
//!   the traditional page table approach ... which uses an array instead of a
//!   hash table"): one `u32` frame number per page of the file, `u32::MAX` for
//!   an absent page. It is charged to the budget with the frame metadata.
//! - Replacement is CLOCK (one reference bit per frame, set on every pin) over
//!   the unpinned frames. A pinned frame is never evicted, and a frame being
//!   loaded is always pinned, so it is never evicted either.
//! - [`BufferPool::for_each_page`] is the pin-and-slide loop (TurboGraph §4.1)
//!   on one thread: pin the resident pages, read the others asynchronously
//!   into free frames with up to `reader.depth()` reads in flight, process
//!   each page as soon as it is available and unpin it, which frees its frame
//!   for the next read.
//!
//! The pool is single-threaded (`&mut self` for everything that changes it);
//! `&BufferPool` may be shared to read pinned frames ([`BufferPool::frame`])
//! from several threads.
//!
//! Pages are independent: an adjacency list longer than a page spans
//! consecutive pages, and assembling it is the caller's business.

use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Completion, ReadReq, Reader, ALIGN};
use crate::mem::budget::{Budget, Charge};
use crate::store::csrcode::CodedReads;
use crate::store::pagesums::{self, PageSums};
use std::path::Path;

mod slide;

/// Page-table entry of an absent page.
const ABSENT: u32 = u32::MAX;
/// `frame_page` entry of an empty frame.
const NO_PAGE: u64 = u64::MAX;

/// What a [`BufferPool`] has done since it was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PoolStats {
    /// Pins of resident pages ([`BufferPool::pin_if_resident`] returning a frame).
    pub hits: u64,
    /// Frames reserved for absent pages ([`BufferPool::reserve`] returning a frame).
    pub misses: u64,
    /// Resident pages dropped to make room for another.
    pub evictions: u64,
    /// Loads finished ([`BufferPool::loaded`], successful or not): the page
    /// reads done for the pool.
    pub reads: u64,
}

/// Page frames in one aligned arena, a page table, pin counts and CLOCK.
pub struct BufferPool {
    /// Owns the frames; only accessed through `base` after construction.
    _arena: AlignedBuf,
    /// Start of the arena: frame `i` is `page_bytes` bytes at `base + i * page_bytes`.
    base: *mut u8,
    page_bytes: usize,
    frames: usize,
    /// Frame of each page of the file, [`ABSENT`] if none.
    table: Vec<u32>,
    /// Page held by each frame, [`NO_PAGE`] if empty.
    frame_page: Vec<u64>,
    pins: Vec<u32>,
    referenced: Vec<bool>,
    loading: Vec<bool>,
    /// Frames of reads `for_each_page` has in flight.
    in_flight: Vec<bool>,
    /// (page, frame) of the pages `for_each_page` found resident.
    hits_scratch: Vec<(u64, u32)>,
    /// The pages of one completed coded read: (page, frame, decoded).
    group_scratch: Vec<(u64, u32, bool)>,
    /// The CLOCK hand.
    hand: usize,
    /// Frames with a pin count above zero.
    pinned: usize,
    stats: PoolStats,
    /// Length of the file of the `for_each_page` call in progress.
    file_len: u64,
    /// Checksums every page read is checked against before it is used.
    sums: Option<std::sync::Arc<PageSums>>,
    /// A coded adjacency: pages are read through staging buffers and
    /// decoded into the frames ([`CodedReads`]).
    coded: Option<CodedReads>,
    budget: Budget,
    _charge: Charge,
}

// SAFETY: the pool owns its arena exclusively (like a Box<[u8]>); `base` only
// points into it. Reads in flight write into frames that are pinned and marked
// loading, which no safe method exposes until `loaded` is called (`frame`
// refuses loading frames).
unsafe impl Send for BufferPool {}
// SAFETY: `&BufferPool` only hands out `&[u8]` of frames that are not loading;
// every change needs `&mut BufferPool`.
unsafe impl Sync for BufferPool {}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("frames", &self.frames)
            .field("page_bytes", &self.page_bytes)
            .field("file_pages", &self.table.len())
            .field("pinned", &self.pinned)
            .field("stats", &self.stats)
            .finish()
    }
}

impl BufferPool {
    /// A pool of `frames` frames of `page_bytes` (a power of two >= 4096) for
    /// a file of `file_pages` pages. Charges the arena (`frames * page_bytes`)
    /// and the page table plus frame metadata (`4 * file_pages + 30 * frames`
    /// bytes) to `budget` until the pool is dropped.
    pub fn new(
        frames: usize,
        page_bytes: usize,
        file_pages: u64,
        budget: &Budget,
    ) -> Result<BufferPool> {
        if !page_bytes.is_power_of_two() || page_bytes < ALIGN {
            return Err(Error::Invalid(format!(
                "buffer pool: the page size must be a power of two of at least {ALIGN} bytes, not {page_bytes}"
            )));
        }
        if frames == 0 || frames >= ABSENT as usize {
            return Err(Error::Invalid(format!(
                "buffer pool: the number of frames must be between 1 and {}, not {frames}",
                ABSENT - 1
            )));
        }
        let arena_bytes = frames.checked_mul(page_bytes).ok_or_else(|| {
            Error::Invalid(format!(
                "buffer pool: {frames} frames of {page_bytes} bytes do not fit in memory"
            ))
        })?;
        let table_len = usize::try_from(file_pages)
            .ok()
            .filter(|&n| n <= usize::MAX / 8)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "buffer pool: a page table for {file_pages} pages does not fit in memory"
                ))
            })?;
        let meta_bytes = (table_len as u64) * 4 + (frames as u64) * (8 + 4 + 1 + 1 + 1 + 16);
        let charge = budget.charge(meta_bytes, "buffer pool page table")?;
        let mut arena = AlignedBuf::new(arena_bytes, budget, "buffer pool frames")?;
        let base = arena.as_mut_ptr();
        Ok(BufferPool {
            _arena: arena,
            base,
            page_bytes,
            frames,
            table: filled(table_len, ABSENT)?,
            frame_page: filled(frames, NO_PAGE)?,
            pins: filled(frames, 0)?,
            referenced: filled(frames, false)?,
            loading: filled(frames, false)?,
            in_flight: filled(frames, false)?,
            hits_scratch: Vec::with_capacity(frames),
            group_scratch: Vec::new(),
            hand: 0,
            pinned: 0,
            stats: PoolStats::default(),
            file_len: 0,
            sums: None,
            coded: None,
            budget: budget.clone(),
            _charge: charge,
        })
    }

    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Bytes per frame (and per page).
    pub fn page_bytes(&self) -> usize {
        self.page_bytes
    }

    /// Pages of the file (the length of the page table).
    pub fn file_pages(&self) -> u64 {
        self.table.len() as u64
    }

    fn index(&self, page: u64) -> usize {
        assert!(
            page < self.table.len() as u64,
            "buffer pool: page {page} is beyond the {} pages of the file",
            self.table.len()
        );
        page as usize
    }

    fn check_frame(&self, frame: u32) -> usize {
        assert!(
            (frame as usize) < self.frames,
            "buffer pool: frame {frame} does not exist (the pool has {})",
            self.frames
        );
        frame as usize
    }

    fn pin(&mut self, fr: usize) {
        if self.pins[fr] == 0 {
            self.pinned += 1;
        }
        self.pins[fr] += 1;
        self.referenced[fr] = true;
    }

    /// Pins `page` if resident (hit): Some(frame). A page whose read is still
    /// in flight is not resident: None, nothing pinned, nothing counted (see
    /// [`BufferPool::lookup`]). Panics if `page` >= the file's pages.
    pub fn pin_if_resident(&mut self, page: u64) -> Option<u32> {
        let fr = self.table[self.index(page)];
        if fr == ABSENT || self.loading[fr as usize] {
            return None;
        }
        self.pin(fr as usize);
        self.stats.hits += 1;
        Some(fr)
    }

    /// The frame holding `page`, loaded or loading, without pinning it.
    pub fn lookup(&self, page: u64) -> Option<u32> {
        let fr = *self.table.get(usize::try_from(page).ok()?)?;
        (fr != ABSENT).then_some(fr)
    }

    /// Whether `frame` was reserved and its read is not [`BufferPool::loaded`] yet.
    pub fn is_loading(&self, frame: u32) -> bool {
        self.loading[self.check_frame(frame)]
    }

    /// Reserves a frame for `page` (miss) using CLOCK over unpinned frames,
    /// evicting its old page; the frame comes back pinned (count 1) and marked
    /// loading: read the page into [`BufferPool::frame_ptr`], then call
    /// [`BufferPool::loaded`]. None if every frame is pinned.
    ///
    /// Panics if `page` is already in the table (resident or loading: call
    /// [`BufferPool::pin_if_resident`] first) or beyond the file.
    pub fn reserve(&mut self, page: u64) -> Option<u32> {
        let idx = self.index(page);
        assert!(
            self.table[idx] == ABSENT,
            "buffer pool: reserve({page}) but the page is already in frame {}",
            self.table[idx]
        );
        if self.pinned == self.frames {
            return None;
        }
        // At least one frame is unpinned (loading frames are pinned), so two
        // sweeps find a victim: the first clears its reference bit at worst.
        let n = self.frames;
        let mut victim = None;
        for _ in 0..2 * n {
            let fr = self.hand;
            self.hand = if fr + 1 == n { 0 } else { fr + 1 };
            if self.pins[fr] > 0 || self.loading[fr] {
                continue;
            }
            if self.referenced[fr] {
                self.referenced[fr] = false;
                continue;
            }
            victim = Some(fr);
            break;
        }
        let fr = victim.expect("an unpinned frame exists");
        let old = self.frame_page[fr];
        if old != NO_PAGE {
            self.table[old as usize] = ABSENT;
            self.stats.evictions += 1;
        }
        self.table[idx] = fr as u32;
        self.frame_page[fr] = page;
        self.loading[fr] = true;
        self.pin(fr);
        self.stats.misses += 1;
        Some(fr as u32)
    }

    /// Marks a reserved frame's read complete (`ok`), or failed: then the page
    /// is dropped from the table and the frame is empty. The frame stays
    /// pinned either way: [`BufferPool::unpin`] it. Panics if the frame is not
    /// loading.
    pub fn loaded(&mut self, frame: u32, ok: bool) {
        let fr = self.check_frame(frame);
        assert!(
            self.loading[fr],
            "buffer pool: loaded({frame}) but the frame is not loading"
        );
        self.loading[fr] = false;
        self.stats.reads += 1;
        if !ok {
            let page = self.frame_page[fr];
            self.table[page as usize] = ABSENT;
            self.frame_page[fr] = NO_PAGE;
            self.referenced[fr] = false;
        }
    }

    /// Drops one pin of `frame`. Panics if it is not pinned, or still loading
    /// (call [`BufferPool::loaded`] first: a frame being read into must not
    /// become evictable).
    pub fn unpin(&mut self, frame: u32) {
        let fr = self.check_frame(frame);
        assert!(
            self.pins[fr] > 0,
            "buffer pool: unpin({frame}) but the frame is not pinned"
        );
        assert!(
            !self.loading[fr],
            "buffer pool: unpin({frame}) while its read is in flight"
        );
        self.pins[fr] -= 1;
        if self.pins[fr] == 0 {
            self.pinned -= 1;
        }
    }

    /// The start of `frame` (`page_bytes` writable bytes, [`ALIGN`]-aligned),
    /// for [`ReadReq::buf`]. Write through it only while the frame is
    /// reserved and loading.
    pub fn frame_ptr(&mut self, frame: u32) -> *mut u8 {
        let fr = self.check_frame(frame);
        // SAFETY: fr < frames, so the offset stays inside the arena.
        unsafe { self.base.add(fr * self.page_bytes) }
    }

    /// The bytes of `frame`. Panics if the frame is loading (its bytes may be
    /// being written).
    pub fn frame(&self, frame: u32) -> &[u8] {
        let fr = self.check_frame(frame);
        assert!(
            !self.loading[fr],
            "buffer pool: frame({frame}) while its read is in flight"
        );
        // SAFETY: the frame lies inside the arena, which lives as long as
        // self; it is not loading, so nothing writes to it while `&self` is
        // borrowed (every write path needs `&mut self`).
        unsafe { std::slice::from_raw_parts(self.base.add(fr * self.page_bytes), self.page_bytes) }
    }

    /// The page held by `frame` (also while it is loading).
    pub fn page_of(&self, frame: u32) -> Option<u64> {
        let p = self.frame_page[self.check_frame(frame)];
        (p != NO_PAGE).then_some(p)
    }

    /// Frames with at least one pin.
    pub fn pinned(&self) -> usize {
        self.pinned
    }

    /// Counters so far.
    pub fn stats(&self) -> PoolStats {
        self.stats
    }

    /// Checks every page read from now on against `sums` (the pool's file's
    /// page checksums): a page that fails is not cached and its read fails.
    pub fn set_page_sums(&mut self, sums: Option<std::sync::Arc<PageSums>>) {
        self.sums = sums;
    }

    /// Makes the pool's file a coded adjacency read through `coded` (one
    /// staging buffer per read in flight; the reader's depth must not
    /// exceed them). The page sums are then the coded file's.
    pub fn set_coded(&mut self, coded: CodedReads) {
        self.coded = Some(coded);
    }
}

/// A vector of `n` copies of `v`, failing (instead of aborting) when memory is short.
fn filled<T: Clone>(n: usize, v: T) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::Budget(format!(
            "buffer pool: the system refused to allocate {n} table entries"
        ))
    })?;
    out.resize(n, v);
    Ok(out)
}

#[cfg(test)]
mod tests;
