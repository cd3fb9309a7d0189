//! A direction's delta lists read a window at a time (the L seam in the
//! select engine, issue 53): only `.bits` and `.rnk` are held (n'/8 bytes
//! and 8 a 512-bit block), with the page sums of `.off`, `.deg`, `.rec`
//! and `.w` (8 bytes a 4 KiB page); [`PagedLists::window`] reads the
//! pages of a window's touched vertices, each checked against its sum,
//! as a select engine reads the CSR's (TurboGraph's pin-and-slide: the
//! pages the frontier needs, not the file). A BFS whose select steps
//! reach a few thousand lists then reads a few pages, not the whole lists
//! at open ([`super::DeltaLists`] holds them whole for the scans).

use super::format::{lists_files, touched_rank, RANK_BLOCK_BITS};
use super::lists::Records;
use crate::error::{Error, IoContext, Result};
use crate::store::pagesums::{check_page, sums_file, PAGE_BYTES};
use crate::store::Store;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// One delta file read by pages, with the sum of each.
struct PagedFile {
    file: File,
    /// The store (for errors) and the file's name in it.
    store: PathBuf,
    name: String,
    sums: Vec<u64>,
    len: u64,
}

impl PagedFile {
    fn open(store: &Store, rel: &str) -> Result<PagedFile> {
        let path = store.delta_file(rel);
        let sums = store.read_delta_u64s(&sums_file(rel))?;
        let file = File::open(&path).at(&path)?;
        let len = file.metadata().at(&path)?.len();
        let name = store.delta_name(rel);
        if sums.len() as u64 != len.div_ceil(PAGE_BYTES) {
            let why = format!("{} page sums for {len} bytes", sums.len());
            return Err(Error::damaged(store.path(), &name, why));
        }
        Ok(PagedFile {
            file,
            store: store.path().to_path_buf(),
            name,
            sums,
            len,
        })
    }

    /// The u64s at indices `want` (ranges `[a, b)` of u64s, by increasing
    /// `a`), read by runs of whole pages, each page checked once.
    fn read(&self, want: &[(u64, u64)]) -> Result<Pages> {
        let mut pages: Vec<u64> = Vec::new();
        for &(a, b) in want.iter().filter(|r| r.1 > r.0) {
            let (p, q) = (8 * a / PAGE_BYTES, (8 * b - 1) / PAGE_BYTES);
            let from = pages.last().map_or(p, |&l| p.max(l + 1));
            pages.extend(from..=q);
        }
        let mut buf = vec![0u8; pages.len() * PAGE_BYTES as usize];
        let mut i = 0;
        while i < pages.len() {
            let mut j = i + 1;
            while j < pages.len() && pages[j] == pages[j - 1] + 1 {
                j += 1;
            }
            let at = pages[i] * PAGE_BYTES;
            let end = (pages[j - 1] + 1).saturating_mul(PAGE_BYTES).min(self.len);
            if at >= end {
                let why = format!("a list reaches offset {at}, past its {} bytes", self.len);
                return Err(Error::damaged(&self.store, &self.name, why));
            }
            let run = &mut buf[i * PAGE_BYTES as usize..][..(end - at) as usize];
            self.file
                .read_exact_at(run, at)
                .map_err(|e| Error::damaged(&self.store, &self.name, e))?;
            for (k, page) in run.chunks(PAGE_BYTES as usize).enumerate() {
                let p = pages[i] + k as u64;
                check_page(
                    &self.store,
                    &self.name,
                    p,
                    page,
                    self.sums.get(p as usize).copied(),
                )?;
            }
            i = j;
        }
        Ok(Pages { pages, buf })
    }
}

/// Pages read from one file: page `pages[i]` at `buf[i * 4096..]`.
struct Pages {
    pages: Vec<u64>,
    buf: Vec<u8>,
}

impl Pages {
    /// The u64 at index `x` of the file (its page was read).
    fn u64_at(&self, x: u64) -> u64 {
        let (p, o) = (8 * x / PAGE_BYTES, 8 * x % PAGE_BYTES);
        let i = self.pages.binary_search(&p).expect("page read");
        let at = i * PAGE_BYTES as usize + o as usize;
        u64::from_le_bytes(self.buf[at..at + 8].try_into().expect("8 bytes"))
    }
}

/// One direction's delta lists, read a window at a time.
pub struct PagedLists {
    n: u64,
    bits: Vec<u64>,
    rnk: Vec<u64>,
    records: u64,
    off: PagedFile,
    deg: PagedFile,
    rec: PagedFile,
    w: Option<PagedFile>,
}

