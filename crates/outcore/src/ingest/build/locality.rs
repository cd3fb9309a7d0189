//! The Cuthill-McKee vertex order (`--order bfs`): CEESOR's vertex
//! enumeration idea (§3, "Vertex Enumeration in CEESOR": number connected
//! vertices close together, so gaps between neighbour ids are small and code
//! short), done with breadth-first levels as Cuthill and McKee: a root gets
//! the first id, then each level's vertices take the next ids ordered by the
//! smallest id of a neighbour in the level before, ties by their id in the
//! first store. Edges count as undirected (CEESOR does the same).
//!
//! The levels are numbered on a first store built in the usual order
//! ([`super::cuthill_mckee`]); then the input is built again in the new order.
//!
//! `--order auto` with `--compress` builds the first store as auto says, then
//! keeps it unless the new order's gaps cost under [`GAIN`] of its own: the
//! bits of the gaps between sorted neighbour ids, as the CSR codes them,
//! summed over a scan of the first store's out-adjacency relabelled both
//! ways ([`gap_bits`]). What counts is the adjacency runs read; the order
//! maps (8 bytes a vertex, read to write results in original ids) do not.
//! (The sum of log2 |id(u) - id(v)| over the edges, tried first, ranked a
//! row-major grid's own order above Cuthill-McKee's, which codes 13-22%
//! smaller.) Auto considers the order only when the adjacency lists fit in
//! memory: out of core, numbering a graph without locality reads a page a
//! list (see `cuthill_mckee.rs`).

use super::cuthill_mckee::enumerate;
use super::{build_with, BuildOptions, BuildReport, OrderMaps, VertexOrder};
use crate::engine::state::U32s;
use crate::error::{Error, IoContext, Result};
use crate::ingest::EdgeSource;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `--order auto --compress` switches to the Cuthill-McKee order when its
/// gaps cost below this fraction of the first order's.
pub const GAIN: f64 = 0.9;

/// Builds `dest` in the Cuthill-McKee order (or, auto, in the better of it
/// and auto's own choice).
pub(super) fn build(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport> {
    let start = Instant::now();
    let auto = opts.order != VertexOrder::Bfs;
    let budget = Budget::new(opts.memory);
    // Auto: the first order is auto's own; asked for: by degree, so roots
    // and ties go by degree (the budget must hold it, as for the degree order).
    let mut first = opts.clone();
    first.order = VertexOrder::Degree;
    first.order_auto = auto;
    // Asked for: the first store is a plain one in scratch. Auto: it is the
    // store asked for, kept unless the new order codes smaller.
    let mut scratch = None;
    let first_path = match auto {
        true => dest.to_path_buf(),
        false => {
            let base = match &opts.scratch_dir {
                Some(b) => b.clone(),
                None => dest
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            };
            // Refused now, not after the first build.
            if dest.exists() && !opts.force {
                return Err(Error::Invalid(format!(
                    "{} already exists; pass --force to replace it",
                    dest.display()
                )));
            }
            // `.NAME.outcore-first-PID`: a build killed outright leaves it,
            // and the next one on the same target removes it.
            let name = dest
                .file_name()
                .map_or_else(|| "store".into(), |n| n.to_string_lossy().into_owned());
            crate::stale::clean(&base, &name, "outcore-first");
            let pid = std::process::id();
            let dir = FirstDir(base.join(format!(".{name}.outcore-first-{pid}")));
            std::fs::create_dir_all(&dir.0).at(&dir.0)?;
            first.compress = false;
            first.force = true;
            let path = dir.0.join("store");
            scratch = Some(dir);
            path
        }
    };
    let r1 = build_with(source, &first_path, &first, &budget, &mut None).map_err(|e| match e {
        Error::Budget(m) if !auto => Error::Budget(format!(
            "--order bfs numbers a first store built by degree: {m}"
        )),
        e => e,
    })?;
    let t = Instant::now();
    let store = Store::open(&first_path)?;
    let found = match enumerate(&store, &budget, opts.bfs_lists_on_disk, auto) {
        Err(Error::Budget(m)) if auto => {
            Progress::new("vertex order")
                .done(|| format!("{m}; keeping the {} order", r1.manifest.vertex_order));
            None
        }
        r => Some(r?),
    };
    let keep = match (&found, auto) {
        (Some(ids), true) => {
            let m = &r1.manifest;
            let cost = gap_bits(&store, ids)?;
            let entries = cost.entries.max(1) as f64;
            let (a, b) = (cost.first as f64 / entries, cost.bfs as f64 / entries);
            // Tiles hold each edge once, the CSR both ends: 3 codes an edge.
            let per_edge = if m.directed { 3.0 } else { 1.5 };
            let saved = (a - b) * entries * per_edge / 8.0;
            let kind = m.vertex_order;
            let keep = b >= GAIN * a;
            Progress::new("vertex order").done(|| {
                format!(
                    "gaps cost {b:.2} bits an entry in bfs order, {a:.2} in {kind} order (about {} of adjacency saved): {}",
                    format_size(saved.max(0.0) as u64),
                    if keep { format!("keeping {kind}") } else { "building again in bfs order".into() }
                )
            });
            keep
        }
        (found, _) => found.is_none(),
    };
    let secs = t.elapsed().as_secs_f64();
    let mut phases = vec![("first build", r1.seconds), ("bfs order", secs)];
    let ids = match found {
        Some(ids) if !keep => ids,
        _ => {
            return Ok(BuildReport {
                seconds: start.elapsed().as_secs_f64(),
                phases,
                ..r1
            })
        }
    };
    let maps = compose(&store, ids, &budget)?;
    drop(store);
    drop(scratch);
    let mut second = opts.clone();
    second.order = VertexOrder::Bfs;
    second.force |= auto;
    let r2 = build_with(source, dest, &second, &budget, &mut Some(maps))?;
    phases.extend(r2.phases.iter().copied());
    Ok(BuildReport {
        seconds: start.elapsed().as_secs_f64(),
        phases,
        spilled_bytes: r1.spilled_bytes + r2.spilled_bytes,
        ..r2
    })
}

/// The first store's directory, removed on drop.
struct FirstDir(PathBuf);

impl Drop for FirstDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the gaps of the out-adjacency cost in bits, in the first store's
/// order and in the new one.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct GapCost {
    pub entries: u64,
    pub first: u64,
    pub bfs: u64,
}

