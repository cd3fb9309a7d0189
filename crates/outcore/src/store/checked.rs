//! Checked reads of store files: every file of an open store is read
//! against its manifest entry (length and xxh3), whole-file reads hash what
//! they read and compare at the end, so a damaged degree, order, id or
//! index file is an error wherever it is read, not only in `verify`.

use super::manifest::{FileEntry, Manifest};
use crate::error::{Error, IoContext, Result};
use crate::io::fault::Faulty;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The files of every store this process opened, by path: the length and
/// hash each has by its manifest. Whole-file reads ([`read_chunks`],
/// [`read_u64s`]) of a listed file hash what they read and compare at the
/// end, so a damaged degree, order, id or index file is an error wherever
/// it is read, not only in `verify` (issue 12).
static EXPECTED: std::sync::Mutex<BTreeMap<PathBuf, Expected>> =
    std::sync::Mutex::new(BTreeMap::new());

/// What a file of an open store must hold, and where it is (for errors).
#[derive(Clone, Debug)]
pub(crate) struct Expected {
    store: PathBuf,
    rel: String,
    entry: FileEntry,
}

impl Expected {
    /// The file is damaged: `why`.
    pub(crate) fn damaged(&self, why: impl std::fmt::Display) -> Error {
        Error::damaged(&self.store, &self.rel, why)
    }
}

/// Records the files of the store `name`, read under `root` (its pinned
/// directory, [`super::pin::Pin`]), as its manifest lists them. A process
/// that opens many stores in turn (a fuzzer, a long Python session)
/// forgets each store's files when it closes ([`forget_files`]).
pub(crate) fn expect_files(root: &Path, name: &Path, manifest: &Manifest) {
    expect_entries(root, name, &manifest.files)
}

/// Records files of a directory (a store, a partition's id map) named
/// `name` and read under `root`, as `files` lists them. Entries of paths
/// since gone are dropped once the table grows (a partition has no pin).
pub(crate) fn expect_entries(root: &Path, name: &Path, files: &BTreeMap<String, FileEntry>) {
    let mut e = EXPECTED.lock().unwrap_or_else(|p| p.into_inner());
    if e.len() > 4096 {
        e.retain(|p, _| p.exists());
    }
    for (rel, entry) in files {
        let want = Expected {
            store: name.to_path_buf(),
            rel: rel.clone(),
            entry: entry.clone(),
        };
        e.insert(root.join(rel), want);
    }
}

/// Forgets the files under `root` (a store closing).
pub(crate) fn forget_files(root: &Path) {
    let mut e = EXPECTED.lock().unwrap_or_else(|p| p.into_inner());
    e.retain(|p, _| !p.starts_with(root));
}

/// What `path` must hold, when it is a file of an open store.
pub(crate) fn expected(path: &Path) -> Option<Expected> {
    let e = EXPECTED.lock().unwrap_or_else(|p| p.into_inner());
    e.get(path).cloned()
}

/// Damage to the file at `path`: [`Error::damaged`] when it is a file of
/// an open store (named as its manifest names it), else a store error
/// naming the path.
pub(crate) fn damaged_at(path: &Path, why: impl std::fmt::Display) -> Error {
    match expected(path) {
        Some(want) => want.damaged(why),
        None => Error::store(path, why.to_string()),
    }
}

/// Checks the length and hash of what was read of a file against `want`.
pub(crate) fn check_read(want: &Expected, bytes: u64, h: &Xxh3) -> Result<()> {
    let e = &want.entry;
    if bytes != e.bytes || format!("{:016x}", h.digest()) != e.xxh3 {
        return Err(want.damaged("checksum mismatch"));
    }
    Ok(())
}

/// A store file read front to back in small pieces (a degree, a rank at a
/// time), checked against its manifest entry once its last byte is read.
/// Our own buffer rather than a `BufReader`: each block is hashed once as
/// it comes in, so a 2-byte read is a copy, not a hash update (feeding the
/// hash 2 or 4 bytes at a time cost more than the programs' own init).
pub(crate) struct CheckedStream {
    input: Faulty<File>,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    path: PathBuf,
    want: Option<Expected>,
    h: Xxh3,
    bytes: u64,
}

/// Bytes read (and hashed) at once.
const STREAM_BLOCK: usize = 1 << 16;

impl CheckedStream {
    pub fn open(path: &Path) -> Result<CheckedStream> {
        let f = File::open(path).at(path)?;
        Ok(CheckedStream {
            input: Faulty(f),
            buf: vec![0u8; STREAM_BLOCK].into_boxed_slice(),
            pos: 0,
            len: 0,
            path: path.to_path_buf(),
            want: expected(path),
            h: Xxh3::new(),
            bytes: 0,
        })
    }

