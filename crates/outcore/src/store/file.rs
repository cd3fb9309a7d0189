//! Store files: checksummed writers, atomic store directories, checked readers.

pub use super::checked::{checksum, read_chunks, read_u64s};
pub(crate) use super::checked::{damaged_at, expect_entries, expect_files, CheckedStream};
use super::manifest::{FileEntry, Manifest, MANIFEST_FILE};
pub use super::placed::PlacedFile;
use crate::error::{Error, IoContext, Result};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use xxhash_rust::xxh3::Xxh3;

/// Fault injection for tests of the disk-full path: with
/// `OUTCORE_FAULT_DISK_FULL_AFTER=N` in the environment, store writes fail
/// with ENOSPC once N bytes were written by this process.
fn fault_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("OUTCORE_FAULT_DISK_FULL_AFTER")
            .ok()
            .and_then(|v| v.parse().ok())
    })
}

static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Counts `len` bytes about to be written to `path`; fails with ENOSPC past
/// the injected limit.
pub(super) fn fault_check(path: &Path, len: usize) -> Result<()> {
    if let Some(limit) = fault_limit() {
        let total = WRITTEN.fetch_add(len as u64, Ordering::Relaxed) + len as u64;
        if total > limit {
            return Err(Error::io(
                path,
                std::io::Error::from_raw_os_error(libc::ENOSPC),
            ));
        }
    }
    Ok(())
}

/// Writes one store file, hashing and counting as it goes.
pub struct DataWriter {
    rel: String,
    path: PathBuf,
    out: super::append::DirectAppender,
    hasher: Xxh3,
    bytes: u64,
    /// Page checksums, written beside the file on close
    /// ([`super::pagesums`]).
    pages: Option<super::tiles::ChunkHasher>,
}

impl DataWriter {
    fn create(path: PathBuf, rel: String) -> Result<DataWriter> {
        Ok(DataWriter {
            rel,
            out: super::append::DirectAppender::create(&path)?,
            path,
            hasher: Xxh3::new(),
            bytes: 0,
            pages: None,
        })
    }

    /// Appends bytes.
    pub fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        fault_check(&self.path, buf.len())?;
        self.hasher.update(buf);
        if let Some(p) = &mut self.pages {
            p.update(buf);
        }
        self.bytes += buf.len() as u64;
        self.out.write_all(buf)
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.bytes
    }

    /// Flushes and fsyncs; returns the file's manifest entry.
    fn finish(mut self) -> Result<(String, FileEntry)> {
        self.out.finish()?;
        Ok((
            self.rel,
            FileEntry {
                bytes: self.bytes,
                xxh3: format!("{:016x}", self.hasher.digest()),
            },
        ))
    }
}

/// Typed little-endian appends.
pub trait WriteLe {
    fn put_u16s(&mut self, v: &[u16]) -> Result<()>;
    fn put_u32s(&mut self, v: &[u32]) -> Result<()>;
    fn put_u64s(&mut self, v: &[u64]) -> Result<()>;
    fn put_f64s(&mut self, v: &[f64]) -> Result<()>;
}

macro_rules! put_le {
    ($name:ident, $t:ty) => {
        fn $name(&mut self, v: &[$t]) -> Result<()> {
            const W: usize = std::mem::size_of::<$t>();
            // A short slice (the delta's per-vertex offsets, a list's
            // records) must not zero a whole 8 KiB buffer each call.
            if v.len() * W <= 64 {
                let mut small = [0u8; 64];
                for (i, x) in v.iter().enumerate() {
                    small[i * W..(i + 1) * W].copy_from_slice(&x.to_le_bytes());
                }
                return self.write_all(&small[..v.len() * W]);
            }
            let mut buf = [0u8; 8192];
            for chunk in v.chunks(8192 / W) {
                for (i, x) in chunk.iter().enumerate() {
                    buf[i * W..(i + 1) * W].copy_from_slice(&x.to_le_bytes());
                }
                self.write_all(&buf[..chunk.len() * W])?;
            }
            Ok(())
        }
    };
}

impl WriteLe for DataWriter {
    put_le!(put_u16s, u16);
    put_le!(put_u32s, u32);
    put_le!(put_u64s, u64);
    put_le!(put_f64s, f64);
}

/// A store being created: everything goes to a hidden temporary directory
/// beside the destination, which is renamed into place only by [`commit`];
/// dropping it uncommitted removes the temporary directory.
///
/// [`commit`]: StoreDir::commit
pub struct StoreDir {
    dest: PathBuf,
    tmp: PathBuf,
    force: bool,
    files: BTreeMap<String, FileEntry>,
    committed: bool,
}

