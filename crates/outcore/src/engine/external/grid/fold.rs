//! The grid superstep's fold: the tiles writing into a window, read in
//! coalesced direct reads ([`NBUF`] in flight, chunk checksums verified),
//! their source words streamed in window by window, folded into the
//! window's accumulators by two threads (`kernel.rs`: equal shares of edges).

use super::{kernel, Grid, GridCounts, NBUF, WIN_BLOCKS};
use crate::engine::external::disk::{align_up, read_exact, wait_for};
use crate::engine::state::BLOCK;
use crate::engine::vertex::VertexProgram;
use crate::error::{Error, Result};
use crate::io::{ReadReq, Reader};
use crate::store::tilecode;
use crate::store::tiles::{chunk_sum, CHUNK_BYTES, EDGES_FILE};
use crate::store::Store;
use std::ops::Range;

/// Bytes between two tile ranges that one read still covers.
const GAP: u64 = 4 * CHUNK_BYTES;
/// Request tags (distinct from the log appender's and the blocking reads').
const SPAN_TAG: u64 = 3 << 40;
const WORDS_TAG: u64 = 4 << 40;

/// A tile (or piece) in one direction: words of block `src` fold into
/// the accumulators of block `dst`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece {
    pub src: u32,
    pub dst: u32,
    pub off: u64,
    pub bytes: u64,
    /// Reversed: each packed (a, b) sends b -> a.
    pub flip: bool,
    /// Reversed diagonal tile of an undirected store: a self-loop was
    /// served forward.
    pub loops: bool,
    /// Both blocks lie in the window (band mode): the source words are the
    /// window's own, resident, and the tile is read once for both ways.
    own: bool,
}

impl Piece {
    /// The words the piece reads: the window's own, or a words window.
    fn words_key(&self) -> usize {
        match self.own {
            true => usize::MAX,
            false => self.src as usize / WIN_BLOCKS,
        }
    }
}

/// One direct read of `tiles/edges.bin` covering whole checksum chunks.
pub(super) struct Span {
    start: u64,
    len: u64,
    pieces: Range<usize>,
}

/// The words of a little-endian buffer (the engine runs on little-endian
/// machines, as the tile loops do).
fn as_u64s(b: &[u8]) -> &[u64] {
    assert!((b.as_ptr() as usize).is_multiple_of(8));
    // SAFETY: aligned, in bounds, and every bit pattern is a valid u64.
    unsafe { std::slice::from_raw_parts(b.as_ptr() as *const u64, b.len() / 8) }
}

fn as_u32s(b: &[u8]) -> &[u32] {
    assert!((b.as_ptr() as usize).is_multiple_of(4));
    // SAFETY: as `as_u64s`.
    unsafe { std::slice::from_raw_parts(b.as_ptr() as *const u32, b.len() / 4) }
}

