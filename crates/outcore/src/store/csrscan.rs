//! Sequential scans of a CSR direction (export, verify, the in-memory
//! references): every page read is checked against its page checksum
//! ([`super::pagesums`]) before use, and coded adjacency pages
//! ([`super::csrcode`]) are decoded, so a scan sees the plain slots.

use super::csr::{files, SlotWidth, PAD};
use super::csrcode::{self, PageDir};
use super::pagesums::{PageSums, PAGE_BYTES};
use super::Store;
use crate::error::{Error, IoContext, Result};
use crate::mem::Budget;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Pages read at once.
const READ_PAGES: usize = 64;

/// Reads a store file front to back in whole checked pages (also the
/// weighted PageRank's out-weights, `algo::vertex::pagerank`).
pub(crate) struct CheckedReader {
    path: PathBuf,
    file: File,
    sums: Option<Arc<PageSums>>,
    buf: Vec<u8>,
    pos: usize,
    /// File offset of `buf[0]`.
    at: u64,
}

impl CheckedReader {
    fn open(store: &Store, rel: &str) -> Result<CheckedReader> {
        Self::open_in(store, rel, &Budget::new(u64::MAX))
    }

    /// Opens `rel` with its page sums charged to `budget`.
    pub(crate) fn open_in(store: &Store, rel: &str, budget: &Budget) -> Result<CheckedReader> {
        let path = store.file(rel);
        let file = File::open(&path).at(&path)?;
        Ok(CheckedReader {
            sums: PageSums::load(store, rel, budget)?,
            path,
            file,
            buf: Vec::with_capacity(READ_PAGES * PAGE_BYTES as usize),
            pos: 0,
            at: 0,
        })
    }

    /// Refills the buffer; false at the end of the file.
    fn fill(&mut self) -> Result<bool> {
        self.at += self.buf.len() as u64;
        self.buf.clear();
        self.pos = 0;
        (&mut self.file)
            .take((READ_PAGES as u64) * PAGE_BYTES)
            .read_to_end(&mut self.buf)
            .at(&self.path)?;
        super::pagesums::check(&self.sums, self.at, &self.buf)?;
        Ok(!self.buf.is_empty())
    }

    /// The next `N` bytes, or `None` at the end of the file.
    fn next<const N: usize>(&mut self) -> Result<Option<[u8; N]>> {
        let mut out = [0u8; N];
        let mut got = 0;
        while got < N {
            if self.pos == self.buf.len() && !self.fill()? {
                return match got {
                    0 => Ok(None),
                    _ => Err(self.early()),
                };
            }
            let k = (N - got).min(self.buf.len() - self.pos);
            out[got..got + k].copy_from_slice(&self.buf[self.pos..self.pos + k]);
            self.pos += k;
            got += k;
        }
        Ok(Some(out))
    }

    fn req<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.next::<N>()?.ok_or_else(|| self.early())
    }

    /// The next little-endian u64; the end of the file is an error.
    pub(crate) fn req_u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.req::<8>()?))
    }

    /// The next little-endian f64; the end of the file is an error.
    pub(crate) fn req_f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.req::<8>()?))
    }

    /// The next `n` bytes into `out`; the end of the file is an error.
    fn bytes(&mut self, n: usize, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        while out.len() < n {
            if self.pos == self.buf.len() && !self.fill()? {
                return Err(self.early());
            }
            let k = (n - out.len()).min(self.buf.len() - self.pos);
            out.extend_from_slice(&self.buf[self.pos..self.pos + k]);
            self.pos += k;
        }
        Ok(())
    }

    fn early(&self) -> Error {
        super::file::damaged_at(&self.path, "ends early")
    }
}

/// A coded adjacency being decoded: its checked directory, the next page,
/// the decoded page, the next byte in it and a scratch for the codes.
struct Decoding {
    dir: PageDir,
    next: u64,
    page: Vec<u8>,
    pos: usize,
    scratch: Vec<u8>,
}