impl PagedLists {
    /// Opens direction `which` of `store`'s delta; `None` without one.
    pub fn open(store: &Store, which: &str) -> Result<Option<PagedLists>> {
        let Some(d) = store.delta() else {
            return Ok(None);
        };
        let [bits, rnk, off, deg, rec, w] = lists_files(which);
        let l = PagedLists {
            n: d.num_vertices,
            bits: store.read_delta_u64s(&bits)?,
            rnk: store.read_delta_u64s(&rnk)?,
            records: d.lists.get(which).map_or(0, |l| l.records),
            off: PagedFile::open(store, &off)?,
            deg: PagedFile::open(store, &deg)?,
            rec: PagedFile::open(store, &rec)?,
            w: match store.base().weighted {
                true => Some(PagedFile::open(store, &w)?),
                false => None,
            },
        };
        if l.bits.len() as u64 != l.n.div_ceil(64)
            || l.rnk.len() as u64 != l.n.div_ceil(RANK_BLOCK_BITS) + 1
        {
            let why = format!("its bits or ranks do not cover the {} vertices", l.n);
            return Err(Error::damaged(store.path(), &store.delta_name(&bits), why));
        }
        Ok(Some(l))
    }

    /// Bytes held (what a reader charges to its budget).
    pub fn memory_bytes(&self) -> u64 {
        let sums = [
            Some(&self.off),
            Some(&self.deg),
            Some(&self.rec),
            self.w.as_ref(),
        ];
        let sums: usize = sums.iter().flatten().map(|f| f.sums.len()).sum();
        8 * (self.bits.len() + self.rnk.len() + sums) as u64
    }

    /// The index in `.off` of touched vertex `v`, `None` when untouched.
    fn rank(&self, v: u64) -> Option<u64> {
        touched_rank(&self.bits, &self.rnk, self.n, v)
    }

    /// The records of the touched vertices among `vs` (any order,
    /// repeats allowed): their pages of `.off`, `.deg`, `.rec` (and
    /// `.w`), read now and held by the window.
    pub fn window(&self, vs: impl Iterator<Item = u64>) -> Result<Window> {
        let mut touched: Vec<(u64, u64)> = vs.filter_map(|v| Some((v, self.rank(v)?))).collect();
        touched.sort_unstable();
        touched.dedup();
        let offs = self
            .off
            .read(&touched.iter().map(|&(_, i)| (i, i + 2)).collect::<Vec<_>>())?;
        let degs = self
            .deg
            .read(&touched.iter().map(|&(_, i)| (i, i + 1)).collect::<Vec<_>>())?;
        let mut spans = Vec::with_capacity(touched.len());
        for &(v, i) in &touched {
            let (a, b) = (offs.u64_at(i), offs.u64_at(i + 1));
            if a > b || b > self.records {
                let why = format!("vertex {v}'s records span {a}..{b} of {}", self.records);
                return Err(Error::damaged(&self.off.store, &self.off.name, why));
            }
            spans.push((a, b));
        }
        let recs = self.rec.read(&spans)?;
        let ws = match &self.w {
            Some(w) => Some(w.read(&spans)?),
            None => None,
        };
        let mut win = Window::default();
        for (k, (&(v, i), &(a, b))) in touched.iter().zip(&spans).enumerate() {
            let at = win.rec.len();
            win.rec.extend((a..b).map(|x| recs.u64_at(x)));
            if let Some(ws) = &ws {
                win.w.extend((a..b).map(|x| f64::from_bits(ws.u64_at(x))));
            }
            win.vs.push((v, at, win.rec.len(), degs.u64_at(i)));
            debug_assert_eq!(win.vs.len(), k + 1);
        }
        win.weighted = ws.is_some();
        Ok(win)
    }
}

/// The records of a window's touched vertices.
#[derive(Default)]
pub struct Window {
    /// (vertex, first record, end, degree in the view), by vertex.
    vs: Vec<(u64, usize, usize, u64)>,
    rec: Vec<u64>,
    w: Vec<f64>,
    weighted: bool,
}

impl Window {
    /// The records of vertex `v`, when the delta touches it (and the
    /// window holds it).
    pub fn lookup(&self, v: u64) -> Option<Records<'_>> {
        let i = self.vs.binary_search_by_key(&v, |t| t.0).ok()?;
        let (v, a, b, degree) = self.vs[i];
        Some(Records {
            v,
            recs: &self.rec[a..b],
            weights: self.weighted.then(|| &self.w[a..b]),
            degree,
        })
    }
}
