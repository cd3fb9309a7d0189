//! The on-disk format of one delta generation (`STORE/delta/gNNNNNN/`):
//! the records of an LSM-style delta (PartitionedVC's buffered structural
//! updates) beside the base store, and its entry in the manifest.
//!
//! ```text
//! lists/{out,in}.bits  bit per vertex < n' (has records), u64 words
//! lists/{out,in}.rnk   u64 set bits before each 512-bit block, then the total
//! lists/{out,in}.off   u64 first record of each touched vertex, then the total
//! lists/{out,in}.deg   u64 degree of each touched vertex in the view
//! lists/{out,in}.rec   u64 nbr << 1 | tombstone, sorted per vertex
//! lists/{out,in}.w     f64 per record (weighted stores; 0 for tombstones)
//! ids/new.bin          original ids of dense n_base..n' (integer ids), or
//! ids/new.str, new.off their names and u64 offsets (string ids)
//! ids/ins.bin          (base ranks before, dense id) u64 pairs, by original id
//! tiles/adds.bin       u32 packed edges of the additions, by tile ([`crate::store::delta::tiles`])
//! tiles/adds.idx       u64 pairs per tile: row << 32 | col, end of its edges
//! tiles/dels.bin       u32 tombstone keys, by tile, each tile's sorted
//! tiles/dels.idx       as adds.idx
//! *.xxh                a checksum per 4 KiB page ([`crate::store::pagesums`])
//! ```
//!
//! Undirected stores have `out` lists only, holding both endpoints of each
//! edge (a self-loop once), as their CSR does. Records are normalised: an
//! addition is an edge the base lacks (or a new weight: a tombstone and an
//! addition of the same neighbour), a tombstone an edge the base holds.
//! The tiles are the `out` records again, grouped as the stream engine
//! reads them, written by the update so that a reader need not group them
//! at every open; a generation written before them has none, and readers
//! group its lists.

use crate::store::manifest::{FileEntry, Manifest};
use crate::store::pagesums::{sums_file, PAGE_BYTES};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The store format version of a store with a delta: readers that do not
/// know the delta refuse it instead of reading the base alone.
pub const DELTA_FORMAT_VERSION: u32 = 3;
/// The directory of the generations, inside the store.
pub const DELTA_DIR: &str = "delta";
/// The file a generation's directory holds its own description in
/// ([`DeltaInfo`] as JSON; the store's manifest is the one that counts).
pub const GENERATION_FILE: &str = "generation.json";
/// The integer ids of the new vertices.
pub const NEW_IDS_FILE: &str = "ids/new.bin";
/// String ids: the new vertices' names, concatenated, and their offsets.
pub const NEW_STR_FILE: &str = "ids/new.str";
pub const NEW_OFF_FILE: &str = "ids/new.off";
/// Where each new vertex falls among the base ranks.
pub const INS_FILE: &str = "ids/ins.bin";

/// The delta's records as tiles: the additions' edges and index, the
/// tombstones' edges and index.
pub const TILES_FILES: [&str; 4] = [
    "tiles/adds.bin",
    "tiles/adds.idx",
    "tiles/dels.bin",
    "tiles/dels.idx",
];

/// Bits per rank block of `.bits` (`.rnk` holds one count per block).
pub const RANK_BLOCK_BITS: u64 = 512;

/// The rank of touched vertex `v` among the touched ones (its index in
/// `.off`), `None` when untouched: a rank directory (Jacobson's rank
/// structure) over `bits`, `rnk[b]` counting the bits before block `b`.
pub fn touched_rank(bits: &[u64], rnk: &[u64], n: u64, v: u64) -> Option<u64> {
    if v >= n || bits[(v / 64) as usize] >> (v % 64) & 1 == 0 {
        return None;
    }
    let per = RANK_BLOCK_BITS / 64;
    let word = v / 64;
    let before: u64 = (word / per * per..word)
        .map(|k| bits[k as usize].count_ones() as u64)
        .sum();
    let mask = (1u64 << (v % 64)) - 1;
    Some(
        rnk[(v / RANK_BLOCK_BITS) as usize]
            + before
            + (bits[word as usize] & mask).count_ones() as u64,
    )
}

