//! Unit tests of the k-core internals (h-index; the active scan's are in
//! `engine/frontier/dense.rs`, the list merging's in `engine/select/simple.rs`);
//! the runs against the in-memory reference are in `tests/it/sssp_kcore.rs`.

use super::state::h_index;

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
