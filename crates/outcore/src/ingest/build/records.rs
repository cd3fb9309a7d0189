//! The records the build carries through its sorters.

use super::spill_code::SpillCode;
use crate::ingest::sort::Record;
use crate::store::csr::Slot;
use crate::store::tiles::{TileGeometry, TILE_BITS};
use std::marker::PhantomData;

/// An edge weight as carried through the sorters: `()` when unweighted.
pub(super) trait Weight: Copy + Send + Sync + 'static {
    const BYTES: usize;
    fn from_f64(w: f64) -> Self;
    fn get(self) -> f64;
    fn enc(self, out: &mut [u8]);
    fn dec(b: &[u8]) -> Self;
}

impl Weight for () {
    const BYTES: usize = 0;
    fn from_f64(_: f64) -> Self {}
    fn get(self) -> f64 {
        1.0
    }
    fn enc(self, _: &mut [u8]) {}
    fn dec(_: &[u8]) -> Self {}
}

impl Weight for f64 {
    const BYTES: usize = 8;
    fn from_f64(w: f64) -> Self {
        w
    }
    fn get(self) -> f64 {
        self
    }
    fn enc(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn dec(b: &[u8]) -> Self {
        f64::from_le_bytes(b.try_into().unwrap())
    }
}

/// An edge in original ids, sorted by (src, dst).
#[derive(Clone, Copy)]
pub(super) struct Orig<W> {
    pub src: u64,
    pub dst: u64,
    pub w: W,
}

impl<W: Weight> Record for Orig<W> {
    const BYTES: usize = 16 + W::BYTES;
    type Key = (u64, u64);
    #[inline(always)]
    fn key(&self) -> (u64, u64) {
        (self.src, self.dst)
    }
    #[inline(always)]
    fn radix_key(&self) -> u128 {
        (self.src as u128) << 64 | self.dst as u128
    }
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.src.to_le_bytes());
        out[8..16].copy_from_slice(&self.dst.to_le_bytes());
        self.w.enc(&mut out[16..]);
    }
    const KEY_BYTES: usize = 16;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        Orig {
            src: (key >> 64) as u64,
            dst: key as u64,
            w: W::dec(rest),
        }
    }
    fn decode(b: &[u8]) -> Self {
        Orig {
            src: u64::from_le_bytes(b[..8].try_into().unwrap()),
            dst: u64::from_le_bytes(b[8..16].try_into().unwrap()),
            w: W::dec(&b[16..]),
        }
    }
}

/// A sort key word: u64, or u128 for the (src, dst) keys of dense ids
/// past 32 bits (a wide store; DESIGN.md, "Wide ids").
pub(super) trait KeyWord: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    const BYTES: usize;
    fn to_u128(self) -> u128;
    fn of_u128(k: u128) -> Self;
    fn enc(self, out: &mut [u8]);
    fn dec(b: &[u8]) -> Self;
}

impl KeyWord for u64 {
    const BYTES: usize = 8;
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self as u128
    }
    #[inline(always)]
    fn of_u128(k: u128) -> u64 {
        k as u64
    }
    #[inline(always)]
    fn enc(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.to_le_bytes());
    }
    #[inline(always)]
    fn dec(b: &[u8]) -> u64 {
        u64::from_le_bytes(b[..8].try_into().unwrap())
    }
}

impl KeyWord for u128 {
    const BYTES: usize = 16;
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self
    }
    #[inline(always)]
    fn of_u128(k: u128) -> u128 {
        k
    }
    #[inline(always)]
    fn enc(self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.to_le_bytes());
    }
    #[inline(always)]
    fn dec(b: &[u8]) -> u128 {
        u128::from_le_bytes(b[..16].try_into().unwrap())
    }
}

/// An edge in dense ids packed into one sort key (64 bits; 128 in a wide
/// store).
#[derive(Clone, Copy)]
pub(super) struct Keyed<W, K = u64> {
    pub key: K,
    pub w: W,
}

impl<W: Weight, K: KeyWord> Record for Keyed<W, K> {
    const BYTES: usize = K::BYTES + W::BYTES;
    type Key = K;
    #[inline(always)]
    fn key(&self) -> K {
        self.key
    }
    #[inline(always)]
    fn radix_key(&self) -> u128 {
        self.key.to_u128()
    }
    fn encode(&self, out: &mut [u8]) {
        self.key.enc(out);
        self.w.enc(&mut out[K::BYTES..]);
    }
    const KEY_BYTES: usize = K::BYTES;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        Keyed {
            key: K::of_u128(key),
            w: W::dec(rest),
        }
    }
    fn decode(b: &[u8]) -> Self {
        Keyed {
            key: K::dec(b),
            w: W::dec(&b[K::BYTES..]),
        }
    }
}

