//! The pieces of ranking ids on disk ([`super::named`], `ondisk.rs`): the
//! records the joins sort, the writer of the store's id files, and the
//! (fingerprint, rank) stream the joins read.

use super::named::Ids;
use super::records::{DenseId, Weight};
use super::BATCH;
use crate::error::{Error, IoContext, Result};
use crate::ingest::sort::{Record, Sorted};
use crate::io::fault::Faulty;
use crate::store::file::{DataWriter, StoreDir, WriteLe};
use crate::store::{IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;

/// An edge between named vertices, by source fingerprint.
#[derive(Clone, Copy)]
pub(super) struct FpEdge<W> {
    pub(super) s: u128,
    pub(super) d: u128,
    pub(super) w: W,
}

impl<W: Weight> Record for FpEdge<W> {
    const BYTES: usize = 32 + W::BYTES;
    type Key = u128;
    fn key(&self) -> u128 {
        self.s
    }
    fn radix_key(&self) -> u128 {
        self.s
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.s.to_le_bytes());
        out[16..32].copy_from_slice(&self.d.to_le_bytes());
        self.w.enc(&mut out[32..]);
    }
    // Spilled, the source is stored in the bytes its bucket's range needs:
    // 8 or fewer for integer ids (their fingerprint is the id itself).
    const KEY_BYTES: usize = 16;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        FpEdge {
            s: key,
            d: u128::from_le_bytes(rest[..16].try_into().unwrap()),
            w: W::dec(&rest[16..]),
        }
    }
    fn decode(b: &[u8]) -> Self {
        FpEdge {
            s: u128::from_le_bytes(b[..16].try_into().unwrap()),
            d: u128::from_le_bytes(b[16..32].try_into().unwrap()),
            w: W::dec(&b[32..]),
        }
    }
}

/// An edge with its source ranked, by target fingerprint. The rank takes
/// the bytes of the store's dense ids (`D`: 4, or 8 past 2^32 - 1 ids).
#[derive(Clone, Copy)]
pub(super) struct HalfEdge<W, D> {
    pub(super) d: u128,
    pub(super) s: D,
    pub(super) w: W,
}

/// `D`'s little-endian bytes at the front of `b`.
#[inline]
fn dense_of<D: DenseId>(b: &[u8]) -> D {
    let mut x = [0u8; 8];
    x[..D::BYTES].copy_from_slice(&b[..D::BYTES]);
    D::of(u64::from_le_bytes(x))
}

impl<W: Weight, D: DenseId> Record for HalfEdge<W, D> {
    const BYTES: usize = 16 + D::BYTES + W::BYTES;
    type Key = u128;
    fn key(&self) -> u128 {
        self.d
    }
    fn radix_key(&self) -> u128 {
        self.d
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.d.to_le_bytes());
        out[16..16 + D::BYTES].copy_from_slice(&self.s.get().to_le_bytes()[..D::BYTES]);
        self.w.enc(&mut out[16 + D::BYTES..]);
    }
    // As for `FpEdge`: the target in the bytes its bucket's range needs.
    const KEY_BYTES: usize = 16;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        HalfEdge {
            d: key,
            s: dense_of(rest),
            w: W::dec(&rest[D::BYTES..]),
        }
    }
    fn decode(b: &[u8]) -> Self {
        HalfEdge {
            d: u128::from_le_bytes(b[..16].try_into().unwrap()),
            s: dense_of(&b[16..]),
            w: W::dec(&b[16 + D::BYTES..]),
        }
    }
}

/// A name's fingerprint and rank, by fingerprint.
#[derive(Clone, Copy)]
pub(super) struct FpRank {
    pub(super) fp: u128,
    pub(super) rank: u64,
}

impl Record for FpRank {
    const BYTES: usize = 24;
    type Key = u128;
    fn key(&self) -> u128 {
        self.fp
    }
    fn radix_key(&self) -> u128 {
        self.fp
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.fp.to_le_bytes());
        out[16..24].copy_from_slice(&self.rank.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        FpRank {
            fp: u128::from_le_bytes(b[..16].try_into().unwrap()),
            rank: u64::from_le_bytes(b[16..24].try_into().unwrap()),
        }
    }
}

/// Writes the ids by rank into the store.
#[allow(clippy::large_enum_variant)] // one per build
pub(super) enum IdWriter {
    Strings {
        strs: DataWriter,
        offs: DataWriter,
        buf: Vec<u64>,
        pos: u64,
    },
    Ints {
        ids: DataWriter,
        buf: Vec<u64>,
        /// Every id so far equals its rank.
        identity: bool,
    },
}

impl IdWriter {
    pub(super) fn new(ids: Ids, dir: &mut StoreDir) -> Result<IdWriter> {
        Ok(match ids {
            Ids::Strings => IdWriter::Strings {
                strs: dir.paged_file(IDS_STR_FILE)?,
                offs: dir.paged_file(IDS_OFF_FILE)?,
                buf: Vec::with_capacity(BATCH),
                pos: 0,
            },
            Ids::Ints => IdWriter::Ints {
                ids: dir.file(IDS_FILE)?,
                buf: Vec::with_capacity(BATCH),
                identity: true,
            },
        })
    }

