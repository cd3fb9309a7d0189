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
//! keeps it unless another order's gaps cost under [`GAIN`] of its own: the
//! bits of the gaps between sorted neighbour ids, as the CSR codes them,
//! summed over one scan of the first store's out-adjacency relabelled every
//! way ([`gap_bits`]). The other order is Cuthill-McKee's when the first
//! store is in the original order (no hubs: grids, meshes, road networks),
//! and the input's own when it is in degree order (a skewed graph, whose
//! breadth-first levels find no locality; p2p-Gnutella31's ids code 15%
//! smaller than its degree order: the crawl numbered neighbours close
//! together). What counts is the adjacency runs read; the order
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
use crate::mem::budget::Charge;
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
    // Auto's first store is the one asked for, already in place: a failure
    // from here on (reading it for the choice, the second build) removes it,
    // so that a failed command leaves no store behind.
    let r = choose_and_rebuild(source, dest, opts, r1, &first_path, scratch, start, &budget);
    if r.is_err() && auto {
        let _ = std::fs::remove_dir_all(dest);
    }
    r
}

/// The rest of [`build`] after its first store `r1` at `first_path`: the
/// choice (auto) or the numbering (bfs), then the second build if any.
#[allow(clippy::too_many_arguments)]
fn choose_and_rebuild(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
    r1: BuildReport,
    first_path: &Path,
    scratch: Option<FirstDir>,
    start: Instant,
    budget: &Budget,
) -> Result<BuildReport> {
    let auto = opts.order != VertexOrder::Bfs;
    let t = Instant::now();
    if r1.manifest.num_edges == 0 && auto {
        // No edge, no neighbour to put near another: nothing to order.
        return Ok(r1);
    }
    let store = Store::open(first_path)?;
    // Auto over a skewed graph (the first store came out in degree order):
    // Cuthill-McKee's levels are a few huge ones (a hub reaches most of the
    // graph in two steps), so they do not code [`GAIN`] smaller than the
    // degree order (Kronecker scale 20: 7.27 against 7.28 bits an entry;
    // p2p-Gnutella31: 9.36 against 10.16) and numbering them cost as much
    // as half the first build. Only the input's own order is weighed there.
    let skewed = auto && r1.manifest.vertex_order == VertexOrder::Degree;
    let found = match skewed {
        true => None,
        false => match enumerate(&store, budget, opts.bfs_lists_on_disk, auto) {
            Err(Error::Budget(m)) if auto => {
                Progress::new("vertex order")
                    .done(|| format!("{m}; keeping the {} order", r1.manifest.vertex_order));
                None
            }
            r => Some(r?),
        },
    };
    // Auto over a store in degree order: the input's own order is a
    // candidate too (a crawl order often has locality of its own).
    let ranks = match auto && store.manifest().has_order_map {
        true => original_ranks(&store, budget)?,
        false => None,
    };
    let choice = match auto {
        false => Choice::Bfs,
        true => choose(&store, &r1.manifest, found.as_ref(), ranks.as_ref())?,
    };
    let secs = t.elapsed().as_secs_f64();
    let weighed = if skewed { "order choice" } else { "bfs order" };
    let mut phases = vec![("first build", r1.seconds), (weighed, secs)];
    let mut second = opts.clone();
    second.force |= auto;
    let maps = match (choice, found) {
        (Choice::Bfs, Some(ids)) => {
            second.order = VertexOrder::Bfs;
            Some(compose(&store, ids, budget)?)
        }
        (Choice::Original, _) => {
            second.order = VertexOrder::Original;
            second.order_auto = false;
            None
        }
        _ => {
            // The first store is the one kept: its own phases, then the choice.
            let mut phases = r1.phases.clone();
            phases.push((weighed, secs));
            return Ok(BuildReport {
                seconds: start.elapsed().as_secs_f64(),
                phases,
                ..r1
            });
        }
    };
    drop((store, ranks, scratch));
    let r2 = build_with(source, dest, &second, budget, &mut { maps })?;
    phases.extend(r2.phases.iter().copied());
    Ok(BuildReport {
        seconds: start.elapsed().as_secs_f64(),
        phases,
        spilled_bytes: r1.spilled_bytes + r2.spilled_bytes,
        ..r2
    })
}

/// What auto builds after its first store.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    Keep,
    Bfs,
    Original,
}

