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

/// A ghost is never applied, so it holds only what it uses: its message
/// cell and its active bit (with mirrors, the value its owner sent), no
/// state and no grouped-arena row. On shard 0 of 5 (every ghost after the
/// owned vertices, most of the shard's vertices ghosts) the state charged
/// is at most the owned vertices' states, cells, arena rows and slots
/// plus a cell and a byte a ghost; ghosts with full state cells (a 4-byte
/// state and 16 bytes of arena row more each) go over.
#[test]
fn ghosts_hold_only_their_message_cells() {
    for (seed, directed) in [(36, false), (37, true)] {
        let d = tempfile::tempdir().unwrap();
        let edges = random_edges(seed, 400, 4000);
        let store = build_with(d.path(), &edges, directed, false);
        let out = d.path().join("p5");
        parts_of(&store, &out, 5);
        let m = Partition::open(&out).unwrap().manifest().clone();
        let (owned, ghosts) = (m.shards[0].owned, m.shards[0].ghost_count());
        assert!(ghosts > 2 * owned, "{owned} owned, {ghosts} ghosts");
        let n = owned + ghosts;
        // (state, message cell, message) bytes: CDLP's u32 labels,
        // k-core's u32 core and (u32 sender, u32 core) messages.
        for (alg, state, cell, msg) in [
            (Algorithm::Cdlp, 4, size_of::<Option<u32>>(), 4),
            (Algorithm::Kcore, 4, size_of::<Option<(u32, u32)>>(), 8),
        ] {
            let o = options(alg, EngineChoice::Auto, "0");
            let job = outcore::api::shard::open(&out, 0, &o).unwrap().0;
            let (state, cell) = (state as u64, cell as u64);
            let slots = job.arena_slots() as u64;
            let bound = owned * (state + cell + 16) + 8 + slots * msg + ghosts * (cell + 1);
            let held = job.state_bytes();
            let what = format!(
                "{} directed {directed}: {owned} owned, {ghosts} ghosts, n {n}",
                alg.name()
            );
            assert!(
                held <= bound,
                "{what}: {held} bytes held, more than {bound}"
            );
            assert!(
                held >= n * cell,
                "{what}: {held} bytes held, fewer than the cells"
            );
        }
    }
}

/// The budget a shard's run needs is charged for what it holds: the
/// smallest budget shard 0 of 5 opens in is the whole-store layout's need
/// ([`outcore::engine::run::required_by`], every vertex with a state
/// and a grouped-arena row) less at least the 20 bytes a ghost no longer
/// holds (a 4-byte label, 16 bytes of row); a budget just under it is
/// refused.
#[test]
fn a_shard_is_charged_at_open_for_what_it_holds() {
    let d = tempfile::tempdir().unwrap();
    let edges = random_edges(38, 400, 4000);
    let store = build_with(d.path(), &edges, false, false);
    let out = d.path().join("p5");
    parts_of(&store, &out, 5);
    let part = Partition::open(&out).unwrap();
    let ghosts = part.manifest().shards[0].ghost_count();
    let shard = outcore::store::Store::open(&part.shard_path(0)).unwrap();
    let prog = outcore::algo::cdlp::CdlpVp::<u32>::new(12);
    let whole = outcore::engine::run::required_by(&shard, &prog);
    let mut o = options(Algorithm::Cdlp, EngineChoice::Auto, "0");
    let opens = |memory: u64| {
        let mut o = o.clone();
        o.memory = memory;
        outcore::api::shard::open(&out, 0, &o).map(|_| ())
    };
    let (mut lo, mut hi) = (1u64 << 20, whole + (64 << 20));
    assert!(opens(hi).is_ok());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match opens(mid) {
            Ok(()) => hi = mid,
            Err(_) => lo = mid,
        }
    }
    assert!(
        hi + 20 * ghosts <= whole,
        "shard 0 needs {hi} bytes, the whole layout {whole}, with {ghosts} ghosts"
    );
    o.memory = hi - 1;
    let e = outcore::api::shard::open(&out, 0, &o)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("budget") || e.contains("in memory only"), "{e}");
}
