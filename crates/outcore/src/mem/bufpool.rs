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

    /// Makes `pages` resident and pinned, reading misses through `reader`
    /// (file index `file`, which holds pages of `page_bytes` from offset 0)
    /// asynchronously with up to `reader.depth()` reads in flight, and calls
    /// `f(page, bytes)` for each page as soon as it is available; each page is
    /// unpinned after `f` returns.
    ///
    /// - Duplicates are removed: `f` sees each distinct page exactly once.
    /// - Order: the resident pages are pinned first (so that reads cannot
    ///   evict them), the first reads are submitted, then resident pages are
    ///   processed one by one, with any completed reads processed between
    ///   them; then the missing pages as their reads complete (submitted in
    ///   increasing page order, completing in any order).
    /// - Never pins more frames than the pool has: with every frame pinned it
    ///   waits for a completion, processes it, unpins, and continues, so any
    ///   number of pages goes through a pool of one frame.
    /// - Errors: a page beyond the pool's `file_pages` or the file's end, a
    ///   read error (with the path), a short read, or an error from `f`. After
    ///   the first error `f` is not called again, the reads in flight are
    ///   waited for, and every frame this call pinned is unpinned (pages read
    ///   successfully stay cached) before the error is returned.
    /// - `reader` must have nothing pending; the pool must not hold any of
    ///   `pages` in a loading frame of the caller's.
    ///
    /// Charges a copy of `pages` (8 bytes a page) to the budget for the call.
    pub fn for_each_page(
        &mut self,
        reader: &mut Reader,
        file: usize,
        pages: &[u64],
        mut f: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        if file >= reader.files() {
            return Err(Error::Invalid(format!(
                "buffer pool: file {file} is not open in the reader ({} are)",
                reader.files()
            )));
        }
        if reader.pending() != 0 {
            return Err(Error::Invalid(format!(
                "buffer pool: the reader has {} reads pending; for_each_page needs it idle",
                reader.pending()
            )));
        }
        if pages.is_empty() {
            return Ok(());
        }
        let path = reader.path(file).to_path_buf();
        let pb = self.page_bytes as u64;
        let file_len = reader.file_len(file);
        let max = pages.iter().copied().max().unwrap_or(0);
        if max >= self.file_pages() {
            return Err(Error::Invalid(format!(
                "{}: page {max} is beyond the {} pages of the buffer pool's page table",
                path.display(),
                self.file_pages()
            )));
        }
        // The last page may be short (a file that is not a whole number of
        // pages): it is read as far as the file goes and the rest is zeros.
        // A coded file's pages are its directory's.
        self.file_len = file_len;
        if let Some(c) = &self.coded {
            if max >= c.pages() {
                return Err(Error::Invalid(format!(
                    "{}: page {max} is beyond the {} coded pages",
                    path.display(),
                    c.pages()
                )));
            }
        } else if max.saturating_mul(pb) >= file_len {
            return Err(Error::Invalid(format!(
                "{}: page {max} ({pb} bytes at offset {}) is beyond the end of the file ({file_len} bytes)",
                path.display(),
                max * pb
            )));
        }

        // The distinct pages, in increasing order.
        let _list_charge = self
            .budget
            .charge(pages.len() as u64 * 8, "buffer pool page list")?;
        let mut list: Vec<u64> = Vec::new();
        list.try_reserve_exact(pages.len()).map_err(|_| {
            Error::Budget(format!(
                "buffer pool: cannot allocate a list of {} pages",
                pages.len()
            ))
        })?;
        list.extend_from_slice(pages);
        if !pages.windows(2).all(|w| w[0] < w[1]) {
            list.sort_unstable();
            list.dedup();
        }

        // Pin the resident pages; keep the missing ones in `list`.
        let mut hits = std::mem::take(&mut self.hits_scratch);
        hits.clear();
        let mut kept = 0;
        let mut err: Option<Error> = None;
        for i in 0..list.len() {
            let p = list[i];
            if let Some(fr) = self.pin_if_resident(p) {
                hits.push((p, fr));
            } else if self.table[p as usize] != ABSENT {
                err = Some(Error::Invalid(format!(
                    "{}: page {p} is being loaded by another user of the buffer pool",
                    path.display()
                )));
                break;
            } else {
                list[kept] = p;
                kept += 1;
            }
        }
        list.truncate(kept);
        if err.is_some() {
            list.clear();
        }

        let depth = reader.depth().min(self.frames);
        let guard = DrainOnUnwind(reader);
        let reader = &mut *guard.0;
        let mut reqs: Vec<ReadReq> = Vec::with_capacity(depth);
        let mut done: Vec<Completion> = Vec::with_capacity(depth);
        let mut next = 0; // next page of `list` to read
        let mut in_flight = 0;
        let mut h = 0; // next hit to process
        let mut reader_failed = false;
        loop {
            // Slide: read missing pages into free frames.
            if err.is_none() && next < list.len() && in_flight < depth {
                reqs.clear();
                while next < list.len() && in_flight + reqs.len() < depth {
                    let page = list[next];
                    let Some(fr) = self.reserve(page) else {
                        break;
                    };
                    self.in_flight[fr as usize] = true;
                    let req = match self.coded.take() {
                        Some(mut c) => {
                            let slot = c
                                .start(page, fr)
                                .expect("a staging buffer per read in flight");
                            // The wanted pages that follow share the read
                            // while their coded bytes fit its buffer.
                            while next + 1 < list.len() && c.can_extend(slot, list[next + 1]) {
                                let Some(f2) = self.reserve(list[next + 1]) else {
                                    break;
                                };
                                self.in_flight[f2 as usize] = true;
                                c.extend(slot, list[next + 1], f2);
                                next += 1;
                            }
                            let (offset, len, buf) = c.request(slot);
                            self.coded = Some(c);
                            ReadReq {
                                file,
                                offset,
                                len,
                                buf,
                                tag: slot as u64,
                            }
                        }
                        None => ReadReq {
                            file,
                            offset: page * pb,
                            len: self.page_bytes,
                            buf: self.frame_ptr(fr),
                            tag: fr as u64,
                        },
                    };
                    reqs.push(req);
                    next += 1;
                }
                if !reqs.is_empty() {
                    in_flight += reqs.len();
                    // SAFETY: each buffer is a reserved frame: pinned and
                    // loading, so it is neither evicted nor exposed until
                    // `loaded`, which is called only on its completion. The
                    // arena outlives the reads: this function waits for every
                    // one before returning, and `guard` waits on unwinding.
                    if let Err(e) = unsafe { reader.submit(&reqs) } {
                        err = Some(e);
                    }
                }
            }
            // Process one resident page, then whatever reads completed.
            if h < hits.len() {
                let (page, fr) = hits[h];
                h += 1;
                if err.is_none() {
                    if let Err(e) = f(page, self.frame(fr)) {
                        err = Some(e);
                    }
                }
                self.unpin(fr);
                if in_flight > 0 {
                    done.clear();
                    if let Err(e) = reader.wait(0, &mut done) {
                        err.get_or_insert(e);
                        reader_failed = true;
                        break;
                    }
                    self.complete(&mut done, &path, &mut in_flight, &mut f, &mut err);
                }
                continue;
            }
            if in_flight == 0 {
                if err.is_none() && next < list.len() {
                    err = Some(Error::Invalid(format!(
                        "{}: every one of the {} buffer pool frames is pinned by the caller; \
                         nothing can be read",
                        path.display(),
                        self.frames
                    )));
                }
                break;
            }
            done.clear();
            if let Err(e) = reader.wait(1, &mut done) {
                err.get_or_insert(e);
                reader_failed = true;
                break;
            }
            self.complete(&mut done, &path, &mut in_flight, &mut f, &mut err);
        }
        if reader_failed {
            // The backend failed: reads may still be in flight into their
            // frames, which therefore stay pinned and loading (never reused).
            for &(_, fr) in &hits[h..] {
                self.unpin(fr);
            }
            for x in self.in_flight.iter_mut() {
                *x = false;
            }
        }
        drop(guard);
        self.hits_scratch = hits;
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
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

    /// Handles completions of `for_each_page`'s reads.
    fn complete(
        &mut self,
        done: &mut Vec<Completion>,
        path: &Path,
        in_flight: &mut usize,
        f: &mut impl FnMut(u64, &[u8]) -> Result<()>,
        err: &mut Option<Error>,
    ) {
        for c in done.drain(..) {
            *in_flight -= 1;
            if let Some(mut coded) = self.coded.take() {
                let mut pages = std::mem::take(&mut self.group_scratch);
                let (base, pb) = (self.base, self.page_bytes);
                // SAFETY: each frame of the read is one this pool reserved
                // (inside the arena), pinned and loading, its read (into
                // the staging buffer) complete.
                let frame_of = move |fr: u32| unsafe { base.add(fr as usize * pb) };
                let res = coded.finish(
                    c.tag as usize,
                    c.result,
                    &self.sums,
                    frame_of,
                    |p, fr, ok| pages.push((p, fr, ok)),
                );
                self.coded = Some(coded);
                if let Err(e) = res {
                    err.get_or_insert(e);
                }
                for &(page, fr, ok) in &pages {
                    debug_assert!(self.in_flight[fr as usize]);
                    self.in_flight[fr as usize] = false;
                    self.loaded(fr, ok);
                    if ok && err.is_none() {
                        if let Err(e) = f(page, self.frame(fr)) {
                            *err = Some(e);
                        }
                    }
                    self.unpin(fr);
                }
                pages.clear();
                self.group_scratch = pages;
                continue;
            }
            let fr = c.tag as u32;
            debug_assert!(self.in_flight[fr as usize]);
            self.in_flight[fr as usize] = false;
            let page = self.frame_page[fr as usize];
            match c.result {
                Ok(n)
                    if n == self.page_bytes
                        || n as u64
                            == self.file_len.saturating_sub(page * self.page_bytes as u64) =>
                {
                    if n < self.page_bytes {
                        let pb = self.page_bytes;
                        // SAFETY: the frame is this pool's, pinned, its read complete.
                        unsafe { std::ptr::write_bytes(self.frame_ptr(fr).add(n), 0, pb - n) };
                    }
                    let at = page * self.page_bytes as u64;
                    // SAFETY: as above; the bytes are only read here.
                    let bytes = unsafe { std::slice::from_raw_parts(self.frame_ptr(fr), n) };
                    if let Err(e) = pagesums::check(&self.sums, at, bytes) {
                        self.loaded(fr, false);
                        err.get_or_insert(e);
                        self.unpin(fr);
                        continue;
                    }
                    self.loaded(fr, true);
                    if err.is_none() {
                        if let Err(e) = f(page, self.frame(fr)) {
                            *err = Some(e);
                        }
                    }
                }
                Ok(n) => {
                    self.loaded(fr, false);
                    err.get_or_insert_with(|| {
                        Error::io(
                            path,
                            std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                format!(
                                    "short read of page {page}: {n} of {} bytes at offset {}",
                                    self.page_bytes,
                                    page * self.page_bytes as u64
                                ),
                            ),
                        )
                    });
                }
                Err(e) => {
                    self.loaded(fr, false);
                    err.get_or_insert_with(|| Error::io(path, e));
                }
            }
            self.unpin(fr);
        }
    }
}

