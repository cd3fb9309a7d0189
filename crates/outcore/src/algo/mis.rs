//! Maximal independent set (Luby's algorithm with priorities drawn once:
//! the random-order greedy MIS of Blelloch, Fineman and Shun) of the simple
//! undirected graph underneath (direction, duplicate edges and self-loops
//! ignored), deterministic for a `--seed`. A vertex joins the set when
//! every higher-priority neighbour has left it; it leaves as soon as one
//! higher-priority neighbour joins. The result equals the sequential greedy
//! MIS in priority order ([`crate::algo::priority`]). Reference:
//! [`reference()`] below.
//!
//! A vertex program whose messages combine by maximum into one word a
//! vertex (Luby's rounds, one superstep each): every undecided vertex
//! sends its key, and a vertex that joined in the last superstep sends
//! [`JOINED`], above every key. A vertex that hears `JOINED` leaves; one
//! whose combined message is below its key (no undecided neighbour of
//! higher priority, none joined) joins. Two neighbours never join in one
//! superstep (each hears the other's key) and a vertex leaves only for a
//! higher neighbour that joined (a lower one waits for it), so a vertex
//! joins exactly when every higher-priority neighbour has left: the
//! greedy rule. The messages travel as words, with no grouped arena
//! (kron-24's took 6.2 GB); every vertex is applied each superstep (one
//! with no undecided neighbour hears nothing and joins).

use crate::algo::priority;
use crate::algo::vertex::Engines;
use crate::base::rng::stream;
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

const UNDECIDED: u32 = 0;
const IN: u32 = 1;
const OUT: u32 = 2;

/// The message of a vertex that joined in the last superstep: above every
/// key (keys stay below 2^57: class 0, [`priority::key`]).
const JOINED: u64 = u64::MAX;

/// The program; state: (key, status).
pub struct MisVp {
    seed: u64,
    /// [`priority::rank_bits`] of the store's vertices.
    bits: u32,
}

impl MisVp {
    /// The program for a store of `n` vertices.
    pub fn new(seed: u64, n: u64) -> MisVp {
        let bits = priority::rank_bits(n);
        MisVp { seed, bits }
    }
}

/// The MIS key of the vertex of rank `rank` (ranks of `bits` bits:
/// [`priority::rank_bits`]).
pub fn key(seed: u64, rank: u64, bits: u32) -> u64 {
    priority::key(seed, stream::MIS, rank, 0, bits)
}

type State = (u64, u32);

impl VertexProgram for MisVp {
    type State = State;
    type Msg = u64;
    const COMBINES: bool = true;
    const APPLY_ALL: bool = false;
    /// No message: below every key but key 0's, and a vertex of key 0
    /// heard or not changes nothing (it is below every neighbour).
    const IDENTITY: Option<u64> = Some(0);
    const SCATTER_PURE: bool = true;

    fn name(&self) -> &'static str {
        "mis"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    /// Every superstep: an undecided vertex that hears nothing joins.
    fn apply_all(&self) -> bool {
        true
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (State, bool) {
        ((key(self.seed, info.rank, self.bits), UNDECIDED), true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &State) -> Option<u64> {
        match s.1 {
            UNDECIDED => Some(s.0),
            IN => Some(JOINED),
            _ => None,
        }
    }
    #[inline]
    fn combine(a: u64, b: u64) -> u64 {
        a.max(b)
    }
    fn apply(&self, _v: u64, s: &mut State, msgs: &[u64], agg: &mut Aggregate) -> bool {
        if s.1 != UNDECIDED {
            // Told its neighbours (a member) or nothing to tell.
            return false;
        }
        // A self-loop brings the vertex's own key: not above it.
        let top = msgs.first().copied().unwrap_or(0);
        s.1 = match top {
            JOINED => OUT,
            t if t <= s.0 => IN,
            _ => {
                agg.sums[0] += 1.0;
                UNDECIDED
            }
        };
        // Active next: undecided (its key) or just joined (to tell).
        s.1 != OUT
    }
    fn end(&mut self, _step: usize, agg: &Aggregate, _active: u64) -> bool {
        // Done once none is undecided: a vertex that just joined has no
        // undecided neighbour left to tell.
        agg.sums[0] == 0.0
    }
}

/// Membership (1 in the set, 0 not) on the external engine, left on disk.
pub fn mis_on_disk(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    mis_run(store, seed, &Engines::external(ext), budget)
}

/// Membership on the engines `eng` allows, where the planner puts it (in
/// memory when it fits).
pub fn mis_run(
    store: &Store,
    seed: u64,
    eng: &Engines,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    let mut p = MisVp::new(seed, store.manifest().num_vertices);
    crate::algo::vertex::run_planned(store, &mut p, usize::MAX, eng, budget, |s| {
        (s.1 == IN) as u64
    })
}

/// Membership by dense id.
pub fn mis(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<bool>, RunStats)> {
    crate::algo::vertex::collected(mis_on_disk(store, seed, ext, budget)?, budget, |x| x == 1)
}

/// The in-memory reference: the greedy MIS of the simple undirected graph
/// of `edges` on `0..keys.len()`, vertices taken by decreasing key.
pub fn reference(keys: &[u64], edges: &[(u32, u32)]) -> Vec<bool> {
    let nbrs = priority::simple_neighbours(keys.len(), edges);
    let mut inside = vec![false; keys.len()];
    for v in priority::greedy_order(keys) {
        inside[v] = !nbrs[v].iter().any(|&u| inside[u as usize]);
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One vertex's rounds: it waits while a higher neighbour is undecided,
    /// joins once none is (its own key, by a self-loop, or nothing heard),
    /// leaves when a neighbour joined, and sends nothing once decided.
    #[test]
    fn a_vertex_joins_when_no_higher_one_is_undecided() {
        let p = MisVp::new(0, 10);
        let mut agg = Aggregate::default();
        let apply = |msg: Option<u64>, key: u64, agg: &mut Aggregate| {
            let mut s = (key, UNDECIDED);
            let a = p.apply(0, &mut s, msg.as_slice(), agg);
            (s.1, a)
        };
        assert_eq!(apply(Some(9), 5, &mut agg), (UNDECIDED, true));
        assert_eq!(agg.sums[0], 1.0, "one undecided");
        assert_eq!(apply(Some(4), 5, &mut agg), (IN, true));
        assert_eq!(apply(Some(5), 5, &mut agg), (IN, true), "a self-loop");
        assert_eq!(apply(None, 5, &mut agg), (IN, true));
        assert_eq!(apply(Some(JOINED), 5, &mut agg), (OUT, false));
        assert_eq!(agg.sums[0], 1.0);
        assert_eq!(p.scatter(0, &(5, UNDECIDED)), Some(5));
        assert_eq!(p.scatter(0, &(5, IN)), Some(JOINED));
        assert_eq!(p.scatter(0, &(5, OUT)), None);
        let mut s = (5, IN);
        assert!(!p.apply(0, &mut s, &[JOINED], &mut agg), "told once");
        assert_eq!(s.1, IN);
        assert_eq!(MisVp::combine(7, JOINED), JOINED);
    }
}
