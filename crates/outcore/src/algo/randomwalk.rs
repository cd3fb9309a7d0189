//! Random walks (PartitionedVC's random walk; with `--restart`, random walk
//! with restart: from `--source` it samples personalised PageRank, without
//! a source PageRank with damping `1 - restart`). Each vertex starts
//! `walks_per_vertex` walks of `length` steps (with a source, the source
//! starts them all); at each step a walker restarts with probability
//! `restart`, else follows a uniformly chosen out-edge (undirected: any
//! edge); at a vertex without out-edges it stops, or restarts when
//! `restart > 0` (PageRank's dangling vertices). Output: visits per vertex
//! (every position of every walk, the start included) and, on request, the
//! walks. Deterministic for a seed on any budget and thread count.
//!
//! Run by the external engine's walker logs
//! ([`crate::engine::external::walk`]). Reference: [`reference()`] below.

use crate::algo::reference::MemGraph;
pub use crate::engine::external::walk::{next_move, random_walks, Move, WalkConfig, Walks};

/// The in-memory reference: every walk (by walk id, dense ids) and the
/// visits per vertex, by the same [`next_move`] rule over the sorted lists
/// of `g`.
pub fn reference(g: &MemGraph, cfg: &WalkConfig) -> (Vec<Vec<u64>>, Vec<u64>) {
    let n = g.n as u64;
    let mut of_rank = vec![0u64; g.n];
    for (v, &r) in g.rank.iter().enumerate() {
        of_rank[r as usize] = v as u64;
    }
    let total = match cfg.source {
        Some(_) => cfg.walks_per_vertex,
        None => n * cfg.walks_per_vertex,
    };
    let mut visits = vec![0u64; g.n];
    let walks = (0..total)
        .map(|w| {
            let mut v = cfg
                .source
                .unwrap_or_else(|| of_rank[(w / cfg.walks_per_vertex) as usize]);
            let mut walk = vec![v];
            for t in 0..cfg.length {
                let out = &g.out[v as usize];
                v = match next_move(cfg, n, w, t, out.len() as u64) {
                    Move::Stop => break,
                    Move::Jump(x) => x,
                    Move::Edge(j) => out[j as usize].0 as u64,
                };
                walk.push(v);
            }
            for &x in &walk {
                visits[x as usize] += 1;
            }
            walk
        })
        .collect();
    (walks, visits)
}
