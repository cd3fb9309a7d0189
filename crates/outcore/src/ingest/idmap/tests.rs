//! Tests of the id map and its collector: exact monotone maps, maps built
//! from the collector's bitmap and from a sorted list agreeing, dense ids
//! kept as the rank bitmap alone, the collector's share honoured: ids past
//! it go on to disk.

use super::*;
use crate::ingest::scratch::Scratch;

/// A scratch directory for a collector (its sorter's files, should it
/// spill), removed with the temporary directory.
fn scratch() -> (tempfile::TempDir, Scratch) {
    let dir = tempfile::tempdir().unwrap();
    let s = Scratch::within(dir.path(), "t").unwrap();
    (dir, s)
}

/// The map of a collector that kept its ids in memory.
fn in_memory(c: IdCollector) -> IdMap {
    match c.finish().unwrap() {
        Collected::Map(m) => m,
        Collected::Disk(_) => panic!("the ids went to disk"),
    }
}

/// Every id a collector's sorter on disk gives back.
fn on_disk(c: IdCollector) -> (Vec<u64>, u64) {
    let Collected::Disk(mut ids) = c.finish().unwrap() else {
        panic!("the ids stayed in memory")
    };
    let mut all = Vec::new();
    while let Some(v) = ids.next_id().unwrap() {
        all.push(v);
    }
    (all, ids.spilled_bytes())
}

#[test]
fn maps_are_monotone_and_exact() {
    let budget = Budget::new(1 << 30);
    let (_dir, sc) = scratch();
    for ids in [
        vec![5u64, 7, 1 << 40, u64::MAX - 1, u64::MAX],
        vec![0, 1, 2, 3],
        vec![1, 2, 3],
        vec![u32::MAX as u64 - 1, u32::MAX as u64, u32::MAX as u64 + 1],
        vec![],
        vec![42],
        // Dense enough for the rank bitmap, across many words.
        (0..5000u64)
            .map(|i| 1000 + 3 * i + (i % 7 == 0) as u64)
            .collect(),
    ] {
        let mut c = IdCollector::new(&budget, 1 << 20, &sc, None);
        for &x in ids.iter().rev().chain(ids.iter()) {
            c.add(x).unwrap();
        }
        let m = in_memory(c);
        assert_eq!(m.len(), ids.len() as u64);
        for (i, &x) in ids.iter().enumerate() {
            assert_eq!(m.dense(x), Some(i as u64), "{ids:?}");
            assert_eq!(m.original(i as u64), x);
            if x > 0 && !ids.contains(&(x - 1)) {
                assert_eq!(m.dense(x - 1), None);
            }
        }
        assert_eq!(m.dense(u64::MAX - 2), None);
    }
}

/// Random id sets (dense, sparse, offset from 0, crossing words)
/// mapped from the collector's bitmap and from the sorted list agree
/// on every lookup both ways and on the ids written to the store.
#[test]
fn bitmap_and_list_maps_agree() {
    let budget = Budget::new(1 << 30);
    let (_dir, sc) = scratch();
    let mut x: u64 = 99;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..200u64 {
        let min = next() % 300;
        let span = 1 + next() % 5000;
        let keep = 1 + next() % 100; // percent of the span present
        let mut ids: Vec<u64> = (min..=min + span).filter(|_| next() % 100 < keep).collect();
        if case % 7 == 0 {
            ids = (0..span).collect(); // the identity
        }
        let mut c = IdCollector::new(&budget, 1 << 20, &sc, None);
        ids.iter().try_for_each(|&v| c.add(v)).unwrap();
        let m = in_memory(c);
        let l = IdMap::from_sorted(ids.clone(), &budget).unwrap();
        assert_eq!(m.len(), ids.len() as u64);
        for v in min.saturating_sub(70)..min + span + 70 {
            assert_eq!(m.dense(v), l.dense(v), "case {case}: id {v}");
        }
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(m.original(i as u64), id, "case {case}");
        }
        let mut written = Vec::new();
        m.for_each_original_chunk(100, &mut |c| {
            assert!(c.len() <= 100);
            written.extend_from_slice(c);
            Ok(())
        })
        .unwrap();
        match m.is_identity() {
            true => assert!(written.is_empty()),
            false => assert_eq!(written, ids, "case {case}"),
        }
    }
}

