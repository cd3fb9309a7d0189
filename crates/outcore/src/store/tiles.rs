//! The tile layout (G-Store §IV–V): 2^16-wide tiles of (u16, u16) local pairs.
//!
//! Tile (i, j) holds the edges whose source is in vertex block i and target in
//! block j. Undirected stores keep only the upper triangle (i <= j, and within
//! the diagonal tiles src <= dst), so each edge is stored once (G-Store's
//! symmetry). Tiles are laid out in *physical groups* of q x q tiles, group by
//! group, so that one group's vertex state fits the last-level cache; inside a
//! group, tiles are in row-major order; inside a tile, edges are sorted by
//! (src, dst). Only non-empty tiles are indexed.
//!
//! Files: `tiles/edges.bin` (4 bytes per edge: src u16, dst u16, little-endian),
//! `tiles/index.bin` (16 bytes per non-empty tile: row u32, col u32, first edge
//! u64; then a sentinel (u32::MAX, u32::MAX, total edges)), `tiles/groups.bin`
//! (16 bytes per non-empty group: group row u32, group col u32, first tile u64;
//! then a sentinel (u32::MAX, u32::MAX, number of tiles)), and
//! `weights/tiles.f64` aligned with `tiles/edges.bin`.

use super::file::{DataWriter, StoreDir, WriteLe};
use super::tilecode::FrameEncoder;
use crate::error::Result;

/// log2 of the tile width.
pub const TILE_BITS: u32 = 16;
/// Vertices per tile side.
pub const TILE_WIDTH: u64 = 1 << TILE_BITS;
/// Default tiles per group side: 16 x 2^16 vertices x 8 bytes = 8 MiB of
/// per-vertex state for the source side of a group, and as much for the
/// target side, which fits the 32 MiB L3 of the reference machine.
pub const DEFAULT_GROUP_TILES: u32 = 16;

pub const EDGES_FILE: &str = "tiles/edges.bin";
pub const INDEX_FILE: &str = "tiles/index.bin";
pub const GROUPS_FILE: &str = "tiles/groups.bin";
pub const WEIGHTS_FILE: &str = "weights/tiles.f64";
/// XXH3-64 of every [`CHUNK_BYTES`] chunk of `tiles/edges.bin` (the last may
/// be short), so engines verify exactly the chunks they read.
pub const CHUNKS_FILE: &str = "tiles/edges.xxh";
/// Chunk size of [`CHUNKS_FILE`]; engines read tiles in whole chunks.
pub const CHUNK_BYTES: u64 = 64 << 10;

/// Hashes a byte stream in chunks ([`CHUNK_BYTES`] by default).
pub struct ChunkHasher {
    hasher: xxhash_rust::xxh3::Xxh3,
    chunk: u64,
    fill: u64,
    sums: Vec<u64>,
}

impl Default for ChunkHasher {
    fn default() -> Self {
        ChunkHasher::new(CHUNK_BYTES)
    }
}

impl ChunkHasher {
    /// A hasher of `chunk`-byte chunks.
    pub fn new(chunk: u64) -> Self {
        ChunkHasher {
            hasher: Default::default(),
            chunk,
            fill: 0,
            sums: Vec::new(),
        }
    }

    /// Feeds bytes.
    pub fn update(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            let take = ((self.chunk - self.fill) as usize).min(b.len());
            self.hasher.update(&b[..take]);
            self.fill += take as u64;
            b = &b[take..];
            if self.fill == self.chunk {
                self.sums.push(self.hasher.digest());
                self.hasher.reset();
                self.fill = 0;
            }
        }
    }

    /// The chunk sums, including a short last chunk.
    pub fn finish(mut self) -> Vec<u64> {
        if self.fill > 0 {
            self.sums.push(self.hasher.digest());
        }
        self.sums
    }
}

/// XXH3-64 of one chunk.
pub fn chunk_sum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Where tiles go on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileGeometry {
    /// Vertex blocks per side.
    pub blocks: u64,
    /// Tiles per group side (a power of two).
    pub group_tiles: u64,
    /// Undirected: upper triangle only.
    pub upper: bool,
}

impl TileGeometry {
    /// The geometry for `n` vertices; `group_tiles` must be a power of two <= 2^16.
    pub fn new(n: u64, group_tiles: u32, upper: bool) -> TileGeometry {
        debug_assert!(group_tiles.is_power_of_two() && group_tiles <= 1 << 16);
        TileGeometry {
            blocks: n.div_ceil(TILE_WIDTH).max(1),
            group_tiles: group_tiles as u64,
            upper,
        }
    }

