//! Coded wide pages (`csr.id_bytes` 8 with `--compress`; DESIGN.md, "Wide
//! ids"): a page of u64 ids as the narrow code of their low halves and the
//! few carries the low halves lose.
//!
//! The delta of two low halves is the delta of the ids modulo 2^32, so
//! either narrow code ([`super::svb`], [`super::huff`], or the store's
//! tag and the smaller of them) takes the low halves at the cost it takes
//! narrow ids. A delta of 2^31 or more either way (a jump between lists,
//! or a gap in a short list, of a store past 2^31 vertices) also needs its
//! high part, the *carry*:
//!
//! ```text
//! u8 form 0 | the low halves x_i mod 2^32 as a narrow page of k entries, any
//!             values, in the store's code |
//!             varint carries | each: varint index gap (its entry's index
//!             minus the previous carry's, minus 1; the first: its index),
//!             varint zigzag carry
//! u8 form 1 | u32 k | k u64 ids (plain: when the code would be longer)
//! ```
//!
//! with `x_i = x_{i-1} + sext32((x_i - x_{i-1}) mod 2^32) + carry_i * 2^32`
//! (`x_{-1} = 0`; a carry not listed is 0). A store of fewer than 2^31
//! vertices has no carries: its wide pages cost the narrow code and one
//! byte. Form 1 bounds a page at its plain bytes and 5, under the bound of
//! a narrow page of the same bytes ([`super::max_coded`]), so the page
//! directory's check and the read buffers hold for both widths.
//!
//! Decoding is in place: the low halves go to the page's upper half, are
//! copied out, and the ids are written from the page's start in runs
//! between carries. Ids are below 2^63 (the build's dense ids stop at
//! 2^48), so the padding `u64::MAX` is never one.

use super::{decode_tagged, encode_entries, svb, Code};
use crate::ingest::leb128;

/// The form byte of a page of low halves and carries.
const FORM_CODED: u8 = 0;
/// The form byte of a plain page.
const FORM_PLAIN: u8 = 1;
/// Ids stay below this: deltas fit an i64, the padding is never an id.
const END: u64 = 1 << 63;

/// The delta of `x` from `prev` that the low halves do not carry, in units
/// of 2^32.
#[inline]
fn carry(x: u64, prev: u64) -> i64 {
    let d = x as i128 - prev as i128;
    ((d - (d as i32 as i128)) >> 32) as i64
}

/// Appends the coded form of one plain wide page (its slots, ids then
/// padding `u64::MAX`) to `out` in `code`.
pub fn encode(code: Code, slots: &[u64], out: &mut Vec<u8>) {
    let k = slots
        .iter()
        .position(|&x| x == u64::MAX)
        .unwrap_or(slots.len());
    let ids = &slots[..k];
    debug_assert!(
        slots[k..].iter().all(|&x| x == u64::MAX),
        "padding inside a page"
    );
    debug_assert!(ids.iter().all(|&x| x < END), "an id past 2^63");
    let at = out.len();
    out.push(FORM_CODED);
    let lows: Vec<u32> = ids.iter().map(|&x| x as u32).collect();
    encode_entries(code, &lows, out);
    let carries: Vec<(usize, i64)> = (0..k)
        .map(|i| (i, carry(ids[i], if i == 0 { 0 } else { ids[i - 1] })))
        .filter(|&(_, c)| c != 0)
        .collect();
    let mut v = [0u8; 10];
    let mut put = |x: u64, out: &mut Vec<u8>| {
        let n = leb128::put(&mut v, x);
        out.extend_from_slice(&v[..n]);
    };
    put(carries.len() as u64, out);
    let mut next = 0;
    for (i, c) in carries {
        put((i - next) as u64, out);
        put(((c << 1) ^ (c >> 63)) as u64, out);
        next = i + 1;
    }
    if out.len() - at > 5 + 8 * k {
        out.truncate(at);
        out.push(FORM_PLAIN);
        out.extend_from_slice(&(k as u32).to_le_bytes());
        out.extend(ids.iter().flat_map(|x| x.to_le_bytes()));
    }
}

