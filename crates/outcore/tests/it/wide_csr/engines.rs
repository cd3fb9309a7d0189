//! The engines on a wide store against the narrow one: the select
//! engine, the external engine's scatter, labels held as u64, the triangle
//! streams and the queries give the narrow store's answers.

use super::pair;
use crate::common::programs;
use crate::compressed_csr::{
    edges_of, external_answers_as_references, select_answers_as_references,
};
use outcore::algo::cdlp::{cdlp, CdlpConfig};
use outcore::algo::lcc::lcc;
use outcore::algo::reference::MemGraph;
use outcore::algo::triangles::triangles;
use outcore::algo::vertex;
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::engine::stats::RunStats;
use outcore::engine::stream::StreamConfig;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;

/// SSSP, k-core and BFS on the select engine (a pool of a few frames and a
/// large one), PageRank, SSSP (the weights), WCC and BFS on the external
/// engine's scatter, and LCC (the triangle streams) on a wide store: the
/// answers of the narrow store's references.
#[test]
fn engines_answer_the_same_on_wide_slots() {
    let n = 30_000;
    let mut edges = edges_of(n, 120_000, 9);
    edges.extend((0..40_000u64).map(|i| (i % 40, (i * 7919) % n, 1.0)));
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (narrow, wide) = pair(dir.path(), n, &edges, directed, true, 4096);
        let g = MemGraph::load(&narrow).unwrap();
        let budget = Budget::new(256 << 20);
        for (io, pool) in [(Backend::Uring, Some(64 << 10)), (Backend::Sync, None)] {
            let sel = SelectConfig {
                io: Some(io),
                pool_bytes: pool,
                ..Default::default()
            };
            select_answers_as_references(&wide, &g, &sel, &budget);
        }
        external_answers_as_references(&wide, &g);
    }
}

/// WCC and CDLP hold their labels (ranks) as u64 on a wide store, u32 on
/// a narrow one, and k-core names its messages' senders so: the same
/// answers, but the wide run writes 8-byte labels where the narrow one
/// writes 4 (equal writes would mean the wide store ran on 32-bit ids).
#[test]
fn labels_widen_on_wide_stores() {
    let n = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let (narrow, wide) = pair(dir.path(), n, &edges_of(n, 60_000, 2), true, false, 4096);
    let ext = ExternalConfig {
        interval_vertices: Some(5_000),
        grid: Some(false),
        ..Default::default()
    };
    let budget = Budget::new(64 << 20);
    // The same answers, more bytes written on the wide store.
    fn wider<T: PartialEq + std::fmt::Debug>(
        name: &str,
        (a, sa): (Vec<T>, RunStats),
        (b, sb): (Vec<T>, RunStats),
    ) {
        assert_eq!(a, b, "{name}");
        let (x, y) = (sa.bytes_written, sb.bytes_written);
        assert!(y > x, "{name}: {y} bytes written wide, {x} narrow");
    }
    let wcc = |s: &Store| vertex::wcc::run(s, &ext, &budget).unwrap();
    wider("wcc", wcc(&narrow), wcc(&wide));
    let cdlp = |s: &Store| cdlp(s, &CdlpConfig { iterations: 3 }, &ext, &budget).unwrap();
    wider("cdlp", cdlp(&narrow), cdlp(&wide));
    // k-core's messages name their senders in u64.
    let kcore = |s: &Store| vertex::kcore::run(s, &ext, &budget).unwrap();
    wider("kcore", kcore(&narrow), kcore(&wide));
    // The grid folds u64 labels as words (their identity u64::MAX).
    let grid = ExternalConfig {
        grid: Some(true),
        ..ext.clone()
    };
    let (labels, stats) = vertex::wcc::run(&wide, &grid, &budget).unwrap();
    assert!(stats
        .iterations
        .iter()
        .any(|i| i.planner.unwrap().chosen == "external-grid"));
    assert_eq!(labels, wcc(&narrow).0, "wcc on the grid");
    // In memory, on the stream engine and through the planner on the
    // select engine: the same labels, held in 8 bytes a vertex wide.
    let labelled = |(f, s): (vertex::wcc::Labels, RunStats)| {
        ((0..n).map(f).collect::<Vec<_>>(), s.vertex_state_bytes)
    };
    let streamed = |s: &Store| {
        let (w, stats) = programs::wcc(s, StreamConfig::default(), &budget).unwrap();
        labelled((Box::new(move |v| w[v as usize]), stats))
    };
    let selected = |s: &Store| {
        let sel = SelectConfig::default();
        let run = vertex::wcc::planned(
            s,
            EngineChoice::Select,
            StreamConfig::default(),
            &sel,
            &budget,
        );
        labelled(run.unwrap())
    };
    for (name, run) in [
        ("stream", &streamed as &dyn Fn(&Store) -> _),
        ("select", &selected),
    ] {
        let ((a, x), (b, y)) = (run(&narrow), run(&wide));
        assert_eq!(a, labels, "{name} wcc");
        assert_eq!(a, b, "{name} wcc, wide");
        assert!(
            y >= x + 4 * n,
            "{name}: {y} bytes of state wide, {x} narrow"
        );
    }
}

