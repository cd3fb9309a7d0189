//! The tile index in memory: where each non-empty tile lies in
//! `tiles/edges.bin`, and the chunk checksums that guard every read.

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::file::{checksum, read_u64s};
use crate::store::tiles::{IndexEntry, CHUNKS_FILE, INDEX_FILE};
use crate::store::Store;

/// One non-empty tile.
#[derive(Clone, Copy, Debug)]
pub struct TileMeta {
    pub row: u32,
    pub col: u32,
    /// Byte offset in `tiles/edges.bin`.
    pub offset: u64,
    /// Bytes (4 per edge).
    pub bytes: u64,
}

/// All tiles in physical order, plus chunk checksums.
pub struct TileSet {
    pub tiles: Vec<TileMeta>,
    pub chunk_sums: Vec<u64>,
    pub file_len: u64,
    pub max_tile_bytes: u64,
    _charge: Charge,
}

impl TileSet {
    /// Loads the index of `store`, checking the small files' checksums.
    pub fn load(store: &Store, budget: &Budget) -> Result<TileSet> {
        let m = store.manifest();
        let bytes = (m.tiles.num_tiles + 1) * (16 + std::mem::size_of::<TileMeta>() as u64)
            + m.files.get(CHUNKS_FILE).map_or(0, |f| f.bytes);
        let charge = budget.charge(bytes, "tile index")?;
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
        let mut tiles = Vec::with_capacity(entries.len().saturating_sub(1));
        let mut max_tile_bytes = 0;
        for w in entries.windows(2) {
            let (a, b) = (w[0], w[1]);
            if b.first < a.first || b.first * 4 > file_len {
                return Err(Error::store(
                    store.path(),
                    "tiles/index.bin is inconsistent",
                ));
            }
            let t = TileMeta {
                row: a.row,
                col: a.col,
                offset: a.first * 4,
                bytes: (b.first - a.first) * 4,
            };
            max_tile_bytes = max_tile_bytes.max(t.bytes);
            tiles.push(t);
        }
        if entries.last().is_none_or(|e| !e.is_sentinel())
            || tiles.len() as u64 != m.tiles.num_tiles
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
