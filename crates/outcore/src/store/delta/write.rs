//! [`DeltaWriter`]: writes one delta generation and switches the store to
//! it atomically (an LSM-style flush of PartitionedVC's buffered
//! structural updates). The commit, of which only the last rename is the
//! switch:
//!
//! 1. `flock(EX)` on `STORE/.update.lock` (updates exclude each other);
//! 2. the files go to `delta/.gNNNNNN.outcore-tmp-PID`, each fsynced;
//! 3. that directory is fsynced and renamed to `delta/gNNNNNN`, `delta/`
//!    fsynced ([`StoreDir::commit_as`]);
//! 4. `manifest.json.partial` (base fields, the delta, version 3) is
//!    fsynced and renamed over `manifest.json`, the store fsynced.
//!
//! A kill before 4 leaves the store as it was; the next writer removes
//! the leftovers (a dead process's temporary directory, a generation no
//! manifest names). Older generations are left in place: removing them
//! waits for readers to pin generations.

use super::format::{
    self, generation_dir, lists_files, DeltaInfo, ListsInfo, DELTA_DIR, DELTA_FORMAT_VERSION,
    GENERATION_FILE, INS_FILE, NEW_IDS_FILE, NEW_OFF_FILE, NEW_STR_FILE, RANK_BLOCK_BITS,
};
use super::tiles::TileCollector;
use crate::error::{Error, IoContext, Result};
use crate::store::file::{DataWriter, StoreDir, WriteLe};
use crate::store::manifest::{Manifest, MANIFEST_FILE};
use crate::store::{Id, Store};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The update lock's file, inside the store (empty, not in the manifest).
pub const LOCK_FILE: &str = ".update.lock";

/// The counts of the view a generation describes (the lists' counts and
/// the vertices are the writer's own).
#[derive(Clone, Debug, Default)]
pub struct ViewCounts {
    pub num_edges: u64,
    pub num_self_loops: u64,
    pub max_out: u64,
    pub max_in: u64,
    pub added: u64,
    pub removed: u64,
}

/// Where [`DeltaWriter::stop`] leaves a generation: as a kill between the
/// commit's steps would (for tests of the crash safety).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The files written, the temporary directory not renamed (step 2).
    AfterFiles,
    /// The directory renamed to `delta/gN`, the manifest not (step 3).
    AfterRename,
}

/// Writes generation N+1 of a store's delta (see the module docs).
pub struct DeltaWriter {
    path: PathBuf,
    base: Manifest,
    generation: u64,
    n_view: u64,
    dir: StoreDir,
    lists: BTreeMap<String, ListsInfo>,
    new_ids: bool,
    _lock: File,
}

/// One direction's lists being written: vertices in increasing order.
pub struct ListsWriter {
    which: String,
    n: u64,
    bits: Vec<u64>,
    off: DataWriter,
    deg: DataWriter,
    rec: DataWriter,
    w: Option<DataWriter>,
    /// The `out` records grouped as tiles, written beside the lists.
    tiles: Option<TileCollector>,
    last: Option<u64>,
    info: ListsInfo,
}

impl DeltaWriter {
    /// Starts the next generation of `store` for a view of `n_view`
    /// vertices: takes the update lock, checks the store is still the one
    /// opened (else the caller's records would be against another base),
    /// removes what killed writers left.
    pub fn create(store: &Store, n_view: u64) -> Result<DeltaWriter> {
        let path = store.path().to_path_buf();
        let lock_path = path.join(LOCK_FILE);
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .at(&lock_path)?;
        crate::stale::flock(&lock, libc::LOCK_EX).at(&lock_path)?;
        let (held, now) = (
            std::fs::metadata(store.root()).at(&path)?,
            std::fs::metadata(&path).at(&path)?,
        );
        let on_disk = Manifest::read(&path)?;
        if (held.dev(), held.ino()) != (now.dev(), now.ino()) || &on_disk != store.base() {
            return Err(Error::Invalid(format!(
                "{}: the store changed since it was opened; open it again and retry the update",
                path.display()
            )));
        }
        let base = on_disk;
        let n_base = base.num_vertices;
        if n_view < n_base {
            return Err(Error::Invalid(format!(
                "a delta of {n_view} vertices for a base of {n_base}"
            )));
        }
        let generation = base.delta.as_ref().map_or(0, |d| d.generation) + 1;
        let deltas = path.join(DELTA_DIR);
        std::fs::create_dir_all(&deltas).at(&deltas)?;
        remove_orphans(&deltas, generation)?;
        let dir = StoreDir::create(&path.join(generation_dir(generation)), false)?;
        Ok(DeltaWriter {
            path,
            base,
            generation,
            n_view,
            dir,
            lists: BTreeMap::new(),
            new_ids: false,
            _lock: lock,
        })
    }

