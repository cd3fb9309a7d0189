//! The distinct edges of the input in rank space (rank = position of an
//! original id among the sorted distinct ids): the sorted input with
//! duplicates collapsed to their last occurrence, each id looked up once.
//!
//! The degree pass reads them first; when the input spilled it writes them
//! to a scratch file as it goes (8 bytes an edge and the weight), so the
//! remap reads that file straight through instead of sorting the input and
//! looking ids up again. Both go through `O_DIRECT` with the transfer on a
//! background thread (a page-cache write of it cost the degree pass a fifth
//! of its time in kernel copies).

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

impl<W: Weight> RankEdge<W> {
    const BYTES: usize = 8 + W::BYTES;
}

/// Distinct edges from the sorted input.
pub(super) struct Dedup<'a, E: InputEdge> {
    sorted: Sorted<E>,
    idmap: &'a IdMap,
    prev: Option<E>,
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
            keys: Vec::with_capacity(BATCH),
            duplicates: 0,
            consumed: 0,
        }
    }

    /// True when the sorted input lives on disk.
    pub fn is_spilled(&self) -> bool {
        self.sorted.is_spilled()
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
        while self.keys.len() < BATCH {
            let Some(e) = self.sorted.next_record()? else {
                self.keys.extend(self.prev.take());
                break;
            };
            self.consumed += 1;
            match self.prev.replace(e) {
                Some(p) if p.key() == e.key() => self.duplicates += 1,
                Some(p) => self.keys.push(p),
                None => {}
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
}

impl RankSpill {
    pub fn create(dir: &Path) -> Result<Self> {
        let path = dir.join("distinct.tmp");
        Ok(RankSpill {
            out: DirectAppender::create(&path)?,
            path,
            bytes: 0,
            buf: Vec::new(),
        })
    }

    pub fn push<W: Weight>(&mut self, batch: &[RankEdge<W>]) -> Result<()> {
        let per = RankEdge::<W>::BYTES;
        self.buf.resize(batch.len() * per, 0);
        for (e, b) in batch.iter().zip(self.buf.chunks_exact_mut(per)) {
            b[..4].copy_from_slice(&e.s.to_le_bytes());
            b[4..8].copy_from_slice(&e.d.to_le_bytes());
            e.w.enc(&mut b[8..]);
        }
        self.out.write_all(&self.buf)?;
        self.bytes += self.buf.len() as u64;
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
        })
    }
}

/// Bytes per read of the scratch file (a multiple of 8 and 16 bytes).
const READ_CHUNK: usize = 4 << 20;

/// The scratch file of distinct edges, read back once.
pub(super) struct RankReader {
    path: PathBuf,
    input: DirectChunks,
}

impl RankReader {
    /// Replaces `out` with the next chunk's edges; false at the end.
    pub fn next_batch<W: Weight>(&mut self, out: &mut Vec<RankEdge<W>>) -> Result<bool> {
        let per = RankEdge::<W>::BYTES;
        let Some(chunk) = self.input.next_chunk()? else {
            out.clear();
            return Ok(false);
        };
        if !chunk.len().is_multiple_of(per) {
            return Err(crate::error::Error::io(
                &self.path,
                std::io::Error::other("scratch file cut inside an edge"),
            ));
        }
        out.clear();
        out.extend(chunk.chunks_exact(per).map(|b| RankEdge {
            s: u32::from_le_bytes(b[..4].try_into().unwrap()),
            d: u32::from_le_bytes(b[4..8].try_into().unwrap()),
            w: W::dec(&b[8..]),
        }));
        Ok(!out.is_empty())
    }
}

impl Drop for RankReader {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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
