//! Shared helpers: the NetworkX-semantics reference edge set and store export.
#![allow(dead_code)]

use outcore::ingest::build::{BuildOptions, BuildReport};
use outcore::ingest::VecSource;
use outcore::store::export::{export, Layout};
use outcore::store::{Store, VertexOrder};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod passes;
pub mod programs;
pub use passes::Passes;

/// Edges keyed by (src, dst) with the last weight seen, as a NetworkX
/// Graph/DiGraph built with `add_edges_from` holds them; undirected keys are
/// (min, max).
pub fn reference(
    edges: &[(u64, u64, f64)],
    directed: bool,
    drop_loops: bool,
) -> BTreeMap<(u64, u64), f64> {
    let mut m = BTreeMap::new();
    for &(s, d, w) in edges {
        if drop_loops && s == d {
            continue;
        }
        let k = if directed {
            (s, d)
        } else {
            (s.min(d), s.max(d))
        };
        m.insert(k, w);
    }
    m
}

/// The vertex set: every endpoint plus the listed isolated vertices.
/// Dropping self-loops keeps their vertices.
pub fn reference_vertices(edges: &[(u64, u64, f64)], isolated: &[u64]) -> BTreeSet<u64> {
    let mut v: BTreeSet<u64> = isolated.iter().copied().collect();
    for &(s, d, _) in edges {
        v.insert(s);
        v.insert(d);
    }
    v
}

/// Builds a store from edges with the given options.
pub fn build(
    dir: &Path,
    edges: &[(u64, u64, f64)],
    isolated: &[u64],
    opts: &BuildOptions,
) -> BuildReport {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().copied());
    src.vertices = isolated.to_vec();
    outcore::api::build(&mut src, &dir.join("g.oc"), opts).expect("build")
}

/// Exports a layout and parses it back.
pub fn exported(store: &Store, layout: Layout, both: bool) -> Vec<(u64, u64, f64)> {
    let out = store
        .path()
        .with_extension(format!("{layout:?}-{both}.txt"));
    export(store, layout, both, &out).expect("export");
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let w = f.get(2).map_or(1.0, |w| w.parse().unwrap());
            (f[0].parse().unwrap(), f[1].parse().unwrap(), w)
        })
        .collect()
}

/// A store of `n` dense vertices (0..n, isolated ones included) from weighted
/// edges; small groups so several groups appear on small graphs. Dense ids
/// go by degree (the default order): original id `v` is dense id
/// [`dense_id`]`(store, v)`.
pub fn dense_store(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    directed: bool,
    weighted: bool,
) -> Store {
    dense_store_in(dir, n, edges, directed, weighted, VertexOrder::Degree)
}

/// [`dense_store`] with the given vertex order.
pub fn dense_store_in(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    directed: bool,
    weighted: bool,
    order: VertexOrder,
) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().copied());
    src.dense = Some(n);
    let opts = BuildOptions {
        directed,
        weighted,
        memory: 256 << 20,
        group_tiles: 2,
        order,
        ..Default::default()
    };
    Store::open(
        &outcore::api::build(&mut src, &dir.join("g.oc"), &opts)
            .unwrap()
            .path,
    )
    .unwrap()
}

/// The same for unweighted edges.
pub fn unweighted_store(dir: &Path, n: u64, edges: &[(u64, u64)], directed: bool) -> Store {
    unweighted_store_in(dir, n, edges, directed, VertexOrder::Degree)
}

/// [`unweighted_store`] with the given vertex order.
pub fn unweighted_store_in(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64)],
    directed: bool,
    order: VertexOrder,
) -> Store {
    let e: Vec<(u64, u64, f64)> = edges.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    dense_store_in(dir, n, &e, directed, false, order)
}

/// The dense id of original id `v` in `store`.
pub fn dense_id(store: &Store, v: u64) -> u64 {
    store
        .load_ids()
        .unwrap()
        .dense_of_original(v, store.manifest().num_vertices)
        .unwrap_or_else(|| panic!("{v} is not a vertex"))
}

/// Edges in original ids as edges in the dense ids of `store`.
pub fn to_dense(store: &Store, edges: &[(u64, u64, f64)]) -> Vec<(u32, u32, f64)> {
    let ids = store.load_ids().unwrap();
    let n = store.manifest().num_vertices;
    let d = |v: u64| ids.dense_of_original(v, n).expect("a vertex") as u32;
    edges.iter().map(|&(s, t, w)| (d(s), d(t), w)).collect()
}