/// Waits for every read of the reader if `for_each_page` unwinds (a panic in
/// the callback), so that no read writes into the arena after it is freed.
struct DrainOnUnwind<'a>(&'a mut Reader);

impl Drop for DrainOnUnwind<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let mut sink = Vec::new();
        while self.0.pending() > 0 {
            sink.clear();
            if self.0.wait(self.0.pending(), &mut sink).is_err() {
                // Reads may still be writing into frames about to be freed.
                std::process::abort();
            }
        }
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
mod tests {
    use super::*;
    use crate::io::Backend;
    use std::collections::HashMap;
    use std::io::Write;
    use std::path::PathBuf;

    /// A directory under the target dir (a disk filesystem).
    fn disk_dir() -> tempfile::TempDir {
        let exe = std::env::current_exe().unwrap();
        let base = exe.parent().unwrap(); // target/<profile>/deps
        tempfile::Builder::new()
            .prefix("outcore-bufpool-test")
            .tempdir_in(base)
            .unwrap()
    }

    fn byte_at(i: u64) -> u8 {
        (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8 ^ (i as u8)
    }

    fn make_file(dir: &Path, len: u64) -> (PathBuf, Vec<u8>) {
        let path = dir.join("pages.bin");
        let data: Vec<u8> = (0..len).map(byte_at).collect();
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&data).unwrap();
        f.sync_all().unwrap();
        (path, data)
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    /// Reserve, "read", mark loaded and unpin: a full miss.
    fn load(p: &mut BufferPool, page: u64) -> u32 {
        let fr = p.reserve(page).expect("a free frame");
        assert!(p.is_loading(fr));
        assert_eq!(p.page_of(fr), Some(page));
        // SAFETY: the frame is reserved; page_bytes bytes are writable.
        unsafe { *p.frame_ptr(fr) = page as u8 };
        p.loaded(fr, true);
        p.unpin(fr);
        fr
    }

    fn touch(p: &mut BufferPool, page: u64) -> bool {
        match p.pin_if_resident(page) {
            Some(fr) => {
                assert_eq!(p.frame(fr)[0], page as u8);
                p.unpin(fr);
                true
            }
            None => {
                load(p, page);
                false
            }
        }
    }

    #[test]
    fn scripted_counts_and_clock() {
        let b = Budget::new(1 << 30);
        let mut p = BufferPool::new(3, 4096, 100, &b).unwrap();
        // Cold: three misses fill the three frames.
        for page in [0, 1, 2] {
            assert!(!touch(&mut p, page));
        }
        assert_eq!(
            p.stats(),
            PoolStats {
                hits: 0,
                misses: 3,
                evictions: 0,
                reads: 3
            }
        );
        // Hits.
        assert!(touch(&mut p, 1));
        assert!(touch(&mut p, 2));
        // Every frame is referenced: the hand clears all bits and takes frame 0 (page 0).
        assert!(!touch(&mut p, 3));
        assert_eq!(p.lookup(0), None);
        assert_eq!(p.lookup(3), Some(0));
        // Page 2 is referenced again; page 1 is not: page 1 goes next.
        assert!(touch(&mut p, 2));
        assert!(!touch(&mut p, 4));
        assert_eq!(p.lookup(1), None);
        assert!(p.lookup(2).is_some() && p.lookup(3).is_some() && p.lookup(4).is_some());
        assert!(touch(&mut p, 3));
        assert!(touch(&mut p, 4));
        assert_eq!(
            p.stats(),
            PoolStats {
                hits: 5,
                misses: 5,
                evictions: 2,
                reads: 5
            }
        );
        // A failed load drops the page and leaves the frame empty.
        let fr = p.reserve(7).unwrap();
        p.loaded(fr, false);
        p.unpin(fr);
        assert_eq!(p.lookup(7), None);
        assert_eq!(p.page_of(fr), None);
        assert_eq!(p.pin_if_resident(7), None);
        assert_eq!(p.stats().reads, 6);
        assert_eq!(p.pinned(), 0);
    }

    #[test]
    fn clock_never_evicts_pinned_or_loading_frames() {
        let b = Budget::new(1 << 30);
        let mut p = BufferPool::new(4, 4096, 1000, &b).unwrap();
        load(&mut p, 10);
        load(&mut p, 11);
        let a = p.pin_if_resident(10).unwrap();
        let c = p.pin_if_resident(10).unwrap(); // two pins of one frame
        assert_eq!(a, c);
        let l = p.reserve(12).unwrap(); // loading, never marked loaded here
        assert_eq!(p.pinned(), 2);
        for page in 100..400 {
            let fr = load(&mut p, page);
            assert_ne!(fr, a);
            assert_ne!(fr, l);
            assert_eq!(p.lookup(10), Some(a));
            assert_eq!(p.lookup(12), Some(l));
            assert!(p.is_loading(l));
        }
        p.unpin(a);
        assert_eq!(p.pinned(), 2, "one pin of page 10 is left");
        p.unpin(a);
        assert_eq!(p.pinned(), 1);
        // Page 10 may go now.
        for page in 400..410 {
            load(&mut p, page);
        }
        assert_eq!(p.lookup(10), None);
        assert_eq!(p.lookup(12), Some(l));
        p.loaded(l, true);
        p.unpin(l);
        assert_eq!(p.pinned(), 0);
    }

    #[test]
    fn reserve_returns_none_when_all_are_pinned() {
        let b = Budget::new(1 << 30);
        let mut p = BufferPool::new(3, 8192, 10, &b).unwrap();
        let f0 = p.reserve(0).unwrap();
        let f1 = p.reserve(1).unwrap();
        p.loaded(f1, true); // loaded but still pinned
        let f2 = p.reserve(2).unwrap();
        assert_eq!(p.pinned(), 3);
        assert_eq!(p.reserve(3), None);
        assert_eq!(p.stats().misses, 3);
        p.unpin(f1);
        let f3 = p.reserve(3).unwrap();
        assert_eq!(f3, f1, "the only unpinned frame");
        assert_eq!(p.lookup(1), None);
        assert_eq!(p.reserve(4), None);
        for f in [f0, f2, f3] {
            p.loaded(f, true);
            p.unpin(f);
        }
        assert_eq!(p.pinned(), 0);
    }

    #[test]
    #[should_panic(expected = "while its read is in flight")]
    fn unpin_of_a_loading_frame_panics() {
        let b = Budget::new(1 << 30);
        let mut p = BufferPool::new(2, 4096, 10, &b).unwrap();
        let f = p.reserve(0).unwrap();
        p.unpin(f);
    }

    #[test]
    fn new_checks_and_budget() {
        let b = Budget::new(1 << 30);
        assert!(BufferPool::new(4, 4096 + 512, 10, &b).is_err());
        assert!(BufferPool::new(4, 2048, 10, &b).is_err());
        assert!(BufferPool::new(0, 4096, 10, &b).is_err());
        {
            let p = BufferPool::new(16, 8192, 1_000_000, &b).unwrap();
            assert_eq!(p.table.len(), 1_000_000);
            assert_eq!(p.file_pages(), 1_000_000);
            assert_eq!(p.frames(), 16);
            assert_eq!(p.page_bytes(), 8192);
            assert!(b.used() >= 16 * 8192 + 4_000_000, "{}", b.used());
            assert!(b.used() <= 16 * 8192 + 4_000_000 + 16 * 64);
        }
        assert_eq!(b.used(), 0);
        // The page table alone does not fit.
        let small = Budget::new(1 << 20);
        let err = BufferPool::new(1, 4096, 1 << 20, &small)
            .unwrap_err()
            .to_string();
        assert!(err.contains("page table"), "{err}");
        let err = BufferPool::new(512, 4096, 10, &small)
            .unwrap_err()
            .to_string();
        assert!(err.contains("frames"), "{err}");
        assert_eq!(small.used(), 0);
    }

    /// for_each_page of `pages` sees each distinct page once with the file's bytes.
    fn check_pass(
        pool: &mut BufferPool,
        reader: &mut Reader,
        fi: usize,
        pages: &[u64],
        data: &[u8],
    ) {
        let pb = pool.page_bytes();
        let mut seen: HashMap<u64, u32> = HashMap::new();
        pool.for_each_page(reader, fi, pages, |page, bytes| {
            assert_eq!(bytes.len(), pb);
            let at = page as usize * pb;
            assert!(bytes == &data[at..at + pb], "page {page} differs");
            *seen.entry(page).or_default() += 1;
            Ok(())
        })
        .unwrap();
        let mut want: Vec<u64> = pages.to_vec();
        want.sort_unstable();
        want.dedup();
        assert_eq!(seen.len(), want.len());
        assert!(seen.values().all(|&n| n == 1));
        assert!(want.iter().all(|p| seen.contains_key(p)));
        assert_eq!(pool.pinned(), 0);
        assert!(pool.in_flight.iter().all(|&x| !x));
        assert_eq!(reader.pending(), 0);
    }

    #[test]
    fn for_each_page_reads_the_file() {
        let dir = disk_dir();
        let pb = 4096usize;
        let file_pages = 300u64;
        let (path, data) = make_file(dir.path(), file_pages * pb as u64);
        let mut rng = Rng(7);
        for backend in [Backend::Uring, Backend::Sync] {
            for frames in [1usize, 3, 1000] {
                for depth in [1usize, 8, 64] {
                    let b = Budget::new(1 << 30);
                    let mut pool = BufferPool::new(frames, pb, file_pages, &b).unwrap();
                    let mut reader = Reader::new(Some(backend), depth).unwrap();
                    let fi = reader.open(&path).unwrap();
                    // Random order with duplicates, more pages than frames.
                    let pages: Vec<u64> = (0..1000).map(|_| rng.below(file_pages)).collect();
                    check_pass(&mut pool, &mut reader, fi, &pages, &data);
                    let distinct = {
                        let mut v = pages.clone();
                        v.sort_unstable();
                        v.dedup();
                        v.len() as u64
                    };
                    let s = pool.stats();
                    assert_eq!(s.misses, distinct);
                    assert_eq!(s.reads, distinct);
                    assert_eq!(s.hits, 0);
                    // Again, with part of it resident; then sorted input.
                    check_pass(&mut pool, &mut reader, fi, &pages, &data);
                    let s2 = pool.stats();
                    assert_eq!(s2.hits + s2.misses, 2 * distinct);
                    if frames >= file_pages as usize {
                        assert_eq!(s2.hits, distinct, "everything was resident");
                        assert_eq!(s2.evictions, 0);
                    } else {
                        assert!(s2.evictions > 0);
                    }
                    let sorted: Vec<u64> = (0..file_pages).step_by(3).collect();
                    check_pass(&mut pool, &mut reader, fi, &sorted, &data);
                    check_pass(&mut pool, &mut reader, fi, &[], &data);
                    check_pass(&mut pool, &mut reader, fi, &[5, 5, 5], &data);
                    assert!(b.used() > 0);
                    drop(pool);
                    assert_eq!(b.used(), 0, "{backend} frames {frames}");
                }
            }
        }
    }

    #[test]
    fn for_each_page_with_larger_pages_on_tmpfs() {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::Builder::new()
                .prefix("outcore-bufpool-test")
                .tempdir_in(shm)
                .unwrap()
        } else {
            disk_dir()
        };
        let pb = 16384usize;
        let (path, data) = make_file(dir.path(), 64 * pb as u64);
        let mut rng = Rng(99);
        for backend in [Backend::Uring, Backend::Sync] {
            let b = Budget::new(1 << 30);
            let mut pool = BufferPool::new(5, pb, 64, &b).unwrap();
            let mut reader = Reader::new(Some(backend), 16).unwrap();
            let fi = reader.open(&path).unwrap();
            let pages: Vec<u64> = (0..500).map(|_| rng.below(64)).collect();
            check_pass(&mut pool, &mut reader, fi, &pages, &data);
            check_pass(&mut pool, &mut reader, fi, &pages, &data);
        }
    }