    /// Groups per side.
    pub fn groups_per_side(&self) -> u64 {
        self.blocks.div_ceil(self.group_tiles)
    }

    /// Position of tile (i, j) in the physical order (fits 32 bits when
    /// there are at most 2^16 blocks). Shifts and masks: `group_tiles` is a
    /// power of two (the divisions this was took a tenth of the build's
    /// remap, which counts every edge's tile).
    #[inline]
    pub fn tile_order(&self, i: u64, j: u64) -> u64 {
        let q = self.group_tiles;
        let s = q.trailing_zeros();
        let gps = (self.blocks + q - 1) >> s;
        let (gi, gj) = (i >> s, j >> s);
        ((((gi * gps + gj) << s) + (i & (q - 1))) << s) + (j & (q - 1))
    }

    /// Sort key of edge (src, dst): tile order, then local src, then local dst.
    #[inline]
    pub fn edge_key(&self, src: u32, dst: u32) -> u64 {
        let t = self.tile_order((src >> TILE_BITS) as u64, (dst >> TILE_BITS) as u64);
        (t << 32) | ((src as u64 & 0xFFFF) << 16) | (dst as u64 & 0xFFFF)
    }

    /// The group of tile (i, j).
    #[inline]
    pub fn group_of(&self, i: u64, j: u64) -> (u64, u64) {
        (i / self.group_tiles, j / self.group_tiles)
    }
}

/// Statistics of a written tile layout.
#[derive(Clone, Copy, Debug, Default)]
pub struct TileStats {
    pub tiles: u64,
    /// Entries of the index: the tiles, or with compression their frames.
    pub frames: u64,
    pub groups: u64,
    pub max_tile_edges: u64,
    pub edges: u64,
}

/// Writes edges arriving in [`TileGeometry::edge_key`] order.
pub struct TileWriter {
    geom: TileGeometry,
    edges: DataWriter,
    weights: Option<DataWriter>,
    index: DataWriter,
    groups: DataWriter,
    buf: Vec<u16>,
    bytes: Vec<u8>,
    chunks: ChunkHasher,
    wbuf: Vec<f64>,
    cur_tile: Option<(u64, u64)>,
    cur_group: Option<(u64, u64)>,
    tile_start: u64,
    stats: TileStats,
    /// Compressed tiles: the frame coder (index entries are frames).
    frames: Option<FrameEncoder>,
}

impl TileWriter {
    /// Starts the tile files in `dir`, coded in frames when `compress`
    /// ([`super::tilecode`]).
    pub fn new(
        dir: &mut StoreDir,
        geom: TileGeometry,
        weighted: bool,
        compress: bool,
    ) -> Result<TileWriter> {
        Ok(TileWriter {
            frames: compress.then(FrameEncoder::default),
            geom,
            edges: dir.file(EDGES_FILE)?,
            weights: if weighted {
                Some(dir.file(WEIGHTS_FILE)?)
            } else {
                None
            },
            index: dir.file(INDEX_FILE)?,
            groups: dir.file(GROUPS_FILE)?,
            buf: Vec::with_capacity(1 << 18),
            bytes: Vec::with_capacity(1 << 19),
            chunks: ChunkHasher::default(),
            wbuf: Vec::new(),
            cur_tile: None,
            cur_group: None,
            tile_start: 0,
            stats: TileStats::default(),
        })
    }

    /// Appends one edge (dense ids); calls must follow the physical order.
    #[inline]
    pub fn push(&mut self, src: u64, dst: u64, weight: f64) -> Result<()> {
        let tile = (src >> TILE_BITS, dst >> TILE_BITS);
        if self.cur_tile != Some(tile) {
            self.start_tile(tile)?;
        }
        if let Some(f) = &mut self.frames {
            if let Some(at) = f.push(((src as u32) << 16) | (dst as u32 & 0xFFFF)) {
                self.index.put_u32s(&[tile.0 as u32, tile.1 as u32])?;
                self.index.put_u64s(&[at])?;
                self.stats.frames += 1;
            }
            if let Some(w) = &mut self.weights {
                self.wbuf.push(weight);
                if self.wbuf.len() >= 1 << 17 {
                    w.put_f64s(&self.wbuf)?;
                    self.wbuf.clear();
                }
            }
            self.stats.edges += 1;
            if let Some(b) = f.take(1 << 20) {
                self.chunks.update(&b);
                self.edges.write_all(&b)?;
            }
            return Ok(());
        }
        self.buf.push(src as u16);
        self.buf.push(dst as u16);
        if self.weights.is_some() {
            self.wbuf.push(weight);
        }
        self.stats.edges += 1;
        if self.buf.len() >= 1 << 18 {
            self.flush()?;
        }
        Ok(())
    }

