//! The grid superstep's fold: the tiles writing into a window, read in
//! coalesced direct reads ([`NBUF`] in flight, chunk checksums verified),
//! their source words streamed in window by window, folded into the
//! window's accumulators by two threads (even and odd target blocks).

use super::{Grid, GridCounts, NBUF, WIN_BLOCKS};
use crate::engine::external::disk::{align_up, read_exact, wait_for};
use crate::engine::program::unpack;
use crate::engine::state::BLOCK;
use crate::engine::superstep::{unword, word};
use crate::engine::vertex::VertexProgram;
use crate::error::{Error, Result};
use crate::io::{ReadReq, Reader};
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
    src: u32,
    dst: u32,
    off: u64,
    bytes: u64,
    /// Reversed: each packed (a, b) sends b -> a.
    flip: bool,
    /// Reversed diagonal tile of an undirected store: a self-loop was
    /// served forward.
    loops: bool,
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
    /// Folds every tile writing into blocks `b0..b1` into `acc`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fold<P: VertexProgram>(
        &mut self,
        reader: &mut Reader,
        store: &Store,
        b0: usize,
        b1: usize,
        acc: &mut [u64],
        cur: &mut Option<(usize, usize)>,
        id: u64,
        counts: &mut GridCounts,
    ) -> Result<()> {
        self.plan(b0, b1);
        if self.spans.is_empty() {
            return Ok(());
        }
        let mut ahead: Option<(usize, usize)> = None;
        let mut sent = 0;
        let mut done = 0;
        let r = self.fold_spans::<P>(
            reader, store, b0, acc, cur, &mut ahead, &mut sent, &mut done, id, counts,
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
        cur: &mut Option<(usize, usize)>,
        ahead: &mut Option<(usize, usize)>,
        sent: &mut usize,
        done: &mut usize,
        id: u64,
        counts: &mut GridCounts,
    ) -> Result<()> {
        let mut blocks: Vec<&mut [u64]> = acc.chunks_mut(BLOCK).collect();
        let mut odd: Vec<&mut [u64]> = Vec::with_capacity(blocks.len() / 2);
        let mut even: Vec<&mut [u64]> = Vec::with_capacity(blocks.len().div_ceil(2));
        for (i, b) in blocks.drain(..).enumerate() {
            match i % 2 {
                0 => even.push(b),
                _ => odd.push(b),
            }
        }
        let (even, odd) = (&mut even[..], &mut odd[..]);
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
                return Err(Error::store(
                    store.path(),
                    format!("{EDGES_FILE}: {got} of {want} bytes at offset {} arrived; the file is truncated", span.start),
                ));
            }
            self.verify(store, si)?;
            // Runs of pieces whose sources share a words window; each run
            // folded by two threads, one for even and one for odd target
            // blocks (disjoint accumulators).
            let (mut p0, end) = (self.spans[si].pieces.start, self.spans[si].pieces.end);
            while p0 < end {
                let wi = self.pieces[p0].src as usize / WIN_BLOCKS;
                let mut p1 = p0 + 1;
                while p1 < end && self.pieces[p1].src as usize / WIN_BLOCKS == wi {
                    p1 += 1;
                }
                self.window(reader, wi, cur, ahead)?;
                let which = cur.expect("a window").1;
                let words = as_u64s(self.win[which].as_slice());
                let buf = self.bufs[si % NBUF].as_slice();
                let start = self.spans[si].start;
                let run = &self.pieces[p0..p1];
                let half = |par: usize, acc: &mut [&mut [u64]]| {
                    let mut bytes = 0;
                    for p in run.iter().filter(|p| (p.dst as usize - b0) % 2 == par) {
                        let at = (p.src as usize % WIN_BLOCKS) * BLOCK;
                        let from: &[u64; BLOCK] =
                            words[at..at + BLOCK].try_into().expect("a block");
                        let to: &mut [u64; BLOCK] = (&mut *acc[(p.dst as usize - b0) / 2])
                            .try_into()
                            .expect("a block");
                        let o = (p.off - start) as usize;
                        let edges = as_u32s(&buf[o..o + p.bytes as usize]);
                        match (p.flip, p.loops) {
                            (false, _) => fold_tile::<P, false, false>(from, to, edges, id),
                            (true, true) => fold_tile::<P, true, true>(from, to, edges, id),
                            (true, false) => fold_tile::<P, true, false>(from, to, edges, id),
                        }
                        bytes += p.bytes;
                    }
                    bytes
                };
                let (a, b) = rayon::join(|| half(0, &mut *even), || half(1, &mut *odd));
                counts.tile_bytes += a + b;
                counts.edges += (a + b) / 4;
                p0 = p1;
            }
        }
        Ok(())
    }

    /// Lists the pieces writing into blocks `b0..b1` from sending blocks,
    /// by source block then file offset, and cuts them into reads.
    fn plan(&mut self, b0: usize, b1: usize) {
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
                });
            }
        }
        self.pieces.sort_unstable_by_key(|p| (p.src, p.off));
        self.spans.clear();
        for (pi, p) in self.pieces.iter().enumerate() {
            let s = p.off / CHUNK_BYTES * CHUNK_BYTES;
            let e = (p.off + p.bytes).div_ceil(CHUNK_BYTES) * CHUNK_BYTES;
            if let Some(last) = self.spans.last_mut() {
                let end = last.start + last.len;
                if s >= last.start && s <= end + GAP && e - last.start <= self.read_bytes {
                    last.len = last.len.max(e - last.start);
                    last.pieces.end = pi + 1;
                    continue;
                }
            }
            self.spans.push(Span {
                start: s,
                len: e - s,
                pieces: pi..pi + 1,
            });
        }
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
                    false => Err(Error::store(
                        store.path(),
                        format!("{EDGES_FILE}: chunk {c} (offset {off}) fails its checksum; the store is damaged"),
                    )),
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
        let nwin = self.blocks.div_ceil(WIN_BLOCKS);
        if wi + 1 < nwin {
            let other = 1 - cur.expect("set above").1;
            let bytes = WIN_BLOCKS * BLOCK * 8;
            let req = ReadReq {
                file: self.words_file,
                offset: ((wi + 1) * bytes) as u64,
                len: bytes,
                buf: self.win[other].as_mut_ptr(),
                tag: WORDS_TAG + other as u64,
            };
            // SAFETY: the buffer is untouched until the read is waited for
            // (here or at the end of `fold`).
            unsafe { reader.submit(&[req])? };
            *ahead = Some((wi + 1, other));
        }
        Ok(())
    }
}

/// Folds `from[u]` into `to[v]` for every packed edge (u, v), or (v, u)
/// when `FLIP`; `SKIP_LOOPS` drops u == v. Accumulators hold the combined
/// word XOR the identity (zero: nothing received).
#[inline(always)]
fn fold_tile<P: VertexProgram, const FLIP: bool, const SKIP_LOOPS: bool>(
    from: &[u64; BLOCK],
    to: &mut [u64; BLOCK],
    edges: &[u32],
    id: u64,
) {
    for &e in edges {
        let (s, d) = unpack(e);
        if SKIP_LOOPS && s == d {
            continue;
        }
        let (f, t) = if FLIP { (d, s) } else { (s, d) };
        let c = to[t] ^ id;
        to[t] = word(P::combine(unword(c), unword(from[f]))) ^ id;
    }
}
