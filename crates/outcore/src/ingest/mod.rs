//! `ingest`: turning edge lists and generators into stores (DESIGN.md, "Layers").
//!
//! Every input — a parsed file or a generator — is an [`EdgeSource`]: a stream of
//! [`RawEdge`] batches in input order, plus optional isolated vertices. The
//! external-memory builder in [`build`] consumes any source inside a budget.

pub mod bucket;
pub mod build;
pub mod idmap;
pub mod names;
pub mod parse;
pub mod partition;
pub mod scratch;
pub mod sort;
pub mod update;

use crate::error::Result;
pub use parse::named::{NamedBatch, NamedEdge};

/// Places an edge sample is read from ([`EdgeSource::sample_edges`]).
pub const SAMPLE_PLACES: u64 = 64;
/// Edges read at each place of a sample.
pub const SAMPLE_PER_PLACE: u64 = 1024;

/// One edge as read from the input, in the input's own (original) ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawEdge {
    pub src: u64,
    pub dst: u64,
    /// The edge weight; 1.0 when the input is read unweighted.
    pub weight: f64,
}

/// A stream of edges (and isolated vertices) to build a store from.
///
/// Batches arrive in input order: for duplicate edges the last occurrence wins
/// (NetworkX `add_edges_from` semantics), so order matters.
pub trait EdgeSource: Send {
    /// What is being read, for messages ("graph.txt.gz", "kron scale 22").
    fn describe(&self) -> String;

    /// Total bytes of input, when known (for progress and MB/s).
    fn input_bytes(&self) -> Option<u64> {
        None
    }

    /// Input bytes consumed so far (updated while streaming; for progress).
    fn bytes_consumed(&self) -> u64 {
        0
    }

    /// A counter of input bytes consumed that others may read while edges
    /// are being delivered (progress), when the source keeps one.
    fn consumed_counter(&self) -> Option<std::sync::Arc<std::sync::atomic::AtomicU64>> {
        None
    }

    /// True when every id is below 2^32 whatever the input holds (bin32
    /// files, generators): the builder then packs an edge into 8 bytes.
    fn ids_fit_u32(&self) -> bool {
        false
    }

    /// About how many edges the source holds, when it can tell (an
    /// estimate: the builder sizes its buckets with it).
    fn expected_edges(&self) -> Option<u64> {
        None
    }

    /// `Some(n)` when the vertex set is exactly `0..n` whatever edges appear
    /// (generators): the builder then needs no id map and keeps isolated vertices.
    fn dense_vertex_count(&self) -> Option<u64> {
        None
    }

    /// Streams ids of vertices that exist even without edges (an LDBC `.v`
    /// file, the dimension of a Matrix Market matrix). Called before the edges.
    fn for_each_vertex_batch(&mut self, _f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        Ok(())
    }

    /// True when vertex ids are strings: the edges come from
    /// [`Self::for_each_named_batch`], not [`Self::for_each_edge_batch`].
    fn string_ids(&self) -> bool {
        false
    }

    /// Streams the vertices and edges of a source with string ids, in input
    /// order (vertices listed on their own first).
    fn for_each_named_batch(
        &mut self,
        _f: &mut dyn FnMut(&NamedBatch) -> Result<()>,
    ) -> Result<()> {
        Err(crate::error::Error::Invalid(format!(
            "{}: vertex ids are integers",
            self.describe()
        )))
    }

    /// About [`SAMPLE_PLACES`] x [`SAMPLE_PER_PLACE`] edges read at evenly
    /// spaced places of the input, when the source can reach them without
    /// reading it all (files on disk, numbered generator blocks); `None`
    /// when it is read front to back only (pipes, gzip). The build takes its
    /// input buckets' key ranges from them: a first buffer of an edge list
    /// sorted by source holds only the front of the range.
    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        Ok(None)
    }

    /// Streams all edges, in input order, in batches of any size.
    /// An error returned by `f` stops the stream and is returned.
    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()>;
}

/// An in-memory source: for tests, small programmatic graphs and bindings.
pub struct VecSource {
    /// Vertices that exist even without edges.
    pub vertices: Vec<u64>,
    pub edges: Vec<RawEdge>,
    /// `Some(n)`: the vertex set is exactly `0..n`.
    pub dense: Option<u64>,
    /// Gives a sample ([`EdgeSource::sample_edges`]; the default): the
    /// build buckets its input by key range, else by hash.
    pub sampled: bool,
}

impl VecSource {
    /// A source of `(src, dst, weight)` triples.
    pub fn new(edges: impl IntoIterator<Item = (u64, u64, f64)>) -> VecSource {
        VecSource {
            vertices: Vec::new(),
            edges: edges
                .into_iter()
                .map(|(src, dst, weight)| RawEdge { src, dst, weight })
                .collect(),
            dense: None,
            sampled: true,
        }
    }
}

impl EdgeSource for VecSource {
    fn describe(&self) -> String {
        format!("{} in-memory edges", self.edges.len())
    }

    fn expected_edges(&self) -> Option<u64> {
        Some(self.edges.len() as u64)
    }

    fn ids_fit_u32(&self) -> bool {
        let small = |v: u64| v <= u32::MAX as u64;
        self.vertices.iter().all(|&v| small(v))
            && self.edges.iter().all(|e| small(e.src) && small(e.dst))
    }

    fn dense_vertex_count(&self) -> Option<u64> {
        self.dense
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        f(&self.vertices)
    }

    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        let n = self.edges.len() as u64;
        if !self.sampled || n == 0 {
            return Ok(None);
        }
        let per = SAMPLE_PER_PLACE.min(n.div_ceil(SAMPLE_PLACES));
        Ok(Some(
            (0..SAMPLE_PLACES)
                .flat_map(|p| {
                    let at = p * n / SAMPLE_PLACES;
                    at..(at + per).min(n)
                })
                .map(|i| self.edges[i as usize])
                .collect(),
        ))
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        self.edges.chunks(1000).try_for_each(f)
    }
}
