//! Vertex priorities for the programs that run a sequential greedy
//! algorithm in parallel supersteps (Jones-Plassmann colouring, Luby's
//! maximal independent set; Blelloch, Fineman, Shun, "Greedy sequential
//! maximal independent set and matching are parallel on average"): a vertex
//! decides once every neighbour of higher priority has, so the result is
//! exactly the sequential greedy one in priority order, and the number of
//! supersteps is the longest chain of decreasing priorities (short when the
//! priorities are random).
//!
//! A priority is a `u64` key, unique per vertex: an optional class in the
//! top byte (colouring's largest-log-degree-first), a seeded hash of the
//! vertex's rank, then the rank itself (ties impossible). Ranks, not dense
//! ids, so a seed gives the same result whatever the store's vertex order.
//! Messages carry the sender's key, so a receiver can tell higher from lower
//! neighbours.

use crate::engine::vertex::id32;
use crate::ingest::gen::rng::hash3;

/// A message: the sender's key and what it says.
pub type Msg = (u64, u32);

/// Payload of the first superstep: "I exist, with this key".
pub const HELLO: u32 = u32::MAX;

/// The key of the vertex of rank `rank`: `class` (7 bits) first, then 25
/// bits of a hash of `(seed, stream, rank)`, then the rank.
#[inline]
pub fn key(seed: u64, stream: u64, rank: u32, class: u8) -> u64 {
    let h = hash3(seed, stream, rank as u64) >> 39; // 25 bits
    ((class as u64 & 0x7f) << 57) | (h << 32) | rank as u64
}

/// Largest-log-degree-first (Hasenplaugh et al., "Ordering heuristics for
/// parallel graph coloring"): the class of a vertex of degree `d`, so
/// higher degrees go first, random within a power of two.
#[inline]
pub fn log_degree_class(d: u64) -> u8 {
    (64 - d.leading_zeros()) as u8
}

/// The messages of `msgs` from neighbours of higher priority than `own`.
#[inline]
pub fn higher(msgs: &[Msg], own: u64) -> impl Iterator<Item = u32> + '_ {
    msgs.iter().filter(move |m| m.0 > own).map(|m| m.1)
}

/// The keys of a store's vertices by dense id, `key(rank, out-degree)`
/// each (tests, references).
pub fn keys(
    store: &crate::store::Store,
    key: impl Fn(u32, u64) -> u64,
) -> crate::error::Result<Vec<u64>> {
    let n = store.manifest().num_vertices as usize;
    let mut out = Vec::with_capacity(n);
    let mut ranks = store.rank_reader()?;
    crate::store::degrees::for_each(store.path(), "out", |_, d| {
        out.push(key(id32(ranks.next_rank()?), d));
        Ok(())
    })?;
    Ok(out)
}

pub use crate::algo::triangles::simple_neighbours;

/// Vertices `0..keys.len()` by decreasing key: the greedy order.
pub fn greedy_order(keys: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_unstable_by(|&a, &b| keys[b].cmp(&keys[a]));
    order
}