    fn start_tile(&mut self, tile: (u64, u64)) -> Result<()> {
        self.end_tile();
        let group = self.geom.group_of(tile.0, tile.1);
        if self.cur_group != Some(group) {
            self.groups.put_u32s(&[group.0 as u32, group.1 as u32])?;
            self.groups.put_u64s(&[self.stats.frames])?;
            self.stats.groups += 1;
            self.cur_group = Some(group);
        }
        let first = match &mut self.frames {
            Some(f) => f.begin_tile(),
            None => self.stats.edges,
        };
        self.index.put_u32s(&[tile.0 as u32, tile.1 as u32])?;
        self.index.put_u64s(&[first])?;
        self.stats.tiles += 1;
        self.stats.frames += 1;
        self.cur_tile = Some(tile);
        self.tile_start = self.stats.edges;
        Ok(())
    }

    fn end_tile(&mut self) {
        if self.cur_tile.is_some() {
            let n = self.stats.edges - self.tile_start;
            self.stats.max_tile_edges = self.stats.max_tile_edges.max(n);
        }
    }

    fn flush(&mut self) -> Result<()> {
        self.bytes.clear();
        self.bytes
            .extend(self.buf.iter().flat_map(|x| x.to_le_bytes()));
        self.chunks.update(&self.bytes);
        self.edges.write_all(&self.bytes)?;
        self.buf.clear();
        if let Some(w) = &mut self.weights {
            w.put_f64s(&self.wbuf)?;
            self.wbuf.clear();
        }
        Ok(())
    }

    /// Writes the sentinels and closes the files.
    pub fn finish(mut self, dir: &mut StoreDir) -> Result<TileStats> {
        self.end_tile();
        self.flush()?;
        let mut end = self.stats.edges;
        if let Some(f) = self.frames.take() {
            let (rest, len) = f.finish();
            self.chunks.update(&rest);
            self.edges.write_all(&rest)?;
            end = len;
        }
        self.index.put_u32s(&[u32::MAX, u32::MAX])?;
        self.index.put_u64s(&[end])?;
        self.groups.put_u32s(&[u32::MAX, u32::MAX])?;
        self.groups.put_u64s(&[self.stats.frames])?;
        dir.close(self.edges)?;
        let mut sums = dir.file(CHUNKS_FILE)?;
        sums.put_u64s(&self.chunks.finish())?;
        dir.close(sums)?;
        dir.close(self.index)?;
        dir.close(self.groups)?;
        if let Some(w) = self.weights {
            dir.close(w)?;
        }
        Ok(self.stats)
    }
}

/// One entry of `tiles/index.bin` or `tiles/groups.bin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub row: u32,
    pub col: u32,
    pub first: u64,
}

impl IndexEntry {
    /// Decodes the 16-byte records of an index file.
    pub fn decode_all(bytes: &[u8]) -> Vec<IndexEntry> {
        bytes
            .chunks_exact(16)
            .map(|c| IndexEntry {
                row: u32::from_le_bytes(c[0..4].try_into().unwrap()),
                col: u32::from_le_bytes(c[4..8].try_into().unwrap()),
                first: u64::from_le_bytes(c[8..16].try_into().unwrap()),
            })
            .collect()
    }

    /// True for the closing sentinel.
    pub fn is_sentinel(&self) -> bool {
        self.row == u32::MAX && self.col == u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_order_is_group_major() {
        let g = TileGeometry::new(8 * TILE_WIDTH, 4, false);
        assert_eq!(g.groups_per_side(), 2);
        // Group (0,0) holds tiles (0..4, 0..4), then group (0,1).
        assert!(g.tile_order(3, 3) < g.tile_order(0, 4));
        assert!(g.tile_order(0, 7) < g.tile_order(4, 0));
        assert_eq!(g.tile_order(0, 1), 1);
        assert_eq!(g.tile_order(1, 0), 4);
        let mut seen: Vec<u64> = (0..8)
            .flat_map(|i| (0..8).map(move |j| g.tile_order(i, j)))
            .collect();
        seen.sort();
        assert_eq!(seen, (0..64).collect::<Vec<_>>());
        // The largest possible geometry fits the 32-bit tile part of the key.
        let big = TileGeometry::new(u32::MAX as u64, DEFAULT_GROUP_TILES, true);
        assert!(big.tile_order(65535, 65535) <= u32::MAX as u64);
    }
}
