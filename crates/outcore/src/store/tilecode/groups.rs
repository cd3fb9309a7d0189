//! Four gaps at a time: stream-vbyte's group decoding, with SSSE3 where
//! the CPU has it (the format: [`super`]).

use std::mem::MaybeUninit;

/// Per length byte: where each of its four gaps starts in the group's
/// bytes, and the group's length.
pub(crate) const GROUPS: [([u8; 4], u8); 256] = {
    let mut t = [([0u8; 4], 0u8); 256];
    let mut c = 0;
    while c < 256 {
        let mut at = 0u8;
        let mut k = 0;
        while k < 4 {
            t[c].0[k] = at;
            at += ((c >> (2 * k)) & 3) as u8 + 1;
            k += 1;
        }
        t[c].1 = at;
        c += 1;
    }
    t
};

/// Masks of the 1-4 byte codes.
const MASK: [u32; 4] = [0xff, 0xffff, 0xff_ffff, 0xffff_ffff];

/// Decodes whole groups of four gaps into `dst` while a 16-byte load stays
/// inside `data`, continuing from `key`; returns (groups, bytes) decoded.
/// SSSE3 where the CPU has it (one shuffle and a prefix sum in registers
/// a group), else scalar loads at table offsets; neither branches per gap.
#[inline]
pub(super) fn groups(
    lens: &[u8],
    data: &[u8],
    dst: &mut [MaybeUninit<u32>],
    key: &mut u32,
) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3.
        return unsafe { groups_ssse3(lens, data, dst, key) };
    }
    groups_scalar(lens, data, dst, key)
}

fn groups_scalar(
    lens: &[u8],
    data: &[u8],
    dst: &mut [MaybeUninit<u32>],
    key: &mut u32,
) -> (usize, usize) {
    let (mut q, mut g) = (0, 0);
    for (group, &c) in dst.chunks_exact_mut(4).zip(lens) {
        let Some(window) = data.get(q..q + 16) else {
            break;
        };
        let w: &[u8; 16] = window.try_into().expect("16 bytes");
        let (offs, total) = (&GROUPS[c as usize].0, GROUPS[c as usize].1);
        for (k, slot) in group.iter_mut().enumerate() {
            let o = offs[k] as usize;
            let v = u32::from_le_bytes([w[o], w[o + 1], w[o + 2], w[o + 3]]);
            *key = key
                .wrapping_add(v & MASK[(c >> (2 * k) & 3) as usize])
                .wrapping_add(1);
            slot.write(key.rotate_left(16));
        }
        q += total as usize;
        g += 1;
    }
    (g, q)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn groups_ssse3(
    lens: &[u8],
    data: &[u8],
    dst: &mut [MaybeUninit<u32>],
    key: &mut u32,
) -> (usize, usize) {
    use std::arch::x86_64::*;
    let (mut q, mut g) = (0, 0);
    let groups = (dst.len() / 4).min(lens.len());
    let ones = _mm_set1_epi32(1);
    let mut prev = _mm_set1_epi32(*key as i32);
    while g < groups && q + 16 <= data.len() {
        let c = lens[g] as usize;
        // SAFETY: q + 16 <= data.len(); SHUFFLES[c] is 16 bytes; the 4
        // slots 4g..4g + 4 lie in dst (g < dst.len() / 4).
        unsafe {
            let x = _mm_loadu_si128(data.as_ptr().add(q) as *const __m128i);
            let m = _mm_loadu_si128(SHUFFLES[c].as_ptr() as *const __m128i);
            // The gaps, plus one, summed along the lanes onto the last key.
            let v = _mm_add_epi32(_mm_shuffle_epi8(x, m), ones);
            let v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
            let v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
            let v = _mm_add_epi32(v, prev);
            prev = _mm_shuffle_epi32(v, 0xFF);
            // Keys (src << 16 | dst) to tile words (src | dst << 16).
            let w = _mm_or_si128(_mm_slli_epi32(v, 16), _mm_srli_epi32(v, 16));
            _mm_storeu_si128(dst.as_mut_ptr().add(4 * g) as *mut __m128i, w);
        }
        q += GROUPS[c].1 as usize;
        g += 1;
    }
    *key = _mm_cvtsi128_si32(prev) as u32;
    (g, q)
}

/// Per length byte: the `pshufb` mask gathering its four gaps into u32
/// lanes (0x80: a zero byte).
#[cfg(target_arch = "x86_64")]
pub(crate) static SHUFFLES: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut c = 0;
    while c < 256 {
        let mut k = 0;
        while k < 4 {
            let (at, len) = (GROUPS[c].0[k], ((c >> (2 * k)) & 3) as u8 + 1);
            let mut j = 0;
            while j < len {
                t[c][4 * k + j as usize] = at + j;
                j += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_and_simd_groups_decode_alike() {
        // Every length byte, gaps of every size: the portable loop and the
        // SSSE3 one give the same words, bytes consumed and last key.
        let mut rng = 0x2545f4914f6cdd1du64;
        let mut lens = Vec::new();
        let mut data = Vec::new();
        for c in 0..=255u8 {
            lens.push(c);
            for k in 0..4 {
                let len = (c >> (2 * k) & 3) as usize + 1;
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                data.extend_from_slice(&rng.to_le_bytes()[..len]);
            }
        }
        data.extend_from_slice(&[0; 15]);
        let run = |simd: bool| {
            let mut dst = vec![MaybeUninit::new(0u32); 4 * lens.len()];
            let mut key = 12345u32;
            let (g, q) = match simd {
                true => groups(&lens, &data, &mut dst, &mut key),
                false => groups_scalar(&lens, &data, &mut dst, &mut key),
            };
            // SAFETY: every slot was initialised above.
            let words: Vec<u32> = dst[..4 * g]
                .iter()
                .map(|w| unsafe { w.assume_init() })
                .collect();
            (g, q, key, words)
        };
        let (scalar, simd) = (run(false), run(true));
        assert_eq!(scalar.0, 256);
        assert_eq!(scalar, simd);
    }
}
