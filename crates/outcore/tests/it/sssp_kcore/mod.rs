//! SSSP (delta-stepping) and k-core (h-index iteration) on the select engine
//! against the in-memory references: random graphs, pools from a few frames
//! to everything cached, both I/O backends, and the Graphalytics examples.
//!
//! This module holds the shared helpers (configurations, random graphs,
//! checks against the references); the tests are in the submodules.

use crate::common;

use common::Rng;

use common::{
    dense_id, dense_store as store_of, graphalytics_dir as data,
    graphalytics_properties as properties, to_dense as dense_edges,
};
use outcore::algo::kcore::{kcore, kcore_vertices};
use outcore::algo::output::{write_vertex_values, Ldbc};
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::sssp::{sssp, SsspConfig};
use outcore::algo::validate::{rule_for, validate};
use outcore::engine::select::SelectConfig;
use outcore::error::Error;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::Store;
use proptest::prelude::*;

mod against_references;
mod delta_stepping;
mod ldbc_examples;
mod pull_mode;
mod refusals;

fn select(io: Backend, pool: Option<u64>) -> SelectConfig {
    SelectConfig {
        io: Some(io),
        pool_bytes: pool,
        ..Default::default()
    }
}

/// With a shallow depth the pool has room for SSSP's run-ahead prefetch.
fn select_depth(io: Backend, pool: Option<u64>, depth: Option<usize>) -> SelectConfig {
    SelectConfig {
        depth,
        ..select(io, pool)
    }
}

/// `m` random edges on `0..n` (self-loops and duplicates happen), plus 1500
/// edges out of vertex 3 with `hub`; weights are 0 for about a fifth, else
/// small integers or arbitrary reals.
fn random_edges(n: u64, m: usize, seed: u64, hub: bool) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    let mut out = Vec::with_capacity(m + 1500);
    let weight = |r: &mut Rng| match r.below(5) {
        0 => 0.0,
        1 | 2 => r.below(10) as f64,
        _ => (r.next() >> 11) as f64 / (1u64 << 53) as f64 * 100.0,
    };
    for _ in 0..m {
        let (s, d) = (r.below(n), r.below(n));
        let w = weight(&mut r);
        out.push((s, d, w));
    }
    if hub && n > 3 {
        for _ in 0..1500 {
            let d = r.below(n);
            let w = weight(&mut r);
            out.push((3, d, w));
        }
    }
    out
}

fn check_sssp(store: &Store, g: &MemGraph, source: u64, cfg: &SsspConfig, sel: &SelectConfig) {
    let budget = Budget::new(1 << 30);
    let (got, stats) = sssp(store, source, cfg, sel, &budget).unwrap();
    let expect = reference::sssp(g, source as u32);
    for (v, &e) in expect.iter().enumerate() {
        let a = got.value(v);
        if e.is_infinite() {
            assert_eq!(a, e, "dist[{v}] (source {source}, delta {:?})", cfg.delta);
        } else {
            assert!(
                (a - e).abs() <= 1e-9 * e.abs(),
                "dist[{v}] = {a}, expected {e} (source {source}, delta {:?})",
                cfg.delta
            );
        }
    }
    assert_eq!(stats.engine, "select");
    assert_eq!(stats.io_backend, sel.io.unwrap().to_string());
    assert!(!stats.iterations.is_empty());
    assert!(stats.iterations.len() <= 10_000);
    assert!(stats.iterations.iter().all(|i| i.engine == "select"));
    let active: u64 = stats.iterations.iter().map(|i| i.active_vertices).sum();
    let reached = expect.iter().filter(|d| d.is_finite()).count() as u64;
    assert!(active >= reached, "{active} processed < {reached} reached");
    drop(got);
    assert_eq!(budget.used(), 0, "everything is released");
}

/// The program in the pull mode ([`kcore`]) against the reference.
fn check_kcore(store: &Store, g: &MemGraph, sel: &SelectConfig) {
    let budget = Budget::new(1 << 30);
    let (got, stats) = kcore(store, sel, &budget).unwrap();
    let expect = reference::core_numbers(g);
    for (v, &e) in expect.iter().enumerate() {
        assert_eq!(got.value(v), e, "core number of {v}");
    }
    let max = expect.iter().copied().max().unwrap_or(0);
    assert_eq!(got.max_core(), max);
    for k in [0, 1, 2, max / 2, max, max + 1] {
        let want: Vec<u64> = (0..g.n as u64)
            .filter(|&v| expect[v as usize] >= k)
            .collect();
        assert_eq!(kcore_vertices(&got, k), want, "the {k}-core");
    }
    assert_eq!(stats.engine, "select");
    if g.n > 0 {
        assert_eq!(stats.iterations[0].active_vertices, g.n as u64);
        assert!(stats.iterations.iter().all(|i| i.engine == "select"));
    }
    drop(got);
    assert_eq!(budget.used(), 0, "everything is released");
}
