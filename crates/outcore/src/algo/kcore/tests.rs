//! Unit tests of the k-core internals (h-index, list merging, active scan);
//! the runs against the in-memory reference are in `tests/it/sssp_kcore.rs`.

use super::gather::{Gather, Scratch};
use super::state::{h_index, State};

fn state(est: Vec<u32>) -> State {
    let n = est.len() as u64;
    State {
        est,
        active: vec![0; n.div_ceil(64) as usize],
        active_count: 0,
    }
}

#[test]
fn h_index_of_estimates() {
    let est = vec![5, 1, 2, 3, 3, 0];
    let mut counts = Vec::new();
    let nbrs: Vec<u32> = (1..6).collect();
    // estimates 1, 2, 3, 3, 0: three neighbours >= 2, two >= 3: h = 2.
    assert_eq!(h_index(&est, &nbrs, u32::MAX, &mut counts), 2);
    assert_eq!(h_index(&est, &nbrs, 1, &mut counts), 1);
    assert_eq!(h_index::<u32>(&est, &[], 7, &mut counts), 0);
    assert_eq!(h_index(&est, &nbrs[4..], 9, &mut counts), 0);
    assert!(counts.iter().all(|&c| c == 0));
}

#[test]
fn neighbours_merge_pieces() {
    let mut g = Gather::<u32>::default();
    // Vertex 7: out-list 1 3 7 9 | 12 (two pages, arriving late page first),
    // in-list 3 5 | 9 12 20.
    g.piece(7, 0, &[12]);
    g.piece(7, 1, &[9, 12, 20]);
    g.piece(7, 0, &[1, 3, 7, 9]);
    g.piece(7, 1, &[3, 5]);
    g.pieces.sort_unstable_by_key(|p| (p.v, p.dir, p.first));
    let mut sc = Scratch::default();
    g.neighbours(7, 0..4, &mut sc);
    assert_eq!(sc.set, vec![1, 3, 5, 9, 12, 20]);
    g.neighbours(7, 0..2, &mut sc);
    assert_eq!(sc.set, vec![1, 3, 9, 12]);
}

/// A wide store's lists merge on whole u64 ids: ids sharing their low 32
/// bits stay apart, and only `v` itself (not its low half) is left out.
#[test]
fn neighbours_merge_wide_ids() {
    let far = 1u64 << 32;
    let v = far + 7;
    let mut g = Gather::<u64>::default();
    g.piece(v, 0, &[7, far + 3, v]);
    g.piece(v, 1, &[3, far + 3, 2 * far + 7]);
    g.pieces.sort_unstable_by_key(|p| (p.v, p.dir, p.first));
    let mut sc = Scratch::default();
    g.neighbours(v, 0..2, &mut sc);
    assert_eq!(sc.set, vec![3, 7, far + 3, 2 * far + 7]);
    // Out-list only (an undirected store).
    g.clear();
    g.piece(v, 0, &[7, far + 3, v]);
    g.neighbours(v, 0..1, &mut sc);
    assert_eq!(sc.set, vec![7, far + 3]);
}

#[test]
fn take_active_scans_in_order() {
    let mut s = state(vec![0; 200]);
    for v in [3u32, 64, 65, 130, 199] {
        s.activate(v);
    }
    let mut cursor = 0;
    let mut batch: Vec<u32> = Vec::new();
    s.take_active(&mut cursor, 200, &mut batch);
    assert_eq!(batch, vec![3, 64, 65, 130, 199]);
    assert_eq!(s.active_count, 0);
    s.activate(10u32);
    s.take_active(&mut cursor, 200, &mut batch);
    assert!(batch.is_empty(), "behind the cursor: next iteration");
    let mut cursor = 0;
    s.take_active(&mut cursor, 200, &mut batch);
    assert_eq!(batch, vec![10]);
}
