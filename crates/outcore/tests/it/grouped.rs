//! Programs whose messages do not combine (CDLP, colouring, weighted
//! betweenness) in memory with grouped messages, and MIS (Luby's rounds, by
//! maximum), stream and select forced
//! and the planner's pick, against the external engine and the references,
//! on random directed, undirected and weighted graphs; the planner puts a
//! run in memory when its state and messages fit the budget and on the
//! external engine when not; nothing stays charged after a run.

use crate::common::{dense_store, hub_edges, to_dense};
use outcore::algo::betweenness::BcConfig;
use outcore::algo::betweenness_weighted::{reference as wbc_reference, weighted_run};
use outcore::algo::cdlp::{cdlp_run, CdlpConfig};
use outcore::algo::coloring::{self, coloring_run};
use outcore::algo::mis::{self, mis_run};
use outcore::algo::priority::{self, keys};
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::vertex::Engines;
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::results::{collect, Values};
use outcore::engine::stats::RunStats;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

type Run = (Box<dyn Values>, RunStats);

/// The values of a run and the engines its supersteps ran on.
fn values(r: outcore::error::Result<Run>, budget: &Budget) -> (Vec<u64>, Vec<&'static str>) {
    let (mut v, stats) = r.unwrap();
    let got = collect(v.as_mut(), budget, |x| x).unwrap();
    let engines = stats.iterations.iter().map(|i| i.engine).collect();
    (got, engines)
}

/// Every superstep ran in memory (or every one on the external engine).
fn in_memory(engines: &[&str]) -> bool {
    engines.iter().all(|&e| e == "stream" || e == "select")
}

const CHOICES: [EngineChoice; 4] = [
    EngineChoice::External,
    EngineChoice::Stream,
    EngineChoice::Select,
    EngineChoice::Auto,
];

/// Runs `f` on every engine choice that can run it (`stream`: whether the
/// stream engine can) at a budget where everything fits; asserts each
/// agrees with `want` (by `same`) and ran where it was asked to.
fn on_every_engine(
    stream: bool,
    want: &[u64],
    same: impl Fn(&[u64], &[u64]) -> bool,
    f: impl Fn(&Engines, &Budget) -> outcore::error::Result<Run>,
) {
    let ext = ExternalConfig::default();
    for choice in CHOICES {
        if choice == EngineChoice::Stream && !stream {
            continue;
        }
        let budget = Budget::new(256 << 20);
        let (got, engines) = values(f(&Engines::auto(choice, &ext), &budget), &budget);
        assert!(same(&got, want), "{choice:?}: {got:?} != {want:?}");
        assert_eq!(budget.used(), 0, "{choice:?}: charges left");
        match choice {
            EngineChoice::External => assert!(
                !engines.iter().any(|&e| e == "stream" || e == "select"),
                "{engines:?}"
            ),
            EngineChoice::Stream => assert!(engines.iter().all(|&e| e == "stream")),
            EngineChoice::Select => assert!(engines.iter().all(|&e| e == "select")),
            EngineChoice::Auto => assert!(in_memory(&engines), "{engines:?}"),
        }
    }
}

fn exact(a: &[u64], b: &[u64]) -> bool {
    a == b
}

fn close(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(&x, &y)| {
            let (x, y) = (f64::from_bits(x), f64::from_bits(y));
            (x - y).abs() <= 1e-9 * (1.0 + y.abs())
        })
}

fn dense_edges(store: &Store, edges: &[(u64, u64, f64)]) -> Vec<(u32, u32)> {
    to_dense(store, edges)
        .iter()
        .map(|&(s, d, _)| (s, d))
        .collect()
}

/// Weights whose sums tie often.
fn weighted(edges: Vec<(u64, u64, f64)>, seed: u64) -> Vec<(u64, u64, f64)> {
    const W: [f64; 5] = [1.0, 2.0, 3.0, 0.5, 0.25];
    edges
        .into_iter()
        .enumerate()
        .map(|(i, (a, b, _))| (a, b, W[(i as u64 ^ seed) as usize % W.len()]))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn grouped_programs_agree_on_every_engine(
        n in 1u64..400,
        m in 0usize..3000,
        seed in any::<u64>(),
        directed in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = hub_edges(n, m, seed);
        let store = dense_store(dir.path(), n, &edges, directed, false);
        let g = MemGraph::load(&store).unwrap();

        let want: Vec<u64> = reference::cdlp(&g, 4).into_iter().map(|l| l as u64).collect();
        let cfg = CdlpConfig { iterations: 4 };
        on_every_engine(true, &want, exact, |e, b| cdlp_run(&store, &cfg, e, b));

        let dense = dense_edges(&store, &edges);
        let bits = priority::rank_bits(n);
        let k = keys(&store, |r, d| coloring::key(seed, r, d, bits)).unwrap();
        let want: Vec<u64> = coloring::reference(&k, &dense, directed).into_iter().map(u64::from).collect();
        on_every_engine(true, &want, exact, |e, b| coloring_run(&store, seed, e, b));

        let k = keys(&store, |r, _| mis::key(seed, r, bits)).unwrap();
        let want: Vec<u64> = mis::reference(&k, &dense).into_iter().map(u64::from).collect();
        on_every_engine(true, &want, exact, |e, b| mis_run(&store, seed, e, b));
    }

    #[test]
    fn weighted_betweenness_agrees_in_memory(
        n in 1u64..60,
        m in 0usize..300,
        seed in any::<u64>(),
        directed in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = weighted(hub_edges(n, m, seed), seed);
        let store = dense_store(dir.path(), n, &edges, directed, true);
        let g = MemGraph::load(&store).unwrap();
        let cfg = BcConfig { sources: None, sampled: false, normalized: false };
        let scale = outcore::algo::betweenness::scales(n, None, false, directed);
        let want: Vec<u64> = wbc_reference(&g, None, scale).into_iter().map(f64::to_bits).collect();
        // Weighted: no stream engine (tiles hold no weights).
        on_every_engine(false, &want, close, |e, b| weighted_run(&store, &cfg, e, b));
    }
}