/// A dense id as the build carries it from the ranks on: u32, or u64 in a
/// wide store (DESIGN.md, "Wide ids"), whose (src, dst) and tile sort keys
/// then take 128 bits. The narrow build is the same code on u32.
pub(super) trait DenseId: Slot + SpillCode {
    /// Bytes of one id in a record (4 or 8).
    const BYTES: usize;
    /// A (src, dst) or tile sort key.
    type Key: KeyWord;
    /// (src, dst) as one key, src shifted up by `bits`.
    fn key(bits: u32, s: Self, d: Self) -> Self::Key;
    fn src(bits: u32, k: Self::Key) -> Self;
    fn dst(bits: u32, k: Self::Key) -> Self;
    /// The sort key of edge (src, dst) in the tiles' physical order: tile
    /// order, then local src, then local dst (16 bits each). The tile
    /// order is a u64 ([`TileGeometry::tile_order`]): up to 2^48 vertices.
    fn tile_key(g: &TileGeometry, s: Self, d: Self) -> Self::Key;
    /// A tile key's tile order.
    fn tile_of_key(k: Self::Key) -> u64;
    #[inline(always)]
    fn idx(self) -> usize {
        self.get() as usize
    }
}

impl DenseId for u32 {
    const BYTES: usize = 4;
    type Key = u64;
    #[inline(always)]
    fn key(bits: u32, s: u32, d: u32) -> u64 {
        (s as u64) << bits | d as u64
    }
    #[inline(always)]
    fn src(bits: u32, k: u64) -> u32 {
        (k >> bits) as u32
    }
    #[inline(always)]
    fn dst(bits: u32, k: u64) -> u32 {
        (k & ((1u64 << bits) - 1)) as u32
    }
    #[inline(always)]
    fn tile_key(g: &TileGeometry, s: u32, d: u32) -> u64 {
        g.edge_key(s, d)
    }
    #[inline(always)]
    fn tile_of_key(k: u64) -> u64 {
        k >> 32
    }
}

impl DenseId for u64 {
    const BYTES: usize = 8;
    type Key = u128;
    #[inline(always)]
    fn key(bits: u32, s: u64, d: u64) -> u128 {
        (s as u128) << bits | d as u128
    }
    #[inline(always)]
    fn src(bits: u32, k: u128) -> u64 {
        (k >> bits) as u64
    }
    #[inline(always)]
    fn dst(bits: u32, k: u128) -> u64 {
        (k & ((1u128 << bits) - 1)) as u64
    }
    #[inline(always)]
    fn tile_key(g: &TileGeometry, s: u64, d: u64) -> u128 {
        debug_assert!(g.blocks <= 1 << 32, "tile orders past 64 bits");
        let t = g.tile_order(s >> TILE_BITS, d >> TILE_BITS) as u128;
        t << 32 | ((s & 0xFFFF) << 16 | d & 0xFFFF) as u128
    }
    #[inline(always)]
    fn tile_of_key(k: u128) -> u64 {
        (k >> 32) as u64
    }
}

/// A tile key's local (src, dst): its low 32 bits.
#[inline]
pub(super) fn tile_locals<K: KeyWord>(k: K) -> (u64, u64) {
    let low = k.to_u128() as u64;
    ((low >> 16) & 0xFFFF, low & 0xFFFF)
}

/// Dense (src, dst) as one sort key for the CSR sorters: src shifted above
/// the bits a dense id needs, not above 32 (or 64), so the bucket files'
/// packed keys ([`crate::ingest::bucket`]) take fewer bytes (kron-24: 24
/// bits).
#[derive(Clone, Copy, Debug)]
pub(super) struct DenseKey<I> {
    bits: u32,
    id: PhantomData<I>,
}

impl<I: DenseId> DenseKey<I> {
    /// The key shape for dense ids below `n`.
    pub fn new(n: u64) -> Self {
        DenseKey {
            bits: (64 - n.saturating_sub(1).leading_zeros()).max(1),
            id: PhantomData,
        }
    }

    #[inline(always)]
    pub fn key(self, src: I, dst: I) -> I::Key {
        I::key(self.bits, src, dst)
    }

    #[inline(always)]
    pub fn src(self, key: I::Key) -> I {
        I::src(self.bits, key)
    }

    #[inline(always)]
    pub fn dst(self, key: I::Key) -> I {
        I::dst(self.bits, key)
    }
}

