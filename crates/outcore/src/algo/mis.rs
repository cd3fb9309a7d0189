//! Maximal independent set (Luby's algorithm with priorities drawn once:
//! the random-order greedy MIS of Blelloch, Fineman and Shun) of the simple
//! undirected graph underneath (direction, duplicate edges and self-loops
//! ignored), deterministic for a `--seed`. A vertex joins the set when
//! every higher-priority neighbour has left it; it leaves as soon as one
//! higher-priority neighbour joins. The result equals the sequential greedy
//! MIS in priority order ([`crate::algo::priority`]). Reference:
//! [`reference()`] below.
//!
//! A vertex program whose messages do not combine (a receiver keeps only
//! the messages of higher-priority senders): superstep 0 exchanges keys,
//! then each decided vertex tells its neighbours once, `IN` or `OUT`.

use crate::algo::priority::{self, higher, Msg, HELLO};
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

/// The program; state: (key, (higher neighbours undecided, status)).
pub struct MisVp {
    seed: u64,
    /// [`priority::rank_bits`] of the store's vertices.
    bits: u32,
    hello: bool,
}

impl MisVp {
    /// The program for a store of `n` vertices.
    pub fn new(seed: u64, n: u64) -> MisVp {
        let bits = priority::rank_bits(n);
        MisVp {
            seed,
            bits,
            hello: true,
        }
    }
}

/// The MIS key of the vertex of rank `rank` (ranks of `bits` bits:
/// [`priority::rank_bits`]).
pub fn key(seed: u64, rank: u64, bits: u32) -> u64 {
    priority::key(seed, stream::MIS, rank, 0, bits)
}

type State = (u64, (u32, u32));

impl VertexProgram for MisVp {
    type State = State;
    type Msg = Msg;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "mis"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn apply_all(&self) -> bool {
        self.hello
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (State, bool) {
        ((key(self.seed, info.rank, self.bits), (0, UNDECIDED)), true)
    }
    fn begin(&mut self, step: usize, _agg: &Aggregate) -> bool {
        self.hello = step == 0;
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &State) -> Option<Msg> {
        Some(Msg::new(s.0, if self.hello { HELLO } else { s.1 .1 }))
    }
    #[inline]
    fn edge(&self, m: Msg, src: u64, dst: u64, _w: f64) -> Option<Msg> {
        (src != dst).then_some(m)
    }
    fn apply(&self, _v: u64, s: &mut State, msgs: &[Msg], agg: &mut Aggregate) -> bool {
        let (key, (wait, status)) = (s.0, &mut s.1);
        if self.hello {
            *wait = higher(msgs, key).count() as u32;
        } else {
            if *status != UNDECIDED {
                return false;
            }
            for m in higher(msgs, key) {
                match m {
                    IN => *status = OUT,
                    _ => *wait -= 1,
                }
            }
        }
        if *status == UNDECIDED && *wait == 0 {
            *status = IN;
            agg.sums[0] += 1.0;
        }
        *status != UNDECIDED
    }
    fn end(&mut self, _step: usize, _agg: &Aggregate, active: u64) -> bool {
        self.hello = false;
        active == 0
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
        (s.1 .1 == IN) as u64
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
