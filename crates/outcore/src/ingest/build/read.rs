//! Phase 1 of the build: the source's edges are canonicalised (undirected:
//! src <= dst), self-loops optionally dropped, and pushed into the input
//! sorter (hash buckets of (src, dst) in original ids); distinct ids are
//! collected on the way, on a second thread ([`super::stages::feed`]).

use super::records::{InputEdge, Keyed, Orig, Weight};
use super::{stages, BuildOptions, Counts, ID_BATCH};
use crate::cancel;
use crate::error::{Error, Result};
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::idmap::{Collected, IdCollector, IdMap};
use crate::ingest::scratch::Scratch;
use crate::ingest::{EdgeSource, RawEdge};
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::size::format_size;

/// What the read phase learnt of the input's shape for the sorters after
/// it.
pub(super) struct Shape {
    /// The input sorter buckets by key range: its stream comes in (src,
    /// dst) order.
    pub ordered: bool,
    /// The sample of the input's edges (canonical, in original ids) its
    /// splitters came from; the remap's sorters take theirs from it too.
    pub sample: Vec<(u64, u64)>,
}

/// The input's edges in their sorter: 8-byte edges while every id fits 32
/// bits, else 16-byte ones.
pub(super) enum Input<W: Weight> {
    Narrow(BucketSorter<Keyed<W>>),
    Wide(BucketSorter<Orig<W>>),
}

/// The input's edges, its ids (in memory, or sorted on disk), and its
/// shape.
pub(super) type Read<W> = (Input<W>, Collected, Shape);

/// The budget as the read found it and what it holds back for later phases.
#[derive(Clone, Copy)]
pub(super) struct Shares {
    /// Free when the build started.
    pub free: u64,
    /// Held back from the input sorter (the id map, the degree order).
    pub held: u64,
    /// Where the ids are numbered, for the plan's line (none: no line).
    pub ids: Option<&'static str>,
}

