//! Every program on the external engine against its reference: random
//! graphs (proptest) over intervals, message buffers, merge fan-ins and
//! both backends; logs of many runs merged over several levels; and the
//! Graphalytics examples, validated with the Graphalytics rules.

use crate::common::{dense_store as store_of, graphalytics_dir as data, import_graphalytics};
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::validate::{rule_for, validate};
use proptest::prelude::*;

use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_program_matches_its_reference(
        n in 1u64..1500,
        m in 0usize..6000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        interval in prop_oneof![Just(None), (1u64..400).prop_map(Some)],
        buffer in prop_oneof![Just(None), (64u64..4096).prop_map(Some)],
        fan_in in prop_oneof![Just(None), (2usize..5).prop_map(Some)],
        sync in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let edges = random_edges(n, m, seed);
        let store = store_of(dir.path(), n, &edges, directed, weighted);
        let io = if sync { Backend::Sync } else { Backend::Uring };
        let source = seed % n;
        check_all(&store, &ext(io, interval, buffer, fan_in), 64 << 20, source);
    }
}

/// Tiny intervals, buffers and merge memory: logs of many runs, merged from
/// disk over several levels, with reduction in every merge.
#[test]
fn many_runs_merge_over_levels() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3000;
    let edges = random_edges(n, 30_000, 7);
    for directed in [false, true] {
        let sub = dir.path().join(format!("{directed}"));
        std::fs::create_dir_all(&sub).unwrap();
        let store = store_of(&sub, n, &edges, directed, true);
        let g = MemGraph::load(&store).unwrap();
        for io in [Backend::Uring, Backend::Sync] {
            let cfg = ExternalConfig {
                merge_memory: Some(8 << 10),
                staging: Some(4096),
                grid: Some(false),
                ..ext(io, Some(700), Some(4096), Some(3))
            };
            let budget = Budget::new(64 << 20);
            let stats = pagerank_matches(&store, &g, 3, &cfg, &budget);
            let x = stats.iterations[0].external.unwrap();
            assert!(x.intervals >= 5, "{x:?}");
            assert!(x.flushes > 10, "{x:?}");
            assert!(x.logs_merged_external > 0 && x.merge_levels > 0, "{x:?}");
            assert!(
                x.log_bytes_reduced < x.log_bytes_raw,
                "hub messages reduce: {x:?}"
            );
            // Grouped (non-combining) messages through the same merges.
            let (l, stats) = cdlp(&store, &CdlpConfig { iterations: 3 }, &cfg, &budget).unwrap();
            assert_eq!(l, common::wide(reference::cdlp(&g, 3)));
            let x = stats.iterations[0].external.unwrap();
            assert!(
                x.merge_levels > 0 && x.log_bytes_reduced == x.log_bytes_raw,
                "{x:?}"
            );
            // 12-byte records straddle the 4 KiB staging buffers.
            let straddle = ExternalConfig {
                message_buffer: Some(256 << 10),
                ..cfg.clone()
            };
            let (c, _) = vertex::kcore::run(&store, &straddle, &budget).unwrap();
            assert_eq!(c, reference::core_numbers(&g));
        }
    }
}

/// The Graphalytics examples: BFS, WCC, PR, SSSP and CDLP on the external
/// engine, validated with the Graphalytics rules.
#[test]
fn graphalytics_examples() {
    let dir = tempfile::tempdir().unwrap();
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        let store = import_graphalytics(dir.path(), name, directed);
        let props = common::graphalytics_properties(name);
        let g = MemGraph::load(&store).unwrap();
        let ids = store.load_ids().unwrap();
        let key = |k: &str| props[k].clone();
        let budget = Budget::new(64 << 20);
        let cfg = ext(Backend::Uring, Some(3), Some(64), Some(2));
        let src: u64 = key("bfs.source-vertex").parse().unwrap();
        let dense_src = ids.dense_of_original(src, g.n as u64).unwrap();
        let out = dir.path().join(format!("{name}.out"));
        let check = |algo: &str, text: String| {
            std::fs::write(&out, text).unwrap();
            let expected = data().join(format!("{name}-{algo}"));
            validate(&out, &expected, rule_for(algo).unwrap())
                .unwrap_or_else(|e| panic!("{name} {algo}: {e}"));
        };
        let n = g.n as u64;
        let lines = |f: &dyn Fn(u64) -> String| -> String {
            let p = dir.path().join("tmp.out");
            write_vertex_values(&p, &store, f).unwrap();
            std::fs::read_to_string(&p).unwrap()
        };
        let (b, _) = vertex::bfs::run(&store, dense_src, &cfg, &budget).unwrap();
        check("BFS", lines(&|v| b[v as usize].to_string()));
        let (w, _) = vertex::wcc::run(&store, &cfg, &budget).unwrap();
        check(
            "WCC",
            lines(&|v| ids.original_of_rank(w[v as usize]).to_string()),
        );
        let iters: usize = key("pr.num-iterations").parse().unwrap();
        let damping: f64 = key("pr.damping-factor").parse().unwrap();
        let pr_cfg = PageRankConfig {
            iterations: iters,
            damping,
            tol: None,
        };
        let (pr, _, _) = vertex::pagerank::run(&store, &pr_cfg, &cfg, &budget).unwrap();
        check("PR", lines(&|v| Ldbc(pr[v as usize]).to_string()));
        let iters: usize = key("cdlp.max-iterations").parse().unwrap();
        let (l, _) = cdlp(&store, &CdlpConfig { iterations: iters }, &cfg, &budget).unwrap();
        check(
            "CDLP",
            lines(&|v| ids.original_of_rank(l[v as usize]).to_string()),
        );
        let ssrc: u64 = key("sssp.source-vertex").parse().unwrap();
        let dense = ids.dense_of_original(ssrc, n).unwrap();
        let (d, _) = vertex::sssp::run(&store, dense, &cfg, &budget).unwrap();
        check("SSSP", lines(&|v| Ldbc(d[v as usize]).to_string()));
    }
}
