//! PageRank with LDBC Graphalytics semantics on the stream engine.
//!
//! PR0(v) = 1/|V|; each iteration PR(v) = (1-d)/|V| + d * sum over in-neighbours
//! u of PR(u)/outdeg(u) + d/|V| * sum over sinks w of PR(w). Undirected
//! graphs: every neighbour is an in- and out-neighbour (a self-loop once).
//! A fixed number of iterations, or `tol`: stop once an iteration changes the
//! ranks by less than `tol` in L1 norm.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::{F64s, BLOCK};
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::degrees::Degrees;
use crate::store::Store;
use rayon::prelude::*;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// PageRank parameters.
#[derive(Clone, Debug)]
pub struct PageRankConfig {
    /// Damping factor d (default 0.85).
    pub damping: f64,
    /// Iterations (default 10; with `tol`, the maximum).
    pub iterations: usize,
    /// Stop when an iteration's L1 change is below this.
    pub tol: Option<f64>,
}

impl Default for PageRankConfig {
    fn default() -> Self {
        PageRankConfig {
            damping: 0.85,
            iterations: 10,
            tol: None,
        }
    }
}

impl PageRankConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.damping) {
            return Err(Error::Invalid(format!(
                "--damping {} must be within [0, 1]",
                self.damping
            )));
        }
        if let Some(t) = self.tol {
            if t.is_nan() || t <= 0.0 {
                return Err(Error::Invalid(format!("--tol {t} must be positive")));
            }
        }
        Ok(())
    }
}

/// Ranks after a run.
pub struct PageRank {
    /// PR/outdeg for vertices with out-edges, PR itself for sinks.
    contrib: F64s,
    sum: F64s,
    deg: Degrees,
    n: usize,
    damping: f64,
    sinks: f64,
    iterations: usize,
    max_iterations: usize,
    tol: Option<f64>,
    /// L1 change of the last iteration.
    pub last_change: f64,
    directed: bool,
}

impl PageRank {
    /// The rank of dense vertex `v`.
    pub fn value(&self, v: usize) -> f64 {
        let d = self.deg.get(v);
        if d == 0 {
            self.contrib.get(v)
        } else {
            self.contrib.get(v) * d as f64
        }
    }

    /// Iterations run.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Bytes of vertex state for `n` vertices.
    pub fn state_bytes(n: u64) -> u64 {
        16 * n.next_multiple_of(BLOCK as u64) + Degrees::memory_bytes(n)
    }
}

impl TileProgram for PageRank {
    fn directions(&self) -> &'static [Dir] {
        if self.directed {
            &[Dir::Forward]
        } else {
            &[Dir::Forward, Dir::Reverse]
        }
    }

    fn begin(&mut self, iter: usize) -> bool {
        iter < self.max_iterations && self.n > 0
    }

    fn active_vertices(&self) -> u64 {
        self.n as u64
    }

    fn active(&self, _block: u64) -> bool {
        true
    }

    #[inline]
    fn apply(&self, tile: &Tile, dir: Dir) {
        let written = self.sum.block(tile.written_block(dir) as usize * BLOCK);
        self.push_tile(tile, dir, written);
    }

    fn end(&mut self, iter: usize) -> IterEnd {
        let n = self.n as f64;
        // Grouped as the Graphalytics reference does (bit-identical output on
        // graphs of one tile and one writer; elsewhere the sums' order differs).
        let base = ((1.0 - self.damping) + self.damping * self.sinks) / n;
        let (d, contrib, sum, deg) = (self.damping, &self.contrib, &self.sum, &self.deg);
        let (change, sinks) = (0..self.n)
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(|v| {
                let dv = deg.get(v);
                let old = if dv == 0 {
                    contrib.get(v)
                } else {
                    contrib.get(v) * dv as f64
                };
                let pr = base + d * sum.get(v);
                sum.set(v, 0.0);
                if dv == 0 {
                    contrib.set(v, pr);
                    ((pr - old).abs(), pr)
                } else {
                    contrib.set(v, pr / dv as f64);
                    ((pr - old).abs(), 0.0)
                }
            })
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        self.sinks = sinks;
        self.last_change = change;
        self.iterations = iter + 1;
        let done = self.iterations >= self.max_iterations || self.tol.is_some_and(|t| change < t);
        IterEnd {
            active_vertices: self.n as u64,
            done,
        }
    }

    fn may_need_next(&self, _row: u32, _col: u32) -> bool {
        self.iterations + 1 < self.max_iterations
    }

    fn shares_blocks(&self) -> bool {
        true
    }

    fn apply_private(&self, tile: &Tile, dir: Dir, into: &[AtomicU64; BLOCK]) {
        self.push_tile(tile, dir, into);
    }

    fn merge_private(&self, block: u32, from: &[AtomicU64; BLOCK]) {
        let to = self.sum.block(block as usize * BLOCK);
        for (t, f) in to.iter().zip(from) {
            let add = f64::from_bits(f.load(Relaxed));
            t.store((f64::from_bits(t.load(Relaxed)) + add).to_bits(), Relaxed);
        }
    }
}

