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
//!
//! **Pull mode** (on an undirected store whose state fits, [`coloring_run`]): the
//! same program in the select engine's pull mode ([`crate::engine::pull`],
//! Ligra's `EdgeMapDense`): a tentative vertex reads its distinct
//! neighbours' (key, colour, final) states straight from the state array
//! ([`VertexProgram::pull`], a fused gather: no message is built) and
//! final vertices do no work: only the tentative ones are active, each
//! running again the next round by itself ([`VertexProgram::again`]),
//! none woken by a neighbour. The engine writes a batch's states before
//! the next batch reads them (Gauss-Seidel across batches), but the rounds
//! here are synchronous (Jacobi), so the state is double-buffered: a
//! vertex stepped in round `r` keeps its word from before (`prev`) and
//! stamps `r + 1` (`step`), and a neighbour read in round `r` shows
//! `prev` when stamped `r + 1`, else its word: the colours as of the
//! round's start, so the pull mode colours exactly as the supersteps and
//! [`reference`] do.

use crate::algo::priority::{self, Msg};
use crate::base::rng::stream;
use crate::engine::vertex::{Aggregate, Edges, Value, VertexInfo, VertexProgram};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

mod pick;
mod reference;
mod run;

use pick::{nth_free, pick};

pub use reference::reference;
pub use run::{coloring, coloring_on_disk, coloring_run, pulls};

/// Bit of a colour word (state and message) set once the colour is final.
const FINAL: u32 = 1 << 31;
/// The colour in a colour word (colours stay below 2^31: at most the degree).
const COLOR: u32 = FINAL - 1;

/// A vertex's state: 24 bytes in memory, 16 encoded (the pull mode's
/// double buffer, `prev` and `step`, is not: the superstep engines
/// deliver the round's colours in messages).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColorState {
    key: u64,
    /// Colour, with [`FINAL`] once final.
    word: u32,
    /// Conflicts lost.
    losses: u32,
    /// The pull mode: the word before the vertex's last step.
    prev: u32,
    /// The pull mode: 1 + the round of the vertex's last step (0: none).
    step: u32,
}

impl ColorState {
    /// The word a neighbour reads in round `round` of the pull mode: as
    /// of the round's start (Jacobi), whether or not this vertex has
    /// stepped in the round already.
    #[inline]
    fn at(&self, round: u32) -> u32 {
        if self.step == round + 1 {
            self.prev
        } else {
            self.word
        }
    }
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
            prev: 0,
            step: 0,
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
    /// In the pull mode ([`ColoringVp::pulled`]): along simple lists.
    pull: bool,
    /// The current round (set by `begin`).
    round: u32,
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
            pull: false,
            round: 0,
            fin: vec![0; n.div_ceil(64) as usize],
            fin_next: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The program for the pull mode on an undirected store of `n`
    /// vertices: along simple lists, without the final bits (no message
    /// to filter).
    pub fn pulled(seed: u64, n: u64) -> ColoringVp {
        ColoringVp {
            pull: true,
            fin: Vec::new(),
            fin_next: Vec::new(),
            ..ColoringVp::new(seed, n, false)
        }
    }

    /// One round of tentative vertex `s` whose neighbours have (key,
    /// word) `near` (a neighbour linked both ways twice on a directed
    /// store): turns it final (returns true) when no higher neighbour has
    /// its word, else picks its next colour (conflict repair).
    #[inline]
    fn decide(
        &self,
        s: &mut ColorState,
        near: impl Iterator<Item = (u64, u32)> + Clone,
        agg: &mut Aggregate,
    ) -> bool {
        // Higher neighbours with this colour (tentative too: a final
        // neighbour's colour was avoided when this one was picked).
        let k = (near.clone())
            .filter(|&(key, w)| w == s.word && key > s.key)
            .count() as u64;
        if k == 0 {
            s.word |= FINAL;
            return true;
        }
        s.losses = s.losses.saturating_add(1);
        let k = if self.directed { k.div_ceil(2) } else { k };
        let j = pick(s.key, s.losses, k);
        s.word = nth_free(near.map(|(_, w)| w & COLOR), j);
        agg.sums[0] += 1.0;
        false
    }

    /// True when `v` was final when the superstep began (false for an id
    /// past the bits: a message to it passes).
    #[inline]
    fn was_final(&self, v: u64) -> bool {
        let w = self.fin.get((v / 64) as usize).copied().unwrap_or(0);
        w >> (v % 64) & 1 == 1
    }
}

thread_local! {
    /// The pull mode's (key, word) of a vertex's neighbours.
    static NEAR: std::cell::RefCell<Vec<(u64, u32)>> = const { std::cell::RefCell::new(Vec::new()) };
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
    const SCATTER_PURE: bool = true;

    fn name(&self) -> &'static str {
        "coloring"
    }
    fn edges(&self) -> Edges {
        if self.pull {
            Edges::Simple
        } else {
            Edges::Both
        }
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
            prev: 0,
            step: 0,
        };
        (s, true)
    }
    fn begin(&mut self, step: usize, _agg: &Aggregate) -> bool {
        self.round = step as u32;
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
        if !self.decide(s, msgs.iter().map(|m| (m.key(), m.word())), agg) {
            return true;
        }
        if let Some(w) = self.fin_next.get((v / 64) as usize) {
            w.fetch_or(1 << (v % 64), Relaxed);
        }
        tentative_near()
    }
    /// The pull mode's fused gather: a tentative vertex decides from its
    /// neighbours' words as of the round's start ([`ColorState::at`]),
    /// copied once into a scratch list (the free colours take a pass per
    /// window of 64); a final one does nothing. Wakes no one: the
    /// tentative vertices run again by themselves ([`Self::again`]).
    #[inline]
    fn pull(
        &self,
        _v: u64,
        s: &mut ColorState,
        nbrs: impl ExactSizeIterator<Item = (u64, ColorState)>,
        agg: &mut Aggregate,
    ) -> bool {
        if s.word & FINAL != 0 {
            return false;
        }
        let r = self.round;
        NEAR.with_borrow_mut(|near| {
            near.clear();
            near.extend(nbrs.map(|(_, u)| (u.key, u.at(r))));
            let prev = s.word;
            self.decide(s, near.iter().copied(), agg);
            (s.prev, s.step) = (prev, r + 1);
        });
        false
    }
    /// A tentative vertex steps again next round (synchronous rounds).
    #[inline]
    fn again(&self, s: &ColorState) -> bool {
        s.word & FINAL == 0
    }
    fn end(&mut self, step: usize, agg: &Aggregate, active: u64) -> bool {
        self.supersteps = step + 1;
        self.repairs += agg.sums[0] as u64;
        active == 0
    }
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
            prev: 0,
            step: 0,
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
