//! `manifest.json`: what a store holds and how it was built (DESIGN.md, "The store").

use crate::error::{Error, IoContext, Result};
use crate::store::csr::SlotWidth;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The format name written in every manifest.
pub const FORMAT_NAME: &str = "outcore-store";
/// The store format version this build writes for stores of 4-byte CSR
/// ids (every store before wide ids).
pub const FORMAT_VERSION: u32 = 1;
/// The version of a wide store (`csr.id_bytes` 8): readers that predate it
/// refuse it instead of reading its 8-byte slots as two ids each.
pub const WIDE_FORMAT_VERSION: u32 = 2;
pub use super::delta::format::{DeltaInfo, DELTA_FORMAT_VERSION};
/// The format versions this build reads.
pub const READ_VERSIONS: [u32; 3] = [FORMAT_VERSION, WIDE_FORMAT_VERSION, DELTA_FORMAT_VERSION];
/// The most vertices a store holds: 2^32 - 1 blocks of 2^16 (2^48 - 2^16),
/// the tiles' u32 block numbers less the tile index's end mark (row
/// `u32::MAX`); the tile order is a u64 and the stream engine's work key
/// takes 32-bit blocks.
pub const MAX_VERTICES: u64 = (u32::MAX as u64) << crate::store::tiles::TILE_BITS;
/// The manifest's file name inside a store directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Size and checksum of one store file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    pub bytes: u64,
    /// XXH3-64 of the file's bytes, 16 hex digits.
    pub xxh3: String,
}

/// Tile layout parameters (G-Store).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TileInfo {
    /// log2 of the tile width: 16 (local ids are u16).
    pub tile_bits: u32,
    /// Tiles per group side (q): a group is q x q tiles.
    pub group_tiles: u32,
    /// Vertex blocks per side (p = ceil(|V| / 2^16)).
    pub blocks: u64,
    /// Undirected stores keep only tiles (i, j) with i <= j, each edge once.
    pub upper_triangle: bool,
    /// Non-empty tiles.
    pub num_tiles: u64,
    pub num_groups: u64,
    pub max_tile_edges: u64,
    /// Edges stored in the tiles.
    pub edges: u64,
    /// How `tiles/edges.bin` is coded: absent for plain (u16, u16) pairs,
    /// `gap-svb` for [`crate::store::tilecode`] frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
    /// Compressed tiles: the frames, each an entry of `tiles/index.bin`
    /// (a tile has one or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<u64>,
}

impl TileInfo {
    /// True when the tiles are coded in frames.
    pub fn compressed(&self) -> bool {
        self.compression.is_some()
    }

    /// Entries of `tiles/index.bin` before its closing one: the tiles, or
    /// with compression their frames.
    pub fn index_entries(&self) -> u64 {
        self.frames.unwrap_or(self.num_tiles)
    }
}

/// CSR layout parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CsrInfo {
    /// Page size the adjacency is packed to: a list that fits a page never
    /// straddles two; a longer one starts on a page boundary.
    pub page_bytes: u64,
    /// Bytes per neighbour id: 4, or 8 in a wide store (format version 2).
    pub id_bytes: u64,
    /// Slots (neighbours plus padding) in `csr/out.adj`.
    pub out_slots: u64,
    /// Neighbour entries in `csr/out.adj` (undirected: both directions, a self-loop once).
    pub out_entries: u64,
    /// Same for `csr/in.adj` (directed stores only; 0 otherwise).
    pub in_slots: u64,
    pub in_entries: u64,
    /// Each CSR file has a checksum per 4 KiB page beside it
    /// (`NAME.xxh`, [`crate::store::pagesums`]); absent in stores built
    /// before those existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page_sums: bool,
    /// How the adjacency is coded: absent for plain `csr/{dir}.adj`,
    /// `page-svb` for coded pages in `csr/{dir}.adz` with the directory
    /// `csr/{dir}.pgi` ([`crate::store::csrcode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
}

/// Degree summary.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DegreeInfo {
    pub max_out: u64,
    pub max_in: u64,
    /// Vertices whose out-degree is >= 0xFFFF (kept in the overflow table).
    pub out_overflow: u64,
    pub in_overflow: u64,
}

/// How the store was built.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct BuildInfo {
    pub tool: String,
    /// The input files or the generator description.
    pub source: String,
    pub format: String,
    pub memory_budget: u64,
    pub drop_self_loops: bool,
    pub input_edges: u64,
    pub duplicates_merged: u64,
    pub self_loops_dropped: u64,
    pub seconds: f64,
    pub created_unix: u64,
}

