//! Tiles placed from the sorted adjacency stream, without a sort of their
//! own (GridGraph's grid partitioning, with every tile's offset counted
//! first).
//!
//! Within a tile, edges lie in (src, dst) order ([`TileGeometry::edge_key`]),
//! which is the order of the adjacency stream the write phase already sorts
//! for the CSR (undirected: its src <= dst half; directed: the out
//! direction). The remap counts the edges of every tile ([`TileCounts`]);
//! prefix sums in the tiles' physical order give each tile's place in
//! `tiles/edges.bin`, so the index and group files are written at once and
//! the edges of the stream's current row of tiles gather in one buffer per
//! column, written at their tile's cursor when full or when the row ends.
//! The file is hashed in order as rows finish, by a follower thread
//! ([`PlacedFile::final_upto`]). This replaced a third sorter (kron-24:
//! 2 GiB spilled and read, 260 M records sorted); the bytes are identical
//! (`placed_and_sorted_tiles_are_the_same_bytes`).

use super::tilecoder::RowCoder;
use super::write::tile_of_order;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::file::{PlacedFile, StoreDir, WriteLe};
use crate::store::tiles::{
    TileGeometry, TileStats, TileWriter, CHUNKS_FILE, EDGES_FILE, GROUPS_FILE, INDEX_FILE,
    TILE_BITS, WEIGHTS_FILE,
};

/// Tiles (in physical order, padded to whole groups) past which the counts
/// are not kept and tiles are sorted instead: 32 MiB of counters, 2,048
/// blocks a side, 134 M vertices.
const MAX_TILES: u64 = 1 << 22;
/// Bytes of column buffers for one row of tiles.
const ROW_BUFFERS: u64 = 16 << 20;

/// Edges per tile, in physical order; counted during the remap.
pub(super) struct TileCounts {
    geom: TileGeometry,
    weighted: bool,
    counts: Vec<u64>,
    _charge: Charge,
}

impl TileCounts {
    /// `None` when the grid is too large to count or the budget refuses.
    /// Charges what the placement will need too (the counts become cursors
    /// beside an array of ends; the column buffers), since the remap's
    /// sorters then take the rest of the budget.
    pub fn new(geom: TileGeometry, weighted: bool, budget: &Budget) -> Option<TileCounts> {
        let side = geom.groups_per_side() * geom.group_tiles;
        let tiles = side.checked_mul(side).filter(|&t| t <= MAX_TILES)?;
        let cap = column_cap(&geom, weighted);
        let buffers = geom.blocks * cap as u64 * per_edge(weighted) + 4 * cap as u64;
        let charge = budget
            .charge(tiles * 16 + buffers, "tile counts and placement")
            .ok()?;
        Some(TileCounts {
            geom,
            weighted,
            counts: vec![0; tiles as usize],
            _charge: charge,
        })
    }

    /// Counts edge (src, dst) (undirected: src <= dst).
    #[inline]
    pub fn add(&mut self, src: u64, dst: u64) {
        let t = self.geom.tile_order(src >> TILE_BITS, dst >> TILE_BITS);
        self.counts[t as usize] += 1;
    }
}

/// Bytes an edge takes in a column buffer.
fn per_edge(weighted: bool) -> u64 {
    4 + if weighted { 8 } else { 0 }
}

/// Edges a column buffer holds before it is written.
fn column_cap(geom: &TileGeometry, weighted: bool) -> usize {
    (ROW_BUFFERS / geom.blocks / per_edge(weighted)).clamp(1024, 1 << 16) as usize
}

/// Writes the tile files from edges in (src, dst) order.
pub(super) struct TilePlacer {
    geom: TileGeometry,
    edges: Option<PlacedFile>,
    weights: Option<PlacedFile>,
    /// Per tile (physical order): the next edge slot to write.
    cursor: Vec<u64>,
    /// Per tile: the slot past its last edge (checked at the end).
    end: Vec<u64>,
    row: u64,
    /// Tiles (physical order) before this one are complete: their rows
    /// have gone by.
    front: usize,
    /// Per column block of the current row: local (src, dst) pairs, weights.
    bufs: Vec<Vec<u16>>,
    wbufs: Vec<Vec<f64>>,
    /// Edges a column buffer holds before it is written.
    cap: usize,
    bytes: Vec<u8>,
    stats: TileStats,
    /// `--compress`: the edges are placed plain in a scratch file, and
    /// coded in frames as their rows finish ([`RowCoder`]).
    coder: Option<RowCoder>,
    _charge: Charge,
}

