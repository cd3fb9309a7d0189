use super::*;

use crate::ingest::scratch::Scratch;
use crate::ingest::sort::tests::Pair;

/// Sorts `keys` (tagged with their push order) with a sorter of `bytes`
/// and checks the stream, twice (rewound), against a stable sort; returns
/// what the stream did (no buckets when nothing spilled).
fn check(keys: &[u64], bytes: u64, split: Split, expected: Option<u64>) -> BucketStats {
    let direct = check_in(keys, bytes, split, expected, false);
    // How far the loader got ahead depends on timing.
    let ahead = |b: BucketStats| BucketStats { ahead: 0, ..b };
    let buffered = check_in(keys, bytes, split, expected, true);
    assert_eq!(ahead(buffered), ahead(direct.clone()));
    direct
}

/// One run of [`check`], with `O_DIRECT` or page-cache spills.
fn check_in(
    keys: &[u64],
    bytes: u64,
    split: Split,
    expected: Option<u64>,
    buffered: bool,
) -> BucketStats {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    let mut s = BucketSorter::<Pair>::new("t", &scratch, &budget, bytes, split, expected).unwrap();
    if buffered {
        s = s.buffered();
    }
    let pairs: Vec<Pair> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| Pair(k, i as u32))
        .collect();
    for &p in &pairs {
        s.push(p).unwrap();
    }
    let mut expect = pairs.clone();
    expect.sort_by_key(|p| p.0);
    // Parked first (as the build does): everything is out, and counted.
    s.park().unwrap();
    let spilled = s.spilled_bytes();
    // Hashed buckets store records whole; ordered ones store keys in the
    // bytes their bucket's range needs.
    let whole = (keys.len() * Pair::BYTES) as u64;
    assert!(
        spilled == 0
            || (split == Split::Hashed && spilled == whole)
            || (split == Split::Ordered && spilled <= whole),
        "{spilled}"
    );
    let mut sorted = s.finish().unwrap();
    for round in 0..2 {
        let mut got = Vec::new();
        while let Some(r) = sorted.next_record().unwrap() {
            got.push(r);
        }
        if split == Split::Hashed {
            // Equal keys together, in push order; keys sorted per bucket.
            let mut runs: Vec<Vec<Pair>> = Vec::new();
            for p in &got {
                match runs.last_mut() {
                    Some(r) if r[0].0 == p.0 => r.push(*p),
                    _ => runs.push(vec![*p]),
                }
            }
            let mut seen: Vec<u64> = runs.iter().map(|r| r[0].0).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), runs.len(), "a key appears in two places");
            got.sort_by_key(|p| p.0);
        }
        assert_eq!(got, expect, "round {round}");
        sorted.rewind().unwrap();
    }
    let stats = sorted.bucket_stats().unwrap_or_default();
    drop(sorted);
    // Bucket files are deleted on the scratch's thread.
    scratch.drain();
    assert_eq!(
        std::fs::read_dir(scratch.dir()).unwrap().count(),
        0,
        "files left"
    );
    assert!(budget.used() == 0, "charges left");
    stats
}

fn random(n: usize, modulo: u64, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 20) % modulo
        })
        .collect()
}

#[test]
fn small_inputs_stay_in_memory() {
    for split in [Split::Ordered, Split::Hashed] {
        assert!(check(&random(5000, 100, 1), 2 << 20, split, None)
            .records
            .is_empty());
    }
}

#[test]
fn spilled_buckets_come_back_in_order_and_stable() {
    // 1024-record buffers: many spills into many buckets.
    for (n, modulo, seed) in [
        (60_000, 1 << 40, 2),
        (60_000, 300, 3),
        (30_001, u64::MAX, 4),
    ] {
        for split in [Split::Ordered, Split::Hashed] {
            let keys = random(n, modulo, seed);
            let b = check(&keys, 0, split, Some(n as u64));
            assert!(b.records.len() > 2, "{split:?}: {b:?}");
            // Buckets that fit were loaded and sorted ahead of need.
            assert!(b.prefetched > 0, "{b:?}");
            // Ordered buckets are read into their cells' places (hashed
            // ones only where nested: the nested sorters are ordered).
            assert!(b.placed > 0 || split == Split::Hashed, "{b:?}");
        }
    }
}