impl Decoding {
    /// Reads and decodes the next page from `r`; false past the last.
    fn refill(&mut self, r: &mut CheckedReader) -> Result<bool> {
        if self.next == self.dir.pages() {
            return Ok(false);
        }
        let (s, e) = self.dir.span(self.next, self.next + 1);
        r.bytes((e - s) as usize, &mut self.scratch)?;
        self.dir
            .decode(self.next, self.next + 1, &self.scratch, s, &mut self.page)?;
        self.next += 1;
        self.pos = 0;
        Ok(true)
    }
}

/// The slots of one adjacency file: read plainly (4 or 8 bytes a slot),
/// or coded pages decoded.
struct Slots {
    r: CheckedReader,
    coded: Option<Decoding>,
    width: SlotWidth,
    /// Plain slots' bytes on their way to [`Slots::take`]'s output.
    scratch: Vec<u8>,
}

/// Padding as [`Slots::next`] gives it, whatever the slot width.
pub(super) const WIDE_PAD: u64 = u64::MAX;

/// A narrow slot as [`Slots::next`] gives it.
pub(super) fn widen(x: u32) -> u64 {
    if x == PAD {
        WIDE_PAD
    } else {
        x as u64
    }
}

impl Slots {
    fn open(store: &Store, which: &str) -> Result<Slots> {
        let Some(dir) = PageDir::load(store, which, &Budget::new(u64::MAX))? else {
            return Ok(Slots {
                r: CheckedReader::open(store, &files(which).0)?,
                coded: None,
                width: store.manifest().slot_width(),
                scratch: Vec::new(),
            });
        };
        let page = vec![0u8; store.manifest().csr.page_bytes as usize];
        Ok(Slots {
            r: CheckedReader::open(store, &csrcode::files(which).0)?,
            coded: Some(Decoding {
                dir,
                next: 0,
                pos: page.len(),
                page,
                scratch: Vec::new(),
            }),
            width: store.manifest().slot_width(),
            scratch: Vec::new(),
        })
    }

    fn path(&self) -> &Path {
        &self.r.path
    }

    /// The next `k` slots into `out` (replacing it; padding as
    /// [`WIDE_PAD`]); the end of the file first is an error.
    fn take(&mut self, k: usize, out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        let w = self.width.bytes() as usize;
        let put = |out: &mut Vec<u64>, b: &[u8]| match w {
            4 => out.extend(
                b.chunks_exact(4)
                    .map(|c| widen(u32::from_le_bytes(c.try_into().expect("4")))),
            ),
            _ => out.extend(
                b.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8"))),
            ),
        };
        let Some(d) = &mut self.coded else {
            let mut raw = std::mem::take(&mut self.scratch);
            self.r.bytes(k * w, &mut raw)?;
            put(out, &raw);
            self.scratch = raw;
            return Ok(());
        };
        while out.len() < k {
            if d.pos == d.page.len() && !d.refill(&mut self.r)? {
                return Err(super::file::damaged_at(&self.r.path, "ends early"));
            }
            let m = (k - out.len()).min((d.page.len() - d.pos) / w);
            put(out, &d.page[d.pos..d.pos + m * w]);
            d.pos += m * w;
        }
        Ok(())
    }

    /// The next slot (padding as [`WIDE_PAD`]), or `None` at the end.
    fn next(&mut self) -> Result<Option<u64>> {
        let Some(d) = &mut self.coded else {
            return Ok(match self.width {
                SlotWidth::Narrow => self.r.next::<4>()?.map(|b| widen(u32::from_le_bytes(b))),
                SlotWidth::Wide => self.r.next::<8>()?.map(u64::from_le_bytes),
            });
        };
        if d.pos == d.page.len() && !d.refill(&mut self.r)? {
            return Ok(None);
        }
        let at = d.pos;
        d.pos += self.width.bytes() as usize;
        Ok(Some(match self.width {
            SlotWidth::Narrow => widen(u32::from_le_bytes(
                d.page[at..at + 4].try_into().expect("4 bytes"),
            )),
            SlotWidth::Wide => u64::from_le_bytes(d.page[at..at + 8].try_into().expect("8 bytes")),
        }))
    }
}

