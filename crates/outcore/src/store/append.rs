//! Appending a store file with `O_DIRECT`, double-buffered: bytes gather in
//! one aligned buffer while the other is written on a background thread, so
//! the writer never copies into the page cache (a kernel copy that cost the
//! build more CPU than its sorting) and the disk works while the caller
//! computes. The last block goes out padded and the file is truncated to
//! its length. Where the filesystem refuses `O_DIRECT` the same writes go
//! through the page cache.

use crate::error::{IoContext, Result};
use crate::io::{open_direct, Access, AlignedBuf, ALIGN};
use crate::mem::Budget;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Bytes per write.
const BUF: usize = 1 << 20;

type Write = JoinHandle<(AlignedBuf, std::io::Result<()>)>;

/// See the module docs.
pub struct DirectAppender {
    path: PathBuf,
    file: Arc<File>,
    buf: AlignedBuf,
    fill: usize,
    /// File offset of `buf`.
    at: u64,
    in_flight: Option<Write>,
    spare: Option<AlignedBuf>,
}

impl DirectAppender {
    /// Creates (truncates) `path`. The buffers are not charged to a build's
    /// budget: they are part of what the build reserves for its writers.
    pub fn create(path: &Path) -> Result<DirectAppender> {
        let (file, _) = open_direct(path, Access::Create, false)?;
        let unbudgeted = Budget::new(u64::MAX);
        Ok(DirectAppender {
            path: path.to_path_buf(),
            file: Arc::new(file),
            buf: AlignedBuf::new(BUF, &unbudgeted, "store writer")?,
            fill: 0,
            at: 0,
            in_flight: None,
            spare: Some(AlignedBuf::new(BUF, &unbudgeted, "store writer")?),
        })
    }

    /// Appends bytes.
    pub fn write_all(&mut self, mut b: &[u8]) -> Result<()> {
        while !b.is_empty() {
            let take = (BUF - self.fill).min(b.len());
            self.buf.as_mut_slice()[self.fill..self.fill + take].copy_from_slice(&b[..take]);
            self.fill += take;
            b = &b[take..];
            if self.fill == BUF {
                self.flush_full()?;
            }
        }
        Ok(())
    }

    /// Waits for the write in flight; its buffer becomes the spare.
    fn wait(&mut self) -> Result<()> {
        if let Some(h) = self.in_flight.take() {
            let (buf, r) = h.join().expect("store writer thread panicked");
            self.spare = Some(buf);
            r.at(&self.path)?;
        }
        Ok(())
    }

    /// Sends the full buffer to a writer thread and goes on with the other.
    fn flush_full(&mut self) -> Result<()> {
        self.wait()?;
        let next = self.spare.take().expect("a spare after waiting");
        let full = std::mem::replace(&mut self.buf, next);
        let (file, at) = (Arc::clone(&self.file), self.at);
        self.in_flight = Some(std::thread::spawn(move || {
            let r = file.write_all_at(full.as_slice(), at);
            (full, r)
        }));
        self.at += BUF as u64;
        self.fill = 0;
        Ok(())
    }

    /// Writes what is left (padded to a block), truncates the padding off
    /// and syncs.
    pub fn finish(&mut self) -> Result<()> {
        self.wait()?;
        let len = self.at + self.fill as u64;
        if self.fill > 0 {
            let whole = self.fill.next_multiple_of(ALIGN);
            self.buf.as_mut_slice()[self.fill..whole].fill(0);
            self.file
                .write_all_at(&self.buf.as_slice()[..whole], self.at)
                .at(&self.path)?;
        }
        self.fill = 0;
        self.at = len;
        self.file.set_len(len).at(&self.path)?;
        self.file.sync_all().at(&self.path)
    }
}

impl Drop for DirectAppender {
    fn drop(&mut self) {
        if let Some(h) = self.in_flight.take() {
            let _ = h.join();
        }
    }
}
