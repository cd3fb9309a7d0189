//! Fault injection for tests (issue 12): a device that fails on purpose,
//! chosen by `OUTCORE_FAULT_IO` in the environment, applied to the
//! completions every [`super::Reader`] of the process hands out (io_uring
//! and the portable backend alike). Requests are numbered from 0 in the
//! order their completions are delivered.
//!
//! - `eio@N`: request N fails with EIO (a read or a write);
//! - `short@N`: read N returns half of what it read (a short read that is
//!   not at the end of the file);
//! - `enospc@N`: the N-th write (writes counted apart) fails with ENOSPC;
//! - `slow@MS`: every completion is delayed by MS milliseconds.
//!
//! Callers must turn each into a clear error naming the file, or (a short
//! read) read the rest; never a wrong result.
//!
//! The build does its file I/O with plain calls, not a `Reader`; those
//! calls go through [`read_at`], [`read_exact_at`], [`write_all_at`] and
//! [`Faulty`] (streams), counted in the same sequence.

use super::Completion;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Eio(u64),
    Short(u64),
    Enospc(u64),
    Slow(u64),
}

fn plan() -> Option<Fault> {
    static PLAN: OnceLock<Option<Fault>> = OnceLock::new();
    *PLAN.get_or_init(|| {
        let v = std::env::var("OUTCORE_FAULT_IO").ok()?;
        let (kind, n) = v.split_once('@')?;
        let n: u64 = n.parse().ok()?;
        match kind {
            "eio" => Some(Fault::Eio(n)),
            "short" => Some(Fault::Short(n)),
            "enospc" => Some(Fault::Enospc(n)),
            "slow" => Some(Fault::Slow(n)),
            _ => None,
        }
    })
}

static REQUESTS: AtomicU64 = AtomicU64::new(0);
static WRITES: AtomicU64 = AtomicU64::new(0);

/// What the plan does to the request being made.
enum Act {
    Pass,
    Fail(i32),
    Short,
}

/// Counts one request (a write if `write`) and says what the plan does to it.
#[inline]
fn next(write: bool) -> Act {
    let Some(fault) = plan() else {
        return Act::Pass;
    };
    let i = REQUESTS.fetch_add(1, Ordering::Relaxed);
    let w = match write {
        true => WRITES.fetch_add(1, Ordering::Relaxed),
        false => u64::MAX,
    };
    match fault {
        Fault::Eio(n) if i == n => Act::Fail(libc::EIO),
        Fault::Short(n) if i == n && !write => Act::Short,
        Fault::Enospc(n) if w == n => Act::Fail(libc::ENOSPC),
        Fault::Slow(ms) => {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            Act::Pass
        }
        _ => Act::Pass,
    }
}

/// Applies the planned fault, if any, to a completion being delivered.
#[inline]
pub(crate) fn apply(c: &mut Completion) {
    match next(c.write) {
        Act::Pass => {}
        Act::Fail(e) => c.result = Err(io::Error::from_raw_os_error(e)),
        Act::Short => {
            if let Ok(b) = &mut c.result {
                *b /= 2;
            }
        }
    }
}

/// How much of a `len`-byte read a short read returns: half, in whole
/// 4 KiB blocks when that leaves any (direct I/O reads on from there).
fn short_len(len: usize) -> usize {
    match len / 2 / 4096 * 4096 {
        0 => len / 2,
        n => n,
    }
}

/// `FileExt::read_at` through the plan.
pub(crate) fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    match next(false) {
        Act::Pass => f.read_at(buf, at),
        Act::Fail(e) => Err(io::Error::from_raw_os_error(e)),
        Act::Short => {
            let n = short_len(buf.len());
            f.read_at(&mut buf[..n], at)
        }
    }
}

/// `FileExt::read_exact_at` through the plan (a short read reads on).
pub(crate) fn read_exact_at(f: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match read_at(f, buf, at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `FileExt::write_all_at` through the plan.
pub(crate) fn write_all_at(f: &File, buf: &[u8], at: u64) -> io::Result<()> {
    match next(true) {
        Act::Fail(e) => Err(io::Error::from_raw_os_error(e)),
        _ => f.write_all_at(buf, at),
    }
}

/// A stream (a file read or written in order) whose every read and write
/// goes through the plan.
pub(crate) struct Faulty<T>(pub T);

impl<T: Read> Read for Faulty<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match next(false) {
            Act::Pass => self.0.read(buf),
            Act::Fail(e) => Err(io::Error::from_raw_os_error(e)),
            Act::Short => {
                let n = short_len(buf.len()).max(buf.len().min(1));
                self.0.read(&mut buf[..n])
            }
        }
    }
}

impl<T: Write> Write for Faulty<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match next(true) {
            Act::Fail(e) => Err(io::Error::from_raw_os_error(e)),
            _ => self.0.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<T: Seek> Seek for Faulty<T> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.0.seek(pos)
    }
}