pub use super::delta::lists::{scan_csr, NO_SLOT};

/// Scans one CSR direction (`"out"` or `"in"`) of the base files,
/// calling `f(vertex, slot_offset, neighbour, weight)` for every entry;
/// padding slots are skipped (and must hold the padding value). Neighbours
/// come as the slots hold them, wide ones whole: the caller checks them
/// against n. [`scan_csr`] is the scan of the view (base + delta).
pub fn scan_base_csr(
    store: &Store,
    which: &str,
    weighted: bool,
    mut f: impl FnMut(u64, u64, u64, f64) -> Result<()>,
) -> Result<()> {
    scan_base_lists(store, which, weighted, |l| {
        for (i, &u) in l.nbrs.iter().enumerate() {
            f(l.v, l.slot + i as u64, u, l.weight(i))?;
        }
        Ok(())
    })
}

/// One vertex's list as [`scan_base_lists`] gives it: its first slot,
/// its neighbours without the padding, and their weights (empty when
/// the scan is unweighted).
pub struct BaseList<'a> {
    pub v: u64,
    pub slot: u64,
    pub nbrs: &'a [u64],
    pub weights: &'a [f64],
}

impl BaseList<'_> {
    /// The weight of entry `i` (1 when unweighted).
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.get(i).copied().unwrap_or(1.0)
    }
}

/// Offsets read at once by [`scan_base_lists`].
const OFFSETS_AT_ONCE: usize = 8192;

/// [`scan_base_csr`] a list at a time: the slots of a list are copied out
/// of the checked (and decoded) pages in one go, so a caller that looks
/// at few lists (the update's probe) pays per list, not per entry.
pub fn scan_base_lists(
    store: &Store,
    which: &str,
    weighted: bool,
    mut f: impl FnMut(&BaseList<'_>) -> Result<()>,
) -> Result<()> {
    let (_, o, w) = files(which);
    let n = store.base().num_vertices;
    let mut adj = Slots::open(store, which)?;
    let mut off = CheckedReader::open(store, &o)?;
    let mut weights = match weighted {
        true => Some(CheckedReader::open(store, &w)?),
        false => None,
    };
    if off.req_u64()? != 0 {
        return Err(super::file::damaged_at(
            &off.path,
            "the first offset is not 0",
        ));
    }
    let (mut ends, mut raw) = (Vec::new(), Vec::new());
    let (mut list, mut wts, mut wraw) = (Vec::new(), Vec::new(), Vec::new());
    let mut slot = 0u64;
    let mut v = 0u64;
    while v < n {
        let k = (n - v).min(OFFSETS_AT_ONCE as u64) as usize;
        off.bytes(8 * k, &mut raw)?;
        ends.clear();
        ends.extend(
            raw.chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8"))),
        );
        for &end in &ends {
            if end < slot {
                return Err(super::file::damaged_at(
                    &off.path,
                    format!("offsets decrease at vertex {v}"),
                ));
            }
            let len = (end - slot) as usize;
            adj.take(len, &mut list)?;
            if let Some(r) = weights.as_mut() {
                r.bytes(8 * len, &mut wraw)?;
                wts.clear();
                wts.extend(
                    wraw.chunks_exact(8)
                        .map(|b| f64::from_le_bytes(b.try_into().expect("8"))),
                );
            }
            let real = list.iter().position(|&x| x == WIDE_PAD).unwrap_or(len);
            if let Some(gap) = list[real..].iter().position(|&x| x != WIDE_PAD) {
                return Err(super::file::damaged_at(
                    adj.path(),
                    format!(
                        "the list of vertex {v} has a gap at slot {}",
                        slot + (real + gap) as u64
                    ),
                ));
            }
            if real > 0 {
                f(&BaseList {
                    v,
                    slot,
                    nbrs: &list[..real],
                    weights: if weighted { &wts[..real] } else { &[] },
                })?;
            }
            slot = end;
            v += 1;
        }
    }
    if adj.next()?.is_some() {
        return Err(super::file::damaged_at(
            adj.path(),
            "holds slots past the last offset",
        ));
    }
    Ok(())
}
