//! Graph colouring by speculation and conflict repair (Gebremedhin and
//! Manne, "Scalable parallel graph coloring algorithms"; Boman, Bozdağ,
//! Catalyurek, Gebremedhin, Manne, "A scalable parallel graph coloring
//! algorithm for distributed memory computers"), in synchronous rounds: a
//! proper colouring of the simple undirected graph underneath (direction,
//! duplicate edges and self-loops ignored), with at most max degree + 1 colours,
//! deterministic for a `--seed`, and the same on any budget, thread count,
//! interval size or I/O backend (every choice is a function of the round's
//! messages). Not the sequential greedy colouring: it uses more colours
//! than greedy in largest-log-degree-first order, in tens of supersteps
//! where Jones-Plassmann took hundreds per 64-colour window.
//!
//! Every vertex starts *tentative* with colour 0. In each superstep every
//! tentative vertex, and every neighbour of one, tells its neighbours its
//! priority key ([`crate::algo::priority`], largest-log-degree-first) and
//! colour. A tentative vertex none of whose higher-priority neighbours has
//! its colour becomes *final* (conflict detection); one that has such
//! neighbours (a conflict, of which the lower-priority end is repaired)
//! picks a new colour none of its neighbours had this round: the smallest
//! free one at its first loss; after `t` losses, with `k` higher
//! competitors, the `j`-th free one for `j` a hash of (key, t) modulo
//! `min(2^(t-1), k)`: the competitors of a dense core (all picking the same
//! smallest colour, one winning each round, as Luby's colouring) spread
//! over twice as many colours each time they lose (binary exponential
//! backoff, as in contention resolution: kron-22 took 35 supersteps and
//! 354 colours with a spread of `min(t, k)`, 24 and 374 with this one).
//! The highest-priority tentative vertex always becomes final, so the run
//! ends; a final vertex never changes, and a new pick avoids every
//! neighbour's colour, so the result is proper. The `j`-th free colour is at most the vertex's
//! degree, since its `k` competitors share one colour.
//!
//! State is fixed-size (key, colour, losses); messages do not combine (the
//! receiver sees all of its neighbours' colours of the round, PartitionedVC's
//! grouped delivery), and the free colours are found in windows of 64 (a
//! bit mask per pass over the messages), with no per-vertex colour set.
//! [`reference`] runs the same rounds in memory.
//!
//! Message filtering (a final colour goes only to the vertices still to
//! colour, as recoloured boundary vertices alone are exchanged in Boman et
//! al.'s rounds): a final vertex needs from its neighbours only whether
//! one is tentative, so a message from a final sender to a final receiver
//! is dropped at the edge. The
//! program keeps a bit per vertex, set when it turns final, read by
//! [`VertexProgram::edge`] as of the superstep's start (two copies: the
//! applies of a superstep write the next). A tentative sender still
//! reaches every neighbour and a tentative receiver still hears every one,
//! so each vertex is applied with the same tentative messages and is
//! active in the same supersteps as without the filter: the colours do not
//! depend on it (nor on which vertices an engine knows final: a shard's
//! ghosts never are, so their messages pass).

use crate::algo::priority::{self, Msg};
use crate::base::rng::{hash3, stream};
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, Value, VertexInfo, VertexProgram};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bit of a colour word (state and message) set once the colour is final.
const FINAL: u32 = 1 << 31;
/// The colour in a colour word (colours stay below 2^31: at most the degree).
const COLOR: u32 = FINAL - 1;

/// A vertex's state.
#[derive(Clone, Copy, Debug)]
pub struct ColorState {
    key: u64,
    /// Colour, with [`FINAL`] once final.
    word: u32,
    /// Conflicts lost.
    losses: u32,
}

impl Value for ColorState {
    const BYTES: usize = 16;
    fn put(&self, o: &mut [u8]) {
        self.key.put(o);
        self.word.put(&mut o[8..]);
        self.losses.put(&mut o[12..]);
    }
    fn get(b: &[u8]) -> Self {
        ColorState {
            key: u64::get(b),
            word: u32::get(&b[8..]),
            losses: u32::get(&b[12..]),
        }
    }
}

