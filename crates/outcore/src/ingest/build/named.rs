//! Vertex ids mapped to ranks outside memory (merge joins on disk): the
//! front of the build when a source's ids are names
//! ([`crate::ingest::names`]), or integers too many for the in-memory id
//! map (an integer is then named by its 8 big-endian bytes, whose byte order
//! is numeric order, and fingerprinted by itself).
//!
//! 1. **Read**: every edge goes to a sorter by source fingerprint (an
//!    undirected edge first oriented by fingerprint, so both orientations of
//!    one edge meet as duplicates); every block's distinct names go to the
//!    name sorter.
//! 2. **Names**: the distinct names in byte order are numbered (rank = that
//!    position) and written to the store (`ids.str`, `ids.off`); each name's
//!    (fingerprint, rank) goes to a sorter by fingerprint.
//! 3. **Join** the edges by source fingerprint with the ranks: each edge
//!    becomes (target fingerprint, source rank), sorted by target fingerprint.
//! 4. The build proper reads a [`RankedSource`]: the second join, edges in
//!    ranks, as a source whose vertices are exactly `0..n`.
//!
//! Both sorts are stable, so duplicate edges keep their input order and the
//! last still wins. Memory depends on the budget only, not on the number of
//! names; each sorter spills to the scratch directory when its share fills.

use super::records::{Keyed, Weight};
use super::{BuildOptions, BATCH, RESERVED};
use crate::error::{Error, IoContext, Result};
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::names::{fingerprint, NameSorter, NameStream};
use crate::ingest::sort::{Record, Sorted};
use crate::ingest::{EdgeSource, NamedBatch, RawEdge};
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::file::{DataWriter, StoreDir, WriteLe};
use crate::store::{IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// An edge between named vertices, by source fingerprint.
#[derive(Clone, Copy)]
struct FpEdge<W> {
    s: u128,
    d: u128,
    w: W,
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
    fn decode(b: &[u8]) -> Self {
        FpEdge {
            s: u128::from_le_bytes(b[..16].try_into().unwrap()),
            d: u128::from_le_bytes(b[16..32].try_into().unwrap()),
            w: W::dec(&b[32..]),
        }
    }
}

/// An edge with its source ranked, by target fingerprint.
#[derive(Clone, Copy)]
struct HalfEdge<W> {
    d: u128,
    s: u32,
    w: W,
}

impl<W: Weight> Record for HalfEdge<W> {
    const BYTES: usize = 20 + W::BYTES;
    type Key = u128;
    fn key(&self) -> u128 {
        self.d
    }
    fn radix_key(&self) -> u128 {
        self.d
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.d.to_le_bytes());
        out[16..20].copy_from_slice(&self.s.to_le_bytes());
        self.w.enc(&mut out[20..]);
    }
    fn decode(b: &[u8]) -> Self {
        HalfEdge {
            d: u128::from_le_bytes(b[..16].try_into().unwrap()),
            s: u32::from_le_bytes(b[16..20].try_into().unwrap()),
            w: W::dec(&b[20..]),
        }
    }
}

/// A name's fingerprint and rank, by fingerprint.
#[derive(Clone, Copy)]
struct FpRank {
    fp: u128,
    rank: u32,
}

impl Record for FpRank {
    const BYTES: usize = 20;
    type Key = u128;
    fn key(&self) -> u128 {
        self.fp
    }
    fn radix_key(&self) -> u128 {
        self.fp
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.fp.to_le_bytes());
        out[16..20].copy_from_slice(&self.rank.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        FpRank {
            fp: u128::from_le_bytes(b[..16].try_into().unwrap()),
            rank: u32::from_le_bytes(b[16..20].try_into().unwrap()),
        }
    }
}

/// The name sorter: byte strings, or integers as 8-byte records.
#[allow(clippy::large_enum_variant)] // one per build
enum Names {
    Bytes(NameSorter),
    Ints(BucketSorter<Keyed<()>>),
}

