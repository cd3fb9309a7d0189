//! Software prefetch for batches of random reads (id maps, permutations,
//! degree counters): asking for the line of the element a loop reaches
//! `AHEAD` steps later keeps that many misses in flight, where the core's
//! own lookahead overlaps only a few.

/// How many elements ahead a batched loop prefetches.
pub const AHEAD: usize = 16;

/// Asks for the cache line of `slice[i]` (nothing when out of bounds).
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < slice.len() {
        // SAFETY: the address is inside a live slice; a prefetch has no
        // effect beyond the cache.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                slice.as_ptr().add(i) as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}
