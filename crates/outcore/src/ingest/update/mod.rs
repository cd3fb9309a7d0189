//! An update written as the next generation of a store's delta (issue 53,
//! DESIGN.md "The delta"): an LSM-style flush of PartitionedVC's buffered
//! structural updates, beside a base that stays as it is.
//!
//! 1. [`batch`]: the removals and additions read from their sources (the
//!    import's parsers and id kinds), held in memory inside the budget;
//! 2. [`ids`]: the id join; new ids in additions become vertices
//!    `n_old..n'` in order of arrival;
//! 3. [`probe`]: the touched edges, their weights in the base (one
//!    sequential scan of its out-CSR) and in the previous view, counted,
//!    normalised against the base and merged with the old generation's
//!    records of the edges the batch did not touch;
//! 4. [`DeltaWriter`]: the records by vertex, each vertex's degree in the
//!    view, the new vertices' ids, committed atomically (a kill leaves the
//!    store before or after the update).
//!
//! Semantics are the rewrite's (`api::update`): removals, then additions,
//! the last occurrence winning; removing an edge the store lacks is
//! counted, not an error; vertices stay when they lose their last edge;
//! self-loops follow the store's build option.

pub mod batch;
pub mod ids;
pub mod probe;

pub use batch::KeyHash;
pub use probe::Counts;

use crate::error::{Error, IoContext, Result};
use crate::ingest::EdgeSource;
use crate::size::format_size;
use crate::store::degrees;
use crate::store::delta::format::{directions, is_tombstone, nbr};
use crate::store::delta::{DeltaLists, DeltaWriter, Stop, ViewCounts};
use crate::store::Store;
use probe::Rec;
use std::time::Instant;

/// How to update.
#[derive(Clone, Debug, Default)]
pub struct DeltaOptions {
    /// The memory budget in bytes, for the whole update.
    pub memory: u64,
    /// Leave the generation as a kill at this step would (tests).
    #[doc(hidden)]
    pub stop: Option<Stop>,
}

/// What an update did.
#[derive(Clone, Debug, Default)]
pub struct DeltaReport {
    /// The generation written.
    pub generation: u64,
    pub vertices_before: u64,
    pub edges_before: u64,
    pub vertices: u64,
    pub edges: u64,
    /// Edges read from the additions and the removals.
    pub additions_read: u64,
    pub removals_read: u64,
    pub counts: Counts,
    /// Vertices this update added.
    pub new_vertices: u64,
    /// Records (additions and tombstones) of the delta, over its
    /// directions, and its bytes on disk.
    pub records: u64,
    pub delta_bytes: u64,
    pub seconds: f64,
}

/// Bytes held per touched edge and per record.
const TOUCHED_BYTES: u64 = std::mem::size_of::<probe::Touched>() as u64 + 16;
const REC_BYTES: u64 = std::mem::size_of::<Rec>() as u64;

/// An update the delta cannot take inside the budget: its batch (the
/// edges and ids read, then the touched edges and records) passed the
/// share of `--memory` the delta path holds in memory. Nothing was
/// written; the sources can be read again from their start
/// ([`EdgeSource`]: files are reopened, streams replay their spill), so
/// the caller may rewrite the store instead, which holds only removals.
#[derive(Debug)]
pub struct TooBig {
    /// The error for a caller that cannot rewrite (it names the remedies).
    pub error: Error,
    /// Why, in a clause: "the update needs more than ...".
    pub why: String,
}

impl From<TooBig> for Error {
    fn from(t: TooBig) -> Error {
        t.error
    }
}

/// Applies `removes`, then `adds`, to `store` (opened with its delta,
/// [`Store::open_with_delta`]) as its next delta generation (see the
/// module docs). The caller excludes other updates of the store. An update
/// larger than the budget holds is an [`Error::Budget`]
/// ([`try_update_delta`] tells it apart).
pub fn update_delta(
    store: &Store,
    mut adds: Vec<Box<dyn EdgeSource>>,
    mut removes: Vec<Box<dyn EdgeSource>>,
    opts: &DeltaOptions,
) -> Result<DeltaReport> {
    Ok(try_update_delta(store, &mut adds, &mut removes, opts)??)
}