    #[test]
    fn for_each_page_errors() {
        let dir = disk_dir();
        let pb = 4096usize;
        // 10 whole pages and a half page.
        let (path, data) = make_file(dir.path(), 10 * pb as u64 + 2048);
        for backend in [Backend::Uring, Backend::Sync] {
            let b = Budget::new(1 << 30);
            let mut pool = BufferPool::new(3, pb, 12, &b).unwrap();
            let mut reader = Reader::new(Some(backend), 4).unwrap();
            let fi = reader.open(&path).unwrap();
            // Beyond the page table.
            let e = pool
                .for_each_page(&mut reader, fi, &[1, 12], |_, _| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("page 12"), "{e}");
            // The half page at the end reads as far as the file goes, then zeros.
            let mut tail = Vec::new();
            pool.for_each_page(&mut reader, fi, &[10], |_, b| {
                tail = b.to_vec();
                Ok(())
            })
            .unwrap();
            assert_eq!(tail.len(), pb);
            assert!(tail[pb / 2..].iter().all(|&x| x == 0));
            // Beyond the end of the file.
            let e = pool
                .for_each_page(&mut reader, fi, &[11], |_, _| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("pages.bin") && e.contains("end of the file"),
                "{e}"
            );
            assert_eq!(pool.pinned(), 0);
            // An error from the callback stops the calls and releases everything.
            let mut calls = 0;
            let mut stopped = false;
            let e = pool
                .for_each_page(&mut reader, fi, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], |p, _| {
                    assert!(!stopped, "called after an error");
                    calls += 1;
                    if p == 4 {
                        stopped = true;
                        Err(Error::Invalid("stop at 4".into()))
                    } else {
                        Ok(())
                    }
                })
                .unwrap_err()
                .to_string();
            assert!(e.contains("stop at 4"), "{e}");
            assert!(stopped && calls <= 10, "{calls}");
            assert_eq!(pool.pinned(), 0);
            assert_eq!(reader.pending(), 0);
            assert!((0..3).all(|f| !pool.is_loading(f)));
            // A listed page loading for someone else: an error, pins released.
            check_pass(&mut pool, &mut reader, fi, &[0, 1], &data);
            let other = pool.reserve(2).unwrap();
            let e = pool
                .for_each_page(&mut reader, fi, &[0, 1, 2], |_, _| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("page 2 is being loaded"), "{e}");
            assert_eq!(pool.pinned(), 1);
            pool.loaded(other, false);
            pool.unpin(other);
            // The pool still works afterwards.
            check_pass(&mut pool, &mut reader, fi, &[9, 0, 3, 3, 8], &data);
            // Every frame pinned by the caller: an error, not a hang.
            let held: Vec<u32> = (0..3)
                .map(|p| {
                    pool.pin_if_resident(p).unwrap_or_else(|| {
                        let f = pool.reserve(p).unwrap();
                        pool.loaded(f, true);
                        f
                    })
                })
                .collect();
            let e = pool
                .for_each_page(&mut reader, fi, &[5], |_, _| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("pinned"), "{e}");
            // Resident pages still go through.
            pool.for_each_page(&mut reader, fi, &[0, 1, 2], |_, _| Ok(()))
                .unwrap();
            for f in held {
                pool.unpin(f);
            }
            assert_eq!(pool.pinned(), 0);
        }
    }

    #[test]
    fn a_panicking_callback_leaves_no_read_in_flight() {
        let dir = disk_dir();
        let pb = 4096usize;
        let (path, _) = make_file(dir.path(), 256 * pb as u64);
        for backend in [Backend::Uring, Backend::Sync] {
            let b = Budget::new(1 << 30);
            let mut pool = BufferPool::new(64, pb, 256, &b).unwrap();
            let mut reader = Reader::new(Some(backend), 32).unwrap();
            let fi = reader.open(&path).unwrap();
            let pages: Vec<u64> = (0..256).collect();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.for_each_page(&mut reader, fi, &pages, |_, _| -> Result<()> {
                    panic!("callback panics")
                })
            }));
            assert!(r.is_err());
            assert_eq!(reader.pending(), 0, "{backend}");
        }
    }

    #[test]
    fn short_read_is_an_error() {
        let dir = disk_dir();
        let pb = 4096usize;
        let (path, _) = make_file(dir.path(), 4 * pb as u64);
        let b = Budget::new(1 << 30);
        let mut pool = BufferPool::new(2, pb, 8, &b).unwrap();
        for backend in [Backend::Uring, Backend::Sync] {
            let mut reader = Reader::new(Some(backend), 4).unwrap();
            let fi = reader.open(&path).unwrap();
            // The file shrinks after it was opened.
            let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.set_len(2 * pb as u64 + 100).unwrap();
            let e = pool
                .for_each_page(&mut reader, fi, &[0, 3], |_, _| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("short read of page 3") && e.contains("pages.bin"),
                "{e}"
            );
            assert_eq!(pool.pinned(), 0);
            assert_eq!(pool.lookup(3), None);
            f.set_len(4 * pb as u64).unwrap();
        }
    }
}