#[test]
fn the_loader_reads_the_next_but_one_bucket_while_the_next_sorts() {
    // Buckets a quarter of what a load may hold: the stream's charge holds
    // four, so the loader runs two ahead of a slow consumer.
    let keys = random(400_000, 1 << 40, 8);
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    let n = keys.len() as u64;
    let mut s =
        BucketSorter::<Pair>::new("t", &scratch, &budget, 16 << 20, Split::Ordered, Some(n))
            .unwrap();
    // What a share of 256 MiB or more gets (small here, so it spills).
    s.encodings = 2;
    for (i, &k) in keys.iter().enumerate() {
        s.push(Pair(k, i as u32)).unwrap();
    }
    let mut sorted = s.finish().unwrap();
    let (mut got, mut chunk) = (0u64, Vec::new());
    loop {
        chunk.clear();
        if !sorted.next_chunk(&mut chunk, 4096).unwrap() {
            break;
        }
        if got == 0 {
            // A consumer slow at its first bucket, however loaded the
            // machine: the loader gets the time to run two ahead (and no
            // more than that, however long it waits).
            let t = std::time::Instant::now();
            while sorted.bucket_stats().unwrap().ahead < 2 && t.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        got += chunk.len() as u64;
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    assert_eq!(got, n);
    let b = sorted.bucket_stats().unwrap();
    assert!(b.records.len() > 8 && b.streamed == 0, "{b:?}");
    assert_eq!(b.ahead, 2, "{b:?}");
    drop(sorted);
    assert_eq!(budget.used(), 0, "charges left");
}

#[test]
fn large_shares_encode_twice_and_load_two_ahead_small_ones_once() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    for (share, want) in [(16u64 << 20, 1), (255 << 20, 1), (256 << 20, 2)] {
        let s =
            BucketSorter::<Pair>::new("t", &scratch, &budget, share, Split::Ordered, None).unwrap();
        assert_eq!(s.encodings, want, "share {share}");
        assert!(budget.used() <= share, "share {share}: {}", budget.used());
    }
}

#[test]
fn ordered_buckets_store_keys_in_the_bytes_their_range_needs() {
    // Keys below 2^40 in many buckets: 5 key bytes where 8 were,
    // the rest of the record whole; keys at the top of u64 still come
    // back (the last bucket's range reaches u64::MAX).
    let mut keys = random(50_000, 1 << 40, 6);
    let n = keys.len() as u64;
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    let mut s =
        BucketSorter::<Pair>::new("t", &scratch, &budget, 0, Split::Ordered, Some(n)).unwrap();
    for (i, &k) in keys.iter().enumerate() {
        s.push(Pair(k, i as u32)).unwrap();
    }
    s.park().unwrap();
    assert!(s.spilled_bytes() > 0);
    // (The first bucket's range starts at 0 and the last one's ends at
    // u64::MAX: those two take more.)
    assert!(s.spilled_bytes() <= n * 19 / 2, "{}", s.spilled_bytes());
    drop(s);
    keys.extend((0..3000).map(|i| u64::MAX - i % 7));
    keys.extend(random(3000, u64::MAX, 7));
    check(&keys, 0, Split::Ordered, Some(1000));
}

/// Each spill's section of an ordered bucket holds its records cell by
/// cell, each key above its cell's lowest: keys below 2^40 take 5 bytes
/// above their bucket's lowest, 4 or fewer above their cell's (a byte
/// more for the first and last cells, the cells' counts per section).
#[test]
fn ordered_buckets_store_keys_above_their_cells() {
    let keys = random(300_000, 1 << 40, 12);
    let n = keys.len() as u64;
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    // A budget of the share alone: the regrouping's memory is part of it.
    let share = 8 << 20;
    let budget = Budget::new(share);
    let mut s =
        BucketSorter::<Pair>::new("t", &scratch, &budget, share, Split::Ordered, Some(n)).unwrap();
    for (i, &k) in keys.iter().enumerate() {
        s.push(Pair(k, i as u32)).unwrap();
    }
    s.park().unwrap();
    let b = &s.spiller.as_ref().unwrap().buckets;
    let plain: u64 = (0..b.count)
        .map(|i| b.records[i] * (b.pack.width[i] + 4) as u64)
        .sum();
    let (got, buckets) = (s.spilled_bytes(), b.count);
    // Parked, the sorter holds its encodings and the regrouping's pieces.
    let cells = 1 << b.cells.as_ref().unwrap().bits;
    let enc = super::spill::encoding_bytes::<Pair>(s.capacity, buckets, cells);
    let held = enc.next_multiple_of(crate::io::ALIGN) as u64 * s.encodings as u64;
    let pieces = super::group::piece_bytes::<Pair>(s.capacity);
    assert_eq!(budget.used(), held + pieces);
    assert!(b.pack.width.iter().all(|&w| w >= 5), "{:?}", b.pack.width);
    assert!(
        got < plain - n * 3 / 4,
        "{got} bytes, {plain} without cells ({buckets} buckets)"
    );
    drop(s);
    check(&keys, share, Split::Ordered, Some(n));
}

#[test]
fn hashed_buckets_are_balanced_for_skewed_keys() {
    // Keys crowded in a narrow range still spread evenly.
    let keys: Vec<u64> = random(50_000, 1 << 10, 6).iter().map(|k| k << 40).collect();
    let b = check(&keys, 0, Split::Hashed, Some(50_000)).records;
    let (max, mean) = (*b.iter().max().unwrap(), 50_000 / b.len() as u64);
    assert!(max < 3 * mean, "{b:?}");
}

mod nested;
