//! Sequential reading of a file's little-endian u32 words through two
//! aligned buffers: the next read is in flight while one buffer is consumed
//! (direct I/O on the io layer; used for CSR and spill-file scans).

use super::disk::{align_up, read_into, wait_for};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ReadReq, Reader, ALIGN};
use crate::mem::Budget;
use crate::store::csr::SlotWidth;
use crate::store::csrcode::PageDir;
use crate::store::pagesums::{self, PageSums};
use std::sync::Arc;

/// A double-buffered word reader over one file region.
pub struct WordStream {
    file: usize,
    bufs: [AlignedBuf; 2],
    cur: usize,
    /// Valid words of `bufs[cur]` are `pos..end` (in bytes).
    pos: usize,
    end: usize,
    /// File offset of the next read to issue.
    next_at: u64,
    /// Bytes of the region not yet read into a buffer (or in flight).
    left: u64,
    /// Tag, length and file offset of the read in flight into
    /// `bufs[cur ^ 1]`.
    in_flight: Option<(u64, usize, u64)>,
    tag: u64,
    /// Page checksums of the file, when it is a store file that has them.
    sums: Option<Arc<PageSums>>,
}

impl WordStream {
    /// Two buffers of `bytes` each (aligned), charged to `budget`; `tag` is
    /// a tag base no other request of the reader uses.
    pub fn new(file: usize, bytes: usize, tag: u64, budget: &Budget) -> Result<WordStream> {
        let bytes = bytes.max(ALIGN) / ALIGN * ALIGN;
        Ok(WordStream {
            file,
            bufs: [
                AlignedBuf::new(bytes, budget, "sequential read buffer")?,
                AlignedBuf::new(bytes, budget, "sequential read buffer")?,
            ],
            cur: 0,
            pos: 0,
            end: 0,
            next_at: 0,
            left: 0,
            in_flight: None,
            tag,
            sums: None,
        })
    }

    /// The file read.
    pub fn file(&self) -> usize {
        self.file
    }

    /// Positions the stream on words `start..end` of `file`.
    pub fn seek(&mut self, reader: &mut Reader, file: usize, start: u64, end: u64) -> Result<()> {
        self.seek_checked(reader, file, start, end, None)
    }

    /// [`Self::seek`], every page read checked against `sums`.
    pub fn seek_checked(
        &mut self,
        reader: &mut Reader,
        file: usize,
        start: u64,
        end: u64,
        sums: Option<Arc<PageSums>>,
    ) -> Result<()> {
        self.seek_bytes(reader, file, start * 4, end * 4, sums)
    }

    /// Positions the stream on bytes `byte..end` of `file`, every page read
    /// checked against `sums` (read them with the `_bytes` methods).
    pub fn seek_bytes(
        &mut self,
        reader: &mut Reader,
        file: usize,
        byte: u64,
        end: u64,
        sums: Option<Arc<PageSums>>,
    ) -> Result<()> {
        self.drain(reader)?;
        self.file = file;
        self.sums = sums;
        let aligned = byte / ALIGN as u64 * ALIGN as u64;
        self.next_at = aligned;
        self.left = end.saturating_sub(aligned);
        self.pos = 0;
        self.end = 0;
        // The first buffer synchronously, then the prefetch.
        let len = (align_up(self.left) as usize).min(self.bufs[0].len());
        let want = self.left.min(len as u64) as usize;
        self.cur = 0;
        if len > 0 {
            let got = read_into(
                reader,
                self.file,
                aligned,
                &mut self.bufs[0].as_mut_slice()[..len],
            )?;
            self.check(reader, aligned, got, want)?;
            pagesums::check(&self.sums, aligned, &self.bufs[0].as_slice()[..got])?;
            self.next_at += len as u64;
            self.left -= want as u64;
            self.end = want;
            self.pos = (byte - aligned) as usize;
        }
        self.prefetch(reader)
    }

