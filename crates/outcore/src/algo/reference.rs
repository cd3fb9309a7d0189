//! Plain in-memory reference implementations (GAPBS-style verifiers): simple
//! and obviously correct, not fast. Every engine result is checked against
//! these on graphs that fit in memory.
//!
//! Everything works on **dense ids** `0..n`. Labels that name a vertex
//! (WCC, CDLP) are **ranks** ([`MemGraph::rank`]: the position of the
//! original id among the sorted original ids, DESIGN.md "Dense ids"), which
//! are ordered as the original ids whatever the store's vertex order: "the
//! smallest original id" of a set is its smallest rank, and "ties go to the
//! smallest label" (CDLP) or "label = smallest id in the component" (WCC)
//! give the same answer on ranks as on original ids. Callers print labels
//! through the id map (`ids.original_of_rank(label)`), never the label itself.
//!
//! Self-loops (the LDBC specification has none; NetworkX and our stores keep
//! them) are handled as follows, and an engine must do the same:
//!
//! - BFS, SSSP, khop, WCC: irrelevant.
//! - PR: a self-loop is an ordinary edge. Directed: `v -> v` counts in
//!   `outdeg(v)` and `v` is one of its own in-neighbours. Undirected: the
//!   self-loop is one neighbour entry (counted once in `deg(v)`, and `v`
//!   receives `PR(v)/deg(v)` from itself once). Ranks still sum to 1.
//! - CDLP: the neighbour multiset is the adjacency as stored. Directed:
//!   `out(v) ++ in(v)`, so a self-loop contributes the vertex's own label
//!   twice (once as out-, once as in-neighbour). Undirected: `out(v)`, a
//!   self-loop contributes it once.
//! - LCC: ignored. `v` is never in its own neighbourhood `N(v)`, and a
//!   self-loop `u -> u` is never counted as an edge between neighbours
//!   (as `networkx.clustering`).
//! - core numbers: ignored (a self-loop adds nothing to the degree).

use crate::error::{Error, Result};
use crate::store::csrscan::scan_csr;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

/// A whole graph in memory, loaded from a store's CSR (dense ids 0..n).
#[derive(Clone, Debug, PartialEq)]
pub struct MemGraph {
    pub n: usize,
    pub directed: bool,
    pub weighted: bool,
    /// out-neighbours (undirected: all neighbours, a self-loop once), sorted, with weights (1.0 when unweighted)
    pub out: Vec<Vec<(u32, f64)>>,
    /// in-neighbours (directed); for undirected the same as out
    pub inn: Vec<Vec<(u32, f64)>>,
    /// The rank of each dense id (`order.bin`; the identity when dense id = rank).
    pub rank: Vec<u32>,
}

impl MemGraph {
    /// Loads the whole graph of `store` from its CSR files (`csr/out.*`, and
    /// `csr/in.*` when directed).
    pub fn load(store: &crate::store::Store) -> Result<MemGraph> {
        let m = store.manifest();
        if m.num_vertices >= u32::MAX as u64 {
            return Err(Error::store(
                store.path(),
                format!("{} vertices do not fit u32 dense ids", m.num_vertices),
            ));
        }
        let n = m.num_vertices as usize;
        let read = |which: &str| -> Result<Vec<Vec<(u32, f64)>>> {
            let mut adj: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
            scan_csr(store, which, m.weighted, |v, _, u, w| {
                if u >= m.num_vertices {
                    return Err(Error::store(
                        store.path(),
                        format!("csr/{which}: vertex {v} has neighbour {u} >= |V| = {n}"),
                    ));
                }
                adj[v as usize].push((u as u32, w));
                Ok(())
            })?;
            for list in &mut adj {
                list.sort_by_key(|e| e.0);
            }
            Ok(adj)
        };
        let out = read("out")?;
        let inn = if m.directed { read("in")? } else { out.clone() };
        let rank = store
            .load_ranks()?
            .unwrap_or_else(|| (0..n as u32).collect());
        Ok(MemGraph {
            n,
            directed: m.directed,
            weighted: m.weighted,
            out,
            inn,
            rank,
        })
    }

