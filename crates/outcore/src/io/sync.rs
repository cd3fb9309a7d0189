//! The portable backend: a few worker threads doing `pread`.

use super::{Completion, FileEntry, Req, MAX_CHUNK};
use crate::error::{Error, Result};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Worker threads at most (each blocks in one `pread` at a time).
const MAX_WORKERS: usize = 4;

/// Reads `buf.len()` bytes at `offset`, looping over short reads until the
/// buffer is full or the file ends; retries `EINTR`/`EAGAIN`. A read that
/// stops short at or past `file_len` (the length at open) is taken as the
/// end of the file without another call. Same rule as the io_uring backend.
pub(crate) fn read_full(
    file: &File,
    buf: &mut [u8],
    offset: u64,
    file_len: u64,
    chunk: usize,
) -> io::Result<usize> {
    let mut done = 0;
    let mut retries = 0;
    while done < buf.len() {
        let upto = buf.len().min(done + chunk);
        match file.read_at(&mut buf[done..upto], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => {
                done += n;
                if offset + done as u64 >= file_len {
                    break;
                }
            }
            Err(e)
                if (e.kind() == io::ErrorKind::Interrupted
                    || e.kind() == io::ErrorKind::WouldBlock)
                    && retries < super::uring::MAX_RETRIES =>
            {
                retries += 1;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Writes all of `buf` at `offset`, looping over short writes; retries
/// `EINTR`/`EAGAIN`; a write that accepts nothing is an error.
pub(crate) fn write_full(file: &File, buf: &[u8], offset: u64, chunk: usize) -> io::Result<usize> {
    let mut done = 0;
    let mut retries = 0;
    while done < buf.len() {
        let upto = buf.len().min(done + chunk);
        match file.write_at(&buf[done..upto], offset + done as u64) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the device accepted no bytes",
                ))
            }
            Ok(n) => done += n,
            Err(e)
                if (e.kind() == io::ErrorKind::Interrupted
                    || e.kind() == io::ErrorKind::WouldBlock)
                    && retries < super::uring::MAX_RETRIES =>
            {
                retries += 1;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

struct Job {
    file: Arc<File>,
    file_len: u64,
    chunk: usize,
    req: Req,
}

// SAFETY: the buffer pointer in the request is written only by the worker that
// owns the job, under the contract of `Reader::submit`.
unsafe impl Send for Job {}

/// Worker threads fed through one channel, answering through another.
pub(crate) struct SyncEngine {
    jobs: Option<Sender<Job>>,
    done: Receiver<Completion>,
    workers: Vec<JoinHandle<()>>,
    in_flight: usize,
    /// The largest single `pread` (smaller only in tests).
    pub(crate) chunk: usize,
}

impl SyncEngine {
    pub(crate) fn new(depth: usize) -> Result<SyncEngine> {
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let (done_tx, done_rx) = mpsc::channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let mut workers = Vec::new();
        for i in 0..depth.clamp(1, MAX_WORKERS) {
            let rx = Arc::clone(&job_rx);
            let tx = done_tx.clone();
            let h = std::thread::Builder::new()
                .name(format!("outcore-io-{i}"))
                .spawn(move || worker(rx, tx))
                .map_err(|e| Error::Invalid(format!("cannot start an I/O thread: {e}")))?;
            workers.push(h);
        }
        Ok(SyncEngine {
            jobs: Some(job_tx),
            done: done_rx,
            workers,
            in_flight: 0,
            chunk: MAX_CHUNK,
        })
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    pub(crate) fn start(&mut self, f: &FileEntry, req: Req) -> Result<()> {
        let job = Job {
            file: Arc::clone(&f.file),
            file_len: f.len,
            chunk: self.chunk,
            req,
        };
        self.jobs
            .as_ref()
            .expect("sender lives until drop")
            .send(job)
            .map_err(|_| dead())?;
        self.in_flight += 1;
        Ok(())
    }

    pub(crate) fn poll(&mut self, want: usize, out: &mut Vec<Completion>) -> Result<()> {
        let want = want.min(self.in_flight);
        for _ in 0..want {
            let c = self.done.recv().map_err(|_| dead())?;
            self.in_flight -= 1;
            out.push(c);
        }
        loop {
            match self.done.try_recv() {
                Ok(c) => {
                    self.in_flight -= 1;
                    out.push(c);
                }
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Disconnected) => {
                    return if self.in_flight == 0 {
                        Ok(())
                    } else {
                        Err(dead())
                    };
                }
            }
        }
    }
}

fn dead() -> Error {
    Error::Invalid("the I/O worker threads stopped unexpectedly".into())
}

fn worker(jobs: Arc<Mutex<Receiver<Job>>>, done: Sender<Completion>) {
    loop {
        // Hold the lock only while taking a job.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else {
            return; // the engine was dropped and every job taken
        };
        let (r, write) = (job.req.r, job.req.write);
        let result = if r.len == 0 {
            Ok(0)
        } else if write {
            // SAFETY: Reader::submit_writes' contract: buf is valid for len
            // bytes and nobody writes it until the completion is returned.
            let buf = unsafe { std::slice::from_raw_parts(r.buf as *const u8, r.len) };
            write_full(&job.file, buf, r.offset, job.chunk)
        } else {
            // SAFETY: Reader::submit's contract: buf is valid for len bytes and
            // nobody else touches it until the completion is returned.
            let buf = unsafe { std::slice::from_raw_parts_mut(r.buf, r.len) };
            read_full(&job.file, buf, r.offset, job.file_len, job.chunk)
        };
        let c = Completion {
            tag: r.tag,
            result,
            write,
            req: r,
        };
        if done.send(c).is_err() {
            // The engine is gone; keep draining so no job is left half-done.
            continue;
        }
    }
}

impl Drop for SyncEngine {
    fn drop(&mut self) {
        // Closing the job channel lets the workers finish every job already
        // sent (their buffers are written before join returns), then exit.
        self.jobs = None;
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}
