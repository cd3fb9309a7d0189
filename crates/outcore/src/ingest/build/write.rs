//! Phase 4 of the build: the sorted streams become the store's layouts.
//! Tiles are written on a thread of their own while the CSR directions are
//! written on the caller's: the two streams (each loading and sorting its
//! next bucket in the background) fit together in what the remap's sorters
//! held.

use super::records::{Keyed, Weight};
use super::BuildOptions;
use crate::cancel;
use crate::error::Result;
use crate::ingest::bucket::BucketSorter;
use crate::ingest::sort::Sorted;
use crate::progress::Progress;
use crate::store::csr::{CsrStats, CsrWriter};
use crate::store::file::StoreDir;
use crate::store::tiles::{TileGeometry, TileStats, TileWriter, TILE_BITS};

/// The remap's sorters, full.
pub(super) struct Sorters<W: Weight> {
    /// Edges in tile order.
    pub tiles: BucketSorter<Keyed<W>>,
    /// Directed, when not written during the remap: (src, dst).
    pub out: Option<BucketSorter<Keyed<W>>>,
    /// (dst, src) directed (the in-CSR); undirected both directions.
    pub rev: BucketSorter<Keyed<W>>,
}

/// What was written: the tiles, then the CSR directions in the order
/// written (the out-direction first when it was sorted here).
pub(super) struct Written {
    pub tiles: TileStats,
    pub csrs: Vec<CsrStats>,
}

/// Writes the tiles and the CSR directions still in sorters.
pub(super) fn layouts<W: Weight>(
    dir: &mut StoreDir,
    sorters: Sorters<W>,
    geom: TileGeometry,
    n: u64,
    opts: &BuildOptions,
    progress: &mut Progress,
) -> Result<Written> {
    let undirected = !opts.directed;
    let mut tiles = TileWriter::new(dir, geom, opts.weighted)?;
    let mut csrs = Vec::new();
    if let Some(s) = sorters.out {
        csrs.push((
            CsrWriter::new(dir, "out", n, opts.page_bytes, opts.weighted)?,
            s,
        ));
    }
    let rev_name = if undirected { "out" } else { "in" };
    csrs.push((
        CsrWriter::new(dir, rev_name, n, opts.page_bytes, opts.weighted)?,
        sorters.rev,
    ));
    let done = std::sync::atomic::AtomicU64::new(0);
    let tick = |k: &mut u64| -> Result<()> {
        *k += 1;
        if k.is_multiple_of(1 << 20) {
            done.fetch_add(1 << 20, std::sync::atomic::Ordering::Relaxed);
            cancel::check()?;
        }
        Ok(())
    };
    let (tiles, csrs) = std::thread::scope(|scope| {
        let tile_thread = scope.spawn(|| -> Result<TileWriter> {
            let mut ts = sorters.tiles.finish()?;
            let mut k = 0u64;
            // Records come tile by tile: the tile's position is decoded once.
            let mut tile = (u64::MAX, (0, 0));
            while let Some(r) = ts.next_record()? {
                let t = r.key >> 32;
                let (src_local, dst_local) = ((r.key >> 16) & 0xFFFF, r.key & 0xFFFF);
                if t != tile.0 {
                    tile = (t, tile_of_order(&geom, t));
                }
                let (i, j) = tile.1;
                tiles.push(
                    ((i << TILE_BITS) | src_local) as u32,
                    ((j << TILE_BITS) | dst_local) as u32,
                    r.w.get(),
                )?;
                tick(&mut k)?;
            }
            Ok(tiles)
        });
        let csrs = (|| -> Result<Vec<CsrWriter>> {
            let mut out = Vec::new();
            let mut k = 0u64;
            for (mut csr, sorter) in csrs {
                let mut rs: Sorted<Keyed<W>> = sorter.finish()?;
                while let Some(r) = rs.next_record()? {
                    csr.push((r.key >> 32) as u32, r.key as u32, r.w.get())?;
                    tick(&mut k)?;
                    if k.is_multiple_of(1 << 20) {
                        progress.set(done.load(std::sync::atomic::Ordering::Relaxed));
                    }
                }
                out.push(csr);
            }
            Ok(out)
        })();
        let tiles = tile_thread.join().expect("tile writer panicked");
        (tiles, csrs)
    });
    let tiles = tiles?.finish(dir)?;
    let mut stats = Vec::new();
    for csr in csrs? {
        stats.push(csr.finish(dir)?);
    }
    Ok(Written { tiles, csrs: stats })
}

/// Inverse of [`TileGeometry::tile_order`].
fn tile_of_order(g: &TileGeometry, t: u64) -> (u64, u64) {
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
