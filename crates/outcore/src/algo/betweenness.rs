//! Betweenness centrality (Brandes, "A faster algorithm for betweenness
//! centrality", 2001), with NetworkX's semantics and scaling
//! (`betweenness_centrality`, endpoints excluded; with given sources,
//! `betweenness_centrality_subset` to all targets): for each source, a
//! breadth-first pass counts the shortest paths σ to every vertex, then a
//! backward pass, deepest level first, accumulates the dependencies
//! δ(v) = Σ σ(v)/σ(w) (1 + δ(w)) over the successors w of v on shortest
//! paths; a vertex's centrality is the sum of its dependencies over the
//! sources, rescaled. Unweighted (hop counts); parallel edges count as
//! distinct paths and self-loops are ignored. Reference: [`reference()`].
//!
//! One vertex program over all sources (GraFBoost ran betweenness with
//! sort-reduce the same way): messages are sums (σ forward along out-edges,
//! (1 + δ)/σ backward along in-edges), so it runs on every engine: in
//! memory on stream or select as the planner picks, on the external engine
//! when its 28 bytes a vertex do not fit. Per source: a reset superstep,
//! one per BFS level forward, a wake-up of the deepest level, one per level
//! backward; then one that scales the sums.

use crate::base::rng::hash3;
use crate::engine::vertex::{Aggregate, Edges, Value, VertexInfo, VertexProgram};
use crate::error::{Error, Result};
use crate::store::Store;

const UNSEEN: u32 = u32::MAX;
const STREAM: u64 = 0x6263_0000_0000_000d;

/// Which sources, and how the sums are scaled (NetworkX's `_rescale`).
#[derive(Clone, Debug)]
pub struct BcConfig {
    /// Dense ids of the sources, ascending; `None`: every vertex.
    pub sources: Option<Vec<u64>>,
    /// True when `sources` were sampled (NetworkX's `k`): sources and the
    /// other vertices are scaled apart.
    pub sampled: bool,
    pub normalized: bool,
}

/// `k` distinct vertices of `store` sampled by `seed` (the `k` smallest
/// hashes of their ranks), as dense ids ascending.
pub fn sample(store: &Store, k: u64, seed: u64) -> Result<Vec<u64>> {
    let n = store.manifest().num_vertices;
    if k == 0 || k > n {
        return Err(Error::Invalid(format!(
            "--samples must be between 1 and the {n} vertices, got {k}"
        )));
    }
    let mut heap = std::collections::BinaryHeap::with_capacity(k as usize + 1);
    let mut ranks = store.rank_reader()?;
    for v in 0..n {
        heap.push((hash3(seed, STREAM, ranks.next_rank()?), v));
        if heap.len() > k as usize {
            heap.pop();
        }
    }
    let mut out: Vec<u64> = heap.into_iter().map(|(_, v)| v).collect();
    out.sort_unstable();
    Ok(out)
}

/// The factors NetworkX's `_rescale` applies (endpoints excluded) to the
/// sampled sources and to the other vertices, for `n` vertices and `k`
/// sampled sources (`None`: every vertex is a source, or the sources were
/// given: `betweenness_centrality_subset` scales as if all were).
pub fn scales(n: u64, k: Option<u64>, normalized: bool, directed: bool) -> (f64, f64) {
    let big_n = n as f64 - 1.0;
    if big_n < 2.0 {
        return (1.0, 1.0);
    }
    let correction = if directed { 1.0 } else { 2.0 };
    // NetworkX: "if k == len(G): k = None".
    let Some(k) = k.filter(|&k| k != n).map(|k| k as f64) else {
        let s = match normalized {
            true => 1.0 / (big_n * (big_n - 1.0)),
            false => 1.0 / correction,
        };
        return (s, s);
    };
    let source = match (k > 1.0, normalized) {
        (false, _) => f64::NAN,
        (true, true) => 1.0 / ((k - 1.0) * (big_n - 1.0)),
        (true, false) => big_n / ((k - 1.0) * correction),
    };
    let other = match normalized {
        true => 1.0 / (k * (big_n - 1.0)),
        false => big_n / (k * correction),
    };
    (source, other)
}

/// A vertex's state for the current source, and its sum.
#[derive(Clone, Copy, Debug)]
pub struct BcState {
    depth: u32,
    sigma: f64,
    delta: f64,
    pub bc: f64,
}

