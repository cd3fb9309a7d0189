//! The LDBC Graphalytics examples pass SSSP validation and match the
//! reference core numbers, on both I/O backends.

use super::*;

#[test]
fn graphalytics_examples_pass_sssp_validation() {
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        outcore::progress::set_quiet(true);
        let props = properties(name);
        let dir = tempfile::tempdir().unwrap();
        let store = common::import_graphalytics(dir.path(), name, directed);
        let ids = store.load_ids().unwrap();
        let n = store.manifest().num_vertices;
        let original: u64 = props["sssp.source-vertex"].parse().unwrap();
        let source = (0..n).find(|&v| ids.get(v) == original).unwrap();
        let g = MemGraph::load(&store).unwrap();
        for io in [Backend::Uring, Backend::Sync] {
            for delta in [None, Some(1e-3), Some(1e9)] {
                let budget = Budget::new(256 << 20);
                let (d, _) = sssp(
                    &store,
                    source,
                    &SsspConfig { delta },
                    &select(io, None),
                    &budget,
                )
                .unwrap();
                let out = dir.path().join(format!("{name}-sssp-{io}"));
                write_vertex_values(&out, &store, |v| Ldbc(d.value(v as usize))).unwrap();
                validate(
                    &out,
                    &data().join(format!("{name}-SSSP")),
                    rule_for("sssp").unwrap(),
                )
                .unwrap();
            }
            let (k, _) = kcore(&store, &select(io, None), &Budget::new(256 << 20)).unwrap();
            let expect = reference::core_numbers(&g);
            assert!(
                (0..n as usize).all(|v| k.value(v) == expect[v]),
                "{name} k-core"
            );
        }
    }
}
