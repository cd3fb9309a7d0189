//! `--source max-degree`: the vertex of the highest out-degree, of several
//! the one of the smallest original id, in every vertex order; with few
//! ties (their ranks looked up one by one) and with many (the rank map).

use crate::common::{self, Rng};
use outcore::api::run::max_degree_vertex;
use outcore::ingest::build::BuildOptions;
use outcore::store::{degrees, Store, VertexOrder};

/// The oracle: every degree and every rank, the best by (degree, -rank).
fn oracle(store: &Store) -> u64 {
    let ids = store.load_ids().unwrap();
    let mut all = Vec::new();
    degrees::for_each(store.root(), "out", |v, d| {
        all.push((v, d));
        Ok(())
    })
    .unwrap();
    let best = all
        .iter()
        .max_by_key(|&&(v, d)| (d, std::cmp::Reverse(ids.rank(v))));
    best.map_or(0, |&(v, _)| v)
}

#[test]
fn max_degree_breaks_ties_by_original_id() {
    let dir = tempfile::tempdir().unwrap();
    for (case, order) in [VertexOrder::Degree, VertexOrder::Original, VertexOrder::Bfs]
        .into_iter()
        .enumerate()
    {
        let mut rng = Rng::new(case as u64 + 1);
        let ids: Vec<u64> = (0..6000).map(|_| rng.next() >> 4).collect();
        // Three hubs of one degree (a few ties), then a ring of 6000 (all tie).
        let mut hubs: Vec<(u64, u64, f64)> = Vec::new();
        for h in 0..3 {
            for k in 0..50 {
                hubs.push((ids[h], ids[10 + 50 * h + k], 1.0));
            }
        }
        let ring: Vec<(u64, u64, f64)> = (0..ids.len())
            .map(|i| (ids[i], ids[(i + 1) % ids.len()], 1.0))
            .collect();
        for (name, edges) in [("hubs", hubs), ("ring", ring)] {
            let sub = dir.path().join(format!("{case}-{name}"));
            std::fs::create_dir_all(&sub).unwrap();
            let opts = BuildOptions {
                order,
                ..Default::default()
            };
            let report = common::build(&sub, &edges, &[], &opts);
            let store = Store::open(&report.path).unwrap();
            assert_eq!(
                max_degree_vertex(&store).unwrap(),
                oracle(&store),
                "{name} {order}"
            );
        }
    }
}
