//! Reference structure measures: core numbers and local clustering coefficients.

use super::*;

/// k-core decomposition ignoring direction: neighbours are `out ∪ in` as a
/// set, self-loops ignored (`networkx.core_number` on the undirected simple
/// graph). Peels a vertex of minimum remaining degree at a time.
pub fn core_numbers(g: &MemGraph) -> Vec<u32> {
    let nbrs: Vec<Vec<u32>> = (0..g.n).map(|v| g.undirected_neighbours(v)).collect();
    let mut deg: Vec<u32> = nbrs.iter().map(|l| l.len() as u32).collect();
    let mut queue: BTreeSet<(u32, u32)> = (0..g.n).map(|v| (deg[v], v as u32)).collect();
    let mut removed = vec![false; g.n];
    let mut core = vec![0u32; g.n];
    let mut k = 0u32;
    while let Some((d, v)) = queue.pop_first() {
        k = k.max(d);
        core[v as usize] = k;
        removed[v as usize] = true;
        for &u in &nbrs[v as usize] {
            if !removed[u as usize] {
                let du = &mut deg[u as usize];
                queue.remove(&(*du, u));
                *du -= 1;
                queue.insert((*du, u));
            }
        }
    }
    core
}

/// Graphalytics local clustering coefficient: `N(v)` = in- and
/// out-neighbours as a set (without `v`), `d = |N(v)|`; 0 when `d <= 1`, else
/// the number of edges `u -> w` with `u != w` both in `N(v)`, divided by
/// `d (d - 1)`. Direction is ignored when choosing neighbours and respected
/// when counting edges (an undirected edge counts both ways).
pub fn lcc(g: &MemGraph) -> Vec<f64> {
    (0..g.n)
        .map(|v| {
            let nv = g.undirected_neighbours(v);
            let d = nv.len();
            if d <= 1 {
                return 0.0;
            }
            let links: usize = nv
                .iter()
                .map(|&u| {
                    g.out[u as usize]
                        .iter()
                        .filter(|&&(w, _)| w != u && nv.binary_search(&w).is_ok())
                        .count()
                })
                .sum();
            links as f64 / (d * (d - 1)) as f64
        })
        .collect()
}