/// The rank of each of a degree-ordered store's dense ids among the
/// original ids (the original order's dense id), or `None` when the budget
/// cannot hold it beside the rest.
fn original_ranks(store: &Store, budget: &Budget) -> Result<Option<(U32s, Charge)>> {
    let n = store.manifest().num_vertices as usize;
    let Ok(charge) = budget.charge(4 * n as u64, "auto order: original ranks") else {
        return Ok(None);
    };
    let ranks = U32s::new(n, 0);
    store.for_each_rank(|first, r| {
        for (i, &x) in r.iter().enumerate() {
            ranks.set(first as usize + i, x);
        }
    })?;
    Ok(Some((ranks, charge)))
}

/// Auto's choice among its first order and the candidates (the bfs order,
/// the original one): the cheapest gaps, if under [`GAIN`] of the first's.
fn choose(
    store: &Store,
    m: &crate::store::Manifest,
    bfs: Option<&U32s>,
    original: Option<&(U32s, Charge)>,
) -> Result<Choice> {
    let cands: Vec<(Choice, &U32s)> = [
        bfs.map(|ids| (Choice::Bfs, ids)),
        original.map(|(r, _)| (Choice::Original, r)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if cands.is_empty() {
        return Ok(Choice::Keep);
    }
    let maps: Vec<&U32s> = cands.iter().map(|c| c.1).collect();
    let cost = gap_bits(store, &maps)?;
    let entries = cost.entries.max(1) as f64;
    let a = cost.first as f64 / entries;
    let (best, b) = cands
        .iter()
        .zip(&cost.new)
        .map(|(c, &bits)| (c.0, bits as f64 / entries))
        .fold(
            (Choice::Keep, f64::INFINITY),
            |x, y| if y.1 < x.1 { y } else { x },
        );
    // Tiles hold each edge once, the CSR both ends: 3 codes an edge.
    let per_edge = if m.directed { 3.0 } else { 1.5 };
    let all = m.csr.out_entries as f64;
    let saved = (a - b) * all * per_edge / 8.0;
    let kind = m.vertex_order;
    let choice = if b < GAIN * a { best } else { Choice::Keep };
    let name = |c: Choice| match c {
        Choice::Bfs => "bfs",
        _ => "original",
    };
    Progress::new("vertex order").done(|| {
        let each: Vec<String> = cands
            .iter()
            .zip(&cost.new)
            .map(|(c, &bits)| format!("{:.2} in {} order", bits as f64 / entries, name(c.0)))
            .collect();
        format!(
            "gaps cost (bits an entry) {}, {a:.2} in {kind} order (about {} of adjacency saved): {}",
            each.join(", "),
            format_size(saved.max(0.0) as u64),
            match choice {
                Choice::Keep => format!("keeping {kind}"),
                c => format!("building again in {} order", name(c)),
            }
        )
    });
    Ok(choice)
}

/// The first store's directory, removed on drop.
struct FirstDir(PathBuf);

impl Drop for FirstDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the gaps of the out-adjacency cost in bits, in the first store's
/// order and in each new one.
#[derive(Clone, Debug, Default)]
pub(super) struct GapCost {
    pub entries: u64,
    pub first: u64,
    pub new: Vec<u64>,
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

/// Adjacency entries [`gap_bits`] weighs: past this, a sample of lists.
const SAMPLE: u64 = 1 << 21;

/// Sums the gap bits of `store`'s out-lists as they are and relabelled
/// by each of `maps` (then sorted): every list up to [`SAMPLE`] entries in
/// all, else the lists that begin in one CSR page in `entries / SAMPLE`
/// (`store::csrsample`: those pages alone are read and decoded), whose
/// ratios are what the choice compares. Relabelling and sorting every list
/// cost Kronecker scale 20 two seconds of a ten-second build, and scanning
/// all of kron-22's out-lists 0.7 s of a 5.7 s compressed import; with
/// 2 Mi entries the order choice takes 0.1 s there.
pub(super) fn gap_bits(store: &Store, maps: &[&U32s]) -> Result<GapCost> {
    let mut cost = GapCost {
        new: vec![0; maps.len()],
        ..Default::default()
    };
    // The lists that begin in one page in `every`: about SAMPLE entries.
    let every = store.manifest().csr.out_entries.div_ceil(SAMPLE).max(1);
    let mut relabelled = Vec::new();
    crate::store::csrsample::sample_lists(store, "out", every, |v, list| {
        cost.entries += list.len() as u64;
        cost.first += list_bits(v, list);
        for (ids, bits) in maps.iter().zip(&mut cost.new) {
            relabelled.clear();
            relabelled.extend(list.iter().map(|&u| ids.get(u as usize) as u64));
            relabelled.sort_unstable();
            *bits += list_bits(ids.get(v as usize) as u64, &relabelled);
        }
        Ok(())
    })?;
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
