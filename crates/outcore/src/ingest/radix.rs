//! Stable in-memory radix sort of records by key, on all cores.
//!
//! One MSD pass on the top 11 varying key bits scatters the records (in
//! parallel: every thread counts and places its own slice, slices in order,
//! so the pass is stable) into up to 2048 ranges; each range is then sorted
//! on its own by an LSD radix sort over the bytes that still vary in it,
//! ranges spread over the threads. Ranges are small enough to stay in
//! cache, and no merge is needed.

use super::sort::Record;
use rayon::prelude::*;

/// Bits of the MSD pass.
const MSD_BITS: u32 = 11;
/// Fewer records than this are sorted by comparison.
const SMALL: usize = 1 << 14;

/// Sorts records stably by key.
pub fn sort_records<R: Record>(buf: &mut Vec<R>) {
    sort_records_with(buf, &mut Vec::new())
}

/// A pointer the scatter threads share; each writes only its own slots.
#[derive(Clone, Copy)]
struct Slots<R>(*mut R);
// SAFETY: threads write disjoint index sets (computed offsets), see below.
unsafe impl<R: Send> Send for Slots<R> {}
// SAFETY: as above.
unsafe impl<R: Send> Sync for Slots<R> {}

impl<R> Slots<R> {
    /// Writes slot `i`.
    ///
    /// # Safety
    /// `i` is in bounds and no other thread writes or reads it meanwhile.
    unsafe fn put(&self, i: usize, r: R) {
        // SAFETY: guaranteed by the caller.
        unsafe { self.0.add(i).write(r) }
    }
}

/// The bits set in any and in every key of a set of records: their xor is
/// the bits that vary, which the sort's passes are planned from. Whoever
/// produces the records (a bucket's decoder) can gather it on the way,
/// sparing the sort a pass over memory of its own ([`sort_records_known`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyBits {
    pub or: u128,
    pub and: u128,
}

impl Default for KeyBits {
    fn default() -> KeyBits {
        KeyBits {
            or: 0,
            and: u128::MAX,
        }
    }
}

impl KeyBits {
    /// Adds a key.
    #[inline]
    pub fn add(&mut self, k: u128) {
        self.or |= k;
        self.and &= k;
    }

    /// The bits of both.
    pub fn merge(self, o: KeyBits) -> KeyBits {
        KeyBits {
            or: self.or | o.or,
            and: self.and & o.and,
        }
    }

    /// The bits of `recs`' keys, on all cores.
    pub fn of<R: Record>(recs: &[R]) -> KeyBits {
        recs.par_iter()
            .fold(KeyBits::default, |mut b, r| {
                b.add(r.radix_key());
                b
            })
            .reduce(KeyBits::default, KeyBits::merge)
    }
}

/// [`sort_records`] with a scratch buffer the caller keeps between sorts (a
/// fresh one per sort costs a page fault per page).
pub fn sort_records_with<R: Record>(buf: &mut Vec<R>, scratch: &mut Vec<R>) {
    // Small buffers are comparison-sorted: their bits are not needed.
    let bits = match buf.len() < SMALL {
        true => KeyBits::default(),
        false => KeyBits::of(buf),
    };
    sort_records_known(buf, scratch, bits)
}