    /// The next word.
    #[inline]
    pub fn next(&mut self, reader: &mut Reader) -> Result<u32> {
        if self.pos == self.end {
            self.advance(reader)?;
        }
        let b = &self.bufs[self.cur].as_slice()[self.pos..self.pos + 4];
        self.pos += 4;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    /// The next two words as one little-endian u64.
    pub fn next_u64(&mut self, reader: &mut Reader) -> Result<u64> {
        let lo = self.next(reader)? as u64;
        Ok(lo | (self.next(reader)? as u64) << 32)
    }

    /// Appends the next `n` words to `out`.
    pub fn take(&mut self, reader: &mut Reader, mut n: usize, out: &mut Vec<u32>) -> Result<()> {
        while n > 0 {
            if self.pos == self.end {
                self.advance(reader)?;
            }
            let k = n.min((self.end - self.pos) / 4);
            let b = &self.bufs[self.cur].as_slice()[self.pos..self.pos + 4 * k];
            out.extend(
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
            );
            self.pos += 4 * k;
            n -= k;
        }
        Ok(())
    }

    /// Appends the next `n` pairs of words to `out`, each as one
    /// little-endian u64.
    pub fn take_u64s(
        &mut self,
        reader: &mut Reader,
        mut n: usize,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        while n > 0 {
            if self.pos == self.end {
                self.advance(reader)?;
            }
            let k = n.min((self.end - self.pos) / 8);
            if k == 0 {
                // A pair split across two reads.
                out.push(self.next_u64(reader)?);
                n -= 1;
                continue;
            }
            let b = &self.bufs[self.cur].as_slice()[self.pos..self.pos + 8 * k];
            out.extend(
                b.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
            );
            self.pos += 8 * k;
            n -= k;
        }
        Ok(())
    }

    /// Skips the next `n` words.
    pub fn skip(&mut self, reader: &mut Reader, mut n: usize) -> Result<()> {
        while n > 0 {
            if self.pos == self.end {
                self.advance(reader)?;
            }
            let k = n.min((self.end - self.pos) / 4);
            self.pos += 4 * k;
            n -= k;
        }
        Ok(())
    }

    /// Sets `out` to the next `n` bytes.
    pub fn take_bytes(&mut self, reader: &mut Reader, n: usize, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        while out.len() < n {
            if self.pos == self.end {
                self.advance(reader)?;
            }
            let k = (n - out.len()).min(self.end - self.pos);
            out.extend_from_slice(&self.bufs[self.cur].as_slice()[self.pos..self.pos + k]);
            self.pos += k;
        }
        Ok(())
    }

    /// Skips the next `n` bytes.
    pub fn skip_bytes(&mut self, reader: &mut Reader, mut n: u64) -> Result<()> {
        while n > 0 {
            if self.pos == self.end {
                self.advance(reader)?;
            }
            let k = n.min((self.end - self.pos) as u64);
            self.pos += k as usize;
            n -= k;
        }
        Ok(())
    }

    /// Waits for the read in flight (before the buffers may be reused).
    pub fn drain(&mut self, reader: &mut Reader) -> Result<()> {
        if let Some((tag, _, _)) = self.in_flight.take() {
            wait_for(reader, self.file, tag)?;
        }
        Ok(())
    }

    fn advance(&mut self, reader: &mut Reader) -> Result<()> {
        let Some((tag, want, at)) = self.in_flight.take() else {
            return Err(Error::io(
                reader.path(self.file),
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "read past the end of a sequential region",
                ),
            ));
        };
        let got = wait_for(reader, self.file, tag)?;
        self.check(reader, at, got, want)?;
        pagesums::check(&self.sums, at, &self.bufs[self.cur ^ 1].as_slice()[..got])?;
        self.cur ^= 1;
        self.pos = 0;
        self.end = want;
        self.prefetch(reader)
    }

    fn prefetch(&mut self, reader: &mut Reader) -> Result<()> {
        if self.left == 0 {
            return Ok(());
        }
        let other = self.cur ^ 1;
        let len = (align_up(self.left) as usize).min(self.bufs[other].len());
        let want = self.left.min(len as u64) as usize;
        self.tag += 1;
        let req = ReadReq {
            file: self.file,
            offset: self.next_at,
            len,
            buf: self.bufs[other].as_mut_slice().as_mut_ptr(),
            tag: self.tag,
        };
        // SAFETY: `bufs[other]` is not touched until `advance` or `drain`
        // has waited for this request; drop order keeps the reader alive
        // (callers drain before dropping the stream).
        unsafe { reader.submit(&[req])? };
        self.in_flight = Some((self.tag, want, self.next_at));
        self.next_at += len as u64;
        self.left -= want as u64;
        Ok(())
    }

