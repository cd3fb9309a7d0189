//! The distinct edges of the input in rank space (rank = position of an
//! original id among the sorted distinct ids): the sorted input with
//! duplicates collapsed to their last occurrence, each id looked up once.
//!
//! The degree pass reads them first; when the input spilled it writes them
//! to a scratch file as it goes, so the remap reads that file straight through instead of sorting the input and
//! looking ids up again. Both go through `O_DIRECT` with the transfer on a
//! background thread (a page-cache write of it cost the degree pass a fifth
//! of its time in kernel copies). An edge is stored as the zigzag varint of
//! the difference of its key (src << 32 | dst) from the previous edge's,
//! then its weight: sorted neighbours are close, so about 3 bytes where a
//! plain pair took 8 (the pass was bound by the disk's writes).

use super::records::{InputEdge, Weight};
use super::BATCH;
use crate::error::Result;
use crate::ingest::idmap::IdMap;
use crate::ingest::sort::Sorted;
use crate::mem::prefetch::AHEAD;
use crate::store::append::{DirectAppender, DirectChunks};
use std::path::{Path, PathBuf};

/// A distinct edge in ranks.
#[derive(Clone, Copy)]
pub(super) struct RankEdge<W> {
    pub s: u32,
    pub d: u32,
    pub w: W,
}

/// Distinct edges from the sorted input.
pub(super) struct Dedup<'a, E: InputEdge> {
    sorted: Sorted<E>,
    idmap: &'a IdMap,
    prev: Option<E>,
    chunk: Vec<E>,
    keys: Vec<E>,
    /// Input edges collapsed into a later equal one.
    pub duplicates: u64,
    /// Input records consumed (for progress).
    pub consumed: u64,
}

impl<'a, E: InputEdge> Dedup<'a, E> {
    pub fn new(sorted: Sorted<E>, idmap: &'a IdMap) -> Self {
        Dedup {
            sorted,
            idmap,
            prev: None,
            chunk: Vec::with_capacity(BATCH),
            keys: Vec::with_capacity(BATCH),
            duplicates: 0,
            consumed: 0,
        }
    }

    /// True when the sorted input lives on disk.
    pub fn is_spilled(&self) -> bool {
        self.sorted.is_spilled()
    }

    /// Bytes the input's oversized buckets spilled once more (distributed
    /// again or merged) while they were read.
    pub fn respilled(&self) -> u64 {
        self.sorted.bucket_stats().map_or(0, |b| b.respilled)
    }

    /// Starts over (the counters too).
    pub fn rewind(&mut self) -> Result<()> {
        self.sorted.rewind()?;
        self.prev = None;
        self.duplicates = 0;
        self.consumed = 0;
        Ok(())
    }

    /// Replaces `out` with the next distinct edges; false when none are left.
    pub fn next_batch(&mut self, out: &mut Vec<RankEdge<E::W>>) -> Result<bool> {
        self.keys.clear();
        // A chunk of duplicates only yields nothing: read on.
        while self.keys.is_empty() {
            self.chunk.clear();
            if !self.sorted.next_chunk(&mut self.chunk, BATCH)? {
                self.keys.extend(self.prev.take());
                break;
            }
            self.consumed += self.chunk.len() as u64;
            // Each record's successor decides: an equal key collapses into
            // the later one (last occurrence wins).
            for &e in &self.chunk {
                match self.prev.replace(e) {
                    Some(p) if p.key() == e.key() => self.duplicates += 1,
                    Some(p) => self.keys.push(p),
                    None => {}
                }
            }
        }
        // Ranks looked up in one tight loop, each line asked for AHEAD
        // lookups early: the random reads of the id map overlap.
        let idmap = self.idmap;
        let rank = |o: u64| idmap.dense(o).expect("every id was collected");
        out.clear();
        out.extend(self.keys.iter().enumerate().map(|(i, e)| {
            if let Some(a) = self.keys.get(i + AHEAD) {
                idmap.prefetch(a.src());
                idmap.prefetch(a.dst());
            }
            RankEdge {
                s: rank(e.src()),
                d: rank(e.dst()),
                w: e.w(),
            }
        }));
        Ok(!out.is_empty())
    }
}

/// The scratch file of distinct edges, being written.
pub(super) struct RankSpill {
    path: PathBuf,
    out: DirectAppender,
    bytes: u64,
    buf: Vec<u8>,
    /// The last edge's key: each edge is stored as the difference.
    prev: u64,
}

impl RankSpill {
    pub fn create(dir: &Path) -> Result<Self> {
        let path = dir.join("distinct.tmp");
        Ok(RankSpill {
            out: DirectAppender::create(&path)?,
            path,
            bytes: 0,
            buf: Vec::new(),
            prev: 0,
        })
    }