/// Reads every edge into the input sorter; the id map of what was read.
/// The edges are 8 bytes when the source promises 32-bit ids, or its
/// sample (or, dense, its count) holds none wider, or it gives no sample;
/// the first wider id then moves what was read into a 16-byte sorter and
/// the read goes on there ([`widen`]). Ids that outgrow the collector's
/// share go on to disk ([`Collected::Disk`]): the read is not repeated.
pub(super) fn edges<W: Weight>(
    source: &mut dyn EdgeSource,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    shares: &Shares,
    label: &str,
    counts: &mut Counts,
) -> Result<Read<W>> {
    let dense_n = source.dense_vertex_count();
    let Shares {
        free,
        held,
        ids: numbered,
    } = *shares;
    let mut ids = match dense_n {
        Some(_) => None,
        None => {
            let c = IdCollector::new(budget, free / 4, scratch, source.expected_edges())
                .capped(opts.sort_buffer_cap);
            Some(match opts.external_ids {
                true => c.on_disk()?,
                false => c,
            })
        }
    };
    let total_bytes = source.input_bytes();
    let undirected = !opts.directed;
    let canon = |e: &RawEdge| canon(undirected, e);
    // Duplicates meet in one bucket either way. Edges are bucketed by
    // (src, dst) ranges taken from a sample of the whole input where the
    // source can give one: the keys are then stored in the bytes their
    // bucket's range needs (kron-24: 8 -> 7 bytes an edge) and the degree
    // pass sees them in order. Else by a hash of (src, dst), which balances
    // the buckets of a sorted list whatever its first buffer holds.
    let sample: Vec<RawEdge> = source
        .sample_edges()?
        .unwrap_or_default()
        .into_iter()
        .filter(|e| !(opts.drop_self_loops && e.src == e.dst))
        .collect();
    let fits = |e: &RawEdge| (e.src | e.dst) <= u32::MAX as u64;
    let promised = source.ids_fit_u32();
    let narrow = promised
        || match dense_n {
            Some(n) => n <= 1 << 32,
            None => sample.iter().all(fits),
        };
    let shape = Shape {
        ordered: !sample.is_empty(),
        sample: sample.iter().map(canon).collect(),
    };
    let split = match shape.ordered {
        true => Split::Ordered,
        false => Split::Hashed,
    };
    if let Some(ids) = numbered {
        plan(ids, narrow, split);
    }
    let make = Make {
        scratch,
        budget,
        opts,
        held,
        split,
        expected: source.expected_edges(),
        sample: &sample,
    };
    // `None` only while it widens.
    let mut input = Some(match narrow {
        true => Input::Narrow(make.sorter()?),
        false => Input::Wide(make.sorter()?),
    });
    let mut progress = match total_bytes {
        Some(t) => Progress::bar(label.to_string(), t, Unit::Bytes),
        None => Progress::new(label.to_string()),
    };
    if let Some(c) = ids.as_mut() {
        source.for_each_vertex_batch(&mut |batch| {
            batch.iter().try_for_each(|&v| c.add(v))?;
            cancel::check()
        })?;
    }
    let consumed = source.consumed_counter().filter(|_| total_bytes.is_some());
    // Ids are collected on a second thread (random bitmap updates, 60% of
    // this thread's time at kron-24); the edges go to the sorter here.
    let collect = ids.is_some();
    let stopped = || Error::Invalid("the id collector stopped".into());
    let (read, collected) = {
        let mut collector = ids.as_mut();
        stages::feed(
            move |batch: &[u64]| match collector.as_mut() {
                Some(c) => batch.iter().try_for_each(|&v| c.add(v)),
                None => Ok(()),
            },
            |feed| {
                let mut on_batch = |batch: &[RawEdge]| -> Result<()> {
                    counts.input_edges += batch.len() as u64;
                    // A vertex seen only in a dropped self-loop still exists (as
                    // after NetworkX's remove_edges_from(selfloop_edges(G))).
                    if collect {
                        for part in batch.chunks(ID_BATCH / 2) {
                            let mut ids = feed.batch().ok_or_else(stopped)?;
                            ids.extend(part.iter().flat_map(|e| [e.src, e.dst]));
                            if !feed.send(ids) {
                                return Err(stopped());
                            }
                        }
                    } else if let Some(n) = dense_n {
                        if let Some(e) = batch.iter().find(|e| e.src.max(e.dst) >= n) {
                            return Err(Error::Invalid(format!(
                                "edge ({}, {}) lies outside the {n} vertices of the source",
                                e.src, e.dst
                            )));
                        }
                    }
                    let narrow = matches!(input, Some(Input::Narrow(_)));
                    if narrow && !promised && !batch.iter().all(fits) {
                        if let Some(Input::Narrow(s)) = input.take() {
                            input = Some(Input::Wide(widen(s, || make.sorter())?));
                        }
                    }
                    let dropped = match input.as_mut() {
                        Some(Input::Narrow(s)) => push(s, batch, opts)?,
                        Some(Input::Wide(s)) => push(s, batch, opts)?,
                        None => return Err(Error::Invalid("the input sorter was lost".into())),
                    };
                    counts.self_loops_dropped += dropped;
                    cancel::check()?;
                    let n = counts.input_edges;
                    progress.tick(|| format!("{n} edges"));
                    if let Some(c) = &consumed {
                        progress.set(c.load(std::sync::atomic::Ordering::Relaxed));
                    }
                    Ok(())
                };
                source.for_each_edge_batch(&mut on_batch)
            },
        )
    };
    collected?;
    read?;
    let consumed = source.bytes_consumed();
    let read_msg = read_progress(counts.input_edges, total_bytes, consumed);
    progress.done(|| read_msg);
    let ids = match ids {
        Some(c) => c.finish()?,
        None => Collected::Map(IdMap::identity(dense_n.unwrap_or(0))),
    };
    if matches!(ids, Collected::Disk(_)) && !opts.external_ids {
        let note = "the vertex ids outgrew the id map's share of the budget; they are ranked on disk (the input is not read again)";
        Progress::new("vertex ids").done(|| note.to_string());
    }
    let input = input.ok_or_else(|| Error::Invalid("the input sorter was lost".into()))?;
    Ok((input, ids, shape))
}

/// Says on stderr what was decided before the read: where the ids are
/// numbered, the edges' width and the input sorter's buckets.
fn plan(ids: &str, narrow: bool, split: Split) {
    let edges = if narrow { 8 } else { 16 };
    let buckets = match split {
        Split::Ordered => "range buckets (from a sample)",
        Split::Hashed => "hash buckets",
    };
    if !crate::progress::quiet() {
        eprintln!("plan: {ids}, {edges}-byte edges, {buckets}");
    }
}

/// (src, dst) as the sorter keys it: undirected, (min, max).
#[inline(always)]
fn canon(undirected: bool, e: &RawEdge) -> (u64, u64) {
    match undirected {
        true => (e.src.min(e.dst), e.src.max(e.dst)),
        false => (e.src, e.dst),
    }
}

/// Edge `e` as the input sorter holds it.
#[inline(always)]
fn edge<E: InputEdge>(undirected: bool, e: &RawEdge) -> E {
    let (s, d) = canon(undirected, e);
    E::new(s, d, E::W::from_f64(e.weight))
}

/// What the input sorter is made of, as 8- or 16-byte edges.
struct Make<'a> {
    scratch: &'a Scratch,
    budget: &'a Budget,
    opts: &'a BuildOptions,
    held: u64,
    split: Split,
    expected: Option<u64>,
    sample: &'a [RawEdge],
}

