//! A sample of a CSR direction's lists without reading it all: the lists
//! that begin in every `every`-th page, read by positioned reads checked
//! against the page checksums ([`super::pagesums`]), coded pages decoded
//! ([`super::csrcode`]). The auto vertex order weighs the gap costs of
//! candidate orders on it (`algo::order::choose`): a full scan of
//! kron-22's out-lists took 0.7 s of a 5.7 s compressed import, for a
//! sample of one entry in 16.

use super::csr::{files, SlotWidth};
use super::csrcode::{self, PageDir};
use super::csrscan::{widen, CheckedReader, WIDE_PAD};
use super::pagesums::{PageSums, PAGE_BYTES};
use super::Store;
use crate::error::{IoContext, Result};
use crate::mem::Budget;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

/// The pages `p0..p1` of one direction, read and decoded, reused while
/// the next sampled list lies in them.
struct Pages {
    path: PathBuf,
    file: File,
    sums: Option<Arc<PageSums>>,
    dir: Option<PageDir>,
    page_bytes: u64,
    file_bytes: u64,
    range: (u64, u64),
    raw: Vec<u8>,
    plain: Vec<u8>,
}

impl Pages {
    /// Makes pages `p0..p1` the ones held.
    fn load(&mut self, p0: u64, p1: u64) -> Result<()> {
        if self.range == (p0, p1) {
            return Ok(());
        }
        let (s, e) = match &self.dir {
            Some(d) => d.aligned_span(p0, p1, PAGE_BYTES),
            None => (
                p0 * self.page_bytes / PAGE_BYTES * PAGE_BYTES,
                (p1 * self.page_bytes)
                    .next_multiple_of(PAGE_BYTES)
                    .min(self.file_bytes),
            ),
        };
        self.raw.resize((e - s) as usize, 0);
        self.file.read_exact_at(&mut self.raw, s).at(&self.path)?;
        super::pagesums::check(&self.sums, s, &self.raw)?;
        let want = ((p1 - p0) * self.page_bytes) as usize;
        match &self.dir {
            Some(d) => {
                self.plain.resize(want, 0);
                d.decode(p0, p1, &self.raw, s, &mut self.plain)?;
            }
            None => {
                let from = (p0 * self.page_bytes - s) as usize;
                self.plain.clear();
                let end = (from + want).min(self.raw.len());
                self.plain.extend_from_slice(&self.raw[from..end]);
            }
        }
        self.range = (p0, p1);
        Ok(())
    }
}

/// Calls `f(vertex, list)` for every vertex of direction `which` whose
/// list begins in a page whose number is a multiple of `every` (`every`
/// = 1: every list) and holds a neighbour, in vertex order; padding is
/// left out. Neighbours come
/// as the slots hold them; the caller checks them against n.
pub fn sample_lists(
    store: &Store,
    which: &str,
    every: u64,
    mut f: impl FnMut(u64, &[u64]) -> Result<()>,
) -> Result<()> {
    let m = store.manifest();
    let (adj, off, _) = files(which);
    let width = m.slot_width();
    let page_bytes = m.csr.page_bytes;
    let wb = width.bytes();
    let per_page = page_bytes / wb;
    let unlimited = Budget::new(u64::MAX);
    let dir = PageDir::load(store, which, &unlimited)?;
    let rel = match dir {
        Some(_) => csrcode::files(which).0,
        None => adj,
    };
    let path = store.file(&rel);
    let file = File::open(&path).at(&path)?;
    let mut pages = Pages {
        sums: PageSums::load(store, &rel, &unlimited)?,
        file_bytes: file.metadata().at(&path)?.len(),
        path,
        file,
        dir,
        page_bytes,
        range: (0, 0),
        raw: Vec::new(),
        plain: Vec::new(),
    };
    let mut offsets = CheckedReader::open_in(store, &off, &unlimited)?;
    let every = every.max(1);
    let mut start = offsets.req_u64()?;
    let mut list = Vec::new();
    for v in 0..m.num_vertices {
        let end = offsets.req_u64()?;
        if end > start && (start / per_page).is_multiple_of(every) {
            let (p0, p1) = (start / per_page, (end - 1) / per_page + 1);
            pages.load(p0, p1)?;
            let at = |i: u64| ((i - p0 * per_page) * wb) as usize;
            let bytes = pages.plain.get(at(start)..at(end)).ok_or_else(|| {
                super::file::damaged_at(
                    &pages.path,
                    format!("the list of vertex {v} lies past its end"),
                )
            })?;
            list.clear();
            let slot = |b: &[u8]| match width {
                SlotWidth::Narrow => widen(u32::from_le_bytes(b.try_into().expect("4 bytes"))),
                SlotWidth::Wide => u64::from_le_bytes(b.try_into().expect("8 bytes")),
            };
            list.extend((bytes.chunks_exact(wb as usize).map(slot)).filter(|&x| x != WIDE_PAD));
            if !list.is_empty() {
                f(v, &list)?;
            }
        }
        start = end;
    }
    Ok(())
}
