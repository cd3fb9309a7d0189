//! Triangle counting by out-of-core triangle listing against the in-memory
//! reference: random directed and undirected graphs with hubs, self-loops,
//! duplicates and reciprocal arcs, blocks from a few vertices to the whole
//! graph, credits in memory or spilled, both I/O backends.

use crate::common::{dense_store, hub_edges, to_dense};
use outcore::algo::triangles::{reference, triangles};
use outcore::engine::external::ExternalConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn triangles_match_reference(
        n in 1u64..800,
        m in 0usize..6000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        block in prop_oneof![Just(None), (16u64 << 10..128 << 10).prop_map(Some)],
        spill in any::<bool>(),
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = hub_edges(n, m, seed);
        let store = dense_store(dir.path(), n, &edges, directed, false);
        let cfg = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            triangle_block: block,
            force_spill: spill,
            ..Default::default()
        };
        let budget = Budget::new(32 << 20);
        let (got, stats) = triangles(&store, &cfg, &budget).unwrap();
        let dense: Vec<(u32, u32)> = to_dense(&store, &edges).iter().map(|&(s, d, _)| (s, d)).collect();
        prop_assert_eq!(got, reference(n as usize, &dense));
        prop_assert_eq!(stats.algorithm.as_str(), "triangles");
        prop_assert_eq!(budget.used(), 0);
    }
}

#[test]
fn a_clique_has_every_triangle() {
    let dir = tempfile::tempdir().unwrap();
    let k = 12u64;
    let edges: Vec<(u64, u64, f64)> = (0..k)
        .flat_map(|a| (0..k).map(move |b| (a, b, 1.0)))
        .collect();
    let store = dense_store(dir.path(), k, &edges, true, false);
    let (got, _) = triangles(&store, &ExternalConfig::default(), &Budget::new(32 << 20)).unwrap();
    // Each vertex of K12 is in C(11, 2) = 55 triangles, whatever the directions.
    assert_eq!(got, vec![55; k as usize]);
}
