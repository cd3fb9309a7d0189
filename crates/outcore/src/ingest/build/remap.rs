//! Phase 3 of the build: the distinct edges are merged (duplicates
//! collapse to their last occurrence), their ids become dense ids and every
//! edge is counted in its tile ([`super::tiles`]) and fanned out to the
//! sorters the write phase drains: the reverse direction (directed in-CSR;
//! undirected: both directions make the adjacency) and, directed, the
//! out-CSR, written straight from the stream when dense ids are ranks (the
//! stream is in that order), else sorted too. Two stages on two threads
//! ([`super::stages`]): this one reads and looks dense ids up, a second
//! one emits.

use super::distinct::Distinct;
use super::records::{DenseId, DenseKey, InputEdge, KeyWord, Keyed, Weight};
use super::tiles::TileCounts;
use super::{stages, BuildOptions, Counts, BATCH, STAGE_BATCH};
use crate::cancel;
use crate::error::Result;
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::scratch::Scratch;
use crate::mem::budget::Charge;
use crate::mem::prefetch::{prefetch, AHEAD};
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::csr::CsrStats;
use crate::store::file::StoreDir;
use crate::store::tiles::TileGeometry;

/// The sorter of edges in dense ids of type `I`.
pub(super) type KeyedSorter<W, I> = BucketSorter<Keyed<W, <I as DenseId>::Key>>;

/// What the remap leaves for the write phase.
pub(super) struct Remapped<W: Weight, I: DenseId> {
    pub geom: TileGeometry,
    /// Tile counts, when tiles are placed from the out stream.
    pub tile_counts: Option<TileCounts>,
    /// Else the tiles' own sorter.
    pub tile_sorter: Option<KeyedSorter<W, I>>,
    /// The reverse direction (undirected: both).
    pub rev_sorter: KeyedSorter<W, I>,
    /// Directed, when the out-CSR was not written straight.
    pub out_sorter: Option<KeyedSorter<W, I>>,
    /// The out-CSR written straight from the stream.
    pub direct_out_stats: Option<CsrStats>,
    /// Bytes the sorters spilled.
    pub spilled: u64,
}

/// Edges from across the input ([`super::read::Shape`]), in ranks.
pub(super) struct Sample {
    pub ranks: Vec<(u64, u64)>,
    /// The distinct edges come in rank order even when they spilled (the
    /// input sorter bucketed by key range).
    pub ordered: bool,
}

