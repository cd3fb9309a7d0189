//! `io`: direct reads from the SSD (DESIGN.md "io").
//!
//! - [`AlignedBuf`]: heap buffers aligned to [`ALIGN`], charged to the budget.
//! - [`Reader`]: opens files with `O_DIRECT` (buffered where the filesystem
//!   refuses it) and keeps up to `depth` reads in flight on one of two
//!   backends: io_uring ([`Backend::Uring`], one `io_uring_enter` per batch)
//!   or a small pool of `pread` threads ([`Backend::Sync`]). Both give the same
//!   results: a request completes with the bytes read, fewer than asked only
//!   at end of file.
//! - [`IoStats`]: bytes, requests and seconds spent blocked, per reader.
//!
//! A typical loop: [`Reader::submit`] a batch of [`ReadReq`]s (more than
//! `depth` is fine: the rest wait in a queue), then [`Reader::wait`] for
//! completions, matched to requests by `tag`, while [`Reader::pending`] > 0.
//!
//! Writes take the same path: [`Reader::create`] opens a file for direct
//! reads and writes, [`Reader::submit_writes`] queues [`WriteReq`]s beside the
//! reads, and their completions come back through [`Reader::wait`] with
//! [`Completion::write`] set (the external engine's logs and vertex state).

mod buffer;
pub mod calibrate;
mod ends;
mod engine;
pub(crate) mod fault;
mod open;
mod range;
mod request;
mod stats;
mod sync;
mod uring;

#[cfg(test)]
mod tests;

/// A temporary directory under the target dir: a disk file system (unlike
/// /tmp on some machines), so O_DIRECT and io_uring run as on a store.
#[cfg(test)]
pub(crate) fn disk_test_dir(prefix: &str) -> tempfile::TempDir {
    let exe = std::env::current_exe().unwrap();
    let base = exe.parent().unwrap(); // target/<profile>/deps
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(base)
        .unwrap()
}

pub use buffer::AlignedBuf;
use engine::Engine;
pub use open::{open_direct, Access};
pub use range::read_range;
pub use request::{Backend, Completion, ReadReq, WriteReq};
pub(crate) use request::{FileEntry, Req};
pub use stats::IoStats;

use crate::error::{Error, Result};
use std::collections::VecDeque;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Alignment of offsets, lengths and buffers of direct reads.
pub const ALIGN: usize = 4096;

/// The largest depth a [`Reader`] accepts.
pub const MAX_DEPTH: usize = 4096;

