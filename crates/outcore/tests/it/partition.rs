//! Partitioned stores (`outcore partition`): each shard holds exactly the
//! store's edges with an endpoint it owns (so their union is the store,
//! and owned out- and in-lists are complete), in original ids through the
//! one id map; K = 1 is the store's graph; shards verify and run; edges
//! balance on Kronecker graphs; damage is reported naming the shard.

use crate::common::Rng;
use outcore::api::partition::{partition, verify_partition, Partition, PartitionOptions};
use outcore::gen::{self, GenConfig, GenKind};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::ingest::VecSource;
use outcore::store::csrscan::scan_csr;
use outcore::store::export::{for_each_edge, Layout};
use outcore::store::{Store, VertexOrder};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

fn opts(parts: usize) -> PartitionOptions {
    PartitionOptions {
        parts,
        memory: 256 << 20,
        force: false,
        scratch_dir: None,
    }
}

/// Edges keyed by original ids as text, (min, max) when undirected.
type Edges = BTreeMap<(String, String), u64>;

fn key(directed: bool, s: String, d: String) -> (String, String) {
    match directed || s <= d {
        true => (s, d),
        false => (d, s),
    }
}

/// The store's edges in original ids, weights as bits.
fn store_edges(store: &Store) -> Edges {
    let directed = store.manifest().directed;
    let mut e = Edges::new();
    for_each_edge(store, Layout::Csr, false, |s, d, w| {
        e.insert(key(directed, s.to_string(), d.to_string()), w.to_bits());
        Ok(())
    })
    .unwrap();
    e
}

/// Checks the partition at `dir` of `store`: every shard holds exactly the
/// store's edges with an endpoint it owns, in original ids through the
/// partition's id map, and every shard verifies.
fn check(store: &Store, dir: &Path) {
    let p = Partition::open(dir).unwrap();
    let pm = p.manifest();
    let ids = p.load_ids().unwrap();
    let n = pm.num_vertices;
    assert_eq!(n, store.manifest().num_vertices);
    let global: HashMap<String, u64> = (0..n).map(|g| (ids.get(g).to_string(), g)).collect();
    let all = store_edges(store);
    let directed = pm.directed;
    let mut union = Edges::new();
    for k in 0..pm.parts as usize {
        let shard = p.open_shard(k).unwrap();
        let mut got = Edges::new();
        // The shard's own original ids are global ids.
        for_each_edge(&shard, Layout::Csr, false, |s, d, w| {
            let (s, d) = (s.as_u64().unwrap(), d.as_u64().unwrap());
            let (s, d) = (ids.get(s).to_string(), ids.get(d).to_string());
            got.insert(key(directed, s, d), w.to_bits());
            Ok(())
        })
        .unwrap();
        let want: Edges = (all.iter())
            .filter(|((s, d), _)| pm.owner(global[s]) == k || pm.owner(global[d]) == k)
            .map(|(e, w)| (e.clone(), *w))
            .collect();
        assert_eq!(got.len(), want.len(), "shard {k} of {}", pm.parts);
        assert!(
            got == want,
            "shard {k} of {}: not the edges of its vertices",
            pm.parts
        );
        assert_eq!(pm.shards[k].edges, got.len() as u64);
        union.extend(got);
    }
    assert!(union == all, "the shards' union is not the store");
    verify_partition(dir).unwrap();
}

fn random_edges(seed: u64, n: u64, m: usize) -> Vec<(u64, u64, f64)> {
    let mut rng = Rng::new(seed);
    (0..m)
        .map(|_| {
            // Skewed: low ids are hubs; ids spread out (an id map).
            let s = rng.below(n).min(rng.below(n)) * 7 + 3;
            let d = rng.below(n) * 7 + 3;
            (s, d, (rng.below(1000) as f64) / 8.0)
        })
        .collect()
}

fn build(dir: &Path, edges: &[(u64, u64, f64)], directed: bool, weighted: bool) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().copied());
    src.vertices = vec![1_000_000, 5]; // isolated vertices
    let o = BuildOptions {
        directed,
        weighted,
        memory: 256 << 20,
        group_tiles: 2,
        order: VertexOrder::Degree,
        ..Default::default()
    };
    let path = dir.join("g.oc");
    build_store(&mut src, &path, &o).unwrap();
    Store::open(&path).unwrap()
}

#[test]
fn each_shard_holds_the_edges_of_its_vertices() {
    for (seed, directed, weighted) in [
        (1, true, false),
        (2, false, false),
        (3, true, true),
        (4, false, true),
    ] {
        let d = tempfile::tempdir().unwrap();
        let store = build(d.path(), &random_edges(seed, 300, 3000), directed, weighted);
        for parts in [1, 2, 3, 5] {
            let out = d.path().join(format!("p{parts}"));
            let r = partition(store.path(), &out, &opts(parts)).unwrap();
            assert_eq!(r.manifest.parts, parts as u64);
            check(&store, &out);
        }
    }
}

#[test]
fn string_ids_partition_through_the_one_id_map() {
    let d = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(9);
    let mut text = String::new();
    for _ in 0..2000 {
        let (s, t) = (rng.below(200).min(rng.below(200)), rng.below(200));
        text.push_str(&format!("user-{s},item {t}\n"));
    }
    let csv = d.path().join("e.csv");
    std::fs::write(&csv, text).unwrap();
    let popts = ParseOptions {
        ids: IdKind::String,
        ..Default::default()
    };
    let mut src = parse::open(std::slice::from_ref(&csv), InputFormat::Csv, &popts).unwrap();
    let path = d.path().join("s.oc");
    outcore::progress::set_quiet(true);
    build_store(src.as_mut(), &path, &BuildOptions::default()).unwrap();
    let store = Store::open(&path).unwrap();
    assert!(store.manifest().string_ids);
    for parts in [1, 3] {
        let out = d.path().join(format!("p{parts}"));
        partition(store.path(), &out, &opts(parts)).unwrap();
        check(&store, &out);
    }
}