impl Grid {
    /// Folds every tile writing into blocks `b0..b1` into `acc`; `own`,
    /// when given, holds the words of blocks `b0..b1` (band mode).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fold<P: VertexProgram>(
        &mut self,
        reader: &mut Reader,
        store: &Store,
        b0: usize,
        b1: usize,
        acc: &mut [u64],
        own: Option<&[u8]>,
        cur: &mut Option<(usize, usize)>,
        id: u64,
        counts: &mut GridCounts,
    ) -> Result<()> {
        self.plan(b0, b1, own.is_some());
        if self.spans.is_empty() {
            return Ok(());
        }
        let mut ahead: Option<(usize, usize)> = None;
        let mut sent = 0;
        let mut done = 0;
        let own = own.map(as_u64s);
        let r = self.fold_spans::<P>(
            reader, store, b0, acc, own, cur, &mut ahead, &mut sent, &mut done, id, counts,
        );
        // Keep no read in flight into a buffer past this window, error or not.
        for si in done..sent {
            let _ = reader.wait_tag(SPAN_TAG + si as u64);
        }
        if let Some((_, buf)) = ahead {
            let w = wait_for(reader, self.words_file, WORDS_TAG + buf as u64);
            r.and(w.map(|_| ()))
        } else {
            r
        }
    }

    /// The read pipeline of [`fold`](Grid::fold): spans `done..sent` are in
    /// flight when it returns early.
    #[allow(clippy::too_many_arguments)]
    fn fold_spans<P: VertexProgram>(
        &mut self,
        reader: &mut Reader,
        store: &Store,
        b0: usize,
        acc: &mut [u64],
        own: Option<&[u64]>,
        cur: &mut Option<(usize, usize)>,
        ahead: &mut Option<(usize, usize)>,
        sent: &mut usize,
        done: &mut usize,
        id: u64,
        counts: &mut GridCounts,
    ) -> Result<()> {
        let ns = self.spans.len();
        for si in 0..ns {
            while *sent < ns && *sent < si + NBUF {
                self.submit_span(reader, *sent)?;
                *sent += 1;
            }
            let got = wait_for(reader, self.edges_file, SPAN_TAG + si as u64);
            *done = si + 1;
            let got = got? as u64;
            let span = &self.spans[si];
            let want = span.len.min(self.tiles.file_len - span.start);
            if got < want {
                let why = format!("{got} of {want} bytes at offset {} arrived", span.start);
                return Err(Error::damaged(store.path(), EDGES_FILE, why));
            }
            self.verify(store, si)?;
            counts.tile_bytes += span.len.min(self.tiles.file_len - span.start);
            // Runs of pieces whose sources share a words window (or the
            // window's own words); each run folded by the kernel.
            let (mut p0, end) = (self.spans[si].pieces.start, self.spans[si].pieces.end);
            while p0 < end {
                let key = self.pieces[p0].words_key();
                let mut p1 = p0 + 1;
                while p1 < end && self.pieces[p1].words_key() == key {
                    p1 += 1;
                }
                // Own words start at block b0, a words window at its first.
                let (words, first) = match own {
                    Some(own) if key == usize::MAX => (own, b0),
                    _ => {
                        self.window(reader, key, cur, ahead)?;
                        let which = cur.expect("a window").1;
                        (as_u64s(self.win[which].as_slice()), key * WIN_BLOCKS)
                    }
                };
                let mut run = kernel::Run {
                    pieces: &self.pieces[p0..p1],
                    buf: as_u32s(self.bufs[si % NBUF].as_slice()),
                    start: self.spans[si].start,
                    words,
                    first,
                };
                // Compressed tiles: the run decoded, its pieces re-pointed.
                if let Some((dec, pieces, _)) = &mut self.decoded {
                    dec.clear();
                    pieces.clear();
                    for p in run.pieces {
                        let at = dec.len();
                        tilecode::decode(run.edges(p), dec);
                        pieces.push(Piece {
                            off: at as u64 * 4,
                            bytes: (dec.len() - at) as u64 * 4,
                            ..*p
                        });
                    }
                    run = kernel::Run {
                        pieces,
                        buf: dec,
                        start: 0,
                        ..run
                    };
                }
                counts.edges +=
                    kernel::fold_run::<P>(&run, acc, b0, &mut self.order, &mut self.spare, id);
                p0 = p1;
            }
        }
        Ok(())
    }

    /// Lists the pieces writing into blocks `b0..b1` from sending blocks
    /// and cuts them into reads, by words window then file offset (a
    /// source row's tiles in one words window coalesce into one read); in
    /// band mode the pieces whose source lies in the window come last, by
    /// offset (a tile's two ways in one read). Notes the words windows
    /// needed, in order (for prefetching); returns the bytes to read.
    pub(super) fn plan(&mut self, b0: usize, b1: usize, band: bool) -> u64 {
        self.pieces.clear();
        let into = |b: u32| (b as usize) >= b0 && (b as usize) < b1;
        for t in &self.tiles.tiles {
            if into(t.col) && self.sends[t.row as usize] {
                self.pieces.push(Piece {
                    src: t.row,
                    dst: t.col,
                    off: t.offset,
                    bytes: t.bytes,
                    flip: false,
                    loops: false,
                    own: band && into(t.row),
                });
            }
            if self.reverse && into(t.row) && self.sends[t.col as usize] {
                self.pieces.push(Piece {
                    src: t.col,
                    dst: t.row,
                    off: t.offset,
                    bytes: t.bytes,
                    flip: true,
                    loops: self.undirected && t.row == t.col,
                    own: band && into(t.col),
                });
            }
        }
        self.pieces.sort_unstable_by_key(|p| (p.words_key(), p.off));
        self.spans.clear();
        self.wseq.clear();
        let mut bytes = 0;
        for (pi, p) in self.pieces.iter().enumerate() {
            if !p.own && self.wseq.last() != Some(&p.words_key()) {
                self.wseq.push(p.words_key());
            }
            let s = p.off / CHUNK_BYTES * CHUNK_BYTES;
            let e = (p.off + p.bytes).div_ceil(CHUNK_BYTES) * CHUNK_BYTES;
            if let Some(last) = self.spans.last_mut() {
                let end = last.start + last.len;
                if s >= last.start && s <= end + GAP && e - last.start <= self.read_bytes {
                    bytes += (e - last.start).saturating_sub(last.len);
                    last.len = last.len.max(e - last.start);
                    last.pieces.end = pi + 1;
                    continue;
                }
            }
            bytes += e - s;
            self.spans.push(Span {
                start: s,
                len: e - s,
                pieces: pi..pi + 1,
            });
        }
        let own = if band { (b1 - b0) * BLOCK * 8 } else { 0 };
        bytes + (self.wseq.len() * WIN_BLOCKS * BLOCK * 8 + own) as u64
    }

    fn submit_span(&mut self, reader: &mut Reader, si: usize) -> Result<()> {
        let span = &self.spans[si];
        let req = ReadReq {
            file: self.edges_file,
            offset: span.start,
            len: align_up(span.len) as usize,
            buf: self.bufs[si % NBUF].as_mut_ptr(),
            tag: SPAN_TAG + si as u64,
        };
        // SAFETY: the buffer is not touched until the read is waited for
        // (the spans before it, in the other buffers, are folded
        // meanwhile), and `fold` waits for every read it submits, on error
        // too.
        unsafe { reader.submit(&[req]) }
    }

    /// Checks span `si`'s chunks against the store's chunk checksums.
    fn verify(&self, store: &Store, si: usize) -> Result<()> {
        let span = &self.spans[si];
        let buf = self.bufs[si % NBUF].as_slice();
        let end = (span.start + span.len).min(self.tiles.file_len);
        let first = span.start / CHUNK_BYTES;
        (first..end.div_ceil(CHUNK_BYTES)).try_for_each(|c| {
            let off = c * CHUNK_BYTES;
            let len = CHUNK_BYTES.min(self.tiles.file_len - off) as usize;
            let at = (off - span.start) as usize;
            match self.tiles.chunk_sums.get(c as usize) == Some(&chunk_sum(&buf[at..at + len])) {
                true => Ok(()),
                false => {
                    let why = format!("chunk {c} (offset {off}) fails its checksum");
                    Err(Error::damaged(store.path(), EDGES_FILE, why))
                }
            }
        })
    }

    /// Makes `cur` the words window `wi` (window index, buffer); prefetches
    /// the next window into the other buffer.
    fn window(
        &mut self,
        reader: &mut Reader,
        wi: usize,
        cur: &mut Option<(usize, usize)>,
        ahead: &mut Option<(usize, usize)>,
    ) -> Result<()> {
        if cur.is_some_and(|c| c.0 == wi) {
            return Ok(());
        }
        let free = cur.map_or(0, |c| 1 - c.1);
        if let Some((a, buf)) = ahead.take() {
            wait_for(reader, self.words_file, WORDS_TAG + buf as u64)?;
            if a == wi {
                *cur = Some((a, buf));
            }
        }
        if !cur.is_some_and(|c| c.0 == wi) {
            let bytes = WIN_BLOCKS * BLOCK * 8;
            let buf = &mut self.win[free].as_mut_slice()[..bytes];
            let at = (wi * bytes) as u64;
            read_exact(reader, self.words_file, at, buf, 0)?;
            *cur = Some((wi, free));
        }
        // Prefetch the next window the pieces need.
        let next = self
            .wseq
            .iter()
            .position(|&w| w == wi)
            .and_then(|i| self.wseq.get(i + 1));
        if let Some(&nw) = next {
            let other = 1 - cur.expect("set above").1;
            let bytes = WIN_BLOCKS * BLOCK * 8;
            let req = ReadReq {
                file: self.words_file,
                offset: (nw * bytes) as u64,
                len: bytes,
                buf: self.win[other].as_mut_ptr(),
                tag: WORDS_TAG + other as u64,
            };
            // SAFETY: the buffer is untouched until the read is waited for
            // (here or at the end of `fold`).
            unsafe { reader.submit(&[req])? };
            *ahead = Some((nw, other));
        }
        Ok(())
    }
}
