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

/// Outboxes carry 4-byte target ids (the receiver's local ids fit a u32):
/// every message is 4 id bytes and its value (PageRank's f64, CDLP's and
/// WCC's u32 labels, k-core's (sender, core)), and the exchange figures
/// count exactly that; an outbox of 8-byte ids is refused by its receiver.
#[test]
fn outbox_messages_are_four_id_bytes_and_the_value() {
    let d = tempfile::tempdir().unwrap();
    let edges = random_edges(33, 400, 4000);
    let store = build_with(d.path(), &edges, false, false);
    let out = d.path().join("p3");
    parts_of(&store, &out, 3);
    let source = edges[0].0.to_string();
    for (alg, value) in [
        (Algorithm::Pagerank, 8),
        (Algorithm::Cdlp, 4),
        (Algorithm::Wcc, 4),
        (Algorithm::Kcore, 8),
    ] {
        let o = options(alg, EngineChoice::Auto, &source);
        let r = run_parts(&out, &o).unwrap();
        assert!(r.steps[0].messages > 0, "{}", alg.name());
        for s in &r.steps {
            assert_eq!(s.bytes, s.messages * (4 + value), "{}: {s:?}", alg.name());
        }
        // The outboxes themselves, and a receiver refusing the other width.
        let mut jobs: Vec<_> = (0..3)
            .map(|k| outcore::api::shard::open(&out, k, &o).unwrap().0)
            .collect();
        let boxes = jobs[0].scatter(0).unwrap().unwrap();
        assert!(!boxes.is_empty(), "{}", alg.name());
        for bx in &boxes {
            assert_eq!(bx.targets.width(), 4, "{}", alg.name());
            assert_eq!(bx.bytes.len(), bx.targets.len() * value as usize);
            let wide: Vec<u64> = bx.targets.ids().iter().collect();
            let e = jobs[bx.to]
                .receive(0, (&wide[..]).into(), &bx.bytes)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("8-byte target ids") && e.contains("refused"),
                "{e}"
            );
            jobs[bx.to].receive(0, bx.targets.ids(), &bx.bytes).unwrap();
        }
    }
}

/// With ghost mirrors a ghost never receives, so the grouped arena holds
/// no rows for ghosts: its slots are the list entries naming owned
/// vertices, the shard's entries less one per cross edge (the ghost's
/// entry of each; edges between two ghosts are not stored).
#[test]
fn ghosts_take_no_arena_rows() {
    for (seed, directed) in [(34, false), (35, true)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 400, 4000);
        let store = build_with(d.path(), &edges, directed, false);
        let out = d.path().join("p3");
        parts_of(&store, &out, 3);
        let part = Partition::open(&out).unwrap();
        let m = part.manifest().clone();
        for alg in [Algorithm::Cdlp, Algorithm::Kcore] {
            let o = options(alg, EngineChoice::Auto, "0");
            for k in 0..3 {
                let job = outcore::api::shard::open(&out, k, &o).unwrap().0;
                let sm = outcore::store::Store::open(&part.shard_path(k))
                    .unwrap()
                    .manifest()
                    .clone();
                let entries = match directed {
                    true => sm.csr.out_entries + sm.csr.in_entries,
                    false => sm.csr.out_entries,
                };
                let what = format!("{} shard {k}, directed {directed}", alg.name());
                assert!(m.shards[k].cross_edges > 0, "{what}");
                assert_eq!(
                    job.arena_slots() as u64,
                    entries - m.shards[k].cross_edges,
                    "{what}: {entries} entries"
                );
            }
        }
    }
}
