//! The CSR layout (PartitionedVC, TurboGraph): page-packed adjacency lists.
//!
//! `csr/{out,in}.adj` holds u32 neighbour ids in pages of `page_bytes`; a list
//! that fits in one page never straddles two (the select engine then reads one
//! page for it), a longer list starts on a page boundary and spans consecutive
//! pages; unused slots hold `u32::MAX`. A wide store (`csr.id_bytes` 8 in the
//! manifest, format version 2) holds u64 slots instead, padding `u64::MAX`:
//! the layout dense ids beyond 2^32 need ([`SlotWidth`]). `csr/{out,in}.off` holds n + 1 u64 slot
//! offsets (the last is the slot count); a list's length is its degree.
//! Lists are sorted and free of duplicates. `weights/{out,in}.f64` is aligned
//! slot by slot with the adjacency (padding slots hold 0).
//! Directed stores have `out` and `in`; undirected stores have `out` only,
//! holding both directions of every edge (a self-loop once). Each of these
//! files has a checksum per 4 KiB page beside it ([`super::pagesums`]).

use super::degrees::DegreeWriter;
use super::file::{DataWriter, StoreDir, WriteLe};
use crate::error::Result;

/// Default page size of the adjacency files.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;
/// The value of padding slots.
pub const PAD: u32 = u32::MAX;

pub use super::slot::{narrow, Slot, SlotWidth};

/// Paths of one direction: adjacency, offsets, weights.
pub fn files(which: &str) -> (String, String, String) {
    (
        format!("csr/{which}.adj"),
        format!("csr/{which}.off"),
        format!("weights/{which}.f64"),
    )
}

/// Statistics of a written CSR direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct CsrStats {
    pub slots: u64,
    pub entries: u64,
    pub max_degree: u64,
    pub overflow: u64,
}

/// Writes a CSR direction from (vertex, neighbour) pairs sorted by vertex then
/// neighbour, without duplicates, in slots of type `S` (u32: a narrow
/// store; u64: a wide one).
pub struct CsrWriter<S: Slot = u32> {
    n: u64,
    page_slots: u64,
    adj: DataWriter,
    off: DataWriter,
    weights: Option<DataWriter>,
    degrees: DegreeWriter,
    /// Next vertex whose offset is not written yet.
    next_vertex: u64,
    cur: Option<u64>,
    /// The current list's first entries while its placement is undecided.
    pending: Vec<(S, f64)>,
    placed: bool,
    cur_len: u64,
    slots: u64,
    entries: u64,
    adj_buf: Vec<S>,
    w_buf: Vec<f64>,
    off_buf: Vec<u64>,
    /// `--compress`: the page directory being written, the coded bytes so
    /// far and a scratch page ([`super::csrcode`]); `adj` is then `.adz`.
    coded: Option<Coded>,
}

