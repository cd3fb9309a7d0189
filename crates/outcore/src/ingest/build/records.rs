//! The records the build carries through its sorters.

use crate::ingest::sort::Record;

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
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.src, self.dst)
    }
    #[inline]
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

/// An edge in dense ids packed into a 64-bit sort key.
#[derive(Clone, Copy)]
pub(super) struct Keyed<W> {
    pub key: u64,
    pub w: W,
}

impl<W: Weight> Record for Keyed<W> {
    const BYTES: usize = 8 + W::BYTES;
    type Key = u64;
    #[inline]
    fn key(&self) -> u64 {
        self.key
    }
    #[inline]
    fn radix_key(&self) -> u128 {
        self.key as u128
    }
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.key.to_le_bytes());
        self.w.enc(&mut out[8..]);
    }
    const KEY_BYTES: usize = 8;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        Keyed {
            key: key as u64,
            w: W::dec(rest),
        }
    }
    fn decode(b: &[u8]) -> Self {
        Keyed {
            key: u64::from_le_bytes(b[..8].try_into().unwrap()),
            w: W::dec(&b[8..]),
        }
    }
}

/// Dense (src, dst) as one sort key for the CSR sorters: src shifted above
/// the bits a dense id needs, not above 32, so the bucket files' packed
/// keys ([`crate::ingest::bucket`]) take a byte less (kron-24: 24 bits).
#[derive(Clone, Copy, Debug)]
pub(super) struct DenseKey {
    bits: u32,
}

impl DenseKey {
    /// The key shape for dense ids below `n` (at most 2^32).
    pub fn new(n: u64) -> Self {
        DenseKey {
            bits: (64 - n.saturating_sub(1).leading_zeros()).max(1),
        }
    }

    #[inline]
    pub fn key(self, src: u32, dst: u32) -> u64 {
        (src as u64) << self.bits | dst as u64
    }

    #[inline]
    pub fn src(self, key: u64) -> u32 {
        (key >> self.bits) as u32
    }

    #[inline]
    pub fn dst(self, key: u64) -> u32 {
        (key & ((1u64 << self.bits) - 1)) as u32
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
    #[inline]
    fn new(src: u64, dst: u64, w: W) -> Self {
        Orig { src, dst, w }
    }
    #[inline]
    fn src(&self) -> u64 {
        self.src
    }
    #[inline]
    fn dst(&self) -> u64 {
        self.dst
    }
    #[inline]
    fn w(&self) -> W {
        self.w
    }
}

/// Ids below 2^32 (bin32 inputs, generators): both ends in one 64-bit key,
/// half the bytes to spill and sort.
impl<W: Weight> InputEdge for Keyed<W> {
    type W = W;
    #[inline]
    fn new(src: u64, dst: u64, w: W) -> Self {
        debug_assert!(src <= u32::MAX as u64 && dst <= u32::MAX as u64);
        Keyed {
            key: src << 32 | dst,
            w,
        }
    }
    #[inline]
    fn src(&self) -> u64 {
        self.key >> 32
    }
    #[inline]
    fn dst(&self) -> u64 {
        self.key & 0xFFFF_FFFF
    }
    #[inline]
    fn w(&self) -> W {
        self.w
    }
}