    /// The generation being written.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Bytes of the files written so far.
    pub fn bytes(&self) -> u64 {
        self.dir.files().values().map(|f| f.bytes).sum()
    }

    /// Starts direction `which`'s lists.
    pub fn lists(&mut self, which: &str) -> Result<ListsWriter> {
        if !format::directions(&self.base).contains(&which) || self.lists.contains_key(which) {
            return Err(Error::Invalid(format!(
                "delta lists `{which}` are not one of the store's directions, or written twice"
            )));
        }
        let [_, _, off, deg, rec, w] = lists_files(which);
        Ok(ListsWriter {
            which: which.to_string(),
            n: self.n_view,
            bits: vec![0; self.n_view.div_ceil(64) as usize],
            off: self.dir.paged_file(&off)?,
            deg: self.dir.paged_file(&deg)?,
            rec: self.dir.paged_file(&rec)?,
            w: match self.base.weighted {
                true => Some(self.dir.paged_file(&w)?),
                false => None,
            },
            tiles: (which == "out").then(|| TileCollector::new(!self.base.directed)),
            last: None,
            info: ListsInfo::default(),
        })
    }

    /// Finishes a direction's lists: the closing offset, the bits and
    /// their ranks.
    pub fn close_lists(&mut self, mut l: ListsWriter) -> Result<()> {
        let [bits, rnk, ..] = lists_files(&l.which);
        l.off.put_u64s(&[l.info.records])?;
        let mut b = self.dir.paged_file(&bits)?;
        b.put_u64s(&l.bits)?;
        self.dir.close(b)?;
        let per = (RANK_BLOCK_BITS / 64) as usize;
        let mut ranks = Vec::with_capacity(l.bits.len() / per + 2);
        let mut total = 0u64;
        for block in l.bits.chunks(per) {
            ranks.push(total);
            total += block.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        }
        ranks.push(total);
        let mut r = self.dir.paged_file(&rnk)?;
        r.put_u64s(&ranks)?;
        self.dir.close(r)?;
        if let Some(t) = l.tiles.take() {
            t.finish().write(&mut self.dir)?;
        }
        for w in [Some(l.off), Some(l.deg), Some(l.rec), l.w]
            .into_iter()
            .flatten()
        {
            self.dir.close(w)?;
        }
        self.lists.insert(l.which, l.info);
        Ok(())
    }