impl Make<'_> {
    /// An input sorter of what the budget has free beyond `held`, its
    /// splitters from the sample.
    fn sorter<E: InputEdge>(&self) -> Result<BucketSorter<E>> {
        let undirected = !self.opts.directed;
        let keys = self.sample.iter();
        let keys = keys.map(|e| edge::<E>(undirected, e).radix_key()).collect();
        let free = self.budget.available().saturating_sub(self.held);
        let bytes = self.opts.sort_buffer_cap.map_or(free, |c| c.min(free));
        let s = BucketSorter::new(
            "edges",
            self.scratch,
            self.budget,
            bytes,
            self.split,
            self.expected,
        )?;
        Ok(s.with_sample(keys))
    }
}

/// Pushes a batch into the input sorter; the self-loops dropped.
fn push<E: InputEdge>(
    sorter: &mut BucketSorter<E>,
    batch: &[RawEdge],
    opts: &BuildOptions,
) -> Result<u64> {
    let undirected = !opts.directed;
    if opts.drop_self_loops {
        let loops = batch.iter().filter(|e| e.src == e.dst).count();
        let kept = batch.iter().filter(|e| e.src != e.dst);
        sorter.extend(kept.map(|e| edge::<E>(undirected, e)))?;
        return Ok(loops as u64);
    }
    sorter.extend(batch.iter().map(|e| edge::<E>(undirected, e)))?;
    Ok(0)
}

/// The first id wider than 32 bits: the 8-byte edges read so far move, in
/// (src, dst) order, into a 16-byte sorter from `make` (after the narrow
/// sorter gave its memory back). Equal edges keep their push order, so
/// the last occurrence still wins; the input is not read again.
fn widen<W: Weight>(
    mut narrow: BucketSorter<Keyed<W>>,
    make: impl FnOnce() -> Result<BucketSorter<Orig<W>>>,
) -> Result<BucketSorter<Orig<W>>> {
    narrow.park()?;
    let mut sorted = narrow.finish()?;
    let mut wide = make()?;
    let mut chunk = Vec::with_capacity(super::STAGE_BATCH);
    while sorted.next_chunk(&mut chunk, super::STAGE_BATCH)? {
        wide.extend(chunk.drain(..).map(|e| Orig::new(e.src(), e.dst(), e.w())))?;
    }
    Ok(wide)
}

/// What the read phase says when it ends.
fn read_progress(edges: u64, total: Option<u64>, consumed: u64) -> String {
    match total {
        Some(t) if consumed > 0 => format!(
            "{edges} edges from {} of {}",
            format_size(consumed),
            format_size(t)
        ),
        _ => format!("{edges} edges"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::VecSource;

    /// Reads `source` into a sorter of 2 MiB, drains it in order, and says
    /// how many bytes a record spilled and how many buckets nested.
    fn read_back(mut source: VecSource) -> (Shape, f64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::within(dir.path(), "t").unwrap();
        let n = source.edges.len() as u64;
        let opts = BuildOptions {
            sort_buffer_cap: Some(2 << 20),
            ..Default::default()
        };
        let budget = Budget::new(1 << 30);
        let shares = Shares {
            free: budget.available(),
            held: 0,
            ids: Some("ids in memory"),
        };
        let (input, _, shape) = edges::<()>(
            &mut source,
            &scratch,
            &opts,
            &budget,
            &shares,
            "test",
            &mut Counts::default(),
        )
        .unwrap();
        let Input::Narrow(mut sorter) = input else {
            panic!("ids below 2^32 are read as 8-byte edges")
        };
        sorter.park().unwrap();
        let per_edge = sorter.spilled_bytes() as f64 / n as f64;
        let mut sorted = sorter.finish().unwrap();
        let mut prev = 0;
        while let Some(r) = sorted.next_record().unwrap() {
            assert!(!shape.ordered || r.key >= prev, "out of order");
            prev = r.key;
        }
        (shape, per_edge, sorted.bucket_stats().unwrap().nested)
    }

    /// A list sorted by source, as real edge lists often are: bucketed by
    /// key ranges from a sample of the whole input, the buckets are even
    /// (none nested, as they were with splitters from the first buffer,
    /// which held only the front of the range) and the keys packed; without
    /// a sample, hashed and stored whole.
    #[test]
    fn a_sorted_list_is_bucketed_by_ranges_from_a_sample_of_it_all() {
        let edges = (0..1_500_000u64).map(|i| (i / 16, (i * 7919) % 100_000, 1.0));
        let sampled = VecSource::new(edges.clone());
        let (shape, per_edge, nested) = read_back(sampled);
        assert!(shape.ordered && !shape.sample.is_empty());
        assert!(per_edge < 7.0, "{per_edge} bytes an edge");
        assert_eq!(nested, 0);
        let mut unsampled = VecSource::new(edges);
        unsampled.sampled = false;
        let (shape, per_edge, _) = read_back(unsampled);
        assert!(!shape.ordered && shape.sample.is_empty());
        assert_eq!(per_edge, 8.0);
    }
}
