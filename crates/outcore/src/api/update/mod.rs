//! `outcore update`: adds and removes edges of a store, and the result is
//! the store an import of the updated edge list would build.
//!
//! An update lands in the store's delta by default ([`update_delta`],
//! `crate::ingest::update`), and the delta is merged into a new base once
//! it passes a fraction of the base ([`policy`]: [`update_with_policy`],
//! `--compact-at`, `--no-compact`). The rewrite ([`update`], and
//! [`compact`], the rewrite of an empty update) is the other backend:
//! the base's edges (in original ids,
//! from its out-CSR), less the removed ones, then the added edges in their
//! input order, go through the one build path ([`super::build`]) with the
//! store's own options (direction, weights, order, layout, page size), into
//! a directory beside the store that replaces it atomically. So an update is
//! crash-safe (a kill leaves the store before or after it), every engine
//! reads the result unchanged, and the result equals a rebuild by
//! construction. It costs about what a binary import costs, which is why a
//! small update goes to the delta.
//!
//! Semantics, as NetworkX's `add_edges_from` / `remove_edges_from`:
//! removals apply to the base, then additions; an added edge that exists
//! replaces its weight (the last occurrence wins); removing an edge that is
//! not there is counted, not an error; vertices stay when they lose their
//! last edge; new ids in added edges become new vertices. In an undirected
//! store an edge is removed whichever way round it is named.

use crate::error::{Error, IoContext, Result};
use crate::ingest::build::{BuildOptions, BuildReport, MIN_MEMORY};
use crate::ingest::parse::{IdKind, InputFormat, ParseOptions};
use crate::ingest::update::{DeltaOptions, DeltaReport};
use crate::ingest::EdgeSource;
use crate::size::format_size;
use crate::store::manifest::{Manifest, MANIFEST_FILE};
use crate::store::Store;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub mod policy;
mod source;
pub use policy::{update_with_policy, Compaction, DeltaSize, PolicyReport};
use source::{Removals, UpdateSource};

/// How to update.
#[derive(Clone, Debug)]
pub struct UpdateOptions {
    /// The memory budget in bytes, for the whole update.
    pub memory: u64,
    /// Where the build's sorted runs go (default: beside the store).
    pub scratch_dir: Option<PathBuf>,
}

/// What an update did.
#[derive(Debug)]
pub struct UpdateReport {
    /// The rebuilt store's report.
    pub build: BuildReport,
    pub vertices_before: u64,
    pub edges_before: u64,
    /// Distinct edges asked to be removed, and how many of them the store
    /// did not hold.
    pub removals: u64,
    pub removals_absent: u64,
    /// Edges read from the additions (duplicates and edges already held
    /// included).
    pub additions_read: u64,
}

impl UpdateReport {
    /// Edges removed.
    pub fn removed(&self) -> u64 {
        self.removals - self.removals_absent
    }

    /// One line for stderr.
    pub fn line(&self) -> String {
        let m = &self.build.manifest;
        format!(
            "updated {}: removed {} edges ({} asked for were absent), read {} added edges; \
             {} -> {} vertices, {} -> {} edges, in {:.2} s",
            self.build.path.display(),
            self.removed(),
            self.removals_absent,
            self.additions_read,
            self.vertices_before,
            m.num_vertices,
            self.edges_before,
            m.num_edges,
            self.build.seconds,
        )
    }
}

/// A store held for an update ([`open`]): the store, and the lock that
/// keeps other updates out until this one's store is in place.
pub struct Locked {
    store: Store,
    _lock: std::fs::File,
}

