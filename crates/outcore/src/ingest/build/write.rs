//! Phase 4 of the build: the sorted streams become the store's layouts.
//! Tiles are placed from the out-direction stream as it goes by
//! ([`super::tiles`]), or, when their counts were not kept, sorted on a
//! thread of their own while the CSR directions are written on the
//! caller's: the two streams (each loading and sorting its next bucket in
//! the background) fit together in what the remap's sorters held.

use super::records::{tile_locals, DenseId, DenseKey, Keyed, Weight};
use super::remap::{KeyedSorter, Remapped};
use super::tiles::TilePlacer;
use super::{BuildOptions, STAGE_BATCH};
use crate::cancel;
use crate::error::Result;
use crate::ingest::idmap::IdMap;
use crate::ingest::scratch::Scratch;
use crate::ingest::sort::Sorted;
use crate::progress::{Progress, Unit};
use crate::store::csr::{CsrStats, CsrWriter};
use crate::store::file::{StoreDir, WriteLe};
use crate::store::tiles::{TileGeometry, TileStats, TileWriter, TILE_BITS};
use crate::store::IDS_FILE;

/// How the tiles are written.
#[allow(clippy::large_enum_variant)] // one per build
pub(super) enum Tiles<W: Weight, I: DenseId> {
    /// Edges in tile order.
    Sorted(KeyedSorter<W, I>),
    /// Placed from the (src, dst) stream: undirected the adjacency's
    /// src <= dst half, directed the out sorter (which must exist).
    Placed(TilePlacer),
}

/// The remap's sorters, full.
pub(super) struct Sorters<W: Weight, I: DenseId> {
    pub tiles: Tiles<W, I>,
    /// Directed, when not written during the remap: (src, dst).
    pub out: Option<KeyedSorter<W, I>>,
    /// (dst, src) directed (the in-CSR); undirected both directions.
    pub rev: KeyedSorter<W, I>,
}

/// What was written: the tiles, then the CSR directions in the order
/// written (the out-direction first when it was sorted here).
pub(super) struct Written {
    pub tiles: TileStats,
    pub csrs: Vec<CsrStats>,
    /// Bytes spilled again where buckets were distributed again.
    pub respilled: u64,
}

/// What phase 4 wrote: the tiles, the out direction (undirected: the one
/// adjacency), directed the in direction, and the bytes spilled again.
pub(super) struct Phase {
    pub tiles: TileStats,
    pub out: CsrStats,
    pub r#in: Option<CsrStats>,
    pub respilled: u64,
}

/// Phase 4 of the build: the remap's sorters become the tiles and the CSR
/// directions not written during the remap; then `ids.bin`, the original
/// id of every rank, where ids are not already dense.
pub(super) fn phase<W: Weight, I: DenseId>(
    dir: &mut StoreDir,
    r: Remapped<W, I>,
    n: u64,
    opts: &BuildOptions,
    idmap: &IdMap,
    scratch: &Scratch,
) -> Result<Phase> {
    let mut progress = Progress::bar(
        "write tiles and adjacency",
        r.tile_sorter.as_ref().map_or(0, |t| t.len())
            + r.rev_sorter.len()
            + r.out_sorter.as_ref().map_or(0, |s| s.len()),
        Unit::Items,
    );
    let tiles = match (r.tile_sorter, r.tile_counts) {
        (Some(t), _) => Tiles::<W, I>::Sorted(t),
        (None, Some(c)) => Tiles::Placed(TilePlacer::new(dir, c, opts.compress)?),
        (None, None) => unreachable!("tiles are counted or sorted"),
    };
    let sorters = Sorters {
        tiles,
        out: r.out_sorter,
        rev: r.rev_sorter,
    };
    let stats = layouts(dir, sorters, r.geom, n, opts, &mut progress)?;
    let mut csrs = stats.csrs;
    let rev = csrs.pop().expect("the reverse direction");
    let sorted_out = csrs.pop();
    if !idmap.is_identity() {
        let mut w = dir.file(IDS_FILE)?;
        idmap.for_each_original_chunk(1 << 16, &mut |ids| w.put_u64s(ids))?;
        dir.close(w)?;
    }
    progress.done(|| format!("{} tiles", stats.tiles.tiles));
    // Scratch files still being deleted count in the build's time.
    scratch.drain();
    let (out, r#in) = match r.direct_out_stats.or(sorted_out) {
        Some(o) => (o, Some(rev)),
        None => (rev, None),
    };
    Ok(Phase {
        tiles: stats.tiles,
        out,
        r#in,
        respilled: stats.respilled,
    })
}

