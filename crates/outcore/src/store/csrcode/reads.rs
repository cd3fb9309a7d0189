//! Reads of coded pages into staging buffers, decoded into plain pages on
//! completion: how the select engine's buffer pool ([`crate::engine::select::bufpool`])
//! reads a coded adjacency. Its frames hold plain pages; its reads go
//! through here.
//!
//! Coded pages are smaller than plain ones and not aligned, so an aligned
//! read of one page brings parts of its neighbours too. Consecutive pages
//! the pool wants are therefore read together, as long as their
//! aligned span fits one staging buffer: a block is read once, not once for
//! each page it holds a piece of (the issue 14 review found the select engine
//! reading 1.3-1.8x the coded file on a full pass before this).

use super::{read_bytes, PageDir};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ALIGN};
use crate::mem::Budget;
use crate::store::pagesums::{self, PageSums};
use std::sync::Arc;

/// The most plain pages' worth of coded bytes a staging buffer holds. A
/// read that ends inside a block shares that block with the next read, so
/// larger buffers read less twice: with 8, a full pass reads the coded file
/// about 1.1 times (with 1, about 1.45 times), for 40 KiB a read in flight.
pub const GROUP: usize = 8;

/// Staging buffers for reads of runs of consecutive coded pages.
pub struct CodedReads {
    dir: Arc<PageDir>,
    bufs: Vec<AlignedBuf>,
    free: Vec<usize>,
    /// The pages (and the caller's frames for them) each busy buffer reads.
    groups: Vec<Vec<(u64, u32)>>,
}

impl CodedReads {
    /// Bytes of each of `slots` staging buffers for pages of `page_bytes`
    /// when the budget has `available` bytes left: the longest `GROUP`
    /// coded pages, from anywhere in a block, while all of them stay under
    /// a thirty-second of that (a small budget's frames matter more); at
    /// least the longest page.
    pub fn staging_bytes(page_bytes: u64, slots: usize, available: u64) -> u64 {
        let one = |g: usize| read_bytes(g, page_bytes as usize) as u64;
        (1..=GROUP)
            .rev()
            .map(one)
            .find(|&b| b * slots.max(1) as u64 <= available / 32)
            .unwrap_or(one(1))
    }

    /// `slots` staging buffers (one per read in flight), charged to `budget`.
    pub fn new(dir: Arc<PageDir>, slots: usize, budget: &Budget) -> Result<CodedReads> {
        let len = Self::staging_bytes(dir.page_bytes as u64, slots, budget.available()) as usize;
        let bufs = (0..slots.max(1))
            .map(|_| AlignedBuf::new(len, budget, "coded page staging"))
            .collect::<Result<Vec<_>>>()?;
        Ok(CodedReads {
            free: (0..bufs.len()).rev().collect(),
            groups: vec![Vec::new(); bufs.len()],
            dir,
            bufs,
        })
    }

    /// Bytes of all the staging buffers.
    pub fn staging(&self) -> u64 {
        self.bufs.iter().map(|b| b.len() as u64).sum()
    }

    /// Plain pages of the direction.
    pub fn pages(&self) -> u64 {
        self.dir.pages()
    }

    /// Takes a staging buffer for page `p` (to land in the caller's frame
    /// `frame`), or `None` when every one is in use.
    pub fn start(&mut self, p: u64, frame: u32) -> Option<usize> {
        let slot = self.free.pop()?;
        self.groups[slot].push((p, frame));
        Some(slot)
    }

    /// Whether page `p` may join the read of `slot`: it follows the last
    /// page there and their aligned span still fits the buffer (a wanted
    /// page further on is not joined: measured, reading the skipped pages'
    /// bytes cost more than the reads it saved).
    pub fn can_extend(&self, slot: usize, p: u64) -> bool {
        let g = &self.groups[slot];
        let (first, last) = (g[0].0, g[g.len() - 1].0);
        if p != last + 1 || p >= self.dir.pages() {
            return false;
        }
        let (s, e) = self.dir.aligned_span(first, p + 1, ALIGN as u64);
        ((e - s) as usize).next_multiple_of(ALIGN) <= self.bufs[slot].len()
    }

    /// Adds page `p` (checked with [`Self::can_extend`]) to the read of `slot`.
    pub fn extend(&mut self, slot: usize, p: u64, frame: u32) {
        debug_assert!(self.can_extend(slot, p));
        self.groups[slot].push((p, frame));
    }

    /// The read of `slot`: (file offset, length, buffer).
    pub fn request(&mut self, slot: usize) -> (u64, usize, *mut u8) {
        let (s, e) = self.span_of(&self.groups[slot]);
        let len = ((e - s) as usize).next_multiple_of(ALIGN);
        (s, len, self.bufs[slot].as_mut_ptr())
    }

    /// Ends the read of `slot` (`n` bytes arrived, or the read's error):
    /// checks them against `sums` and decodes each of its pages into
    /// `frame_of(its frame)`, then calls `each(page, frame, decoded)`; frees
    /// the slot whatever happens. Returns the read's error or the first
    /// page's that failed (later pages then count as failed too).
    pub fn finish(
        &mut self,
        slot: usize,
        n: std::io::Result<usize>,
        sums: &Option<Arc<PageSums>>,
        mut frame_of: impl FnMut(u32) -> *mut u8,
        mut each: impl FnMut(u64, u32, bool),
    ) -> Result<()> {
        let mut group = std::mem::take(&mut self.groups[slot]);
        self.free.push(slot);
        let (s, e) = self.span_of(&group);
        let mut res = self.check(slot, s, e, n, sums);
        let pb = self.dir.page_bytes;
        for &(p, frame) in &group {
            let ok = res.is_ok() && {
                // SAFETY: the caller's frame for `p` holds a plain page and
                // is written only here until `each` is called for it.
                let out = unsafe { std::slice::from_raw_parts_mut(frame_of(frame), pb) };
                let bytes = &self.bufs[slot].as_slice()[..(e - s) as usize];
                let decoded = self.dir.decode(p, p + 1, bytes, s, out);
                decoded.map_err(|why| res = Err(why)).is_ok()
            };
            each(p, frame, ok);
        }
        group.clear();
        self.groups[slot] = group;
        res
    }

    fn span_of(&self, g: &[(u64, u32)]) -> (u64, u64) {
        self.dir
            .aligned_span(g[0].0, g[g.len() - 1].0 + 1, ALIGN as u64)
    }

    fn check(
        &self,
        slot: usize,
        s: u64,
        e: u64,
        n: std::io::Result<usize>,
        sums: &Option<Arc<PageSums>>,
    ) -> Result<()> {
        let n = n.map_err(|e| Error::io(&self.dir.path, e))?;
        if (n as u64) < e - s {
            let why = format!(
                "the coded pages at offset {s} end after {n} of their {} bytes",
                e - s
            );
            return Err(self.dir.damaged(why));
        }
        pagesums::check(sums, s, &self.bufs[slot].as_slice()[..(e - s) as usize])
    }
}
