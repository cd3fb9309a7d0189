//! Results left on disk by the external engine, written in rank order
//! (`engine::results`): the same bytes as the in-memory writers for values,
//! labels and vertex sets, by degree order (a sort by rank, spilled at a
//! small budget) and by original order (a straight merge with the id maps),
//! for integer and string ids.

use crate::common::{build, Rng};
use outcore::algo::output::{write_vertex_labels, write_vertex_set, write_vertex_values, Ldbc};
use outcore::algo::vertex;
use outcore::engine::external::ExternalConfig;
use outcore::engine::results::{self, Out};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use proptest::prelude::*;

fn check(seed: u64, order: VertexOrder, budget: u64) {
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    // Sparse 64-bit ids (an id map), a hub, isolated vertices.
    let ids: Vec<u64> = (0..3000).map(|_| rng.next() >> 1).collect();
    let edges: Vec<(u64, u64, f64)> = (0..6000)
        .map(|i| {
            let s = if i % 3 == 0 {
                ids[0]
            } else {
                ids[rng.below(2500) as usize]
            };
            (s, ids[rng.below(2500) as usize], 1.0 + rng.below(5) as f64)
        })
        .collect();
    let opts = BuildOptions {
        directed: seed.is_multiple_of(2),
        weighted: true,
        order,
        ..Default::default()
    };
    let path = build(dir.path(), &edges, &ids[2500..], &opts).path;
    let store = Store::open(&path).unwrap();
    let ext = ExternalConfig {
        interval_vertices: Some(500),
        ..Default::default()
    };
    let budget = Budget::new(budget);
    let out = Out {
        path: &dir.path().join("x"),
        store: &store,
        budget: &budget,
        scratch: dir.path(),
    };
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();

    // WCC labels.
    let (w, _) = vertex::wcc::run(&store, &ext, &budget).unwrap();
    write_vertex_labels(&dir.path().join("a"), &store, |v| w[v as usize]).unwrap();
    let (mut wd, _) = vertex::wcc::run_on_disk(&store, &ext, &budget).unwrap();
    results::write_labels(&out.at(&dir.path().join("b")), wd.as_mut()).unwrap();
    assert_eq!(read("a"), read("b"), "wcc labels ({order})");
    drop(wd);

    // SSSP distances (floats, infinity).
    let src = 7;
    let (d, _) = vertex::sssp::run(&store, src, &ext, &budget).unwrap();
    write_vertex_values(&dir.path().join("a"), &store, |v| Ldbc(d[v as usize])).unwrap();
    let (mut dd, _) = vertex::sssp::run_on_disk(&store, src, &ext, &budget).unwrap();
    results::write_values(&out.at(&dir.path().join("b")), dd.as_mut(), |x| {
        Ldbc(f64::from_bits(x))
    })
    .unwrap();
    assert_eq!(read("a"), read("b"), "sssp ({order})");
    drop(dd);

    // k-core: a vertex set.
    let (c, _) = vertex::kcore::run(&store, &ext, &budget).unwrap();
    write_vertex_set(&dir.path().join("a"), &store, |v| c[v as usize] >= 2).unwrap();
    let (mut cd, _) = vertex::kcore::run_on_disk(&store, &ext, &budget).unwrap();
    results::write_set(&out.at(&dir.path().join("b")), cd.as_mut(), |x| x >= 2).unwrap();
    assert_eq!(read("a"), read("b"), "k-core set ({order})");
    assert!(!read("a").is_empty());
    drop(cd);
    assert_eq!(budget.used(), 0, "everything released");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn results_on_disk_write_what_memory_writes(seed in any::<u64>(), degree in any::<bool>()) {
        let order = if degree { VertexOrder::Degree } else { VertexOrder::Original };
        check(seed, order, 8 << 20);
    }
}
