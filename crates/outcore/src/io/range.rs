//! Small synchronous reads of any alignment beside a [`Reader`]'s queue.

use super::{sync, AlignedBuf, Reader, ALIGN, MAX_CHUNK};
use crate::error::{Error, Result};
use crate::mem::Budget;
use std::time::Instant;

/// Convenience: reads `len` bytes at `offset` (any alignment) synchronously
/// through the reader's file into a Vec (used for small index files).
///
/// Reads with `pread` on the calling thread, in aligned pieces of at most
/// 4 MiB through a bounce buffer charged to `budget` (the returned Vec is not
/// charged: charge it yourself if it is large). Requests in flight on the
/// reader are not disturbed. Counts in the reader's stats. Fails with an
/// `UnexpectedEof` I/O error if the file ends before `offset + len`.
pub fn read_range(
    reader: &mut Reader,
    file: usize,
    offset: u64,
    len: usize,
    budget: &Budget,
) -> Result<Vec<u8>> {
    const PIECE: usize = 4 << 20;
    let Some(f) = reader.files.get(file) else {
        return Err(Error::Invalid(format!(
            "read_range names file {file} but only {} are open",
            reader.files.len()
        )));
    };
    let end = offset
        .checked_add(len as u64)
        .filter(|&e| e <= i64::MAX as u64)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{}: read of {len} bytes at offset {offset} is out of range",
                f.path.display()
            ))
        })?;
    let mut v = Vec::new();
    if len == 0 {
        return Ok(v);
    }
    v.try_reserve_exact(len).map_err(|_| {
        Error::Budget(format!(
            "{}: cannot allocate {} to read",
            f.path.display(),
            crate::size::format_size(len as u64)
        ))
    })?;
    let start = offset - offset % ALIGN as u64;
    let aligned_end = end.next_multiple_of(ALIGN as u64);
    let piece = ((aligned_end - start) as usize).min(PIECE);
    let mut buf = AlignedBuf::new(piece, budget, "read buffer")?;
    let t = Instant::now();
    let mut pos = start;
    let mut result = Ok(());
    while pos < end {
        let want = ((aligned_end - pos) as usize).min(piece);
        let got = match sync::read_full(
            &f.file,
            &mut buf.as_mut_slice()[..want],
            pos,
            f.len,
            MAX_CHUNK,
        ) {
            Ok(n) => n,
            Err(e) => {
                result = Err(Error::io(&f.path, e));
                break;
            }
        };
        reader.stats.requests += 1;
        reader.stats.bytes_read += got as u64;
        let lo = offset.max(pos);
        let hi = end.min(pos + got as u64);
        if hi > lo {
            v.extend_from_slice(&buf.as_slice()[(lo - pos) as usize..(hi - pos) as usize]);
        }
        if pos + (got as u64) < end && got < want {
            result = Err(Error::io(
                &f.path,
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: wanted {len} bytes at offset {offset}, but the file ends at {}",
                        f.role,
                        pos + got as u64
                    ),
                ),
            ));
            break;
        }
        pos += got as u64;
    }
    reader.stats.wait_seconds += t.elapsed().as_secs_f64();
    result.map(|()| v)
}