    /// Writes rank `r`'s name (an integer id: its 8 big-endian bytes); true
    /// when a batch went out.
    pub(super) fn push(&mut self, name: &[u8], r: u64) -> Result<bool> {
        let (w, buf) = match self {
            IdWriter::Strings {
                strs,
                offs,
                buf,
                pos,
            } => {
                strs.write_all(name)?;
                buf.push(*pos);
                *pos += name.len() as u64;
                (offs, buf)
            }
            IdWriter::Ints { ids, buf, identity } => {
                let id = u64::from_be_bytes(name.try_into().expect("8-byte names"));
                *identity &= id == r;
                buf.push(id);
                (ids, buf)
            }
        };
        if buf.len() < BATCH {
            return Ok(false);
        }
        w.put_u64s(buf)?;
        buf.clear();
        Ok(true)
    }

    /// Closes the files; false when integer ids are `0..n` (no map kept,
    /// as an in-memory build keeps none).
    pub(super) fn finish(self, dir: &mut StoreDir) -> Result<bool> {
        match self {
            IdWriter::Strings {
                strs,
                mut offs,
                mut buf,
                pos,
            } => {
                buf.push(pos);
                offs.put_u64s(&buf)?;
                dir.close(strs)?;
                dir.close(offs)?;
                Ok(true)
            }
            IdWriter::Ints {
                mut ids,
                buf,
                identity,
            } => {
                ids.put_u64s(&buf)?;
                if identity {
                    dir.discard(ids)?;
                    return Ok(false);
                }
                dir.close(ids)?;
                Ok(true)
            }
        }
    }
}

/// Where the (fingerprint, rank) pairs come from, in fingerprint order.
pub(super) enum RankSource {
    /// Names: sorted by fingerprint.
    Sorted(Sorted<FpRank>),
    /// Integers: `ids.bin` as written (ids ascending, each its own
    /// fingerprint), no sort needed.
    Ids {
        path: PathBuf,
        input: BufReader<Faulty<File>>,
        next: u64,
    },
    /// Integers that are `0..n` (no `ids.bin`).
    Identity { next: u64, n: u64 },
}

impl RankSource {
    /// Integer ids numbered into `dir` ([`IdWriter::finish`] said whether
    /// it kept `ids.bin`): ascending, each its own fingerprint.
    pub(super) fn ints(dir: &StoreDir, has_id_map: bool, n: u64) -> Result<RankSource> {
        if !has_id_map {
            return Ok(RankSource::Identity { next: 0, n });
        }
        let path = dir.tmp_path().join(IDS_FILE);
        let f = File::open(&path).at(&path)?;
        Ok(RankSource::Ids {
            input: BufReader::with_capacity(1 << 20, Faulty(f)),
            path,
            next: 0,
        })
    }

    fn next_record(&mut self) -> Result<Option<FpRank>> {
        match self {
            RankSource::Sorted(s) => s.next_record(),
            RankSource::Ids { path, input, next } => {
                let mut b = [0u8; 8];
                match input.read_exact(&mut b) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
                    Err(e) => return Err(Error::io(&*path, e)),
                }
                *next += 1;
                Ok(Some(FpRank {
                    fp: u64::from_le_bytes(b) as u128,
                    rank: *next - 1,
                }))
            }
            RankSource::Identity { next, n } => {
                if *next == *n {
                    return Ok(None);
                }
                *next += 1;
                Ok(Some(FpRank {
                    fp: (*next - 1) as u128,
                    rank: *next - 1,
                }))
            }
        }
    }

    fn rewind(&mut self) -> Result<()> {
        match self {
            RankSource::Sorted(s) => s.rewind(),
            RankSource::Ids { path, input, next } => {
                *next = 0;
                input.seek(SeekFrom::Start(0)).at(&*path).map(|_| ())
            }
            RankSource::Identity { next, .. } => {
                *next = 0;
                Ok(())
            }
        }
    }
}

/// The (fingerprint, rank) stream, joined in fingerprint order.
pub(super) struct Ranks {
    source: RankSource,
    cur: Option<FpRank>,
}

impl Ranks {
    pub(super) fn new(source: RankSource) -> Self {
        Ranks { source, cur: None }
    }

    pub(super) fn rewind(&mut self) -> Result<()> {
        self.cur = None;
        self.source.rewind()
    }

    /// The rank of the name with fingerprint `fp`; calls come in ascending
    /// order of `fp`.
    pub(super) fn rank(&mut self, fp: u128) -> Result<u64> {
        loop {
            match self.cur {
                Some(c) if c.fp == fp => return Ok(c.rank),
                Some(c) if c.fp > fp => break,
                _ => {}
            }
            let next = self.source.next_record()?;
            match (self.cur, next) {
                (Some(c), Some(x)) if c.fp == x.fp => {
                    return Err(Error::Invalid(
                        "two different vertex ids share a 128-bit fingerprint; this input cannot be imported with --ids string (please report it)".into(),
                    ))
                }
                (_, None) => break,
                _ => self.cur = next,
            }
        }
        Err(Error::Invalid(format!(
            "internal error: an edge names a vertex missing from the name list (fingerprint {fp:032x})"
        )))
    }
}

#[cfg(test)]
mod tests;
