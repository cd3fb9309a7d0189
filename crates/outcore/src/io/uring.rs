//! The io_uring backend: one ring, up to `depth` reads in flight, one
//! `io_uring_enter` per batch.

use super::{Completion, FileEntry, Req, MAX_CHUNK};
use crate::error::{Error, Result};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};
use std::sync::OnceLock;

/// How often a read that failed with `EAGAIN`/`EINTR` is retried before the
/// error is reported.
pub(crate) const MAX_RETRIES: u32 = 100;

/// Whether io_uring works here (set up a ring, the read opcode is supported,
/// a no-op goes through). Probed once per process; `Err` says why not.
pub(crate) fn probe() -> std::result::Result<(), String> {
    static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBE.get_or_init(probe_now).clone()
}

fn probe_now() -> std::result::Result<(), String> {
    let mut ring = IoUring::new(2).map_err(|e| format!("io_uring_setup: {e}"))?;
    let mut p = io_uring::Probe::new();
    ring.submitter()
        .register_probe(&mut p)
        .map_err(|e| format!("io_uring_register(PROBE): {e}"))?;
    if !p.is_supported(opcode::Read::CODE) {
        return Err("the kernel's io_uring has no READ operation (Linux 5.6+ needed)".into());
    }
    let nop = opcode::Nop::new().build().user_data(7);
    // SAFETY: a no-op references no memory.
    unsafe { ring.submission().push(&nop) }.map_err(|_| "submission queue full".to_string())?;
    loop {
        match ring.submit_and_wait(1) {
            Ok(_) => break,
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => return Err(format!("io_uring_enter: {e}")),
        }
    }
    let cqe = ring.completion().next();
    match cqe {
        Some(c) if c.user_data() == 7 && c.result() >= 0 => Ok(()),
        Some(c) => Err(format!(
            "a no-op completed with {}",
            io::Error::from_raw_os_error(-c.result())
        )),
        None => Err("a no-op did not complete".into()),
    }
}

/// A read in flight: the request and how much of it has arrived.
#[derive(Clone, Copy)]
struct Slot {
    req: Req,
    fd: RawFd,
    file_len: u64,
    done: usize,
    retries: u32,
}

pub(crate) struct UringEngine {
    ring: IoUring,
    /// Indexed by user_data.
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    in_flight: usize,
    /// (user_data, result) taken from the completion queue.
    cqes: Vec<(u64, i32)>,
    /// The largest single read (smaller only in tests).
    pub(crate) chunk: usize,
}

