//! Blocking and double-buffered direct I/O for the external engine, on the
//! io layer's [`Reader`] (io_uring or the pread pool, O_DIRECT).

use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ReadReq, Reader, WriteReq, ALIGN};
use crate::mem::Budget;

/// Rounds up to the direct-I/O alignment.
#[inline]
pub fn align_up(x: u64) -> u64 {
    x.next_multiple_of(ALIGN as u64)
}

/// Waits for the request tagged `tag`; fails with the file's path on error.
pub fn wait_for(reader: &mut Reader, file: usize, tag: u64) -> Result<usize> {
    let c = reader.wait_tag(tag)?;
    c.result.map_err(|e| Error::io(reader.path(file), e))
}

/// Reads `buf.len()` bytes (aligned) at `offset` of `file`; returns how many
/// arrived: short only at the file's end, the rest of `buf` then zeroed (a
/// read that stops before the end is an error: [`Reader::wait`]).
pub fn read_into(reader: &mut Reader, file: usize, offset: u64, buf: &mut [u8]) -> Result<usize> {
    if buf.is_empty() {
        return Ok(0);
    }
    let req = ReadReq {
        file,
        offset,
        len: buf.len(),
        buf: buf.as_mut_ptr(),
        tag: u64::MAX,
    };
    // SAFETY: the buffer outlives the request: we wait for it right here.
    unsafe { reader.submit(&[req])? };
    wait_for(reader, file, u64::MAX)
}

/// Like [`read_into`], failing unless `want` bytes (at most the buffer) arrive.
pub fn read_exact(
    reader: &mut Reader,
    file: usize,
    offset: u64,
    buf: &mut [u8],
    want: usize,
) -> Result<()> {
    let got = read_into(reader, file, offset, buf)?;
    match got < want {
        true => Err(reader.ended_early(file, offset, want, got)),
        false => Ok(()),
    }
}

/// Reads `bytes` of slot `i` (slots `stride` bytes apart, aligned) into the
/// front of `buf`; returns the aligned length read, for writing it back.
pub fn read_slot(
    reader: &mut Reader,
    file: usize,
    i: usize,
    stride: u64,
    buf: &mut AlignedBuf,
    bytes: usize,
) -> Result<usize> {
    let len = align_up(bytes as u64) as usize;
    read_exact(
        reader,
        file,
        i as u64 * stride,
        &mut buf.as_mut_slice()[..len],
        bytes,
    )?;
    Ok(len)
}

/// Writes all of `buf` (aligned) at `offset` of `file` and waits.
pub fn write_all(reader: &mut Reader, file: usize, offset: u64, buf: &[u8]) -> Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let req = WriteReq {
        file,
        offset,
        len: buf.len(),
        buf: buf.as_ptr(),
        tag: u64::MAX - 1,
    };
    // SAFETY: the buffer outlives the request: we wait for it right here.
    unsafe { reader.submit_writes(&[req])? };
    wait_for(reader, file, u64::MAX - 1)?;
    Ok(())
}

/// Appends records to a file through two aligned staging buffers: one fills
/// while the other is written. Each [`finish_run`](Appender::finish_run)
/// pads the file to the next aligned offset, so every run starts aligned.
pub struct Appender {
    file: usize,
    bufs: [AlignedBuf; 2],
    cur: usize,
    fill: usize,
    /// File offset where `bufs[cur]` starts.
    at: u64,
    /// Tag of the write in flight from the other buffer, if any.
    in_flight: Option<u64>,
    next_tag: u64,
}

impl Appender {
    /// Two staging buffers of `bytes` each (aligned), charged to `budget`.
    pub fn new(file: usize, at: u64, bytes: usize, budget: &Budget) -> Result<Appender> {
        let bytes = (bytes.max(ALIGN)) / ALIGN * ALIGN;
        Ok(Appender {
            file,
            bufs: [
                AlignedBuf::new(bytes, budget, "external engine log staging")?,
                AlignedBuf::new(bytes, budget, "external engine log staging")?,
            ],
            cur: 0,
            fill: 0,
            at,
            in_flight: None,
            next_tag: 1 << 40,
        })
    }

    /// Uses tags from `base` on (when two appenders share a reader).
    pub fn tagged(mut self, base: u64) -> Appender {
        self.next_tag = base;
        self
    }

    /// The file offset of the next byte appended.
    pub fn position(&self) -> u64 {
        self.at + self.fill as u64
    }

    /// Moves to another file (after [`finish_run`](Appender::finish_run)).
    pub fn switch(&mut self, reader: &mut Reader, file: usize, at: u64) -> Result<()> {
        debug_assert_eq!(self.fill, 0);
        self.drain(reader)?;
        self.file = file;
        self.at = at;
        Ok(())
    }

    /// Appends `bytes`.
    pub fn push(&mut self, reader: &mut Reader, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let cap = self.bufs[self.cur].len();
            let take = bytes.len().min(cap - self.fill);
            self.bufs[self.cur].as_mut_slice()[self.fill..self.fill + take]
                .copy_from_slice(&bytes[..take]);
            self.fill += take;
            bytes = &bytes[take..];
            if self.fill == cap {
                self.send(reader)?;
            }
        }
        Ok(())
    }

    /// A free slice of at most `max` bytes to encode into directly; commit
    /// with [`commit`](Appender::commit).
    pub fn space(&mut self, reader: &mut Reader, max: usize) -> Result<&mut [u8]> {
        let cap = self.bufs[self.cur].len();
        if self.fill == cap {
            self.send(reader)?;
        }
        let end = (self.fill + max).min(cap);
        Ok(&mut self.bufs[self.cur].as_mut_slice()[self.fill..end])
    }

    /// Marks `n` bytes of the last [`space`](Appender::space) as written.
    pub fn commit(&mut self, reader: &mut Reader, n: usize) -> Result<()> {
        self.fill += n;
        if self.fill == self.bufs[self.cur].len() {
            self.send(reader)?;
        }
        Ok(())
    }

    /// Pads to the alignment and writes what is staged; the next run starts
    /// at the returned (aligned) offset.
    pub fn finish_run(&mut self, reader: &mut Reader) -> Result<u64> {
        if self.fill > 0 {
            let len = align_up(self.fill as u64) as usize;
            self.bufs[self.cur].as_mut_slice()[self.fill..len].fill(0);
            let _ = len;
            self.send(reader)?;
        }
        Ok(self.at)
    }

    /// Waits for the write in flight.
    pub fn drain(&mut self, reader: &mut Reader) -> Result<()> {
        if let Some(tag) = self.in_flight.take() {
            wait_for(reader, self.file, tag)?;
        }
        Ok(())
    }

    /// Starts writing the current buffer (its fill rounded up to the
    /// alignment) and switches to the other buffer (after its own write
    /// completed).
    fn send(&mut self, reader: &mut Reader) -> Result<()> {
        let len = align_up(self.fill as u64) as usize;
        self.drain(reader)?;
        let tag = self.next_tag;
        self.next_tag += 1;
        let req = WriteReq {
            file: self.file,
            offset: self.at,
            len,
            buf: self.bufs[self.cur].as_slice().as_ptr(),
            tag,
        };
        // SAFETY: the buffer is not touched again until `drain` has seen the
        // completion (the next `send` or `switch` drains first; drop drains).
        unsafe { reader.submit_writes(&[req])? };
        self.in_flight = Some(tag);
        self.at += len as u64;
        self.fill = 0;
        self.cur ^= 1;
        Ok(())
    }
}
