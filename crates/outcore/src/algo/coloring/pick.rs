//! The colour a losing vertex picks: the `j`-th free one, `j` spread by
//! binary exponential backoff over its losses.

use crate::base::rng::{hash3, stream};

/// Which free colour a vertex of key `key` picks after `losses` losses to
/// `k` distinct higher competitors: `j` in `0..min(2^(losses-1), k)`
/// (exponential backoff).
pub(super) fn pick(key: u64, losses: u32, k: u64) -> u64 {
    let spread = 1u64 << losses.saturating_sub(1).min(63);
    hash3(key, stream::COLORING, losses as u64) % k.min(spread).max(1)
}

/// The `j`-th (from 0) colour that none of `colors` is, found in windows of
/// 64 colours: a pass over `colors` per window.
pub(super) fn nth_free(colors: impl Iterator<Item = u32> + Clone, mut j: u64) -> u32 {
    let mut base = 0u32;
    loop {
        let taken = colors
            .clone()
            .fold(0u64, |t, c| match c.wrapping_sub(base) {
                d if d < 64 => t | 1 << d,
                _ => t,
            });
        let free = !taken;
        let n = free.count_ones() as u64;
        if j < n {
            let mut f = free;
            for _ in 0..j {
                f &= f - 1;
            }
            return base + f.trailing_zeros();
        }
        j -= n;
        base += 64;
    }
}