    /// Fills `out`; the block that ends the file is checked as it comes in.
    #[inline]
    pub fn read_exact(&mut self, out: &mut [u8]) -> Result<()> {
        let end = self.pos + out.len();
        if end <= self.len {
            out.copy_from_slice(&self.buf[self.pos..end]);
            self.pos = end;
            return Ok(());
        }
        self.read_across(out)
    }

    /// [`Self::read_exact`] across blocks.
    #[cold]
    fn read_across(&mut self, out: &mut [u8]) -> Result<()> {
        let mut done = 0;
        while done < out.len() {
            if self.pos == self.len {
                self.refill()?;
                if self.len == 0 {
                    return Err(self.damaged("shorter than the vertex count says"));
                }
            }
            let k = (out.len() - done).min(self.len - self.pos);
            out[done..done + k].copy_from_slice(&self.buf[self.pos..self.pos + k]);
            (self.pos, done) = (self.pos + k, done + k);
        }
        Ok(())
    }

    /// The next block (short only at the end of the file), hashed.
    fn refill(&mut self) -> Result<()> {
        let mut n = 0;
        while n < STREAM_BLOCK {
            match self.input.read(&mut self.buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.path, e)),
            }
        }
        (self.pos, self.len) = (0, n);
        if let Some(want) = &self.want {
            self.h.update(&self.buf[..n]);
            self.bytes += n as u64;
            if self.bytes >= want.entry.bytes {
                check_read(want, self.bytes, &self.h)?;
            }
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file is damaged: `why` ([`Error::damaged`] for a file of an
    /// open store).
    pub fn damaged(&self, why: impl std::fmt::Display) -> Error {
        match &self.want {
            Some(want) => want.damaged(why),
            None => Error::store(&self.path, why.to_string()),
        }
    }
}

/// Streams a file in chunks of whole `unit`-byte records to `f`; a file of
/// an open store is checked against its manifest entry at the end.
pub fn read_chunks(path: &Path, unit: usize, f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
    match expected(path) {
        Some(want) => {
            let mut h = Xxh3::new();
            let mut bytes = 0u64;
            let seen = |b: &[u8]| {
                h.update(b);
                bytes += b.len() as u64;
                Ok(())
            };
            read_chunks_unchecked(path, unit, seen, f, |why| want.damaged(why))?;
            check_read(&want, bytes, &h)
        }
        None => read_chunks_unchecked(path, unit, |_| Ok(()), f, |why| Error::store(path, why)),
    }
}

/// [`read_chunks`] without the check; `seen` sees every chunk first;
/// `bad` makes the error of a size that is not whole records.
fn read_chunks_unchecked(
    path: &Path,
    unit: usize,
    mut seen: impl FnMut(&[u8]) -> Result<()>,
    mut f: impl FnMut(&[u8]) -> Result<()>,
    bad: impl Fn(String) -> Error,
) -> Result<()> {
    let mut file = Faulty(File::open(path).at(path)?);
    let chunk = (1 << 20) / unit * unit;
    let mut buf = vec![0u8; chunk];
    let mut have = 0;
    loop {
        let n = file.read(&mut buf[have..]).at(path)?;
        if n == 0 {
            break;
        }
        have += n;
        let whole = have / unit * unit;
        if have == buf.len() {
            seen(&buf[..whole])?;
            f(&buf[..whole])?;
            buf.copy_within(whole..have, 0);
            have -= whole;
        }
    }
    if have % unit != 0 {
        return Err(bad(format!("size is not a multiple of {unit} bytes")));
    }
    if have > 0 {
        seen(&buf[..have])?;
        f(&buf[..have])?;
    }
    Ok(())
}

/// Size and XXH3 of a file, read sequentially.
pub fn checksum(path: &Path) -> Result<FileEntry> {
    let mut h = Xxh3::new();
    let mut bytes = 0u64;
    read_chunks_unchecked(
        path,
        1,
        |_| Ok(()),
        |b| {
            h.update(b);
            bytes += b.len() as u64;
            Ok(())
        },
        |why| Error::store(path, why),
    )?;
    Ok(FileEntry {
        bytes,
        xxh3: format!("{:016x}", h.digest()),
    })
}

/// Reads a whole little-endian u64 file (small index files only).
pub fn read_u64s(path: &Path) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    read_chunks(path, 8, |b| {
        out.extend(
            b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
        );
        Ok(())
    })?;
    Ok(out)
}
