//! Tests of coded wide pages: round trips in both codes, the carries by
//! hand, plain pages for scattered ids, damaged pages refused.

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
