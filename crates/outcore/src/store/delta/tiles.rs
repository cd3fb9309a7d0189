//! The T seam's primitive (issue 53): a store's delta records as tiles,
//! for the engines that read tiles. An LSM-style read merges a base run
//! with the levels above it; here the delta is applied as an extra pass
//! (PartitionedVC's buffered structural updates applied at read time):
//! base tiles lose the edges the delta's tombstones remove, and the
//! additions form tiles of their own, in memory, packed as
//! `tiles/edges.bin` packs them. An update writes them into the
//! generation ([`TileCollector`], [`DeltaTiles::write`]); a reader reads
//! them, or groups the lists of a generation written before them.
//!
//! The records come from the `out` lists: a directed store's tiles hold
//! (source, target) pairs, an undirected store's the upper triangle
//! (source <= target), so each undirected edge is taken from its smaller
//! endpoint's list (a self-loop once).

use super::format::{is_tombstone, nbr, TILES_FILES};
use super::lists::DeltaLists;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::file::{StoreDir, WriteLe};
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
    _held: Option<Charge>,
}

/// Bytes [`DeltaTiles::load`] holds at its peak for `store`: the tiles
/// (and their index while it is read) when the generation has them, else
/// the lists and the records being grouped. What a reader of tiles
/// prices.
pub fn load_bytes(store: &Store) -> u64 {
    let Some(d) = store.delta() else {
        return 0;
    };
    if has_tiles(store) {
        return TILES_FILES.iter().map(|f| d.files[*f].bytes).sum::<u64>() * 5 / 2;
    }
    let files: u64 = (d.files.iter())
        .filter(|(k, _)| k.starts_with("lists/out.") && !k.ends_with(".xxh"))
        .map(|(_, f)| f.bytes)
        .sum();
    let recs = d.lists.get("out").map_or(0, |l| l.records);
    files + 16 * recs
}

/// True when `store`'s delta generation holds its tiles ([`TILES_FILES`]).
fn has_tiles(store: &Store) -> bool {
    store
        .delta()
        .is_some_and(|d| d.files.contains_key(TILES_FILES[0]))
}

impl DeltaTiles {
    /// `store`'s delta as tiles, charged to `budget` (4 bytes an edge and
    /// 24 a tile, and what reading them takes); `None` without a delta.
    /// Read from the generation's tiles, or grouped from its lists when it
    /// has none.
    pub fn load(store: &Store, budget: &Budget) -> Result<Option<DeltaTiles>> {
        if store.delta().is_none() {
            return Ok(None);
        }
        let peak = budget.charge(load_bytes(store), "delta tiles")?;
        let t = match has_tiles(store) {
            true => read(store)?,
            false => match DeltaLists::load(store, "out")? {
                Some(lists) => TileCollector::of(&lists, !store.manifest().directed).finish(),
                None => return Ok(None),
            },
        };
        let held = budget.charge(t.bytes(), "delta tiles")?;
        drop(peak);
        Ok(Some(DeltaTiles {
            _held: Some(held),
            ..t
        }))
    }

    /// Bytes held: 4 an edge, 24 a tile.
    fn bytes(&self) -> u64 {
        4 * (self.add_edges.len() + self.tomb_edges.len()) as u64
            + 24 * (self.adds.len() + self.tombs.len()) as u64
    }

    /// True when `self` and `other` hold the same tiles and edges.
    pub fn same(&self, other: &DeltaTiles) -> bool {
        let runs = |r: &[TileRun]| {
            r.iter()
                .map(|t| (t.row, t.col, t.start, t.end))
                .collect::<Vec<_>>()
        };
        runs(&self.adds) == runs(&other.adds)
            && runs(&self.tombs) == runs(&other.tombs)
            && self.add_edges == other.add_edges
            && self.tomb_edges == other.tomb_edges
    }

