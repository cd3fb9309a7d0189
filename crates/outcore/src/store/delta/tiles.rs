//! The T seam's primitive (issue 53): a store's delta records as tiles,
//! for the engines that read tiles. An LSM-style read merges a base run
//! with the levels above it; here the delta is applied as an extra pass
//! (PartitionedVC's buffered structural updates applied at read time):
//! base tiles lose the edges the delta's tombstones remove, and the
//! additions form tiles of their own, in memory, packed as
//! `tiles/edges.bin` packs them.
//!
//! The records come from the `out` lists: a directed store's tiles hold
//! (source, target) pairs, an undirected store's the upper triangle
//! (source <= target), so each undirected edge is taken from its smaller
//! endpoint's list (a self-loop once).

use super::format::{is_tombstone, nbr};
use super::lists::DeltaLists;
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;

/// One tile's run of packed edges in [`DeltaTiles`].
#[derive(Clone, Copy, Debug)]
pub struct TileRun {
    pub row: u32,
    pub col: u32,
    /// Edges `start..end` of the run's array.
    pub start: usize,
    pub end: usize,
}

/// The delta as tiles: additions and tombstones, grouped by tile.
pub struct DeltaTiles {
    /// Tiles of additions by (row, col); each one's edges sorted by
    /// (source, target), as a base tile's.
    pub adds: Vec<TileRun>,
    pub add_edges: Vec<u32>,
    /// Tiles of tombstones by (row, col); each one's edges as sorted
    /// keys `source << 16 | target` (local ids: the (source, target)
    /// order of a tile's edges, [`key`]).
    pub tombs: Vec<TileRun>,
    pub tomb_edges: Vec<u32>,
    _held: Charge,
}

/// Bytes [`DeltaTiles::load`] holds at its peak for `store` (the lists
/// and the records being grouped): what a reader of tiles prices.
pub fn load_bytes(store: &Store) -> u64 {
    let Some(d) = store.delta() else {
        return 0;
    };
    let files: u64 = (d.files.iter())
        .filter(|(k, _)| k.starts_with("lists/out.") && !k.ends_with(".xxh"))
        .map(|(_, f)| f.bytes)
        .sum();
    let recs = d.lists.get("out").map_or(0, |l| l.records);
    files + 16 * recs
}

impl DeltaTiles {
    /// `store`'s delta as tiles, charged to `budget` (the lists while
    /// they are grouped, then 4 bytes an edge and 24 a tile); `None`
    /// without a delta.
    pub fn load(store: &Store, budget: &Budget) -> Result<Option<DeltaTiles>> {
        let Some(d) = store.delta() else {
            return Ok(None);
        };
        let recs = d.lists.get("out").map_or(0, |l| l.records);
        let peak = budget.charge(load_bytes(store), "delta lists into tiles")?;
        let Some(lists) = DeltaLists::load(store, "out")? else {
            return Ok(None);
        };
        let upper = !store.manifest().directed;
        let mut adds: Vec<(u32, u32, u32)> = Vec::new();
        let mut tombs: Vec<(u32, u32, u32)> = Vec::new();
        let mask = (1u64 << TILE_BITS) - 1;
        for r in lists.cursor() {
            for &rec in r.recs {
                let u = nbr(rec);
                if upper && r.v > u {
                    continue;
                }
                let (row, col) = ((r.v >> TILE_BITS) as u32, (u >> TILE_BITS) as u32);
                let packed = ((r.v & mask) | (u & mask) << 16) as u32;
                match is_tombstone(rec) {
                    true => tombs.push((row, col, key(packed))),
                    false => adds.push((row, col, packed)),
                }
            }
        }
        drop(lists);
        debug_assert!(adds.len() + tombs.len() <= recs as usize);
        // Stable: a tile's edges keep the cursor's (source, target) order.
        adds.sort_by_key(|e| (e.0, e.1));
        tombs.sort_unstable();
        let held = budget.charge(
            4 * (adds.len() + tombs.len()) as u64 + 24 * (runs(&adds) + runs(&tombs)),
            "delta tiles",
        )?;
        drop(peak);
        let (adds, add_edges) = group(&adds);
        let (tombs, tomb_edges) = group(&tombs);
        Ok(Some(DeltaTiles {
            adds,
            add_edges,
            tombs,
            tomb_edges,
            _held: held,
        }))
    }

    /// Which run of [`DeltaTiles::tombs`] tile (`row`, `col`)'s
    /// tombstones are, when it has any.
    pub fn tomb_run(&self, row: u32, col: u32) -> Option<usize> {
        (self.tombs)
            .binary_search_by_key(&(row, col), |t| (t.row, t.col))
            .ok()
    }

    /// The tombstones of run `i` of [`DeltaTiles::tombs`], sorted.
    pub fn kills(&self, i: usize) -> &[u32] {
        let t = self.tombs[i];
        &self.tomb_edges[t.start..t.end]
    }
}

/// The sort key of a packed tile edge (source in the low 16 bits, target
/// in the high): `source << 16 | target`, so keys order edges as a tile
/// does, by (source, target).
#[inline(always)]
pub fn key(packed: u32) -> u32 {
    packed.rotate_left(16)
}

/// Tiles among `edges` (sorted by tile).
fn runs(edges: &[(u32, u32, u32)]) -> u64 {
    edges.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).count() as u64
}

/// `edges` (sorted by tile) as runs of packed edges.
fn group(edges: &[(u32, u32, u32)]) -> (Vec<TileRun>, Vec<u32>) {
    let mut runs = Vec::new();
    let mut start = 0;
    for c in edges.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        runs.push(TileRun {
            row: c[0].0,
            col: c[0].1,
            start,
            end: start + c.len(),
        });
        start += c.len();
    }
    (runs, edges.iter().map(|e| e.2).collect())
}
