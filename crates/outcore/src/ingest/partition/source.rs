//! A shard's edges as an [`EdgeSource`]: the store's out-CSR in global
//! ids, less the edges with no endpoint the shard owns, and its owned
//! vertices (so an owned vertex without edges is one of the shard's).

use crate::error::Result;
use crate::ingest::{EdgeSource, RawEdge};
use crate::store::csrscan::scan_csr;
use crate::store::Store;

/// Edges (or vertices) handed to the build in one batch.
const BATCH: usize = 1 << 16;

/// Calls `f(src, dst, weight)` for every edge of `store` in global ids
/// (`global[dense id]`): directed, from the out-CSR; undirected, each edge
/// once, from its smaller dense id's list.
pub(super) fn for_each_global_edge(
    store: &Store,
    global: &[u32],
    mut f: impl FnMut(u64, u64, f64) -> Result<()>,
) -> Result<()> {
    let m = store.manifest();
    let directed = m.directed;
    scan_csr(store, "out", m.weighted, |v, _, u, w| {
        if !directed && u < v {
            return Ok(());
        }
        // scan_csr leaves the bound check to its caller.
        let (Some(&s), Some(&d)) = (global.get(v as usize), global.get(u as usize)) else {
            let why = format!("vertex {v} has neighbour {u} >= {}", global.len());
            return Err(crate::error::Error::damaged(
                store.path(),
                &store.adjacency_file("out"),
                why,
            ));
        };
        f(s as u64, d as u64, w)
    })
}

/// Shard `k`'s edges: those with an endpoint in `lo..hi`, the global ids it owns.
pub(super) struct ShardSource<'a> {
    pub(super) store: &'a Store,
    pub(super) global: &'a [u32],
    pub(super) k: usize,
    pub(super) parts: usize,
    pub(super) lo: u64,
    pub(super) hi: u64,
    /// The edges it will give (counted before).
    pub(super) edges: u64,
}

impl EdgeSource for ShardSource<'_> {
    fn describe(&self) -> String {
        format!(
            "shard {} of {} of {}",
            self.k,
            self.parts,
            self.store.path().display()
        )
    }

    fn expected_edges(&self) -> Option<u64> {
        Some(self.edges)
    }

    fn ids_fit_u32(&self) -> bool {
        true
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        let mut at = self.lo;
        while at < self.hi {
            let end = self.hi.min(at + BATCH as u64);
            f(&(at..end).collect::<Vec<u64>>())?;
            at = end;
        }
        Ok(())
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        let (lo, hi) = (self.lo, self.hi);
        let mut batch = Vec::with_capacity(BATCH);
        for_each_global_edge(self.store, self.global, |src, dst, weight| {
            if (lo..hi).contains(&src) || (lo..hi).contains(&dst) {
                batch.push(RawEdge { src, dst, weight });
                if batch.len() == BATCH {
                    f(&batch)?;
                    batch.clear();
                }
            }
            Ok(())
        })?;
        f(&batch)
    }
}
