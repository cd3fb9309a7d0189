//! What queries cost: stats follow the engine (cold reads, warm none), a
//! query on a 16M-vertex graph touches a few pages, and a pool share covers
//! its bookkeeping.

use super::*;

/// Stats come from the engine: a cold query reads, the same query on a pool
/// that holds everything reads nothing the second time.
#[test]
fn stats_follow_the_engine() {
    let n = 100_000u64;
    let raw = random_edges(n, 30_000, 3, true);
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), n, &raw, false);
    for io in [Backend::Uring, Backend::Sync] {
        let mut eng = engine(&store, io, 32 << 20);
        let (vs, cold) = query::khop(&mut eng, 3, 2).unwrap();
        assert!(vs.len() > 1000, "{}", vs.len());
        assert!(
            cold.bytes_read >= 4096 && cold.read_requests > 0,
            "{cold:?}"
        );
        assert!(cold.pages_touched > 0);
        let (again, warm) = query::khop(&mut eng, 3, 2).unwrap();
        assert_eq!(vs, again);
        assert_eq!((warm.bytes_read, warm.read_requests), (0, 0), "{warm:?}");
        assert_eq!(warm.pages_touched, cold.pages_touched);
        // The egonet reads the last level too.
        let (_, ego) = query::egonet(&mut eng, 3, 2, false).unwrap();
        assert!(ego.pages_touched > warm.pages_touched, "{ego:?} {warm:?}");
    }
}

/// A query on a 16M-vertex graph costs what it touches: a few pages, no
/// per-vertex arrays.
#[test]
fn big_sparse_graph_queries_are_cheap() {
    let n = 1u64 << 24;
    let mut raw = random_edges(n, 2_000, 11, false);
    raw.extend([(n - 1, 0), (0, n / 2), (n / 2, n - 2), (n - 2, n - 2)]);
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), n, &raw, false);
    let m = Model::new(&store, &raw);
    let (last, half) = ((n - 1) as u32, (n / 2) as u32);
    for io in [Backend::Uring, Backend::Sync] {
        let mut eng = engine(&store, io, 1 << 20);
        let (vs, st) = m.q_khop(&mut eng, last, 3);
        // The random edges (2,000 among 2^24 vertices) miss these.
        assert_eq!(vs, vec![0, half, last - 1, last]);
        assert!(st.pages_touched < 16 && st.bytes_read < 64 << 10, "{st:?}");
        let (es, _) = m.q_egonet(&mut eng, last, 3);
        assert_eq!(
            es,
            vec![(0, half), (0, last), (half, last - 1), (last - 1, last - 1)]
        );
        let (es, _) = m.q_cross(&mut eng, &[last, half], &[0]);
        assert_eq!(es, vec![(half, 0), (last, 0)]);
    }
}

#[test]
fn a_pool_share_covers_its_bookkeeping() {
    // Files larger than the share: the pools' page tables and frame records
    // come out of the share, so a share of everything the budget has fits.
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(
        dir.path(),
        40_000,
        &random_edges(40_000, 400_000, 9, true),
        true,
    );
    for limit in [1u64 << 20, 3 << 20] {
        let budget = Budget::new(limit);
        let cfg = SelectConfig {
            pool_bytes: Some(budget.available()),
            ..Default::default()
        };
        let eng = SelectEngine::new(&store, "out", false, &budget, &cfg);
        assert!(eng.is_ok(), "{limit}: {:?}", eng.err());
        assert!(budget.used() <= limit);
    }
}