/// How dense vertex ids are ordered (DESIGN.md, "Dense ids").
///
/// Every vertex has a *rank*: the position of its original id among the
/// sorted distinct original ids. `Original`: dense id = rank. `Degree`: dense
/// ids go by degree, highest first, ties by rank; `order.bin` maps dense ids
/// to ranks (absent when the order happens to be the identity). `Bfs`:
/// Cuthill-McKee levels (`algo::order`, written by `ingest::build::relabel`), also with `order.bin`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum VertexOrder {
    /// Dense id = rank (stores written before the field existed).
    #[default]
    Original,
    /// Dense ids by descending degree (distinct stored edges touching the
    /// vertex; directed: out + in), ties by ascending rank.
    Degree,
    /// Dense ids by breadth-first levels, each level's vertices by the
    /// smallest dense id of a neighbour in the level before (Cuthill-McKee),
    /// edges taken as undirected: neighbours get nearby ids.
    Bfs,
}

impl std::fmt::Display for VertexOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VertexOrder::Original => "original",
            VertexOrder::Degree => "degree",
            VertexOrder::Bfs => "bfs",
        })
    }
}

impl std::str::FromStr for VertexOrder {
    type Err = Error;
    fn from_str(s: &str) -> Result<VertexOrder> {
        match s {
            "original" => Ok(VertexOrder::Original),
            "degree" => Ok(VertexOrder::Degree),
            "bfs" => Ok(VertexOrder::Bfs),
            _ => Err(Error::Invalid(format!(
                "unknown vertex order `{s}`: expected degree, bfs or original"
            ))),
        }
    }
}

/// The manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    pub num_vertices: u64,
    /// Distinct edges: arcs of a directed graph, unordered pairs of an undirected one.
    pub num_edges: u64,
    pub num_self_loops: u64,
    pub directed: bool,
    pub weighted: bool,
    /// "f64" when weighted.
    pub weight_type: Option<String>,
    /// True when `ids.bin` maps ranks to original ids.
    pub has_id_map: bool,
    /// True when vertex ids are strings: `ids.str` and `ids.off` hold the
    /// names by rank (absent from integer stores' manifests).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub string_ids: bool,
    /// With string ids: `ids.str` and `ids.off` have a checksum per 4 KiB
    /// page beside them (`NAME.xxh`), which the positioned reads of
    /// [`crate::store::IdLookup`] check; absent in stores built before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub name_page_sums: bool,
    /// How dense ids are ordered ("original" when absent: older stores).
    #[serde(default)]
    pub vertex_order: VertexOrder,
    /// True when `order.bin` maps dense ids to ranks and `order.inv` ranks to
    /// dense ids (false: dense id = rank).
    #[serde(default)]
    pub has_order_map: bool,
    pub tiles: TileInfo,
    pub csr: CsrInfo,
    pub degrees: DegreeInfo,
    pub build: BuildInfo,
    /// Every data file, by path relative to the store, with size and checksum.
    pub files: BTreeMap<String, FileEntry>,
    /// Pending updates: the current generation of the delta beside the
    /// base ([`super::delta`]), in a store of format version 3 only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<DeltaInfo>,
    /// XXH3-64 of the manifest's own text with these 16 hex digits zeroed
    /// (and without its last newline): a flipped byte anywhere in the
    /// manifest, a timing included, is detected. Written by [`Self::to_json`],
    /// checked and cleared by [`Self::read`]; absent from older stores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
}

/// The checksum field as [`Manifest::to_json`] writes it before hashing.
pub(crate) const ZEROED: &str = "\"checksum\": \"0000000000000000\"";

/// The manifest text's hash, its checksum field zeroed.
pub(crate) fn self_hash(text: &[u8], field: &str) -> Option<String> {
    let s = std::str::from_utf8(text).ok()?;
    let at = s.find(field)?;
    let zeroed = [&s[..at], ZEROED, &s[at + field.len()..]].concat();
    let h = xxhash_rust::xxh3::xxh3_64(zeroed.as_bytes());
    Some(format!("{h:016x}"))
}

impl Manifest {
    /// The CSR's slot width (checked when the manifest was read).
    pub fn slot_width(&self) -> SlotWidth {
        SlotWidth::of_id_bytes(self.csr.id_bytes).unwrap_or(SlotWidth::Narrow)
    }

    /// Bytes of direction `which`'s adjacency as the engines read it: its
    /// coded pages in a compressed CSR, else its slots at the store's
    /// width; 0 for a direction the store lacks. What the planners price.
    pub fn adjacency_bytes(&self, which: &str) -> u64 {
        let file = |rel: String| self.files.get(&rel).map(|f| f.bytes);
        file(super::csrcode::files(which).0)
            .or_else(|| file(super::csr::files(which).0))
            .unwrap_or(0)
    }