/// Adds `from[u]` into `to[v]` for every edge (u, v) of a tile, or (v, u)
/// when `FLIP`. Both sides are whole blocks, so there are no bounds checks.
#[inline(always)]
fn push<const FLIP: bool>(from: &[AtomicU64; BLOCK], to: &[AtomicU64; BLOCK], edges: &[u32]) {
    for &e in edges {
        let (s, d) = unpack(e);
        let (f, t) = if FLIP { (d, s) } else { (s, d) };
        let c = f64::from_bits(from[f].load(Relaxed));
        let cell = &to[t];
        cell.store((f64::from_bits(cell.load(Relaxed)) + c).to_bits(), Relaxed);
    }
}

/// [`push`] reversed, skipping self-loops (a diagonal tile's reverse pass).
fn push_skipping_loops(from: &[AtomicU64; BLOCK], to: &[AtomicU64; BLOCK], edges: &[u32]) {
    for &e in edges {
        let (s, d) = unpack(e);
        if s != d {
            let c = f64::from_bits(from[d].load(Relaxed));
            let cell = &to[s];
            cell.store((f64::from_bits(cell.load(Relaxed)) + c).to_bits(), Relaxed);
        }
    }
}

impl PageRank {
    /// Adds the contributions of `tile`'s edges in `dir` into `to`, the
    /// written block's sums or a private copy of them.
    #[inline]
    fn push_tile(&self, tile: &Tile, dir: Dir, to: &[AtomicU64; BLOCK]) {
        let (sb, db) = (tile.src_base(), tile.dst_base());
        match dir {
            Dir::Forward => push::<false>(self.contrib.block(sb), to, tile.edges),
            // A self-loop is one adjacency entry: the forward pass counted it.
            Dir::Reverse if tile.row == tile.col => {
                push_skipping_loops(self.contrib.block(db), to, tile.edges)
            }
            Dir::Reverse => push::<true>(self.contrib.block(db), to, tile.edges),
        }
    }
}

/// Runs PageRank on `store` inside `budget`.
pub fn pagerank(
    store: &Store,
    cfg: &PageRankConfig,
    engine: StreamConfig,
    budget: &Budget,
) -> Result<(PageRank, RunStats)> {
    cfg.validate()?;
    let m = store.manifest();
    let n = m.num_vertices;
    let need = required_bytes(store, PageRank::state_bytes(n));
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "pagerank on {n} vertices needs at least {} (vertex state {} plus two segments); raise --memory",
            crate::size::format_size(need),
            crate::size::format_size(PageRank::state_bytes(n))
        )));
    }
    let _state = budget.charge(PageRank::state_bytes(n), "pagerank vertex state")?;
    let deg = Degrees::load(store.root(), "out")?;
    let n = n as usize;
    let init = if n > 0 { 1.0 / n as f64 } else { 0.0 };
    let contrib = F64s::new_blocks(n, 0.0);
    let mut sinks = 0.0;
    for v in 0..n {
        let d = deg.get(v);
        if d == 0 {
            contrib.set(v, init);
            sinks += init;
        } else {
            contrib.set(v, init / d as f64);
        }
    }
    let mut prog = PageRank {
        contrib,
        sum: F64s::new_blocks(n, 0.0),
        deg,
        n,
        damping: cfg.damping,
        sinks,
        iterations: 0,
        max_iterations: cfg.iterations,
        tol: cfg.tol,
        last_change: 0.0,
        directed: m.directed,
    };
    let mut eng = StreamEngine::new(store, budget, engine)?;
    let mut stats = eng.run(&mut prog, cfg.iterations)?;
    stats.vertex_state_bytes = PageRank::state_bytes(n as u64);
    Ok((prog, stats))
}