impl Value for BcState {
    const BYTES: usize = 28;
    fn put(&self, o: &mut [u8]) {
        self.depth.put(o);
        self.sigma.put(&mut o[4..]);
        self.delta.put(&mut o[12..]);
        self.bc.put(&mut o[20..]);
    }
    fn get(b: &[u8]) -> Self {
        BcState {
            depth: u32::get(b),
            sigma: f64::get(&b[4..]),
            delta: f64::get(&b[12..]),
            bc: f64::get(&b[20..]),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Every vertex forgets the last source; the next one starts.
    Reset,
    /// Level `level` sends σ along out-edges.
    Forward,
    /// The deepest level wakes up.
    Wake,
    /// Level `level` sends (1 + δ)/σ along in-edges to level `level - 1`.
    Backward,
    /// After the last source: every sum is scaled (once, as NetworkX does).
    Scale,
    Done,
}

/// The sources of a run, the one at hand, and the final scales; shared by
/// the hop-count and the weighted program.
pub(crate) struct Sources {
    n: u64,
    list: Option<Vec<u64>>,
    /// Index of the current source.
    at: u64,
    /// Scale of sampled sources, of the other vertices.
    scale: (f64, f64),
}

impl Sources {
    pub(crate) fn new(store: &Store, cfg: &BcConfig) -> Sources {
        let m = store.manifest();
        let k = cfg
            .sources
            .as_ref()
            .filter(|_| cfg.sampled)
            .map(|s| s.len() as u64);
        Sources {
            n: m.num_vertices,
            list: cfg.sources.clone(),
            at: 0,
            scale: scales(m.num_vertices, k, cfg.normalized, m.directed),
        }
    }

    /// How many sources.
    pub(crate) fn count(&self) -> u64 {
        self.list.as_ref().map_or(self.n, |s| s.len() as u64)
    }

    /// The current source.
    pub(crate) fn source(&self) -> u64 {
        self.list.as_ref().map_or(self.at, |s| s[self.at as usize])
    }

    /// The final scale of vertex `v`'s sum.
    pub(crate) fn scale_of(&self, v: u64) -> f64 {
        scale_of(self.list.as_deref(), self.scale, v)
    }

    /// Moves to the next source; false after the last.
    pub(crate) fn advance(&mut self) -> bool {
        self.at += 1;
        self.at < self.count()
    }
}

/// The scale of `v`: `scale.0` for a sampled source, else `scale.1`.
fn scale_of(sources: Option<&[u64]>, scale: (f64, f64), v: u64) -> f64 {
    match sources {
        Some(s) if s.binary_search(&v).is_ok() => scale.0,
        _ => scale.1,
    }
}

/// Scales the references' sums as the programs do.
pub(crate) fn rescale(bc: &mut [f64], sources: Option<&[u64]>, scale: (f64, f64)) {
    for (v, b) in bc.iter_mut().enumerate() {
        *b *= scale_of(sources, scale, v as u64);
    }
}

/// The program.
pub struct BcVp {
    src: Sources,
    directed: bool,
    /// The phase of the next superstep (see [`Phase`]).
    phase: Phase,
    level: u32,
}

impl BcVp {
    pub fn new(store: &Store, cfg: &BcConfig) -> BcVp {
        BcVp {
            src: Sources::new(store, cfg),
            directed: store.manifest().directed,
            phase: Phase::Reset,
            level: 0,
        }
    }

    /// Moves to the next source, or to the scaling after the last.
    fn next_source(&mut self) -> bool {
        self.phase = match self.src.advance() {
            true => Phase::Reset,
            false => Phase::Scale,
        };
        false
    }
}

impl VertexProgram for BcVp {
    type State = BcState;
    type Msg = f64;
    const COMBINES: bool = true;
    const APPLY_ALL: bool = false;

    fn name(&self) -> &'static str {
        "betweenness"
    }
    fn edges(&self) -> Edges {
        Edges::Both
    }
    fn apply_all(&self) -> bool {
        !matches!(self.phase, Phase::Forward | Phase::Done)
    }
    fn init(&self, _info: &VertexInfo, _agg: &mut Aggregate) -> (BcState, bool) {
        let s = BcState {
            depth: UNSEEN,
            sigma: 0.0,
            delta: 0.0,
            bc: 0.0,
        };
        (s, false)
    }
    fn begin(&mut self, _step: usize, _agg: &Aggregate) -> bool {
        self.src.count() > 0 && self.phase != Phase::Done
    }
    #[inline]
    fn scatter(&self, _v: u64, s: &BcState) -> Option<f64> {
        match self.phase {
            Phase::Forward => Some(s.sigma),
            Phase::Backward => Some((1.0 + s.delta) / s.sigma),
            _ => None,
        }
    }
    #[inline]
    fn edge(&self, m: f64, src: u64, dst: u64, _w: f64) -> Option<f64> {
        // Out-lists: forward; on an undirected store, backward too.
        let on = self.phase == Phase::Forward || !self.directed;
        (on && src != dst).then_some(m)
    }
    #[inline]
    fn edge_rev(&self, m: f64, src: u64, dst: u64, _w: f64) -> Option<f64> {
        (self.phase == Phase::Backward && src != dst).then_some(m)
    }
    #[inline]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    fn apply(&self, v: u64, s: &mut BcState, msgs: &[f64], _agg: &mut Aggregate) -> bool {
        let m = msgs.first().copied().unwrap_or(0.0);
        match self.phase {
            Phase::Reset => {
                let src = v == self.src.source();
                (s.depth, s.sigma, s.delta) = (if src { 0 } else { UNSEEN }, src as u8 as f64, 0.0);
                src
            }
            Phase::Forward => {
                if s.depth != UNSEEN {
                    return false;
                }
                (s.depth, s.sigma) = (self.level + 1, m);
                true
            }
            Phase::Wake => s.depth == self.level,
            Phase::Backward => {
                if s.depth != self.level - 1 {
                    return false;
                }
                s.delta = s.sigma * m;
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
                true
            }
            Phase::Reset => {
                (self.phase, self.level) = (Phase::Forward, 0);
                false
            }
            Phase::Forward if active > 0 => {
                self.level += 1;
                false
            }
            // No vertex one level deeper: `level` is the deepest.
            Phase::Forward if self.level <= 1 => self.next_source(),
            Phase::Forward => {
                self.phase = Phase::Wake;
                false
            }
            Phase::Wake | Phase::Backward => {
                if self.phase == Phase::Backward {
                    self.level -= 1;
                }
                self.phase = Phase::Backward;
                // Level 1's dependencies are done once level 2 has sent.
                match self.level <= 1 {
                    true => self.next_source(),
                    false => false,
                }
            }
        }
    }
}

