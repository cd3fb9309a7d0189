//! Weighted betweenness centrality: Brandes with Dijkstra order, with
//! NetworkX's semantics (`betweenness_centrality(G, weight=...)`; with given
//! sources `betweenness_centrality_subset`) and scaling
//! ([`super::betweenness::scales`]). An edge `u -> w` of weight `x` is on a
//! shortest path when `dist(u) + x == dist(w)` in f64, as NetworkX compares.
//! Parallel edges on shortest paths are distinct paths; self-loops are
//! ignored; weights must be non-negative, and a cycle of zero-weight edges
//! (infinitely many shortest paths) is refused. Reference: [`reference()`].
//!
//! Dijkstra's order without a priority queue, in supersteps, per source:
//! 1. Bellman-Ford: the distances;
//! 2. every reached vertex counts its tight in-edges (pending);
//! 3. a wave from the source: a vertex whose tight in-edges have all
//!    delivered σ is ready, sends σ on, and takes the wave's number as level;
//! 4. backward, deepest level first, each level sends (1 + δ)/σ along its
//!    in-edges; receivers keep the messages of tight edges.
//!
//! Tightness needs the weight and both distances at the receiver, so
//! messages (distance, weight, value) do not combine: a vertex gets all of
//! its messages together (PartitionedVC's grouped delivery), in memory on
//! the select engine when the state and the messages fit the budget, else
//! on the external engine.