/// [`update_delta`], with an update larger than the budget holds returned
/// as [`TooBig`] (nothing written) and the sources left to the caller.
pub fn try_update_delta(
    store: &Store,
    adds: &mut [Box<dyn EdgeSource>],
    removes: &mut [Box<dyn EdgeSource>],
    opts: &DeltaOptions,
) -> Result<std::result::Result<DeltaReport, TooBig>> {
    let t0 = Instant::now();
    let (m, view) = (store.base(), store.manifest());
    let mut r = DeltaReport {
        vertices_before: view.num_vertices,
        edges_before: view.num_edges,
        ..Default::default()
    };
    // The base's id maps and the old generation's lists are held whole.
    let held: u64 = (m.files.iter())
        .filter(|(f, _)| f.starts_with("ids.") || f.starts_with("order."))
        .map(|(_, e)| e.bytes)
        .sum::<u64>()
        + store
            .delta()
            .map_or(0, |d| d.files.values().map(|f| f.bytes).sum());
    let left = opts.memory.saturating_sub(held);
    let mut b = batch::Batch::new(left / 3);
    let sources =
        (removes.iter_mut().map(|s| (s, false))).chain(adds.iter_mut().map(|s| (s, true)));
    for (s, add) in sources {
        match b.read(s.as_mut(), add, m.string_ids) {
            Ok(n) if add => r.additions_read += n,
            Ok(n) => r.removals_read += n,
            Err(error) if b.overflowed => {
                let why = format!(
                    "the update's edges and ids read so far need more than the {} of --memory {} \
                     the delta's batch may hold",
                    format_size(left / 3),
                    format_size(opts.memory)
                );
                return Ok(Err(TooBig { error, why }));
            }
            Err(e) => return Err(e),
        }
    }
    crate::cancel::check()?;
    let ids = store.load_base_ids()?;
    let j = ids::join(store, &ids, &b)?;
    drop(ids);
    let (mut touched, mut c) = probe::touched(store, &b, &j);
    let ops = b.removes.len() + b.adds.len();
    let need = b.bytes() + touched.len() as u64 * TOUCHED_BYTES + ops as u64 * 32;
    if need > left {
        return Ok(Err(too_big(opts.memory, held, need)));
    }
    let old: Vec<Option<DeltaLists>> = (directions(m).iter())
        .map(|w| DeltaLists::load(store, w))
        .collect::<Result<_>>()?;
    probe::probe(store, &old, &mut touched, &mut c)?;
    crate::cancel::check()?;
    let recs = probe::records(store, &old, &touched);
    drop(old);
    let n_recs: u64 = recs.iter().map(|v| v.len() as u64).sum();
    // The out records are also collected as tiles, written beside them.
    let tiles = recs[0].len() as u64 * crate::store::delta::tiles::COLLECT_BYTES;
    let need = b.bytes() + touched.len() as u64 * TOUCHED_BYTES + n_recs * REC_BYTES + tiles;
    if need > left {
        return Ok(Err(too_big(opts.memory, held, need)));
    }
    drop(touched);
    r.new_vertices = j.new_vertices;
    r.counts = c;
    r.records = n_recs;
    let counts = write(store, &j, recs, opts.stop, &mut r)?;
    r.vertices = j.n_view;
    r.edges = counts.num_edges;
    r.seconds = t0.elapsed().as_secs_f64();
    Ok(Ok(r))
}

/// `OUTCORE_UPDATE_UNSAFE=drop-first` (tests of the crash safety, all
/// builds): an update into the delta removes the old generation, and a
/// compaction the old base's tiles (`api::update::compact`), before the
/// new one is committed, so a kill in between leaves a broken store and
/// the kill tests go red.
pub fn unsafe_switch() -> bool {
    std::env::var("OUTCORE_UPDATE_UNSAFE").is_ok_and(|v| v == "drop-first")
}

fn too_big(memory: u64, held: u64, need: u64) -> TooBig {
    let why = format!(
        "the update's edges, touched edges and records ({}) need more than --memory {} \
         leaves beside the store's id maps and delta ({})",
        format_size(need),
        format_size(memory),
        format_size(held)
    );
    let error = Error::Budget(format!(
        "--memory {} is too small for this update into the delta: the store's id maps and \
         delta ({}) and the update's edges ({}) are held in memory; split the update, raise \
         --memory to {} or more, or let the update rewrite the \
         store (without --no-compact it does so by itself; `outcore update --rewrite`; \
         Python: compact=True)",
        format_size(memory),
        format_size(held),
        format_size(need),
        format_size((held + 3 * need).next_multiple_of(1 << 20)),
    ));
    TooBig { error, why }
}

