//! The page directory of a coded CSR direction (`csr/{dir}.pgi`, see
//! [`super`]): where each coded page starts in `.adz`, checked and held in
//! memory, and the decoding of a run of pages of either width.

use super::{decode_page, files, max_coded, svb, wide, SVB};
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::file::read_u64s;
use crate::store::slot::SlotWidth;
use crate::store::Store;
use std::path::PathBuf;

/// The page directory of one coded direction, in memory (charged).
pub struct PageDir {
    offsets: Vec<u64>,
    pub(super) path: PathBuf,
    /// The store and the coded adjacency's name in it, for errors.
    store: PathBuf,
    rel: String,
    pub(super) page_bytes: usize,
    /// Pages carry a tag ([`super::HUFF`]), or are all stream-vbyte ([`SVB`]).
    tagged: bool,
    /// Pages of u64 ids ([`wide`]).
    wide: bool,
    _charge: Charge,
}

impl PageDir {
    /// Loads the directory of `which` (checked whole against the manifest
    /// and against the coded file's size), or `None` for a plain store.
    pub fn load(store: &Store, which: &str, budget: &Budget) -> Result<Option<PageDir>> {
        let m = store.manifest();
        let Some(codec) = m.csr.compression.as_deref() else {
            return Ok(None);
        };
        let (adz, pgi) = files(which);
        let entry = m.files.get(&pgi).ok_or_else(|| {
            Error::store(store.path(), format!("{pgi} is missing from the manifest"))
        })?;
        let charge = budget.charge(entry.bytes, "CSR page directory")?;
        let path = store.file(&pgi);
        if &crate::store::file::checksum(&path)? != entry {
            return Err(Error::damaged(store.path(), &pgi, "checksum mismatch"));
        }
        let offsets = read_u64s(&path)?;
        let coded = m.files.get(&adz).map_or(0, |f| f.bytes);
        let page_bytes = m.csr.page_bytes as usize;
        let slots = if which == "in" {
            m.csr.in_slots
        } else {
            m.csr.out_slots
        };
        let width = m.slot_width();
        let pages = slots / width.per_page(page_bytes as u64);
        // A wide page is at most its plain bytes and 5 (`wide`).
        let max = match width {
            SlotWidth::Narrow => max_coded(page_bytes / 4),
            SlotWidth::Wide => 5 + page_bytes,
        } as u64;
        let ok = offsets.len() as u64 == pages + 1
            && offsets.first() == Some(&0)
            && offsets.last() == Some(&coded)
            && offsets
                .windows(2)
                .all(|w| w[0] < w[1] && w[1] - w[0] <= max);
        if !ok {
            let why = format!("it does not describe {pages} coded pages in {coded} bytes");
            return Err(Error::damaged(store.path(), &pgi, why));
        }
        Ok(Some(PageDir {
            offsets,
            path: store.file(&adz),
            store: store.path().to_path_buf(),
            rel: adz,
            page_bytes,
            tagged: codec != SVB,
            wide: width == SlotWidth::Wide,
            _charge: charge,
        }))
    }

    /// Plain pages.
    pub fn pages(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Bytes of the coded file.
    pub fn coded_bytes(&self) -> u64 {
        *self.offsets.last().expect("a closing offset")
    }

    /// Bytes `[start, end)` of the coded file that pages `p0..p1` occupy.
    pub fn span(&self, p0: u64, p1: u64) -> (u64, u64) {
        (self.offsets[p0 as usize], self.offsets[p1 as usize])
    }

    /// The aligned read `[start, end)` (multiples of `align`, `end` at most
    /// the file's end) that covers pages `p0..p1`.
    pub fn aligned_span(&self, p0: u64, p1: u64, align: u64) -> (u64, u64) {
        let (s, e) = self.span(p0, p1);
        (
            s / align * align,
            e.next_multiple_of(align).min(self.coded_bytes()),
        )
    }

    /// The coded adjacency is damaged: `why`.
    pub(super) fn damaged(&self, why: impl std::fmt::Display) -> Error {
        Error::damaged(&self.store, &self.rel, why)
    }

    /// Decodes pages `p0..p1` from `buf` (coded bytes read from file offset
    /// `at`, covering their span) into `out` (`(p1 - p0)` plain pages).
    pub fn decode(&self, p0: u64, p1: u64, buf: &[u8], at: u64, out: &mut [u8]) -> Result<()> {
        for (p, page) in (p0..p1).zip(out.chunks_exact_mut(self.page_bytes)) {
            let (s, e) = self.span(p, p + 1);
            let bytes = s
                .checked_sub(at)
                .and_then(|s| buf.get(s as usize..(e - at) as usize))
                .ok_or_else(|| Error::Invalid(format!("coded page {p} lies outside the read")))?;
            let decoded = match (self.wide, self.tagged) {
                (true, tagged) => wide::decode(bytes, page, tagged),
                (false, true) => decode_page(bytes, page),
                (false, false) => svb::decode(bytes, page),
            };
            match decoded {
                Ok(n) if n == bytes.len() => {}
                Ok(n) => {
                    let why = format!("coded page {p} ends after {n} of its {} bytes", bytes.len());
                    return Err(self.damaged(why));
                }
                Err(why) => return Err(self.damaged(format!("coded page {p}: {why}"))),
            }
        }
        Ok(())
    }
}
