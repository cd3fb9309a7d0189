//! Integer ids too many for the in-memory id map, ranked on disk from the
//! build's own read (no second pass over the input): the id collector
//! handed them over sorted ([`SortedIds`]).
//!
//! 1. **Ids**: the distinct ids are numbered (rank = position) into
//!    `ids.bin` (none when they are `0..n`).
//! 2. **Join** the input sorter's stream, in (src, dst) order of original
//!    ids, by source with the ranks read back from `ids.bin` (an integer
//!    is its own fingerprint: the ranks need no sort); each edge becomes
//!    (target id, source rank), sorted by target.
//! 3. The build proper reads the second join as a [`RankedSource`], as for
//!    string ids ([`super::named`]).
//!
//! The sorts are stable, so duplicate edges keep their input order and the
//! last still wins: the store is the one the in-memory id map builds.

use super::named::{Front, Ids, RankedSource};
use super::phases::{self, check_count};
use super::ranks::{HalfEdge, IdWriter, RankSource, Ranks};
use super::records::{DenseId, InputEdge, Weight};
use super::{BuildOptions, BuildReport, Counts, BATCH};
use crate::cancel;
use crate::error::Result;
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::idmap::SortedIds;
use crate::ingest::scratch::Scratch;
use crate::ingest::sort::Sorted;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::file::StoreDir;
use std::time::Instant;

/// What the build's read leaves for the ranking on disk.
pub(super) struct FirstRead {
    pub start: Instant,
    /// Seconds the read took.
    pub read: f64,
    pub counts: Counts,
    /// The input sorter's buckets are key ranges (else hashes).
    pub ordered: bool,
    pub input_bytes: Option<u64>,
    pub describe: String,
    /// The writers' share of the reserve, held until the build proper
    /// charges its own.
    pub writers: Charge,
}

/// Steps 1-3 of the module docs, from the input sorter's edges `input`.
pub(super) fn build<W: Weight, E: InputEdge<W = W>>(
    input: BucketSorter<E>,
    mut ids: SortedIds,
    mut dir: StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    first: FirstRead,
) -> Result<BuildReport> {
    let t = Instant::now();
    let mut progress = Progress::new("number vertex ids");
    let mut out = IdWriter::new(Ids::Ints, &mut dir)?;
    let mut n = 0u64;
    while let Some(id) = ids.next_id()? {
        if out.push(&id.to_be_bytes(), n)? {
            cancel::check()?;
            progress.tick(|| format!("{n} ids"));
        }
        n += 1;
    }
    let has_id_map = out.finish(&mut dir)?;
    let spilled = ids.spilled_bytes();
    drop(ids);
    progress.done(|| format!("{n} distinct vertex ids"));
    // Refused before the join, not after it.
    check_count(n)?;
    let ranks = Ranks::new(RankSource::ints(&dir, has_id_map, n)?);
    let front = Front {
        ids: Ids::Ints,
        has_id_map,
        start: Some(first.start),
        phases: vec![("read", first.read), ("ids", t.elapsed().as_secs_f64())],
        spilled,
        input_bytes: first.input_bytes,
        counts: Some((first.counts.input_edges, first.counts.self_loops_dropped)),
    };
    // Ranks take 8 bytes past 2^32 - 1 ids, or when a wide store is asked
    // for (so the tests' wide builds run the u64 join).
    let join = match opts.wide(n) {
        false => joined::<W, E, u32>,
        true => joined::<W, E, u64>,
    };
    join(input, (ranks, n), front, first, dir, scratch, opts, budget)
}

/// Step 2 with ranks of `D`, then the build proper (step 3).
#[allow(clippy::too_many_arguments)]
fn joined<W: Weight, E: InputEdge<W = W>, D: DenseId>(
    mut input: BucketSorter<E>,
    (mut ranks, n): (Ranks, u64),
    mut front: Front,
    first: FirstRead,
    dir: StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<BuildReport> {
    let t = Instant::now();
    let cap = |b: u64| opts.sort_buffer_cap.map_or(b, |c| c.min(b));
    let count = input.len();
    input.park()?;
    front.spilled += input.spilled_bytes();
    let mut by_source = input.finish()?;
    // Hash buckets on disk are in order one by one only: the join needs
    // them in source order across buckets.
    if by_source.is_spilled() && !first.ordered {
        let (sorted, spilled) =
            in_order(by_source, scratch, budget, cap(budget.available()), count)?;
        front.spilled += spilled;
        by_source = sorted;
    }
    by_source.consume_once();
    let mut progress = Progress::bar("join source ids", count, Unit::Items);
    let mut halves = BucketSorter::<HalfEdge<W, D>>::new(
        "edges by target id",
        scratch,
        budget,
        cap(budget.available()),
        Split::Ordered,
        Some(count),
    )?;
    let mut chunk = Vec::with_capacity(BATCH);
    let mut i = 0u64;
    while by_source.next_chunk(&mut chunk, BATCH)? {
        i += chunk.len() as u64;
        for e in chunk.drain(..) {
            let s = D::of(ranks.rank(e.src() as u128)?);
            halves.push(HalfEdge {
                d: e.dst() as u128,
                s,
                w: e.w(),
            })?;
        }
        cancel::check()?;
        progress.set(i);
    }
    front.spilled += by_source.bucket_stats().map_or(0, |b| b.respilled);
    drop(by_source);
    progress.done(|| format!("{count} edges"));
    halves.park()?;
    front.spilled += halves.spilled_bytes();
    ranks.rewind()?;
    let halves = halves.finish()?;
    front.phases.push(("join", t.elapsed().as_secs_f64()));
    let mut ranked = RankedSource::<W, D>::new(first.describe, halves, ranks, n, count);
    drop(first.writers);
    phases::build::<W>(&mut ranked, dir, scratch, opts, budget, Some(front))
}

/// A stream of hash buckets sorted again into key order (stable: equal
/// edges keep their order); the bytes spilled on the way.
fn in_order<E: InputEdge>(
    mut hashed: Sorted<E>,
    scratch: &Scratch,
    budget: &Budget,
    bytes: u64,
    count: u64,
) -> Result<(Sorted<E>, u64)> {
    let mut s = BucketSorter::<E>::new(
        "edges by source id",
        scratch,
        budget,
        bytes,
        Split::Ordered,
        Some(count),
    )?;
    hashed.consume_once();
    let mut chunk = Vec::with_capacity(BATCH);
    while hashed.next_chunk(&mut chunk, BATCH)? {
        s.extend(chunk.drain(..))?;
        cancel::check()?;
    }
    let respilled = hashed.bucket_stats().map_or(0, |b| b.respilled);
    drop(hashed);
    s.park()?;
    let spilled = s.spilled_bytes() + respilled;
    Ok((s.finish()?, spilled))
}