/// `../shared/data/graphalytics`.
pub fn graphalytics_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/graphalytics")
}

/// The parameters of a Graphalytics example (`NAME.properties`), keys
/// without the `graph.NAME.` prefix.
pub fn graphalytics_properties(name: &str) -> std::collections::HashMap<String, String> {
    let text =
        std::fs::read_to_string(graphalytics_dir().join(format!("{name}.properties"))).unwrap();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && l.contains('='))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (
                k.trim()
                    .trim_start_matches(&format!("graph.{name}."))
                    .to_string(),
                v.trim().to_string(),
            )
        })
        .collect()
}

/// Imports the Graphalytics example `name` (`.v` + `.e`, weighted) into a store under `dir`.
pub fn import_graphalytics(dir: &Path, name: &str, directed: bool) -> Store {
    import_graphalytics_in(dir, name, directed, VertexOrder::Degree)
}

/// [`import_graphalytics`] with the given vertex order.
pub fn import_graphalytics_in(dir: &Path, name: &str, directed: bool, order: VertexOrder) -> Store {
    use outcore::ingest::parse::{self, InputFormat, ParseOptions};
    outcore::progress::set_quiet(true);
    let inputs = vec![
        graphalytics_dir().join(format!("{name}.v")),
        graphalytics_dir().join(format!("{name}.e")),
    ];
    let popts = ParseOptions {
        weighted: true,
        directed,
        ..Default::default()
    };
    let mut src = parse::open(&inputs, InputFormat::Ldbc, &popts).unwrap();
    let opts = BuildOptions {
        directed,
        weighted: true,
        memory: 256 << 20,
        order,
        force: true,
        ..Default::default()
    };
    Store::open(
        &outcore::api::build(src.as_mut(), &dir.join(format!("{name}.oc")), &opts)
            .unwrap()
            .path,
    )
    .unwrap()
}

/// A xorshift generator for test graphs (seeded from proptest's seeds).
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every file under `p`, recursively.
pub fn walkdir(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap() {
        let e = e.unwrap().path();
        if e.is_dir() {
            out.extend(walkdir(&e));
        } else {
            out.push(e);
        }
    }
    out
}

/// Every file of a store by its path inside the store, the manifest's
/// timings (`build.seconds`, `build.created_unix`) zeroed and its own
/// checksum (which covers them) dropped.
pub fn store_files(store: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir(store)
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(store)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mut bytes = std::fs::read(&p).unwrap();
            if rel == "manifest.json" {
                let mut m: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                m["build"]["seconds"] = 0.into();
                m["build"]["created_unix"] = 0.into();
                m.as_object_mut().unwrap().remove("checksum");
                bytes = m.to_string().into_bytes();
            }
            (rel, bytes)
        })
        .collect()
}

/// `m` random unit-weight arcs on `0..n`, a quarter from three hubs.
pub fn hub_edges(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let s = if i % 4 == 0 {
                r.below(3.min(n))
            } else {
                r.below(n)
            };
            (s, r.below(n), 1.0)
        })
        .collect()
}

/// Removes a store's CSR page sums, as in a store built before they
/// existed (the manifest loses its own checksum with the edit), so the
/// checks of the lists' structure are what damage to them meets.
pub fn drop_csr_page_sums(store: &Path) {
    let path = store.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(m["csr"]["page_sums"], true);
    // Edited, the manifest loses its own checksum (an older store's).
    assert!(m.as_object_mut().unwrap().remove("checksum").is_some());
    m["csr"].as_object_mut().unwrap().remove("page_sums");
    let files = m["files"].as_object_mut().unwrap();
    let sums: Vec<String> = files
        .keys()
        .filter(|f| f.ends_with(".xxh") && f.starts_with("csr/"))
        .cloned()
        .collect();
    assert!(!sums.is_empty());
    for f in sums {
        files.remove(&f);
        std::fs::remove_file(store.join(f)).unwrap();
    }
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

/// A reference's u32 labels as the u64 labels the library returns.
pub fn wide(labels: Vec<u32>) -> Vec<u64> {
    labels.into_iter().map(u64::from).collect()
}
