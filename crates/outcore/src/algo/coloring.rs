//! Graph colouring (Jones-Plassmann): a proper colouring of the simple
//! undirected graph underneath (direction, duplicate edges and self-loops
//! ignored), computed in parallel supersteps and equal to the sequential
//! greedy colouring in priority order (largest-log-degree-first, random
//! within a class, deterministic for a `--seed`; [`crate::algo::priority`]).
//! A vertex takes the smallest colour no higher-priority neighbour has, so
//! colours ≤ max degree + 1. Reference: [`reference()`] below.
//!
//! A vertex program whose messages do not combine (a receiver keeps only
//! the messages of higher-priority senders; PartitionedVC's grouped
//! delivery), so its state is fixed-size whatever the number of colours:
//! colours are chosen in windows of 64 (a bit mask of the window's colours
//! taken by higher neighbours). A vertex that finds its window full is
//! deferred to the next window, and counts its higher neighbours that were
//! deferred too; when a window's supersteps end, every vertex is woken once
//! ([`VertexProgram::apply_all`]) and the deferred ones continue in the next
//! window. Higher neighbours coloured in earlier windows cannot block the
//! later windows' colours, so the result is still the greedy one.
//!
//! Supersteps: a first one where every vertex tells its neighbours its key
//! (each counts its higher neighbours), then one per link of the longest
//! chain of decreasing priorities in each window.

use crate::algo::priority::{self, higher, Msg, HELLO};
use crate::base::rng::stream;
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, Value, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// Colours per window (bits of the mask).
const WINDOW: u32 = 64;
/// `color` of a vertex still choosing in the current window.
const UNSET: u32 = u32::MAX;
/// `color` of a vertex deferred to the next window (also the payload
/// that tells lower neighbours so).
const DEFERRED: u32 = u32::MAX - 1;

/// A vertex's state.
#[derive(Clone, Copy, Debug)]
pub struct ColorState {
    key: u64,
    /// Colours of the window taken by higher neighbours.
    mask: u64,
    /// Higher neighbours still undecided in this window.
    wait: u32,
    /// Higher neighbours deferred to the next window.
    wait_next: u32,
    color: u32,
}

