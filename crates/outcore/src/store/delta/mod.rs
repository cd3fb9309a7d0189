//! The delta layer (DESIGN.md, issue 53): updates land beside the base
//! store as an LSM-style delta, PartitionedVC's buffered structural
//! updates, until a compaction merges them into a new base.
//!
//! A store with a delta has `delta` in its manifest ([`DeltaInfo`],
//! format version 3) naming the current generation, `delta/gNNNNNN/`
//! ([`format`]), written atomically by [`DeltaWriter`]. The base files
//! never change; base dense ids stay, new vertices get `n_base..n'`.
//!
//! [`Store::manifest`] is the *view* (counts of base + delta),
//! [`Store::base`] the manifest of the base files. Readers that do not
//! merge the delta yet open stores with [`Store::open`], which refuses a
//! store with pending updates; readers that do use
//! [`Store::open_with_delta`].

pub mod degrees;
pub mod format;
pub mod ids;
pub mod lists;
pub mod paged;
pub mod testing;
pub mod tiles;
mod verify;
pub mod write;

pub use format::{DeltaInfo, ListsInfo, DELTA_FORMAT_VERSION};
pub use ids::{NewIds, Ranked};
pub use lists::{merge, DeltaLists, Records};
pub use paged::{PagedLists, Window};
pub use write::{DeltaWriter, ListsWriter, Stop, ViewCounts};

use super::manifest::{Manifest, MANIFEST_FILE};
use super::tiles::TileGeometry;
use super::Store;
use crate::error::{Error, IoContext, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

impl Store {
    /// The view's degrees this store's readers share
    /// ([`degrees::hold`]).
    pub(crate) fn shared_degrees(&self) -> &degrees::Shared {
        &self.degrees
    }

    /// The delta, when the store has one.
    pub fn delta(&self) -> Option<&DeltaInfo> {
        self.base.delta.as_ref()
    }

    /// Path of file `rel` of the current delta generation (valid while
    /// this store is open).
    pub fn delta_file(&self, rel: &str) -> PathBuf {
        let g = self.delta().map_or(0, |d| d.generation);
        self.root().join(format::generation_dir(g)).join(rel)
    }

    /// Delta file `rel` whole, checked against the size and checksum the
    /// manifest records for it.
    pub fn read_delta_file(&self, rel: &str) -> Result<Vec<u8>> {
        let Some(d) = self.delta() else {
            return Err(Error::Invalid(format!("{rel}: the store has no delta")));
        };
        let path = self.delta_file(rel);
        let bytes = std::fs::read(&path).at(&path)?;
        let sum = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
        if d.files
            .get(rel)
            .is_none_or(|e| e.xxh3 != sum || e.bytes != bytes.len() as u64)
        {
            return Err(Error::damaged(
                self.path(),
                &self.delta_name(rel),
                "checksum mismatch",
            ));
        }
        Ok(bytes)
    }

    /// [`Store::read_delta_file`] as little-endian u64s.
    pub fn read_delta_u64s(&self, rel: &str) -> Result<Vec<u64>> {
        Ok(self
            .read_delta_file(rel)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    /// The name of delta file `rel` in messages: relative to the store.
    pub fn delta_name(&self, rel: &str) -> String {
        let g = self.delta().map_or(0, |d| d.generation);
        format!("{}/{rel}", format::generation_dir(g))
    }
}

/// The seams' switch for tests (issue 53, §7): with
/// `OUTCORE_DELTA_SKIP=PART[,PART...]` in the environment, the reader of
/// that part of the delta ignores it (`ids`: the rank shift; `tombstones`:
/// the external engine's filter; `degrees`: the view's degrees;
/// `shared-degrees`: their sharing, each reader loads its own; `prune`:
/// the removal of superseded generations), so the
/// tests of that seam go red.
pub fn skip(part: &str) -> bool {
    static SKIP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let parts = SKIP.get_or_init(|| std::env::var("OUTCORE_DELTA_SKIP").unwrap_or_default());
    !parts.is_empty() && parts.split(',').any(|p| p == part)
}

/// The refusal of a reader that does not read the delta yet.
pub(super) fn pending_updates(path: &Path, d: &DeltaInfo) -> Error {
    Error::store(
        path,
        format!(
            "this store has pending updates (delta generation {}), which this reader does \
             not read yet; run `outcore compact` on it first",
            d.generation
        ),
    )
}

/// The view of base manifest `base` with its delta: the counts of base +
/// delta (vertices, edges, self-loops, largest degrees, tile blocks, and
/// an order map once new vertices interleave); `files` and every layout
/// field stay the base's.
pub(super) fn view_of(base: &Manifest, d: &DeltaInfo) -> Manifest {
    let mut m = base.clone();
    m.num_vertices = d.num_vertices;
    m.num_edges = d.num_edges;
    m.num_self_loops = d.num_self_loops;
    m.degrees.max_out = d.max_out;
    m.degrees.max_in = d.max_in;
    m.tiles.blocks = TileGeometry::new(d.num_vertices, m.tiles.group_tiles, !m.directed).blocks;
    // New vertices take dense ids past the base's, their ranks fall among
    // the base's (the I seam, [`ids`]): the view's dense ids are not ranks.
    m.has_order_map |= d.num_vertices > base.num_vertices;
    m
}

/// The manifest at `root` (the store at `path`) and, when it names a
/// delta, that generation's directory pinned: opened and locked shared,
/// then checked to be the one still at its path. An update prunes the
/// generations it supersedes that no reader pins
/// ([`write::prune_generations`]); a manifest read just before such a
/// prune names a generation that is gone, so it is read again.
pub(super) fn read_pinned(root: &Path, path: &Path) -> Result<(Manifest, Option<File>)> {
    let mut tries = 0;
    loop {
        let m = Manifest::read(root)?;
        let Some(d) = &m.delta else {
            return Ok((m, None));
        };
        let dir = root.join(format::generation_dir(d.generation));
        if let Some(f) = pin_generation(&dir)? {
            return Ok((m, Some(f)));
        }
        tries += 1;
        if tries > 100 {
            let name = format::generation_dir(d.generation);
            return Err(Error::damaged(path, &name, "missing"));
        }
    }
}

/// Opens and locks (shared) the generation directory `dir`: `None` when
/// it is gone or was replaced before the lock was held.
fn pin_generation(dir: &Path) -> Result<Option<File>> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(dir)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).at(dir),
    };
    crate::stale::flock(&f, libc::LOCK_SH).at(dir)?;
    let held = f.metadata().at(dir)?;
    Ok(match std::fs::metadata(dir) {
        Ok(now) if (now.dev(), now.ino()) == (held.dev(), held.ino()) => Some(f),
        _ => None,
    })
}