/// An input edge as the first sorter carries it: in original ids, sorted
/// by (src, dst).
pub(super) trait InputEdge: Record {
    type W: Weight;
    fn new(src: u64, dst: u64, w: Self::W) -> Self;
    fn src(&self) -> u64;
    fn dst(&self) -> u64;
    fn w(&self) -> Self::W;
}

impl<W: Weight> InputEdge for Orig<W> {
    type W = W;
    #[inline(always)]
    fn new(src: u64, dst: u64, w: W) -> Self {
        Orig { src, dst, w }
    }
    #[inline(always)]
    fn src(&self) -> u64 {
        self.src
    }
    #[inline(always)]
    fn dst(&self) -> u64 {
        self.dst
    }
    #[inline(always)]
    fn w(&self) -> W {
        self.w
    }
}

/// Ids below 2^32 (bin32 inputs, generators): both ends in one 64-bit key,
/// half the bytes to spill and sort.
impl<W: Weight> InputEdge for Keyed<W> {
    type W = W;
    #[inline(always)]
    fn new(src: u64, dst: u64, w: W) -> Self {
        debug_assert!(src <= u32::MAX as u64 && dst <= u32::MAX as u64);
        Keyed {
            key: src << 32 | dst,
            w,
        }
    }
    #[inline(always)]
    fn src(&self) -> u64 {
        self.key >> 32
    }
    #[inline(always)]
    fn dst(&self) -> u64 {
        self.key & 0xFFFF_FFFF
    }
    #[inline(always)]
    fn w(&self) -> W {
        self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Wide keys past 32 bits: (src, dst) comes back from its key, keys
        /// sort as the pairs do, and tile keys sort as (tile order, local
        /// src, local dst) with the tile and the locals recovered; below
        /// 2^32 vertices the wide keys sort as the narrow ones.
        #[test]
        fn wide_keys_sort_as_their_pairs(
            bits in 1u32..45,
            pairs in proptest::collection::vec((any::<u64>(), any::<u64>()), 2..40),
            group in 0u32..5,
        ) {
            let n = 1u64 << bits;
            let ids: Vec<(u64, u64)> = pairs.iter().map(|&(s, d)| (s % n, d % n)).collect();
            let dk = DenseKey::<u64>::new(n);
            let geom = TileGeometry::new(n, 1 << group, false);
            for &(s, d) in &ids {
                let k = dk.key(s, d);
                prop_assert_eq!((dk.src(k), dk.dst(k)), (s, d));
                let t = u64::tile_key(&geom, s, d);
                prop_assert_eq!(u64::tile_of_key(t), geom.tile_order(s >> TILE_BITS, d >> TILE_BITS));
                prop_assert_eq!(tile_locals(t), (s & 0xFFFF, d & 0xFFFF));
            }
            for w in ids.windows(2) {
                let ((a, b), (c, d)) = (w[0], w[1]);
                prop_assert_eq!(dk.key(a, b).cmp(&dk.key(c, d)), (a, b).cmp(&(c, d)));
                let tile = |s: u64, d: u64| {
                    (geom.tile_order(s >> TILE_BITS, d >> TILE_BITS), s & 0xFFFF, d & 0xFFFF)
                };
                prop_assert_eq!(
                    u64::tile_key(&geom, a, b).cmp(&u64::tile_key(&geom, c, d)),
                    tile(a, b).cmp(&tile(c, d))
                );
                if bits <= 32 {
                    let nk = DenseKey::<u32>::new(n);
                    let narrow = |s: u64, d: u64| nk.key(s as u32, d as u32);
                    prop_assert_eq!(narrow(a, b).cmp(&narrow(c, d)), (a, b).cmp(&(c, d)));
                    prop_assert_eq!(
                        u32::tile_key(&geom, a as u32, b as u32) as u128,
                        u64::tile_key(&geom, a, b)
                    );
                }
            }
        }
    }

    /// A 128-bit keyed record goes through its encoding and its packed key.
    #[test]
    fn wide_keyed_records_round_trip() {
        let r = Keyed::<f64, u128> {
            key: (3u128 << 100) | (1 << 64) | 5,
            w: 2.5,
        };
        let mut b = [0u8; 24];
        r.encode(&mut b);
        let back = Keyed::<f64, u128>::decode(&b);
        assert_eq!((back.key, back.w), (r.key, r.w));
        let packed = Keyed::<f64, u128>::from_key(r.radix_key(), &b[16..]);
        assert_eq!((packed.key, packed.w), (r.key, r.w));
    }
}