/// The scratch file of plain tiles that `--compress` codes.
const PLAIN_FILE: &str = "tiles/edges.plain";

impl TilePlacer {
    /// Writes the index and group files from the counts and sizes the edge
    /// (and weight) files.
    pub fn new(dir: &mut StoreDir, counts: TileCounts, compress: bool) -> Result<TilePlacer> {
        let geom = counts.geom;
        let mut stats = TileStats::default();
        let mut index = Vec::new();
        let mut groups = Vec::new();
        let mut cursor = counts.counts;
        let mut group = None;
        let mut coded = compress.then(Vec::new);
        for (t, c) in cursor.iter_mut().enumerate() {
            let n = *c;
            *c = stats.edges;
            if n == 0 {
                continue;
            }
            let (i, j) = tile_of_order(&geom, t as u64);
            let g = geom.group_of(i, j);
            if group != Some(g) {
                groups.push((g.0 as u32, g.1 as u32, stats.tiles));
                stats.groups += 1;
                group = Some(g);
            }
            index.push((i as u32, j as u32, stats.edges));
            if let Some(c) = &mut coded {
                c.push((i as u32, j as u32, n));
            }
            stats.tiles += 1;
            stats.edges += n;
            stats.max_tile_edges = stats.max_tile_edges.max(n);
        }
        if coded.is_none() {
            index.push((u32::MAX, u32::MAX, stats.edges));
            groups.push((u32::MAX, u32::MAX, stats.tiles));
            for (rel, entries) in [(INDEX_FILE, index), (GROUPS_FILE, groups)] {
                let mut w = dir.file(rel)?;
                for (a, b, first) in entries {
                    w.put_u32s(&[a, b])?;
                    w.put_u64s(&[first])?;
                }
                dir.close(w)?;
            }
        }
        stats.frames = stats.tiles;
        let mut end: Vec<u64> = cursor[1..].to_vec();
        end.push(stats.edges);
        let blocks = geom.blocks as usize;
        let weighted = counts.weighted;
        let edges = dir.placed(
            if coded.is_some() {
                PLAIN_FILE
            } else {
                EDGES_FILE
            },
            stats.edges * 4,
            coded.is_none(),
        )?;
        let coder = match coded {
            Some(tiles) => {
                let w = TileWriter::new(dir, geom, false, true)?;
                Some(RowCoder::start(edges.path().to_path_buf(), w, tiles))
            }
            None => None,
        };
        Ok(TilePlacer {
            geom,
            edges: Some(edges),
            weights: match weighted {
                true => Some(dir.placed(WEIGHTS_FILE, stats.edges * 8, false)?),
                false => None,
            },
            cursor,
            end,
            row: 0,
            front: 0,
            bufs: vec![Vec::new(); blocks],
            wbufs: vec![Vec::new(); if weighted { blocks } else { 0 }],
            cap: column_cap(&geom, weighted),
            bytes: Vec::new(),
            stats,
            coder,
            _charge: counts._charge,
        })
    }

    /// Places edge (src, dst); calls come in (src, dst) order.
    #[inline]
    pub fn push(&mut self, src: u64, dst: u64, weight: f64) -> Result<()> {
        let i = src >> TILE_BITS;
        if i != self.row {
            self.flush_row()?;
            self.row = i;
            self.announce();
        }
        let j = (dst >> TILE_BITS) as usize;
        let b = &mut self.bufs[j];
        b.push(src as u16);
        b.push(dst as u16);
        let full = b.len() >= 2 * self.cap;
        if let Some(w) = self.wbufs.get_mut(j) {
            w.push(weight);
        }
        if full {
            self.flush(j)?;
        }
        Ok(())
    }

    fn flush_row(&mut self) -> Result<()> {
        for j in 0..self.bufs.len() {
            if !self.bufs[j].is_empty() {
                self.flush(j)?;
            }
        }
        // Every row's pages start for the disk now, not all at the close.
        for f in [&self.edges, &self.weights].into_iter().flatten() {
            f.start_writeback();
        }
        Ok(())
    }

