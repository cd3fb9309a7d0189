//! Where a file ends: every completion a [`Reader`] hands out is checked
//! against the length of its file as the reader knows it (at open, grown
//! by the writes queued since). A read that reaches the end stops short,
//! and the rest of its buffer is zeroed, so bytes past the end (a direct
//! read's padding, or what the buffer held before) are never taken for
//! data; a read that stops before the end is an error naming the file's
//! role (the file was cut short while open, or a fault), never a shorter
//! result. Whole and partial last pages alike, on both backends.

use super::{fault, Completion, Reader};
use crate::error::Error;
use std::io;

impl Reader {
    /// What `file` holds, as given when it was opened ("offsets",
    /// "state", ...). Panics on an unknown index.
    pub fn role(&self, file: usize) -> &'static str {
        self.files[file].role
    }

    /// The error of a read of `want` bytes at `offset` of `file` that found
    /// only `got` before the file's end: names the file and its role.
    pub fn ended_early(&self, file: usize, offset: u64, want: usize, got: usize) -> Error {
        let f = &self.files[file];
        let why = format!(
            "{}: wanted {want} bytes at offset {offset}, but the file ends at {}",
            f.role,
            offset + got as u64
        );
        Error::io(&f.path, io::Error::new(io::ErrorKind::UnexpectedEof, why))
    }

    /// Applies the fault plan, checks a read against its file's end (see
    /// the module), and counts the completion.
    pub(super) fn settle(&mut self, c: &mut Completion) {
        fault::apply(c);
        if let (false, Ok(n)) = (c.write, &c.result) {
            let (n, r) = (*n, c.req);
            let f = &self.files[r.file];
            let want = (r.len as u64).min(f.len.saturating_sub(r.offset)) as usize;
            if n < want {
                c.result = Err(cut_short(f.role, r.offset, want, n, f.len));
            } else if n < r.len {
                // SAFETY: the request's buffer is valid for `len` bytes and
                // the caller's to touch only once this completion is
                // returned (`Reader::submit`'s contract).
                unsafe { std::ptr::write_bytes(r.buf.add(n), 0, r.len - n) };
            }
        }
        self.stats.requests += 1;
        match (c.write, &c.result) {
            (false, Ok(b)) => self.stats.bytes_read += *b as u64,
            (true, Ok(b)) => self.stats.bytes_written += *b as u64,
            _ => {}
        }
    }
}

/// A read that stopped at `got` of the `want` bytes its file held.
fn cut_short(role: &str, offset: u64, want: usize, got: usize, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "{role}: {got} of {want} bytes at offset {offset} arrived, but the file held \
             {len} bytes when opened (was it cut short?)"
        ),
    )
}