    /// The same graph with every vertex renumbered to its rank (the dense
    /// ids of an `--order original` store): the graph does not depend on the
    /// store's vertex order.
    pub fn in_rank_order(&self) -> MemGraph {
        let relabel = |lists: &[Vec<(u32, f64)>]| -> Vec<Vec<(u32, f64)>> {
            let mut out = vec![Vec::new(); self.n];
            for (v, list) in lists.iter().enumerate() {
                let mut l: Vec<(u32, f64)> = list
                    .iter()
                    .map(|&(u, w)| (self.rank[u as usize], w))
                    .collect();
                l.sort_by_key(|e| e.0);
                out[self.rank[v] as usize] = l;
            }
            out
        };
        MemGraph {
            n: self.n,
            directed: self.directed,
            weighted: self.weighted,
            out: relabel(&self.out),
            inn: relabel(&self.inn),
            rank: (0..self.n as u32).collect(),
        }
    }

    /// Builds a graph from `(src, dst, weight)` edges on dense ids `0..n`,
    /// with NetworkX `add_edges_from` semantics: duplicates are merged (the
    /// last weight wins; undirected `(u, v)` and `(v, u)` are the same edge),
    /// self-loops are kept; undirected `(u, v)` adds `v` to `out[u]` and `u`
    /// to `out[v]` (a self-loop once). `weighted` is set (weights are given).
    ///
    /// Panics if an endpoint is `>= n`.
    pub fn from_edges(n: usize, directed: bool, edges: &[(u32, u32, f64)]) -> MemGraph {
        let mut map: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        for &(s, d, w) in edges {
            assert!(
                (s as usize) < n && (d as usize) < n,
                "edge ({s}, {d}) has an endpoint >= n = {n}"
            );
            let key = if directed {
                (s, d)
            } else {
                (s.min(d), s.max(d))
            };
            map.insert(key, w);
        }
        let mut out: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        let mut inn: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (&(s, d), &w) in &map {
            out[s as usize].push((d, w));
            if directed {
                inn[d as usize].push((s, w));
            } else if s != d {
                out[d as usize].push((s, w));
            }
        }
        for list in out.iter_mut().chain(inn.iter_mut()) {
            list.sort_by_key(|e| e.0);
        }
        if !directed {
            inn = out.clone();
        }
        MemGraph {
            n,
            directed,
            weighted: true,
            out,
            inn,
            rank: (0..n as u32).collect(),
        }
    }

    /// Neighbours ignoring direction, as a sorted set without `v` itself.
    fn undirected_neighbours(&self, v: usize) -> Vec<u32> {
        let mut s: Vec<u32> = self.out[v]
            .iter()
            .chain(self.inn[v].iter())
            .map(|e| e.0)
            .filter(|&u| u as usize != v)
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}

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

/// Weakly connected components: each vertex is labelled with the smallest
/// rank of its component (= the smallest original id), direction ignored.
pub fn wcc(g: &MemGraph) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut label = vec![NONE; g.n];
    let mut queue = VecDeque::new();
    let mut by_rank = vec![0u32; g.n];
    for (v, &r) in g.rank.iter().enumerate() {
        by_rank[r as usize] = v as u32;
    }
    for (r, &root) in by_rank.iter().enumerate() {
        let root = root as usize;
        if label[root] != NONE {
            continue;
        }
        // Roots are visited by increasing rank: the root has the smallest.
        label[root] = r as u32;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            for &(u, _) in g.out[v].iter().chain(g.inn[v].iter()) {
                if label[u as usize] == NONE {
                    label[u as usize] = r as u32;
                    queue.push_back(u as usize);
                }
            }
        }
    }
    label
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