/// The largest single read handed to the kernel (Linux's MAX_RW_COUNT,
/// ALIGN-aligned); longer requests are issued in pieces.
pub(crate) const MAX_CHUNK: usize = 0x7fff_f000;
/// Opens files for direct reads and runs asynchronous reads on them.
pub struct Reader {
    /// Declared first so that it is dropped first: dropping it waits for the
    /// reads in flight, whose file descriptors live in `files`.
    engine: Engine,
    backend: Backend,
    depth: usize,
    files: Vec<FileEntry>,
    queue: VecDeque<Req>,
    /// Completions taken from the backend but not yet handed to the caller.
    ready: Vec<Completion>,
    stats: IoStats,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("backend", &self.backend)
            .field("depth", &self.depth)
            .field("files", &self.files)
            .field("pending", &self.pending())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Reader {
    /// `backend`: `Some(Uring)` fails if io_uring is unavailable; `Some(Sync)`
    /// forces the fallback; `None` = Uring when available, else Sync.
    /// `depth`: max requests in flight (e.g. 32), 1..=[`MAX_DEPTH`].
    pub fn new(backend: Option<Backend>, depth: usize) -> Result<Reader> {
        if depth == 0 || depth > MAX_DEPTH {
            return Err(Error::Invalid(format!(
                "I/O depth must be between 1 and {MAX_DEPTH}, not {depth}"
            )));
        }
        let engine = match backend {
            Some(Backend::Uring) => {
                uring::probe().map_err(|why| {
                    Error::Invalid(format!(
                        "io_uring is not available here ({why}); use the `sync` I/O backend"
                    ))
                })?;
                Engine::Uring(Box::new(uring::UringEngine::new(depth).map_err(|e| {
                    Error::Invalid(format!(
                        "io_uring is not available here (setting up a ring of {depth}: {e}); \
                         use the `sync` I/O backend"
                    ))
                })?))
            }
            Some(Backend::Sync) => Engine::Sync(sync::SyncEngine::new(depth)?),
            None => match uring::probe()
                .ok()
                .and_then(|()| uring::UringEngine::new(depth).ok())
            {
                Some(e) => Engine::Uring(Box::new(e)),
                None => Engine::Sync(sync::SyncEngine::new(depth)?),
            },
        };
        let backend = match engine {
            Engine::Uring(_) => Backend::Uring,
            Engine::Sync(_) => Backend::Sync,
        };
        Ok(Reader {
            engine,
            backend,
            depth,
            files: Vec::new(),
            queue: VecDeque::new(),
            ready: Vec::new(),
            stats: IoStats::default(),
        })
    }

    /// Caps single reads at `chunk` bytes so that tests exercise the
    /// continuation of partial reads.
    #[cfg(test)]
    fn set_chunk(&mut self, chunk: usize) {
        match &mut self.engine {
            Engine::Uring(e) => e.chunk = chunk,
            Engine::Sync(e) => e.chunk = chunk,
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Max requests in flight.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Opens a file with `O_DIRECT` (falling back to buffered reads, with
    /// [`Reader::direct`] false, on filesystems that refuse `O_DIRECT`, e.g.
    /// some tmpfs and procfs); returns its index for [`ReadReq::file`].
    /// `role` says what the file holds ("offsets", "state", ...): errors
    /// of its reads name it ([`Reader::role`]).
    pub fn open(&mut self, path: &Path, role: &'static str) -> Result<usize> {
        let (file, direct) = open_direct(path, Access::Read, false)?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::Invalid(format!(
                "{}: is a directory, not a file",
                path.display()
            )));
        }
        Ok(self.add_file(path, file, direct, meta.len(), role))
    }

    /// Creates (or truncates) `path` for direct reads and writes (buffered
    /// where the filesystem refuses `O_DIRECT`); returns its index for
    /// [`WriteReq::file`] and [`ReadReq::file`]. The caller removes the file.
    pub fn create(&mut self, path: &Path, role: &'static str) -> Result<usize> {
        let (file, direct) = open_direct(path, Access::Create, false)?;
        Ok(self.add_file(path, file, direct, 0, role))
    }

    /// Takes over a file opened elsewhere ([`open_direct`], writable or
    /// not; `direct`: as it said) and written through this reader from
    /// empty; returns its index.
    pub fn adopt(&mut self, path: &Path, file: File, direct: bool, role: &'static str) -> usize {
        self.add_file(path, file, direct, 0, role)
    }

    fn add_file(
        &mut self,
        path: &Path,
        file: File,
        direct: bool,
        len: u64,
        role: &'static str,
    ) -> usize {
        self.files.push(FileEntry {
            // For messages: a pinned store's file under the store's name.
            path: crate::error::shown(path),
            file: Arc::new(file),
            direct,
            len,
            role,
        });
        self.files.len() - 1
    }

    /// Whether `file` was opened with `O_DIRECT`. Panics on an unknown index.
    pub fn direct(&self, file: usize) -> bool {
        self.files[file].direct
    }

    /// The length of `file` when it was opened, grown by the writes queued
    /// since: a read must find every byte below it ([`Reader::wait`]).
    /// Panics on an unknown index.
    pub fn file_len(&self, file: usize) -> u64 {
        self.files[file].len
    }

    /// The path `file` was opened with (for wrapping a failed [`Completion`]
    /// with [`Error::io`]). Panics on an unknown index.
    pub fn path(&self, file: usize) -> &Path {
        &self.files[file].path
    }

    /// Files opened so far.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// Queues requests; submits as many as fit in flight (batched: one
    /// `io_uring_enter` per batch). Never blocks on I/O completion.
    /// Requests that are not ALIGN-aligned or name an unknown file are refused
    /// with [`Error::Invalid`] before any of the batch is queued.
    ///
    /// # Safety
    /// Each buffer must stay valid (and untouched) until its [`Completion`] is
    /// returned by [`Reader::wait`], or until the reader is dropped (dropping
    /// waits for the reads in flight; queued ones are discarded).
    pub unsafe fn submit(&mut self, reqs: &[ReadReq]) -> Result<()> {
        for r in reqs {
            self.check(r)?;
        }
        self.queue
            .extend(reqs.iter().map(|&r| Req { r, write: false }));
        self.fill()
    }

    /// Queues writes like [`submit`](Reader::submit) queues reads (same
    /// alignment rules, same window of requests in flight). A file's length
    /// as seen by later reads grows to cover each write when it is queued.
    ///
    /// # Safety
    /// Each buffer must stay valid and unmodified until its [`Completion`] is
    /// returned by [`Reader::wait`], or until the reader is dropped.
    pub unsafe fn submit_writes(&mut self, reqs: &[WriteReq]) -> Result<()> {
        let as_read = |w: &WriteReq| ReadReq {
            file: w.file,
            offset: w.offset,
            len: w.len,
            buf: w.buf as *mut u8,
            tag: w.tag,
        };
        for w in reqs {
            self.check(&as_read(w))?;
        }
        for w in reqs {
            let f = &mut self.files[w.file];
            f.len = f.len.max(w.offset + w.len as u64);
            self.queue.push_back(Req {
                r: as_read(w),
                write: true,
            });
        }
        self.fill()
    }

    fn check(&self, r: &ReadReq) -> Result<()> {
        let Some(f) = self.files.get(r.file) else {
            return Err(Error::Invalid(format!(
                "read request (tag {}) names file {} but only {} are open",
                r.tag,
                r.file,
                self.files.len()
            )));
        };
        let aligned = r.offset.is_multiple_of(ALIGN as u64)
            && r.len.is_multiple_of(ALIGN)
            && (r.buf as usize).is_multiple_of(ALIGN)
            && !(r.buf.is_null() && r.len > 0);
        if !aligned {
            return Err(Error::Invalid(format!(
                "{}: read request (tag {}) of {} bytes at offset {} into {:p} is not {ALIGN}-aligned",
                f.path.display(),
                r.tag,
                r.len,
                r.offset,
                r.buf
            )));
        }
        if r.offset
            .checked_add(r.len as u64)
            .is_none_or(|end| end > i64::MAX as u64)
        {
            return Err(Error::Invalid(format!(
                "{}: read request (tag {}) at offset {} is out of range",
                f.path.display(),
                r.tag,
                r.offset
            )));
        }
        Ok(())
    }

    /// Starts queued requests in free slots, then hands them to the kernel.
    fn fill(&mut self) -> Result<()> {
        while self.engine.in_flight() < self.depth {
            let Some(r) = self.queue.pop_front() else {
                break;
            };
            self.engine.start(&self.files[r.r.file], r)?;
        }
        self.engine.flush()
    }

    /// Waits until at least `min` completions are available (or nothing is in
    /// flight or queued), appends them (all that are available, possibly more
    /// than `min`) to `out`, refilling the in-flight window from the queue as
    /// slots free up. Time spent blocked counts as I/O wait.
    pub fn wait(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<()> {
        let mut got = self.deliver(out);
        loop {
            self.engine.poll(0, &mut self.ready)?;
            got += self.deliver(out);
            self.fill()?;
            let in_flight = self.engine.in_flight();
            if got >= min || in_flight == 0 {
                return Ok(());
            }
            // With requests queued, wake at each completion to refill the window.
            let want = if self.queue.is_empty() {
                (min - got).min(in_flight)
            } else {
                1
            };
            let t = Instant::now();
            let r = self.engine.poll(want, &mut self.ready);
            self.stats.wait_seconds += t.elapsed().as_secs_f64();
            r?;
            got += self.deliver(out);
        }
    }

    /// Waits for the request tagged `tag` alone and returns its completion;
    /// completions of other requests stay for later calls of this or of
    /// [`wait`](Reader::wait). Time spent blocked counts as I/O wait.
    pub fn wait_tag(&mut self, tag: u64) -> Result<Completion> {
        loop {
            if let Some(i) = self.ready.iter().position(|c| c.tag == tag) {
                let mut c = self.ready.swap_remove(i);
                self.settle(&mut c);
                return Ok(c);
            }
            self.engine.poll(0, &mut self.ready)?;
            self.fill()?;
            if self.ready.iter().any(|c| c.tag == tag) {
                continue;
            }
            if self.engine.in_flight() == 0 {
                return Err(Error::Invalid(format!(
                    "no I/O request tagged {tag} is queued or in flight"
                )));
            }
            let t = Instant::now();
            let r = self.engine.poll(1, &mut self.ready);
            self.stats.wait_seconds += t.elapsed().as_secs_f64();
            r?;
        }
    }

    /// Moves ready completions to `out`, counting them; returns how many.
    fn deliver(&mut self, out: &mut Vec<Completion>) -> usize {
        let n = self.ready.len();
        let mut ready = std::mem::take(&mut self.ready);
        for c in &mut ready {
            self.settle(c);
        }
        out.append(&mut ready);
        self.ready = ready;
        n
    }

    /// Requests queued or in flight (completions already taken from the
    /// backend but not yet returned by `wait` count too).
    pub fn pending(&self) -> usize {
        self.queue.len() + self.engine.in_flight() + self.ready.len()
    }

    /// What this reader has done so far.
    pub fn stats(&self) -> IoStats {
        self.stats
    }
}
