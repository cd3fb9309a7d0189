//! The references against the Graphalytics examples, directly and through a store.

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

pub(super) fn build(
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
                write_vertex_labels(&out, &store, |v| ex.dense(value(v).parse().unwrap()) as u64)
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
