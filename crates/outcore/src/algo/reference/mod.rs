//! Plain in-memory reference implementations (GAPBS-style verifiers): simple
//! and obviously correct, not fast. Every engine result is checked against
//! these on graphs that fit in memory.
//!
//! Everything works on **dense ids** `0..n`. Labels that name a vertex
//! (WCC, CDLP) are **ranks** ([`MemGraph::rank`]: the position of the
//! original id among the sorted original ids, DESIGN.md "Dense ids"), which
//! are ordered as the original ids whatever the store's vertex order: "the
//! smallest original id" of a set is its smallest rank, and "ties go to the
//! smallest label" (CDLP) or "label = smallest id in the component" (WCC)
//! give the same answer on ranks as on original ids. Callers print labels
//! through the id map (`ids.original_of_rank(label)`), never the label itself.
//!
//! Self-loops (the LDBC specification has none; NetworkX and our stores keep
//! them) are handled as follows, and an engine must do the same:
//!
//! - BFS, SSSP, khop, WCC: irrelevant.
//! - PR: a self-loop is an ordinary edge. Directed: `v -> v` counts in
//!   `outdeg(v)` and `v` is one of its own in-neighbours. Undirected: the
//!   self-loop is one neighbour entry (counted once in `deg(v)`, and `v`
//!   receives `PR(v)/deg(v)` from itself once). Ranks still sum to 1.
//! - CDLP: the neighbour multiset is the adjacency as stored. Directed:
//!   `out(v) ++ in(v)`, so a self-loop contributes the vertex's own label
//!   twice (once as out-, once as in-neighbour). Undirected: `out(v)`, a
//!   self-loop contributes it once.
//! - LCC: ignored. `v` is never in its own neighbourhood `N(v)`, and a
//!   self-loop `u -> u` is never counted as an edge between neighbours
//!   (as `networkx.clustering`).
//! - core numbers: ignored (a self-loop adds nothing to the degree).

use crate::error::{Error, Result};
use crate::store::csrscan::scan_csr;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

mod cores;
mod labels;
mod pagerank;
mod paths;
#[cfg(test)]
mod semantics;
#[cfg(test)]
pub(crate) mod tests;

pub use cores::{core_numbers, lcc};
pub use labels::{cdlp, wcc};
pub use pagerank::{pagerank, pagerank_tol};
pub use paths::{bfs, khop, sssp, BFS_UNREACHABLE};

/// A whole graph in memory, loaded from a store's CSR (dense ids 0..n).
#[derive(Clone, Debug, PartialEq)]
pub struct MemGraph {
    pub n: usize,
    pub directed: bool,
    pub weighted: bool,
    /// out-neighbours (undirected: all neighbours, a self-loop once), sorted, with weights (1.0 when unweighted)
    pub out: Vec<Vec<(u32, f64)>>,
    /// in-neighbours (directed); for undirected the same as out
    pub inn: Vec<Vec<(u32, f64)>>,
    /// The rank of each dense id (`order.bin`; the identity when dense id = rank).
    pub rank: Vec<u32>,
}

impl MemGraph {
    /// Loads the whole graph of `store` from its CSR files (`csr/out.*`, and
    /// `csr/in.*` when directed).
    pub fn load(store: &crate::store::Store) -> Result<MemGraph> {
        let m = store.manifest();
        if m.num_vertices >= u32::MAX as u64 {
            return Err(Error::store(
                store.path(),
                format!("{} vertices do not fit u32 dense ids", m.num_vertices),
            ));
        }
        let n = m.num_vertices as usize;
        let read = |which: &str| -> Result<Vec<Vec<(u32, f64)>>> {
            let mut adj: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
            scan_csr(store, which, m.weighted, |v, _, u, w| {
                if u >= m.num_vertices {
                    return Err(Error::store(
                        store.path(),
                        format!("csr/{which}: vertex {v} has neighbour {u} >= |V| = {n}"),
                    ));
                }
                adj[v as usize].push((u as u32, w));
                Ok(())
            })?;
            for list in &mut adj {
                list.sort_by_key(|e| e.0);
            }
            Ok(adj)
        };
        let out = read("out")?;
        let inn = if m.directed { read("in")? } else { out.clone() };
        let rank = store
            .load_ranks()?
            .unwrap_or_else(|| (0..n as u32).collect());
        Ok(MemGraph {
            n,
            directed: m.directed,
            weighted: m.weighted,
            out,
            inn,
            rank,
        })
    }

    /// The same graph with every vertex renumbered to its rank (the dense
    /// ids of an `--order original` store): the graph does not depend on the
    /// store's vertex order.
    pub fn in_rank_order(&self) -> MemGraph {
        let relabel = |lists: &[Vec<(u32, f64)>]| -> Vec<Vec<(u32, f64)>> {
            let mut out = vec![Vec::new(); self.n];
            for (v, list) in lists.iter().enumerate() {
                let mut l: Vec<(u32, f64)> = list
                    .iter()
                    .map(|&(u, w)| (self.rank[u as usize], w))
                    .collect();
                l.sort_by_key(|e| e.0);
                out[self.rank[v] as usize] = l;
            }
            out
        };
        MemGraph {
            n: self.n,
            directed: self.directed,
            weighted: self.weighted,
            out: relabel(&self.out),
            inn: relabel(&self.inn),
            rank: (0..self.n as u32).collect(),
        }
    }

    /// Builds a graph from `(src, dst, weight)` edges on dense ids `0..n`,
    /// with NetworkX `add_edges_from` semantics: duplicates are merged (the
    /// last weight wins; undirected `(u, v)` and `(v, u)` are the same edge),
    /// self-loops are kept; undirected `(u, v)` adds `v` to `out[u]` and `u`
    /// to `out[v]` (a self-loop once). `weighted` is set (weights are given).
    ///
    /// Panics if an endpoint is `>= n`.
    pub fn from_edges(n: usize, directed: bool, edges: &[(u32, u32, f64)]) -> MemGraph {
        let mut map: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        for &(s, d, w) in edges {
            assert!(
                (s as usize) < n && (d as usize) < n,
                "edge ({s}, {d}) has an endpoint >= n = {n}"
            );
            let key = if directed {
                (s, d)
            } else {
                (s.min(d), s.max(d))
            };
            map.insert(key, w);
        }
        let mut out: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        let mut inn: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (&(s, d), &w) in &map {
            out[s as usize].push((d, w));
            if directed {
                inn[d as usize].push((s, w));
            } else if s != d {
                out[d as usize].push((s, w));
            }
        }
        for list in out.iter_mut().chain(inn.iter_mut()) {
            list.sort_by_key(|e| e.0);
        }
        if !directed {
            inn = out.clone();
        }
        MemGraph {
            n,
            directed,
            weighted: true,
            out,
            inn,
            rank: (0..n as u32).collect(),
        }
    }

    /// Neighbours ignoring direction, as a sorted set without `v` itself.
    fn undirected_neighbours(&self, v: usize) -> Vec<u32> {
        let mut s: Vec<u32> = self.out[v]
            .iter()
            .chain(self.inn[v].iter())
            .map(|e| e.0)
            .filter(|&u| u as usize != v)
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}
