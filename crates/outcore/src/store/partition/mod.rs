//! Partitioned stores (DESIGN.md, "Partitioned stores"): a graph split into
//! K shards by vertex, for runs where each worker holds one shard.
//!
//! ```text
//! DIR/
//!   partition.json   K, global counts and flags, the owners' id ranges
//!                    (`bounds`), per shard: owned, ghosts by owner, stored
//!                    and cross edges, its manifest's size and XXH3; the
//!                    balance; the id map's files; its own checksum
//!   ids/             the one id map of global ids: ids.bin (or ids.str +
//!                    ids.off) by rank, order.bin (global id -> rank) and
//!                    order.inv (rank -> global id), absent when the identity
//!   shard-000/ ...   an ordinary store of every edge with an endpoint the
//!                    shard owns, in global ids: its own id map (ids.bin)
//!                    is the local -> global map, and its vertices are the
//!                    owned ones plus the ghosts (the other endpoints)
//! ```
//!
//! Global ids are dense and contiguous per shard: shard k owns
//! `bounds[k]..bounds[k+1]`. A shard is built with the original order, so
//! its local ids follow the global ones: its owned vertices are the local
//! ids `local_first..local_first + owned`, ghosts owned by lower shards come
//! before them and ghosts of higher shards after, each group by owner.

mod verify;

use super::file::expect_entries;
use super::manifest::FileEntry;
use super::manifest::{self_hash, ZEROED};
use super::{IdFiles, OriginalIds, Store};
use crate::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
pub use verify::verify_partition;

/// The partition's manifest, beside its shards.
pub const PARTITION_FILE: &str = "partition.json";
/// The format name written in every partition manifest.
pub const FORMAT_NAME: &str = "outcore-partition";
/// The partition format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The directory of the global id map.
pub const IDS_DIR: &str = "ids";

/// The directory of shard `k`, relative to the partition.
pub fn shard_name(k: usize) -> String {
    format!("shard-{k:03}")
}

/// One shard as `partition.json` lists it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShardInfo {
    /// The shard's store, relative to the partition (`shard-003`).
    pub dir: String,
    /// Vertices it owns: global ids `bounds[k]..bounds[k + 1]`.
    pub owned: u64,
    /// The local id of its first owned vertex (the ghosts of lower shards).
    pub local_first: u64,
    /// Its ghosts by owner shard (0 for itself).
    pub ghosts: Vec<u64>,
    /// Edges it stores (every edge with an owned endpoint).
    pub edges: u64,
    /// Of those, the edges with a ghost endpoint.
    pub cross_edges: u64,
    /// Size and XXH3 of the shard's `manifest.json` (which lists its files'
    /// checksums in turn).
    pub manifest: FileEntry,
}

impl ShardInfo {
    /// All its ghosts.
    pub fn ghost_count(&self) -> u64 {
        self.ghosts.iter().sum()
    }
}

/// How evenly the edges are spread.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Balance {
    /// Most edges a shard stores, and the mean.
    pub max_edges: u64,
    pub mean_edges: f64,
    /// `max_edges / mean_edges` (1.0: perfect).
    pub max_over_mean: f64,
    /// Vertices placed one by one as hubs (largest first, each on the
    /// least loaded shard).
    pub hubs: u64,
    /// Distinct edges whose endpoints two shards own (stored in both).
    pub cross_edges: u64,
}

/// `partition.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PartitionManifest {
    pub format: String,
    pub format_version: u32,
    /// K.
    pub parts: u64,
    pub num_vertices: u64,
    pub num_edges: u64,
    pub num_self_loops: u64,
    pub directed: bool,
    pub weighted: bool,
    pub string_ids: bool,
    /// `ids/ids.bin` maps ranks to original integer ids.
    pub has_id_map: bool,
    /// `ids/order.bin` and `ids/order.inv` map global ids and ranks.
    pub has_order_map: bool,
    /// K + 1 global ids: shard k owns `bounds[k]..bounds[k + 1]`.
    pub bounds: Vec<u64>,
    pub shards: Vec<ShardInfo>,
    pub balance: Balance,
    /// The store it was made from.
    pub source: String,
    /// The files of `ids/`, with sizes and checksums.
    pub ids: BTreeMap<String, FileEntry>,
    /// XXH3-64 of this text with these 16 digits zeroed, as in a store's
    /// manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
}

