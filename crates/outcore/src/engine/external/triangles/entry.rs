//! The oriented entry of triangle listing, `u << 1 | both`: u32 on a
//! narrow store of fewer than 2^31 vertices (4 bytes an entry, as before),
//! u64 on a wide store or a larger one. The oriented file, the block's
//! lists and index, the probe tables and the credit log's buffer hold
//! entries and ids of this type (the log's records on disk keep 4-byte
//! interval-local targets); the runner picks it by the slot width and the
//! vertex count.

use super::super::words::WordStream;
use crate::error::Result;
use crate::io::Reader;
use crate::store::csr::Slot;

/// An oriented entry, and (shifted down) the id of a vertex.
pub(super) trait Entry: Slot + Default {
    /// Words (4 bytes) an entry takes on disk.
    const WORDS: usize;
    /// Vertices the entries can name: an entry shifts its id left by one.
    const MAX_VERTICES: u64;
    /// An empty hash slot (above every shifted id).
    const EMPTY: Self;
    /// Bits of the type, for the hash's shift.
    const BITS: u32;
    /// The sort key of a block's index record: neighbour id, then the
    /// local id of the block vertex pointing to it.
    type Key: Ord + Copy + Send;

    /// The entry of neighbour `u` (`both`: arcs run both ways).
    fn oriented(u: u64, both: bool) -> Self;
    /// The entry's neighbour, as the same type.
    fn vertex(self) -> Self;
    /// Whether arcs run both ways (1) or not (0).
    fn both(self) -> u32;
    /// `vertex()` as an index.
    #[inline]
    fn index(self) -> usize {
        self.vertex().get() as usize
    }
    /// A multiplicative hash of an id into `bits` bits.
    fn hash(self, shift: u32) -> usize;
    fn key(id: Self, local: u32) -> Self::Key;
    /// Its little-endian bytes into `b`; returns how many.
    fn put(self, b: &mut [u8; 8]) -> usize;
    /// Appends the next `n` entries of `ws` to `out`.
    fn take(ws: &mut WordStream, reader: &mut Reader, n: usize, out: &mut Vec<Self>) -> Result<()>;
}

impl Entry for u32 {
    const WORDS: usize = 1;
    const MAX_VERTICES: u64 = 1 << 31;
    const EMPTY: u32 = u32::MAX;
    const BITS: u32 = 32;
    type Key = u64;

    #[inline]
    fn oriented(u: u64, both: bool) -> u32 {
        debug_assert!(u < Self::MAX_VERTICES);
        (u as u32) << 1 | both as u32
    }
    #[inline]
    fn vertex(self) -> u32 {
        self >> 1
    }
    #[inline]
    fn both(self) -> u32 {
        self & 1
    }
    #[inline]
    fn hash(self, shift: u32) -> usize {
        (self.wrapping_mul(0x9E37_79B1) >> shift) as usize
    }
    #[inline]
    fn key(id: u32, local: u32) -> u64 {
        (id as u64) << 32 | local as u64
    }
    #[inline]
    fn put(self, b: &mut [u8; 8]) -> usize {
        b[..4].copy_from_slice(&self.to_le_bytes());
        4
    }
    fn take(ws: &mut WordStream, reader: &mut Reader, n: usize, out: &mut Vec<u32>) -> Result<()> {
        ws.take(reader, n, out)
    }
}

impl Entry for u64 {
    const WORDS: usize = 2;
    const MAX_VERTICES: u64 = 1 << 63;
    const EMPTY: u64 = u64::MAX;
    const BITS: u32 = 64;
    type Key = u128;

    #[inline]
    fn oriented(u: u64, both: bool) -> u64 {
        debug_assert!(u < Self::MAX_VERTICES);
        u << 1 | both as u64
    }
    #[inline]
    fn vertex(self) -> u64 {
        self >> 1
    }
    #[inline]
    fn both(self) -> u32 {
        (self & 1) as u32
    }
    #[inline]
    fn hash(self, shift: u32) -> usize {
        (self.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }
    #[inline]
    fn key(id: u64, local: u32) -> u128 {
        (id as u128) << 32 | local as u128
    }
    #[inline]
    fn put(self, b: &mut [u8; 8]) -> usize {
        b.copy_from_slice(&self.to_le_bytes());
        8
    }
    fn take(ws: &mut WordStream, reader: &mut Reader, n: usize, out: &mut Vec<u64>) -> Result<()> {
        ws.take_u64s(reader, n, out)
    }
}