impl Locked {
    /// The store to update.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

/// Opens the store at `path` for an update: with an exclusive `flock` on
/// its manifest, so a second update waits, then reads what the first
/// wrote (the store is opened again when it was replaced while waiting).
/// Readers pin the directory itself (a shared lock, [`crate::store`]),
/// which this leaves free: updates, and only they, exclude each other.
pub fn open(path: &Path) -> Result<Locked> {
    lock(path, Store::open_with_delta)
}

/// [`open`] for an update into the delta ([`update_delta`]): the store
/// may have a delta already.
pub fn open_with_delta(path: &Path) -> Result<Locked> {
    lock(path, Store::open_with_delta)
}

/// Opens with `open` and locks; opens again when the store changed while
/// this waited (replaced by a rewrite, or given a new delta generation:
/// its manifest is then another file and another text).
fn lock(path: &Path, open: fn(&Path) -> Result<Store>) -> Result<Locked> {
    loop {
        let store = open(path)?;
        let m = store.file(MANIFEST_FILE);
        let lock = std::fs::File::open(&m).at(&m)?;
        crate::stale::flock(&lock, libc::LOCK_EX).at(&m)?;
        let (held, now) = (
            std::fs::metadata(store.root()).at(path)?,
            std::fs::metadata(path).at(path)?,
        );
        let same_dir = (held.dev(), held.ino()) == (now.dev(), now.ino());
        if same_dir && Manifest::read(path)? == *store.base() {
            return Ok(Locked { store, _lock: lock });
        }
    }
}

/// Updates `target` ([`open_with_delta`]) into its delta: the next
/// generation holds the removals of `removes`, then the additions of
/// `adds` ([`crate::ingest::update`]), whatever the delta's size
/// ([`update_with_policy`] applies the compaction policy).
pub fn update_delta(
    target: Locked,
    adds: Vec<Box<dyn EdgeSource>>,
    removes: Vec<Box<dyn EdgeSource>>,
    opts: &UpdateOptions,
) -> Result<DeltaReport> {
    let Locked { store, _lock } = target;
    let dopts = DeltaOptions {
        memory: opts.memory,
        stop: None,
    };
    crate::ingest::update::update_delta(&store, adds, removes, &dopts)
}

/// One line for stderr about update `r` of the store at `path`.
pub fn delta_line(path: &Path, r: &DeltaReport) -> String {
    let c = &r.counts;
    format!(
        "updated {} into delta generation {} ({}): added {} edges, removed {} ({} removals \
         asked for were absent), reweighted {}, {} new vertices; {} -> {} vertices, {} -> {} \
         edges, in {:.2} s",
        path.display(),
        r.generation,
        format_size(r.delta_bytes),
        c.added,
        c.removed,
        c.removals_absent,
        c.reweighted,
        r.new_vertices,
        r.vertices_before,
        r.vertices,
        r.edges_before,
        r.edges,
        r.seconds,
    )
}

/// How to read edges for `store`: its id kind (the parser says so of ids
/// of the other kind), weights (for additions; `weighted: false` for
/// removals) and direction, with the text formats' `header`, `columns`
/// and `delimiter`.
pub fn edit_options(
    store: &Store,
    header: bool,
    columns: Option<String>,
    delimiter: Option<u8>,
) -> ParseOptions {
    let m = store.manifest();
    ParseOptions {
        weighted: m.weighted,
        header,
        columns,
        directed: m.directed,
        delimiter,
        ids: if m.string_ids {
            IdKind::String
        } else {
            IdKind::Int
        },
        allow_empty: true,
        store_ids: true,
    }
}

/// [`edit_options`] for the edges to remove: no weights, and of
/// `columns` only the source and target.
pub fn removal_options(popts: &ParseOptions) -> ParseOptions {
    let columns =
        (popts.columns.as_deref()).map(|c| c.split(',').take(2).collect::<Vec<_>>().join(","));
    ParseOptions {
        weighted: false,
        columns,
        ..popts.clone()
    }
}

/// Opens edge-list files to add or remove ([`super::open_inputs`]), with
/// [`edit_options`]; an empty list is no source.
pub fn open_edits(
    paths: &[PathBuf],
    format: Option<InputFormat>,
    popts: &ParseOptions,
) -> Result<Vec<Box<dyn EdgeSource>>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let (source, _, _) = super::open_inputs(paths, format, popts)?;
    Ok(vec![source])
}