/// The in-memory reference: Brandes over the lists of `g` (parallel edges
/// distinct, self-loops ignored), from `sources` (dense ids; all when
/// `None`), scaled by `scale` = (sources, others).
pub fn reference(
    g: &crate::algo::reference::MemGraph,
    sources: Option<&[u64]>,
    scale: (f64, f64),
) -> Vec<f64> {
    let n = g.n;
    let all: Vec<u64> = (0..n as u64).collect();
    let srcs = sources.unwrap_or(&all);
    let mut bc = vec![0.0; n];
    for &s in srcs {
        let s = s as u32;
        let mut depth = vec![u32::MAX; n];
        let mut sigma = vec![0.0f64; n];
        let mut order = vec![s];
        (depth[s as usize], sigma[s as usize]) = (0, 1.0);
        let mut i = 0;
        while i < order.len() {
            let v = order[i] as usize;
            i += 1;
            for &(w, _) in &g.out[v] {
                let w = w as usize;
                if w == v {
                    continue;
                }
                if depth[w] == u32::MAX {
                    depth[w] = depth[v] + 1;
                    order.push(w as u32);
                }
                if depth[w] == depth[v] + 1 {
                    sigma[w] += sigma[v];
                }
            }
        }
        let mut delta = vec![0.0f64; n];
        for &w in order.iter().rev() {
            let w = w as usize;
            for &(v, _) in &g.inn[w] {
                let v = v as usize;
                if v != w && depth[v] != u32::MAX && depth[v] + 1 == depth[w] {
                    delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
                }
            }
            if w != s as usize {
                bc[w] += delta[w];
            }
        }
    }
    rescale(&mut bc, sources, scale);
    bc
}

/// Betweenness on the external engine, left on disk (by dense id).
pub fn betweenness_on_disk(
    store: &Store,
    cfg: &BcConfig,
    ext: &crate::engine::external::ExternalConfig,
    budget: &crate::mem::Budget,
) -> Result<(
    Box<dyn crate::engine::results::Values>,
    crate::engine::stats::RunStats,
)> {
    let mut p = BcVp::new(store, cfg);
    crate::algo::vertex::run_on_disk(store, &mut p, usize::MAX, ext, budget, |s| s.bc.to_bits())
}

/// Betweenness in memory, each superstep on the engine `choice` names
/// (`Auto`: the planner's pick), by dense id.
pub fn betweenness(
    store: &Store,
    cfg: &BcConfig,
    choice: crate::engine::planner::EngineChoice,
    stream: crate::engine::stream::StreamConfig,
    select: &crate::engine::select::SelectConfig,
    budget: &crate::mem::Budget,
) -> Result<(Vec<f64>, crate::engine::stats::RunStats)> {
    let mut p = BcVp::new(store, cfg);
    let (states, stats) =
        crate::engine::run(store, &mut p, usize::MAX, choice, stream, select, budget)?;
    Ok((states.iter().map(|s| s.bc).collect(), stats))
}
