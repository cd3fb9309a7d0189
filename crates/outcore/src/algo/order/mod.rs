//! The Cuthill-McKee vertex order (`--order bfs`): CEESOR's vertex
//! enumeration idea (§3, "Vertex Enumeration in CEESOR": number connected
//! vertices close together, so gaps between neighbour ids are small and code
//! short), done with breadth-first levels as Cuthill and McKee: a root gets
//! the first id, then each level's vertices take the next ids ordered by the
//! smallest id of a neighbour in the level before, ties by their id in the
//! first store. Edges count as undirected (CEESOR does the same).
//!
//! The levels are numbered on a first store built in the usual order
//! ([`cuthill_mckee`]); `crate::api::build` then relabels that store in the
//! new order (`crate::ingest::build::relabel`).
//!
//! `--order auto` with `--compress` builds the first store as auto says, then
//! keeps it unless another order's gaps cost under [`choose::GAIN`] of its own: the
//! bits of the gaps between sorted neighbour ids, as the CSR codes them,
//! summed over one scan of the first store's out-adjacency relabelled every
//! way ([`choose::gap_bits`]). The other order is Cuthill-McKee's when the first
//! store is in the original order (no hubs: grids, meshes, road networks),
//! and the input's own when it is in degree order (a skewed graph, whose
//! breadth-first levels find no locality; p2p-Gnutella31's ids code 15%
//! smaller than its degree order: the crawl numbered neighbours close
//! together). What counts is the adjacency runs read; the order
//! maps (8 bytes a vertex, read to write results in original ids) do not.
//! (The sum of log2 |id(u) - id(v)| over the edges, tried first, ranked a
//! row-major grid's own order above Cuthill-McKee's, which codes 13-22%
//! smaller.) Auto considers the order only when the adjacency lists fit in
//! memory: out of core, numbering a graph without locality reads a page a
//! list (see `cuthill_mckee.rs`).

pub mod choose;
pub mod cuthill_mckee;

pub use choose::{choose, original_ranks, Choice, GAIN};
pub use cuthill_mckee::enumerate;
