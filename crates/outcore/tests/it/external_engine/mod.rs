//! The external engine (vertex state on disk, sort-reduced update logs)
//! against the in-memory references: random directed, undirected and
//! weighted graphs; intervals from a handful of vertices (state many times
//! the memory it may use, many runs per log, several merge levels) to one
//! interval; both I/O backends; and the LDBC Graphalytics examples. This
//! module holds the shared helpers (random graphs, configurations, checks
//! of every program against its reference); the tests are in the
//! submodules.

use crate::common;

use common::Rng;

use outcore::algo::cdlp::{cdlp, CdlpConfig};
use outcore::algo::pagerank::PageRankConfig;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::vertex;
use outcore::engine::external::ExternalConfig;
use outcore::engine::stats::RunStats;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;

mod grid;
mod pages;
mod references;

/// `m` random edges on `0..n` (self-loops, duplicates and hubs happen).
fn random_edges(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let s = if i % 5 == 0 {
                r.below(3.min(n))
            } else {
                r.below(n)
            };
            let d = r.below(n);
            let w = (r.below(100) as f64) / 4.0;
            (s, d, w)
        })
        .collect()
}

fn ext(
    io: Backend,
    interval: Option<u64>,
    buffer: Option<u64>,
    fan_in: Option<usize>,
) -> ExternalConfig {
    ExternalConfig {
        io: Some(io),
        interval_vertices: interval,
        message_buffer: buffer,
        fan_in,
        ..Default::default()
    }
}

fn check_stats(stats: &RunStats, budget: &Budget) {
    assert_eq!(stats.engine, "external");
    assert!(stats.iterations.iter().all(|i| i.engine == "external"));
    assert!(budget.peak() <= budget.limit());
    assert_eq!(budget.used(), 0, "everything is released");
}

fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs().max(1e-300) || a == e
}

/// PageRank (`iterations`) on the external engine equals the reference;
/// returns its stats (checked).
fn pagerank_matches(
    store: &Store,
    g: &MemGraph,
    iterations: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> RunStats {
    let pr_cfg = PageRankConfig {
        iterations,
        ..Default::default()
    };
    let (pr, _, stats) = vertex::pagerank::run(store, &pr_cfg, cfg, budget).unwrap();
    check_stats(&stats, budget);
    let want = reference::pagerank(g, 0.85, iterations);
    for v in 0..g.n {
        assert!(
            close(pr[v], want[v]),
            "pagerank[{v}] = {} != {}",
            pr[v],
            want[v]
        );
    }
    stats
}

/// Every program on `store` equals its reference.
fn check_all(store: &Store, cfg: &ExternalConfig, budget_bytes: u64, source: u64) {
    let g = MemGraph::load(store).unwrap();
    let budget = Budget::new(budget_bytes);
    pagerank_matches(store, &g, 6, cfg, &budget);
    let (w, stats) = vertex::wcc::run(store, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(w, common::wide(reference::wcc(&g)), "wcc");
    if g.n > 0 {
        let (b, stats) = vertex::bfs::run(store, source, cfg, &budget).unwrap();
        check_stats(&stats, &budget);
        assert_eq!(b, reference::bfs(&g, source as u32), "bfs from {source}");
        if store.manifest().weighted {
            let (d, stats) = vertex::sssp::run(store, source, cfg, &budget).unwrap();
            check_stats(&stats, &budget);
            let want = reference::sssp(&g, source as u32);
            for v in 0..g.n {
                assert!(close(d[v], want[v]), "sssp[{v}] = {} != {}", d[v], want[v]);
            }
        }
    }
    let (c, stats) = vertex::kcore::run(store, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(c, reference::core_numbers(&g), "core numbers");
    let (l, stats) = cdlp(store, &CdlpConfig { iterations: 5 }, cfg, &budget).unwrap();
    check_stats(&stats, &budget);
    assert_eq!(l, common::wide(reference::cdlp(&g, 5)), "cdlp");
}