/// Writes the tiles and the CSR directions still in sorters.
pub(super) fn layouts<W: Weight, I: DenseId>(
    dir: &mut StoreDir,
    sorters: Sorters<W, I>,
    geom: TileGeometry,
    n: u64,
    opts: &BuildOptions,
    progress: &mut Progress,
) -> Result<Written> {
    let undirected = !opts.directed;
    let dk = DenseKey::<I>::new(n);
    let mut csrs = Vec::new();
    if let Some(s) = sorters.out {
        csrs.push((csr_writer::<I>(dir, "out", n, opts)?, s));
    }
    let rev_name = if undirected { "out" } else { "in" };
    csrs.push((csr_writer::<I>(dir, rev_name, n, opts)?, sorters.rev));
    let (sorted_tiles, mut placer) = match sorters.tiles {
        Tiles::Sorted(s) => (
            Some((s, TileWriter::new(dir, geom, opts.weighted, opts.compress)?)),
            None,
        ),
        Tiles::Placed(p) => {
            debug_assert!(
                undirected || csrs.len() == 2,
                "placed tiles need the out stream"
            );
            (None, Some(p))
        }
    };
    let done = std::sync::atomic::AtomicU64::new(0);
    // Counts `n` more records on a thread's counter `k`; every 2^20 of them
    // reach the shared progress and check for cancellation.
    let tick = |k: &mut u64, n: u64| -> Result<()> {
        let crossed = ((*k + n) >> 20) - (*k >> 20);
        *k += n;
        if crossed > 0 {
            done.fetch_add(crossed << 20, std::sync::atomic::Ordering::Relaxed);
            cancel::check()?;
        }
        Ok(())
    };
    let (tiles, csrs) = std::thread::scope(|scope| {
        let tile_thread = sorted_tiles.map(|(sorter, mut tiles)| {
            scope.spawn(move || -> Result<(TileWriter, u64)> {
                let mut ts = sorter.finish()?;
                ts.consume_once();
                let mut k = 0u64;
                // Records come tile by tile: the tile's position is decoded once.
                let mut tile = (u64::MAX, (0, 0));
                while let Some(r) = ts.next_record()? {
                    let t = I::tile_of_key(r.key);
                    let (src_local, dst_local) = tile_locals(r.key);
                    if t != tile.0 {
                        tile = (t, tile_of_order(&geom, t));
                    }
                    let (i, j) = tile.1;
                    tiles.push(
                        (i << TILE_BITS) | src_local,
                        (j << TILE_BITS) | dst_local,
                        r.w.get(),
                    )?;
                    tick(&mut k, 1)?;
                }
                Ok((tiles, ts.bucket_stats().map_or(0, |b| b.respilled)))
            })
        });
        let csrs = (|| -> Result<(Vec<CsrWriter<I>>, u64)> {
            let mut out = Vec::new();
            let mut respilled = 0;
            let mut k = 0u64;
            for (c, (mut csr, sorter)) in csrs.into_iter().enumerate() {
                let mut rs: Sorted<Keyed<W, I::Key>> = sorter.finish()?;
                rs.consume_once();
                // The out direction comes first: it feeds placed tiles.
                let mut place = placer.as_mut().filter(|_| c == 0);
                // This thread merges the stream (and places tiles), a
                // second one writes the CSR.
                let (mut dsts, mut ws) = (Vec::new(), Vec::new());
                super::stages::pipeline(
                    |batch| {
                        rs.next_chunk(batch, STAGE_BATCH)?;
                        if let Some(p) = place.as_mut() {
                            for r in batch.iter() {
                                let (s, d) = (dk.src(r.key), dk.dst(r.key));
                                if !undirected || s <= d {
                                    p.push(s.get(), d.get(), r.w.get())?;
                                }
                            }
                        }
                        tick(&mut k, batch.len() as u64)?;
                        progress.set(done.load(std::sync::atomic::Ordering::Relaxed));
                        Ok(!batch.is_empty())
                    },
                    |batch| {
                        // Runs of one source go to the writer as slices.
                        for run in batch.chunk_by(|a, b| dk.src(a.key) == dk.src(b.key)) {
                            dsts.clear();
                            dsts.extend(run.iter().map(|r| dk.dst(r.key)));
                            ws.clear();
                            if opts.weighted {
                                ws.extend(run.iter().map(|r| r.w.get()));
                            }
                            csr.push_run(dk.src(run[0].key).get(), &dsts, &ws)?;
                        }
                        Ok(())
                    },
                )?;
                respilled += rs.bucket_stats().map_or(0, |b| b.respilled);
                out.push(csr);
            }
            Ok((out, respilled))
        })();
        let tiles = tile_thread.map(|t| t.join().expect("tile writer panicked"));
        (tiles, csrs)
    });
    let (tiles, tile_respilled) = tiles.transpose()?.unzip();
    let (csrs, mut respilled) = csrs?;
    respilled += tile_respilled.unwrap_or(0);
    let tiles = match (tiles, placer) {
        (Some(t), _) => t.finish(dir)?,
        (None, Some(p)) => p.finish(dir)?,
        (None, None) => unreachable!("tiles are sorted or placed"),
    };
    let mut stats = Vec::new();
    for csr in csrs {
        stats.push(csr.finish(dir)?);
    }
    Ok(Written {
        tiles,
        csrs: stats,
        respilled,
    })
}

/// The build's writer of CSR direction `which` ("out" or "in"), in slots
/// as wide as the dense ids `I`.
pub(super) fn csr_writer<I: DenseId>(
    dir: &mut StoreDir,
    which: &str,
    n: u64,
    opts: &BuildOptions,
) -> Result<CsrWriter<I>> {
    CsrWriter::new(
        dir,
        which,
        n,
        opts.page_bytes,
        opts.weighted,
        opts.compress.then_some(opts.csr_code),
    )
}

/// Inverse of [`TileGeometry::tile_order`].
pub(super) fn tile_of_order(g: &TileGeometry, t: u64) -> (u64, u64) {
    let q = g.group_tiles;
    let (jl, rest) = (t % q, t / q);
    let (il, g_idx) = (rest % q, rest / q);
    let gps = g.groups_per_side();
    let (gi, gj) = (g_idx / gps, g_idx % gps);
    (gi * q + il, gj * q + jl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_order_inverts() {
        for (n, q, up) in [(5 * 65536, 2, true), (1 << 20, 16, false), (3, 1, false)] {
            let g = TileGeometry::new(n, q, up);
            for i in 0..g.blocks {
                for j in 0..g.blocks {
                    assert_eq!(tile_of_order(&g, g.tile_order(i, j)), (i, j));
                }
            }
        }
    }
}
