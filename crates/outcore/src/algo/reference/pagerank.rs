//! Reference Graphalytics PageRank.

use super::*;

/// One Graphalytics PageRank iteration from `pr` (see [`pagerank`]).
fn pagerank_step(g: &MemGraph, damping: f64, outdeg: &[usize], pr: &[f64]) -> Vec<f64> {
    let nf = g.n as f64;
    let sink: f64 = (0..g.n).filter(|&w| outdeg[w] == 0).map(|w| pr[w]).sum();
    // (1-d)/n + d/n * sink, grouped as LDBC's reference output needs it to
    // reproduce the expected files byte for byte.
    let base = ((1.0 - damping) + damping * sink) / nf;
    (0..g.n)
        .map(|v| {
            let s: f64 = g.inn[v]
                .iter()
                .map(|&(u, _)| pr[u as usize] / outdeg[u as usize] as f64)
                .sum();
            base + damping * s
        })
        .collect()
}

/// Graphalytics PageRank, exactly `iterations` synchronous iterations:
/// `PR0 = 1/n`; `PR(v) = (1-d)/n + d * sum_{u in in(v)} PR(u)/outdeg(u)
/// + d/n * sum_{w: outdeg(w) = 0} PR(w)`. Undirected: `outdeg` is the number of
/// neighbours (a self-loop once) and `in(v)` the neighbours. Weights are ignored.
pub fn pagerank(g: &MemGraph, damping: f64, iterations: usize) -> Vec<f64> {
    pagerank_tol(g, damping, iterations, f64::NEG_INFINITY).0
}

/// [`pagerank`] that also stops after an iteration whose L1 change
/// `sum_v |PR_new(v) - PR_old(v)|` is `< tol`; returns the ranks and the
/// number of iterations run (that last iteration included).
pub fn pagerank_tol(
    g: &MemGraph,
    damping: f64,
    max_iterations: usize,
    tol: f64,
) -> (Vec<f64>, usize) {
    if g.n == 0 {
        return (Vec::new(), 0);
    }
    let outdeg: Vec<usize> = g.out.iter().map(|l| l.len()).collect();
    let mut pr = vec![1.0 / g.n as f64; g.n];
    for it in 0..max_iterations {
        let next = pagerank_step(g, damping, &outdeg, &pr);
        let change: f64 = next.iter().zip(&pr).map(|(a, b)| (a - b).abs()).sum();
        pr = next;
        if change < tol {
            return (pr, it + 1);
        }
    }
    (pr, max_iterations)
}