/// The planner puts a grouped run in memory when its state and its
/// messages' worst case fit the budget, and on the external engine when
/// they do not (the same answer both ways); forcing the stream engine on a
/// weighted program is refused.
#[test]
fn the_planner_puts_grouped_runs_where_they_fit() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000u64;
    let edges = hub_edges(n, 200_000, 5);
    let store = dense_store(dir.path(), n, &edges, false, false);
    let g = MemGraph::load(&store).unwrap();
    let want: Vec<u64> = reference::cdlp(&g, 3)
        .into_iter()
        .map(|l| l as u64)
        .collect();
    let cfg = CdlpConfig { iterations: 3 };
    let ext = ExternalConfig::default();
    let auto = Engines::auto(EngineChoice::Auto, &ext);
    let big = Budget::new(256 << 20);
    let (got, engines) = values(cdlp_run(&store, &cfg, &auto, &big), &big);
    assert_eq!(got, want);
    assert!(in_memory(&engines), "{engines:?}");
    assert_eq!(big.used(), 0);
    // Half the arena's worst case (every entry's message) beyond what the
    // state needs: external.
    let need = outcore::engine::run::required::<outcore::algo::cdlp::CdlpVp<u32>>(&store);
    let arena =
        outcore::engine::superstep::arena_bytes(&store, outcore::engine::vertex::Edges::Both, 4);
    assert!(arena > 1 << 20, "arena {arena}");
    let small = Budget::new(need + arena / 2);
    let (got, engines) = values(cdlp_run(&store, &cfg, &auto, &small), &small);
    assert_eq!(got, want);
    assert!(
        engines.iter().all(|&e| e != "stream" && e != "select"),
        "{engines:?}"
    );
    assert_eq!(small.used(), 0);
}

/// Colouring runs in memory at the budget its state plus a 12-byte
/// message slot per list entry needs (the packed [`priority::Msg`]; a
/// `(u64, u32)` slot pads to 16 and would not fit: at kron-24, 520 M
/// entries take 6.2 GB, not 8.3), and MIS, whose messages combine into
/// words, at its state's alone; both with the references' answers.
#[test]
fn mis_and_colouring_fit_with_twelve_byte_slots() {
    use outcore::engine::run::{required, required_by};
    use outcore::engine::superstep::arena_bytes;
    use outcore::engine::vertex::Edges;
    let dir = tempfile::tempdir().unwrap();
    let (n, seed) = (20_000u64, 7);
    let edges = hub_edges(n, 200_000, 5);
    let store = dense_store(dir.path(), n, &edges, false, false);
    let dense = dense_edges(&store, &edges);
    let bits = priority::rank_bits(n);
    let auto = Engines::auto(EngineChoice::Auto, &ExternalConfig::default());
    let arena = arena_bytes(&store, Edges::Both, 12);
    // A 16-byte slot takes a third more than this: megabytes past the
    // budget.
    assert!(arena / 3 > 1 << 20, "arena {arena}");

    let budget = Budget::new(required::<mis::MisVp>(&store));
    let k = keys(&store, |r, _| mis::key(seed, r, bits)).unwrap();
    let want: Vec<u64> = mis::reference(&k, &dense)
        .into_iter()
        .map(u64::from)
        .collect();
    let (got, engines) = values(mis_run(&store, seed, &auto, &budget), &budget);
    assert!(in_memory(&engines), "mis: {engines:?}");
    assert_eq!(got, want);
    assert_eq!(budget.used(), 0);

    // Its state, the 12-byte slots and its final bits (`required_by`).
    let prog = coloring::ColoringVp::new(seed, n, false);
    let budget = Budget::new(required_by(&store, &prog));
    assert_eq!(
        budget.limit(),
        required::<coloring::ColoringVp>(&store) + arena + n.div_ceil(64) * 16
    );
    let k = keys(&store, |r, d| coloring::key(seed, r, d, bits)).unwrap();
    let want: Vec<u64> = coloring::reference(&k, &dense, false)
        .into_iter()
        .map(u64::from)
        .collect();
    let (got, engines) = values(coloring_run(&store, seed, &auto, &budget), &budget);
    assert!(in_memory(&engines), "coloring: {engines:?}");
    assert_eq!(got, want);
    assert_eq!(budget.used(), 0);
}
