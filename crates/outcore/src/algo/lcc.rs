//! Local clustering coefficient with LDBC Graphalytics semantics (LCC):
//! N(v) is the set of in- and out-neighbours ignoring direction (v itself
//! excluded), d = |N(v)|; LCC(v) = (arcs u -> w with u, w in N(v)) /
//! (d (d - 1)), 0 when d <= 1. An undirected edge counts both ways.
//! Reference: [`crate::algo::reference::lcc`].
//!
//! Out of core by triangle listing (`engine::external::triangles`): each
//! triangle credits each corner with the arcs between its two other
//! corners, which summed over a vertex's triangles is the numerator.

use crate::engine::external::triangles::{triangle_credits, Credit};
use crate::engine::external::ExternalConfig;
use crate::engine::stats::RunStats;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// LCC of a vertex with `d` distinct neighbours and `arcs` among them.
#[inline]
pub fn coefficient(d: u32, arcs: u64) -> f64 {
    if d <= 1 {
        0.0
    } else {
        arcs as f64 / (d as f64 * (d as f64 - 1.0))
    }
}

/// Calls `f(dense id, lcc)` for every vertex in dense order.
pub fn lcc_each(
    store: &Store,
    ext: &ExternalConfig,
    budget: &Budget,
    mut f: impl FnMut(u64, f64),
) -> Result<RunStats> {
    let mut stats = triangle_credits(store, Credit::Arcs, ext, budget, |v, d, arcs| {
        f(v, coefficient(d, arcs))
    })?;
    stats.algorithm = "lcc".into();
    Ok(stats)
}

/// LCC by dense id.
pub fn lcc(store: &Store, ext: &ExternalConfig, budget: &Budget) -> Result<(Vec<f64>, RunStats)> {
    let mut out = Vec::with_capacity(store.manifest().num_vertices as usize);
    let stats = lcc_each(store, ext, budget, |_, x| out.push(x))?;
    Ok((out, stats))
}