impl Names {
    fn push_name(&mut self, name: &[u8]) -> Result<()> {
        match self {
            Names::Bytes(s) => s.push(name),
            Names::Ints(_) => unreachable!("integer ids are pushed as integers"),
        }
    }

    fn push_int(&mut self, v: u64) -> Result<()> {
        match self {
            Names::Ints(s) => s.push(Keyed { key: v, w: () }),
            Names::Bytes(_) => unreachable!("names are pushed as bytes"),
        }
    }

    /// The distinct names in byte order, and the bytes spilled on the way.
    fn finish(self) -> Result<(NamesInOrder, u64)> {
        Ok(match self {
            Names::Bytes(s) => {
                let st = s.finish()?;
                let spilled = st.spilled_bytes();
                (NamesInOrder::Bytes(st), spilled)
            }
            Names::Ints(mut s) => {
                s.park()?;
                let spilled = s.spilled_bytes();
                let sorted = s.finish()?;
                (NamesInOrder::Ints(sorted, None, [0; 8]), spilled)
            }
        })
    }
}

enum NamesInOrder {
    Bytes(NameStream),
    /// The sorted ids, the last one given, its big-endian bytes.
    Ints(Sorted<Keyed<()>>, Option<u64>, [u8; 8]),
}

impl NamesInOrder {
    fn next_name(&mut self) -> Result<Option<&[u8]>> {
        match self {
            NamesInOrder::Bytes(s) => s.next_name(),
            NamesInOrder::Ints(sorted, last, buf) => loop {
                let Some(r) = sorted.next_record()? else {
                    return Ok(None);
                };
                if *last != Some(r.key) {
                    *last = Some(r.key);
                    *buf = r.key.to_be_bytes();
                    return Ok(Some(&buf[..]));
                }
            },
        }
    }
}

/// What the vertex ids of the source are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ids {
    /// Names ([`EdgeSource::for_each_named_batch`]): `ids.str` + `ids.off`.
    Strings,
    /// Integers ([`EdgeSource::for_each_edge_batch`]) too many for the
    /// in-memory id map: `ids.bin`.
    Ints,
}