/// What opening checks of a delta: a generation, a view no smaller than
/// the base, exactly the files its shape calls for, each with the size its
/// counts and the manifest record. Sets `view` to the view.
pub(super) fn check_open(path: &Path, root: &Path, base: &Manifest) -> Result<Option<Manifest>> {
    let Some(d) = &base.delta else {
        return Ok(None);
    };
    let bad = |why: String| Err(Error::damaged(path, MANIFEST_FILE, why));
    if d.generation == 0 || d.num_vertices < base.num_vertices {
        return bad(format!(
            "its delta (generation {}) has {} vertices, the base {}",
            d.generation, d.num_vertices, base.num_vertices
        ));
    }
    let expect = format::expected_files(base, d);
    if let Some(f) = expect.keys().find(|f| !d.files.contains_key(*f)) {
        return bad(format!("its delta does not list {f}"));
    }
    if let Some(f) = d.files.keys().find(|f| !expect.contains_key(*f)) {
        return bad(format!(
            "its delta lists {f}, which a delta of its shape does not have"
        ));
    }
    let dir = root.join(format::generation_dir(d.generation));
    for (rel, entry) in &d.files {
        let name = format!("{}/{rel}", format::generation_dir(d.generation));
        if let Some(want) = expect[rel].filter(|&w| w != entry.bytes) {
            return bad(format!(
                "its delta's counts call for {want} bytes of {name}, it lists {}",
                entry.bytes
            ));
        }
        let meta =
            std::fs::metadata(dir.join(rel)).map_err(|_| Error::damaged(path, &name, "missing"))?;
        if meta.len() != entry.bytes {
            let why = format!("{} bytes, the manifest says {}", meta.len(), entry.bytes);
            return Err(Error::damaged(path, &name, why));
        }
    }
    let view = view_of(base, d);
    view.check_ids(path)?;
    Ok(Some(view))
}

pub(super) use verify::verify_delta;