impl PartitionManifest {
    /// Pretty JSON with its own checksum.
    pub fn to_json(&self) -> String {
        let mut m = self.clone();
        m.checksum = Some("0".repeat(16));
        let text = serde_json::to_string_pretty(&m).expect("partition manifest serialises");
        let h = self_hash(text.as_bytes(), ZEROED).expect("the field was just written");
        text.replacen(ZEROED, &format!("\"checksum\": \"{h}\""), 1)
    }

    /// Reads and checks `DIR/partition.json`.
    pub fn read(dir: &Path) -> Result<PartitionManifest> {
        let path = dir.join(PARTITION_FILE);
        if !path.is_file() {
            return Err(Error::store(
                dir,
                "no partition.json: not a partitioned store, or a partition that did not finish",
            ));
        }
        let text = std::fs::read(&path).at(&path)?;
        let bad = |why: String| Error::damaged(dir, PARTITION_FILE, why);
        let value: serde_json::Value =
            serde_json::from_slice(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
            return Err(bad("it does not describe a partitioned store".into()));
        }
        let version = value.get("format_version").and_then(|v| v.as_u64());
        if version != Some(FORMAT_VERSION as u64) {
            return Err(Error::store(
                dir,
                format!(
                    "partition format version {} is not supported (this outcore reads version {FORMAT_VERSION}); partition the store again",
                    version.map_or("unknown".to_string(), |v| v.to_string())
                ),
            ));
        }
        let mut m: PartitionManifest =
            serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
        let Some(c) = m.checksum.take() else {
            return Err(bad("it has no checksum".into()));
        };
        let body = text.strip_suffix(b"\n").unwrap_or(&text);
        if self_hash(body, &format!("\"checksum\": \"{c}\"")).as_deref() != Some(c.as_str()) {
            return Err(bad("checksum mismatch".into()));
        }
        m.check().map_err(bad)?;
        Ok(m)
    }

    /// The counts agree with each other.
    fn check(&self) -> std::result::Result<(), String> {
        let k = self.parts as usize;
        if k == 0 || self.shards.len() != k || self.bounds.len() != k + 1 {
            return Err(format!(
                "{} parts, {} shards and {} bounds (K + 1 expected)",
                self.parts,
                self.shards.len(),
                self.bounds.len()
            ));
        }
        if self.bounds[0] != 0 || self.bounds[k] != self.num_vertices {
            return Err(format!(
                "the bounds run from {} to {}, not 0 to the {} vertices",
                self.bounds[0], self.bounds[k], self.num_vertices
            ));
        }
        for (i, s) in self.shards.iter().enumerate() {
            let (lo, hi) = (self.bounds[i], self.bounds[i + 1]);
            if hi < lo || hi - lo != s.owned || s.ghosts.len() != k || s.ghosts[i] != 0 {
                return Err(format!(
                    "shard {i} owns {} vertices with bounds {lo}..{hi} and {} ghost counts",
                    s.owned,
                    s.ghosts.len()
                ));
            }
            if s.dir != shard_name(i) {
                return Err(format!("shard {i} is named {}", s.dir));
            }
        }
        Ok(())
    }

    /// The shard owning global id `g`.
    pub fn owner(&self, g: u64) -> usize {
        self.bounds.partition_point(|&b| b <= g) - 1
    }
}

/// An opened partitioned store.
#[derive(Clone, Debug)]
pub struct Partition {
    path: PathBuf,
    manifest: PartitionManifest,
}