impl Value for ColorState {
    const BYTES: usize = 28;
    fn put(&self, o: &mut [u8]) {
        self.key.put(o);
        self.mask.put(&mut o[8..]);
        self.wait.put(&mut o[16..]);
        self.wait_next.put(&mut o[20..]);
        self.color.put(&mut o[24..]);
    }
    fn get(b: &[u8]) -> Self {
        ColorState {
            key: u64::get(b),
            mask: u64::get(&b[8..]),
            wait: u32::get(&b[16..]),
            wait_next: u32::get(&b[20..]),
            color: u32::get(&b[24..]),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Superstep 0: keys are exchanged, every vertex applied.
    Hello,
    /// A window's supersteps.
    Window,
    /// The first superstep of the next window: every vertex applied.
    Wake,
}

/// The program.
pub struct ColoringVp {
    seed: u64,
    /// [`priority::rank_bits`] of the store's vertices.
    bits: u32,
    phase: Phase,
    wake_next: bool,
    /// First colour of the current window.
    base: u32,
    deferred: f64,
    /// Supersteps run.
    pub supersteps: usize,
    /// Windows used.
    pub windows: u32,
}

impl ColoringVp {
    /// The program for a store of `n` vertices.
    pub fn new(seed: u64, n: u64) -> ColoringVp {
        ColoringVp {
            seed,
            bits: priority::rank_bits(n),
            phase: Phase::Hello,
            wake_next: false,
            base: 0,
            deferred: 0.0,
            supersteps: 0,
            windows: 1,
        }
    }

    /// Colours the vertex in this window, or defers it; it sends next.
    fn decide(&self, s: &mut ColorState, agg: &mut Aggregate) -> bool {
        match (!s.mask).trailing_zeros() {
            WINDOW => {
                s.color = DEFERRED;
                agg.sums[1] += 1.0;
            }
            bit => {
                s.color = self.base + bit;
                agg.sums[0] += 1.0;
            }
        }
        true
    }
}

/// The colouring key of a vertex of rank `rank` and out-degree `degree`
/// (ranks of `bits` bits: [`priority::rank_bits`]).
pub fn key(seed: u64, rank: u64, degree: u64, bits: u32) -> u64 {
    let class = priority::log_degree_class(degree);
    priority::key(seed, stream::COLORING, rank, class, bits)
}

impl VertexProgram for ColoringVp {
    type State = ColorState;
    type Msg = Msg;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "coloring"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn apply_all(&self) -> bool {
        self.phase != Phase::Window || self.wake_next
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (ColorState, bool) {
        let s = ColorState {
            key: key(self.seed, info.rank, info.out_degree, self.bits),
            mask: 0,
            wait: 0,
            wait_next: 0,
            color: UNSET,
        };
        (s, true)
    }
    fn begin(&mut self, step: usize, _agg: &Aggregate) -> bool {
        self.phase = match (step, self.wake_next) {
            (0, _) => Phase::Hello,
            (_, true) => Phase::Wake,
            _ => Phase::Window,
        };
        self.wake_next = false;
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &ColorState) -> Option<Msg> {
        Some((
            s.key,
            if self.phase == Phase::Hello {
                HELLO
            } else {
                s.color
            },
        ))
    }
    #[inline]
    fn edge(&self, m: Msg, src: u64, dst: u64, _w: f64) -> Option<Msg> {
        (src != dst).then_some(m)
    }
    fn apply(&self, _v: u64, s: &mut ColorState, msgs: &[Msg], agg: &mut Aggregate) -> bool {
        match self.phase {
            Phase::Hello => {
                s.wait = higher(msgs, s.key).count() as u32;
                s.wait == 0 && self.decide(s, agg)
            }
            Phase::Wake => {
                if s.color != DEFERRED {
                    return false;
                }
                (s.color, s.mask, s.wait, s.wait_next) = (UNSET, 0, s.wait_next, 0);
                s.wait == 0 && self.decide(s, agg)
            }
            Phase::Window => {
                if s.color != UNSET {
                    return false; // decided; later messages come from lower neighbours
                }
                for c in higher(msgs, s.key) {
                    s.wait -= 1;
                    match c {
                        DEFERRED => s.wait_next += 1,
                        c => s.mask |= 1 << (c - self.base),
                    }
                }
                s.wait == 0 && self.decide(s, agg)
            }
        }
    }
    fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool {
        self.phase = Phase::Window;
        self.supersteps = step + 1;
        self.deferred += agg.sums[1];
        if active > 0 {
            return false;
        }
        if self.deferred > 0.0 {
            self.deferred = 0.0;
            self.base += WINDOW;
            self.windows += 1;
            self.wake_next = true;
            return false;
        }
        true
    }
}

/// Colours on the external engine, left on disk (by dense id).
pub fn coloring_on_disk(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    coloring_run(
        store,
        seed,
        &crate::algo::vertex::Engines::external(ext),
        budget,
    )
}

/// Colours on the engines `eng` allows, where the planner puts it (in
/// memory when it fits), by dense id.
pub fn coloring_run(
    store: &Store,
    seed: u64,
    eng: &crate::algo::vertex::Engines,
    budget: &Budget,
) -> Result<(Box<dyn crate::engine::results::Values>, RunStats)> {
    let mut p = ColoringVp::new(seed, store.manifest().num_vertices);
    crate::algo::vertex::run_planned(store, &mut p, usize::MAX, eng, budget, |s| {
        debug_assert!(s.color < DEFERRED, "every vertex is coloured");
        s.color as u64
    })
}

/// Colours by dense id.
pub fn coloring(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<u32>, RunStats)> {
    crate::algo::vertex::collected(coloring_on_disk(store, seed, ext, budget)?, budget, |x| {
        x as u32
    })
}

/// The in-memory reference: the sequential greedy colouring of the simple
/// undirected graph of `edges` on `0..keys.len()`, vertices taken by
/// decreasing key.
pub fn reference(keys: &[u64], edges: &[(u32, u32)]) -> Vec<u32> {
    let nbrs = priority::simple_neighbours(keys.len(), edges);
    let mut color = vec![u32::MAX; keys.len()];
    let mut used = Vec::new();
    for v in priority::greedy_order(keys) {
        used.clear();
        used.extend(nbrs[v].iter().map(|&u| color[u as usize]));
        used.sort_unstable();
        color[v] = (0u32..)
            .find(|c| used.binary_search(c).is_err())
            .expect("a free colour");
    }
    color
}
