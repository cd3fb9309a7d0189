//! Page checksums of the files engines read a page at a time (the CSR:
//! adjacency, offsets, weights): `NAME.xxh` beside each holds the XXH3-64
//! of every [`PAGE_BYTES`] page (the last may be short). A reader checks
//! exactly the pages it read, so a damaged page is an error naming the
//! file and page, never a wrong result, without reading the whole file
//! first (the select engine reads a small part of it). The tiles have the
//! same guard in 64 KiB chunks ([`super::tiles::CHUNKS_FILE`]).
//!
//! Stores built before these files existed have none; their CSR pages are
//! then not checked (`outcore verify` still checks every file whole).

use super::file::{checksum, read_u64s};
use super::tiles::chunk_sum;
use super::Store;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes per checked page: the alignment of every direct read, so any
/// aligned read covers whole pages.
pub const PAGE_BYTES: u64 = 4096;

/// The checksum file of store file `rel`.
pub fn sums_file(rel: &str) -> String {
    format!("{rel}.xxh")
}

/// The page checksums of one store file, in memory (8 bytes per 4 KiB
/// page, charged to the budget).
pub struct PageSums {
    rel: String,
    path: PathBuf,
    sums: Vec<u64>,
    len: u64,
    _charge: Charge,
}

impl PageSums {
    /// Loads the sums of `rel` (checked whole against the manifest), or
    /// `None` when the store has none (built before they existed); shared,
    /// as readers hold them beside their buffers.
    pub fn load(store: &Store, rel: &str, budget: &Budget) -> Result<Option<Arc<PageSums>>> {
        let m = store.base();
        let name = sums_file(rel);
        let Some(want) = m.files.get(&name) else {
            return Ok(None);
        };
        let len = m.files.get(rel).map_or(0, |f| f.bytes);
        let charge = budget.charge(want.bytes, "page checksums")?;
        let path = store.file(&name);
        if &checksum(&path)? != want {
            return Err(Error::damaged(store.path(), &name, "checksum mismatch"));
        }
        let sums = read_u64s(&path)?;
        if sums.len() as u64 != len.div_ceil(PAGE_BYTES) {
            let why = format!("{} page sums for {len} bytes of {rel}", sums.len());
            return Err(Error::damaged(store.path(), &name, why));
        }
        Ok(Some(Arc::new(PageSums {
            rel: rel.to_string(),
            path: store.path().to_path_buf(),
            sums,
            len,
            _charge: charge,
        })))
    }

    /// Checks `bytes`, read from file offset `at` (a multiple of
    /// [`PAGE_BYTES`]): every page they reach, the file's short last page
    /// included. Bytes past the file's end (padding of a direct read) are
    /// ignored; bytes that end inside a page before the file's end as the
    /// manifest records it (a file cut short) are damage, as is a page
    /// that fails its checksum.
    pub fn check(&self, at: u64, bytes: &[u8]) -> Result<()> {
        debug_assert!(at.is_multiple_of(PAGE_BYTES));
        let end = (at + bytes.len() as u64).min(self.len);
        let mut off = at;
        while off < end {
            let page_end = (off + PAGE_BYTES).min(self.len);
            let p = (off / PAGE_BYTES) as usize;
            if page_end > end {
                let why = format!(
                    "it ends at offset {end}, inside page {p}, but the manifest records {} bytes",
                    self.len
                );
                return Err(Error::damaged(&self.path, &self.rel, why));
            }
            let b = &bytes[(off - at) as usize..(page_end - at) as usize];
            check_page(
                &self.path,
                &self.rel,
                p as u64,
                b,
                self.sums.get(p).copied(),
            )?;
            off = page_end;
        }
        Ok(())
    }

    /// The checksums themselves (for `verify`).
    pub fn sums(&self) -> &[u64] {
        &self.sums
    }
}

/// Checks page `p` of store file `rel` (of the store at `store`) against
/// its sum `want` (`None`: none recorded, damage too).
pub fn check_page(store: &Path, rel: &str, p: u64, page: &[u8], want: Option<u64>) -> Result<()> {
    if want == Some(chunk_sum(page)) {
        return Ok(());
    }
    let why = format!("page {p} (offset {}) fails its checksum", p * PAGE_BYTES);
    Err(Error::damaged(store, rel, why))
}

/// [`PageSums::check`] where a file has sums; nothing to check otherwise.
pub fn check(sums: &Option<Arc<PageSums>>, at: u64, bytes: &[u8]) -> Result<()> {
    match sums {
        Some(s) => s.check(at, bytes),
        None => Ok(()),
    }
}
