//! The LDBC Graphalytics example graphs through the whole path: import the
//! .v/.e files, run on the stream engine, write LDBC output, validate with
//! the Graphalytics rules against the expected files.

use crate::common;

use crate::common::programs;
use common::{
    graphalytics_dir as data, graphalytics_properties as properties,
    import_graphalytics_in as import,
};
use outcore::algo::output::{write_vertex_labels, write_vertex_values, Ldbc};
use outcore::algo::pagerank;
use outcore::algo::validate::{rule_for, validate};
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};

fn dense(store: &Store, original: u64) -> u64 {
    let ids = store.load_ids().unwrap();
    (0..store.manifest().num_vertices)
        .find(|&v| ids.get(v) == original)
        .unwrap()
}

#[test]
fn example_graphs_pass_graphalytics_validation() {
    let orders = [VertexOrder::Degree, VertexOrder::Original];
    let examples = [("example-directed", true), ("example-undirected", false)];
    for ((name, directed), order) in examples.map(|e| orders.map(|o| (e, o))).concat() {
        let props = properties(name);
        let dir = tempfile::tempdir().unwrap();
        let store = import(dir.path(), name, directed, order);
        assert_eq!(store.manifest().vertex_order, order);
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = StreamConfig {
                io: Some(io),
                ..Default::default()
            };
            let budget = Budget::new(256 << 20);
            let out = |alg: &str| dir.path().join(format!("{name}-{alg}-{io}"));
            let expected = |alg: &str| data().join(format!("{name}-{}", alg.to_uppercase()));

            let prc = pagerank::PageRankConfig {
                damping: props["pr.damping-factor"].parse().unwrap(),
                iterations: props["pr.num-iterations"].parse().unwrap(),
                tol: None,
            };
            let (pr, _) = programs::pagerank(&store, &prc, cfg.clone(), &budget).unwrap();
            write_vertex_values(&out("pr"), &store, |v| Ldbc(pr[v as usize])).unwrap();
            validate(&out("pr"), &expected("pr"), rule_for("pr").unwrap()).unwrap();
            // Grouped as the reference implementation, the output is bit-identical.
            assert_eq!(
                std::fs::read_to_string(out("pr")).unwrap(),
                std::fs::read_to_string(expected("pr")).unwrap(),
                "{name} PR ({order})"
            );

            let (w, _) = programs::wcc(&store, cfg.clone(), &budget).unwrap();
            write_vertex_labels(&out("wcc"), &store, |v| w[v as usize]).unwrap();
            validate(&out("wcc"), &expected("wcc"), rule_for("wcc").unwrap()).unwrap();
            // Labels are the smallest original id of each component, as there.
            assert_eq!(
                std::fs::read_to_string(out("wcc")).unwrap(),
                std::fs::read_to_string(expected("wcc")).unwrap(),
                "{name} WCC ({order})"
            );

            let source = dense(&store, props["bfs.source-vertex"].parse().unwrap());
            let (b, _) = programs::bfs(&store, source, cfg.clone(), &budget).unwrap();
            write_vertex_values(&out("bfs"), &store, |v| b[v as usize]).unwrap();
            validate(&out("bfs"), &expected("bfs"), rule_for("bfs").unwrap()).unwrap();
            assert_eq!(
                std::fs::read_to_string(out("bfs")).unwrap(),
                std::fs::read_to_string(expected("bfs")).unwrap(),
                "{name} BFS ({order})"
            );
        }
    }
}