/// Ids dense in their span are kept as the rank bitmap alone: a
/// quarter byte a possible id, not 8 bytes an id beside it (which
/// sent kron-22 at 128 MiB onto the on-disk ranking).
#[test]
fn dense_ids_cost_their_rank_bitmap_only() {
    let budget = Budget::new(1 << 30);
    let n = 1u64 << 20;
    let (_dir, sc) = scratch();
    let mut c = IdCollector::new(&budget, 64 << 20, &sc, None);
    (0..n).try_for_each(|i| c.add(5 + 3 * i / 2)).unwrap();
    let m = in_memory(c);
    assert_eq!(m.len(), n);
    let span = 3 * n / 2;
    assert!(
        budget.used() <= span / 4 + 64,
        "the map holds {} bytes for {n} ids over {span}",
        budget.used()
    );
    let list = IdMap::from_sorted((0..n).map(|i| 5 + 3 * i / 2).collect(), &budget).unwrap();
    assert!(budget.used() <= 2 * (span / 4 + 64));
    assert_eq!(list.dense(5 + 3 * 1000 / 2), Some(1000));
}

/// Ids past the collector's share go on to disk instead of failing (the
/// build used to start over): every distinct id comes back once,
/// ascending (the bitmap's first ones, the list's, the last buffer's),
/// and the collector never holds more than its share.
#[test]
fn collector_spills_past_its_share() {
    let budget = Budget::new(1 << 30);
    let (_dir, sc) = scratch();
    let share = 4 << 20;
    let mut c = IdCollector::new(&budget, share, &sc, Some(1 << 20));
    // Small ids first (the bitmap), then a million spread over 2^40, each
    // twice, in two orders.
    let spread = |i: u64| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1 << 40) - 1)) | 1 << 40;
    let small = (0..5000u64).map(|i| 3 * i);
    let ids: Vec<u64> = small.chain((0..1_000_000).map(spread)).collect();
    ids.iter()
        .chain(ids.iter().rev())
        .try_for_each(|&v| c.add(v))
        .unwrap();
    assert!(c.spilled(), "past the share");
    let (got, spilled) = on_disk(c);
    let mut want = ids;
    want.sort_unstable();
    want.dedup();
    assert!(got == want, "{} ids back of {}", got.len(), want.len());
    assert!(spilled > 0);
    assert!(budget.peak() <= share, "{} bytes held", budget.peak());
    assert_eq!(budget.used(), 0);
}

/// Collected on disk from the start (`external_ids`), or sent there when
/// the map of the ids collected does not fit what the budget has left.
#[test]
fn ids_go_to_disk_from_the_start_or_when_their_map_does_not_fit() {
    let budget = Budget::new(64 << 20);
    let (_dir, sc) = scratch();
    let ids = [9u64, 1 << 50, 3, 9, u64::MAX, 3, 0];
    let mut c = IdCollector::new(&budget, 16 << 20, &sc, None)
        .on_disk()
        .unwrap();
    ids.iter().try_for_each(|&v| c.add(v)).unwrap();
    assert_eq!(on_disk(c).0, [0, 3, 9, 1 << 50, u64::MAX]);

    // 2 million ids dense in 4 million: a 512 KiB bitmap, whose rank
    // bitmap map takes 1 MB more; the budget has 768 KiB left (enough
    // for the smallest sorter).
    let mut c = IdCollector::new(&budget, 16 << 20, &sc, None);
    (0..2_000_000u64).try_for_each(|i| c.add(2 * i)).unwrap();
    assert!(!c.spilled());
    let _hog = budget
        .charge(budget.available() - (768 << 10), "test")
        .unwrap();
    let (got, _) = on_disk(c);
    let want: Vec<u64> = (0..2_000_000u64).map(|i| 2 * i).collect();
    assert!(got == want);
}

/// Past 2^32 - 1 ids the rank bitmap numbers them in 64 bits (a 512 MiB
/// bitmap of 2^32 + 127 ids from 1, so 1 GiB of ranks: the build then
/// refuses the store by its vertex count, not the map).
#[test]
fn a_rank_bitmap_numbers_ids_past_2_32() {
    let budget = Budget::new(2 << 30);
    let mut bits = vec![u64::MAX; ((1u64 << 32) / 64 + 2) as usize];
    bits[0] &= !1;
    let m = IdMap::from_bitmap(&bits, &budget).unwrap().unwrap();
    drop(bits);
    let n = (1u64 << 32) + 127;
    assert_eq!(m.len(), n);
    assert!(!m.is_identity());
    for (id, rank) in [(1, 0), (64, 63), (1 << 32, (1 << 32) - 1), (n, n - 1)] {
        assert_eq!(m.dense(id), Some(rank), "{id}");
        assert_eq!(m.original(rank), id);
    }
    assert_eq!((m.dense(0), m.dense(n + 1)), (None, None));
}
