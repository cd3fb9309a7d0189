//! Vertex names mapped to ranks outside memory (merge joins on disk): the
//! front of the build when a source's ids are names
//! ([`crate::ingest::names`]). Integer ids too many for the in-memory id
//! map take the same joins from the build's own read (`ondisk.rs`).
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

use super::ranks::{FpEdge, FpRank, HalfEdge, IdWriter, RankSource, Ranks};
use super::records::{DenseId, Weight};
use super::{BuildOptions, BATCH, RESERVED};
use crate::error::Result;
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::names::{fingerprint, NameSorter};
use crate::ingest::scratch::Scratch;
use crate::ingest::sort::Sorted;
use crate::ingest::{EdgeSource, NamedBatch, RawEdge};
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::file::StoreDir;
use std::time::Instant;

/// What the vertex ids of the source are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ids {
    /// Names ([`EdgeSource::for_each_named_batch`]): `ids.str` + `ids.off`.
    Strings,
    /// Integers too many for the in-memory id map (`ondisk.rs`):
    /// `ids.bin`.
    Ints,
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
    /// The input's edges and the self-loops dropped, when the build proper
    /// reads what remains of them (`ondisk.rs`).
    pub counts: Option<(u64, u64)>,
}

/// Steps 1 and 2 of the module docs, up to the number of distinct ids
/// (which says how wide the ranks must be); [`Numbered::join`] is step 3.
pub(super) struct Numbered<W: Weight> {
    describe: String,
    by_source: Sorted<FpEdge<W>>,
    ranks: Ranks,
    n: u64,
    count: u64,
    spilled: u64,
    phases: Vec<(&'static str, f64)>,
    input_bytes: Option<u64>,
    reserved: crate::mem::budget::Charge,
}

/// Steps 1 and 2 of the module docs.
pub(super) fn number_names<W: Weight>(
    source: &mut dyn EdgeSource,
    dir: &mut StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<Numbered<W>> {
    let undirected = !opts.directed;
    let reserved = budget.charge(RESERVED, "input pipeline and writers")?;
    let cap = |b: u64| opts.sort_buffer_cap.map_or(b, |c| c.min(b));
    let free = budget.available();
    let mut names = NameSorter::new(scratch, budget, cap(free / 3))?;
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
    source.for_each_named_batch(&mut |b: &NamedBatch| {
        for n in b.names() {
            names.push(n)?;
        }
        for e in &b.edges {
            push(e.src, e.dst, e.weight)?;
        }
        count += b.edges.len() as u64;
        tick(count)
    })?;
    progress.done(|| format!("{count} edges"));
    let read = t.elapsed().as_secs_f64();
    // Sorted now: in memory the buffer shrinks to the edges, spilled it
    // holds a bucket at a time.
    edges.park()?;
    let mut spilled = edges.spilled_bytes();
    let by_source = edges.finish()?;

    // Names: ranks in byte order, written to the store.
    let t = Instant::now();
    let mut progress = Progress::new("number vertex names");
    let mut stream = names.finish()?;
    spilled += stream.spilled_bytes();
    // Names come in byte order; the joins take them by fingerprint.
    let mut ranks = BucketSorter::<FpRank>::new(
        "vertex names by fingerprint",
        scratch,
        budget,
        cap(budget.available() / 2),
        Split::Ordered,
        None,
    )?;
    let mut out = IdWriter::new(Ids::Strings, dir)?;
    let mut n = 0u64;
    while let Some(name) = stream.next_name()? {
        ranks.push(FpRank {
            fp: fingerprint(name),
            rank: n,
        })?;
        if out.push(name, n)? {
            crate::cancel::check()?;
            progress.tick(|| format!("{n} names"));
        }
        n += 1;
    }
    out.finish(dir)?;
    drop(stream);
    progress.done(|| format!("{n} distinct vertex ids"));
    ranks.park()?;
    spilled += ranks.spilled_bytes();
    let ranks = Ranks::new(RankSource::Sorted(ranks.finish()?));
    Ok(Numbered {
        describe: source.describe(),
        by_source,
        ranks,
        n,
        count,
        spilled,
        phases: vec![("read", read), ("names", t.elapsed().as_secs_f64())],
        input_bytes: total,
        reserved,
    })
}

impl<W: Weight> Numbered<W> {
    /// The number of distinct ids.
    pub(super) fn n(&self) -> u64 {
        self.n
    }

    /// Step 3: the edges joined by source name with the ranks, which take
    /// `D`'s bytes (u64 past 2^32 - 1 ids); the result feeds the build
    /// proper.
    pub(super) fn join<D: DenseId>(
        self,
        scratch: &Scratch,
        opts: &BuildOptions,
        budget: &Budget,
    ) -> Result<(RankedSource<W, D>, Front)> {
        let Numbered {
            mut by_source,
            mut ranks,
            count,
            mut spilled,
            mut phases,
            ..
        } = self;
        let cap = |b: u64| opts.sort_buffer_cap.map_or(b, |c| c.min(b));
        let t = Instant::now();
        let mut progress = Progress::bar("join source names", count, Unit::Items);
        let mut halves = BucketSorter::<HalfEdge<W, D>>::new(
            "edges by target name",
            scratch,
            budget,
            cap(budget.available()),
            Split::Ordered,
            Some(count),
        )?;
        let mut i = 0u64;
        while let Some(e) = by_source.next_record()? {
            let s = D::of(ranks.rank(e.s)?);
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
        drop(self.reserved);
        phases.push(("join", t.elapsed().as_secs_f64()));
        let front = Front {
            ids: Ids::Strings,
            has_id_map: true,
            start: None,
            phases,
            spilled,
            input_bytes: self.input_bytes,
            counts: None,
        };
        let ranked = RankedSource::new(self.describe, halves, ranks, self.n, count);
        Ok((ranked, front))
    }
}

/// Edges in ranks (step 4 of the module docs) as a source of vertices `0..n`.
pub(super) struct RankedSource<W: Weight, D: DenseId> {
    describe: String,
    halves: Sorted<HalfEdge<W, D>>,
    ranks: Ranks,
    n: u64,
    edges: u64,
}

impl<W: Weight, D: DenseId> RankedSource<W, D> {
    /// `edges` half edges sorted by target, joined with `ranks`, of `n`
    /// vertices.
    pub(super) fn new(
        describe: String,
        halves: Sorted<HalfEdge<W, D>>,
        ranks: Ranks,
        n: u64,
        edges: u64,
    ) -> Self {
        RankedSource {
            describe,
            halves,
            ranks,
            n,
            edges,
        }
    }
}

impl<W: Weight, D: DenseId> EdgeSource for RankedSource<W, D> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn ids_fit_u32(&self) -> bool {
        self.n <= u32::MAX as u64
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
            batch.push(RawEdge {
                src: e.s.get(),
                dst: self.ranks.rank(e.d)?,
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