    /// Tells the files how far they are final: tiles of rows before the
    /// current one are complete, and those leading the physical order
    /// are hashed while the placement goes on ([`PlacedFile::final_upto`]).
    fn announce(&mut self) {
        while self.front < self.end.len()
            && tile_of_order(&self.geom, self.front as u64).0 < self.row
        {
            self.front += 1;
        }
        // The first slot of tile `front`: the end of the one before it.
        let slot = self.front.checked_sub(1).map_or(0, |t| self.end[t]);
        match (&mut self.coder, &mut self.edges) {
            // The plain scratch file is coded, not hashed.
            (Some(c), _) => c.final_upto(slot),
            (None, Some(e)) => e.final_upto(slot * 4),
            (None, None) => {}
        }
        if let Some(w) = &mut self.weights {
            w.final_upto(slot * 8);
        }
    }

    /// Writes column `j`'s buffer at its tile's cursor.
    fn flush(&mut self, j: usize) -> Result<()> {
        let t = self.geom.tile_order(self.row, j as u64) as usize;
        let n = self.bufs[j].len() as u64 / 2;
        let at = self.cursor[t];
        if at + n > self.end[t] {
            return Err(Error::Invalid(format!(
                "internal: tile ({}, {j}) receives more edges than were counted",
                self.row
            )));
        }
        self.bytes.clear();
        self.bytes
            .extend(self.bufs[j].iter().flat_map(|x| x.to_le_bytes()));
        let edges = self.edges.as_ref().expect("open until finish");
        edges.write_at(&self.bytes, at * 4)?;
        self.bufs[j].clear();
        if let Some(w) = &self.weights {
            self.bytes.clear();
            self.bytes
                .extend(self.wbufs[j].iter().flat_map(|x| x.to_le_bytes()));
            w.write_at(&self.bytes, at * 8)?;
            self.wbufs[j].clear();
        }
        self.cursor[t] = at + n;
        Ok(())
    }

    /// Writes what is buffered, checks every tile got its count, hashes the
    /// files and writes the chunk sums.
    pub fn finish(mut self, dir: &mut StoreDir) -> Result<TileStats> {
        self.flush_row()?;
        if let Some(t) = (0..self.cursor.len()).find(|&t| self.cursor[t] != self.end[t]) {
            let (i, j) = tile_of_order(&self.geom, t as u64);
            return Err(Error::Invalid(format!(
                "internal: tile ({i}, {j}) received fewer edges than were counted"
            )));
        }
        let edges = self.edges.take().expect("open until finish");
        if let Some(w) = self.weights.take() {
            dir.close_placed(w)?;
        }
        if let Some(coder) = self.coder.take() {
            let path = edges.path().to_path_buf();
            drop(edges);
            let w = coder.finish(self.stats.edges)?;
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            return w.finish(dir);
        }
        let chunks = dir.close_placed(edges)?.expect("tile chunk sums asked for");
        let mut sums = dir.file(CHUNKS_FILE)?;
        sums.put_u64s(&chunks)?;
        dir.close(sums)?;
        Ok(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of tiles finished by the stream are hashed before the close:
    /// by the last row, the file's front up to it was announced final;
    /// the store's tiles are those a sorter writes (checked elsewhere),
    /// and verify reads them back against the hash.
    #[test]
    fn finished_rows_are_hashed_before_the_close() {
        let tmp = tempfile::tempdir().unwrap();
        let mut dir = StoreDir::create(&tmp.path().join("s"), false).unwrap();
        let n = 4 << TILE_BITS;
        let geom = TileGeometry::new(n, 1, true);
        let budget = Budget::new(1 << 30);
        let mut counts = TileCounts::new(geom, false, &budget).unwrap();
        let edges: Vec<(u64, u64)> = (0..4u64)
            .flat_map(|i| (i..4).map(move |j| (i << TILE_BITS | 7, j << TILE_BITS | 9)))
            .collect();
        for &(s, d) in &edges {
            counts.add(s, d);
        }
        let mut placer = TilePlacer::new(&mut dir, counts, false).unwrap();
        for &(s, d) in &edges {
            placer.push(s, d, 1.0).unwrap();
        }
        // Rows 0-2 are done: their 4 + 3 + 2 edges lead the file.
        let ahead = placer.edges.as_ref().unwrap().announced();
        assert_eq!(ahead, 9 * 4, "the finished rows' bytes were not announced");
        let stats = placer.finish(&mut dir).unwrap();
        assert_eq!(stats.edges, edges.len() as u64);
    }
}