    pub fn push<W: Weight>(&mut self, batch: &[RankEdge<W>]) -> Result<()> {
        // Room for the longest codes, plus 8 bytes a store may run past
        // the end; grown once, never cleared (every byte written is set).
        let need = batch.len() * (10 + W::BYTES) + 8;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        let mut at = 0;
        for e in batch {
            let key = (e.s as u64) << 32 | e.d as u64;
            at += put_varint(&mut self.buf[at..], zigzag(key.wrapping_sub(self.prev)));
            self.prev = key;
            e.w.enc(&mut self.buf[at..at + W::BYTES]);
            at += W::BYTES;
        }
        self.out.write_all(&self.buf[..at])?;
        self.bytes += at as u64;
        Ok(())
    }

    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Ends writing; the reader removes the file when dropped.
    pub fn finish(mut self) -> Result<RankReader> {
        self.out.finish()?;
        Ok(RankReader {
            input: DirectChunks::open(&self.path, self.bytes, READ_CHUNK)?,
            path: self.path,
            left: Vec::new(),
            prev: 0,
            at: 0,
        })
    }
}

/// Bytes per read of the scratch file (a multiple of 8 and 16 bytes).
const READ_CHUNK: usize = 4 << 20;

/// The scratch file of distinct edges, read back once.
pub(super) struct RankReader {
    path: PathBuf,
    input: DirectChunks,
    /// The bytes of an edge cut by the end of the last chunk.
    left: Vec<u8>,
    prev: u64,
    /// Bytes of the current chunk decoded.
    at: usize,
}

impl RankReader {
    /// Replaces `out` with the next edges, at most [`BATCH`] (a whole
    /// chunk at once was millions of edges outside the budget); false at
    /// the end.
    pub fn next_batch<W: Weight>(&mut self, out: &mut Vec<RankEdge<W>>) -> Result<bool> {
        out.clear();
        while out.len() < BATCH {
            if self.at == self.input.current().len() && !self.next_chunk::<W>(out)? {
                break;
            }
            let chunk = &self.input.current()[self.at..];
            let (mut prev, mut at) = (self.prev, 0);
            while out.len() < BATCH {
                let Some((e, used)) = decode_edge::<W>(&chunk[at..], &mut prev) else {
                    // What is left is an edge cut by the chunk's end.
                    self.left.extend_from_slice(&chunk[at..]);
                    at = chunk.len();
                    break;
                };
                out.push(e);
                at += used;
            }
            self.prev = prev;
            self.at += at;
        }
        Ok(!out.is_empty())
    }

    /// Moves to the next chunk, completing an edge the last one cut into
    /// `out`; false at the end.
    fn next_chunk<W: Weight>(&mut self, out: &mut Vec<RankEdge<W>>) -> Result<bool> {
        let bad = |what: &str| crate::error::Error::io(&self.path, std::io::Error::other(what));
        self.at = 0;
        let Some(chunk) = self.input.next_chunk()? else {
            return match self.left.is_empty() {
                true => Ok(false),
                false => Err(bad("scratch file cut inside an edge")),
            };
        };
        if !self.left.is_empty() {
            // At most a varint and a weight: 18 bytes.
            let take = (10 + W::BYTES).min(chunk.len());
            let had = self.left.len();
            self.left.extend_from_slice(&chunk[..take]);
            let (e, used) =
                decode_edge::<W>(&self.left, &mut self.prev).ok_or_else(|| bad("bad edge code"))?;
            out.push(e);
            self.at = used - had;
            self.left.clear();
        }
        Ok(true)
    }
}

/// Zigzag: small differences of either sign become small codes.
#[inline]
fn zigzag(x: u64) -> u64 {
    (x << 1) ^ ((x as i64 >> 63) as u64)
}

#[inline]
fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

/// The 7-bit groups of `v` (below 2^56) one to a byte, top bits clear: in
/// three steps of halving lanes (28 bits to a 32-bit lane, 14 to 16, 7 to
/// 8) where a loop over the eight groups took 24 operations.
#[inline(always)]
fn spread7(v: u64) -> u64 {
    let x = (v & 0x0000_0000_0FFF_FFFF) | ((v & 0x00FF_FFFF_F000_0000) << 4);
    let x = (x & 0x0000_3FFF_0000_3FFF) | ((x & 0x0FFF_C000_0FFF_C000) << 2);
    (x & 0x007F_007F_007F_007F) | ((x & 0x3F80_3F80_3F80_3F80) << 1)
}

/// The inverse of [`spread7`]: the low 7 bits of each byte of `x`, packed.
#[inline(always)]
fn gather7(x: u64) -> u64 {
    let x = x & 0x7F7F_7F7F_7F7F_7F7F;
    let x = (x & 0x007F_007F_007F_007F) | ((x & 0x7F00_7F00_7F00_7F00) >> 1);
    let x = (x & 0x0000_3FFF_0000_3FFF) | ((x & 0x3FFF_0000_3FFF_0000) >> 2);
    (x & 0x0000_0000_0FFF_FFFF) | ((x & 0x0FFF_FFFF_0000_0000) >> 4)
}

