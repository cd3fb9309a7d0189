//! Reference traversals: BFS depths, Dijkstra distances, k-hop neighbourhoods.

use super::*;

/// The BFS depth of a vertex the source does not reach (`i64::MAX`, as LDBC prints it).
pub const BFS_UNREACHABLE: i64 = i64::MAX; // 9223372036854775807

/// Hop depth from `source` along out-edges (both directions when undirected);
/// the source is 0, unreached vertices [`BFS_UNREACHABLE`]. Panics if `source >= n`.
pub fn bfs(g: &MemGraph, source: u32) -> Vec<i64> {
    assert!(
        (source as usize) < g.n,
        "BFS source {source} >= n = {}",
        g.n
    );
    let mut depth = vec![BFS_UNREACHABLE; g.n];
    let mut queue = VecDeque::new();
    depth[source as usize] = 0;
    queue.push_back(source);
    while let Some(v) = queue.pop_front() {
        let dv = depth[v as usize];
        for &(u, _) in &g.out[v as usize] {
            if depth[u as usize] == BFS_UNREACHABLE {
                depth[u as usize] = dv + 1;
                queue.push_back(u);
            }
        }
    }
    depth
}

/// A Dijkstra queue entry, ordered as a min-heap on the distance.
#[derive(PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Single-source shortest paths (Dijkstra) along out-edges; the source is 0,
/// unreached vertices `f64::INFINITY`. Panics if `source >= n` or on a
/// negative or NaN weight.
pub fn sssp(g: &MemGraph, source: u32) -> Vec<f64> {
    assert!(
        (source as usize) < g.n,
        "SSSP source {source} >= n = {}",
        g.n
    );
    let mut dist = vec![f64::INFINITY; g.n];
    let mut done = vec![false; g.n];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0.0;
    heap.push(Entry(0.0, source));
    while let Some(Entry(d, v)) = heap.pop() {
        if done[v as usize] {
            continue;
        }
        done[v as usize] = true;
        for &(u, w) in &g.out[v as usize] {
            assert!(
                w >= 0.0,
                "SSSP needs non-negative weights: {v} -> {u} has {w}"
            );
            let nd = d + w;
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Entry(nd, u));
            }
        }
    }
    dist
}

/// The vertices within `k` hops of `source` along out-edges (the source
/// included), sorted. Panics if `source >= n`.
pub fn khop(g: &MemGraph, source: u32, k: u32) -> Vec<u32> {
    assert!(
        (source as usize) < g.n,
        "k-hop source {source} >= n = {}",
        g.n
    );
    let mut depth = vec![u32::MAX; g.n];
    let mut queue = VecDeque::new();
    depth[source as usize] = 0;
    queue.push_back(source);
    while let Some(v) = queue.pop_front() {
        let dv = depth[v as usize];
        if dv == k {
            continue;
        }
        for &(u, _) in &g.out[v as usize] {
            if depth[u as usize] == u32::MAX {
                depth[u as usize] = dv + 1;
                queue.push_back(u);
            }
        }
    }
    (0..g.n as u32)
        .filter(|&v| depth[v as usize] != u32::MAX)
        .collect()
}