/// [`sort_records_with`] given the [`KeyBits`] of `buf`'s keys (exactly
/// theirs: a bit said to vary that does not costs time; one said not to
/// vary that does leaves the records unsorted; unread below [`SMALL`]
/// records).
pub fn sort_records_known<R: Record>(buf: &mut Vec<R>, scratch: &mut Vec<R>, bits: KeyBits) {
    let n = buf.len();
    if n < SMALL {
        buf.sort_by_key(|r| r.radix_key());
        return;
    }
    debug_assert_eq!(bits, KeyBits::of(buf), "key bits not those of the records");
    let varying = bits.or ^ bits.and;
    if varying == 0 {
        return;
    }
    let top = 128 - varying.leading_zeros();
    let shift = top.saturating_sub(MSD_BITS);
    let digits = 1usize << (top - shift);
    let digit = move |r: &R| ((r.radix_key() >> shift) as usize) & (digits - 1);
    // Every slot is written by the scatter: a scratch already long enough
    // is only cut to length, not filled (a 42 MB fill was a tenth of a
    // 5 M-key sort).
    if scratch.len() < n {
        scratch.reserve_exact(n - scratch.len());
        scratch.resize(n, buf[0]);
    }
    scratch.truncate(n);
    let parts = rayon::current_num_threads().clamp(1, 16);
    let chunk = n.div_ceil(parts);
    let counts: Vec<Vec<usize>> = buf
        .par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0usize; digits];
            for r in c {
                h[digit(r)] += 1;
            }
            h
        })
        .collect();
    // Start of digit d for part p: all smaller digits, then earlier parts.
    let mut starts = vec![vec![0usize; digits]; counts.len()];
    let mut bounds = Vec::with_capacity(digits + 1);
    let mut sum = 0;
    for d in 0..digits {
        bounds.push(sum);
        for (p, h) in counts.iter().enumerate() {
            starts[p][d] = sum;
            sum += h[d];
        }
    }
    bounds.push(sum);
    let out = Slots(scratch.as_mut_ptr());
    buf.par_chunks(chunk)
        .zip(starts.into_par_iter())
        .for_each(|(c, mut pos)| {
            for r in c {
                let d = digit(r);
                // SAFETY: pos[d] walks this part's own range of digit d
                // (disjoint from every other part's and digit's, all < n).
                unsafe { out.put(pos[d], *r) };
                pos[d] += 1;
            }
        });
    // Each digit's range, sorted on its own (buf is its scratch now).
    let mut ranges = Vec::with_capacity(digits);
    let (mut s_rest, mut b_rest) = (&mut scratch[..], &mut buf[..]);
    for w in bounds.windows(2) {
        let len = w[1] - w[0];
        let (s, sr) = s_rest.split_at_mut(len);
        let (b, br) = b_rest.split_at_mut(len);
        (s_rest, b_rest) = (sr, br);
        if len > 1 {
            ranges.push((s, b));
        }
    }
    if top <= 64 && n < u32::MAX as usize {
        // One histogram buffer per worker, reused from range to range.
        ranges
            .into_par_iter()
            .for_each_init(Vec::new, |hist, (s, b)| radix_lsd64(s, b, hist));
    } else {
        ranges.into_par_iter().for_each(|(s, b)| radix_lsd(s, b));
    }
    std::mem::swap(buf, scratch);
}

/// Widest LSD digit for keys that fit 64 bits: a 4096-entry histogram (16
/// KiB) stays in L1, and 12-bit digits sort the 23-28 bits left in a range of
/// edge keys in two or three passes where bytes take three or four.
const LSD64_BITS: u32 = 12;

/// [`radix_lsd`] for keys below 2^64: the key in one register and digits as
/// wide as [`LSD64_BITS`], spread evenly over the bits that vary.
fn radix_lsd64<R: Record>(a: &mut [R], tmp: &mut [R], hist: &mut Vec<u32>) {
    if a.len() < 256 {
        a.sort_by_key(|r| r.radix_key());
        return;
    }
    let key = |r: &R| r.radix_key() as u64;
    let (mut or, mut and) = (0u64, u64::MAX);
    for r in a.iter() {
        let k = key(r);
        or |= k;
        and &= k;
    }
    let varying = or ^ and;
    if varying == 0 {
        return;
    }
    let lo = varying.trailing_zeros();
    let bits = 64 - varying.leading_zeros() - lo;
    let passes = bits.div_ceil(LSD64_BITS);
    let width = bits.div_ceil(passes);
    let mask = (1u64 << width) - 1;
    let size = 1usize << width;
    hist.clear();
    hist.resize(size * passes as usize, 0);
    for r in a.iter() {
        let k = key(r) >> lo;
        for p in 0..passes as usize {
            hist[p * size + ((k >> (p as u32 * width)) & mask) as usize] += 1;
        }
    }
    let (mut src, mut dst) = (a, tmp);
    let mut in_tmp = false;
    for (p, h) in hist.chunks_exact_mut(size).enumerate() {
        let shift = lo + p as u32 * width;
        let mut sum = 0u32;
        for c in h.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        debug_assert!(h.len() == size && dst.len() == src.len());
        for r in src.iter() {
            let b = ((key(r) >> shift) & mask) as usize;
            // SAFETY: `b <= mask < size = h.len()`; `h[b]` starts at the
            // count of smaller digits and rises once per record of digit
            // `b`, so it stays below `src.len() == dst.len()` (the counts
            // are of these very records).
            unsafe {
                let at = h.get_unchecked_mut(b);
                *dst.get_unchecked_mut(*at as usize) = *r;
                *at += 1;
            }
        }
        std::mem::swap(&mut src, &mut dst);
        in_tmp = !in_tmp;
    }
    if in_tmp {
        dst.copy_from_slice(src);
    }
}