#[test]
fn one_part_is_the_store_graph_in_its_dense_ids() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(5, 200, 2000), true, true);
    let out = d.path().join("p1");
    partition(store.path(), &out, &opts(1)).unwrap();
    let p = Partition::open(&out).unwrap();
    let shard = p.open_shard(0).unwrap();
    assert!(!shard.manifest().has_id_map, "local ids are the global ids");
    let edges = |s: &Store| {
        let mut e = BTreeSet::new();
        scan_csr(s, "out", true, |v, _, u, w| {
            e.insert((v, u, w.to_bits()));
            Ok(())
        })
        .unwrap();
        e
    };
    assert_eq!(edges(&shard), edges(&store));
    let (a, b) = (p.load_ids().unwrap(), store.load_ids().unwrap());
    for v in 0..store.manifest().num_vertices {
        assert_eq!(a.get(v), b.get(v), "global id {v}");
    }
}

fn kron(dir: &Path, scale: u32) -> Store {
    outcore::progress::set_quiet(true);
    let mut cfg = GenConfig::new(GenKind::Kron);
    cfg.scale = scale;
    let mut src = gen::generator(&cfg).unwrap();
    let o = BuildOptions {
        memory: 256 << 20,
        directed: false,
        order: VertexOrder::Degree,
        compress: true,
        ..Default::default()
    };
    let path = dir.join("k.oc");
    build_store(src.as_mut(), &path, &o).unwrap();
    Store::open(&path).unwrap()
}

#[test]
fn edges_balance_on_kron_16() {
    let d = tempfile::tempdir().unwrap();
    let store = kron(d.path(), 16);
    for parts in 2..=5 {
        let out = d.path().join(format!("p{parts}"));
        let r = partition(store.path(), &out, &opts(parts)).unwrap();
        let b = &r.manifest.balance;
        eprintln!("kron-16 K={parts}: {b:?}");
        assert!(b.max_over_mean <= 1.2, "K = {parts}: {b:?}");
        let stored: Vec<u64> = r.manifest.shards.iter().map(|s| s.edges).collect();
        assert_eq!(b.max_edges, *stored.iter().max().unwrap());
        std::fs::remove_dir_all(&out).unwrap();
    }
}

/// Flips one byte of `file`.
fn flip(file: &Path, at: u64) {
    let mut b = std::fs::read(file).unwrap();
    let i = (at as usize).min(b.len() - 1);
    b[i] ^= 0x20;
    std::fs::write(file, b).unwrap();
}

#[test]
fn damage_is_reported_naming_the_shard() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(6, 300, 3000), true, false);
    let out = d.path().join("p");
    partition(store.path(), &out, &opts(4)).unwrap();
    verify_partition(&out).unwrap();
    let copy = |name: &str| {
        let to = d.path().join(name);
        let status = std::process::Command::new("cp")
            .args(["-r", out.to_str().unwrap(), to.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success());
        to
    };
    for (name, file, needle) in [
        ("edges", "shard-002/tiles/edges.bin", "shard 2 ("),
        ("adj", "shard-003/csr/out.adj", "shard 3 ("),
        ("manifest", "shard-001/manifest.json", "shard 1 ("),
        ("ids", "ids/order.bin", "ids/order.bin"),
        ("json", "partition.json", "partition.json"),
    ] {
        let c = copy(name);
        let f = c.join(file);
        flip(&f, std::fs::metadata(&f).unwrap().len() / 2);
        let e = verify_partition(&c).unwrap_err().to_string();
        assert!(e.contains(needle), "{file}: {e}");
        if file.starts_with("shard-") {
            let shard = c.join(&file[..9]);
            assert!(e.contains(&shard.display().to_string()), "{file}: {e}");
        }
    }
    // Two sound stores swapped: each verifies alone, but not as the
    // shard partition.json lists.
    let c = copy("swapped");
    let (a, b) = (c.join("shard-001"), c.join("shard-002"));
    std::fs::rename(&a, c.join("x")).unwrap();
    std::fs::rename(&b, &a).unwrap();
    std::fs::rename(c.join("x"), &b).unwrap();
    outcore::store::verify::verify(&a).unwrap();
    let e = verify_partition(&c).unwrap_err().to_string();
    assert!(
        e.contains("shard 1 (") && e.contains("does not match the partition"),
        "{e}"
    );
    let e = Partition::open(&c)
        .unwrap()
        .open_shard(2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("shard 2 ("), "{e}");
}

#[test]
fn a_budget_too_small_is_refused_and_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let store = build(d.path(), &random_edges(7, 100, 500), true, false);
    let out = d.path().join("p");
    let mut o = opts(2);
    o.memory = 64 << 20;
    let e = partition(store.path(), &out, &o).unwrap_err().to_string();
    assert!(
        e.contains("memory budget") && e.contains("raise --memory"),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "left behind: {left:?}");
    // And --parts beyond the vertices.
    let e = partition(store.path(), &out, &opts(100_000))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--parts"), "{e}");
}