impl Partition {
    /// Opens the partition at `dir`: its manifest checks out and the id
    /// map's files have their recorded sizes (their checksums are checked
    /// as they are read).
    pub fn open(dir: &Path) -> Result<Partition> {
        let manifest = PartitionManifest::read(dir)?;
        let ids = dir.join(IDS_DIR);
        for (rel, e) in &manifest.ids {
            let len = std::fs::metadata(ids.join(rel)).map(|m| m.len()).ok();
            if len != Some(e.bytes) {
                let why = match len {
                    None => "missing".to_string(),
                    Some(l) => format!("{l} bytes, partition.json says {}", e.bytes),
                };
                return Err(Error::damaged(dir, &format!("{IDS_DIR}/{rel}"), why));
            }
        }
        expect_entries(&ids, &ids, &manifest.ids);
        Ok(Partition {
            path: dir.to_path_buf(),
            manifest,
        })
    }

    /// The partition directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `partition.json`.
    pub fn manifest(&self) -> &PartitionManifest {
        &self.manifest
    }

    /// The directory of shard `k`.
    pub fn shard_path(&self, k: usize) -> PathBuf {
        self.path.join(shard_name(k))
    }

    /// Opens shard `k` as a store, after checking its manifest against
    /// `partition.json`; errors name the shard.
    pub fn open_shard(&self, k: usize) -> Result<Store> {
        self.try_shard(k).map_err(|e| self.in_shard(k, e))
    }

    fn try_shard(&self, k: usize) -> Result<Store> {
        let dir = self.shard_path(k);
        let rel = super::manifest::MANIFEST_FILE;
        let got = super::file::checksum(&dir.join(rel))?;
        let want = &self.manifest.shards[k].manifest;
        if got != *want {
            let why = format!(
                "checksum mismatch (partition.json: {} bytes, xxh3 {}; file: {} bytes, xxh3 {})",
                want.bytes, want.xxh3, got.bytes, got.xxh3
            );
            return Err(Error::store(
                &dir,
                format!("{rel} does not match the partition ({why})"),
            ));
        }
        let store = Store::open(&dir)?;
        let (m, p, s) = (store.manifest(), &self.manifest, &self.manifest.shards[k]);
        let want = (p.directed, p.weighted, s.owned + s.ghost_count(), s.edges);
        let got = (m.directed, m.weighted, m.num_vertices, m.num_edges);
        if got != want {
            return Err(Error::store(
                &dir,
                format!("it holds (directed, weighted, vertices, edges) {got:?}, the partition says {want:?}"),
            ));
        }
        Ok(store)
    }

    /// `e`, met in shard `k`, as an error of the partition naming the shard.
    pub(crate) fn in_shard(&self, k: usize, e: Error) -> Error {
        let msg = match e {
            Error::Store { msg, .. } | Error::NoStore { msg, .. } => msg,
            e => e.to_string(),
        };
        let msg = msg.replace("re-import the graph", "partition the store again");
        Error::store(
            &self.path,
            format!("shard {k} ({}): {msg}", self.shard_path(k).display()),
        )
    }

    /// The global id map: global id -> rank -> original id, and back.
    pub fn load_ids(&self) -> Result<OriginalIds> {
        let m = &self.manifest;
        let kind = IdFiles {
            n: m.num_vertices,
            string_ids: m.string_ids,
            has_id_map: m.has_id_map,
            has_order_map: m.has_order_map,
        };
        OriginalIds::load_in(&self.path.join(IDS_DIR), &kind)
    }
}

/// The error for opening a partition's directory as a store.
pub(crate) fn not_a_shard(dir: &Path) -> Error {
    let d = dir.display();
    Error::store(
        dir,
        format!(
            "a partitioned store (partition.json), not a store: open one of its shards \
             ({d}/{}, ...), or check it with `outcore verify {d}`",
            shard_name(0)
        ),
    )
}
