//! The distinct edges of the input in rank space (rank = position of an
//! original id among the sorted distinct ids): the sorted input with
//! duplicates collapsed to their last occurrence, each id looked up once.
//!
//! The degree pass reads them first; when the input spilled it writes them
//! to a scratch file as it goes, so the remap reads that file straight through instead of sorting the input and
//! looking ids up again. Both go through `O_DIRECT` with the transfer on a
//! background thread (a page-cache write of it cost the degree pass a fifth
//! of its time in kernel copies). An edge is stored as the zigzag varint of
//! the difference of its key (src << 32 | dst; wide: src << 64 | dst) from
//! the previous edge's, then its weight: sorted neighbours are close, so
//! about 3 bytes where a plain pair took 8 (the pass was bound by the
//! disk's writes).

use super::records::{DenseId, InputEdge, Weight};
pub(super) use super::spill_code::SpillCode;
use super::BATCH;
use crate::error::Result;
use crate::ingest::idmap::IdMap;
use crate::ingest::scratch::ScratchFiles;
use crate::ingest::sort::Sorted;
use crate::mem::prefetch::AHEAD;
use crate::store::append::{DirectAppender, DirectChunks};
use std::path::PathBuf;

/// A distinct edge in ranks.
#[derive(Clone, Copy)]
pub(super) struct RankEdge<I, W> {
    pub s: I,
    pub d: I,
    pub w: W,
}

/// Distinct edges from the sorted input, in ranks of type `I`.
pub(super) struct Dedup<'a, E: InputEdge, I> {
    sorted: Sorted<E>,
    idmap: &'a IdMap,
    prev: Option<E>,
    chunk: Vec<E>,
    keys: Vec<E>,
    /// Input edges collapsed into a later equal one.
    pub duplicates: u64,
    /// Input records consumed (for progress).
    pub consumed: u64,
    id: std::marker::PhantomData<I>,
}

