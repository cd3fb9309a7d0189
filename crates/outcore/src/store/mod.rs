//! `store`: the on-disk graph (DESIGN.md, "The store").
//!
//! A store is a directory:
//!
//! ```text
//! graph.oc/
//!   manifest.json        format version, counts, flags, build parameters, size + XXH3 of every file
//!   ids.bin              dense id -> original id, u64 each (absent when ids are already 0..n-1)
//!   degrees/{out,in}.u16 compact degrees, .ovf overflow table (see degrees.rs)
//!   tiles/               G-Store tiles: edges.bin, index.bin, groups.bin, edges.xxh (see tiles.rs)
//!   csr/{out,in}.adj     page-packed adjacency, .off slot offsets (see csr.rs)
//!   weights/             f64 weights aligned with tiles/edges.bin and with each adjacency file
//! ```
//!
//! Stores are created atomically ([`file::StoreDir`]) and opened only after
//! the manifest, its version and every file's size check out
//! ([`Store::open`]); [`verify`] also recomputes checksums and invariants.

pub mod csr;
pub mod degrees;
pub mod export;
pub mod file;
pub mod manifest;
pub mod read;
pub mod tiles;
pub mod verify;

use crate::error::{Error, Result};
pub use manifest::Manifest;
use std::path::{Path, PathBuf};

/// The id map's file.
pub const IDS_FILE: &str = "ids.bin";

/// An opened store: its path and manifest.
#[derive(Clone, Debug)]
pub struct Store {
    path: PathBuf,
    manifest: Manifest,
}

impl Store {
    /// Opens the store at `path`: reads the manifest, checks the format
    /// version and that every listed file exists with its recorded size.
    pub fn open(path: &Path) -> Result<Store> {
        let manifest = Manifest::read(path)?;
        for (rel, entry) in &manifest.files {
            let p = path.join(rel);
            let meta = std::fs::metadata(&p)
                .map_err(|_| Error::store(path, format!("{rel} is missing")))?;
            if meta.len() != entry.bytes {
                return Err(Error::store(
                    path,
                    format!(
                        "{rel} has {} bytes, the manifest says {}: the store is damaged",
                        meta.len(),
                        entry.bytes
                    ),
                ));
            }
        }
        let required = required_files(&manifest);
        if let Some(missing) = required.iter().find(|f| !manifest.files.contains_key(*f)) {
            return Err(Error::store(
                path,
                format!("the manifest does not list {missing}"),
            ));
        }
        Ok(Store {
            path: path.to_path_buf(),
            manifest,
        })
    }

    /// The store directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Path of a store file.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// Loads the dense -> original id map (identity when the store has none).
    pub fn load_ids(&self) -> Result<OriginalIds> {
        if !self.manifest.has_id_map {
            return Ok(OriginalIds(None));
        }
        let ids = file::read_u64s(&self.file(IDS_FILE))?;
        if ids.len() as u64 != self.manifest.num_vertices {
            return Err(Error::store(
                &self.path,
                "ids.bin does not hold one id per vertex",
            ));
        }
        Ok(OriginalIds(Some(ids)))
    }
}

/// Dense -> original ids.
pub struct OriginalIds(Option<Vec<u64>>);

impl OriginalIds {
    /// The original id of dense id `v`.
    #[inline]
    pub fn get(&self, v: u64) -> u64 {
        match &self.0 {
            Some(ids) => ids[v as usize],
            None => v,
        }
    }
}

/// The files every store of this shape must have.
pub fn required_files(m: &Manifest) -> Vec<String> {
    let mut v: Vec<String> = vec![
        tiles::EDGES_FILE.into(),
        tiles::INDEX_FILE.into(),
        tiles::GROUPS_FILE.into(),
        tiles::CHUNKS_FILE.into(),
    ];
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    for d in dirs {
        let (a, o, w) = csr::files(d);
        let (dc, dov) = degrees::files(d);
        v.extend([a, o, dc, dov]);
        if m.weighted {
            v.push(w);
        }
    }
    if m.weighted {
        v.push(tiles::WEIGHTS_FILE.into());
    }
    if m.has_id_map {
        v.push(IDS_FILE.into());
    }
    v
}
