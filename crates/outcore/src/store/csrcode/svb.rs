//! Stream-vbyte pages (Lemire; the tiles' code, [`super::super::tilecode`]):
//! the first of a page's two codes, and the whole of the `page-svb` stores
//! written before `page-huff`.
//!
//! ```text
//! u32 entries | entries 2-bit lengths, four a byte (length - 1) |
//! zigzag(x_i - x_{i-1} mod 2^32) of each entry (x_{-1} = 0) in 1-4 bytes
//! ```
//!
//! Decoding takes four entries a step with one SSSE3 shuffle where the CPU
//! has it: the fastest of the two codes, and never more than 4 bytes and 2
//! bits an entry.

use crate::store::csr::PAD;
use crate::store::tilecode::groups::{GROUPS, SHUFFLES};

/// The delta from `prev` to `x` modulo 2^32, as a signed 32-bit value
/// zigzagged (small either way, ids anywhere in `0..2^32`).
#[inline]
fn zigzag(x: u32, prev: u32) -> u32 {
    let d = x.wrapping_sub(prev) as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

#[inline]
fn unzigzag(z: u32, prev: u32) -> u32 {
    prev.wrapping_add((z >> 1) ^ (z & 1).wrapping_neg())
}

/// The largest coded size of a page of `slots` slots.
pub fn max_coded(slots: usize) -> usize {
    4 + slots.div_ceil(4) + 4 * slots
}

/// Bytes [`encode`] writes for `entries`.
pub fn coded_len(entries: &[u32]) -> usize {
    let mut prev = 0u32;
    let codes: usize = entries
        .iter()
        .map(|&x| {
            let z = zigzag(x, prev);
            prev = x;
            (32 - (z | 1).leading_zeros()).div_ceil(8) as usize
        })
        .sum();
    4 + entries.len().div_ceil(4) + codes
}

/// Appends the coded form of a page's entries (its slots before the
/// padding) to `out`.
pub fn encode(entries: &[u32], out: &mut Vec<u8>) {
    let k = entries.len();
    out.extend_from_slice(&(k as u32).to_le_bytes());
    let lens_at = out.len();
    out.resize(lens_at + k.div_ceil(4), 0);
    let mut prev = 0u32;
    for (i, &x) in entries.iter().enumerate() {
        let z = zigzag(x, prev);
        prev = x;
        let len = match z {
            0..=0xff => 0,
            0x100..=0xffff => 1,
            0x1_0000..=0xff_ffff => 2,
            _ => 3,
        };
        out[lens_at + i / 4] |= (len as u8) << (2 * (i % 4));
        out.extend_from_slice(&z.to_le_bytes()[..len + 1]);
    }
}

/// Decodes the coded page at the start of `coded` into `page` (the plain
/// page's bytes: little-endian u32 slots, the tail padded); returns the
/// coded bytes consumed, or what is wrong with them.
pub fn decode(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    decode_with(coded, page, true)
}

/// [`decode`] of a page of any u32 values, [`PAD`] among them (the low
/// halves of a wide page, [`super::wide`]).
pub(super) fn decode_words(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    decode_with(coded, page, false)
}

/// [`decode`], refusing an entry equal to [`PAD`] when `ids`.
fn decode_with(coded: &[u8], page: &mut [u8], ids: bool) -> std::result::Result<usize, String> {
    let slots = page.len() / 4;
    let head: [u8; 4] = coded
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or("the page's entry count is cut off")?;
    let k = u32::from_le_bytes(head) as usize;
    if k > slots {
        return Err(format!("a page claims {k} entries; a page holds {slots}"));
    }
    let lens = coded
        .get(4..4 + k.div_ceil(4))
        .ok_or("the page's lengths are cut off")?;
    let data = &coded[4 + lens.len()..];
    let mut prev = 0u32;
    // Whole groups of four while a 16-byte load stays in the data, then
    // one entry at a time.
    let (g, mut q, pad) = groups(lens, data, &mut page[..4 * (k / 4 * 4)], &mut prev);
    if ids && pad {
        return Err("an entry decodes to the padding value, not a vertex id".into());
    }
    for (i, out) in page.chunks_exact_mut(4).take(k).enumerate().skip(4 * g) {
        let c = lens[i / 4];
        let len = ((c >> (2 * (i % 4))) & 3) as usize;
        let z = match data.get(q..q + 4) {
            Some(w) => {
                u32::from_le_bytes(w.try_into().expect("4 bytes")) & (u32::MAX >> (24 - 8 * len))
            }
            None => {
                let w = data
                    .get(q..q + len + 1)
                    .ok_or("the page's codes are cut off")?;
                w.iter().rev().fold(0u32, |a, &b| a << 8 | b as u32)
            }
        };
        q += len + 1;
        let x = unzigzag(z, prev);
        if ids && x == PAD {
            return Err(format!("entry {i} decodes to {x}, not a vertex id"));
        }
        prev = x;
        out.copy_from_slice(&x.to_le_bytes());
    }
    if !k.is_multiple_of(4) && lens[k / 4] >> (2 * (k % 4)) != 0 {
        return Err("the page's unused length bits are not zero".into());
    }
    page[4 * k..].fill(0xff);
    Ok(4 + lens.len() + q)
}

/// Decodes whole groups of four codes into `out` (4 slots a group) while a
/// 16-byte load stays inside `data`, continuing from `prev`; returns
/// (groups, bytes) decoded and whether an entry decoded to [`PAD`]. SSSE3 where the CPU has it (one shuffle, the zigzag undone
/// and a prefix sum in registers a group), else table-driven scalar loads.
fn groups(lens: &[u8], data: &[u8], out: &mut [u8], prev: &mut u32) -> (usize, usize, bool) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3.
        return unsafe { groups_ssse3(lens, data, out, prev) };
    }
    groups_scalar(lens, data, out, prev)
}