/// A vertex's records in a sorted direction: `recs[a..b]`, and its degree
/// in the view once the base's is known.
struct Group {
    v: u64,
    a: usize,
    b: usize,
    degree: u64,
}

/// Sorts `recs` by vertex and record; groups them; sets each group's
/// degree (the base's, plus additions, less tombstones) and returns the
/// largest degree of the view in that direction.
fn groups(store: &Store, which: &str, recs: &mut [Rec]) -> Result<(Vec<Group>, u64)> {
    recs.sort_unstable_by_key(|r| (r.0, r.1));
    let mut g: Vec<Group> = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if g.last().is_none_or(|l| l.v != r.0) {
            g.push(Group {
                v: r.0,
                a: i,
                b: i,
                degree: 0,
            });
        }
        g.last_mut().expect("pushed").b = i + 1;
    }
    let mut max = 0u64;
    let mut k = 0usize;
    let delta = |g: &Group| -> i64 {
        recs[g.a..g.b]
            .iter()
            .map(|r| if is_tombstone(r.1) { -1 } else { 1 })
            .sum()
    };
    degrees::for_each(store.root(), which, |v, d| {
        if k < g.len() && g[k].v == v {
            g[k].degree = (d as i64 + delta(&g[k])) as u64;
            max = max.max(g[k].degree);
            k += 1;
        } else {
            max = max.max(d);
        }
        Ok(())
    })?;
    // Vertices past the base have no base degree.
    for x in &mut g[k..] {
        x.degree = delta(x) as u64;
        max = max.max(x.degree);
    }
    Ok((g, max))
}

/// Writes and commits the generation; returns the view's counts.
fn write(
    store: &Store,
    j: &ids::Joined,
    mut recs: Vec<Vec<Rec>>,
    stop: Option<Stop>,
    r: &mut DeltaReport,
) -> Result<ViewCounts> {
    let m = store.base();
    let mut c = ViewCounts {
        num_edges: m.num_edges,
        num_self_loops: m.num_self_loops,
        ..Default::default()
    };
    // Edges the view adds and drops: each key once, in the out lists.
    for &(v, x, _) in &recs[0] {
        let u = nbr(x);
        if m.directed || v <= u {
            match is_tombstone(x) {
                true => c.removed += 1,
                false => c.added += 1,
            }
            if v == u {
                match is_tombstone(x) {
                    true => c.num_self_loops -= 1,
                    false => c.num_self_loops += 1,
                }
            }
        }
    }
    c.num_edges = c.num_edges + c.added - c.removed;
    if let (true, Some(d)) = (unsafe_switch(), store.delta()) {
        // The kill tests' switch: the old generation goes first.
        let old = store.file(&crate::store::delta::format::generation_dir(d.generation));
        std::fs::remove_dir_all(&old).at(&old)?;
    }
    let mut w = DeltaWriter::create(store, j.n_view)?;
    r.generation = w.generation();
    for (i, which) in directions(m).iter().enumerate() {
        let (g, max) = groups(store, which, &mut recs[i])?;
        match i {
            0 => c.max_out = max,
            _ => c.max_in = max,
        }
        let mut l = w.lists(which)?;
        let (mut xs, mut ws) = (Vec::new(), Vec::new());
        for x in &g {
            xs.clear();
            ws.clear();
            xs.extend(recs[i][x.a..x.b].iter().map(|r| r.1));
            ws.extend(recs[i][x.a..x.b].iter().map(|r| r.2));
            l.push(x.v, &xs, &ws, x.degree)?;
        }
        w.close_lists(l)?;
        crate::cancel::check()?;
    }
    if !m.directed {
        c.max_in = c.max_out;
    }
    if j.n_view > m.num_vertices {
        w.new_ids(&j.new_ids, &j.ins)?;
    }
    r.delta_bytes = w.bytes();
    match stop {
        None => w.commit(c.clone())?,
        Some(at) => w.stop(at)?,
    }
    Ok(c)
}
