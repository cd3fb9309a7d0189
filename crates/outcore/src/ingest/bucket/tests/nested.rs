//! Nested and distributed-again buckets: sorted inputs, floods of one key, the nested feed, rewinds, buckets deleted as they are read.

use super::*;

#[test]
fn sorted_inputs_are_distributed_again_and_floods_of_one_key_streamed() {
    // Sorted input: the first buffer's sample covers little of the
    // range, so the last bucket overflows (199,037 of 200,000 records); a
    // nested sorter splits it by a sample read across its file into 64
    // even buckets, each split once more by a sorter of its own (with
    // their first buffers' samples, the last bucket overflows level after
    // level until a scan splits it).
    for n in [40_000u64, 200_000] {
        let keys: Vec<u64> = (0..n).map(|i| i * 7).collect();
        let b = check(&keys, 0, Split::Ordered, Some(1000));
        assert!(b.records.iter().any(|&r| r > 1024), "{b:?}");
        assert!(b.nested > 0 && b.streamed == 0, "{b:?}");
        assert!(b.respilled > 0, "{b:?}");
    }
    // Descending, and sorted runs repeated (a hashed bucket's records come
    // sorted, bucket after bucket): equal keys stay in push order.
    let keys: Vec<u64> = (0..30_000u64).rev().chain(0..30_000).collect();
    let b = check(&keys, 0, Split::Ordered, Some(1000));
    assert!(b.nested > 0 && b.streamed == 0, "{b:?}");
    // One key 20,000 times: a bucket no split can divide (its nested
    // sorter leaves a bucket all of one key, read back as it is).
    let mut keys = random(20_000, 1 << 30, 5);
    keys.extend(std::iter::repeat_n(77, 20_000));
    for split in [Split::Ordered, Split::Hashed] {
        let b = check(&keys, 0, split, Some(40_000));
        assert!(b.records.iter().any(|&r| r >= 20_000), "{split:?}: {b:?}");
        assert!(b.streamed > 0 && b.respilled > 0, "{b:?}");
    }
    // Nothing but the one key: streamed from the first file, never spilled
    // again (the run merge this replaced wrote it all once more).
    let b = check(&vec![77; 40_000], 0, Split::Hashed, Some(40_000));
    assert!(b.streamed > 0 && b.respilled == 0, "{b:?}");
}

/// A nested sorter is fed its bucket's file a 4 MiB read at a time, and
/// each read is decoded a stretch at a time: records packed in a few bytes
/// (here 7 of the 16 they take in memory) never outgrow the output's place,
/// as they did (uncharged) when a whole read was decoded at once.
#[test]
fn the_nested_feed_decodes_within_its_output() {
    let n = 1_500_000u64;
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    let share = 4 << 20;
    let mut s =
        BucketSorter::<Pair>::new("t", &scratch, &budget, share, Split::Ordered, Some(1000))
            .unwrap();
    // Sorted: the last bucket (open above) gets most records.
    for i in 0..n {
        s.push(Pair(i, i as u32)).unwrap();
    }
    s.park().unwrap();
    let (b, _) = s.spiller.take().unwrap().finish().unwrap();
    let big = (0..b.count).max_by_key(|&i| b.records[i]).unwrap();
    let place = nest::FEED / std::mem::size_of::<Pair>();
    let rec = b.pack.min_rec_bytes::<Pair>(big);
    assert!(
        rec <= 7 && b.pack.len[big] > 2 * nest::FEED as u64,
        "{rec} {:?}",
        b.pack.len
    );
    let mut seen = Vec::new();
    let file = (b.files[big].as_path(), b.records[big]);
    nest::feed::<Pair>(
        file,
        (&b.pack, big),
        (&budget, true, nest::FEED),
        &mut |r| {
            assert!(
                r.len() <= place,
                "{} records at once, place for {place}",
                r.len()
            );
            seen.extend_from_slice(r);
            Ok(())
        },
    )
    .unwrap();
    // Pushed in key order: cell by cell is push order.
    assert_eq!(seen.len() as u64, b.records[big]);
    assert!(seen
        .windows(2)
        .all(|w| w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1));
}

