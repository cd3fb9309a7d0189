//! Vertex state shared by the engine's threads.
//!
//! The engine guarantees one writer per block at a time, so a relaxed
//! load-then-store is race-free in effect; atomics make it sound in Rust's
//! model at the cost of a plain `mov` on x86.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

/// A vector of f64 values readable and writable from several threads.
pub struct F64s(Vec<AtomicU64>);

impl F64s {
    /// `n` copies of `v`.
    pub fn new(n: usize, v: f64) -> F64s {
        F64s(crate::mem::huge_vec(n, |_| AtomicU64::new(v.to_bits())))
    }
    #[inline(always)]
    pub fn get(&self, i: usize) -> f64 {
        f64::from_bits(self.0[i].load(Relaxed))
    }
    #[inline(always)]
    pub fn set(&self, i: usize, v: f64) {
        self.0[i].store(v.to_bits(), Relaxed)
    }
    /// The cell of entry `i` (for hot loops that checked the range once).
    #[inline(always)]
    pub fn cells(&self) -> &[AtomicU64] {
        &self.0
    }
    /// Adds `v` to entry `i` (single writer: not an atomic read-modify-write).
    #[inline(always)]
    pub fn add(&self, i: usize, v: f64) {
        self.set(i, self.get(i) + v)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The entries of `range` as a slice of cells.
    pub fn slice(&self, range: std::ops::Range<usize>) -> &[AtomicU64] {
        &self.0[range]
    }
    /// `n` copies of `v`, padded to whole tile blocks (see [`F64s::block`]).
    pub fn new_blocks(n: usize, v: f64) -> F64s {
        F64s::new(n.next_multiple_of(BLOCK), v)
    }
    /// The whole tile block starting at vertex `base`: indexing it with a
    /// 16-bit local id needs no bounds check. Panics if the vector was not
    /// padded to whole blocks ([`F64s::new_blocks`]).
    #[inline(always)]
    pub fn block(&self, base: usize) -> &[AtomicU64; BLOCK] {
        self.0[base..base + BLOCK]
            .try_into()
            .expect("a whole block")
    }
}

/// Vertices per tile block.
pub const BLOCK: usize = 1 << crate::store::tiles::TILE_BITS;

/// A vector of u32 values readable and writable from several threads.
pub struct U32s(Vec<AtomicU32>);

impl U32s {
    /// `n` copies of `v`.
    pub fn new(n: usize, v: u32) -> U32s {
        U32s(crate::mem::huge_vec(n, |_| AtomicU32::new(v)))
    }
    /// From values.
    pub fn from_fn(n: usize, f: impl Fn(usize) -> u32) -> U32s {
        U32s(crate::mem::huge_vec(n, |i| AtomicU32::new(f(i))))
    }
    #[inline(always)]
    pub fn get(&self, i: usize) -> u32 {
        self.0[i].load(Relaxed)
    }
    #[inline(always)]
    pub fn set(&self, i: usize, v: u32) {
        self.0[i].store(v, Relaxed)
    }
    /// Lowers slot `i` to `v` when `v` is smaller; returns the old value.
    #[inline(always)]
    pub fn fetch_min(&self, i: usize, v: u32) -> u32 {
        self.0[i].fetch_min(v, Relaxed)
    }
    /// The values as plain integers (in place, no copy).
    pub fn into_vec(self) -> Vec<u32> {
        self.0.into_iter().map(AtomicU32::into_inner).collect()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A vector of u64 values readable and writable from several threads: the
/// wide twin of [`U32s`] (labels of a store with 64-bit ids).
pub struct U64s(Vec<AtomicU64>);

impl U64s {
    /// From values.
    pub fn from_fn(n: usize, f: impl Fn(usize) -> u64) -> U64s {
        U64s(crate::mem::huge_vec(n, |i| AtomicU64::new(f(i))))
    }
}

/// Per-vertex atomic cells of one width, read and written as u64: the
/// tile programs whose state holds an id or a rank ([`U32s`] on a narrow
/// store, [`U64s`] on a wide one) are generic over it, so their hot loops
/// are compiled once per width.
pub trait IdCells: Sync {
    /// Bytes a cell takes.
    const BYTES: u64;
    /// Cell `i`.
    fn id(&self, i: usize) -> u64;
    /// Sets cell `i` to `v` (below 2^32 in [`U32s`]).
    fn set_id(&self, i: usize, v: u64);
}

impl IdCells for U32s {
    const BYTES: u64 = 4;
    #[inline(always)]
    fn id(&self, i: usize) -> u64 {
        self.get(i) as u64
    }
    #[inline(always)]
    fn set_id(&self, i: usize, v: u64) {
        debug_assert!(v <= u32::MAX as u64, "{v} is no 32-bit id");
        self.set(i, v as u32)
    }
}

impl IdCells for U64s {
    const BYTES: u64 = 8;
    #[inline(always)]
    fn id(&self, i: usize) -> u64 {
        self.0[i].load(Relaxed)
    }
    #[inline(always)]
    fn set_id(&self, i: usize, v: u64) {
        self.0[i].store(v, Relaxed)
    }
}

/// One flag per block.
pub struct Flags(Vec<AtomicBool>);

impl Flags {
    pub fn new(n: usize, v: bool) -> Flags {
        Flags((0..n).map(|_| AtomicBool::new(v)).collect())
    }
    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.0[i].load(Relaxed)
    }
    #[inline(always)]
    pub fn set(&self, i: usize, v: bool) {
        self.0[i].store(v, Relaxed)
    }
    pub fn fill(&self, v: bool) {
        self.0.iter().for_each(|f| f.store(v, Relaxed))
    }
    pub fn count(&self) -> usize {
        self.0.iter().filter(|f| f.load(Relaxed)).count()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