/// The triangle streams orient a wide store's lists into u64 entries: LCC
/// and the triangle counts of the narrow store, with the credits in memory
/// and through the logs, over many blocks, while the oriented file (8
/// bytes an entry against 4) makes the wide run write more.
#[test]
fn triangle_entries_widen_on_wide_stores() {
    let n = 20_000;
    let mut edges = edges_of(n, 80_000, 5);
    edges.extend((0..20_000u64).map(|i| (i % 30, (i * 7919) % n, 1.0)));
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (narrow, wide) = pair(dir.path(), n, &edges, directed, false, 4096);
        let budget = Budget::new(64 << 20);
        for force_spill in [false, true] {
            let ext = ExternalConfig {
                force_spill,
                triangle_block: Some(64 << 10),
                interval_vertices: Some(3_000),
                ..Default::default()
            };
            let (a, sa) = triangles(&narrow, &ext, &budget).unwrap();
            let (b, sb) = triangles(&wide, &ext, &budget).unwrap();
            assert_eq!(a, b, "triangles, directed {directed}, spill {force_spill}");
            assert!(a.iter().sum::<u64>() > 1000, "a graph with triangles");
            assert!(sa.iterations.len() > 4, "several blocks");
            assert!(sb.bytes_written > sa.bytes_written, "u64 entries");
            let (a, _) = lcc(&narrow, &ext, &budget).unwrap();
            let (b, _) = lcc(&wide, &ext, &budget).unwrap();
            assert_eq!(a, b, "lcc, directed {directed}, spill {force_spill}");
        }
    }
}

/// The queries read u64 ids (either width): k-hop, egonet, induced and
/// cross on a wide store give the narrow store's answers.
#[test]
fn queries_agree_on_wide_stores() {
    use outcore::algo::query;
    let n = 8_000;
    let dir = tempfile::tempdir().unwrap();
    let (narrow, wide) = pair(dir.path(), n, &edges_of(n, 30_000, 8), true, false, 4096);
    let budget = Budget::new(64 << 20);
    let answers = |s: &Store| {
        let mut eng =
            SelectEngine::new(s, "out", false, &budget, &SelectConfig::default()).unwrap();
        let (two, _) = query::khop(&mut eng, 5, 2).unwrap();
        let (ego, _) = query::egonet(&mut eng, 5, 2, true).unwrap();
        let half: Vec<u64> = two.iter().step_by(2).copied().collect();
        let (ind, _) = query::induced(&mut eng, &half, true).unwrap();
        let (cross, _) = query::cross(&mut eng, &half, &two, true).unwrap();
        assert!(two.len() > 100 && !ind.is_empty() && !cross.is_empty());
        (two, ego, ind, cross)
    };
    assert!(answers(&narrow) == answers(&wide));
}