/// Stable LSD radix sort of `a` by `radix_key`, using `tmp` (same length).
fn radix_lsd<R: Record>(a: &mut [R], tmp: &mut [R]) {
    if a.len() < 256 {
        a.sort_by_key(|r| r.radix_key());
        return;
    }
    let (mut or, mut and) = (0u128, u128::MAX);
    for r in a.iter() {
        let k = r.radix_key();
        or |= k;
        and &= k;
    }
    let varying = or ^ and;
    let digits: Vec<u32> = (0..16)
        .filter(|d| (varying >> (8 * d)) & 0xFF != 0)
        .collect();
    if digits.is_empty() {
        return;
    }
    let mut hist = vec![[0usize; 256]; digits.len()];
    for r in a.iter() {
        let k = r.radix_key();
        for (h, &d) in hist.iter_mut().zip(&digits) {
            h[((k >> (8 * d)) & 0xFF) as usize] += 1;
        }
    }
    let (mut src, mut dst) = (a, tmp);
    let mut in_tmp = false;
    for (h, &d) in hist.iter().zip(&digits) {
        let mut pos = [0usize; 256];
        let mut sum = 0;
        for (p, &c) in pos.iter_mut().zip(h.iter()) {
            *p = sum;
            sum += c;
        }
        for r in src.iter() {
            let b = ((r.radix_key() >> (8 * d)) & 0xFF) as usize;
            dst[pos[b]] = *r;
            pos[b] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        in_tmp = !in_tmp;
    }
    if in_tmp {
        // `src` is tmp holding the result; `dst` is the caller's slice.
        dst.copy_from_slice(src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Wide(u128, u32);

    impl Record for Wide {
        const BYTES: usize = 20;
        type Key = u128;
        fn key(&self) -> u128 {
            self.0
        }
        fn radix_key(&self) -> u128 {
            self.0
        }
        fn encode(&self, out: &mut [u8]) {
            out[..16].copy_from_slice(&self.0.to_le_bytes());
            out[16..].copy_from_slice(&self.1.to_le_bytes());
        }
        fn decode(b: &[u8]) -> Self {
            Wide(
                u128::from_le_bytes(b[..16].try_into().unwrap()),
                u32::from_le_bytes(b[16..].try_into().unwrap()),
            )
        }
    }

    #[test]
    fn stable_for_every_key_shape() {
        let mut x: u64 = 3;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // (keys, mask): full 128-bit keys, a few high bits, many repeats,
        // keys differing only in low bits, one key.
        type Shape = fn(u64, u64) -> u128;
        let shapes: [(usize, Shape); 9] = [
            (70_000, |a, b| (a as u128) << 64 | b as u128),
            (50_000, |a, _| ((a >> 61) as u128) << 100),
            (40_000, |a, _| (a % 5) as u128),
            (30_000, |a, _| (1u128 << 90) | (a & 0xFFF) as u128),
            (20_000, |_, _| 42),
            // Below 2^64 (the 64-bit LSD with wide digits; ranges of more
            // than 256 records after the MSD pass's 2048): all 64 bits,
            // 44 bits (an edge key), 13 bits (one digit), two digits of
            // uneven use.
            (1_200_000, |a, _| a as u128),
            (800_000, |a, _| (a >> 20) as u128),
            (60_000, |a, _| (a & 0x1FFF) as u128),
            (60_000, |a, b| ((a & 0xF) << 40 | (b & 0xFF_FFFF)) as u128),
        ];
        for (n, shape) in shapes {
            let mut v: Vec<Wide> = (0..n as u32)
                .map(|i| Wide(shape(next(), next()), i))
                .collect();
            let mut expect = v.clone();
            expect.sort_by_key(|w| w.0);
            let mut scratch = Vec::new();
            sort_records_with(&mut v, &mut scratch);
            assert_eq!(v, expect, "n = {n}");
            // The scratch is reused: a second sort of the sorted data.
            sort_records_with(&mut v, &mut scratch);
            assert_eq!(v, expect);
        }
    }
}
