//! Every query (k-hop, egonet, induced, cross) on random graphs and on a hub
//! longer than a page against the reference model: pools from a few frames
//! to everything cached, both I/O backends, both vertex orders.

use super::*;

fn check_stats(s: &QueryStats, size: usize) {
    assert_eq!(s.result_size, size as u64);
    assert!(s.seconds >= 0.0);
    assert!(s.read_requests <= s.bytes_read.max(1));
}

/// Random vertex sets: empty, random with duplicates, a neighbourhood with
/// some random vertices and repeats.
fn sets(m: &Model, r: &mut Rng, around: u32) -> Vec<Vec<u32>> {
    let n = m.g.n as u64;
    let mut out = vec![Vec::new()];
    let k = 1 + r.below(40) as usize;
    let mut s: Vec<u32> = (0..k).map(|_| r.below(n) as u32).collect();
    s.extend_from_slice(&s.clone()[..k / 2]);
    out.push(s);
    let mut s: Vec<u32> = reference::khop(&m.g, around, 2)
        .into_iter()
        .filter(|_| r.below(3) > 0)
        .collect();
    s.extend((0..5).map(|_| r.below(n) as u32));
    if let Some(&x) = s.first() {
        s.push(x);
    }
    s.reverse();
    out.push(s);
    out.push(reference::khop(&m.g, around, 1));
    out
}

/// Runs every query from `sources` on one engine and compares.
fn check_queries(store: &Store, m: &Model, io: Backend, pool: u64, sources: &[u32], seed: u64) {
    let directed = m.g.directed;
    let mut eng = engine(store, io, pool);
    let mut r = Rng::new(seed);
    for &s in sources {
        for k in 0..=3 {
            let (vs, st) = m.q_khop(&mut eng, s, k);
            assert_eq!(
                vs,
                reference::khop(&m.g, s, k),
                "khop({s}, {k}) {io:?} pool {pool}"
            );
            check_stats(&st, vs.len());
            let (es, st) = m.q_egonet(&mut eng, s, k);
            assert_eq!(es, m.induced(&vs), "egonet({s}, {k}) {io:?} pool {pool}");
            check_stats(&st, es.len());
        }
        let sets = sets(m, &mut r, s);
        for a in &sets {
            let (es, st) = m.q_induced(&mut eng, a);
            assert_eq!(es, m.induced(a), "induced({a:?})");
            check_stats(&st, es.len());
            for b in &sets {
                let (es, st) = m.q_cross(&mut eng, a, b);
                assert_eq!(es, m.cross(a, b), "cross({a:?}, {b:?}) directed {directed}");
                check_stats(&st, es.len());
            }
        }
    }
    // Overlapping sets, one inside the other.
    if let Some(&s) = sources.first() {
        let a = reference::khop(&m.g, s, 2);
        let b = reference::khop(&m.g, s, 1);
        assert_eq!(m.q_cross(&mut eng, &a, &b).0, m.cross(&a, &b));
        assert_eq!(m.q_cross(&mut eng, &b, &a).0, m.cross(&b, &a));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_match_references(
        n in prop_oneof![1u64..64, 64u64..5_000, 60_000u64..200_000],
        m in 0usize..20_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        hub in any::<bool>(),
        uring in any::<bool>(),
        pool in 0usize..3,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let raw = random_edges(n, m, seed, hub);
        let store = store_of(dir.path(), n, &raw, directed);
        let model = Model::new(&store, &raw);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        let mut sources = vec![(3 % n) as u32, (seed % n) as u32];
        if let Some(&(s, _)) = raw.get(seed as usize % raw.len().max(1)) {
            sources.push(s as u32);
        }
        check_queries(&store, &model, io, POOLS[pool], &sources, seed);
        // The same graph with dense id = original id: the same answers.
        let dir = tempfile::tempdir().unwrap();
        let plain = store_in(dir.path(), n, &raw, directed, VertexOrder::Original);
        check_queries(&plain, &model.with_store(&plain), io, POOLS[pool], &sources, seed);
    }
}

/// A hub whose list spans several pages, several tiles, every pool size and
/// both backends.
#[test]
fn hub_longer_than_a_page() {
    let n = 70_000u64;
    let mut raw = random_edges(n, 12_000, 7, false);
    let mut r = Rng::new(99);
    for _ in 0..5_000 {
        raw.push((5, r.below(n)));
    }
    // Neighbours of the hub that link back and to each other (egonet edges).
    for i in 0..2_000u64 {
        let j = r.below(n);
        raw.push((j, 5));
        raw.push((j, (j + i) % n));
    }
    raw.push((5, 5));
    for directed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let store = store_of(dir.path(), n, &raw, directed);
        let model = Model::new(&store, &raw);
        assert!(model.g.out[5].len() > 2 * 1024, "the hub list spans pages");
        assert_eq!(model.dense(5), 0, "the hub comes first by degree");
        for io in [Backend::Uring, Backend::Sync] {
            for pool in POOLS {
                check_queries(&store, &model, io, pool, &[5, 0, 69_999], 1);
            }
        }
    }
}
