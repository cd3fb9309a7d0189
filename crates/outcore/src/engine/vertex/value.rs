//! The bytes of states and messages: [`Value`] (fixed-size,
//! little-endian, as state files and update logs hold them) and
//! [`Label`] (a rank or dense id as a value: u32 on a narrow store, u64
//! on a wide one).

use std::fmt::Debug;

/// A fixed-size value kept in state files and update logs (little-endian).
pub trait Value: Copy + Send + Sync + Debug + 'static {
    /// Encoded size.
    const BYTES: usize;
    /// Writes the value into `out[..BYTES]`.
    fn put(&self, out: &mut [u8]);
    /// Reads a value from `b[..BYTES]`.
    fn get(b: &[u8]) -> Self;
}

macro_rules! value_le {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(&self, out: &mut [u8]) {
                out[..Self::BYTES].copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b[..Self::BYTES].try_into().expect("BYTES bytes"))
            }
        }
    )*};
}
value_le!(u32, u64, f64);

impl<A: Value, B: Value> Value for (A, B) {
    const BYTES: usize = A::BYTES + B::BYTES;
    #[inline]
    fn put(&self, out: &mut [u8]) {
        self.0.put(out);
        self.1.put(&mut out[A::BYTES..]);
    }
    #[inline]
    fn get(b: &[u8]) -> Self {
        (A::get(b), B::get(&b[A::BYTES..]))
    }
}

/// A rank or dense id as a program's state or message (the labels of WCC
/// and CDLP): u32 on a narrow store, so its states stay 4 bytes a vertex;
/// u64 on a wide one. Those programs are generic over it and their runners
/// pick it by the store's slot width ([`with_label`](crate::with_label)).
pub trait Label: Value + Ord {
    /// The largest value, above every id: no label (a minimum's identity).
    const NONE: Self;
    /// [`Self::NONE`] as a message word ([`VertexProgram::IDENTITY`](super::VertexProgram::IDENTITY)).
    const NONE_WORD: u64;
    /// Id or rank `v` (below [`Self::NONE`]).
    fn of_id(v: u64) -> Self;
    /// The id or rank.
    fn id(self) -> u64;
}

impl Label for u32 {
    const NONE: u32 = u32::MAX;
    const NONE_WORD: u64 = u32::MAX as u64;
    #[inline]
    fn of_id(v: u64) -> u32 {
        id32(v)
    }
    #[inline]
    fn id(self) -> u64 {
        self as u64
    }
}

impl Label for u64 {
    const NONE: u64 = u64::MAX;
    const NONE_WORD: u64 = u64::MAX;
    #[inline]
    fn of_id(v: u64) -> u64 {
        v
    }
    #[inline]
    fn id(self) -> u64 {
        self
    }
}

/// Calls `$f::<L>($args)` with the [`Label`] of `$store`'s slot width: u64
/// on a wide store, else u32. The runners of the programs that hold ids
/// in their state or messages pick their label type by it.
#[macro_export]
macro_rules! with_label {
    ($store:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $store.manifest().slot_width() {
            $crate::store::csr::SlotWidth::Narrow => $f::<u32>($($arg),*),
            $crate::store::csr::SlotWidth::Wide => $f::<u64>($($arg),*),
        }
    };
}

/// A rank or dense id in 32 bits: a narrow [`Label`] (a narrow store holds
/// at most 2^32 - 1 vertices; wider builds write wide stores).
#[inline]
pub fn id32(v: u64) -> u32 {
    debug_assert!(v < u32::MAX as u64, "{v} is no 32-bit id");
    v as u32
}