/// Runs the remap over `distinct`; `perm[rank]` is the dense id (`None`:
/// the rank itself) of the `n` vertices. The sorters take their splitters
/// from `sample` mapped to dense ids: their first buffers hold the front of
/// a stream in rank order only.
#[allow(clippy::too_many_arguments)]
pub(super) fn remap<W: Weight, E: InputEdge<W = W>, I: DenseId>(
    mut distinct: Distinct<'_, E, I>,
    (perm, sample): (Option<(Vec<u32>, Charge)>, Sample),
    n: u64,
    dir: &mut StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    counts: &mut Counts,
) -> Result<Remapped<W, I>> {
    let undirected = !opts.directed;
    let cap = |b: u64| opts.sort_buffer_cap.map_or(b, |c| c.min(b));
    let geom = TileGeometry::new(n, opts.group_tiles, undirected);
    // Directed: the out-CSR is written straight from the stream when it is in
    // dense order (dense id = rank, and nothing spilled or the input's
    // buckets were key ranges: a hashed one is in hash buckets), else sorted
    // like the other direction.
    let in_order = matches!(&distinct, Distinct::Dedup(d) if !d.is_spilled() || sample.ordered);
    let out_direct = !undirected && perm.is_none() && in_order;
    let out_sorted = !undirected && !out_direct;
    // Tiles are placed from the out stream in the write phase when their
    // counts fit (`tiles.rs`); else sorted by a sorter of their own.
    let mut tile_counts = match undirected || out_sorted {
        true if !opts.sort_tiles => TileCounts::new(geom, opts.weighted, budget),
        _ => None,
    };
    let share = budget.available();
    let (tile_share, rev_share, out_share) = match (undirected, out_sorted, &tile_counts) {
        (true, _, Some(_)) => (0, share, 0),
        (true, _, None) => (share / 3, share - share / 3, 0),
        (false, true, Some(_)) => (0, share / 2, share - share / 2),
        (false, true, None) => (share / 3, share / 3, share / 3),
        (false, false, _) => (share / 2, share / 2, 0),
    };
    let m = counts.input_edges;
    let dense = |r: I| perm.as_ref().map_or(r, |p| I::of(p.0[r.idx()] as u64));
    let dk = DenseKey::<I>::new(n);
    // The sample in dense ids, and the keys each sorter would give it.
    let dense_sample: Vec<(I, I)> = sample
        .ranks
        .iter()
        .map(|&(s, d)| (dense(I::of(s)), dense(I::of(d))))
        .collect();
    let keys = |key: &dyn Fn(I, I) -> Vec<I::Key>| -> Vec<u128> {
        dense_sample
            .iter()
            .flat_map(|&(s, d)| key(s, d))
            .map(|k| k.to_u128())
            .collect()
    };
    let keyed = |name, share, expected, sample: Vec<u128>| {
        BucketSorter::<Keyed<W, I::Key>>::new(
            name,
            scratch,
            budget,
            cap(share),
            Split::Ordered,
            Some(expected),
        )
        .map(|s| s.with_sample(sample))
    };
    let mut tile_sorter = match tile_counts {
        Some(_) => None,
        None => Some(keyed(
            "tiles",
            tile_share,
            m,
            keys(&|s, d| match undirected {
                true => vec![I::tile_key(&geom, s.min(d), s.max(d))],
                false => vec![I::tile_key(&geom, s, d)],
            }),
        )?),
    };
    let rev_sample = keys(&|s, d| match undirected {
        true if s != d => vec![dk.key(s, d), dk.key(d, s)],
        true => vec![dk.key(s, d)],
        false => vec![dk.key(d, s)],
    });
    let rev_expected = if undirected { 2 * m } else { m };
    let mut rev_sorter = keyed("adjacency", rev_share, rev_expected, rev_sample)?;
    let mut out_sorter = if out_sorted {
        let out_sample = keys(&|s, d| vec![dk.key(s, d)]);
        Some(keyed("out-adjacency", out_share, m, out_sample)?)
    } else {
        None
    };
    drop(dense_sample);
    let mut out_csr = if out_direct {
        Some(super::write::csr_writer::<I>(dir, "out", n, opts)?)
    } else {
        None
    };
    let mut progress = Progress::bar("sort and remap", counts.input_edges, Unit::Items);
    let (mut edges, mut loops) = (0u64, 0u64);
    {
        // A batch of distinct edges in dense ids goes to the tile counts
        // (or sorter) and the sorters a layout at a time, each in bulk.
        let mut emit = |batch: &[((I, I), W)]| -> Result<()> {
            // Canonical in original ids is not canonical in dense ids.
            let canon = |&((s, d), w): &((I, I), W)| match undirected {
                true => (s.min(d), s.max(d), w),
                false => (s, d, w),
            };
            edges += batch.len() as u64;
            loops += batch.iter().filter(|((s, d), _)| s == d).count() as u64;
            match (&mut tile_counts, &mut tile_sorter) {
                (Some(c), _) => batch
                    .iter()
                    .map(canon)
                    .for_each(|(s, d, _)| c.add(s.get(), d.get())),
                (None, Some(t)) => t.extend(batch.iter().map(canon).map(|(s, d, w)| Keyed {
                    key: I::tile_key(&geom, s, d),
                    w,
                }))?,
                (None, None) => unreachable!("tiles are counted or sorted"),
            }
            if undirected {
                // Both directions; a self-loop once.
                return rev_sorter.extend(batch.iter().map(canon).flat_map(|(s, d, w)| {
                    [dk.key(s, d), dk.key(d, s)]
                        .into_iter()
                        .take(1 + usize::from(s != d))
                        .map(move |key| Keyed { key, w })
                }));
            }
            if let Some(out) = out_csr.as_mut() {
                for &((s, d), w) in batch {
                    out.push(s.get(), d, w.get())?;
                }
            } else if let Some(out) = out_sorter.as_mut() {
                out.extend(batch.iter().map(|&((s, d), w)| Keyed {
                    key: dk.key(s, d),
                    w,
                }))?;
            }
            rev_sorter.extend(batch.iter().map(|&((s, d), w)| Keyed {
                key: dk.key(d, s),
                w,
            }))
        };
        // Distinct edges go in batches: their dense ids are looked up in a
        // tight loop first (independent random reads of the permutation
        // overlap in the memory system), then they are emitted.
        // This thread reads them and looks the dense ids up, a second one
        // emits them to the sorters.
        let mut batch = Vec::with_capacity(BATCH);
        let mut i = 0u64;
        let duplicates = counts.duplicates;
        stages::pipeline(
            |ids| {
                while ids.len() < STAGE_BATCH && distinct.next_batch(&mut batch)? {
                    ids.extend(batch.iter().enumerate().map(|(i, e)| {
                        if let (Some(p), Some(a)) = (&perm, batch.get(i + AHEAD)) {
                            prefetch(&p.0, a.s.idx());
                            prefetch(&p.0, a.d.idx());
                        }
                        ((dense(e.s), dense(e.d)), e.w)
                    }));
                }
                i += ids.len() as u64;
                cancel::check()?;
                progress.set(i + duplicates);
                Ok(!ids.is_empty())
            },
            |ids| emit(ids),
        )?;
    }
    counts.edges = edges;
    counts.self_loops = loops;
    let mut input_respilled = 0;
    if let Distinct::Dedup(d) = &distinct {
        counts.duplicates = d.duplicates;
        input_respilled = d.respilled();
    }
    drop(distinct);
    drop(perm);
    progress.done(|| {
        format!(
            "{} distinct edges, {} duplicates merged",
            counts.edges, counts.duplicates
        )
    });
    let direct_out_stats = match out_csr {
        Some(w) => Some(w.finish(dir)?),
        None => None,
    };
    // Sorters that spilled give their buffers back for the reading.
    if let Some(t) = tile_sorter.as_mut() {
        t.park()?;
    }
    rev_sorter.park()?;
    if let Some(s) = out_sorter.as_mut() {
        s.park()?;
    }
    let spilled = input_respilled
        + tile_sorter.as_ref().map_or(0, |t| t.spilled_bytes())
        + rev_sorter.spilled_bytes()
        + out_sorter.as_ref().map_or(0, |s| s.spilled_bytes());
    Ok(Remapped {
        geom,
        tile_counts,
        tile_sorter,
        rev_sorter,
        out_sorter,
        direct_out_stats,
        spilled,
    })
}
