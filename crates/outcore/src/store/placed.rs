//! Store files written in pieces at known offsets (tiles placed from a
//! stream in another order: [`crate::ingest`]'s tile placement), through
//! the page cache, and hashed in file order by a follower thread as their
//! front becomes final.
//!
//! The manifest's xxh3 and the tiles' chunk sums need the bytes in file
//! order, which the placement does not write in. They used to be taken by
//! one read back of the whole file after its last piece: at kron-24, 1 GiB
//! copied and hashed (0.6-0.8 s) on the build's main thread with the rest
//! of the machine idle. The writer now says how far the file is final
//! ([`PlacedFile::final_upto`]: placement finishes rows of tiles in order,
//! and the tiles of finished rows lead the file), and a thread hashes each
//! final stretch from the page cache while the placement goes on.

use super::manifest::FileEntry;
use super::tiles::ChunkHasher;
use crate::error::{Error, IoContext, Result};
use crate::io::fault;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use xxhash_rust::xxh3::Xxh3;

/// Bytes the follower reads at a time.
const READ: usize = 1 << 20;

/// What the follower hands back: the file's hash and length, and its chunk
/// sums when they were asked for.
type Hashed = (Xxh3, u64, Option<Vec<u64>>);

/// A store file whose size is known up front, written in pieces at their
/// offsets. Made by [`super::file::StoreDir::placed`], closed by
/// [`super::file::StoreDir::close_placed`].
pub struct PlacedFile {
    pub(super) rel: String,
    path: PathBuf,
    file: Arc<File>,
    len: u64,
    /// Chunk sums to take (given to the follower when it starts).
    chunks: Option<ChunkHasher>,
    follower: Option<(Sender<u64>, JoinHandle<Result<Hashed>>)>,
    /// The end of the final front last announced.
    announced: u64,
}

impl PlacedFile {
    /// Creates `path` at `len` bytes (`rel` names it in the manifest);
    /// `chunk_sums`: also take the sums of its [`ChunkHasher`] chunks.
    pub(super) fn create(
        path: PathBuf,
        rel: &str,
        len: u64,
        chunk_sums: bool,
    ) -> Result<PlacedFile> {
        // Read too: the follower reads back what was written.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .at(&path)?;
        file.set_len(len).at(&path)?;
        Ok(PlacedFile {
            rel: rel.to_string(),
            path,
            file: Arc::new(file),
            len,
            chunks: chunk_sums.then(ChunkHasher::default),
            follower: None,
            announced: 0,
        })
    }

    /// Where the file is (inside the store's temporary directory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `buf` at byte offset `at`.
    pub fn write_at(&self, buf: &[u8], at: u64) -> Result<()> {
        super::file::fault_check(&self.path, buf.len())?;
        fault::write_all_at(&self.file, buf, at).at(&self.path)
    }

    /// Says bytes `..upto` are written for good: no later [`Self::write_at`]
    /// touches them. The follower (started by the first call) hashes them.
    pub fn final_upto(&mut self, upto: u64) {
        let upto = upto.min(self.len);
        if upto <= self.announced {
            return;
        }
        self.announced = upto;
        let tx = match &self.follower {
            Some((tx, _)) => tx,
            None => {
                let (tx, rx) = channel::<u64>();
                let (file, path) = (Arc::clone(&self.file), self.path.clone());
                let mut chunks = self.chunks.take();
                let h = std::thread::spawn(move || -> Result<Hashed> {
                    let (mut h, mut done) = (Xxh3::new(), 0u64);
                    let mut buf = vec![0u8; READ];
                    for upto in rx {
                        while done < upto {
                            let n = ((upto - done) as usize).min(READ);
                            fault::read_exact_at(&file, &mut buf[..n], done).at(&path)?;
                            h.update(&buf[..n]);
                            if let Some(c) = &mut chunks {
                                c.update(&buf[..n]);
                            }
                            done += n as u64;
                        }
                    }
                    Ok((h, done, chunks.map(ChunkHasher::finish)))
                });
                &self.follower.insert((tx, h)).0
            }
        };
        // A follower that stopped kept its error for `finish`.
        let _ = tx.send(upto);
    }

    /// Bytes announced final so far (hashed, or being hashed, ahead of
    /// the close).
    pub fn announced(&self) -> u64 {
        self.announced
    }

    /// Starts writing the file's dirty pages out without waiting
    /// (`sync_file_range`), so the sync at close has little left: at
    /// kron-24 the tiles' gigabyte was all flushed there, with the build's
    /// other threads done.
    pub fn start_writeback(&self) {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain syscall on an open descriptor; a failure only
        // leaves the work to the sync at close.
        unsafe {
            libc::sync_file_range(self.file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }

    /// Syncs the file and hashes what the follower has not (all of it when
    /// none ran); returns its manifest entry and chunk sums (when asked).
    pub(super) fn finish(mut self) -> Result<(String, FileEntry, Option<Vec<u64>>)> {
        self.file.sync_all().at(&self.path)?;
        self.final_upto(self.len);
        let (h, bytes, sums) = match self.follower.take() {
            Some((tx, handle)) => {
                drop(tx);
                handle.join().expect("placed file hasher panicked")?
            }
            // An empty file: nothing was announced.
            None => (Xxh3::new(), 0, self.chunks.take().map(ChunkHasher::finish)),
        };
        if bytes != self.len {
            return Err(Error::Invalid(format!(
                "internal: {} hashed {bytes} of {} bytes",
                self.path.display(),
                self.len
            )));
        }
        let xxh3 = format!("{:016x}", h.digest());
        Ok((self.rel, FileEntry { bytes, xxh3 }, sums))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces written out of order, the front announced final in uneven
    /// steps (some twice, some past the end): the hash and chunk sums equal
    /// those of the bytes read back whole.
    #[test]
    fn follower_hashes_as_a_read_back_would() {
        let dir = tempfile::tempdir().unwrap();
        let len = 3 * READ as u64 + 12345;
        let mut want = vec![0u8; len as usize];
        let mut x = 9u64;
        for b in want.iter_mut() {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            *b = (x >> 56) as u8;
        }
        let mut f = PlacedFile::create(dir.path().join("f"), "f", len, true).unwrap();
        // Pieces of 1000 bytes in a shuffled order; after every 500th the
        // longest written prefix is announced.
        let pieces: Vec<u64> = (0..len.div_ceil(1000)).collect();
        let mut order = pieces.clone();
        for i in (1..order.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            order.swap(i, (x >> 33) as usize % (i + 1));
        }
        let mut written = vec![false; pieces.len()];
        let mut front = 0;
        for (k, &p) in order.iter().enumerate() {
            let (a, b) = (p * 1000, ((p + 1) * 1000).min(len));
            f.write_at(&want[a as usize..b as usize], a).unwrap();
            written[p as usize] = true;
            while front < written.len() && written[front] {
                front += 1;
            }
            if k % 500 == 0 {
                f.final_upto(front as u64 * 1000);
                f.final_upto(front as u64 * 1000);
            }
        }
        let (rel, entry, sums) = f.finish().unwrap();
        assert_eq!(rel, "f");
        assert_eq!(entry.bytes, len);
        let whole = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&want));
        assert_eq!(entry.xxh3, whole);
        let mut c = ChunkHasher::default();
        c.update(&want);
        assert_eq!(sums.unwrap(), c.finish());
    }
}
