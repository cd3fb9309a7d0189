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

/// Bytes of `tiles/edges.bin` (4 a plain edge; less when compressed).
pub fn tile_bytes(store: &Store) -> u64 {
    let m = store.manifest();
    m.files
        .get(crate::store::tiles::EDGES_FILE)
        .map_or(m.tiles.edges * 4, |f| f.bytes)
}

/// Compressed tiles ([`crate::store::tilecode`]): consecutive frames of a
/// tile joined into pieces of at most `piece_bytes` (a frame is never cut;
/// `aligned`: never across a multiple of `piece_bytes`). Returns the
/// largest piece, `None` when the index is inconsistent (offsets that
/// decrease, pass the file or straddle a chunk).
fn frame_pieces(
    entries: &[IndexEntry],
    file_len: u64,
    piece_bytes: u64,
    aligned: bool,
    out: &mut Vec<TileMeta>,
) -> Option<u64> {
    use crate::store::tiles::CHUNK_BYTES;
    let mut max = 0;
    let mut cur: Option<TileMeta> = None;
    for w in entries.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b.first < a.first || b.first > file_len || a.is_sentinel() {
            return None;
        }
        let bytes = b.first - a.first;
        if bytes > 0 && a.first / CHUNK_BYTES != (b.first - 1) / CHUNK_BYTES {
            return None;
        }
        let joins = cur.is_some_and(|c| {
            (c.row, c.col) == (a.row, a.col)
                && c.offset + c.bytes == a.first
                && c.bytes + bytes <= piece_bytes
                && (!aligned || c.offset / piece_bytes == (b.first.max(1) - 1) / piece_bytes)
        });
        match (&mut cur, joins) {
            (Some(c), true) => c.bytes += bytes,
            _ => {
                if let Some(c) = cur.take() {
                    max = u64::max(max, c.bytes);
                    out.push(c);
                }
                cur = Some(TileMeta {
                    row: a.row,
                    col: a.col,
                    offset: a.first,
                    bytes,
                });
            }
        }
    }
    if let Some(c) = cur {
        max = max.max(c.bytes);
        out.push(c);
    }
    Some(max)
}

/// One non-empty tile, or a piece of one.
#[derive(Clone, Copy, Debug)]
pub struct TileMeta {
    pub row: u32,
    pub col: u32,
    /// Byte offset in `tiles/edges.bin`.
    pub offset: u64,
    /// Bytes (4 per edge; compressed: whole frames).
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
        let pieces = 2 * m.tiles.index_entries() + tile_bytes(store) / piece_bytes;
        (m.tiles.index_entries() + 1) * 16
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
        let coded = m.tiles.compressed();
        let pieces = m.tiles.index_entries() + tile_bytes(store) / piece_bytes;
        for rel in [INDEX_FILE, CHUNKS_FILE] {
            let want = m.files.get(rel).ok_or_else(|| {
                Error::store(store.path(), format!("{rel} is not in the manifest"))
            })?;
            let got = checksum(&store.file(rel))?;
            if &got != want {
                return Err(Error::damaged(store.path(), rel, "checksum mismatch"));
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
        if coded {
            max_tile_bytes = frame_pieces(&entries, file_len, piece_bytes, aligned, &mut tiles)
                .ok_or_else(|| Error::damaged(store.path(), INDEX_FILE, "it is inconsistent"))?;
        }
        for w in entries.windows(2).filter(|_| !coded) {
            let (a, b) = (w[0], w[1]);
            if b.first < a.first || b.first * 4 > file_len {
                return Err(Error::damaged(
                    store.path(),
                    INDEX_FILE,
                    "it is inconsistent",
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
            || entries.len() as u64 != m.tiles.index_entries() + 1
        {
            let why = "it does not match the manifest";
            return Err(Error::damaged(store.path(), INDEX_FILE, why));
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