impl<'a, E: InputEdge, I: DenseId> Dedup<'a, E, I> {
    pub fn new(sorted: Sorted<E>, idmap: &'a IdMap) -> Self {
        Dedup {
            sorted,
            idmap,
            prev: None,
            chunk: Vec::with_capacity(BATCH),
            keys: Vec::with_capacity(BATCH),
            duplicates: 0,
            consumed: 0,
            id: std::marker::PhantomData,
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
    pub fn next_batch(&mut self, out: &mut Vec<RankEdge<I, E::W>>) -> Result<bool> {
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
        let rank = |o: u64| I::of(idmap.dense(o).expect("every id was collected"));
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
pub(super) struct RankSpill<I: SpillCode> {
    path: PathBuf,
    files: ScratchFiles,
    out: DirectAppender,
    bytes: u64,
    buf: Vec<u8>,
    /// The last edge's key: each edge is stored as the difference.
    prev: I::Prev,
}

impl<I: SpillCode> RankSpill<I> {
    pub fn create(scratch: &ScratchFiles) -> Result<Self> {
        let path = scratch.path("distinct");
        Ok(RankSpill {
            out: DirectAppender::create(&path)?,
            path,
            files: scratch.clone(),
            bytes: 0,
            buf: Vec::new(),
            prev: I::Prev::default(),
        })
    }

    pub fn push<W: Weight>(&mut self, batch: &[RankEdge<I, W>]) -> Result<()> {
        // Room for the longest codes, plus 8 bytes a store may run past
        // the end; grown once, never cleared (every byte written is set).
        let need = batch.len() * (I::MAX_CODE + W::BYTES) + 8;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        let mut at = 0;
        for e in batch {
            at += I::put(&mut self.prev, e.s, e.d, &mut self.buf[at..]);
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

    /// Ends writing; the reader releases the file when dropped.
    pub fn finish(mut self) -> Result<RankReader<I>> {
        self.out.finish()?;
        Ok(RankReader {
            input: DirectChunks::open(&self.path, self.bytes, READ_CHUNK)?,
            path: self.path,
            files: self.files,
            left: Vec::new(),
            prev: I::Prev::default(),
            at: 0,
        })
    }
}

/// Bytes per read of the scratch file (a multiple of 8 and 16 bytes).
const READ_CHUNK: usize = 4 << 20;

/// The scratch file of distinct edges, read back once.
pub(super) struct RankReader<I: SpillCode> {
    path: PathBuf,
    files: ScratchFiles,
    input: DirectChunks,
    /// The bytes of an edge cut by the end of the last chunk.
    left: Vec<u8>,
    prev: I::Prev,
    /// Bytes of the current chunk decoded.
    at: usize,
}

impl<I: SpillCode> RankReader<I> {
    /// Replaces `out` with the next edges, at most [`BATCH`] (a whole
    /// chunk at once was millions of edges outside the budget); false at
    /// the end.
    pub fn next_batch<W: Weight>(&mut self, out: &mut Vec<RankEdge<I, W>>) -> Result<bool> {
        out.clear();
        while out.len() < BATCH {
            if self.at == self.input.current().len() && !self.next_chunk::<W>(out)? {
                break;
            }
            let chunk = &self.input.current()[self.at..];
            let (mut prev, mut at) = (self.prev, 0);
            while out.len() < BATCH {
                let Some((e, used)) = decode_edge::<I, W>(&chunk[at..], &mut prev) else {
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
    fn next_chunk<W: Weight>(&mut self, out: &mut Vec<RankEdge<I, W>>) -> Result<bool> {
        let bad = |what: &str| crate::error::Error::io(&self.path, std::io::Error::other(what));
        self.at = 0;
        let Some(chunk) = self.input.next_chunk()? else {
            return match self.left.is_empty() {
                true => Ok(false),
                false => Err(bad("scratch file cut inside an edge")),
            };
        };
        if !self.left.is_empty() {
            // At most a varint and a weight.
            let take = (I::MAX_CODE + W::BYTES).min(chunk.len());
            let had = self.left.len();
            self.left.extend_from_slice(&chunk[..take]);
            let (e, used) = decode_edge::<I, W>(&self.left, &mut self.prev)
                .ok_or_else(|| bad("bad edge code"))?;
            out.push(e);
            self.at = used - had;
            self.left.clear();
        }
        Ok(true)
    }
}

/// One edge (varint key difference, then the weight) from the front of
/// `b`, and the bytes it took; `None` when `b` holds only part of one.
#[inline(always)]
fn decode_edge<I: SpillCode, W: Weight>(
    b: &[u8],
    prev: &mut I::Prev,
) -> Option<(RankEdge<I, W>, usize)> {
    let mut p = *prev;
    let ((s, d), i) = I::take(b, &mut p)?;
    let w = W::dec(b.get(i..i + W::BYTES)?);
    *prev = p;
    Some((RankEdge { s, d, w }, i + W::BYTES))
}

impl<I: SpillCode> Drop for RankReader<I> {
    fn drop(&mut self) {
        self.files.release(vec![std::mem::take(&mut self.path)]);
    }
}

/// Where the remap reads distinct edges from.
#[allow(clippy::large_enum_variant)] // one per build
pub(super) enum Distinct<'a, E: InputEdge, I: DenseId> {
    Dedup(Dedup<'a, E, I>),
    Spill(RankReader<I>),
    /// A built store's edges in its dense ids, from its scan
    /// ([`super::relabel`]).
    Store(std::sync::mpsc::Receiver<super::relabel::Scanned<I, E::W>>),
}

impl<E: InputEdge, I: DenseId> Distinct<'_, E, I> {
    pub fn next_batch(&mut self, out: &mut Vec<RankEdge<I, E::W>>) -> Result<bool> {
        match self {
            Distinct::Dedup(d) => d.next_batch(out),
            Distinct::Spill(r) => r.next_batch(out),
            Distinct::Store(rx) => match rx.recv() {
                Ok(batch) => {
                    *out = batch?;
                    Ok(true)
                }
                // The scan ended (its batches are never empty).
                Err(_) => {
                    out.clear();
                    Ok(false)
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges written and read back through the coded scratch file: keys
    /// rising (sorted) and falling (hashed buckets), equal, at 0 and at
    /// u32::MAX, weighted, over many read chunks so edges are cut by
    /// chunk ends, handed out in batches of at most [`BATCH`].
    #[test]
    fn scratch_file_round_trips() {
        let edges = edges(|i, r| match i % 5 {
            0 => (r as u32, (r >> 32) as u32),
            1 => (u32::MAX, u32::MAX - (r % 3) as u32),
            2 => (0, 0),
            _ => (i as u32 / 8, (r % 1000) as u32),
        });
        round_trip(&edges);
    }

    /// Wide ranks the same way: ids past 32 bits, the largest u64, far
    /// jumps (the longest codes) and near neighbours.
    #[test]
    fn wide_scratch_file_round_trips() {
        let edges = edges(|i, r| match i % 5 {
            0 => (r, r.rotate_left(29)),
            1 => (u64::MAX, u64::MAX - r % 3),
            2 => (0, 0),
            3 => ((1 << 32) + i / 8, (1 << 33) + r % 1000),
            _ => (i / 8, r % 1000),
        });
        round_trip(&edges);
    }

    /// 1.5 M weighted edges of ids `make(i, random)`.
    fn edges<I>(make: impl Fn(u64, u64) -> (I, I)) -> Vec<RankEdge<I, f64>> {
        let mut x: u64 = 7;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..1_500_000u64)
            .map(|i| {
                let r = next();
                let (s, d) = make(i, r);
                RankEdge {
                    s,
                    d,
                    w: (r >> 11) as f64 * 1e-3,
                }
            })
            .collect()
    }

    fn round_trip<I: SpillCode + PartialEq + std::fmt::Debug>(edges: &[RankEdge<I, f64>]) {
        let dir = tempfile::tempdir().unwrap();
        let scratch = crate::ingest::scratch::Scratch::within(dir.path(), "t").unwrap();
        let mut spill = RankSpill::<I>::create(&scratch).unwrap();
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