/// Generation `g`'s directory, relative to the store.
pub fn generation_dir(g: u64) -> String {
    format!("{DELTA_DIR}/g{g:06}")
}

/// The list files of direction `which`: bits, rnk, off, deg, rec, w.
pub fn lists_files(which: &str) -> [String; 6] {
    ["bits", "rnk", "off", "deg", "rec", "w"].map(|e| format!("lists/{which}.{e}"))
}

/// A record: neighbour `nbr`, a tombstone or an addition.
#[inline]
pub fn record(nbr: u64, tombstone: bool) -> u64 {
    nbr << 1 | tombstone as u64
}

/// The neighbour of a record.
#[inline]
pub fn nbr(rec: u64) -> u64 {
    rec >> 1
}

/// True when the record removes its base edge.
#[inline]
pub fn is_tombstone(rec: u64) -> bool {
    rec & 1 == 1
}

/// One direction's lists.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ListsInfo {
    /// Vertices with records.
    pub touched: u64,
    /// Records (additions and tombstones).
    pub records: u64,
}

/// The delta in the manifest (format version 3): which generation is
/// current, the counts of the view (base + delta) and the generation's
/// files, each with size and checksum, relative to its directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeltaInfo {
    /// The generation (1, 2, ...): its files are in `delta/gNNNNNN/`.
    pub generation: u64,
    /// Vertices of the view: the base's, then the new ones.
    pub num_vertices: u64,
    pub num_edges: u64,
    pub num_self_loops: u64,
    pub max_out: u64,
    pub max_in: u64,
    /// Edges of the view the base lacks (new weights included).
    pub added: u64,
    /// Edges of the base the view lacks (replaced weights included).
    pub removed: u64,
    /// The lists by direction ("out", and "in" in a directed store).
    pub lists: BTreeMap<String, ListsInfo>,
    pub files: BTreeMap<String, FileEntry>,
}

impl DeltaInfo {
    /// Vertices the delta adds to the base's `n_base`.
    pub fn new_vertices(&self, n_base: u64) -> u64 {
        self.num_vertices.saturating_sub(n_base)
    }
}

/// The directions a store keeps lists for.
pub fn directions(m: &Manifest) -> &'static [&'static str] {
    if m.directed {
        &["out", "in"]
    } else {
        &["out"]
    }
}

/// The files generation `d` of a store with base manifest `base` must
/// list, each with the size its counts call for (`None`: only the
/// manifest knows, the names' bytes).
pub fn expected_files(base: &Manifest, d: &DeltaInfo) -> BTreeMap<String, Option<u64>> {
    let n = d.num_vertices;
    let mut v: BTreeMap<String, Option<u64>> = BTreeMap::new();
    for which in directions(base) {
        let l = d.lists.get(*which).cloned().unwrap_or_default();
        let [bits, rnk, off, deg, rec, w] = lists_files(which);
        v.insert(bits, Some(8 * n.div_ceil(64)));
        v.insert(rnk, Some(8 * (n.div_ceil(RANK_BLOCK_BITS) + 1)));
        v.insert(off, Some(8 * (l.touched + 1)));
        v.insert(deg, Some(8 * l.touched));
        v.insert(rec, Some(8 * l.records));
        if base.weighted {
            v.insert(w, Some(8 * l.records));
        }
    }
    let new = d.new_vertices(base.num_vertices);
    if new > 0 {
        if base.string_ids {
            v.insert(NEW_STR_FILE.into(), None);
            v.insert(NEW_OFF_FILE.into(), Some(8 * (new + 1)));
        } else {
            v.insert(NEW_IDS_FILE.into(), Some(8 * new));
        }
        v.insert(INS_FILE.into(), Some(16 * new));
    }
    // Tiles: all four or (a generation written before them) none.
    if TILES_FILES.iter().any(|f| d.files.contains_key(*f)) {
        v.extend(TILES_FILES.map(|f| (f.to_string(), None)));
    }
    let sums: Vec<(String, Option<u64>)> = v
        .iter()
        .map(|(rel, len)| {
            let len = len.or_else(|| d.files.get(rel).map(|f| f.bytes));
            (sums_file(rel), len.map(|l| 8 * l.div_ceil(PAGE_BYTES)))
        })
        .collect();
    v.extend(sums);
    v
}