/// Updates `target` ([`open`]): removes the edges of `removes`, then adds
/// those of `adds` (sources opened as for an import, with the store's id
/// kind: [`edit_options`], [`open_edits`]; see the module docs). A store
/// with a delta is read as its view (base + delta: the merged CSR and the
/// view's ids), so the rewrite folds the delta into the new base.
pub fn update(
    target: Locked,
    adds: Vec<Box<dyn EdgeSource>>,
    removes: Vec<Box<dyn EdgeSource>>,
    opts: &UpdateOptions,
) -> Result<UpdateReport> {
    let Locked { store, _lock } = target;
    let path = store.path().to_path_buf();
    let report = rewrite(store, adds, removes, opts)?;
    // The replaced store, which this update read (and so pinned) until
    // now, goes unless other readers still hold it.
    crate::store::file::clean_beside(&path);
    Ok(report)
}

/// Compacts `target` ([`open`]): the delta's generations merged into a
/// new base, written beside the store and swapped in atomically (the
/// rewrite of an empty update: the one build path, inside the budget;
/// readers of the old store keep it until they close). `None` when the
/// store has no delta: nothing is written.
pub fn compact(target: Locked, opts: &UpdateOptions) -> Result<Option<UpdateReport>> {
    if target.store().delta().is_none() {
        return Ok(None);
    }
    if crate::ingest::update::unsafe_switch() {
        // The kill tests' switch: a compaction that drops the old base's
        // tiles before its new base is in place (not atomic).
        let tiles = target.store().file("tiles");
        std::fs::remove_dir_all(&tiles).at(&tiles)?;
    }
    update(target, Vec::new(), Vec::new(), opts).map(Some)
}

fn rewrite(
    store: Store,
    adds: Vec<Box<dyn EdgeSource>>,
    removes: Vec<Box<dyn EdgeSource>>,
    opts: &UpdateOptions,
) -> Result<UpdateReport> {
    let path = store.path().to_path_buf();
    let path = path.as_path();
    let m = store.manifest().clone();
    for s in adds.iter().chain(&removes) {
        if s.string_ids() != m.string_ids {
            let (has, wants) = match m.string_ids {
                true => ("string", "integer"),
                false => ("integer", "string"),
            };
            return Err(Error::Invalid(format!(
                "{}: its vertex ids are {wants}s, but the store {} has {has} ids",
                s.describe(),
                path.display()
            )));
        }
    }
    // What the base's scan holds in memory: its id maps.
    let held: u64 = (m.files.iter())
        .filter(|(f, _)| f.starts_with("ids.") || f.starts_with("order."))
        .map(|(_, e)| e.bytes)
        .sum();
    let share = opts.memory.saturating_sub(held) / 2;
    let removals = Removals::read(removes, !m.directed, share)?;
    let left = (opts.memory)
        .saturating_sub(held)
        .saturating_sub(removals.bytes());
    if left < MIN_MEMORY {
        let need = held + removals.bytes() + MIN_MEMORY;
        return Err(Error::Budget(format!(
            "--memory {} is too small to update {}: its id maps ({}) and the removals ({}) \
             are held beside a rebuild that needs at least {}; give --memory {} or more",
            format_size(opts.memory),
            path.display(),
            format_size(held),
            format_size(removals.bytes()),
            format_size(MIN_MEMORY),
            format_size(need.next_multiple_of(1 << 20)),
        )));
    }
    let bopts = rebuild_options(&store, left, opts)?;
    let mut source = UpdateSource {
        store: &store,
        adds,
        removals,
        hits: 0,
        additions: 0,
    };
    let build = super::build(&mut source, path, &bopts)?;
    let removals = source.removals.set.len() as u64;
    Ok(UpdateReport {
        build,
        vertices_before: m.num_vertices,
        edges_before: m.num_edges,
        removals,
        removals_absent: removals - source.hits,
        additions_read: source.additions,
    })
}

/// The options the store was built with, as far as they shape its files.
fn rebuild_options(store: &Store, memory: u64, opts: &UpdateOptions) -> Result<BuildOptions> {
    Ok(BuildOptions {
        memory,
        scratch_dir: opts.scratch_dir.clone(),
        force: true,
        ..BuildOptions::shaped_like(store.manifest())
    })
}