/// Decodes the coded wide page at the start of `coded` into `page` (the
/// plain page's bytes: little-endian u64 slots, the tail padded); `tagged`
/// as the store's pages are ([`super::HUFF`]). Returns the coded bytes
/// consumed, or what is wrong with them.
pub fn decode(coded: &[u8], page: &mut [u8], tagged: bool) -> Result<usize, String> {
    let slots = page.len() / 8;
    let (form, body) = coded.split_first().ok_or("the page's form is cut off")?;
    let count = |b: &[u8]| -> Result<usize, String> {
        let k = b
            .get(..4)
            .map(|h| u32::from_le_bytes(h.try_into().expect("4 bytes")) as usize)
            .ok_or("the page's entry count is cut off")?;
        match k <= slots {
            true => Ok(k),
            false => Err(format!("a page claims {k} entries; a page holds {slots}")),
        }
    };
    let (k, used) = match *form {
        FORM_PLAIN => {
            let k = count(body)?;
            let ids = body.get(4..4 + 8 * k).ok_or("the page's ids are cut off")?;
            page[..8 * k].copy_from_slice(ids);
            let bad = page[..8 * k]
                .chunks_exact(8)
                .any(|x| u64::from_le_bytes(x.try_into().expect("8 bytes")) >= END);
            if bad {
                return Err("an id of 2^63 or more".into());
            }
            (k, 4 + 8 * k)
        }
        FORM_CODED => {
            let k = count(body.get(tagged as usize..).unwrap_or(&[]))?;
            let lows = &mut page[4 * slots..8 * slots];
            let low_bytes = match tagged {
                true => decode_tagged(body, lows, false)?,
                false => svb::decode_words(body, lows)?,
            };
            let carries = widen(&body[low_bytes..], page, k)?;
            (k, low_bytes + carries)
        }
        f => return Err(format!("a page of form {f}; the forms are 0 and 1")),
    };
    page[8 * k..].fill(0xff);
    Ok(1 + used)
}