/// Writes the ids by rank into the store.
#[allow(clippy::large_enum_variant)] // one per build
enum IdWriter {
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
    fn new(ids: Ids, dir: &mut StoreDir) -> Result<IdWriter> {
        Ok(match ids {
            Ids::Strings => IdWriter::Strings {
                strs: dir.file(IDS_STR_FILE)?,
                offs: dir.file(IDS_OFF_FILE)?,
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

    /// Writes rank `r`'s name; true when a batch went out.
    fn push(&mut self, name: &[u8], r: u64) -> Result<bool> {
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
    fn finish(self, dir: &mut StoreDir) -> Result<bool> {
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

/// What the front did, for the build's report.
pub(super) struct Front {
    pub ids: Ids,
    /// False when integer ids turned out to be `0..n` already.
    pub has_id_map: bool,
    /// When the build began.
    pub start: Option<Instant>,
    pub phases: Vec<(&'static str, f64)>,
    pub spilled: u64,
    pub input_bytes: Option<u64>,
}

/// Steps 1-3 of the module docs; the result feeds the build proper.
pub(super) fn rank_names<W: Weight>(
    source: &mut dyn EdgeSource,
    ids: Ids,
    dir: &mut StoreDir,
    scratch: &Path,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<(RankedSource<W>, Front)> {
    let undirected = !opts.directed;
    let reserved = budget.charge(RESERVED, "input pipeline and writers")?;
    let cap = |b: u64| opts.sort_buffer_cap.map_or(b, |c| c.min(b));
    let free = budget.available();
    let mut names = match ids {
        Ids::Strings => Names::Bytes(NameSorter::new(scratch, budget, cap(free / 3))?),
        Ids::Ints => Names::Ints(BucketSorter::new(
            "vertex ids",
            scratch,
            budget,
            cap(free / 3),
            Split::Ordered,
            source.expected_edges().map(|m| 2 * m),
        )?),
    };
    let mut edges = BucketSorter::<FpEdge<W>>::new(
        "edges by source name",
        scratch,
        budget,
        cap(budget.available()),
        Split::Ordered,
        source.expected_edges(),
    )?;
    let t = Instant::now();
    let total = source.input_bytes();
    let label = format!("read {}", source.describe());
    let mut progress = match total {
        Some(t) => Progress::bar(label, t, Unit::Bytes),
        None => Progress::new(label),
    };
    let consumed = source.consumed_counter().filter(|_| total.is_some());
    let mut count = 0u64;
    let mut push = |s: u128, d: u128, w: f64| {
        let (s, d) = if undirected && s > d { (d, s) } else { (s, d) };
        edges.push(FpEdge {
            s,
            d,
            w: W::from_f64(w),
        })
    };
    let mut tick = |count: u64| {
        crate::cancel::check()?;
        progress.tick(|| format!("{count} edges"));
        if let Some(c) = &consumed {
            progress.set(c.load(std::sync::atomic::Ordering::Relaxed));
        }
        Ok(())
    };
    match ids {
        Ids::Strings => source.for_each_named_batch(&mut |b: &NamedBatch| {
            for n in b.names() {
                names.push_name(n)?;
            }
            for e in &b.edges {
                push(e.src, e.dst, e.weight)?;
            }
            count += b.edges.len() as u64;
            tick(count)
        })?,
        Ids::Ints => {
            // An integer is named by its big-endian bytes (byte order is
            // numeric order) and fingerprinted by itself.
            source.for_each_vertex_batch(&mut |vs| {
                vs.iter().try_for_each(|&v| names.push_int(v))?;
                crate::cancel::check()
            })?;
            source.for_each_edge_batch(&mut |batch| {
                let mut last = None;
                for e in batch {
                    for v in [e.src, e.dst] {
                        if last != Some(v) {
                            names.push_int(v)?;
                            last = Some(v);
                        }
                    }
                    push(e.src as u128, e.dst as u128, e.weight)?;
                }
                count += batch.len() as u64;
                tick(count)
            })?
        }
    }
    progress.done(|| format!("{count} edges"));
    let read = t.elapsed().as_secs_f64();
    // Sorted now: in memory the buffer shrinks to the edges, spilled it
    // holds a bucket at a time.
    let mut spilled = edges.spilled_bytes();
    let mut by_source = edges.finish()?;

    // Names: ranks in byte order, written to the store.
    let t = Instant::now();
    let mut progress = Progress::new("number vertex names");
    let (mut stream, names_spilled) = names.finish()?;
    spilled += names_spilled;
    // Names come in byte order: integers, named by their big-endian bytes,
    // are already in fingerprint order; names need a sort.
    let mut ranks = match ids {
        Ids::Strings => Some(BucketSorter::<FpRank>::new(
            "vertex names by fingerprint",
            scratch,
            budget,
            cap(budget.available() / 2),
            Split::Ordered,
            None,
        )?),
        Ids::Ints => None,
    };
    let mut out = IdWriter::new(ids, dir)?;
    let mut n = 0u64;
    while let Some(name) = stream.next_name()? {
        if n > u32::MAX as u64 {
            return Err(Error::Invalid(format!(
                "more than {} distinct vertex ids: this version supports at most that many",
                u32::MAX as u64 + 1
            )));
        }
        if let Some(r) = ranks.as_mut() {
            r.push(FpRank {
                fp: fingerprint(name),
                rank: n as u32,
            })?;
        }
        if out.push(name, n)? {
            crate::cancel::check()?;
            progress.tick(|| format!("{n} names"));
        }
        n += 1;
    }
    let has_id_map = out.finish(dir)?;
    drop(stream);
    progress.done(|| format!("{n} distinct vertex ids"));
    let mut ranks = Ranks::new(match ranks {
        Some(mut r) => {
            r.park()?;
            spilled += r.spilled_bytes();
            RankSource::Sorted(r.finish()?)
        }
        None if has_id_map => {
            let path = dir.tmp_path().join(IDS_FILE);
            let f = File::open(&path).at(&path)?;
            RankSource::Ids {
                input: BufReader::with_capacity(1 << 20, f),
                path,
                next: 0,
            }
        }
        None => RankSource::Identity { next: 0, n },
    });
    let numbered = t.elapsed().as_secs_f64();

    // Join by source name: edges become (target name, source rank).
    let t = Instant::now();
    let mut progress = Progress::bar("join source names", count, Unit::Items);
    let mut halves = BucketSorter::<HalfEdge<W>>::new(
        "edges by target name",
        scratch,
        budget,
        cap(budget.available()),
        Split::Ordered,
        Some(count),
    )?;
    let mut i = 0u64;
    while let Some(e) = by_source.next_record()? {
        let s = ranks.rank(e.s)?;
        halves.push(HalfEdge { d: e.d, s, w: e.w })?;
        i += 1;
        if i.is_multiple_of(1 << 20) {
            crate::cancel::check()?;
            progress.set(i);
        }
    }
    drop(by_source);
    progress.done(|| format!("{count} edges"));
    halves.park()?;
    spilled += halves.spilled_bytes();
    ranks.rewind()?;
    let halves = halves.finish()?;
    drop(reserved);
    let front = Front {
        ids,
        has_id_map,
        start: None,
        phases: vec![
            ("read", read),
            ("names", numbered),
            ("join", t.elapsed().as_secs_f64()),
        ],
        spilled,
        input_bytes: total,
    };
    let ranked = RankedSource {
        describe: source.describe(),
        halves,
        ranks,
        n,
        edges: count,
    };
    Ok((ranked, front))
}

/// Where the (fingerprint, rank) pairs come from, in fingerprint order.
enum RankSource {
    /// Names: sorted by fingerprint.
    Sorted(Sorted<FpRank>),
    /// Integers: `ids.bin` as written (ids ascending, each its own
    /// fingerprint), no sort needed.
    Ids {
        path: PathBuf,
        input: BufReader<File>,
        next: u32,
    },
    /// Integers that are `0..n` (no `ids.bin`).
    Identity { next: u64, n: u64 },
}

impl RankSource {
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
                    rank: (*next - 1) as u32,
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
struct Ranks {
    source: RankSource,
    cur: Option<FpRank>,
}

impl Ranks {
    fn new(source: RankSource) -> Self {
        Ranks { source, cur: None }
    }

    fn rewind(&mut self) -> Result<()> {
        self.cur = None;
        self.source.rewind()
    }

    /// The rank of the name with fingerprint `fp`; calls come in ascending
    /// order of `fp`.
    fn rank(&mut self, fp: u128) -> Result<u32> {
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

/// Edges in ranks (step 4 of the module docs) as a source of vertices `0..n`.
pub(super) struct RankedSource<W: Weight> {
    describe: String,
    halves: Sorted<HalfEdge<W>>,
    ranks: Ranks,
    n: u64,
    edges: u64,
}

impl<W: Weight> EdgeSource for RankedSource<W> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn ids_fit_u32(&self) -> bool {
        true
    }

    fn expected_edges(&self) -> Option<u64> {
        Some(self.edges)
    }

    fn dense_vertex_count(&self) -> Option<u64> {
        Some(self.n)
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        let mut batch = Vec::with_capacity(BATCH);
        while let Some(e) = self.halves.next_record()? {
            let d = self.ranks.rank(e.d)?;
            batch.push(RawEdge {
                src: e.s as u64,
                dst: d as u64,
                weight: e.w.get(),
            });
            if batch.len() == BATCH {
                f(&batch)?;
                batch.clear();
            }
        }
        if !batch.is_empty() {
            f(&batch)?;
        }
        Ok(())
    }
}
