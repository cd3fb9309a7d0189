//! Stable in-memory radix sort of records by key, on all cores.
//!
//! One MSD pass on the top varying key bits (up to 11: ranges of about
//! [`RANGE`] records) scatters the records (in parallel: every thread counts
//! and places its own slice, slices in order, so the pass is stable) into
//! up to 2048 ranges; each range is then sorted on its own by an LSD radix
//! sort over the bits that still vary in it, ranges spread over the
//! threads. Ranges are small enough to stay in cache, and no merge is
//! needed. An LSD sort of an odd number of passes leaves its range in the
//! scratch, where it stays when most ranges do (no copy back).
//!
//! [`sort_cells`] is the same without the MSD pass, for a bucket whose
//! reader placed its records range by range as it decoded them
//! (`bucket::cells`).

use rayon::prelude::*;

/// A fixed-size record with a sort key.
pub trait Record: Copy + Send + Sync + 'static {
    /// Encoded size in bytes.
    const BYTES: usize;
    /// The sort key.
    type Key: Ord + Copy + Send + Sync;
    /// This record's key.
    fn key(&self) -> Self::Key;
    /// The key as an unsigned integer with the same order (for radix sorting).
    fn radix_key(&self) -> u128;
    /// Writes exactly `BYTES` bytes.
    fn encode(&self, out: &mut [u8]);
    /// Reads a record from exactly `BYTES` bytes.
    fn decode(buf: &[u8]) -> Self;
    /// Bytes of the encoding that are the radix key and nothing else (the
    /// rest follows them): the bucket sorter then stores a key as its
    /// difference from its bucket's lowest in as few bytes as the bucket's
    /// range needs. 0: the encoding is stored whole.
    const KEY_BYTES: usize = 0;
    /// The record of radix key `key` and the encoding's bytes after the key
    /// (only called when `KEY_BYTES > 0`).
    fn from_key(key: u128, rest: &[u8]) -> Self {
        let _ = (key, rest);
        unreachable!("a record without KEY_BYTES is never packed")
    }
}

/// A record of a u64 key and a u64 value, sorted by key (a vertex's rank
/// and its value; a walker's vertex and its walk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyValue {
    pub key: u64,
    pub value: u64,
}

impl Record for KeyValue {
    const BYTES: usize = 16;
    type Key = u64;
    fn key(&self) -> u64 {
        self.key
    }
    fn radix_key(&self) -> u128 {
        self.key as u128
    }
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.key.to_le_bytes());
        out[8..].copy_from_slice(&self.value.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        KeyValue {
            key: u64::from_le_bytes(b[..8].try_into().unwrap()),
            value: u64::from_le_bytes(b[8..].try_into().unwrap()),
        }
    }
}

/// Bits of the MSD pass, at most.
const MSD_BITS: u32 = 11;
/// Records per range the MSD pass aims at (fewer digits for fewer records).
const RANGE: usize = 1 << 12;
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
/// vary that does leaves the records unsorted; unread below `SMALL`
/// records).
pub fn sort_records_known<R: Record>(buf: &mut Vec<R>, scratch: &mut Vec<R>, bits: KeyBits) {
    let n = buf.len();
    if n < SMALL {
        buf.sort_by_key(|r| r.radix_key());
        return;
    }
    debug_assert_eq!(bits, KeyBits::of(buf), "key bits not those of the records");
    fit_scratch(scratch, n, buf[0]);
    if msd_lsd(buf, scratch, bits) {
        std::mem::swap(buf, scratch);
    }
}

/// Makes `scratch` `n` long. Every slot is written by a scatter: a scratch
/// already long enough is only cut to length, not filled (a 42 MB fill was
/// a tenth of a 5 M-key sort).
fn fit_scratch<R: Record>(scratch: &mut Vec<R>, n: usize, any: R) {
    if scratch.len() < n {
        scratch.reserve_exact(n - scratch.len());
        scratch.resize(n, any);
    }
    scratch.truncate(n);
}

/// Sorts `a` (keys of `bits`) with `tmp` beside it, on all cores: the MSD
/// pass into `tmp`, then each range on its own. True when the sorted
/// records end in `tmp`, not `a`.
fn msd_lsd<R: Record>(a: &mut [R], tmp: &mut [R], bits: KeyBits) -> bool {
    let n = a.len();
    let varying = bits.or ^ bits.and;
    if varying == 0 {
        return false;
    }
    let top = 128 - varying.leading_zeros();
    // Ranges of about `RANGE` records: a smaller set needs fewer digits.
    let msd = (n / RANGE).max(1).ilog2().clamp(4, MSD_BITS);
    let shift = top.saturating_sub(msd);
    let digits = 1usize << (top - shift);
    let digit = move |r: &R| ((r.radix_key() >> shift) as usize) & (digits - 1);
    let parts = rayon::current_num_threads().clamp(1, 16);
    let chunk = n.div_ceil(parts);
    let counts: Vec<Vec<usize>> = a
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
    let out = Slots(tmp.as_mut_ptr());
    a.par_chunks(chunk)
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
    // The ranges are in `tmp` now, `a` their scratch.
    sort_ranges(tmp, a, &bounds, n < u32::MAX as usize)
}

