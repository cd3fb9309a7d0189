//! Ghost mirrors (issue 54, plan 2.8): over shards, a superstep sends at
//! most one message per ghost, whatever the program: combining ones
//! (PageRank, WCC) combine per ghost, grouped ones (CDLP, k-core) send a
//! boundary vertex's value once to each shard holding it as a ghost,
//! where it is delivered along that shard's copies of its edges. Without
//! the mirrors a grouped program sends one message per cross-shard edge
//! direction, several times the ghosts. The values still equal the
//! single-machine run's.

use crate::shards::{build_with, options, parts_of, random_edges, same, single};
use outcore::api::partition::Partition;
use outcore::api::shard::run_parts;
use outcore::api::Algorithm;
use outcore::engine::planner::EngineChoice;

#[test]
fn messages_per_superstep_are_at_most_the_ghosts() {
    for (seed, directed) in [(31, true), (32, false)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 400, 4000);
        let store = build_with(d.path(), &edges, directed, false);
        let source = edges[0].0.to_string();
        for parts in [3, 5] {
            let out = d.path().join(format!("p{parts}"));
            parts_of(&store, &out, parts);
            let m = Partition::open(&out).unwrap().manifest().clone();
            let ghosts: u64 = m.shards.iter().map(|s| s.ghost_count()).sum();
            let cross = m.balance.cross_edges;
            for (alg, engine) in [
                (Algorithm::Cdlp, EngineChoice::Stream),
                (Algorithm::Cdlp, EngineChoice::Select),
                (Algorithm::Kcore, EngineChoice::Auto),
                (Algorithm::Pagerank, EngineChoice::Auto),
                (Algorithm::Wcc, EngineChoice::Auto),
            ] {
                let what = format!(
                    "{} on {engine:?}, K = {parts}, directed {directed}",
                    alg.name()
                );
                let o = options(alg, engine, &source);
                let r = run_parts(&out, &o).unwrap();
                assert!(!r.steps.is_empty(), "{what}");
                assert!(r.steps[0].messages > 0, "{what}: {:?}", r.steps[0]);
                for s in &r.steps {
                    assert!(
                        s.messages <= ghosts,
                        "{what}: {s:?}: more messages than the {ghosts} ghosts ({cross} cross edges)"
                    );
                }
                let want = single(&store, &o);
                let got: std::collections::HashMap<String, u64> = {
                    let ids = Partition::open(&out).unwrap().load_ids().unwrap();
                    (r.values.iter().enumerate())
                        .map(|(g, &x)| (ids.get(g as u64).to_string(), x))
                        .collect()
                };
                same(alg, &what, &want, &got);
            }
        }
    }
}