/// Bits of a gap (at least one).
#[inline(always)]
fn bits(gap: u64) -> u64 {
    (u64::BITS - gap.leading_zeros()).max(1) as u64
}

/// The bits of a sorted list's gaps: the first from the vertex itself (as
/// CEESOR's first offset), then between neighbours.
fn list_bits(v: u64, list: &[u64]) -> u64 {
    let mut prev = v;
    let mut sum = 0;
    for (i, &u) in list.iter().enumerate() {
        sum += match i {
            0 => bits(u.abs_diff(prev)) + 1,
            _ => bits(u - prev),
        };
        prev = u;
    }
    sum
}

/// Scans the out-adjacency of `store` and sums the gap bits of every list
/// as it is and relabelled by `ids` (then sorted).
pub(super) fn gap_bits(store: &Store, ids: &U32s) -> Result<GapCost> {
    let mut cost = GapCost::default();
    let (mut list, mut relabelled) = (Vec::new(), Vec::new());
    let mut at = 0u64;
    let mut flush = |v: u64, list: &mut Vec<u64>, cost: &mut GapCost| {
        cost.entries += list.len() as u64;
        cost.first += list_bits(v, list);
        relabelled.clear();
        relabelled.extend(list.iter().map(|&u| ids.get(u as usize) as u64));
        relabelled.sort_unstable();
        cost.bfs += list_bits(ids.get(v as usize) as u64, &relabelled);
        list.clear();
    };
    crate::store::csrscan::scan_csr(store, "out", false, |v, _, u, _| {
        if v != at {
            flush(at, &mut list, &mut cost);
            at = v;
        }
        list.push(u);
        Ok(())
    })?;
    flush(at, &mut list, &mut cost);
    Ok(cost)
}

/// The maps from ranks to new ids: `ids` gives the new id of each of the
/// first store's dense ids, whose ranks its `order.bin` holds.
fn compose(store: &Store, ids: U32s, budget: &Budget) -> Result<OrderMaps> {
    let n = ids.len();
    let c1 = budget.charge(4 * n as u64, "bfs order: order.bin")?;
    let mut rank_of_dense = vec![0u32; n];
    let mapped = store.for_each_rank(|first, ranks| {
        for (i, &r) in ranks.iter().enumerate() {
            rank_of_dense[ids.get(first as usize + i) as usize] = r;
        }
    })?;
    if !mapped {
        for v in 0..n {
            rank_of_dense[ids.get(v) as usize] = v as u32;
        }
    }
    drop(ids);
    let c2 = budget.charge(4 * n as u64, "bfs order: order.inv")?;
    Ok(OrderMaps::inverted((rank_of_dense, c1), (Vec::new(), c2)))
}
