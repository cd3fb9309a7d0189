//! `outcore update`: adds and removes edges of a store, and the result is
//! the store an import of the updated edge list would build.
//!
//! This first form rewrites the store: the base's edges (in original ids,
//! from its out-CSR), less the removed ones, then the added edges in their
//! input order, go through the one build path ([`build_store`]) with the
//! store's own options (direction, weights, order, layout, page size), into
//! a directory beside the store that replaces it atomically. So an update is
//! crash-safe (a kill leaves the store before or after it), every engine
//! reads the result unchanged, and the result equals a rebuild by
//! construction. It costs about what a binary import costs; a delta layer
//! beside the base (issue 53) is what will make a small update cost
//! little, behind this same interface.
//!
//! Semantics, as NetworkX's `add_edges_from` / `remove_edges_from`:
//! removals apply to the base, then additions; an added edge that exists
//! replaces its weight (the last occurrence wins); removing an edge that is
//! not there is counted, not an error; vertices stay when they lose their
//! last edge; new ids in added edges become new vertices. In an undirected
//! store an edge is removed whichever way round it is named.

use crate::error::{Error, Result};
use crate::ingest::build::{build_store, BuildOptions, BuildReport, MIN_MEMORY};
use crate::ingest::names::fingerprint;
use crate::ingest::parse::named::Namer;
use crate::ingest::parse::{IdKind, InputFormat, ParseOptions};
use crate::ingest::{EdgeSource, NamedBatch, NamedEdge, RawEdge};
use crate::size::format_size;
use crate::store::export::{for_each_edge, Layout};
use crate::store::{csrcode, Id, Store};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Bytes a removal takes in memory (a pair of 128-bit keys in a hash set,
/// with the table's slack).
const REMOVAL_BYTES: u64 = 48;
/// Edges (or vertices) handed to the build in one batch.
const BATCH: usize = 1 << 16;

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

/// How to read edges for the store at `path`: its id kind, weights (for
/// additions; `weighted: false` for removals) and direction, with the
/// text formats' `header`, `columns` and `delimiter`.
pub fn edit_options(
    path: &Path,
    header: bool,
    columns: Option<String>,
    delimiter: Option<u8>,
) -> Result<ParseOptions> {
    let m = Store::open(path)?.manifest().clone();
    Ok(ParseOptions {
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
    })
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
    let strings = popts.ids == IdKind::String;
    let (source, _, _) =
        super::open_inputs(paths, format, popts).map_err(|e| in_store_terms(e, strings))?;
    Ok(vec![source])
}

/// An input's error in an update's terms: the store fixes the id kind, so
/// the parser's advice to read ids of the other kind (`--ids string`,
/// `ids="string"`) becomes what the store holds.
pub fn in_store_terms(e: Error, strings: bool) -> Error {
    let held = match strings {
        true => "this store's vertex ids are strings",
        false => "this store's vertex ids are integers: an update gives ids of the same kind",
    };
    let fix = |t: &str| {
        (t.replace("vertex ids that are not integers? pass --ids string", held))
            .replace("read them with --ids string or auto", held)
    };
    match e {
        Error::Parse {
            path,
            line,
            text,
            expected,
        } => Error::Parse {
            path,
            line,
            text,
            expected: fix(&expected),
        },
        Error::Invalid(m) => Error::Invalid(fix(&m)),
        e => e,
    }
}

/// Updates the store at `path`: removes the edges of `removes`, then adds
/// those of `adds` (sources opened as for an import, with the store's id
/// kind: [`edit_options`], [`open_edits`]; see the module docs).
pub fn update(
    path: &Path,
    adds: Vec<Box<dyn EdgeSource>>,
    removes: Vec<Box<dyn EdgeSource>>,
    opts: &UpdateOptions,
) -> Result<UpdateReport> {
    let store = Store::open(path)?;
    let strings = store.manifest().string_ids;
    rewrite(store, adds, removes, opts).map_err(|e| in_store_terms(e, strings))
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
    let build = build_store(&mut source, path, &bopts)?;
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
    let m = store.manifest();
    Ok(BuildOptions {
        directed: m.directed,
        weighted: m.weighted,
        drop_self_loops: m.build.drop_self_loops,
        memory,
        scratch_dir: opts.scratch_dir.clone(),
        force: true,
        group_tiles: m.tiles.group_tiles,
        page_bytes: m.csr.page_bytes,
        format: m.build.format.clone(),
        order: m.vertex_order,
        order_auto: false,
        compress: m.tiles.compression.is_some(),
        csr_code: match m.csr.compression.as_deref() {
            Some(csrcode::HUFF) => csrcode::Code::Small,
            _ => csrcode::Code::Fast,
        },
        csr_id_bytes: m.csr.id_bytes,
        ..BuildOptions::default()
    })
}

/// The edges to remove, as keys ([`key`]), held in memory.
struct Removals {
    set: HashSet<(u128, u128)>,
    undirected: bool,
}

impl Removals {
    fn read(sources: Vec<Box<dyn EdgeSource>>, undirected: bool, share: u64) -> Result<Removals> {
        let mut r = Removals {
            set: HashSet::new(),
            undirected,
        };
        for mut s in sources {
            let what = s.describe();
            let add = |set: &mut HashSet<_>, k| {
                set.insert(k);
                if set.len() as u64 * REMOVAL_BYTES > share {
                    return Err(Error::Invalid(format!(
                        "{what}: more edges to remove than {} holds ({} edges); \
                         remove them in several updates or raise --memory",
                        format_size(share),
                        set.len()
                    )));
                }
                Ok(())
            };
            if s.string_ids() {
                s.for_each_named_batch(&mut |b| {
                    (b.edges.iter())
                        .try_for_each(|e| add(&mut r.set, key(undirected, e.src, e.dst)))
                })?;
            } else {
                s.for_each_edge_batch(&mut |b| {
                    (b.iter()).try_for_each(|e| {
                        add(&mut r.set, key(undirected, e.src as u128, e.dst as u128))
                    })
                })?;
            }
        }
        Ok(r)
    }

    fn bytes(&self) -> u64 {
        self.set.len() as u64 * REMOVAL_BYTES
    }

    fn contains(&self, s: u128, d: u128) -> bool {
        !self.set.is_empty() && self.set.contains(&key(self.undirected, s, d))
    }
}

/// An edge's key: its ids (integers, or names' fingerprints), smaller
/// first when undirected.
fn key(undirected: bool, s: u128, d: u128) -> (u128, u128) {
    if undirected && d < s {
        (d, s)
    } else {
        (s, d)
    }
}

/// The updated edge list: the base's vertices, its edges less the removed
/// ones, then the additions.
struct UpdateSource<'a> {
    store: &'a Store,
    adds: Vec<Box<dyn EdgeSource>>,
    removals: Removals,
    /// Removals found in the base, and additions read (of the last pass).
    hits: u64,
    additions: u64,
}

