//! Unit tests of the SSSP internals (bucketing); the runs against the
//! in-memory reference are in `tests/it/sssp_kcore.rs`.

use super::bucket_of;

#[test]
fn buckets_are_monotone_and_saturate() {
    assert_eq!(bucket_of(0.0, 1.0), 0);
    assert_eq!(bucket_of(2.5, 1.0), 2);
    assert_eq!(bucket_of(1e300, 1e-300), u64::MAX);
    assert_eq!(bucket_of(5.0, f64::INFINITY), 0);
}
