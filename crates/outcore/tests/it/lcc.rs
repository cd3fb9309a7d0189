//! LCC by out-of-core triangle listing against the in-memory reference:
//! random directed and undirected graphs with hubs, self-loops, duplicates
//! and reciprocal arcs; blocks from a few vertices (many scans) to the whole
//! graph; credits in memory or through sort-reduced logs merged over
//! several levels; both I/O backends; and the LDBC Graphalytics examples.

use crate::common;

use common::{dense_store as store_of, graphalytics_dir as data, import_graphalytics, Rng};
use outcore::algo::lcc::lcc;
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::validate::{rule_for, validate};
use outcore::engine::external::ExternalConfig;
use outcore::engine::stats::RunStats;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

/// `m` random arcs on `0..n`: a fifth from three hubs, some reversed.
fn random_edges(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    let mut e: Vec<(u64, u64, f64)> = Vec::with_capacity(m);
    for i in 0..m {
        let s = if i % 5 == 0 {
            r.below(3.min(n))
        } else {
            r.below(n)
        };
        let d = r.below(n);
        if i % 7 == 3 && !e.is_empty() {
            let j = r.below(e.len() as u64) as usize;
            e.push((e[j].1, e[j].0, 1.0));
        } else {
            e.push((s, d, 1.0));
        }
    }
    e
}

fn check(store: &Store, cfg: &ExternalConfig, budget: &Budget) -> RunStats {
    let g = MemGraph::load(store).unwrap();
    let (got, stats) = lcc(store, cfg, budget).unwrap();
    let want = reference::lcc(&g);
    assert_eq!(got.len(), want.len());
    for v in 0..g.n {
        assert!(
            (got[v] - want[v]).abs() <= 1e-12,
            "lcc[{v}] = {} != {}",
            got[v],
            want[v]
        );
    }
    assert_eq!(stats.engine, "external");
    assert!(budget.peak() <= budget.limit());
    assert_eq!(budget.used(), 0, "everything is released");
    stats
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn lcc_matches_reference(
        n in 1u64..1200,
        m in 0usize..8000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        block in prop_oneof![Just(None), (16u64 << 10..256 << 10).prop_map(Some)],
        spill in any::<bool>(),
        buffer in prop_oneof![Just(None), (256u64..8192).prop_map(Some)],
        interval in prop_oneof![Just(None), (1u64..300).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = store_of(dir.path(), n, &random_edges(n, m, seed), directed, false);
        let cfg = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            triangle_block: block,
            force_spill: spill,
            message_buffer: buffer,
            interval_vertices: interval,
            ..Default::default()
        };
        check(&store, &cfg, &Budget::new(32 << 20));
    }
}

/// Many blocks (the scan repeats), credits spilled to many small runs per
/// log and merged from disk over several levels.
#[test]
fn blocks_and_spilled_credits() {
    let dir = tempfile::tempdir().unwrap();
    let n = 4000;
    let edges = random_edges(n, 60_000, 11);
    for directed in [false, true] {
        let sub = dir.path().join(format!("{directed}"));
        std::fs::create_dir_all(&sub).unwrap();
        let store = store_of(&sub, n, &edges, directed, false);
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = ExternalConfig {
                io: Some(io),
                triangle_block: Some(64 << 10),
                force_spill: true,
                message_buffer: Some(16 << 10),
                interval_vertices: Some(900),
                merge_memory: Some(8 << 10),
                fan_in: Some(3),
                ..Default::default()
            };
            let stats = check(&store, &cfg, &Budget::new(32 << 20));
            // orient + blocks + finish
            assert!(
                stats.iterations.len() >= 2 + 4,
                "{}",
                stats.iterations.len()
            );
            let x = stats.iterations.last().unwrap().external.unwrap();
            assert!(x.flushes > 10 && x.intervals >= 4, "{x:?}");
            assert!(x.merge_levels > 0 && x.logs_merged_external > 0, "{x:?}");
            assert!(x.log_bytes_reduced < x.log_bytes_raw, "{x:?}");
        }
    }
}

/// A budget too small for the longest oriented list is refused with a
/// budget error, not an allocation beyond it.
#[test]
fn refuses_a_budget_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_of(dir.path(), 10, &random_edges(10, 50, 1), false, false);
    let e = lcc(&store, &ExternalConfig::default(), &Budget::new(1 << 20))
        .expect_err("1 MiB is too small");
    assert!(e.to_string().contains("--memory"), "{e}");
}

/// The Graphalytics examples, validated with the Graphalytics rules.
#[test]
fn graphalytics_examples() {
    let dir = tempfile::tempdir().unwrap();
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        let store = import_graphalytics(dir.path(), name, directed);
        for spill in [false, true] {
            let cfg = ExternalConfig {
                triangle_block: Some(16 << 10),
                force_spill: spill,
                ..Default::default()
            };
            let (l, _) = lcc(&store, &cfg, &Budget::new(16 << 20)).unwrap();
            let out = dir.path().join(format!("{name}.lcc"));
            write_vertex_values(&out, &store, |v| Ldbc(l[v as usize])).unwrap();
            validate(
                &out,
                &data().join(format!("{name}-LCC")),
                rule_for("LCC").unwrap(),
            )
            .unwrap_or_else(|e| panic!("{name} LCC: {e}"));
        }
    }
}