/// Turns the `k` low halves in the upper half of `page` into ids from its
/// start, with the carries coded at the start of `carries`; returns the
/// carries' bytes.
fn widen(carries: &[u8], page: &mut [u8], k: usize) -> Result<usize, String> {
    let base = page.len() / 8 * 4;
    // The halves copied out (a 4 KiB page's fit on the stack), so the ids
    // can be written over them in one pass.
    let (mut stack, mut heap) = ([0u32; 512], Vec::new());
    let lows = match k <= stack.len() {
        true => &mut stack[..k],
        false => {
            heap.resize(k, 0);
            &mut heap[..]
        }
    };
    for (l, b) in lows.iter_mut().zip(page[base..].chunks_exact(4)) {
        *l = u32::from_le_bytes(b.try_into().expect("4 bytes"));
    }
    let mut at = 0;
    let mut take = || -> Result<u64, String> {
        let (v, n) = leb128::take(&carries[at..]).ok_or("the page's carries are cut off")?;
        at += n;
        Ok(v)
    };
    let mut left = take()?;
    if left > k as u64 {
        return Err(format!("a page of {k} entries with {left} carries"));
    }
    let mut next = match left {
        0 => k,
        _ => take()?.min(k as u64) as usize,
    };
    let (mut prev, mut prev_low, mut i) = (0i64, 0u32, 0usize);
    // Bit 63 of any id set: outside 0..2^63.
    let mut outside = 0u64;
    let mut ids = page[..8 * k].chunks_exact_mut(8);
    while i < k {
        // A run without carries. A step from an id below 2^63 that leaves
        // 0..2^63 sets bit 63 (as i64 it wraps or goes below 0).
        for (&low, out) in lows[i..next].iter().zip(&mut ids) {
            prev = prev.wrapping_add(low.wrapping_sub(prev_low) as i32 as i64);
            prev_low = low;
            outside |= prev as u64;
            out.copy_from_slice(&prev.to_le_bytes());
        }
        if next == k {
            break;
        }
        let z = take()?;
        let c = ((z >> 1) ^ (z & 1).wrapping_neg()) as i64;
        if c == 0 || c.unsigned_abs() > 1 << 31 {
            return Err(format!("entry {next} has a carry of {c}"));
        }
        let low = lows[next];
        let x = prev as i128 + (low.wrapping_sub(prev_low) as i32) as i128 + ((c as i128) << 32);
        if !(0..END as i128).contains(&x) || outside >> 63 != 0 {
            return Err(format!("entry {next} decodes outside 0..2^63"));
        }
        (prev, prev_low) = (x as i64, low);
        ids.next()
            .expect("an id a low half")
            .copy_from_slice(&prev.to_le_bytes());
        i = next + 1;
        left -= 1;
        next = match left {
            0 => k,
            _ => take()?.saturating_add(i as u64).min(k as u64) as usize,
        };
    }
    if outside >> 63 != 0 {
        return Err("an entry decodes outside 0..2^63".into());
    }
    if left > 0 {
        return Err("a carry past the page's entries".into());
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(page: &[u64]) -> Vec<u8> {
        page.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Codes `page` in `code` behind a stray byte and decodes it back.
    fn round_trip(code: Code, page: &[u64]) -> Vec<u8> {
        let mut coded = vec![7u8];
        encode(code, page, &mut coded);
        let k = page.iter().take_while(|&&x| x != u64::MAX).count();
        assert!(coded.len() - 1 <= 5 + 8 * k);
        let mut out = vec![0u8; 8 * page.len()];
        let used = decode(&coded[1..], &mut out, code == Code::Small);
        assert_eq!(used, Ok(coded.len() - 1));
        assert_eq!(out, bytes(page));
        coded.split_off(1)
    }

    /// Sorted lists back to back over ids below 5,000, 2^31, 2^33, 2^48 or
    /// 2^63: gaps inside, jumps either way between them.
    fn lists() -> impl Strategy<Value = Vec<u64>> {
        let list = prop::collection::btree_set(0u64..END, 0..40);
        (prop::collection::vec(list, 0..30), 0u32..5).prop_map(|(ls, scale)| {
            let m = [5_000, 1 << 31, 1 << 33, 1 << 48, END][scale as usize];
            ls.into_iter()
                .flat_map(|s| {
                    let s: std::collections::BTreeSet<u64> = s.into_iter().map(|x| x % m).collect();
                    s.into_iter()
                })
                .collect()
        })
    }

    proptest! {
        /// Pages of ids anywhere below 2^63 come back in both codes, in at
        /// most their plain bytes and 5.
        #[test]
        fn wide_pages_round_trip_in_both_codes(entries in lists(), slots in 1usize..600) {
            let mut page = entries;
            page.truncate(slots);
            page.resize(slots, u64::MAX);
            for code in [Code::Fast, Code::Small] {
                round_trip(code, &page);
            }
        }
    }

    /// Ids below 2^31 need no carries: a wide page costs its narrow code
    /// and two bytes (the form and the carries' count). Past 2^32 the
    /// jumps carry, and the gaps inside a list stay narrow.
    #[test]
    fn carries_only_where_the_low_halves_lose_them() {
        let near: Vec<u64> = (0..512).map(|i| (1 << 30) + 3 * i).collect();
        for code in [Code::Fast, Code::Small] {
            let coded = round_trip(code, &near);
            let lows: Vec<u32> = near.iter().map(|&x| x as u32).collect();
            let mut narrow = Vec::new();
            super::super::encode(code, &lows, &mut narrow);
            assert_eq!(coded.len(), narrow.len() + 2, "{code:?}");
            assert_eq!((coded[0], *coded.last().unwrap()), (FORM_CODED, 0));
        }
        // Lists far apart: the first id and a jump each way carry (5 at
        // entry 0, -5 at 100, 40 at 200: an index gap and a zigzag carry of
        // a byte each), the gaps inside the lists as narrow as they were.
        let mut far: Vec<u64> = (0..100).map(|i| (5 << 32) + i).collect();
        far.extend((0..100).map(|i| 7 + 2 * i));
        far.extend((0..100).map(|i| (40 << 32) + (1 << 31) + i));
        for code in [Code::Fast, Code::Small] {
            let coded = round_trip(code, &far);
            let lows: Vec<u32> = far.iter().map(|&x| x as u32).collect();
            let mut narrow = Vec::new();
            super::super::encode(code, &lows, &mut narrow);
            assert_eq!(coded[0], FORM_CODED);
            assert_eq!(coded.len(), narrow.len() + 8, "{code:?}");
            assert_eq!(coded[coded.len() - 7..], [3, 0, 10, 99, 9, 99, 80]);
        }
        assert_eq!(carry(5 << 32, 0), 5);
        assert_eq!(carry(7, 5 << 32), -5);
        assert_eq!(carry(END - 1, 0), 1 << 31);
        assert_eq!(carry(0, END - 1), -(1 << 31));
        assert_eq!(carry((1 << 31) - 1, 0), 0);
        assert_eq!(carry(1 << 31, 0), 1);
    }

    /// A page made by hand from the format (fuzz/seeds/csrcode/wide-carry):
    /// ids 5, 6, 2^40; the low halves' zigzag deltas 10, 2, 11 in a byte
    /// each; one carry, at entry 2, of 2^40 / 2^32 = 256 (zigzag 512).
    #[test]
    fn a_wide_page_by_hand() {
        let page = [0, 3, 0, 0, 0, 0, 10, 2, 11, 1, 2, 0x80, 0x04];
        let mut out = [0u8; 32];
        assert_eq!(decode(&page, &mut out, false), Ok(page.len()));
        assert_eq!(out[..24], bytes(&[5, 6, 1 << 40]));
        assert_eq!(out[24..], [0xff; 8]);
        let mut coded = Vec::new();
        encode(Code::Fast, &[5, 6, 1 << 40, u64::MAX], &mut coded);
        assert_eq!(coded, page);
    }

    /// A low half of all ones is no padding in a wide page: a list across
    /// 2^33 - 1 comes back from both narrow codes.
    #[test]
    fn low_halves_of_all_ones_are_ids() {
        let across: Vec<u64> = (0..300).map(|i| (1 << 33) - 150 + i).collect();
        assert_eq!(across[149] as u32, u32::MAX);
        // Also as a page's last entry (decoded one at a time).
        for (code, ids) in [Code::Fast, Code::Small]
            .iter()
            .flat_map(|&c| [(c, &across[..]), (c, &across[..150])])
        {
            let coded = round_trip(code, ids);
            assert_eq!(coded[0], FORM_CODED);
            if code == Code::Small {
                assert_eq!(coded[1], super::super::TAG_HUFF);
            }
        }
    }

    /// A page whose code would pass its plain bytes is stored plain.
    #[test]
    fn scattered_ids_are_stored_plain() {
        let mut r = 99u64;
        let scattered: Vec<u64> = (0..64)
            .map(|_| {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                r % END
            })
            .collect();
        let coded = round_trip(Code::Fast, &scattered);
        assert_eq!(coded[0], FORM_PLAIN);
        assert_eq!(coded.len(), 5 + 8 * 64);
    }

    /// Damage is refused: an unknown form, too many entries, cut carries,
    /// a zero carry, a carry past the entries, an id below 0 or past 2^63.
    #[test]
    fn damaged_wide_pages_are_refused() {
        let page: Vec<u64> = vec![3, 1 << 40, (1 << 40) + 1, u64::MAX];
        let mut coded = Vec::new();
        encode(Code::Fast, &page, &mut coded);
        let n = coded.len();
        // Form 0, 4 count bytes, 1 length byte, codes 1 + 1 + 1, then the
        // carries: 1 of them, at entry 1, carry 256 (zigzag 512: 2 bytes).
        assert_eq!(coded[n - 4..], [1, 1, 0x80, 4]);
        let refused = |bad: &[u8]| decode(bad, &mut [0u8; 32], false).is_err();
        assert!(!refused(&coded));
        assert!(refused(&coded[..n - 1]));
        let mut bad = coded.clone();
        bad[0] = 2;
        assert!(refused(&bad));
        bad = coded.clone();
        bad[1] = 5;
        assert!(refused(&bad));
        bad = coded.clone();
        bad[n - 4] = 2;
        assert!(refused(&bad));
        bad = coded.clone();
        bad[n - 3] = 3;
        assert!(refused(&bad));
        bad = coded[..n - 2].to_vec();
        bad.push(0);
        assert!(refused(&bad));
        // The carry negated: the id falls below 0.
        bad = coded[..n - 2].to_vec();
        bad.extend([0xff, 3]);
        assert!(refused(&bad));
        // A run without carries stepping below 0 (a low half of 2^31 is a
        // step of -2^31).
        let mut low = vec![FORM_CODED];
        encode_entries(Code::Fast, &[1 << 31], &mut low);
        low.push(0);
        assert!(decode(&low, &mut [0u8; 8], false).is_err());
        // Entry 0: a low half of 2^32 - 1 (a step of -1) and a carry of
        // 2^31 (zigzag 2^32): id 2^63 - 1. Entry 1 steps one further.
        let top = |lows: &[u32]| {
            let mut p = vec![FORM_CODED];
            encode_entries(Code::Fast, lows, &mut p);
            p.extend([1, 0, 0x80, 0x80, 0x80, 0x80, 0x10]);
            p
        };
        let mut out = [0u8; 16];
        let one = top(&[u32::MAX]);
        assert_eq!(decode(&one, &mut out[..8], false), Ok(one.len()));
        assert_eq!(out[..8], (END - 1).to_le_bytes());
        assert!(decode(&top(&[u32::MAX, 0]), &mut out, false).is_err());
        let mut plain = Vec::new();
        encode(Code::Fast, &[9, u64::MAX], &mut plain);
        plain.truncate(1);
        plain.extend(1u32.to_le_bytes());
        plain.extend(END.to_le_bytes());
        plain[0] = FORM_PLAIN;
        assert!(decode(&plain, &mut [0u8; 16], false).is_err());
    }
}
