//! `--order auto --compress`'s choice among its first order and the
//! locality candidates (see [`super`]): what their gaps cost.

use crate::engine::state::U32s;
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::Store;

/// `--order auto --compress` switches to the Cuthill-McKee order when its
/// gaps cost below this fraction of the first order's.
pub const GAIN: f64 = 0.9;

/// What auto builds after its first store.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Choice {
    Keep,
    Bfs,
    Original,
}

/// The rank of each of a degree-ordered store's dense ids among the
/// original ids (the original order's dense id), or `None` when the budget
/// cannot hold it beside the rest.
pub fn original_ranks(store: &Store, budget: &Budget) -> Result<Option<(U32s, Charge)>> {
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
pub fn choose(
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

/// What the gaps of the out-adjacency cost in bits, in the first store's
/// order and in each new one.
#[derive(Clone, Debug, Default)]
pub struct GapCost {
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
pub fn gap_bits(store: &Store, maps: &[&U32s]) -> Result<GapCost> {
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
