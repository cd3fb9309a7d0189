//! What a [`super::Reader`] is asked to do and answers: the backend that
//! runs it, read and write requests (offsets, lengths and buffers aligned
//! to [`super::ALIGN`]), their completions, and the files it holds open.

use crate::error::{Error, Result};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

/// Which mechanism runs the reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Linux io_uring.
    Uring,
    /// Worker threads doing `pread`.
    Sync,
}

impl std::str::FromStr for Backend {
    type Err = Error;

    fn from_str(s: &str) -> Result<Backend> {
        match s {
            "uring" | "io_uring" | "io-uring" => Ok(Backend::Uring),
            "sync" => Ok(Backend::Sync),
            _ => Err(Error::Invalid(format!(
                "unknown I/O backend `{s}`; expected `uring` or `sync`"
            ))),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Uring => "uring",
            Backend::Sync => "sync",
        })
    }
}

/// A read request: `len` bytes at `offset` into memory at `buf`. offset, len
/// and buf must be ALIGN-aligned (len may extend past EOF: the completion then
/// reports the short count).
#[derive(Clone, Copy, Debug)]
pub struct ReadReq {
    /// Index from [`Reader::open`](super::Reader::open).
    pub file: usize,
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes to read.
    pub len: usize,
    /// Where to put them (`len` writable bytes).
    pub buf: *mut u8,
    /// Returned in the [`Completion`].
    pub tag: u64,
}

// SAFETY: a ReadReq is plain data; the pointer is only written through by the
// reader under the contract of `Reader::submit`.
unsafe impl Send for ReadReq {}

/// A write request: `len` bytes from `buf` to `offset`; offset, len and buf
/// must be ALIGN-aligned.
#[derive(Clone, Copy, Debug)]
pub struct WriteReq {
    /// Index from [`Reader::create`](super::Reader::create) (or [`Reader::open`](super::Reader::open) of a writable file).
    pub file: usize,
    /// Byte offset in the file.
    pub offset: u64,
    /// Bytes to write.
    pub len: usize,
    /// Where they are (`len` readable bytes).
    pub buf: *const u8,
    /// Returned in the [`Completion`].
    pub tag: u64,
}

// SAFETY: plain data; the pointer is only read through under the contract of
// `Reader::submit_writes`.
unsafe impl Send for WriteReq {}

/// A queued request of either kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Req {
    pub(crate) r: ReadReq,
    pub(crate) write: bool,
}

/// The outcome of one [`ReadReq`] or [`WriteReq`].
#[derive(Debug)]
pub struct Completion {
    /// The request's tag.
    pub tag: u64,
    /// Bytes read or written (always all), or the error (without the path:
    /// see [`Reader::path`](super::Reader::path)). A read is short only at
    /// the file's end (its length as the reader knows it): the rest of its
    /// buffer is then zeroed; one that stops before is an `UnexpectedEof`
    /// error naming the file's role.
    pub result: std::io::Result<usize>,
    /// True for a [`WriteReq`].
    pub write: bool,
    /// The request (a write's as a read's fields), for the checks above.
    pub(crate) req: ReadReq,
}

/// One open file.
#[derive(Debug)]
pub(crate) struct FileEntry {
    pub(crate) path: PathBuf,
    pub(crate) file: Arc<File>,
    pub(crate) direct: bool,
    pub(crate) len: u64,
    /// What the file holds, for errors.
    pub(crate) role: &'static str,
}