    fn check(&self, reader: &Reader, at: u64, got: usize, want: usize) -> Result<()> {
        match got < want {
            true => Err(reader.ended_early(self.file, at, want, got)),
            false => Ok(()),
        }
    }
}

/// The slots of a coded adjacency ([`crate::store::csrcode`]), decoded a
/// page at a time from a [`WordStream`] positioned on its bytes.
pub struct CodedSlots {
    dir: Arc<PageDir>,
    page: Vec<u8>,
    /// Next slot of `page`.
    pos: usize,
    next_page: u64,
    scratch: Vec<u8>,
    width: SlotWidth,
    /// Slots a page holds.
    per: usize,
}

impl CodedSlots {
    /// Slots of `width` from the first page on (the stream at byte 0 of
    /// `.adz`).
    pub fn new(dir: Arc<PageDir>, width: SlotWidth) -> CodedSlots {
        let per = width.per_page(ALIGN as u64) as usize;
        CodedSlots {
            dir,
            page: vec![0; ALIGN],
            pos: per,
            next_page: 0,
            scratch: Vec::new(),
            width,
            per,
        }
    }

    fn load(&mut self, ws: &mut WordStream, reader: &mut Reader) -> Result<()> {
        let p = self.next_page;
        if p >= self.dir.pages() {
            return Err(Error::Invalid(format!(
                "{}: read past the last coded page",
                reader.path(ws.file()).display()
            )));
        }
        let (s, e) = self.dir.span(p, p + 1);
        ws.take_bytes(reader, (e - s) as usize, &mut self.scratch)?;
        self.dir
            .decode(p, p + 1, &self.scratch, s, &mut self.page)?;
        self.next_page += 1;
        self.pos = 0;
        Ok(())
    }

    /// The next slot's id; `None` for padding.
    #[inline]
    pub fn next(&mut self, ws: &mut WordStream, reader: &mut Reader) -> Result<Option<u64>> {
        if self.pos == self.per {
            self.load(ws, reader)?;
        }
        self.pos += 1;
        Ok(self.width.id(&self.page, self.pos - 1))
    }

    /// Skips the next `n` slots (whole pages without decoding them).
    pub fn skip(&mut self, ws: &mut WordStream, reader: &mut Reader, mut n: usize) -> Result<()> {
        let per = self.per;
        while n > 0 {
            if self.pos == per {
                if n >= per && self.next_page < self.dir.pages() {
                    let (s, e) = self.dir.span(self.next_page, self.next_page + 1);
                    ws.skip_bytes(reader, e - s)?;
                    self.next_page += 1;
                    n -= per;
                    continue;
                }
                self.load(ws, reader)?;
            }
            let k = (per - self.pos).min(n);
            self.pos += k;
            n -= k;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs of words read as u64s from an odd word on straddle the read
    /// buffers' edges (the triangle streams' wide entries start on even
    /// words, so only this test takes the split path).
    #[test]
    fn u64s_from_an_odd_word_cross_buffer_edges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words.bin");
        let words: Vec<u32> = (0..5 * ALIGN as u32)
            .map(|i| i.wrapping_mul(0x9E37_79B1))
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let budget = Budget::new(64 << 20);
        for io in [crate::io::Backend::Sync, crate::io::Backend::Uring] {
            let mut reader = Reader::new(Some(io), 4).unwrap();
            let f = reader.open(&path, "test").unwrap();
            let mut ws = WordStream::new(f, ALIGN, 1 << 40, &budget).unwrap();
            for start in [1u64, 2, 1023] {
                let pairs = (words.len() as u64 - start) / 2;
                ws.seek(&mut reader, f, start, start + 2 * pairs).unwrap();
                let mut got = Vec::new();
                ws.take_u64s(&mut reader, 7, &mut got).unwrap();
                ws.take_u64s(&mut reader, pairs as usize - 7, &mut got)
                    .unwrap();
                ws.drain(&mut reader).unwrap();
                let want: Vec<u64> = (0..pairs as usize)
                    .map(|k| {
                        let i = start as usize + 2 * k;
                        words[i] as u64 | (words[i + 1] as u64) << 32
                    })
                    .collect();
                assert_eq!(got, want, "{io:?}, from word {start}");
            }
        }
    }
}
