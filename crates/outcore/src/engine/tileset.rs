//! The tile index in memory: where each non-empty tile lies in
//! `tiles/edges.bin`, and the chunk checksums that guard every read.
//!
//! Tiles larger than a piece ([`PIECE_BYTES`] by default) are split into pieces, each handled by
//! the engine as a tile of its own (same row and column, a contiguous run of
//! its edges): on skewed, degree-ordered graphs one tile among hubs may hold
//! a fifth of all edges, and neither a segment nor the cache pool should have
//! to hold it whole. Programs apply edges one by one, so a piece is as good
//! as a tile to them.

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::file::{checksum, read_u64s};
use crate::store::tiles::{IndexEntry, CHUNKS_FILE, INDEX_FILE};
use crate::store::Store;

/// Largest piece of a tile the engine handles at once by default (bytes;
/// 256 Ki edges).
pub const PIECE_BYTES: u64 = 1 << 20;

/// One non-empty tile, or a piece of one.
#[derive(Clone, Copy, Debug)]
pub struct TileMeta {
    pub row: u32,
    pub col: u32,
    /// Byte offset in `tiles/edges.bin`.
    pub offset: u64,
    /// Bytes (4 per edge).
    pub bytes: u64,
}

/// All tiles (pieces) in physical order, plus chunk checksums.
pub struct TileSet {
    pub tiles: Vec<TileMeta>,
    pub chunk_sums: Vec<u64>,
    pub file_len: u64,
    pub max_tile_bytes: u64,
    _charge: Charge,
}

impl TileSet {
    /// What [`load`](TileSet::load) charges for `store` and `piece_bytes`.
    pub fn index_bytes(store: &Store, piece_bytes: u64) -> u64 {
        let m = store.manifest();
        // Aligned cuts may add one piece per tile.
        let pieces = 2 * m.tiles.num_tiles + m.tiles.edges * 4 / piece_bytes;
        (m.tiles.num_tiles + 1) * 16
            + (pieces + 1) * std::mem::size_of::<TileMeta>() as u64
            + m.files.get(CHUNKS_FILE).map_or(0, |f| f.bytes)
    }

    /// Loads the index of `store`, checking the small files' checksums;
    /// tiles larger than `piece_bytes` (a multiple of 4) are split.
    pub fn load(store: &Store, budget: &Budget, piece_bytes: u64) -> Result<TileSet> {
        Self::load_with(store, budget, piece_bytes, false)
    }

    /// [`load`](TileSet::load), but tiles are cut at the file offsets that
    /// are multiples of `piece_bytes` (a multiple of the checksum chunk):
    /// a piece rounded out to whole chunks then never shares a chunk with
    /// its tile's next piece, nor exceeds `piece_bytes`.
    pub fn load_aligned(store: &Store, budget: &Budget, piece_bytes: u64) -> Result<TileSet> {
        Self::load_with(store, budget, piece_bytes, true)
    }

    fn load_with(
        store: &Store,
        budget: &Budget,
        piece_bytes: u64,
        aligned: bool,
    ) -> Result<TileSet> {
        let m = store.manifest();
        let charge = budget.charge(Self::index_bytes(store, piece_bytes), "tile index")?;
        let pieces = m.tiles.num_tiles + m.tiles.edges * 4 / piece_bytes;
        for rel in [INDEX_FILE, CHUNKS_FILE] {
            let want = m.files.get(rel).ok_or_else(|| {
                Error::store(store.path(), format!("{rel} is not in the manifest"))
            })?;
            let got = checksum(&store.file(rel))?;
            if &got != want {
                return Err(Error::store(
                    store.path(),
                    format!(
                        "{rel}: checksum mismatch; the store is damaged (run `outcore verify`)"
                    ),
                ));
            }
        }
        let raw = std::fs::read(store.file(INDEX_FILE))
            .map_err(|e| Error::io(store.file(INDEX_FILE), e))?;
        let entries = IndexEntry::decode_all(&raw);
        let file_len = m
            .files
            .get(crate::store::tiles::EDGES_FILE)
            .map_or(0, |f| f.bytes);
        let mut tiles = Vec::with_capacity(pieces as usize);
        let mut max_tile_bytes = 0;
        for w in entries.windows(2) {
            let (a, b) = (w[0], w[1]);
            if b.first < a.first || b.first * 4 > file_len {
                return Err(Error::store(
                    store.path(),
                    "tiles/index.bin is inconsistent",
                ));
            }
            let (offset, bytes) = (a.first * 4, (b.first - a.first) * 4);
            // Equal pieces, each at most PIECE_BYTES.
            let k = bytes.div_ceil(piece_bytes).max(1);
            let per = (bytes / 4).div_ceil(k) * 4;
            let mut at = 0;
            while at < bytes {
                let len = match aligned {
                    true => ((offset + at) / piece_bytes + 1) * piece_bytes - offset - at,
                    false => per,
                }
                .min(bytes - at);
                tiles.push(TileMeta {
                    row: a.row,
                    col: a.col,
                    offset: offset + at,
                    bytes: len,
                });
                max_tile_bytes = max_tile_bytes.max(len);
                at += len;
            }
        }
        if entries.last().is_none_or(|e| !e.is_sentinel())
            || entries.len() as u64 != m.tiles.num_tiles + 1
        {
            return Err(Error::store(
                store.path(),
                "tiles/index.bin does not match the manifest",
            ));
        }
        let chunk_sums = read_u64s(&store.file(CHUNKS_FILE))?;
        Ok(TileSet {
            tiles,
            chunk_sums,
            file_len,
            max_tile_bytes,
            _charge: charge,
        })
    }
}