/// Random inputs of random shapes (sorted stretches, hubs, floods of a
/// key) through sorters of random small shares: nested or streamed, the
/// stream is the stable sort (checked in [`check`]).
#[test]
fn nested_distribution_property() {
    let sizes = random(12, 60_000, 0x5EED);
    let mut nested = 0;
    for round in 0..12 {
        let n = 20_000 + sizes[round] as usize;
        let r = random(n, u64::MAX >> 20, round as u64);
        let keys: Vec<u64> = (0..n as u64)
            .zip(&r)
            .map(|(i, &x)| match round % 4 {
                0 => i / 3,
                1 => (i % 5_000) * 1_000 + x % 1_000,
                2 if x % 4 == 0 => 42,
                2 => x % (1 << 20),
                _ => i * (1 << 40) / n as u64,
            })
            .collect();
        let bytes = [0, 64 << 10, 160 << 10][round % 3];
        let b = check(&keys, bytes, Split::Ordered, Some((n / 8) as u64));
        nested += b.nested;
    }
    assert!(nested > 0, "no bucket was nested");
}

/// `keys` (tagged with their push order) through an ordered sorter of the
/// smallest share, spilled in `dir`; the stream, and the stable sort.
fn smallest_share(
    keys: &[u64],
    scratch: &Scratch,
    budget: &Budget,
    expected: u64,
) -> (Sorted<Pair>, Vec<Pair>) {
    let mut s =
        BucketSorter::<Pair>::new("t", scratch, budget, 0, Split::Ordered, Some(expected)).unwrap();
    let pairs: Vec<Pair> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| Pair(k, i as u32))
        .collect();
    s.extend(pairs.iter().copied()).unwrap();
    let mut expect = pairs;
    expect.sort_by_key(|p| p.0);
    (s.finish().unwrap(), expect)
}

/// A stream said to be consumed once deletes each bucket's file as soon as
/// the bucket has been read (the rest stay until they are), and still hands
/// every record out in order.
#[test]
fn a_stream_consumed_once_deletes_buckets_as_they_are_read() {
    let keys = random(60_000, 1 << 40, 11);
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratch::within(dir.path(), "t").unwrap();
    let budget = Budget::new(1 << 30);
    let (mut sorted, expect) = smallest_share(&keys, &scratch, &budget, keys.len() as u64);
    sorted.consume_once();
    let files = || std::fs::read_dir(scratch.dir()).unwrap().count();
    let buckets = files();
    assert!(buckets > 4, "{buckets} buckets");
    let mut got = Vec::new();
    // The first bucket's records: its file goes; the loader reads at most
    // two ahead, so most files are still there.
    let first = sorted.bucket_stats().unwrap().records[0] as usize;
    while got.len() < first {
        got.push(sorted.next_record().unwrap().unwrap());
    }
    scratch.drain();
    let left = files();
    assert!(left < buckets, "no file deleted after the first bucket");
    assert!(left >= buckets - 3, "{left} of {buckets} files left");
    while let Some(r) = sorted.next_record().unwrap() {
        got.push(r);
    }
    scratch.drain();
    assert_eq!(files(), 0, "files left once every bucket was read");
    assert_eq!(got, expect);
}

/// A nesting that does not divide its bucket: a hashed bucket of one key
/// with a few records of another at its end (keys 0 and the inverse of the
/// hash's multiplier, which hash alike whatever the bucket count). The
/// sample, read at 64 places, finds the second key at the last one only,
/// too rarely for a splitter, so the nested sorter makes one bucket of
/// every record; that one is divided at the next level (by a scan for its
/// first key and the first that differs), and the part of one key is read
/// back as it is. (With the scan disabled for such a bucket the cells'
/// sample divides it here too: this test does not isolate that guard.)
#[test]
fn a_nesting_that_does_not_divide_is_divided_at_the_next_level() {
    // The inverse of 0x9E37_79B9_7F4A_7C15 modulo 2^64 (Newton's method).
    let m: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut inv: u64 = m;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
    }
    assert_eq!(m.wrapping_mul(inv), 1);
    let mut keys = vec![0u64; 40_000];
    keys.extend(std::iter::repeat_n(inv, 600));
    let b = check(&keys, 0, Split::Hashed, Some(keys.len() as u64));
    assert!(b.nested >= 2 && b.streamed >= 1, "{b:?}");
}