impl UringEngine {
    pub(crate) fn new(depth: usize) -> io::Result<UringEngine> {
        // The completion queue is twice the submission queue, so with at most
        // `depth` reads in flight it never overflows.
        let entries = depth.next_power_of_two().max(2) as u32;
        let ring = IoUring::new(entries)?;
        Ok(UringEngine {
            ring,
            slots: vec![None; depth],
            free: (0..depth as u32).rev().collect(),
            in_flight: 0,
            cqes: Vec::with_capacity(depth),
            chunk: MAX_CHUNK,
        })
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Puts `req` in a free slot and queues its SQE (no system call).
    pub(crate) fn start(&mut self, f: &FileEntry, req: Req) {
        let idx = self.free.pop().expect("Reader keeps in_flight below depth");
        self.slots[idx as usize] = Some(Slot {
            req,
            fd: f.file.as_raw_fd(),
            file_len: f.len,
            done: 0,
            retries: 0,
        });
        self.in_flight += 1;
        self.push(idx);
    }

    /// Queues the SQE for the rest of slot `idx`.
    fn push(&mut self, idx: u32) {
        let s = self.slots[idx as usize].as_ref().expect("slot in use");
        let left = (s.req.r.len - s.done).min(self.chunk);
        // The pointer stays inside the caller's buffer (done < len, or 0 for an empty read).
        let buf = s.req.r.buf.wrapping_add(s.done);
        let at = s.req.r.offset + s.done as u64;
        let e = if s.req.write {
            opcode::Write::new(types::Fd(s.fd), buf, left as u32)
                .offset(at)
                .build()
                .user_data(idx as u64)
        } else {
            opcode::Read::new(types::Fd(s.fd), buf, left as u32)
                .offset(at)
                .build()
                .user_data(idx as u64)
        };
        // SAFETY: the buffer is valid for `left` bytes until the completion is
        // returned (Reader::submit's contract); the fd lives in the Reader's
        // file table, which outlives the engine's requests (drop drains them).
        // The queue holds at least `depth` entries and at most `depth` are in use.
        unsafe { self.ring.submission().push(&e) }
            .expect("submission queue has room for depth entries");
    }

    /// Hands queued SQEs to the kernel without waiting. A kernel short of
    /// resources (EAGAIN/EBUSY) keeps them for the next call.
    pub(crate) fn flush(&mut self) -> Result<()> {
        if self.ring.submission().is_empty() {
            return Ok(());
        }
        self.enter(0)
    }

    fn enter(&mut self, want: usize) -> Result<()> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) => match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    // Out of resources or completions to reap first: the
                    // caller's loop reaps and tries again.
                    Some(libc::EAGAIN) | Some(libc::EBUSY) => {
                        if want > 0 {
                            std::thread::yield_now();
                        }
                        return Ok(());
                    }
                    _ => return Err(Error::io("io_uring", e)),
                },
            }
        }
    }

    /// Moves finished reads to `out`; with `want` > 0, first blocks until at
    /// least `want` (capped at the reads in flight) have finished.
    pub(crate) fn poll(&mut self, want: usize, out: &mut Vec<Completion>) -> Result<()> {
        let want = want.min(self.in_flight);
        let mut finished = self.reap(out);
        while finished < want {
            self.enter(want - finished)?;
            finished += self.reap(out);
        }
        Ok(())
    }

    /// Takes every CQE; finished requests go to `out` (returns how many),
    /// partial and retried ones are queued again (submitted by the next enter).
    fn reap(&mut self, out: &mut Vec<Completion>) -> usize {
        self.cqes.clear();
        self.cqes
            .extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
        let mut finished = 0;
        for i in 0..self.cqes.len() {
            let (ud, res) = self.cqes[i];
            let idx = ud as u32;
            let s = self.slots[idx as usize]
                .as_mut()
                .expect("CQE for a slot in use");
            let outcome = if res < 0 {
                let errno = -res;
                if (errno == libc::EAGAIN || errno == libc::EINTR) && s.retries < MAX_RETRIES {
                    s.retries += 1;
                    None
                } else {
                    Some(Err(io::Error::from_raw_os_error(errno)))
                }
            } else {
                let n = res as usize;
                s.done += n;
                let pos = s.req.r.offset + s.done as u64;
                if s.req.write && n == 0 && s.done < s.req.r.len {
                    Some(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the device accepted no bytes",
                    )))
                } else if n == 0 || s.done >= s.req.r.len || (!s.req.write && pos >= s.file_len) {
                    Some(Ok(s.done))
                } else {
                    None // a short read before the end: read the rest
                }
            };
            match outcome {
                None => self.push(idx),
                Some(result) => {
                    let (req, write) = (s.req.r, s.req.write);
                    self.slots[idx as usize] = None;
                    self.free.push(idx);
                    self.in_flight -= 1;
                    finished += 1;
                    out.push(Completion {
                        tag: req.tag,
                        result,
                        write,
                        req,
                    });
                }
            }
        }
        finished
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        // The kernel may write into the callers' buffers until each read
        // completes, so wait for all of them (without resubmitting partial ones).
        while self.in_flight > 0 {
            if let Err(e) = self.ring.submit_and_wait(1) {
                match e.raw_os_error() {
                    Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY) => {}
                    _ => return,
                }
            }
            let cqes: Vec<u64> = self.ring.completion().map(|c| c.user_data()).collect();
            for ud in cqes {
                if self.slots[ud as usize].take().is_some() {
                    self.in_flight -= 1;
                }
            }
        }
    }
}
