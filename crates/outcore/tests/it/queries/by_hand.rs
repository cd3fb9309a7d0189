//! Queries on tiny graphs with answers written by hand, and out-of-range
//! ids as errors.

use super::*;

#[test]
fn tiny_graphs_by_hand() {
    let orders = [VertexOrder::Degree, VertexOrder::Original];
    let cases = [Backend::Uring, Backend::Sync].map(|io| orders.map(|o| (io, o)));
    for (io, order) in cases.into_iter().flatten() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 3, 4 isolated.
        let raw = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (1, 2)];
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path(), 5, &raw, true, order);
        let m = Model::new(&store, &raw);
        let mut eng = engine(&store, io, 16 << 10);
        assert_eq!(m.q_khop(&mut eng, 0, 0).0, vec![0]);
        assert_eq!(m.q_khop(&mut eng, 0, 1).0, vec![0, 1]);
        assert_eq!(m.q_khop(&mut eng, 0, 3).0, vec![0, 1, 2, 3]);
        assert_eq!(m.q_khop(&mut eng, 4, 3).0, vec![4]);
        assert_eq!(m.q_egonet(&mut eng, 3, 0).0, vec![(3, 3)]);
        assert_eq!(m.q_egonet(&mut eng, 0, 0).0, vec![]);
        assert_eq!(m.q_egonet(&mut eng, 0, 2).0, vec![(0, 1), (1, 2), (2, 0)]);
        assert_eq!(m.q_induced(&mut eng, &[3, 2, 2, 3]).0, vec![(2, 3), (3, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[2], &[0, 3]).0, vec![(2, 0), (2, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[0, 3], &[2]).0, vec![]);
        assert_eq!(m.q_cross(&mut eng, &[], &[2]).0, vec![]);

        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path(), 5, &raw, false, order);
        let m = Model::new(&store, &raw);
        let mut eng = engine(&store, io, 16 << 10);
        assert_eq!(m.q_khop(&mut eng, 3, 1).0, vec![2, 3]);
        assert_eq!(m.q_khop(&mut eng, 3, 2).0, vec![0, 1, 2, 3]);
        assert_eq!(m.q_egonet(&mut eng, 3, 1).0, vec![(2, 3), (3, 3)]);
        assert_eq!(
            m.q_egonet(&mut eng, 3, 2).0,
            vec![(0, 1), (0, 2), (1, 2), (2, 3), (3, 3)]
        );
        // A = {2}, B = {0, 3}: (2, 0) and (2, 3) oriented A -> B.
        assert_eq!(m.q_cross(&mut eng, &[2], &[0, 3]).0, vec![(2, 0), (2, 3)]);
        assert_eq!(m.q_cross(&mut eng, &[0, 3], &[2]).0, vec![(0, 2), (3, 2)]);
        // Both ends in A ∩ B: once, as (min, max); the self-loop once.
        assert_eq!(
            m.q_cross(&mut eng, &[2, 3, 0], &[3, 2]).0,
            vec![(0, 2), (2, 3), (3, 3)]
        );
        assert_eq!(
            m.q_cross(&mut eng, &[3, 2], &[2, 3, 0]).0,
            vec![(2, 0), (2, 3), (3, 3)]
        );
    }
}

#[test]
fn out_of_range_ids_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 5, &[(0, 1)], true);
    let mut eng = engine(&store, Backend::Sync, 16 << 10);
    for k in 0..3 {
        assert!(query::khop(&mut eng, 5, k).is_err());
        assert!(query::egonet(&mut eng, 5, k, true).is_err());
    }
    assert!(query::induced(&mut eng, &[1, 9], true).is_err());
    assert!(query::cross(&mut eng, &[1], &[0, 9], true).is_err());
    assert!(query::cross(&mut eng, &[9], &[0], true).is_err());
    assert!(query::cross(&mut eng, &[1, 2, 3], &[9], false).is_err());
    assert!(query::cross(&mut eng, &[9], &[1, 2, 3], false).is_err());
    assert!(query::cross(&mut eng, &[9], &[], false).is_err());
    assert!(query::cross(&mut eng, &[], &[9], true).is_err());
    assert!(query::induced(&mut eng, &[], true).unwrap().0.is_empty());
}
