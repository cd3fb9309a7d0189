//! The distinct edges of the input in rank space (rank = position of an
//! original id among the sorted distinct ids): the sorted input with
//! duplicates collapsed to their last occurrence, each id looked up once.
//!
//! The degree pass reads them first; when the input spilled it writes them
//! to a scratch file as it goes (8 bytes an edge and the weight), so the
//! remap reads that file straight through instead of sorting the input and
//! looking ids up again.

use super::records::{InputEdge, Weight};
use super::BATCH;
use crate::error::{IoContext, Result};
use crate::ingest::idmap::IdMap;
use crate::ingest::sort::Sorted;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
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
        // Ranks looked up in one tight loop: independent random reads of
        // the id map overlap in the memory system.
        let rank = |o: u64| self.idmap.dense(o).expect("every id was collected");
        out.clear();
        out.extend(self.keys.iter().map(|e| RankEdge {
            s: rank(e.src()),
            d: rank(e.dst()),
            w: e.w(),
        }));
        Ok(!out.is_empty())
    }
}

/// The scratch file of distinct edges, being written.
pub(super) struct RankSpill {
    path: PathBuf,
    out: BufWriter<File>,
    bytes: u64,
    buf: Vec<u8>,
}

impl RankSpill {
    pub fn create(dir: &Path) -> Result<Self> {
        let path = dir.join("distinct.tmp");
        let f = File::create(&path).at(&path)?;
        Ok(RankSpill {
            out: BufWriter::with_capacity(4 << 20, f),
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
        self.out.write_all(&self.buf).at(&self.path)?;
        self.bytes += self.buf.len() as u64;
        Ok(())
    }

    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Ends writing; the reader removes the file when dropped.
    pub fn finish(self) -> Result<RankReader> {
        let f = self
            .out
            .into_inner()
            .map_err(|e| e.into_error())
            .at(&self.path)?;
        drop(f);
        let f = File::open(&self.path).at(&self.path)?;
        Ok(RankReader {
            input: BufReader::with_capacity(4 << 20, f),
            path: self.path,
            left: self.bytes,
            buf: Vec::new(),
        })
    }
}

/// The scratch file of distinct edges, read back once.
pub(super) struct RankReader {
    path: PathBuf,
    input: BufReader<File>,
    left: u64,
    buf: Vec<u8>,
}

impl RankReader {
    pub fn next_batch<W: Weight>(&mut self, out: &mut Vec<RankEdge<W>>) -> Result<bool> {
        let per = RankEdge::<W>::BYTES;
        let take = (self.left as usize).min(BATCH * per);
        self.buf.resize(take, 0);
        self.input.read_exact(&mut self.buf).at(&self.path)?;
        self.left -= take as u64;
        out.clear();
        out.extend(self.buf.chunks_exact(per).map(|b| RankEdge {
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