struct Coded {
    code: super::csrcode::Code,
    dir: DataWriter,
    at: u64,
    offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl<S: Slot> CsrWriter<S> {
    /// Starts direction `which` ("out" or "in") for `n` vertices, its pages
    /// coded in `compress` when given.
    pub fn new(
        dir: &mut StoreDir,
        which: &str,
        n: u64,
        page_bytes: u64,
        weighted: bool,
        compress: Option<super::csrcode::Code>,
    ) -> Result<CsrWriter<S>> {
        let (a, o, w) = files(which);
        let (adz, pgi) = super::csrcode::files(which);
        let coded = match compress {
            Some(code) => Some(Coded {
                code,
                dir: dir.paged_file(&pgi)?,
                at: 0,
                offsets: Vec::with_capacity(1 << 12),
                bytes: Vec::with_capacity(1 << 20),
            }),
            None => None,
        };
        Ok(CsrWriter {
            n,
            page_slots: S::WIDTH.per_page(page_bytes),
            adj: dir.paged_file(if compress.is_some() { &adz } else { &a })?,
            off: dir.paged_file(&o)?,
            weights: if weighted {
                Some(dir.paged_file(&w)?)
            } else {
                None
            },
            degrees: DegreeWriter::new(dir, which)?,
            next_vertex: 0,
            cur: None,
            pending: Vec::new(),
            placed: false,
            cur_len: 0,
            slots: 0,
            entries: 0,
            adj_buf: Vec::with_capacity(1 << 18),
            w_buf: Vec::new(),
            off_buf: Vec::with_capacity(1 << 16),
            coded,
        })
    }

    /// Appends neighbour `dst` to the list of `src`.
    #[inline]
    pub fn push(&mut self, src: u64, dst: S, weight: f64) -> Result<()> {
        self.start_list(src)?;
        self.cur_len += 1;
        self.entries += 1;
        if self.placed {
            return self.emit(dst, weight);
        }
        self.pending.push((dst, weight));
        self.place_if_past_page()
    }

    /// Places the pending entries once they are too many for the rest of
    /// this page: the list then starts on the next one.
    fn place_if_past_page(&mut self) -> Result<()> {
        let room = self.page_slots - self.slots % self.page_slots;
        if self.pending.len() as u64 > room {
            if room < self.page_slots {
                self.pad(room)?;
            }
            self.place_pending()?;
        }
        Ok(())
    }

    /// Ends the current list unless it is `src`'s, giving the vertices in
    /// between empty lists.
    #[inline]
    fn start_list(&mut self, src: u64) -> Result<()> {
        if self.cur != Some(src) {
            self.end_list()?;
            while self.next_vertex < src {
                self.place_offset()?;
                self.degrees.push(0)?;
            }
            self.cur = Some(src);
        }
        Ok(())
    }

    /// Appends neighbours `dsts` (with `weights`, one each, when weighted) to
    /// the list of `src`: the same as [`Self::push`] of each in turn, the
    /// entries copied as a slice. A list may arrive in several runs.
    pub fn push_run(&mut self, src: u64, dsts: &[S], weights: &[f64]) -> Result<()> {
        debug_assert!(self.weights.is_none() || weights.len() == dsts.len());
        if dsts.is_empty() {
            return Ok(());
        }
        self.start_list(src)?;
        let len = dsts.len() as u64;
        self.cur_len += len;
        self.entries += len;
        if self.placed {
            return self.emit_run(dsts, weights);
        }
        let weight = |i: usize| weights.get(i).copied().unwrap_or(1.0);
        self.pending
            .extend(dsts.iter().enumerate().map(|(i, &d)| (d, weight(i))));
        self.place_if_past_page()
    }

    /// [`Self::emit`] of a run of entries.
    fn emit_run(&mut self, mut dsts: &[S], mut weights: &[f64]) -> Result<()> {
        while !dsts.is_empty() {
            let take = (self.adj_buf.capacity() - self.adj_buf.len()).min(dsts.len());
            self.adj_buf.extend_from_slice(&dsts[..take]);
            if self.weights.is_some() {
                self.w_buf.extend_from_slice(&weights[..take]);
                weights = &weights[take..];
            }
            self.slots += take as u64;
            dsts = &dsts[take..];
            if self.adj_buf.len() == self.adj_buf.capacity() {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn place_offset(&mut self) -> Result<()> {
        self.off_buf.push(self.slots);
        self.next_vertex += 1;
        if self.off_buf.len() == self.off_buf.capacity() {
            self.off.put_u64s(&self.off_buf)?;
            self.off_buf.clear();
        }
        Ok(())
    }

    fn place_pending(&mut self) -> Result<()> {
        self.place_offset()?;
        self.placed = true;
        let pending = std::mem::take(&mut self.pending);
        for &(d, w) in &pending {
            self.emit(d, w)?;
        }
        self.pending = pending;
        self.pending.clear();
        Ok(())
    }

    fn end_list(&mut self) -> Result<()> {
        if self.cur.is_none() {
            return Ok(());
        }
        if !self.placed {
            self.place_pending()?;
        }
        self.degrees.push(self.cur_len)?;
        self.cur = None;
        self.placed = false;
        self.cur_len = 0;
        Ok(())
    }

    #[inline]
    fn emit(&mut self, dst: S, weight: f64) -> Result<()> {
        self.adj_buf.push(dst);
        if self.weights.is_some() {
            self.w_buf.push(weight);
        }
        self.slots += 1;
        if self.adj_buf.len() == self.adj_buf.capacity() {
            self.flush()?;
        }
        Ok(())
    }

    fn pad(&mut self, count: u64) -> Result<()> {
        for _ in 0..count {
            self.emit(S::PAD, 0.0)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if let Some(c) = &mut self.coded {
            // Whole pages only; a partial one waits for the next flush.
            let whole = self.adj_buf.len() / self.page_slots as usize * self.page_slots as usize;
            for page in self.adj_buf[..whole].chunks_exact(self.page_slots as usize) {
                c.offsets.push(c.at + c.bytes.len() as u64);
                S::encode_page(c.code, page, &mut c.bytes);
            }
            self.adj.write_all(&c.bytes)?;
            c.at += c.bytes.len() as u64;
            c.bytes.clear();
            c.dir.put_u64s(&c.offsets)?;
            c.offsets.clear();
            self.adj_buf.drain(..whole);
        } else {
            S::put(&self.adj_buf, &mut self.adj)?;
            self.adj_buf.clear();
        }
        if let Some(w) = &mut self.weights {
            w.put_f64s(&self.w_buf)?;
            self.w_buf.clear();
        }
        Ok(())
    }

    /// Ends the last list, pads the file to a whole page and closes everything.
    pub fn finish(mut self, dir: &mut StoreDir) -> Result<CsrStats> {
        self.end_list()?;
        while self.next_vertex < self.n {
            self.place_offset()?;
            self.degrees.push(0)?;
        }
        let tail = (self.page_slots - self.slots % self.page_slots) % self.page_slots;
        self.pad(tail)?;
        self.off_buf.push(self.slots);
        self.off.put_u64s(&self.off_buf)?;
        self.flush()?;
        if let Some(mut c) = self.coded.take() {
            c.dir.put_u64s(&[c.at])?;
            dir.close(c.dir)?;
        }
        dir.close(self.adj)?;
        dir.close(self.off)?;
        if let Some(w) = self.weights {
            dir.close(w)?;
        }
        let (max_degree, overflow, _) = self.degrees.finish(dir)?;
        Ok(CsrStats {
            slots: self.slots,
            entries: self.entries,
            max_degree,
            overflow,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Writes sorted lists (vertex, neighbours) with `push` one entry at a
    /// time or with `push_run` in runs cut at `cuts`; returns the store's
    /// adjacency, offsets and weights bytes.
    fn write(lists: &[(u32, Vec<u32>)], cuts: Option<&[usize]>, n: u64) -> Vec<Vec<u8>> {
        let d = tempfile::tempdir().unwrap();
        let mut dir = StoreDir::create(&d.path().join("g.oc"), false).unwrap();
        let mut w = CsrWriter::<u32>::new(&mut dir, "out", n, 64, true, None).unwrap();
        for (k, (v, ns)) in lists.iter().enumerate() {
            let ws: Vec<f64> = ns.iter().map(|&x| x as f64 + 0.5).collect();
            match cuts {
                None => {
                    for (&x, &wt) in ns.iter().zip(&ws) {
                        w.push(*v as u64, x, wt).unwrap();
                    }
                }
                Some(c) => {
                    let at = c[k % c.len()].min(ns.len());
                    w.push_run(*v as u64, &ns[..at], &ws[..at]).unwrap();
                    w.push_run(*v as u64, &ns[at..], &ws[at..]).unwrap();
                }
            }
        }
        w.finish(&mut dir).unwrap();
        let (a, o, wf) = files("out");
        [a, o, wf]
            .iter()
            .map(|f| std::fs::read(dir.tmp_path().join(f)).unwrap())
            .collect()
    }

    /// A wide writer places lists where a narrow one with pages of as many
    /// slots does, each slot the narrow one widened (padding `u64::MAX`),
    /// and keeps ids past 32 bits whole (as neighbours: a source past them
    /// needs an offset for every vertex before it).
    #[test]
    fn wide_slots_are_narrow_slots_widened() {
        let lists: Vec<(u32, Vec<u32>)> = (0..40u32)
            .map(|v| (v * 2, (0..(v * 7) % 37).map(|x| x * 5 + v).collect()))
            .collect();
        let narrow = write(&lists, None, 90);
        let d = tempfile::tempdir().unwrap();
        let mut dir = StoreDir::create(&d.path().join("g.oc"), false).unwrap();
        let mut w = CsrWriter::<u64>::new(&mut dir, "out", 90, 128, false, None).unwrap();
        for (v, ns) in &lists {
            let wide: Vec<u64> = ns.iter().map(|&x| x as u64).collect();
            w.push_run(*v as u64, &wide, &[]).unwrap();
        }
        w.push(85, 1 << 39, 1.0).unwrap();
        w.push(85, (1 << 40) - 1, 1.0).unwrap();
        w.finish(&mut dir).unwrap();
        let read = |f: &str| std::fs::read(dir.tmp_path().join(f)).unwrap();
        let (a, o, _) = files("out");
        let slots: Vec<u64> = read(&a)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let widened: Vec<u64> = narrow[0]
            .chunks_exact(4)
            .map(|c| match u32::from_le_bytes(c.try_into().unwrap()) {
                PAD => u64::MAX,
                x => x as u64,
            })
            .collect();
        // The narrow lists, then the last one in the narrow tail's padding.
        let k = widened.iter().rposition(|&x| x != u64::MAX).unwrap() + 1;
        assert_eq!(slots[..k], widened[..k]);
        assert_eq!(slots[k..k + 2], [1 << 39, (1 << 40) - 1]);
        assert!(slots[k + 2..].iter().all(|&x| x == u64::MAX));
        assert_eq!(slots.len() % 16, 0);
        // The offsets agree up to the narrow store's last list.
        let off = read(&o);
        assert_eq!(off.len(), 8 * 91);
        assert_eq!(off[..8 * 79], narrow[1][..8 * 79]);
    }

    proptest! {
        /// Runs place lists exactly where single entries do: lists shorter
        /// than, equal to and longer than the rest of a page (16 slots).
        #[test]
        fn push_run_writes_what_push_writes(
            degrees in proptest::collection::vec(0usize..40, 1..60),
            cuts in proptest::collection::vec(0usize..40, 1..8),
        ) {
            let n = degrees.len() as u64 + 3;
            let lists: Vec<(u32, Vec<u32>)> = degrees
                .iter()
                .enumerate()
                .filter(|(_, &d)| d > 0)
                .map(|(v, &d)| (v as u32 + 1, (0..d as u32).map(|x| x * 3).collect()))
                .collect();
            prop_assert_eq!(write(&lists, None, n), write(&lists, Some(&cuts), n));
        }
    }
}