/// Records of a bucket placed range by range as they were decoded (the
/// ranges, `bounds`, in key order: the bucket's cells, [`Split::Ordered`]),
/// sorted: each range on its own, on all cores. The MSD pass of
/// [`sort_records_known`] (a count and a scatter over memory) is the
/// decoder's placement.
///
/// [`Split::Ordered`]: crate::ingest::bucket::Split::Ordered
pub fn sort_cells<R: Record>(buf: &mut Vec<R>, scratch: &mut Vec<R>, bounds: &[usize]) {
    let n = buf.len();
    debug_assert_eq!(bounds.last(), Some(&n));
    if n == 0 {
        return;
    }
    fit_scratch(scratch, n, buf[0]);
    if !sort_ranges(buf, scratch, bounds, n < u32::MAX as usize) {
        std::mem::swap(buf, scratch);
    }
}

/// Ranges of more records than this are sorted with an MSD pass of their
/// own (on all cores, nested): an LSD sort is quick only while a range
/// stays in cache (a cell of hubs holds millions).
const LARGE: usize = 1 << 16;

/// Sorts each range `bounds[i]..bounds[i + 1]` of `a` on its own, with the
/// same range of `b` as its scratch (`narrow`: fewer than 2^32 records, as
/// the 64-bit LSD sort's counts need). An
/// LSD sort of an odd number of passes ends in its scratch: it is left
/// there, and the ranges that ended on the other side are copied over to
/// where most of the records are (every range of an edge bucket takes the
/// same passes, so usually none; a copy back was a fourth of the LSD
/// sorts' time). True when the sorted records are in `a`, false in `b`.
fn sort_ranges<R: Record>(a: &mut [R], b: &mut [R], bounds: &[usize], narrow: bool) -> bool {
    let n = a.len();
    let mut ranges = Vec::with_capacity(bounds.len());
    let (mut a_rest, mut b_rest) = (a, b);
    for w in bounds.windows(2) {
        let len = w[1] - w[0];
        let (x, xr) = a_rest.split_at_mut(len);
        let (y, yr) = b_rest.split_at_mut(len);
        (a_rest, b_rest) = (xr, yr);
        if len > 0 {
            ranges.push((x, y, false));
        }
    }
    // One histogram buffer per worker, reused from range to range.
    ranges
        .par_iter_mut()
        .for_each_init(Vec::new, |hist, (x, y, in_b)| {
            *in_b = match x.len() {
                l if l > LARGE => msd_lsd(x, y, KeyBits::of(x)),
                _ if narrow => radix_lsd64(x, y, hist),
                _ => radix_lsd(x, y),
            }
        });
    let in_b: usize = ranges.iter().filter(|r| r.2).map(|r| r.0.len()).sum();
    let to_b = 2 * in_b > n;
    ranges
        .into_par_iter()
        .for_each(|(x, y, in_b)| match (in_b, to_b) {
            (false, true) => y.copy_from_slice(x),
            (true, false) => x.copy_from_slice(y),
            _ => {}
        });
    !to_b
}

/// Widest LSD digit for keys that fit 64 bits: a 4096-entry histogram (16
/// KiB) stays in L1, and 12-bit digits sort the 23-28 bits left in a range of
/// edge keys in two or three passes where bytes take three or four.
const LSD64_BITS: u32 = 12;

/// [`radix_lsd`] for keys that vary below bit 64 only: the key in one
/// register and digits as wide as [`LSD64_BITS`], spread evenly over the
/// bits that vary (others go to [`radix_lsd`]). True when the sorted records
/// are in `tmp` (an odd number of passes), not `a`.
fn radix_lsd64<R: Record>(a: &mut [R], tmp: &mut [R], hist: &mut Vec<u32>) -> bool {
    if a.len() < 256 {
        a.sort_by_key(|r| r.radix_key());
        return false;
    }
    let key = |r: &R| r.radix_key() as u64;
    let (mut or, mut and) = (0u128, u128::MAX);
    for r in a.iter() {
        let k = r.radix_key();
        or |= k;
        and &= k;
    }
    if (or ^ and) >> 64 != 0 {
        // Keys that differ above bit 64 (a wide record's cell).
        return radix_lsd(a, tmp);
    }
    let varying = (or ^ and) as u64;
    if varying == 0 {
        return false;
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
    in_tmp
}

/// Stable LSD radix sort of `a` by `radix_key`, using `tmp` (same length);
/// true when the sorted records end in `tmp`, not `a`.
fn radix_lsd<R: Record>(a: &mut [R], tmp: &mut [R]) -> bool {
    if a.len() < 256 {
        a.sort_by_key(|r| r.radix_key());
        return false;
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
        return false;
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
    in_tmp
}

#[cfg(test)]
mod tests;
