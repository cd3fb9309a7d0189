//! A source that counts the passes a build makes over it: a build that
//! decides before its first pass reads its input once.

use outcore::error::Result;
use outcore::ingest::{EdgeSource, NamedBatch, RawEdge};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// `inner`, counting the passes over its edges.
pub struct Passes {
    pub inner: Box<dyn EdgeSource>,
    /// Calls of `for_each_edge_batch` or `for_each_named_batch`.
    pub edges: u32,
    /// Calls of `for_each_vertex_batch` (a source's vertex list).
    pub vertices: u32,
}

impl Passes {
    pub fn new(inner: Box<dyn EdgeSource>) -> Self {
        Passes {
            inner,
            edges: 0,
            vertices: 0,
        }
    }
}

impl EdgeSource for Passes {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn input_bytes(&self) -> Option<u64> {
        self.inner.input_bytes()
    }
    fn bytes_consumed(&self) -> u64 {
        self.inner.bytes_consumed()
    }
    fn consumed_counter(&self) -> Option<Arc<AtomicU64>> {
        self.inner.consumed_counter()
    }
    fn ids_fit_u32(&self) -> bool {
        self.inner.ids_fit_u32()
    }
    fn expected_edges(&self) -> Option<u64> {
        self.inner.expected_edges()
    }
    fn dense_vertex_count(&self) -> Option<u64> {
        self.inner.dense_vertex_count()
    }
    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        self.vertices += 1;
        self.inner.for_each_vertex_batch(f)
    }
    fn string_ids(&self) -> bool {
        self.inner.string_ids()
    }
    fn for_each_named_batch(&mut self, f: &mut dyn FnMut(&NamedBatch) -> Result<()>) -> Result<()> {
        self.edges += 1;
        self.inner.for_each_named_batch(f)
    }
    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        self.inner.sample_edges()
    }
    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        self.edges += 1;
        self.inner.for_each_edge_batch(f)
    }
}
