//! Tests of the ranking records: integer keys spilled in the bytes their
//! range needs, wide ranks carried whole.

use super::*;
use crate::ingest::bucket::{BucketSorter, Split};
use crate::ingest::scratch::Scratch;
use crate::mem::Budget;

/// A sorter of `n` records with no memory share: every record spills.
fn spilling<R: Record>(name: &'static str, scratch: &Scratch, n: u64) -> BucketSorter<R> {
    let budget = Budget::new(1 << 30);
    BucketSorter::new(name, scratch, &budget, 0, Split::Ordered, Some(n)).unwrap()
}

/// Integer ids spill their sorted end in at most 8 bytes (their range
/// in a bucket), not 16, and come back whole and in order.
#[test]
fn integer_ids_spill_their_key_in_the_bytes_its_range_needs() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let n = 60_000u64;
    let id = |i: u64| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1) as u128;
    let mut s = spilling::<FpEdge<f64>>("t", &scratch, n);
    let mut h = spilling::<HalfEdge<f64, u32>>("h", &scratch, n);
    for i in 0..n {
        let (a, b, w) = (id(i), id(i + n), i as f64);
        s.push(FpEdge { s: a, d: b, w }).unwrap();
        h.push(HalfEdge {
            d: a,
            s: i as u32,
            w,
        })
        .unwrap();
    }
    s.park().unwrap();
    h.park().unwrap();
    // About 8 + 16 + 8 bytes where 16 + 16 + 8 were, and 8 + 4 + 8 for
    // 16 + 4 + 8 (the last bucket's range reaches 2^128: 16 bytes).
    assert!(s.spilled_bytes() <= n * 33, "{}", s.spilled_bytes());
    assert!(h.spilled_bytes() <= n * 21, "{}", h.spilled_bytes());
    let (mut sorted, mut halves) = (s.finish().unwrap(), h.finish().unwrap());
    let mut want: Vec<u64> = (0..n).collect();
    want.sort_by_key(|&i| id(i));
    for &i in &want {
        let e = sorted.next_record().unwrap().unwrap();
        assert_eq!((e.s, e.d, e.w), (id(i), id(i + n), i as f64));
        let e = halves.next_record().unwrap().unwrap();
        assert_eq!((e.d, e.s, e.w), (id(i), i as u32, i as f64));
    }
    assert!(sorted.next_record().unwrap().is_none());
}

/// Past 2^32 - 1 ids a half edge carries its source's rank in 8 bytes,
/// and gets it back whole.
#[test]
fn wide_ranks_travel_whole() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let n = 30_000u64;
    let rank = |i: u64| (1 << 32) + i * 0x1_0000_0001 % (1 << 40);
    let mut h = spilling::<HalfEdge<(), u64>>("h", &scratch, n);
    for i in (0..n).rev() {
        h.push(HalfEdge {
            d: i as u128,
            s: rank(i),
            w: (),
        })
        .unwrap();
    }
    h.park().unwrap();
    assert!(h.spilled_bytes() >= n * 8, "{}", h.spilled_bytes());
    let mut halves = h.finish().unwrap();
    for i in 0..n {
        let e = halves.next_record().unwrap().unwrap();
        assert_eq!((e.d, e.s), (i as u128, rank(i)));
    }
    assert!(halves.next_record().unwrap().is_none());
    let mut b = [0u8; 24];
    let r = FpRank {
        fp: 7,
        rank: u32::MAX as u64 + 9,
    };
    r.encode(&mut b);
    assert_eq!(FpRank::decode(&b).rank, r.rank);
}
