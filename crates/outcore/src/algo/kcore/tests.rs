//! Unit tests of the k-core internals (h-index, active scan; the list
//! merging's are in `engine/select/simple.rs`);
//! the runs against the in-memory reference are in `tests/it/sssp_kcore.rs`.

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
