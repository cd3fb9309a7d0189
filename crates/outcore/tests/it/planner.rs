//! BFS on the stream engine, the select engine and the planner's mix gives
//! the reference's depths, with tiny and large pools and both I/O paths.

use crate::common;

use crate::common::programs::bfs_on;
use common::unweighted_store as store_of;
use outcore::algo::bfs::EngineChoice;
use outcore::algo::reference::{self, MemGraph};
use outcore::engine::select::SelectConfig;
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn every_engine_choice_gives_reference_depths(
        n in 1u64..200_000,
        m in 0usize..40_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        uring in any::<bool>(),
        small_pool in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut x = seed | 1;
        let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
        let edges: Vec<(u64, u64)> = (0..m)
            .map(|i| (if i % 5 == 0 { 1 % n } else { next() % n }, next() % n))
            .collect();
        let store = store_of(dir.path(), n, &edges, directed);
        let g = MemGraph::load(&store).unwrap();
        let source = seed % n;
        let expect = reference::bfs(&g, source as u32);
        let io = if uring { Backend::Uring } else { Backend::Sync };
        for choice in [EngineChoice::Stream, EngineChoice::Select, EngineChoice::Auto] {
            let stream = StreamConfig { io: Some(io), ..Default::default() };
            let select = SelectConfig {
                io: Some(io),
                pool_bytes: small_pool.then_some(16 << 10),
                ..Default::default()
            };
            let (b, stats) = bfs_on(&store, source, choice, stream, select, &Budget::new(512 << 20)).unwrap();
            for (v, &e) in expect.iter().enumerate() {
                prop_assert_eq!(b[v], e, "{:?}: depth of {}", choice, v);
            }
            if choice == EngineChoice::Select {
                prop_assert!(stats.iterations.iter().all(|i| i.engine == "select"));
            }
            if choice == EngineChoice::Auto {
                prop_assert!(stats.iterations.iter().all(|i| i.planner.is_some()));
            }
        }
    }
}