/// Graphalytics community detection by label propagation: `L0(v) = rank(v)`; in
/// each of exactly `iterations` synchronous rounds every vertex takes the most
/// frequent label among its neighbours, ties to the smallest label; a vertex
/// without neighbours keeps its label. Neighbours: directed, `out(v) ++ in(v)`
/// (a vertex linked both ways counts twice, a self-loop too); undirected,
/// `out(v)`. Labels are ranks: smallest rank = smallest original id.
pub fn cdlp(g: &MemGraph, iterations: usize) -> Vec<u32> {
    let mut label: Vec<u32> = g.rank.clone();
    let mut seen: Vec<u32> = Vec::new();
    for _ in 0..iterations {
        let next: Vec<u32> = (0..g.n)
            .map(|v| {
                seen.clear();
                seen.extend(g.out[v].iter().map(|e| label[e.0 as usize]));
                if g.directed {
                    seen.extend(g.inn[v].iter().map(|e| label[e.0 as usize]));
                }
                if seen.is_empty() {
                    return label[v];
                }
                seen.sort_unstable();
                // The first label of the longest run: ties go to the smallest.
                let (mut best, mut best_count) = (seen[0], 0usize);
                let mut i = 0;
                while i < seen.len() {
                    let j = i + seen[i..].iter().take_while(|&&l| l == seen[i]).count();
                    if j - i > best_count {
                        best = seen[i];
                        best_count = j - i;
                    }
                    i = j;
                }
                best
            })
            .collect();
        label = next;
    }
    label
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::output::{format_float, write_vertex_labels, write_vertex_values, Ldbc};
    use crate::algo::validate::{rule_for, validate, validate_text};
    use crate::ingest::build::{build_store, BuildOptions};
    use crate::ingest::VecSource;
    use crate::store::Store;
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    const DATA: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/graphalytics"
    );

    /// An LDBC example graph read directly from its `.v`/`.e` files.
    pub(crate) struct Example {
        pub name: &'static str,
        /// Original ids, sorted: dense id = index.
        pub ids: Vec<u64>,
        pub directed: bool,
        /// Edges in original ids, as in the file.
        pub edges: Vec<(u64, u64, f64)>,
        pub props: HashMap<String, String>,
    }

    impl Example {
        pub fn read(name: &'static str) -> Example {
            let dir = Path::new(DATA);
            let text = |ext: &str| {
                let p = dir.join(format!("{name}{ext}"));
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            };
            let mut props = HashMap::new();
            let prefix = format!("graph.{name}.");
            for line in text(".properties").lines() {
                let line = line.trim();
                if line.starts_with('#') || line.is_empty() {
                    continue;
                }
                let (k, v) = line.split_once('=').expect("key = value");
                let k = k.trim();
                let k = k.strip_prefix(&prefix).unwrap_or(k);
                props.insert(k.to_string(), v.trim().to_string());
            }
            let mut ids: Vec<u64> = text(".v")
                .split_whitespace()
                .map(|s| s.parse().unwrap())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let edges = text(".e")
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    let w = f.get(2).map_or(1.0, |w| w.parse().unwrap());
                    (f[0].parse().unwrap(), f[1].parse().unwrap(), w)
                })
                .collect();
            let directed = props["directed"] == "true";
            Example {
                name,
                ids,
                directed,
                edges,
                props,
            }
        }

        pub fn dense(&self, id: u64) -> u32 {
            self.ids.binary_search(&id).expect("edge endpoint in .v") as u32
        }

        pub fn graph(&self) -> MemGraph {
            let edges: Vec<(u32, u32, f64)> = self
                .edges
                .iter()
                .map(|&(s, d, w)| (self.dense(s), self.dense(d), w))
                .collect();
            MemGraph::from_edges(self.ids.len(), self.directed, &edges)
        }

        pub fn prop<T: std::str::FromStr>(&self, key: &str) -> T {
            self.props[key]
                .parse()
                .unwrap_or_else(|_| panic!("{}: bad {key}", self.name))
        }

        pub fn expected_path(&self, algo: &str) -> PathBuf {
            Path::new(DATA).join(format!("{}-{algo}", self.name))
        }

        pub fn expected(&self, algo: &str) -> String {
            std::fs::read_to_string(self.expected_path(algo)).unwrap()
        }

        /// The six algorithms' outputs as LDBC text (dense order, original ids).
        pub fn outputs(&self, g: &MemGraph) -> Vec<(&'static str, Vec<String>)> {
            let bfs_src = self.dense(self.prop("bfs.source-vertex"));
            let sssp_src = self.dense(self.prop("sssp.source-vertex"));
            let d: f64 = self.prop("pr.damping-factor");
            let it: usize = self.prop("pr.num-iterations");
            let cdlp_it: usize = self.prop("cdlp.max-iterations");
            let orig = |l: &u32| self.ids[*l as usize].to_string();
            vec![
                (
                    "BFS",
                    bfs(g, bfs_src).iter().map(|x| x.to_string()).collect(),
                ),
                ("CDLP", cdlp(g, cdlp_it).iter().map(orig).collect()),
                ("LCC", lcc(g).iter().map(|&x| format_float(x)).collect()),
                (
                    "PR",
                    pagerank(g, d, it)
                        .iter()
                        .map(|&x| format_float(x))
                        .collect(),
                ),
                (
                    "SSSP",
                    sssp(g, sssp_src)
                        .iter()
                        .map(|&x| Ldbc(x).to_string())
                        .collect(),
                ),
                ("WCC", wcc(g).iter().map(orig).collect()),
            ]
        }
    }

    pub(crate) const EXAMPLES: [&str; 2] = ["example-directed", "example-undirected"];

    #[test]
    fn examples_reproduce_graphalytics_outputs() {
        for name in EXAMPLES {
            let ex = Example::read(name);
            let g = ex.graph();
            assert_eq!(g.n, ex.props["meta.vertices"].parse::<usize>().unwrap());
            for (algo, values) in ex.outputs(&g) {
                let text: String = ex
                    .ids
                    .iter()
                    .zip(&values)
                    .map(|(id, v)| format!("{id} {v}\n"))
                    .collect();
                let expected = ex.expected(algo);
                let rule = rule_for(algo).unwrap();
                validate_text(&text, &expected, rule)
                    .unwrap_or_else(|e| panic!("{name} {algo}: {e}\n{text}"));
                // Integers and labels are byte for byte; floats too, as it happens.
                assert_eq!(text, expected, "{name} {algo}: not byte-identical");
            }
        }
    }

    fn build(
        dir: &Path,
        directed: bool,
        weighted: bool,
        vertices: &[u64],
        edges: &[(u64, u64, f64)],
    ) -> Store {
        crate::progress::set_quiet(true);
        let mut src = VecSource::new(edges.iter().copied());
        src.vertices = vertices.to_vec();
        let opts = BuildOptions {
            directed,
            weighted,
            ..BuildOptions::default()
        };
        let dest = dir.join("g.oc");
        build_store(&mut src, &dest, &opts).expect("build");
        Store::open(&dest).expect("open")
    }

    #[test]
    fn examples_through_a_store() {
        for name in EXAMPLES {
            let ex = Example::read(name);
            let tmp = tempfile::tempdir().unwrap();
            let store = build(tmp.path(), ex.directed, true, &ex.ids, &ex.edges);
            // In rank order, the graph is the example's (ranks = indices of
            // its sorted ids), so the outputs are indexed by rank.
            let g = MemGraph::load(&store).unwrap().in_rank_order();
            assert_eq!(g, ex.graph(), "{name}");
            let ids = store.load_ids().unwrap();
            for (algo, values) in ex.outputs(&g) {
                let out = tmp.path().join(format!("{name}-{algo}"));
                let value = |v: u64| &values[ids.rank(v) as usize];
                if matches!(algo, "CDLP" | "WCC") {
                    // Labels (ranks) printed through the id map.
                    write_vertex_labels(&out, &store, |v| {
                        ex.dense(value(v).parse().unwrap()) as u64
                    })
                } else {
                    write_vertex_values(&out, &store, value)
                }
                .unwrap();
                validate(&out, &ex.expected_path(algo), rule_for(algo).unwrap())
                    .unwrap_or_else(|e| panic!("{name} {algo}: {e}"));
            }
            let left: Vec<_> = std::fs::read_dir(tmp.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|f| f.contains("tmp"))
                .collect();
            assert!(left.is_empty(), "temporary files left: {left:?}");
        }
    }

    #[test]
    fn load_matches_from_edges() {
        // Original ids with gaps, duplicates (last weight wins), self-loops,
        // both orientations of an undirected edge, isolated vertices.
        let orig = [3u64, 10, 11, 40, 41, 99, 1000];
        let edges = [
            (10, 3, 0.5),
            (3, 10, 1.5),
            (3, 10, 2.5),
            (11, 11, 4.0),
            (40, 3, 1.0),
            (41, 40, 7.0),
            (40, 41, 8.0),
            (10, 3, 0.25),
            (1000, 11, 3.0),
        ];
        let rank = |id: u64| orig.binary_search(&id).unwrap() as u32;
        let dense: Vec<(u32, u32, f64)> = edges
            .iter()
            .map(|&(s, d, w)| (rank(s), rank(d), w))
            .collect();
        for directed in [true, false] {
            for weighted in [true, false] {
                let tmp = tempfile::tempdir().unwrap();
                let store = build(tmp.path(), directed, weighted, &orig, &edges);
                let g = MemGraph::load(&store).unwrap().in_rank_order();
                let mut want = MemGraph::from_edges(orig.len(), directed, &dense);
                if !weighted {
                    want.weighted = false;
                    for l in want.out.iter_mut().chain(want.inn.iter_mut()) {
                        for e in l {
                            e.1 = 1.0;
                        }
                    }
                }
                assert_eq!(g, want, "directed {directed} weighted {weighted}");
                let ids = store.load_ids().unwrap();
                for (r, &o) in orig.iter().enumerate() {
                    let r = r as u64;
                    assert_eq!(ids.original_of_rank(r), o);
                    assert_eq!(ids.get(ids.dense_of_rank(r)), o);
                    assert_eq!(ids.rank(ids.dense_of_rank(r)), r);
                    assert_eq!(
                        ids.dense_of_original(o, orig.len() as u64),
                        Some(ids.dense_of_rank(r))
                    );
                }
                assert_eq!(ids.dense_of_original(4, orig.len() as u64), None);
                // 10 (rank 1) has fewer neighbours than 11 and 40 (ranks 2, 3).
                assert!(!ids.order_is_identity());
            }
        }
    }

    #[test]
    fn from_edges_semantics() {
        let g = MemGraph::from_edges(3, true, &[(0, 1, 1.0), (0, 1, 2.0), (2, 2, 3.0)]);
        assert_eq!(g.out, vec![vec![(1, 2.0)], vec![], vec![(2, 3.0)]]);
        assert_eq!(g.inn, vec![vec![], vec![(0, 2.0)], vec![(2, 3.0)]]);
        let g = MemGraph::from_edges(3, false, &[(0, 1, 1.0), (1, 0, 3.0), (2, 2, 5.0)]);
        assert_eq!(g.out, vec![vec![(1, 3.0)], vec![(0, 3.0)], vec![(2, 5.0)]]);
        assert_eq!(g.inn, g.out);
        let g = MemGraph::from_edges(4, false, &[(3, 0, 1.0), (0, 2, 1.0), (1, 0, 1.0)]);
        assert_eq!(g.out[0], vec![(1, 1.0), (2, 1.0), (3, 1.0)]);
    }

    #[test]
    fn empty_graph() {
        let g = MemGraph::from_edges(0, true, &[]);
        assert!(pagerank(&g, 0.85, 10).is_empty());
        assert_eq!(pagerank_tol(&g, 0.85, 10, 1e-9), (vec![], 0));
        assert!(wcc(&g).is_empty());
        assert!(cdlp(&g, 3).is_empty());
        assert!(lcc(&g).is_empty());
        assert!(core_numbers(&g).is_empty());
        assert!(std::panic::catch_unwind(|| bfs(&g, 0)).is_err());
    }

    #[test]
    fn isolated_vertices() {
        for directed in [true, false] {
            let g = MemGraph::from_edges(3, directed, &[]);
            let pr = pagerank(&g, 0.85, 5);
            assert!(pr.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15), "{pr:?}");
            assert_eq!(bfs(&g, 1), vec![BFS_UNREACHABLE, 0, BFS_UNREACHABLE]);
            assert_eq!(sssp(&g, 0), vec![0.0, f64::INFINITY, f64::INFINITY]);
            assert_eq!(wcc(&g), vec![0, 1, 2]);
            assert_eq!(cdlp(&g, 4), vec![0, 1, 2]);
            assert_eq!(lcc(&g), vec![0.0; 3]);
            assert_eq!(core_numbers(&g), vec![0; 3]);
            assert_eq!(khop(&g, 2, 5), vec![2]);
        }
    }

    #[test]
    fn directed_vs_undirected() {
        let e = [(0, 1, 1.0), (1, 2, 1.0), (3, 2, 1.0)];
        let d = MemGraph::from_edges(5, true, &e);
        let u = MemGraph::from_edges(5, false, &e);
        let x = BFS_UNREACHABLE;
        assert_eq!(bfs(&d, 2), vec![x, x, 0, x, x]);
        assert_eq!(bfs(&u, 2), vec![2, 1, 0, 1, x]);
        assert_eq!(bfs(&d, 0), vec![0, 1, 2, x, x]);
        assert_eq!(wcc(&d), vec![0, 0, 0, 0, 4]);
        assert_eq!(wcc(&u), vec![0, 0, 0, 0, 4]);
        assert_eq!(khop(&d, 1, 3), vec![1, 2]);
        assert_eq!(khop(&u, 1, 1), vec![0, 1, 2]);
        // Vertex 0 linked both ways with 3 and one way with 1 and 2: directed
        // sees label 3 twice; undirected sees {1, 2, 3} once each, a tie.
        let e = [(0, 3, 1.0), (3, 0, 1.0), (0, 1, 1.0), (2, 0, 1.0)];
        assert_eq!(cdlp(&MemGraph::from_edges(4, true, &e), 1)[0], 3);
        assert_eq!(cdlp(&MemGraph::from_edges(4, false, &e), 1)[0], 1);
        // LCC: direction ignored for neighbours, respected for links.
        // N(0) = {1, 2}; directed: only 1 -> 2 of 2 possible.
        let e = [(0, 1, 1.0), (2, 0, 1.0), (1, 2, 1.0)];
        assert_eq!(lcc(&MemGraph::from_edges(3, true, &e)), vec![0.5; 3]);
        assert_eq!(lcc(&MemGraph::from_edges(3, false, &e)), vec![1.0; 3]);
    }

    #[test]
    fn self_loops() {
        // Directed: 0 -> 0, 0 -> 1 (1 is a sink). One iteration by hand.
        let g = MemGraph::from_edges(2, true, &[(0, 0, 1.0), (0, 1, 1.0)]);
        let pr = pagerank(&g, 0.85, 1);
        let want = [
            0.075 + 0.85 * 0.25 + 0.425 * 0.5,
            0.075 + 0.85 * 0.25 + 0.425 * 0.5,
        ];
        assert!((pr[0] - want[0]).abs() < 1e-15 && (pr[1] - want[1]).abs() < 1e-15);
        // Undirected: 0 - 0, 0 - 1: deg(0) = 2 (the loop once), deg(1) = 1.
        let g = MemGraph::from_edges(2, false, &[(0, 0, 1.0), (0, 1, 1.0)]);
        let pr = pagerank(&g, 0.85, 1);
        assert!((pr[0] - 0.7125).abs() < 1e-15, "{pr:?}");
        assert!((pr[1] - 0.2875).abs() < 1e-15, "{pr:?}");
        // A triangle with a self-loop: LCC and cores ignore the loop.
        let e = [
            (0, 1, 1.0),
            (1, 2, 1.0),
            (2, 0, 1.0),
            (0, 0, 1.0),
            (2, 3, 1.0),
        ];
        for directed in [true, false] {
            let g = MemGraph::from_edges(4, directed, &e);
            assert_eq!(core_numbers(&g), vec![2, 2, 2, 1]);
            let l = lcc(&g);
            let third = if directed { 1.0 / 6.0 } else { 1.0 / 3.0 };
            let want = if directed {
                [0.5, 0.5, third, 0.0]
            } else {
                [1.0, 1.0, third, 0.0]
            };
            assert_eq!(l, want, "directed {directed}");
            assert_eq!(sssp(&g, 0)[0], 0.0);
            assert_eq!(bfs(&g, 0)[0], 0);
        }
        // CDLP: a directed self-loop is an out- and an in-neighbour (twice).
        // Vertex 1: out {1, 0}, in {1, 2} -> labels 1, 0, 1, 2 -> 1.
        let g = MemGraph::from_edges(3, true, &[(1, 1, 1.0), (1, 0, 1.0), (2, 1, 1.0)]);
        assert_eq!(cdlp(&g, 1)[1], 1);
        // Undirected: neighbours {0, 1, 2} once each -> tie -> 0.
        let g = MemGraph::from_edges(3, false, &[(1, 1, 1.0), (1, 0, 1.0), (2, 1, 1.0)]);
        assert_eq!(cdlp(&g, 1)[1], 0);
    }

    /// A deterministic pseudo-random graph with sinks, self-loops and duplicates.
    fn random_graph(n: usize, m: usize, directed: bool, seed: u64) -> MemGraph {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as usize
        };
        let edges: Vec<(u32, u32, f64)> = (0..m)
            .map(|_| {
                // Vertices of the top quarter get no out-edges: sinks.
                let a = next() % (n * 3 / 4).max(1);
                let b = next() % n;
                (a as u32, b as u32, (next() % 1000) as f64 / 100.0)
            })
            .collect();
        MemGraph::from_edges(n, directed, &edges)
    }

    #[test]
    fn pagerank_sums_to_one() {
        for (i, directed) in [true, false].into_iter().enumerate() {
            for n in [1, 2, 7, 50, 300] {
                let g = random_graph(n, n * 3, directed, 17 + n as u64 + i as u64);
                for it in [0, 1, 2, 20] {
                    let pr = pagerank(&g, 0.85, it);
                    let sum: f64 = pr.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-12, "n {n} it {it}: sum {sum}");
                }
                let (pr, iters) = pagerank_tol(&g, 0.85, 1000, 1e-13);
                assert!(iters < 1000, "n {n}: no convergence");
                let fixed = pagerank(&g, 0.85, iters);
                assert_eq!(pr, fixed);
                let more = pagerank(&g, 0.85, iters + 50);
                let l1: f64 = pr.iter().zip(&more).map(|(a, b)| (a - b).abs()).sum();
                assert!(l1 < 1e-11, "n {n}: {l1}");
                assert_eq!(pagerank_tol(&g, 0.85, 7, 0.0).1, 7);
            }
        }
    }

    #[test]
    fn core_numbers_by_hand() {
        // K4 on 0..3, vertex 4 joined to 0 and 1, 5 hanging off 4, 6 isolated.
        let mut e = vec![(4, 0, 1.0), (1, 4, 1.0), (5, 4, 1.0)];
        for a in 0..4u32 {
            for b in a + 1..4 {
                e.push((a, b, 1.0));
            }
        }
        let want = vec![3, 3, 3, 3, 2, 1, 0];
        assert_eq!(core_numbers(&MemGraph::from_edges(7, false, &e)), want);
        assert_eq!(core_numbers(&MemGraph::from_edges(7, true, &e)), want);
        // Both directions of every edge: still the simple undirected graph.
        let both: Vec<_> = e
            .iter()
            .flat_map(|&(a, b, w)| [(a, b, w), (b, a, w)])
            .collect();
        assert_eq!(core_numbers(&MemGraph::from_edges(7, true, &both)), want);
        // A cycle is a 2-core; a path a 1-core.
        let cycle: Vec<_> = (0..5u32).map(|i| (i, (i + 1) % 5, 1.0)).collect();
        assert_eq!(
            core_numbers(&MemGraph::from_edges(5, true, &cycle)),
            vec![2; 5]
        );
        let path: Vec<_> = (0..4u32).map(|i| (i, i + 1, 1.0)).collect();
        assert_eq!(
            core_numbers(&MemGraph::from_edges(5, false, &path)),
            vec![1; 5]
        );
    }

    #[test]
    fn khop_by_hand() {
        let e = [
            (0, 1, 1.0),
            (1, 2, 1.0),
            (2, 3, 1.0),
            (0, 4, 1.0),
            (4, 4, 1.0),
        ];
        let g = MemGraph::from_edges(6, true, &e);
        assert_eq!(khop(&g, 0, 0), vec![0]);
        assert_eq!(khop(&g, 0, 1), vec![0, 1, 4]);
        assert_eq!(khop(&g, 0, 2), vec![0, 1, 2, 4]);
        assert_eq!(khop(&g, 0, u32::MAX), vec![0, 1, 2, 3, 4]);
        assert_eq!(khop(&g, 3, 10), vec![3]);
        let u = MemGraph::from_edges(6, false, &e);
        assert_eq!(khop(&u, 3, 1), vec![2, 3]);
        assert_eq!(khop(&u, 3, 3), vec![0, 1, 2, 3]);
        assert_eq!(khop(&u, 5, 3), vec![5]);
    }

    #[test]
    fn sssp_by_hand() {
        // The fewest hops is not the shortest path; 4 is unreachable.
        let e = [
            (0, 1, 5.0),
            (0, 2, 1.0),
            (2, 1, 1.0),
            (1, 3, 1.0),
            (4, 0, 1.0),
            (3, 3, 0.0),
        ];
        let g = MemGraph::from_edges(5, true, &e);
        assert_eq!(sssp(&g, 0), vec![0.0, 2.0, 1.0, 3.0, f64::INFINITY]);
        let u = MemGraph::from_edges(5, false, &e);
        assert_eq!(sssp(&u, 3), vec![3.0, 1.0, 2.0, 0.0, 4.0]);
        assert_eq!(bfs(&g, 0), vec![0, 1, 1, 2, BFS_UNREACHABLE]);
    }

    #[test]
    fn wcc_and_cdlp_on_components() {
        // Two components {0, 2, 5} and {1, 3}, 4 alone; labels are the minima.
        let e = [(5, 2, 1.0), (2, 0, 1.0), (3, 1, 1.0)];
        let g = MemGraph::from_edges(6, true, &e);
        assert_eq!(wcc(&g), vec![0, 1, 0, 1, 4, 0]);
        // CDLP round 1 (directed, in + out): 0 <- {2}; 1 <- {3}; 2 <- {0, 5}
        // tie -> 0; 3 <- {1}; 5 <- {2}.
        assert_eq!(cdlp(&g, 1), vec![2, 3, 0, 1, 4, 2]);
        assert_eq!(cdlp(&g, 0), vec![0, 1, 2, 3, 4, 5]);
        // Round 2 from (2, 3, 0, 1, 4, 2): 0 <- {0}; 1 <- {1}; 2 <- {2, 2};
        // 3 <- {3}; 5 <- {0}.
        assert_eq!(cdlp(&g, 2), vec![0, 1, 2, 3, 4, 0]);
    }

    #[test]
    fn labels_are_ranks_under_any_vertex_order() {
        // The graph of `wcc_and_cdlp_on_components` with dense ids permuted:
        // dense v has rank perm[v]; labels must be the same ranks.
        let e = [(5u32, 2u32, 1.0), (2, 0, 1.0), (3, 1, 1.0)];
        let perm = [4u32, 2, 5, 0, 3, 1]; // dense -> rank
        let mut dense_of = [0u32; 6];
        for (v, &r) in perm.iter().enumerate() {
            dense_of[r as usize] = v as u32;
        }
        let moved: Vec<_> = e
            .iter()
            .map(|&(a, b, w)| (dense_of[a as usize], dense_of[b as usize], w))
            .collect();
        for directed in [true, false] {
            let base = MemGraph::from_edges(6, directed, &e);
            let mut g = MemGraph::from_edges(6, directed, &moved);
            g.rank = perm.to_vec();
            assert_eq!(g.in_rank_order(), base);
            let (w0, w1) = (wcc(&base), wcc(&g));
            let (c0, c1) = (cdlp(&base, 2), cdlp(&g, 2));
            for v in 0..6 {
                let r = perm[v] as usize;
                assert_eq!(w1[v], w0[r], "wcc of dense {v}");
                assert_eq!(c1[v], c0[r], "cdlp of dense {v}");
            }
        }
    }
}