impl StoreDir {
    /// Starts a store at `dest`; refuses an existing `dest` unless `force`.
    pub fn create(dest: &Path, force: bool) -> Result<StoreDir> {
        super::check_store_dest(dest, force, &[])?;
        let name = dest
            .file_name()
            .ok_or_else(|| Error::Invalid(format!("{}: not a valid store path", dest.display())))?;
        let parent = parent_of(dest);
        clean_beside(dest);
        let tmp = parent.join(format!(
            ".{}.outcore-tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        // Left by a killed process of the same number: perhaps a store it
        // replaced, which a reader may still hold.
        if !crate::stale::remove_unpinned(&tmp)? {
            return Err(Error::Invalid(format!(
                "{}: a store left by another process, still open in a reader; \
                 retry once it has closed",
                tmp.display()
            )));
        }
        std::fs::create_dir(&tmp).at(&tmp)?;
        Ok(StoreDir {
            dest: dest.to_path_buf(),
            tmp,
            force,
            files: BTreeMap::new(),
            committed: false,
        })
    }

    /// The temporary directory (scratch files may live here too).
    pub fn tmp_path(&self) -> &Path {
        &self.tmp
    }

    /// Creates the data file `rel` (e.g. `tiles/edges.bin`).
    pub fn file(&mut self, rel: &str) -> Result<DataWriter> {
        let path = self.tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        DataWriter::create(path, rel.to_string())
    }

    /// Creates the data file `rel` with a checksum per
    /// [`super::pagesums::PAGE_BYTES`] page, written on close to
    /// [`super::pagesums::sums_file`]`(rel)` (files engines read page by
    /// page: the CSR).
    pub fn paged_file(&mut self, rel: &str) -> Result<DataWriter> {
        let mut w = self.file(rel)?;
        w.pages = Some(super::tiles::ChunkHasher::new(super::pagesums::PAGE_BYTES));
        Ok(w)
    }

    /// Finishes a data file and records it for the manifest.
    pub fn close(&mut self, mut w: DataWriter) -> Result<()> {
        let pages = w.pages.take();
        let (rel, entry) = w.finish()?;
        if let Some(p) = pages {
            let mut s = self.file(&super::pagesums::sums_file(&rel))?;
            s.put_u64s(&p.finish())?;
            self.close(s)?;
        }
        self.files.insert(rel, entry);
        Ok(())
    }

    /// Starts a data file of `len` bytes written at known offsets
    /// ([`PlacedFile`]); `chunk_sums`: its close also returns the sums of
    /// its tile chunks.
    pub fn placed(&mut self, rel: &str, len: u64, chunk_sums: bool) -> Result<PlacedFile> {
        let path = self.tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        PlacedFile::create(path, rel, len, chunk_sums)
    }

    /// Finishes a placed file: syncs it and records it for the manifest
    /// (hashed in order as it became final, the rest now); returns its
    /// chunk sums when they were asked for.
    pub fn close_placed(&mut self, f: PlacedFile) -> Result<Option<Vec<u64>>> {
        let (rel, entry, sums) = f.finish()?;
        self.files.insert(rel, entry);
        Ok(sums)
    }

    /// Takes `src`, a data file of another store, as `rel` (hard-linked,
    /// or copied where it cannot be): its bytes and checksum are `entry`'s.
    pub fn adopt(&mut self, rel: &str, src: &Path, entry: FileEntry) -> Result<()> {
        let path = self.tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        if std::fs::hard_link(src, &path).is_err() {
            std::fs::copy(src, &path).at(&path)?;
            File::open(&path).and_then(|f| f.sync_all()).at(&path)?;
        }
        self.files.insert(rel.to_string(), entry);
        Ok(())
    }

    /// Abandons a data file: it is removed and not recorded.
    pub fn discard(&mut self, w: DataWriter) -> Result<()> {
        let (rel, _) = w.finish()?;
        let path = self.tmp.join(&rel);
        std::fs::remove_file(&path).at(&path)
    }

    /// The data files closed so far, with their sizes and checksums.
    pub fn files(&self) -> &BTreeMap<String, FileEntry> {
        &self.files
    }

    /// Writes the manifest (with the file table) and moves the store into place.
    pub fn commit(mut self, mut manifest: Manifest) -> Result<PathBuf> {
        manifest.files = std::mem::take(&mut self.files);
        self.commit_as(MANIFEST_FILE, &manifest.to_json())
    }

    /// Writes `text` as the directory's manifest file `name` (a store's
    /// `manifest.json`, a partition's `partition.json`), last, and moves
    /// the directory into place.
    pub fn commit_as(mut self, name: &str, text: &str) -> Result<PathBuf> {
        crate::cancel::check()?;
        // Written whole under another name, then renamed: a kill leaves
        // either no manifest or a complete one.
        let mpath = self.tmp.join(name);
        let partial = self.tmp.join(format!("{name}.partial"));
        {
            let mut f = File::create(&partial).at(&partial)?;
            f.write_all(text.as_bytes()).at(&partial)?;
            f.write_all(b"\n").at(&partial)?;
            f.sync_all().at(&partial)?;
        }
        std::fs::rename(&partial, &mpath).at(&mpath)?;
        for sub in ["", "tiles", "csr", "degrees", "weights", "ids", "lists"] {
            let d = self.tmp.join(sub);
            if d.is_dir() {
                File::open(&d).and_then(|f| f.sync_all()).at(&d)?;
            }
        }
        let mut trash = None;
        if self.dest.exists() {
            if !self.force {
                return Err(Error::Invalid(format!(
                    "{} appeared while building; pass --force to replace it",
                    self.dest.display()
                )));
            }
            // The old store goes to a hidden name the stale cleaner knows
            // (`.NAME.outcore-tmp-PID.old-K`), in one atomic exchange where
            // the kernel has one: no moment without a store at `dest`.
            let t = trash_of(&self.tmp);
            if exchange(&self.tmp, &self.dest) {
                std::fs::rename(&self.tmp, &t).at(&self.tmp)?;
            } else {
                std::fs::rename(&self.dest, &t).at(&self.dest)?;
                std::fs::rename(&self.tmp, &self.dest).at(&self.dest)?;
            }
            trash = Some(t);
        } else {
            std::fs::rename(&self.tmp, &self.dest).at(&self.dest)?;
        }
        self.committed = true;
        if let Some(parent) = self.dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent).and_then(|f| f.sync_all()).at(parent)?;
        }
        // Readers of the old store keep it until they close ([`super::pin`]);
        // then the next writer on `dest` removes it ([`crate::stale::clean`]).
        if let Some(t) = trash {
            // A partition's marker goes first, as a store's manifest does
            // in `remove_unpinned`: a kill mid-removal leaves nothing whole.
            let marker = t.join(super::partition::PARTITION_FILE);
            if marker.exists() {
                std::fs::remove_file(&marker).at(&marker)?;
            }
            crate::stale::remove_unpinned(&t)?;
        }
        Ok(self.dest.clone())
    }
}