impl UpdateSource<'_> {
    fn int(id: &Id<'_>) -> u64 {
        id.as_u64().unwrap_or_default()
    }
}

impl EdgeSource for UpdateSource<'_> {
    fn describe(&self) -> String {
        let adds: Vec<String> = self.adds.iter().map(|a| a.describe()).collect();
        format!(
            "{} updated with {}",
            self.store.path().display(),
            adds.join(", ")
        )
    }

    fn expected_edges(&self) -> Option<u64> {
        let adds: u64 = (self.adds.iter()).filter_map(|a| a.expected_edges()).sum();
        Some(self.store.manifest().num_edges + adds)
    }

    fn string_ids(&self) -> bool {
        self.store.manifest().string_ids
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        let ids = self.store.load_ids()?;
        let n = self.store.manifest().num_vertices;
        let mut batch = Vec::with_capacity(BATCH);
        for v in 0..n {
            batch.push(Self::int(&ids.get(v)));
            if batch.len() == BATCH {
                f(&batch)?;
                batch.clear();
            }
        }
        f(&batch)
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        let (removals, mut hits) = (&self.removals, 0);
        let mut batch = Vec::with_capacity(BATCH);
        for_each_edge(self.store, Layout::Csr, false, |s, d, weight| {
            let (src, dst) = (Self::int(&s), Self::int(&d));
            if removals.contains(src as u128, dst as u128) {
                hits += 1;
                return Ok(());
            }
            batch.push(RawEdge { src, dst, weight });
            if batch.len() == BATCH {
                f(&batch)?;
                batch.clear();
            }
            Ok(())
        })?;
        f(&batch)?;
        self.hits = hits;
        self.additions = 0;
        for a in &mut self.adds {
            a.for_each_edge_batch(&mut |b| {
                self.additions += b.len() as u64;
                f(b)
            })?;
        }
        Ok(())
    }

    fn for_each_named_batch(&mut self, f: &mut dyn FnMut(&NamedBatch) -> Result<()>) -> Result<()> {
        let what = self.store.path().to_path_buf();
        let named = |namer: &mut Namer, id: &Id<'_>| -> Result<u128> {
            let Id::Name(n) = id else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            (namer.name(n)).map_err(|_| Error::damaged(&what, "ids.str", "a name that is not text"))
        };
        // The base's vertices, on their own first.
        let ids = self.store.load_ids()?;
        let n = self.store.manifest().num_vertices;
        let mut namer = Namer::default();
        for v in 0..n {
            let fp = named(&mut namer, &ids.get(v))?;
            namer.batch.vertices.push(fp);
            if namer.batch.vertices.len() == BATCH {
                f(&std::mem::take(&mut namer).batch)?;
            }
        }
        f(&std::mem::take(&mut namer).batch)?;
        drop(ids);
        let (removals, mut hits) = (&self.removals, 0);
        for_each_edge(self.store, Layout::Csr, false, |s, d, weight| {
            let Id::Name(sn) = &s else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            let Id::Name(dn) = &d else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            if removals.contains(fingerprint(sn), fingerprint(dn)) {
                hits += 1;
                return Ok(());
            }
            let (src, dst) = (named(&mut namer, &s)?, named(&mut namer, &d)?);
            namer.batch.edges.push(NamedEdge { src, dst, weight });
            if namer.batch.edges.len() == BATCH {
                f(&std::mem::take(&mut namer).batch)?;
            }
            Ok(())
        })?;
        f(&std::mem::take(&mut namer).batch)?;
        self.hits = hits;
        self.additions = 0;
        for a in &mut self.adds {
            a.for_each_named_batch(&mut |b| {
                self.additions += b.edges.len() as u64;
                f(b)
            })?;
        }
        Ok(())
    }
}