fn groups_scalar(lens: &[u8], data: &[u8], out: &mut [u8], prev: &mut u32) -> (usize, usize, bool) {
    let (mut q, mut g, mut bad) = (0usize, 0usize, false);
    for (group, &c) in out.chunks_exact_mut(16).zip(lens) {
        let Some(window) = data.get(q..q + 16) else {
            break;
        };
        let (offs, total) = &GROUPS[c as usize];
        for (k, slot) in group.chunks_exact_mut(4).enumerate() {
            let o = offs[k] as usize;
            let len = (c >> (2 * k)) & 3;
            let z = u32::from_le_bytes(window[o..o + 4].try_into().expect("4 bytes"))
                & (u32::MAX >> (24 - 8 * len));
            *prev = unzigzag(z, *prev);
            bad |= *prev == PAD;
            slot.copy_from_slice(&prev.to_le_bytes());
        }
        q += *total as usize;
        g += 1;
    }
    (g, q, bad)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn groups_ssse3(
    lens: &[u8],
    data: &[u8],
    out: &mut [u8],
    prev: &mut u32,
) -> (usize, usize, bool) {
    use std::arch::x86_64::*;
    let (mut q, mut g) = (0, 0);
    let groups = (out.len() / 16).min(lens.len());
    let (ones, zero, pad) = (_mm_set1_epi32(1), _mm_setzero_si128(), _mm_set1_epi32(-1));
    let mut last = _mm_set1_epi32(*prev as i32);
    let mut bad = _mm_setzero_si128();
    while g < groups && q + 16 <= data.len() {
        let c = lens[g] as usize;
        // SAFETY: q + 16 <= data.len(); SHUFFLES[c] is 16 bytes; the 16
        // bytes at 16g lie in out (g < out.len() / 16).
        unsafe {
            let x = _mm_loadu_si128(data.as_ptr().add(q) as *const __m128i);
            let m = _mm_loadu_si128(SHUFFLES[c].as_ptr() as *const __m128i);
            let z = _mm_shuffle_epi8(x, m);
            // (z >> 1) ^ -(z & 1), then summed along the lanes onto the last.
            let d = _mm_xor_si128(
                _mm_srli_epi32(z, 1),
                _mm_sub_epi32(zero, _mm_and_si128(z, ones)),
            );
            let v = _mm_add_epi32(d, _mm_slli_si128(d, 4));
            let v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
            let v = _mm_add_epi32(v, last);
            last = _mm_shuffle_epi32(v, 0xFF);
            bad = _mm_or_si128(bad, _mm_cmpeq_epi32(v, pad));
            _mm_storeu_si128(out.as_mut_ptr().add(16 * g) as *mut __m128i, v);
        }
        q += GROUPS[c].1 as usize;
        g += 1;
    }
    *prev = _mm_cvtsi128_si32(last) as u32;
    (g, q, _mm_movemask_epi8(bad) != 0)
}

#[cfg(test)]
mod tests {
    use super::decode as decode_page;
    use super::*;
    use proptest::prelude::*;

    fn encode_page(slots: &[u32], out: &mut Vec<u8>) {
        let k = slots.iter().position(|&x| x == PAD).unwrap_or(slots.len());
        let at = out.len();
        encode(&slots[..k], out);
        assert_eq!(out.len() - at, coded_len(&slots[..k]));
    }

    fn plain(lists: &[Vec<u32>], slots: usize) -> Vec<u32> {
        let mut page: Vec<u32> = lists.iter().flatten().copied().collect();
        page.resize(slots, PAD);
        page
    }

    fn bytes(page: &[u32]) -> Vec<u8> {
        page.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    proptest! {
        #[test]
        fn pages_round_trip(
            lists in prop::collection::vec(prop::collection::btree_set(0u32..u32::MAX, 0..40), 0..30),
            small in any::<bool>(),
        ) {
            let lists: Vec<Vec<u32>> = lists
                .into_iter()
                .map(|s| s.into_iter().map(|x| if small { x % 5000 } else { x }).collect::<std::collections::BTreeSet<u32>>().into_iter().collect())
                .collect();
            let slots = 1024;
            let mut all: Vec<u32> = lists.iter().flatten().copied().collect();
            all.truncate(slots);
            let page = plain(&[all], slots);
            let mut coded = vec![7u8];
            encode_page(&page, &mut coded);
            prop_assert!(coded.len() - 1 <= max_coded(slots));
            let mut out = vec![0u8; 4 * slots];
            prop_assert_eq!(decode_page(&coded[1..], &mut out), Ok(coded.len() - 1));
            prop_assert_eq!(out, bytes(&page));
        }
    }

    /// The SSSE3 groups and the portable ones agree (codes of every
    /// length, jumps both ways, a padding value caught).
    #[test]
    fn group_decoders_agree() {
        let mut r = 12345u64;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r
        };
        let page: Vec<u32> = (0..1024)
            .map(|i| match i % 7 {
                0 => next() as u32 >> 1,
                1 => (next() % 300) as u32,
                _ => (next() % 70_000) as u32,
            })
            .collect();
        let mut coded = Vec::new();
        encode_page(&page, &mut coded);
        let (lens, data) = coded[4..].split_at(256);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        let (mut pa, mut pb) = (0, 0);
        let sa = groups(lens, data, &mut a, &mut pa);
        let sb = groups_scalar(lens, data, &mut b, &mut pb);
        assert_eq!((sa, pa), (sb, pb));
        assert!(sa.0 > 200 && !sa.2);
        assert_eq!(a[..16 * sa.0], b[..16 * sa.0]);
        assert_eq!(a[..16 * sa.0], bytes(&page)[..16 * sa.0]);
        let mut out = vec![0u8; 4096];
        assert_eq!(decode_page(&coded, &mut out), Ok(coded.len()));
        assert_eq!(out, bytes(&page));
        // Eight 1-byte codes; the sixth steps from 0 to -1: the padding.
        let (lens, mut data) = (&[0u8, 0][..], vec![0u8; 24]);
        data[5] = 1;
        let data = &data[..];
        assert_eq!(groups(lens, data, &mut a[..32], &mut 0), (2, 8, true));
        assert_eq!(
            groups_scalar(lens, data, &mut a[..32], &mut 0),
            (2, 8, true)
        );
    }

    #[test]
    fn extremes_and_damage() {
        let page = plain(&[vec![0, 1, PAD - 1], vec![3, PAD - 2], vec![0]], 8);
        let mut coded = Vec::new();
        encode_page(&page, &mut coded);
        let mut out = vec![0u8; 32];
        assert_eq!(decode_page(&coded, &mut out), Ok(coded.len()));
        assert_eq!(out, bytes(&page));
        // An empty page is its count.
        let mut empty = Vec::new();
        encode_page(&[PAD; 8], &mut empty);
        assert_eq!(empty, [0, 0, 0, 0]);
        assert_eq!(decode_page(&empty, &mut out), Ok(4));
        assert!(out.iter().all(|&b| b == 0xff));
        // Too many entries, cut codes, a value out of range.
        assert!(decode_page(&[9, 0, 0, 0], &mut out).is_err());
        assert!(decode_page(&coded[..coded.len() - 1], &mut out).is_err());
        let mut bad = Vec::new();
        encode_page(&plain(&[vec![PAD - 1]], 8), &mut bad);
        bad[5] ^= 2; // the entry codes -1 from 0: PAD
        assert!(decode_page(&bad, &mut out).is_err());
    }
}