impl Drop for StoreDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// The directory holding `dest`.
fn parent_of(dest: &Path) -> PathBuf {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Removes what earlier writers of the store at `dest` left beside it:
/// the directories of builds killed before they could clean up, and the
/// stores they replaced that no reader pins any more.
pub fn clean_beside(dest: &Path) {
    if let Some(name) = dest.file_name() {
        crate::stale::clean(&parent_of(dest), &name.to_string_lossy(), "outcore-tmp");
    }
}

/// Where a replaced store waits for removal: the build's own hidden name
/// plus `.old-K`, the first K free (an earlier replace by this process may
/// still wait for its readers), so [`crate::stale::clean`] removes it when
/// a kill interrupts the removal or a reader held it.
fn trash_of(tmp: &Path) -> PathBuf {
    let mut k = 0u64;
    loop {
        let mut t = tmp.as_os_str().to_owned();
        t.push(format!(".old-{k}"));
        let t = PathBuf::from(t);
        if std::fs::symlink_metadata(&t).is_err() {
            return t;
        }
        k += 1;
    }
}

/// Swaps two paths atomically (`renameat2(RENAME_EXCHANGE)`); false when
/// the kernel or file system cannot, and nothing moved.
fn exchange(a: &Path, b: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(a), Ok(b)) = (
        std::ffi::CString::new(a.as_os_str().as_bytes()),
        std::ffi::CString::new(b.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // SAFETY: both are valid NUL-terminated paths relative to the cwd.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    r == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kill while a replaced store is being removed leaves its trash;
    /// the next build on the same target must recognise and remove it.
    #[test]
    fn the_trash_of_a_killed_replace_is_cleaned_by_the_next_build() {
        let d = tempfile::tempdir().unwrap();
        let dead = 2_147_483_000u32;
        let t = trash_of(&d.path().join(format!(".g.oc.outcore-tmp-{dead}")));
        std::fs::create_dir_all(t.join("tiles")).unwrap();
        std::fs::write(t.join("tiles/edges.bin"), "x").unwrap();
        let s = StoreDir::create(&d.path().join("g.oc"), false).unwrap();
        assert!(!t.exists(), "{} survived the next build", t.display());
        drop(s);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
