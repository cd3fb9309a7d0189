//! The degree order (DESIGN.md, "Dense ids"): dense ids by degree
//! descending, so hubs gather in the first tiles.

use super::distinct::{Dedup, RankSpill};
use super::records::{DenseId, InputEdge};
use super::stages::pipeline;
use super::{BATCH, STAGE_BATCH};
use crate::cancel;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::prefetch::{prefetch, AHEAD};
use crate::mem::Budget;
use crate::progress::Progress;

/// Pass A of the degree order: counts the degree of every rank over the
/// sorted stream (distinct keys only: duplicates collapse as in the remap;
/// undirected: neighbours, a self-loop once; directed: out + in, saturating
/// at `u32::MAX`), then sorts the ranks by (degree descending, rank
/// ascending): the position in that order is the dense id. Both maps are
/// empty when the order is the identity.
pub(super) fn degree_order<E: InputEdge, I: DenseId>(
    edges: &mut Dedup<'_, E, I>,
    mut spill: Option<&mut RankSpill<I>>,
    n: u64,
    undirected: bool,
    budget: &Budget,
    auto: bool,
) -> Result<Option<OrderMaps>> {
    budget
        .require(
            &format!("--order degree on {n} vertices"),
            &[("degrees and permutation, 8 bytes a vertex", 8 * n)],
        )
        .and_then(|_| past_u32(n, "--order degree"))
        .map_err(or_original_order)?;
    let dense_charge = budget
        .charge(4 * n, "degree order: degrees, then dense ids")
        .map_err(or_original_order)?;
    let mut deg = vec![0u32; n as usize];
    let mut progress = Progress::new("count degrees");
    let mut batch = Vec::with_capacity(BATCH);
    let mut i = 0u64;
    // This thread merges the sorted input and looks ranks up; a second one
    // counts degrees and writes the distinct edges out.
    let degrees = &mut deg;
    pipeline(
        |big| {
            while big.len() < STAGE_BATCH && edges.next_batch(&mut batch)? {
                big.extend_from_slice(&batch);
            }
            i += big.len() as u64;
            cancel::check()?;
            progress.tick(|| format!("{i} distinct edges"));
            Ok(!big.is_empty())
        },
        |batch| {
            for (i, e) in batch.iter().enumerate() {
                if let Some(a) = batch.get(i + AHEAD) {
                    prefetch(degrees, a.s.idx());
                    prefetch(degrees, a.d.idx());
                }
                degrees[e.s.idx()] = degrees[e.s.idx()].saturating_add(1);
                if !undirected || e.s != e.d {
                    degrees[e.d.idx()] = degrees[e.d.idx()].saturating_add(1);
                }
            }
            match spill.as_mut() {
                Some(out) => out.push(batch),
                None => Ok(()),
            }
        },
    )?;
    let max = deg.iter().copied().max().unwrap_or(0) as f64;
    let mean = deg.iter().fold(0.0, |s, &d| s + d as f64) / n.max(1) as f64;
    if auto && max < SKEWED * mean.max(1.0) {
        progress.done(|| {
            format!(
                "{i} distinct edges over {n} vertices; degrees not skewed (largest {max}, mean {mean:.1}): original order kept"
            )
        });
        return Ok(None);
    }
    progress.done(|| format!("{i} distinct edges over {n} vertices"));
    let rank_charge = budget
        .charge(4 * n, "degree order: permutation")
        .map_err(or_original_order)?;
    let rank_of_dense = by_degree(&deg);
    // The degrees are no longer needed: the array becomes rank -> dense id.
    Ok(Some(OrderMaps::inverted(
        (rank_of_dense, rank_charge),
        (deg, dense_charge),
    )))
}

/// Degrees below this are placed by a counting sort; the few vertices at or
/// above it are sorted apart.
const COUNTED: usize = 1 << 16;

/// The ranks by (degree descending, rank ascending): a stable counting sort
/// by degree (two sequential passes; a comparison sort with a random degree
/// read per comparison took 2.4 s of CPU at Kronecker scale 24).
fn by_degree(deg: &[u32]) -> Vec<u32> {
    let mut count = vec![0usize; COUNTED];
    let mut big = Vec::new();
    for (r, &d) in deg.iter().enumerate() {
        match count.get_mut(d as usize) {
            Some(c) => *c += 1,
            None => big.push(r as u32),
        }
    }
    big.sort_unstable_by_key(|&r| (std::cmp::Reverse(deg[r as usize]), r));
    let mut next = count;
    let mut at = big.len();
    for c in next.iter_mut().rev() {
        (*c, at) = (at, at + *c);
    }
    let mut out = big;
    out.resize(deg.len(), 0);
    for (r, &d) in deg.iter().enumerate() {
        if let Some(p) = next.get_mut(d as usize) {
            out[*p] = r as u32;
            *p += 1;
        }
    }
    out
}

