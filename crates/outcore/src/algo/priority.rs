//! Vertex priorities: the order in which colouring repairs its conflicts
//! (the lower-priority end recolours), and the programs that run a
//! sequential greedy algorithm in parallel supersteps (Luby's maximal
//! independent set; Blelloch, Fineman, Shun, "Greedy sequential
//! maximal independent set and matching are parallel on average"): a vertex
//! decides once every neighbour of higher priority has, so the result is
//! exactly the sequential greedy one in priority order, and the number of
//! supersteps is the longest chain of decreasing priorities (short when the
//! priorities are random).
//!
//! A priority is a `u64` key, unique per vertex: an optional class in the
//! top byte (colouring's largest-log-degree-first), a seeded hash of the
//! vertex's rank, then the rank itself (ties impossible) in the low
//! [`rank_bits`] bits: 32 on a store of up to 2^32 vertices (25 hash bits),
//! more past it (fewer hash bits; DESIGN.md, "Wide ids"). Ranks, not dense
//! ids, so a seed gives the same result whatever the store's vertex order.
//! Messages carry the sender's key, so a receiver can tell higher from lower
//! neighbours.

use crate::base::rng::hash3;
use crate::engine::vertex::Value;

/// A message: the sender's key and what it says, as three 32-bit words
/// (12 bytes, aligned to 4: a `(u64, u32)` pads to 16). The grouped arena
/// in memory holds one per list entry (PartitionedVC's grouped delivery),
/// so the slot size decides what fits: 12 bytes put kron-24's 520 M
/// entries in 6.2 GB where 16 needed 8.3. Encoded as the key then the
/// word, little-endian (12 bytes in the external engine's logs, as the
/// pair was).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg([u32; 3]);

const _: () = assert!(std::mem::size_of::<Msg>() == 12);

impl Msg {
    /// The message of a sender of key `key` saying `word`.
    #[inline]
    pub fn new(key: u64, word: u32) -> Msg {
        Msg([key as u32, (key >> 32) as u32, word])
    }
    /// The sender's key.
    #[inline]
    pub fn key(&self) -> u64 {
        (self.0[1] as u64) << 32 | self.0[0] as u64
    }
    /// What it says.
    #[inline]
    pub fn word(&self) -> u32 {
        self.0[2]
    }
}

impl Value for Msg {
    const BYTES: usize = 12;
    #[inline]
    fn put(&self, out: &mut [u8]) {
        self.key().put(out);
        self.word().put(&mut out[8..]);
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        Msg::new(u64::get(b), u32::get(&b[8..]))
    }
}

/// Bits the ranks of `n` vertices take in a key: 32, or more past 2^32
/// vertices (57 at most: keys are unique up to 2^57 vertices).
#[inline]
pub fn rank_bits(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).clamp(32, 57)
}

/// The key of the vertex of rank `rank`: `class` (7 bits) first, then
/// `57 - bits` bits of a hash of `(seed, stream, rank)` (25 for 32-bit
/// ranks), then the rank in the low `bits` ([`rank_bits`]).
#[inline]
pub fn key(seed: u64, stream: u64, rank: u64, class: u8, bits: u32) -> u64 {
    debug_assert!((32..=57).contains(&bits) && rank < 1 << bits);
    let h = hash3(seed, stream, rank).checked_shr(7 + bits).unwrap_or(0);
    ((class as u64 & 0x7f) << 57) | (h << bits) | rank
}

/// Largest-log-degree-first (Hasenplaugh et al., "Ordering heuristics for
/// parallel graph coloring"): the class of a vertex of degree `d`, so
/// higher degrees go first, random within a power of two.
#[inline]
pub fn log_degree_class(d: u64) -> u8 {
    (64 - d.leading_zeros()) as u8
}

/// The keys of a store's vertices by dense id, `key(rank, out-degree)`
/// each (tests, references).
pub fn keys(
    store: &crate::store::Store,
    key: impl Fn(u64, u64) -> u64,
) -> crate::error::Result<Vec<u64>> {
    let n = store.manifest().num_vertices as usize;
    let mut out = Vec::with_capacity(n);
    let mut ranks = store.rank_reader()?;
    crate::store::degrees::for_each_of(store, "out", |_, d| {
        out.push(key(ranks.next_rank()?, d));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to 2^32 vertices a key is the 32-bit layout (the keys of every
    /// store so far); past it the rank takes more bits and the keys stay
    /// unique and ordered by class first.
    #[test]
    fn keys_widen_past_2_32_ranks() {
        assert_eq!(rank_bits(0), 32);
        assert_eq!(rank_bits(1 << 32), 32);
        assert_eq!(rank_bits((1 << 32) + 1), 33);
        assert_eq!(rank_bits(1 << 40), 40);
        assert_eq!(rank_bits(u64::MAX), 57);
        assert_eq!(key(5, 9, 3, 1, 57), 1 << 57 | 3, "no hash bits left");
        for rank in [0u64, 7, u32::MAX as u64 - 1] {
            let h = hash3(5, 9, rank) >> 39;
            assert_eq!(key(5, 9, rank, 3, 32), 3 << 57 | h << 32 | rank);
        }
        let bits = rank_bits(1 << 40);
        let ranks = [0u64, 1 << 32, (1 << 32) + 1, (1 << 40) - 1, 1];
        let mut ks: Vec<u64> = ranks.iter().map(|&r| key(5, 9, r, 0, bits)).collect();
        for (&k, &r) in ks.iter().zip(&ranks) {
            assert_eq!(k & ((1 << bits) - 1), r, "the rank in the low bits");
        }
        ks.sort_unstable();
        ks.dedup();
        assert_eq!(ks.len(), ranks.len());
        assert!(key(5, 9, 1 << 39, 1, bits) > key(5, 9, 1, 0, bits));
    }

    /// A message is 12 bytes in memory and in the logs, and keeps its key
    /// and word (all 64 bits of the key) through both.
    #[test]
    fn a_message_is_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Msg>(), 12);
        assert_eq!(std::mem::size_of::<Option<Msg>>(), 16);
        for (k, w) in [
            (0u64, 0u32),
            (u64::MAX, u32::MAX),
            (1 << 57 | 3 << 32 | 7, 1 << 31),
        ] {
            let m = Msg::new(k, w);
            assert_eq!((m.key(), m.word()), (k, w));
            let mut b = [0u8; 12];
            m.put(&mut b);
            assert_eq!(b[..8], k.to_le_bytes());
            assert_eq!(Msg::get(&b), m);
        }
    }
}
