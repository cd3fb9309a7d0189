//! Opening files for direct I/O.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// How [`open_direct`] opens a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reading.
    Read,
    /// Reading and writing an existing file.
    Write,
    /// Reading and writing a file created (or truncated) now.
    Create,
}

/// Opens `path` with `O_DIRECT`, falling back to buffered I/O where the
/// filesystem refuses it (or when `buffered` asks for that); says which it
/// got. Every direct file of outcore is opened here.
pub fn open_direct(path: &Path, access: Access, buffered: bool) -> Result<(File, bool)> {
    let open = |flags: i32| {
        let mut o = OpenOptions::new();
        o.read(true).custom_flags(flags);
        match access {
            Access::Read => {}
            Access::Write => {
                o.write(true);
            }
            Access::Create => {
                o.write(true).create(true).truncate(true);
            }
        }
        o.open(path)
    };
    if !buffered {
        match open(libc::O_DIRECT) {
            Ok(f) => return Ok((f, true)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok((open(0).map_err(|e| Error::io(path, e))?, false))
}
