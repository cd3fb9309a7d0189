//! A store past 2^32 vertices, end to end (ignored: run by hand).

use crate::compressed_csr::store_in;
use outcore::algo::query;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::store::verify::verify;
use outcore::store::VertexOrder;

/// End to end past 2^32 vertices (ignored: about 48 GiB of disk and minutes
/// of writing, the offsets and degrees of every vertex): a dense source of
/// 2^32 + 2^16 vertices, its few edges among ids on both sides of 2^32,
/// builds a wide store that verifies, whose k-hop and egonet queries name
/// the ids past 2^32 whole. Run with `cargo nextest run --release -p
/// outcore --run-ignored only -E 'test(/past_2_32/)'`.
#[test]
#[ignore]
fn a_store_past_2_32_vertices() {
    let dir = tempfile::tempdir_in(std::env::var("OUTCORE_BIG_DIR").unwrap_or(".".into())).unwrap();
    let n = (1u64 << 32) + (1 << 16);
    let top = n - 1;
    let edges = [
        (5, 1 << 32, 1.0),
        (1 << 32, top, 2.0),
        (top, (1 << 32) - 1, 3.0),
        ((1 << 32) - 1, 7, 4.0),
    ];
    let opts = BuildOptions {
        memory: 4 << 30,
        order: VertexOrder::Original,
        directed: false,
        weighted: true,
        ..Default::default()
    };
    let store = store_in(&dir.path().join("big"), n, &edges, &opts);
    let m = store.manifest();
    assert_eq!((m.num_vertices, m.csr.id_bytes), (n, 8));
    verify(store.path()).unwrap();
    let budget = Budget::new(1 << 30);
    let mut eng =
        SelectEngine::new(&store, "out", false, &budget, &SelectConfig::default()).unwrap();
    let mut lists = Vec::new();
    eng.for_each_list(&[5u64, 1 << 32, top], |v, nbrs| {
        lists.push((v, nbrs.to_vec()));
        Ok(())
    })
    .unwrap();
    lists.sort();
    assert_eq!(
        lists,
        [
            (5, vec![1 << 32]),
            (1 << 32, vec![5, top]),
            (top, vec![(1 << 32) - 1, 1 << 32])
        ]
    );
    let (near, _) = query::khop(&mut eng, 5, 2).unwrap();
    assert_eq!(near, [5, 1 << 32, top]);
    let (ego, _) = query::egonet(&mut eng, 5, 3, false).unwrap();
    assert_eq!(ego, [(5, 1 << 32), ((1 << 32) - 1, top), (1 << 32, top)]);
}