/// Writes `v` as a little-endian base-128 varint at the front of `out`
/// (which has room for 8 bytes more than the code when it is short) and
/// returns its length.
#[inline(always)]
fn put_varint(out: &mut [u8], v: u64) -> usize {
    if v >> 56 == 0 {
        // Up to 8 bytes: groups spread and continuation bits set without a
        // loop (its length varies from edge to edge), stored as 8 bytes.
        let len = (64 - (v | 1).leading_zeros()).div_ceil(7) as usize;
        let mut x = spread7(v);
        x |= 0x8080_8080_8080_8080 & ((1u64 << (8 * (len - 1))) - 1);
        out[..8].copy_from_slice(&x.to_le_bytes());
        return len;
    }
    crate::ingest::leb128::put(out, v)
}

/// One edge (varint key difference, then the weight) from the front of
/// `b`, and the bytes it took; `None` when `b` holds only part of one.
#[inline]
fn decode_edge<W: Weight>(b: &[u8], prev: &mut u64) -> Option<(RankEdge<W>, usize)> {
    let (z, i) = match b.first_chunk::<8>().map(|c| u64::from_le_bytes(*c)) {
        // A varint of at most 8 bytes with all of them here: its length
        // from the first clear top bit, its 7-bit groups gathered without a
        // branch (lengths vary from edge to edge: a loop mispredicts).
        Some(x) if !x & 0x8080_8080_8080_8080 != 0 => {
            let len = ((!x & 0x8080_8080_8080_8080).trailing_zeros() / 8 + 1) as usize;
            let x = match len {
                8 => x,
                _ => x & ((1u64 << (8 * len)) - 1),
            };
            (gather7(x), len)
        }
        _ => varint_slow(b)?,
    };
    let w = W::dec(b.get(i..i + W::BYTES)?);
    let key = prev.wrapping_add(unzigzag(z));
    *prev = key;
    let e = RankEdge {
        s: (key >> 32) as u32,
        d: key as u32,
        w,
    };
    Some((e, i + W::BYTES))
}

/// A varint byte by byte (near a chunk's end, or longer than 8 bytes).
fn varint_slow(b: &[u8]) -> Option<(u64, usize)> {
    let (mut z, mut i, mut shift) = (0u64, 0usize, 0u32);
    loop {
        let byte = *b.get(i)?;
        z |= ((byte & 0x7F) as u64) << shift;
        i += 1;
        if byte < 0x80 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
    Some((z, i))
}

impl Drop for RankReader {
    fn drop(&mut self) {
        crate::ingest::reap::remove_later(vec![std::mem::take(&mut self.path)]);
    }
}

/// Where the remap reads distinct edges from.
#[allow(clippy::large_enum_variant)] // one per build
pub(super) enum Distinct<'a, E: InputEdge> {
    Dedup(Dedup<'a, E>),
    Spill(RankReader),
}

impl<E: InputEdge> Distinct<'_, E> {
    pub fn next_batch(&mut self, out: &mut Vec<RankEdge<E::W>>) -> Result<bool> {
        match self {
            Distinct::Dedup(d) => d.next_batch(out),
            Distinct::Spill(r) => r.next_batch(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 7-bit groups spread and gathered in lanes are those of a loop
    /// over the groups, for every length of value.
    #[test]
    fn groups_spread_and_gather_as_a_loop_would() {
        let mut x: u64 = 11;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x >> (8 + i % 56);
            let mut by_loop = 0u64;
            for k in 0..8 {
                by_loop |= (v << k) & (0x7F << (8 * k));
            }
            assert_eq!(spread7(v), by_loop, "{v:#x}");
            assert_eq!(gather7(by_loop | 0x8080_8080_8080_8080), v, "{v:#x}");
        }
    }

    /// Edges written and read back through the coded scratch file: keys
    /// rising (sorted) and falling (hashed buckets), equal, at 0 and at
    /// u32::MAX, weighted, over many read chunks so edges are cut by
    /// chunk ends, handed out in batches of at most [`BATCH`].
    #[test]
    fn scratch_file_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let mut x: u64 = 7;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut edges: Vec<RankEdge<f64>> = Vec::new();
        for i in 0..1_500_000u64 {
            let r = next();
            let (s, d) = match i % 5 {
                0 => (r as u32, (r >> 32) as u32),
                1 => (u32::MAX, u32::MAX - (r % 3) as u32),
                2 => (0, 0),
                _ => (i as u32 / 8, (r % 1000) as u32),
            };
            edges.push(RankEdge {
                s,
                d,
                w: (r >> 11) as f64 * 1e-3,
            });
        }
        let mut spill = RankSpill::create(dir.path()).unwrap();
        for b in edges.chunks(4099) {
            spill.push(b).unwrap();
        }
        assert!(spill.bytes() > 3 * READ_CHUNK as u64);
        let mut reader = spill.finish().unwrap();
        let (mut got, mut batch) = (Vec::new(), Vec::new());
        while reader.next_batch::<f64>(&mut batch).unwrap() {
            // Batches stay small: a chunk's worth was outside the budget.
            assert!(!batch.is_empty() && batch.len() <= BATCH);
            got.extend(batch.iter().map(|e| (e.s, e.d, e.w)));
        }
        let want: Vec<_> = edges.iter().map(|e| (e.s, e.d, e.w)).collect();
        assert_eq!(got.len(), want.len());
        assert!(got == want);
    }
}
