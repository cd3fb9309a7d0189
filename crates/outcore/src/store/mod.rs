//! `store`: the on-disk graph (DESIGN.md, "The store").
//!
//! A store is a directory:
//!
//! ```text
//! graph.oc/
//!   manifest.json        format version, counts, flags, build parameters, size + XXH3 of every file
//!   ids.bin              rank -> original id, u64 each, increasing (absent when ids are already 0..n-1)
//!   ids.str, ids.off     string ids: the names by rank (byte order), concatenated, and u64 offsets
//!   order.bin            dense id -> rank, u32 each (absent when dense id = rank)
//!   order.inv            rank -> dense id, u32 each (the inverse of order.bin; absent with it)
//!   degrees/{out,in}.u16 compact degrees, .ovf overflow table (see degrees.rs)
//!   tiles/               G-Store tiles: edges.bin, index.bin, groups.bin, edges.xxh (see tiles.rs)
//!   csr/{out,in}.adj     page-packed adjacency, .off slot offsets (see csr.rs)
//!   weights/             f64 weights aligned with tiles/edges.bin and with each adjacency file
//! ```
//!
//! A vertex's *rank* is the position of its original id among the sorted
//! distinct original ids; its *dense id* is its position in the store's
//! vertex order ([`VertexOrder`]): the rank itself, or by descending degree.
//! [`OriginalIds`] (in memory) and [`IdLookup`] (positioned reads) map
//! between the three.
//!
//! Stores are created atomically ([`file::StoreDir`]) and opened only after
//! the manifest, its version and every file's size check out
//! ([`Store::open`]); [`verify`] also recomputes checksums and invariants.
//! An open store pins its directory ([`pin`]): a store replaced meanwhile
//! (an update, `import --force`) stays readable until it is closed.

pub(crate) mod append;
mod checked;
pub mod csr;
pub mod csrcode;
pub mod csrsample;
pub mod csrscan;
pub mod degrees;
pub mod delta;
mod dest;
pub mod export;
pub mod file;
pub mod held;
mod ids;
pub mod manifest;
mod missing;
pub mod pagesums;
pub mod partition;
mod pin;
mod placed;
mod ranks;
pub mod read;
mod slot;
pub mod tilecode;
pub mod tiles;
pub mod verify;
pub mod walk;

use crate::error::{Error, Result};
use crate::io::Reader;
pub use dest::check_store_dest;
pub use manifest::{Manifest, VertexOrder};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The id map's file: rank -> original id.
pub const IDS_FILE: &str = "ids.bin";
/// String stores: the names by rank, concatenated.
pub const IDS_STR_FILE: &str = "ids.str";
/// String stores: where each rank's name starts in `ids.str` (u64 each),
/// then the length of `ids.str`.
pub const IDS_OFF_FILE: &str = "ids.off";
/// The vertex order's file: dense id -> rank.
pub const ORDER_FILE: &str = "order.bin";
/// The inverse of the vertex order: rank -> dense id.
pub const ORDER_INV_FILE: &str = "order.inv";

/// An opened store: its path, its pinned directory and its manifest.
/// Clones share the pin; the directory is released when the last closes.
#[derive(Clone, Debug)]
pub struct Store {
    path: PathBuf,
    pin: Arc<pin::Pin>,
    /// The manifest as on disk: the base files' (and the delta's entry).
    base: Manifest,
    /// With a delta: the view, base + delta ([`delta`]).
    view: Option<Box<Manifest>>,
    /// With a delta: its generation's directory held under a shared
    /// `flock`, so a later update does not prune it while this reads it
    /// ([`delta::pin_generation`]).
    _generation: Option<Arc<std::fs::File>>,
    /// With a delta: the view's degrees its readers share while held
    /// ([`delta::degrees::hold`]).
    degrees: Arc<delta::degrees::Shared>,
}

impl Store {
    /// Opens the store at `path`: pins its directory ([`pin`]), reads the
    /// manifest, checks the format version and that every listed file
    /// exists with its recorded size. A store with pending updates (a
    /// [`delta`]) is refused: this opens it for readers of the base alone.
    pub fn open(path: &Path) -> Result<Store> {
        let store = Store::open_with_delta(path)?;
        match store.delta() {
            Some(d) => Err(delta::pending_updates(path, d)),
            None => Ok(store),
        }
    }