use super::betweenness::{BcConfig, Sources};
use crate::engine::vertex::{Aggregate, Edges, Value, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::store::Store;
use std::sync::Mutex;

const UNSEEN: u32 = u32::MAX;

/// A vertex's state for the current source, and its sum.
#[derive(Clone, Copy, Debug)]
pub struct WbcState {
    dist: f64,
    sigma: f64,
    /// The sum of tight successors' (1 + δ)/σ, then δ once the level is done.
    delta: f64,
    pub bc: f64,
    /// Tight in-edges whose σ has not arrived.
    pending: u32,
    /// The wave that made the vertex ready (`UNSEEN`: not yet).
    level: u32,
}

impl Value for WbcState {
    const BYTES: usize = 40;
    fn put(&self, o: &mut [u8]) {
        self.dist.put(o);
        self.sigma.put(&mut o[8..]);
        self.delta.put(&mut o[16..]);
        self.bc.put(&mut o[24..]);
        self.pending.put(&mut o[32..]);
        self.level.put(&mut o[36..]);
    }
    fn get(b: &[u8]) -> Self {
        WbcState {
            dist: f64::get(b),
            sigma: f64::get(&b[8..]),
            delta: f64::get(&b[16..]),
            bc: f64::get(&b[24..]),
            pending: u32::get(&b[32..]),
            level: u32::get(&b[36..]),
        }
    }
}

/// A message: a distance, the edge's weight (backward), a value.
#[derive(Clone, Copy, Debug)]
pub struct WbcMsg {
    d: f64,
    w: f64,
    x: f64,
}

impl Value for WbcMsg {
    const BYTES: usize = 24;
    fn put(&self, o: &mut [u8]) {
        self.d.put(o);
        self.w.put(&mut o[8..]);
        self.x.put(&mut o[16..]);
    }
    fn get(b: &[u8]) -> Self {
        WbcMsg {
            d: f64::get(b),
            w: f64::get(&b[8..]),
            x: f64::get(&b[16..]),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Every vertex forgets the last source; the next one starts.
    Reset,
    /// Bellman-Ford: a vertex whose distance dropped sends it.
    Dist,
    /// Every reached vertex wakes up.
    Reach,
    /// Reached vertices send their distances; each counts its tight in-edges.
    Count,
    /// The ready vertices of wave `level` send σ.
    Sigma,
    /// The deepest level wakes up.
    Wake,
    /// Level `level` sends (1 + δ)/σ along in-edges.
    Backward,
    /// After the last source: every sum is scaled.
    Scale,
    Done,
}

/// What went wrong, found during supersteps (dense ids).
#[derive(Clone, Copy, Debug)]
enum Fault {
    Weight(u64, u64, f64),
    ZeroCycle(u64),
}

/// The program.
pub struct WbcVp {
    src: Sources,
    directed: bool,
    phase: Phase,
    level: u32,
    fault: Mutex<Option<Fault>>,
}

impl WbcVp {
    pub fn new(store: &Store, cfg: &BcConfig) -> WbcVp {
        WbcVp {
            src: Sources::new(store, cfg),
            directed: store.manifest().directed,
            phase: Phase::Reset,
            level: 0,
            fault: Mutex::new(None),
        }
    }

    fn fault(&self, f: Fault) {
        if let Ok(mut g) = self.fault.lock() {
            g.get_or_insert(f);
        }
    }

    fn next_source(&mut self) -> bool {
        self.phase = match self.src.advance() {
            true => Phase::Reset,
            false => Phase::Scale,
        };
        false
    }

    /// The error for a fault met during the run, naming original ids.
    fn error(&self, store: &Store) -> Option<Error> {
        let f = *self.fault.lock().unwrap_or_else(|e| e.into_inner());
        let id = |v: u64| crate::algo::sssp::original_id(store, v);
        f.map(|f| match f {
            Fault::Weight(v, u, w) => {
                crate::algo::sssp::bad_weight(store, "weighted betweenness", v, u, w)
            }
            Fault::ZeroCycle(v) => Error::Invalid(format!(
                "weighted betweenness: vertex {} lies on a cycle of zero-weight edges, which holds infinitely many shortest paths; give those edges positive weights",
                id(v)
            )),
        })
    }
}

impl VertexProgram for WbcVp {
    type State = WbcState;
    type Msg = WbcMsg;
    const COMBINES: bool = false;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "betweenness"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn weighted(&self) -> bool {
        true
    }
    fn apply_all(&self) -> bool {
        !matches!(self.phase, Phase::Dist | Phase::Sigma | Phase::Done)
    }
    fn init(&self, _info: &VertexInfo, _agg: &mut Aggregate) -> (WbcState, bool) {
        let s = WbcState {
            dist: f64::INFINITY,
            sigma: 0.0,
            delta: 0.0,
            bc: 0.0,
            pending: 0,
            level: UNSEEN,
        };
        (s, false)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        self.src.count() > 0 && self.phase != Phase::Done
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &WbcState) -> Option<WbcMsg> {
        let x = match self.phase {
            Phase::Dist | Phase::Count => 0.0,
            Phase::Sigma => s.sigma,
            Phase::Backward => (1.0 + s.delta) / s.sigma,
            _ => return None,
        };
        Some(WbcMsg {
            d: s.dist,
            w: 0.0,
            x,
        })
    }
    #[inline]
    fn edge(&self, m: WbcMsg, src: u64, dst: u64, w: f64) -> Option<WbcMsg> {
        if src == dst {
            return None;
        }
        match self.phase {
            // Out-lists of an undirected store are its in-lists too.
            Phase::Backward if !self.directed => Some(WbcMsg { w, ..m }),
            Phase::Backward => None,
            _ if w >= 0.0 => Some(WbcMsg { d: m.d + w, ..m }),
            _ => {
                self.fault(Fault::Weight(src, dst, w));
                None
            }
        }
    }
    #[inline]
    fn edge_rev(&self, m: WbcMsg, src: u64, dst: u64, w: f64) -> Option<WbcMsg> {
        (self.phase == Phase::Backward && src != dst).then_some(WbcMsg { w, ..m })
    }
    fn apply(&self, v: u64, s: &mut WbcState, msgs: &[WbcMsg], _agg: &mut Aggregate) -> bool {
        match self.phase {
            Phase::Reset => {
                let src = v == self.src.source();
                *s = WbcState {
                    dist: if src { 0.0 } else { f64::INFINITY },
                    sigma: src as u8 as f64,
                    delta: 0.0,
                    bc: s.bc,
                    pending: 0,
                    level: UNSEEN,
                };
                src
            }
            Phase::Dist => {
                let d = msgs.iter().fold(f64::INFINITY, |a, m| a.min(m.d));
                let better = d < s.dist;
                if better {
                    s.dist = d;
                }
                better
            }
            Phase::Reach => s.dist < f64::INFINITY,
            Phase::Count => {
                s.pending = msgs.iter().filter(|m| m.d == s.dist).count() as u32;
                let src = v == self.src.source();
                if src {
                    s.level = 0;
                    if s.pending > 0 {
                        self.fault(Fault::ZeroCycle(v));
                    }
                }
                src
            }
            Phase::Sigma => {
                for m in msgs.iter().filter(|m| m.d == s.dist) {
                    s.sigma += m.x;
                    s.pending -= 1;
                }
                let ready = s.pending == 0 && s.level == UNSEEN;
                if ready {
                    s.level = self.level + 1;
                }
                ready
            }
            Phase::Wake => {
                if s.dist < f64::INFINITY && s.level == UNSEEN {
                    self.fault(Fault::ZeroCycle(v));
                }
                s.level == self.level
            }
            Phase::Backward => {
                for m in msgs.iter().filter(|m| s.dist + m.w == m.d) {
                    s.delta += m.x;
                }
                if s.level != self.level - 1 {
                    return false;
                }
                s.delta *= s.sigma;
                s.bc += s.delta;
                true
            }
            Phase::Scale => {
                s.bc *= self.src.scale_of(v);
                false
            }
            Phase::Done => false,
        }
    }
    fn end(&mut self, _step: usize, _agg: &Aggregate, active: u64) -> bool {
        match self.phase {
            Phase::Scale | Phase::Done => {
                self.phase = Phase::Done;
                return true;
            }
            Phase::Reset => self.phase = Phase::Dist,
            Phase::Dist if active > 0 => {}
            Phase::Dist => self.phase = Phase::Reach,
            Phase::Reach => self.phase = Phase::Count,
            Phase::Count => (self.phase, self.level) = (Phase::Sigma, 0),
            Phase::Sigma if active > 0 => self.level += 1,
            // Wave `level` made no vertex ready: `level` is the deepest.
            // Level 1 has no successors: nothing flows back.
            Phase::Sigma if self.level <= 1 => return self.next_source(),
            Phase::Sigma => self.phase = Phase::Wake,
            Phase::Wake | Phase::Backward => {
                if self.phase == Phase::Backward {
                    self.level -= 1;
                }
                self.phase = Phase::Backward;
                // Level 1 is done once level 2 has sent; the source never is.
                if self.level <= 1 {
                    return self.next_source();
                }
            }
        }
        false
    }
}

/// The in-memory reference, as NetworkX: Dijkstra from each source (σ
/// summed over tight in-edges, each parallel edge a path of its own), then
/// dependencies in reverse Dijkstra order; scaled by `scale` = (sources,
/// others). Sources as in [`super::betweenness::reference`]. Panics on a
/// negative weight. With zero-weight edges Dijkstra's tie order decides
/// which paths it sees (as in NetworkX); the program counts every one.
pub fn reference(
    g: &crate::algo::reference::MemGraph,
    sources: Option<&[u64]>,
    scale: (f64, f64),
) -> Vec<f64> {
    use std::cmp::Reverse;
    let n = g.n;
    let all: Vec<u64> = (0..n as u64).collect();
    let mut bc = vec![0.0; n];
    for &s in sources.unwrap_or(&all) {
        let s = s as u32;
        let mut dist = vec![f64::INFINITY; n];
        let mut sigma = vec![0.0f64; n];
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut done = vec![false; n];
        let mut order = Vec::new();
        let mut heap = std::collections::BinaryHeap::new();
        (dist[s as usize], sigma[s as usize]) = (0.0, 1.0);
        // Non-negative distances order as their bits do.
        heap.push(Reverse((0u64, s)));
        while let Some(Reverse((d, v))) = heap.pop() {
            let d = f64::from_bits(d);
            let v = v as usize;
            if std::mem::replace(&mut done[v], true) {
                continue;
            }
            order.push(v);
            for &(w, x) in &g.out[v] {
                let w = w as usize;
                assert!(x >= 0.0, "negative weight {x} on {v} -> {w}");
                if w == v || done[w] {
                    continue;
                }
                let nd = d + x;
                if nd < dist[w] {
                    (dist[w], sigma[w]) = (nd, sigma[v]);
                    preds[w] = vec![v as u32];
                    heap.push(Reverse((nd.to_bits(), w as u32)));
                } else if nd == dist[w] {
                    sigma[w] += sigma[v];
                    preds[w].push(v as u32);
                }
            }
        }
        let mut delta = vec![0.0f64; n];
        for &w in order.iter().rev() {
            for &v in &preds[w] {
                delta[v as usize] += sigma[v as usize] / sigma[w] * (1.0 + delta[w]);
            }
            if w != s as usize {
                bc[w] += delta[w];
            }
        }
    }
    super::betweenness::rescale(&mut bc, sources, scale);
    bc
}

/// Weighted betweenness on the external engine (its state in memory when it
/// fits one interval), left on disk by dense id.
pub fn weighted_on_disk(
    store: &Store,
    cfg: &BcConfig,
    ext: &crate::engine::external::ExternalConfig,
    budget: &crate::mem::Budget,
) -> Result<(
    Box<dyn crate::engine::results::Values>,
    crate::engine::stats::RunStats,
)> {
    let eng = crate::algo::vertex::Engines::external(ext);
    weighted_run(store, cfg, &eng, budget)
}

/// Weighted betweenness on the engines `eng` allows, where the planner
/// puts it (in memory on the select engine when it fits), by dense id.
pub fn weighted_run(
    store: &Store,
    cfg: &BcConfig,
    eng: &crate::algo::vertex::Engines,
    budget: &crate::mem::Budget,
) -> Result<(
    Box<dyn crate::engine::results::Values>,
    crate::engine::stats::RunStats,
)> {
    if !store.manifest().weighted {
        return Err(Error::Invalid(format!(
            "{} is not weighted: weighted betweenness needs edge weights; import the graph with --weighted",
            store.path().display()
        )));
    }
    let mut p = WbcVp::new(store, cfg);
    let r = crate::algo::vertex::run_planned(store, &mut p, usize::MAX, eng, budget, |s| {
        s.bc.to_bits()
    });
    match p.error(store) {
        Some(e) => Err(e),
        None => r,
    }
}
