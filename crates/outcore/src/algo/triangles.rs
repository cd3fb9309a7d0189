//! Triangle counting: per vertex, the triangles of the underlying simple
//! undirected graph it is a corner of (direction, duplicate edges and
//! self-loops ignored), as `networkx.triangles`; the total is their sum / 3.
//!
//! Out of core by the triangle listing LCC uses
//! (`engine::external::triangles`: degree-ordered orientation, blocks of
//! oriented lists that fit the budget, sorted-list intersection), with a
//! credit of one per corner. Reference: [`reference()`] below.

use crate::engine::external::triangles::{triangle_credits, Credit};
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// Calls `f(dense id, triangles)` for every vertex in dense order.
pub fn triangles_each(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
    mut f: impl FnMut(u64, u64),
) -> Result<RunStats> {
    let mut stats = triangle_credits(store, Credit::Triangles, ext, budget, |v, _, t| f(v, t))?;
    stats.algorithm = "triangles".into();
    Ok(stats)
}

/// Triangles by dense id.
pub fn triangles(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<u64>, RunStats)> {
    let mut out = Vec::with_capacity(store.manifest().num_vertices as usize);
    let stats = triangles_each(store, ext, budget, |_, t| out.push(t))?;
    Ok((out, stats))
}

/// The in-memory reference: per vertex of `0..n`, the triangles of the
/// simple undirected graph of `edges` it belongs to.
pub fn reference(n: usize, edges: &[(u32, u32)]) -> Vec<u64> {
    let nbrs = simple_neighbours(n, edges);
    let mut t = vec![0u64; n];
    for v in 0..n {
        for &u in nbrs[v].iter().filter(|&&u| (u as usize) > v) {
            for &w in nbrs[u as usize].iter().filter(|&&w| w > u) {
                if nbrs[v].binary_search(&w).is_ok() {
                    t[v] += 1;
                    t[u as usize] += 1;
                    t[w as usize] += 1;
                }
            }
        }
    }
    t
}

/// The neighbour sets of the simple undirected graph of `edges` on `0..n`
/// (direction, duplicates and self-loops dropped), sorted (references).
pub fn simple_neighbours(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut nbrs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        if a != b {
            nbrs[a as usize].push(b);
            nbrs[b as usize].push(a);
        }
    }
    for l in &mut nbrs {
        l.sort_unstable();
        l.dedup();
    }
    nbrs
}