/// The program.
pub struct ColoringVp {
    seed: u64,
    /// [`priority::rank_bits`] of the store's vertices.
    bits: u32,
    /// A directed store: a neighbour linked both ways sends two messages.
    directed: bool,
    /// Supersteps run.
    pub supersteps: usize,
    /// Conflicts repaired (vertices that picked again), over all rounds.
    pub repairs: u64,
    /// Vertices final when the current superstep began, a bit each (read by
    /// `edge`).
    fin: Vec<u64>,
    /// Vertices final after this superstep's applies (written by `apply`,
    /// copied to `fin` by `begin`).
    fin_next: Vec<AtomicU64>,
}

impl ColoringVp {
    /// The program for a store of `n` vertices, `directed` or not.
    pub fn new(seed: u64, n: u64, directed: bool) -> ColoringVp {
        ColoringVp {
            seed,
            bits: priority::rank_bits(n),
            directed,
            supersteps: 0,
            repairs: 0,
            fin: vec![0; n.div_ceil(64) as usize],
            fin_next: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// True when `v` was final when the superstep began (false for an id
    /// past the bits: a message to it passes).
    #[inline]
    fn was_final(&self, v: u64) -> bool {
        let w = self.fin.get((v / 64) as usize).copied().unwrap_or(0);
        w >> (v % 64) & 1 == 1
    }
}

/// The colouring key of a vertex of rank `rank` and out-degree `degree`
/// (ranks of `bits` bits: [`priority::rank_bits`]).
pub fn key(seed: u64, rank: u64, degree: u64, bits: u32) -> u64 {
    let class = priority::log_degree_class(degree);
    priority::key(seed, stream::COLORING, rank, class, bits)
}

/// Which free colour a vertex of key `key` picks after `losses` losses to
/// `k` distinct higher competitors: `j` in `0..min(2^(losses-1), k)`
/// (exponential backoff).
fn pick(key: u64, losses: u32, k: u64) -> u64 {
    let spread = 1u64 << losses.saturating_sub(1).min(63);
    hash3(key, stream::COLORING, losses as u64) % k.min(spread).max(1)
}

/// The `j`-th (from 0) colour that none of `colors` is, found in windows of
/// 64 colours: a pass over `colors` per window.
fn nth_free(colors: impl Iterator<Item = u32> + Clone, mut j: u64) -> u32 {
    let mut base = 0u32;
    loop {
        let taken = colors
            .clone()
            .fold(0u64, |t, c| match c.wrapping_sub(base) {
                d if d < 64 => t | 1 << d,
                _ => t,
            });
        let free = !taken;
        let n = free.count_ones() as u64;
        if j < n {
            let mut f = free;
            for _ in 0..j {
                f &= f - 1;
            }
            return base + f.trailing_zeros();
        }
        j -= n;
        base += 64;
    }
}

impl VertexProgram for ColoringVp {
    type State = ColorState;
    type Msg = Msg;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = false;
    const SCATTER_PURE: bool = true;

    fn name(&self) -> &'static str {
        "coloring"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn held_bytes(&self) -> u64 {
        16 * self.fin.len() as u64
    }
    fn init(&self, info: &VertexInfo, _agg: &mut Aggregate) -> (ColorState, bool) {
        let key = key(self.seed, info.rank, info.out_degree, self.bits);
        let s = ColorState {
            key,
            word: 0,
            losses: 0,
        };
        (s, true)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        for (f, n) in self.fin.iter_mut().zip(&self.fin_next) {
            *f = n.load(Relaxed);
        }
        true
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &ColorState) -> Option<Msg> {
        Some(Msg::new(s.key, s.word))
    }
    #[inline]
    fn edge(&self, m: Msg, src: u64, dst: u64, _w: f64) -> Option<Msg> {
        // Final to final: the receiver learns nothing (message filtering).
        let idle = m.word() & FINAL != 0 && self.was_final(dst);
        (src != dst && !idle).then_some(m)
    }
    fn apply(&self, v: u64, s: &mut ColorState, msgs: &[Msg], agg: &mut Aggregate) -> bool {
        // Active next while a neighbour is tentative: it needs this colour.
        let tentative_near = || msgs.iter().any(|m| m.word() & FINAL == 0);
        if s.word & FINAL != 0 {
            return tentative_near();
        }
        // Higher neighbours with this colour (tentative too: a final
        // neighbour's colour was avoided when this one was picked).
        let k = msgs
            .iter()
            .filter(|m| m.word() == s.word && m.key() > s.key)
            .count() as u64;
        if k == 0 {
            s.word |= FINAL;
            if let Some(w) = self.fin_next.get((v / 64) as usize) {
                w.fetch_or(1 << (v % 64), Relaxed);
            }
            return tentative_near();
        }
        s.losses = s.losses.saturating_add(1);
        let k = if self.directed { k.div_ceil(2) } else { k };
        let j = pick(s.key, s.losses, k);
        s.word = nth_free(msgs.iter().map(|m| m.word() & COLOR), j);
        agg.sums[0] += 1.0;
        true
    }
    fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool {
        self.supersteps = step + 1;
        self.repairs += agg.sums[0] as u64;
        active == 0
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
    let m = store.manifest();
    let mut p = ColoringVp::new(seed, m.num_vertices, m.directed);
    let _bits = budget.charge(p.held_bytes(), "colouring's final bits")?;
    crate::algo::vertex::run_planned(store, &mut p, usize::MAX, eng, budget, |s| {
        (s.word & COLOR) as u64
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

/// The in-memory reference: the same rounds on the graph of `edges` on
/// `0..keys.len()` (arcs when `directed`: a pair linked both ways counts
/// twice, as its messages do), by dense id.
pub fn reference(keys: &[u64], edges: &[(u32, u32)], directed: bool) -> Vec<u32> {
    let n = keys.len();
    let mut arcs: Vec<(u32, u32)> = edges
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| {
            if directed {
                (a, b)
            } else {
                (a.min(b), a.max(b))
            }
        })
        .collect();
    arcs.sort_unstable();
    arcs.dedup();
    let mut nbrs = vec![Vec::new(); n];
    for &(a, b) in &arcs {
        nbrs[a as usize].push(b as usize);
        nbrs[b as usize].push(a as usize);
    }
    let (mut word, mut losses) = (vec![0u32; n], vec![0u32; n]);
    while word.iter().any(|w| w & FINAL == 0) {
        let before = word.clone();
        for v in 0..n {
            let near = || nbrs[v].iter().map(|&u| before[u]);
            if before[v] & FINAL != 0 || nbrs[v].is_empty() {
                word[v] |= FINAL;
                continue;
            }
            let k = nbrs[v]
                .iter()
                .filter(|&&u| before[u] == before[v] && keys[u] > keys[v])
                .count() as u64;
            if k == 0 {
                word[v] |= FINAL;
                continue;
            }
            losses[v] += 1;
            let k = if directed { k.div_ceil(2) } else { k };
            let j = pick(keys[v], losses[v], k);
            word[v] = nth_free(near().map(|w| w & COLOR), j);
        }
    }
    word.iter().map(|w| w & COLOR).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Message filtering: final to final is dropped; a tentative sender
    /// reaches every receiver and a final one every tentative receiver; a
    /// vertex counts as final from the superstep after the one it turned
    /// final in; an id past the bits (a ghost's) and a self-loop as before.
    #[test]
    fn final_to_final_messages_are_dropped() {
        let mut p = ColoringVp::new(1, 130, false);
        let mut agg = Aggregate::default();
        assert!(p.begin(0, &agg));
        let mut s = ColorState {
            key: 10,
            word: 0,
            losses: 0,
        };
        // Only a lower neighbour: 70 turns final (a tentative one is near).
        assert!(p.apply(70, &mut s, &[Msg::new(5, 0)], &mut agg));
        assert_eq!(s.word, FINAL);
        let (fin, tent) = (Msg::new(9, 3 | FINAL), Msg::new(9, 3));
        assert_eq!(p.edge(fin, 1, 70, 1.0), Some(fin), "final only next step");
        assert!(p.begin(1, &agg));
        assert_eq!(p.edge(fin, 1, 70, 1.0), None);
        assert_eq!(p.edge(tent, 1, 70, 1.0), Some(tent));
        assert_eq!(p.edge(fin, 70, 2, 1.0), Some(fin));
        assert_eq!(p.edge(tent, 70, 2, 1.0), Some(tent));
        assert_eq!(p.edge(fin, 1, 500, 1.0), Some(fin));
        assert_eq!(p.edge(tent, 3, 3, 1.0), None);
        assert_eq!(p.held_bytes(), 3 * 16);
    }
}