/// `--order auto` orders by degree when the largest degree is at least this
/// many times the mean: Kronecker and social graphs (scale 24: 13,000x), not
/// grids, meshes, road networks or uniform random graphs, whose ids may carry
/// locality a sort by degree would scatter.
pub const SKEWED: f64 = 16.0;

/// An order's maps (`order.bin` and `order.inv`), each with the charge of
/// its memory; both empty when the order is the identity.
pub(super) struct OrderMaps {
    pub rank_of_dense: (Vec<u32>, Charge),
    pub dense_of_rank: (Vec<u32>, Charge),
}

impl OrderMaps {
    /// The maps of the permutation `rank_of_dense`, its inverse written into
    /// `into` (resized to fit; the charge covers it); both empty when the
    /// permutation is the identity.
    pub fn inverted(rank_of_dense: (Vec<u32>, Charge), into: (Vec<u32>, Charge)) -> OrderMaps {
        let (ranks, mut dense) = (rank_of_dense.0, into.0);
        if ranks.iter().enumerate().all(|(v, &r)| v as u32 == r) {
            return OrderMaps {
                rank_of_dense: (Vec::new(), rank_of_dense.1),
                dense_of_rank: (Vec::new(), into.1),
            };
        }
        dense.resize(ranks.len(), 0);
        for (v, &r) in ranks.iter().enumerate() {
            dense[r as usize] = v as u32;
        }
        OrderMaps {
            rank_of_dense: (ranks, rank_of_dense.1),
            dense_of_rank: (dense, into.1),
        }
    }
}

/// Whether the degree order of `n` vertices (a dense source: known before
/// the read) fits the budget: 8 bytes a vertex for the degrees and the
/// permutation. A refusal is an error, or with `--order auto` a note and
/// false (the build falls back to the original order).
pub(super) fn degree_fits(n: u64, budget: &Budget, auto: bool) -> Result<bool> {
    let fits = budget
        .require(
            &format!("--order degree on {n} vertices"),
            &[("degrees and permutation, 8 bytes a vertex", 8 * n)],
        )
        .and_then(|_| past_u32(n, "--order degree"))
        .map_err(or_original_order);
    match fits {
        Err(Error::Budget(m)) if auto => {
            note_original_order(&m);
            Ok(false)
        }
        r => r.map(|_| true),
    }
}

/// The degree and Cuthill-McKee orders' maps (and `order.bin`) hold u32
/// dense ids: past 2^32 - 1 vertices `order` is refused as a budget
/// refusal is (an error when asked for, the original order for `--order
/// auto`). Their 8 and 20 bytes a vertex would be 32 and 80 GiB there
/// anyway.
pub(super) fn past_u32(n: u64, order: &str) -> Result<()> {
    match n > u32::MAX as u64 {
        true => Err(Error::Budget(format!(
            "{order} on {n} vertices: its maps hold at most {} vertices",
            u32::MAX
        ))),
        false => Ok(()),
    }
}

/// `--order auto` falling back from the degree order: says why.
pub(super) fn note_original_order(why: &str) {
    let note = format!("{why}; building in the original order");
    Progress::new("vertex order").done(|| note);
}

/// Adds the way out of a budget refusal of the degree order.
pub(super) fn or_original_order(e: Error) -> Error {
    match e {
        Error::Budget(m) => Error::Budget(format!("{m} (or pass --order original)")),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The counting sort equals a comparison sort by (degree descending,
        /// rank ascending), degrees below and above `COUNTED` mixed.
        #[test]
        fn by_degree_sorts_by_degree_then_rank(
            deg in proptest::collection::vec(
                prop_oneof![0u32..8, 0u32..200_000, Just(u32::MAX)], 0..3000)
        ) {
            let mut want: Vec<u32> = (0..deg.len() as u32).collect();
            want.sort_by_key(|&r| (std::cmp::Reverse(deg[r as usize]), r));
            prop_assert_eq!(by_degree(&deg), want);
        }
    }

    /// Past 2^32 - 1 vertices the degree order is refused whatever the
    /// budget: `--order auto` falls back, `--order degree` is an error.
    #[test]
    fn the_degree_order_stops_at_32_bits() {
        let budget = Budget::new(1 << 40);
        let n = u32::MAX as u64;
        assert!(degree_fits(n, &budget, false).unwrap());
        assert!(!degree_fits(n + 1, &budget, true).unwrap());
        let e = degree_fits(n + 1, &budget, false).unwrap_err().to_string();
        assert!(
            e.contains("at most 4294967295") && e.contains("--order original"),
            "{e}"
        );
    }
}