    /// Writes the tiles as [`TILES_FILES`] of the generation in `dir`.
    pub fn write(&self, dir: &mut StoreDir) -> Result<()> {
        let [adds, adds_idx, dels, dels_idx] = TILES_FILES;
        for (file, idx, runs, edges) in [
            (adds, adds_idx, &self.adds, &self.add_edges),
            (dels, dels_idx, &self.tombs, &self.tomb_edges),
        ] {
            let mut f = dir.paged_file(file)?;
            f.put_u32s(edges)?;
            dir.close(f)?;
            let mut f = dir.paged_file(idx)?;
            let flat: Vec<u64> = (runs.iter())
                .flat_map(|t| [(t.row as u64) << 32 | t.col as u64, t.end as u64])
                .collect();
            f.put_u64s(&flat)?;
            dir.close(f)?;
        }
        Ok(())
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

/// Bytes a collected `out` record may take at its peak (a 12-byte entry
/// with the vector's slack, the stable sort's buffer, then the grouped
/// edges): what an update charges for the tiles it writes.
pub const COLLECT_BYTES: u64 = 32;

/// Groups `out` records into tiles, vertex by vertex: what an update
/// writes beside the lists, and what a reader of a generation without
/// tiles (or `verify`) builds from the lists.
pub struct TileCollector {
    upper: bool,
    adds: Vec<(u32, u32, u32)>,
    tombs: Vec<(u32, u32, u32)>,
}

impl TileCollector {
    /// For a store whose tiles hold the upper triangle (`upper`:
    /// undirected) or every edge.
    pub fn new(upper: bool) -> TileCollector {
        TileCollector {
            upper,
            adds: Vec::new(),
            tombs: Vec::new(),
        }
    }

    /// The collector of every record of `lists`.
    pub fn of(lists: &DeltaLists, upper: bool) -> TileCollector {
        let mut c = TileCollector::new(upper);
        lists.cursor().for_each(|r| c.push(r.v, r.recs));
        c
    }

    /// Vertex `v`'s `out` records (vertices pushed in increasing order).
    pub fn push(&mut self, v: u64, recs: &[u64]) {
        let mask = (1u64 << TILE_BITS) - 1;
        for &rec in recs {
            let u = nbr(rec);
            if self.upper && v > u {
                continue;
            }
            let (row, col) = ((v >> TILE_BITS) as u32, (u >> TILE_BITS) as u32);
            let packed = ((v & mask) | (u & mask) << 16) as u32;
            match is_tombstone(rec) {
                true => self.tombs.push((row, col, key(packed))),
                false => self.adds.push((row, col, packed)),
            }
        }
    }

    /// The tiles (charged by the caller).
    pub fn finish(mut self) -> DeltaTiles {
        // Stable: a tile's edges keep the (source, target) order they came
        // in; a tile's tombstone keys are in that order too.
        self.adds.sort_by_key(|e| (e.0, e.1));
        self.tombs.sort_by_key(|e| (e.0, e.1));
        let (adds, add_edges) = group(&self.adds);
        let (tombs, tomb_edges) = group(&self.tombs);
        DeltaTiles {
            adds,
            add_edges,
            tombs,
            tomb_edges,
            _held: None,
        }
    }
}

/// `verify`: true when `store`'s generation has no tiles, or tiles that
/// hold exactly its `out` lists' records, grouped.
pub(super) fn tiles_match_lists(store: &Store) -> Result<bool> {
    if !has_tiles(store) {
        return Ok(true);
    }
    let Some(lists) = DeltaLists::load(store, "out")? else {
        return Ok(true);
    };
    let want = TileCollector::of(&lists, !store.manifest().directed).finish();
    Ok(read(store)?.same(&want))
}

/// The generation's tiles ([`TILES_FILES`]), their index checked: tiles
/// in increasing (row, col), each a non-empty run, the runs spanning the
/// edges.
fn read(store: &Store) -> Result<DeltaTiles> {
    let blocks = store.manifest().tiles.blocks;
    let mut parts = Vec::new();
    for pair in TILES_FILES.chunks(2) {
        let bytes = store.read_delta_file(pair[0])?;
        let edges: Vec<u32> = (bytes.chunks_exact(4))
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let idx = store.read_delta_u64s(pair[1])?;
        let mut runs = Vec::with_capacity(idx.len() / 2);
        let mut start = 0usize;
        for p in idx.chunks_exact(2) {
            let (row, col, end) = ((p[0] >> 32) as u32, p[0] as u32, p[1] as usize);
            let after = runs
                .last()
                .is_none_or(|t: &TileRun| (t.row, t.col) < (row, col));
            if !after
                || end <= start
                || end > edges.len()
                || row as u64 >= blocks
                || col as u64 >= blocks
            {
                let why = format!("tile ({row}, {col}) is out of order or its edges out of range");
                return Err(Error::damaged(
                    store.path(),
                    &store.delta_name(pair[1]),
                    why,
                ));
            }
            runs.push(TileRun {
                row,
                col,
                start,
                end,
            });
            start = end;
        }
        if start != edges.len() || bytes.len() % 4 != 0 {
            let why = "the tiles do not span the edges";
            return Err(Error::damaged(
                store.path(),
                &store.delta_name(pair[1]),
                why,
            ));
        }
        parts.push((runs, edges));
    }
    let (tombs, tomb_edges) = parts.pop().expect("two");
    let (adds, add_edges) = parts.pop().expect("two");
    Ok(DeltaTiles {
        adds,
        add_edges,
        tombs,
        tomb_edges,
        _held: None,
    })
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