    /// Bytes of direction `which`'s weights (one f64 a slot); 0 in an
    /// unweighted store. What a weighted program reads beside the lists.
    pub fn weight_bytes(&self, which: &str) -> u64 {
        let rel = super::csr::files(which).2;
        self.files.get(&rel).map_or(0, |f| f.bytes)
    }

    /// The format version a store of this CSR width is written as.
    pub fn version_for(id_bytes: u64) -> u32 {
        if id_bytes == 8 {
            WIDE_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        }
    }

    /// `csr.id_bytes` is 4 or 8 and matches the format version (3 with a
    /// delta, at either width); the
    /// vertices fit the store's ids: u32 ids (less their padding value) in
    /// a narrow store and in the order maps (the builds that write them
    /// refuse more), [`MAX_VERTICES`] in a wide one.
    pub(crate) fn check_ids(&self, dir: &Path) -> Result<()> {
        let (b, n) = (self.csr.id_bytes, self.num_vertices);
        let why = if n > MAX_VERTICES {
            format!("{n} vertices, and a store holds at most {MAX_VERTICES}")
        } else if b == 4 && n > u32::MAX as u64 {
            format!(
                "{n} vertices in a store of 4-byte ids (at most {})",
                u32::MAX
            )
        } else if self.has_order_map && n > u32::MAX as u64 {
            format!("an order map on {n} vertices (its ids are 32-bit)")
        } else if SlotWidth::of_id_bytes(b).is_none() {
            format!("CSR ids of {b} bytes (4 or 8 are known)")
        } else if self.delta.is_some() != (self.format_version == DELTA_FORMAT_VERSION) {
            format!(
                "format version {} {} a delta",
                self.format_version,
                if self.delta.is_some() {
                    "with"
                } else {
                    "without"
                }
            )
        } else if self.delta.is_none() && Self::version_for(b) != self.format_version {
            format!(
                "CSR ids of {b} bytes in a store of format version {}",
                self.format_version
            )
        } else {
            return Ok(());
        };
        Err(Error::damaged(dir, MANIFEST_FILE, format!("it says {why}")))
    }

    /// Reads and checks the manifest of the store at `dir`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        Self::read_known(dir, &READ_VERSIONS)
    }

    /// [`Manifest::read`] by a reader of format versions `known` (tests
    /// simulate an older build with it).
    #[doc(hidden)]
    pub fn read_known(dir: &Path, known: &[u32]) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        if !dir.is_dir() {
            return Err(super::missing::not_a_store(dir));
        }
        if !path.exists() && dir.join(super::partition::PARTITION_FILE).exists() {
            return Err(super::partition::not_a_shard(dir));
        }
        if !path.exists() {
            return Err(Error::store(
                dir,
                "no manifest.json: not an outcore store, or a build that did not finish",
            ));
        }
        let text = std::fs::read(&path).at(&path)?;
        let value: serde_json::Value = serde_json::from_slice(&text)
            .map_err(|e| Error::store(dir, format!("manifest.json is not valid JSON: {e}")))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
            return Err(Error::store(
                dir,
                "manifest.json does not describe an outcore store",
            ));
        }
        let version = value.get("format_version").and_then(|v| v.as_u64());
        if !version.is_some_and(|v| known.iter().any(|&k| k as u64 == v)) {
            let reads: Vec<String> = known.iter().map(|k| k.to_string()).collect();
            return Err(Error::store(
                dir,
                format!(
                    "format version {} is not supported (this outcore reads versions {}); rebuild the store",
                    version.map_or("unknown".to_string(), |v| v.to_string()),
                    reads.join(", ")
                ),
            ));
        }
        let mut m: Manifest =
            serde_json::from_value(value).map_err(|e| Error::damaged(dir, MANIFEST_FILE, e))?;
        m.check_ids(dir)?;
        if let Some(c) = m.checksum.take() {
            let body = text.strip_suffix(b"\n").unwrap_or(&text);
            let field = format!("\"checksum\": \"{c}\"");
            if self_hash(body, &field).as_deref() != Some(c.as_str()) {
                return Err(Error::damaged(dir, MANIFEST_FILE, "checksum mismatch"));
            }
        }
        Ok(m)
    }

    /// Serialises the manifest as pretty JSON, with its own checksum.
    pub fn to_json(&self) -> String {
        let mut m = self.clone();
        m.checksum = Some("0".repeat(16));
        let text = serde_json::to_string_pretty(&m).expect("manifest serialises");
        let h = self_hash(text.as_bytes(), ZEROED).expect("the field was just written");
        text.replacen(ZEROED, &format!("\"checksum\": \"{h}\""), 1)
    }
}