    /// Writes the original ids of the new vertices (dense `n_base..n'` in
    /// order) and where each falls among the base ranks: `ins`, by
    /// original id, (base ranks before it, its dense id).
    pub fn new_ids(&mut self, ids: &[Id<'_>], ins: &[(u64, u64)]) -> Result<()> {
        let new = self.n_view - self.base.num_vertices;
        if ids.len() as u64 != new || ins.len() as u64 != new || self.new_ids {
            return Err(Error::Invalid(format!(
                "{} new ids and {} insertions for {new} new vertices",
                ids.len(),
                ins.len()
            )));
        }
        let kind = |id: &Id<'_>| matches!(id, Id::Name(_)) == self.base.string_ids;
        if let Some(bad) = ids.iter().find(|id| !kind(id)) {
            return Err(Error::Invalid(format!(
                "new vertex {bad}: not an id of the store's kind"
            )));
        }
        if self.base.string_ids {
            let (mut s, mut o) = (
                self.dir.paged_file(NEW_STR_FILE)?,
                self.dir.paged_file(NEW_OFF_FILE)?,
            );
            for id in ids {
                o.put_u64s(&[s.position()])?;
                if let Id::Name(n) = id {
                    s.write_all(n)?;
                }
            }
            o.put_u64s(&[s.position()])?;
            self.dir.close(s)?;
            self.dir.close(o)?;
        } else {
            let mut f = self.dir.paged_file(NEW_IDS_FILE)?;
            let v: Vec<u64> = ids.iter().filter_map(|i| i.as_u64()).collect();
            f.put_u64s(&v)?;
            self.dir.close(f)?;
        }
        let mut f = self.dir.paged_file(INS_FILE)?;
        let flat: Vec<u64> = ins.iter().flat_map(|&(r, v)| [r, v]).collect();
        f.put_u64s(&flat)?;
        self.dir.close(f)?;
        self.new_ids = true;
        Ok(())
    }

    fn info(&self, c: &ViewCounts) -> Result<DeltaInfo> {
        let dirs = format::directions(&self.base);
        if dirs.iter().any(|d| !self.lists.contains_key(*d))
            || (self.n_view > self.base.num_vertices && !self.new_ids)
        {
            return Err(Error::Invalid(
                "a delta generation committed before its lists and new ids".into(),
            ));
        }
        Ok(DeltaInfo {
            generation: self.generation,
            num_vertices: self.n_view,
            num_edges: c.num_edges,
            num_self_loops: c.num_self_loops,
            max_out: c.max_out,
            max_in: c.max_in,
            added: c.added,
            removed: c.removed,
            lists: self.lists.clone(),
            files: self.dir.files().clone(),
        })
    }

    /// Commits the generation (steps 3 and 4): once this returns, the
    /// store opens with it; before, it opens as it was.
    pub fn commit(self, counts: ViewCounts) -> Result<()> {
        let info = self.info(&counts)?;
        let text = serde_json::to_string_pretty(&info).expect("delta info serialises");
        self.dir.commit_as(GENERATION_FILE, &text)?;
        crate::cancel::check()?;
        let mut m = self.base.clone();
        m.format_version = DELTA_FORMAT_VERSION;
        m.delta = Some(info);
        write_manifest(&self.path, &m.to_json())?;
        prune_generations(&self.path.join(DELTA_DIR), self.generation)
    }

    /// Leaves the generation as a kill at `at` would (tests of the
    /// crash safety): the lock is released, nothing is cleaned up.
    #[doc(hidden)]
    pub fn stop(self, at: Stop) -> Result<()> {
        let DeltaWriter { dir, _lock, .. } = self;
        match at {
            Stop::AfterFiles => std::mem::forget(dir),
            Stop::AfterRename => {
                dir.commit_as(GENERATION_FILE, "{}")?;
            }
        }
        drop(_lock);
        Ok(())
    }
}

impl ListsWriter {
    /// Appends vertex `v`'s records (sorted, distinct; `v` above the last
    /// vertex pushed), their weights in a weighted store, and its degree
    /// in the view.
    pub fn push(&mut self, v: u64, recs: &[u64], weights: &[f64], degree: u64) -> Result<()> {
        let sorted = recs.windows(2).all(|p| p[0] < p[1]);
        let weighted = self.w.is_some();
        if v >= self.n
            || self.last.is_some_and(|l| l >= v)
            || recs.is_empty()
            || !sorted
            || recs.iter().any(|&r| format::nbr(r) >= self.n)
            || (weighted && weights.len() != recs.len())
        {
            return Err(Error::Invalid(format!(
                "delta lists `{}`: vertex {v}'s records are out of order, out of range or unweighted",
                self.which
            )));
        }
        self.off.put_u64s(&[self.info.records])?;
        self.deg.put_u64s(&[degree])?;
        self.rec.put_u64s(recs)?;
        if let Some(w) = &mut self.w {
            w.put_f64s(weights)?;
        }
        if let Some(t) = &mut self.tiles {
            t.push(v, recs);
        }
        self.bits[(v / 64) as usize] |= 1 << (v % 64);
        self.last = Some(v);
        self.info.touched += 1;
        self.info.records += recs.len() as u64;
        Ok(())
    }
}

/// Removes, under the update lock, what killed writers left in `delta/`:
/// temporary directories of dead processes ([`StoreDir::create`] does
/// that beside its own), and generations from `next` on, which no
/// manifest names (a kill between steps 3 and 4).
fn remove_orphans(deltas: &Path, next: u64) -> Result<()> {
    for (g, p) in generations(deltas)? {
        if g >= next {
            std::fs::remove_dir_all(&p).at(&p)?;
        }
    }
    Ok(())
}

/// The generation directories in `deltas` (`gNNNNNN`): number and path.
fn generations(deltas: &Path) -> Result<Vec<(u64, std::path::PathBuf)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(deltas).at(deltas)? {
        let e = e.at(deltas)?;
        let name = e.file_name();
        let g = name
            .to_str()
            .and_then(|n| n.strip_prefix('g'))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(g) = g {
            out.push((g, e.path()));
        }
    }
    Ok(out)
}

/// Removes the generations before `current` that no reader pins (each
/// generation holds the whole delta, so they are superseded): a pinned
/// one stays for its readers, and the next update removes it.
pub(super) fn prune_generations(deltas: &Path, current: u64) -> Result<()> {
    if super::skip("prune") {
        return Ok(());
    }
    for (g, p) in generations(deltas)? {
        if g < current {
            crate::stale::remove_unpinned(&p)?;
        }
    }
    Ok(())
}

/// Step 4: the store's manifest replaced whole (written, fsynced, renamed,
/// the directory fsynced).
fn write_manifest(store: &Path, text: &str) -> Result<()> {
    let mpath = store.join(MANIFEST_FILE);
    let partial = store.join(format!("{MANIFEST_FILE}.partial"));
    {
        let mut f = File::create(&partial).at(&partial)?;
        f.write_all(text.as_bytes()).at(&partial)?;
        f.write_all(b"\n").at(&partial)?;
        f.sync_all().at(&partial)?;
    }
    std::fs::rename(&partial, &mpath).at(&mpath)?;
    File::open(store).and_then(|f| f.sync_all()).at(store)
}