    /// [`Store::open`] for readers that read base + delta: a store with a
    /// delta opens too, its files checked as the base's are, and
    /// [`Store::manifest`] is the view.
    pub fn open_with_delta(path: &Path) -> Result<Store> {
        if !path.is_dir() {
            return Err(missing::not_a_store(path));
        }
        let pin = Arc::new(pin::Pin::open(path)?);
        let root = pin.root();
        let (manifest, generation) = delta::read_pinned(root, path)?;
        file::expect_files(root, path, &manifest);
        for (rel, entry) in &manifest.files {
            let p = root.join(rel);
            let meta = std::fs::metadata(&p).map_err(|_| Error::damaged(path, rel, "missing"))?;
            if meta.len() != entry.bytes {
                let why = format!("{} bytes, the manifest says {}", meta.len(), entry.bytes);
                return Err(Error::damaged(path, rel, why));
            }
        }
        if manifest.has_order_map && manifest.vertex_order == VertexOrder::Original {
            let why = "it lists a vertex order map for the original order";
            return Err(Error::damaged(path, manifest::MANIFEST_FILE, why));
        }
        let q = manifest.tiles.group_tiles;
        if !q.is_power_of_two() || q > 1 << 16 {
            let why = format!("tile groups of {q} tiles a side, not a power of two up to 65536");
            return Err(Error::damaged(path, manifest::MANIFEST_FILE, why));
        }
        let codecs = [
            (
                "the tiles are",
                &manifest.tiles.compression,
                &[tilecode::GAP_SVB][..],
            ),
            (
                "the adjacency is",
                &manifest.csr.compression,
                &[csrcode::SVB, csrcode::HUFF][..],
            ),
        ];
        for (what, coded, known) in codecs {
            if let Some(c) = coded.as_deref().filter(|c| !known.contains(c)) {
                return Err(Error::store(
                    path,
                    format!("{what} coded as `{c}`, which this build of outcore does not read"),
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
        // A file listed that the manifest's own flags do not call for: the
        // manifest was damaged (a flag read as absent would be a wrong answer).
        if let Some(extra) = manifest.files.keys().find(|f| !required.contains(f)) {
            let why = format!("it lists {extra}, which a store of its shape does not have");
            return Err(Error::damaged(path, manifest::MANIFEST_FILE, why));
        }
        let view = delta::check_open(path, root, &manifest)?.map(Box::new);
        Ok(Store {
            path: path.to_path_buf(),
            pin,
            base: manifest,
            view,
            _generation: generation.map(Arc::new),
            degrees: Arc::default(),
        })
    }

    /// The store directory, as it was opened (for messages; its files are
    /// opened under [`Store::root`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory this store opened, wherever it is now: the path to
    /// open its files under (`/proc/self/fd/N`), valid while the store is.
    pub fn root(&self) -> &Path {
        self.pin.root()
    }

    /// The manifest of the graph the store holds: with a delta, the view
    /// (counts of base + delta, [`delta`]); else the manifest on disk.
    pub fn manifest(&self) -> &Manifest {
        self.view.as_deref().unwrap_or(&self.base)
    }

    /// The manifest of the base files, as on disk: what sizes and lists
    /// them (the same as [`Store::manifest`] without a delta).
    pub fn base(&self) -> &Manifest {
        &self.base
    }

    /// Path of a store file, in the directory this store opened: valid
    /// while this store (or a clone) is open.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// The adjacency file of CSR direction `which` ("out" or "in"), as
    /// the store holds it: `csr/{which}.adz` when its pages are coded,
    /// else `csr/{which}.adj`.
    pub fn adjacency_file(&self, which: &str) -> String {
        match self.base.csr.compression {
            Some(_) => csrcode::files(which).0,
            None => csr::files(which).0,
        }
    }

    /// Opens store file `rel` in `reader` for direct reads (`role`: what
    /// it holds, for errors) and checks that it still has the length the
    /// manifest records, so that the reader's reads, which must find every
    /// byte up to that length, never take a file cut short for a shorter
    /// one ([`crate::io::Reader::wait`]).
    pub fn open_in(&self, reader: &mut Reader, rel: &str, role: &'static str) -> Result<usize> {
        let f = reader.open(&self.file(rel), role)?;
        match self.base.files.get(rel) {
            Some(e) if e.bytes != reader.file_len(f) => {
                let why = format!(
                    "{} bytes, the manifest says {}",
                    reader.file_len(f),
                    e.bytes
                );
                Err(Error::damaged(&self.path, rel, why))
            }
            _ => Ok(f),
        }
    }

    /// Reads a u32 file holding one value per vertex.
    pub(crate) fn read_u32s(&self, rel: &str) -> Result<Vec<u32>> {
        let n = self.base.num_vertices;
        let mut out = Vec::with_capacity(n as usize);
        file::read_chunks(&self.file(rel), 4, |b| {
            out.extend(
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
            );
            Ok(())
        })?;
        if out.len() as u64 != n || out.iter().any(|&x| x as u64 >= n) {
            let why = format!("it does not hold one id below {n} per vertex");
            return Err(Error::damaged(&self.path, rel, why));
        }
        Ok(out)
    }
}

pub use ids::{parse_name, Id, IdFiles, IdLookup, OriginalIds};
pub use ranks::RankStream;

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
        let mut csr = match m.csr.compression {
            Some(_) => {
                let (adz, pgi) = csrcode::files(d);
                vec![adz, pgi, o]
            }
            None => vec![a, o],
        };
        if m.weighted {
            csr.push(w);
        }
        if m.csr.page_sums {
            csr.extend(csr.clone().iter().map(|f| pagesums::sums_file(f)));
        }
        v.extend(csr);
        v.extend([dc, dov]);
    }
    if m.weighted {
        v.push(tiles::WEIGHTS_FILE.into());
    }
    if m.has_id_map {
        v.push(IDS_FILE.into());
    }
    if m.string_ids {
        v.push(IDS_STR_FILE.into());
        v.push(IDS_OFF_FILE.into());
    }
    if m.string_ids && m.name_page_sums {
        v.push(pagesums::sums_file(IDS_STR_FILE));
        v.push(pagesums::sums_file(IDS_OFF_FILE));
    }
    if m.has_order_map {
        v.push(ORDER_FILE.into());
        v.push(ORDER_INV_FILE.into());
    }
    v
}
