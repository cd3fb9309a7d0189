//! A spill's writes: every bucket's whole blocks of its section, with
//! `O_DIRECT` at the bucket file's end (through the page cache where the
//! filesystem refuses it); many small sections at once through io_uring
//! (or the portable backend's threads), large ones one after another.

use crate::error::{IoContext, Result};
use crate::io::{fault, AlignedBuf};
use crate::io::{open_direct, Access, Reader, WriteReq};
use std::path::PathBuf;

/// One write of a spill: `len` bytes at `from` in the encoding, to file
/// `file` at `at`; `create` on the file's first.
pub(super) struct Write {
    pub file: usize,
    pub at: u64,
    pub from: usize,
    pub len: usize,
    pub create: bool,
}

/// Writes in flight at once when a spill writes its buckets' sections.
const WRITE_DEPTH: usize = 64;
/// Sections smaller than this on average are written [`WRITE_DEPTH`] at a
/// time, larger ones one after another.
const SMALL_SECTIONS: usize = 1 << 20;

/// Writes a spill's sections of `enc`; small ones [`WRITE_DEPTH`] at once
/// (io_uring, or the portable backend's threads): one after another, a
/// spill of hundreds of buckets at `--memory 128MiB` (sections of 10-60
/// KiB) wrote at 70-200 MB/s and held kron-24's read phase at 8.5 s (6.4-6.8
/// s in flight) against 3.5 s at 1 GiB. Returns whether every file took
/// `O_DIRECT`.
pub(super) fn write_sections(
    writes: &[Write],
    files: &[PathBuf],
    enc: &AlignedBuf,
    buffered: bool,
) -> Result<bool> {
    let mut direct = true;
    let bytes: usize = writes.iter().map(|w| w.len).sum();
    if bytes >= SMALL_SECTIONS * writes.len() {
        // Large sections (a large share, few buckets): one at a time, each
        // a long sequential write (at 1 GiB kron-24's read phase was 3.5 s
        // this way, 4.0-4.6 s with 46 writes of 10 MB in flight).
        for w in writes {
            let path = &files[w.file];
            let (f, d) = open_direct(path, access(!w.create), buffered)?;
            direct &= d;
            let data = &enc.as_slice()[w.from..w.from + w.len];
            fault::write_all_at(&f, data, w.at).at(path)?;
        }
        return Ok(direct);
    }
    let mut io = Reader::new(None, WRITE_DEPTH.min(writes.len()))?;
    let mut reqs = Vec::with_capacity(writes.len());
    for (k, w) in writes.iter().enumerate() {
        let path = &files[w.file];
        let (f, d) = open_direct(path, access(!w.create), buffered)?;
        direct &= d;
        let file = io.adopt(path, f, d, "bucket");
        reqs.push(WriteReq {
            file,
            offset: w.at,
            len: w.len,
            buf: enc.as_slice()[w.from..w.from + w.len].as_ptr(),
            tag: k as u64,
        });
    }
    // SAFETY: `enc` outlives the writes: every one is waited for below
    // (and dropping `io` on an error waits for those in flight).
    unsafe { io.submit_writes(&reqs)? };
    let mut done = Vec::with_capacity(writes.len());
    while done.len() < writes.len() {
        io.wait(1, &mut done)?;
    }
    for c in done {
        let path = &files[writes[c.tag as usize].file];
        c.result.at(path)?;
    }
    Ok(direct)
}

/// A bucket file is created by its first write and appended to after.
pub(super) fn access(created: bool) -> Access {
    if created {
        Access::Write
    } else {
        Access::Create
    }
}
