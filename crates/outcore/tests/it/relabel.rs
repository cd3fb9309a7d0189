//! `ingest::build::relabel`: a store relabelled by a permutation is the
//! store built from the input with every vertex given its new id, byte for
//! byte (the oracle is the build in the original order of the renamed
//! input), and its order maps send each new id back to the original id.

use crate::common;
use outcore::ingest::build::{relabel, BuildOptions};
use outcore::mem::Budget;
use outcore::store::verify::verify;
use outcore::store::{Manifest, Store, VertexOrder};
use std::collections::BTreeMap;
use std::path::Path;

/// A small xorshift generator (deterministic cases).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every file of `dir` but the manifest and the order maps, by name.
fn data_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if !["manifest.json", "order.bin", "order.inv"].contains(&rel.as_str()) {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The manifest as JSON without its timings, checksum, order and the
/// order maps' entries.
fn facts(m: &Manifest) -> serde_json::Value {
    let mut j: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
    let o = j.as_object_mut().unwrap();
    for k in ["checksum", "vertex_order", "has_order_map"] {
        o.remove(k);
    }
    let b = o["build"].as_object_mut().unwrap();
    b.remove("seconds");
    b.remove("created_unix");
    let f = o["files"].as_object_mut().unwrap();
    f.remove("order.bin");
    f.remove("order.inv");
    j
}

/// Builds `edges` over the ids `0..n` (all present) in `first` order,
/// relabels it by a random permutation, and compares the result with the
/// build of the input renamed to the new ids in the original order.
fn check(seed: u64, directed: bool, weighted: bool, compress: bool, first: VertexOrder) {
    let mut rng = Rng(seed | 1);
    let n = 3000 + rng.below(500);
    let mut edges: Vec<(u64, u64, f64)> = (0..20_000)
        .map(|_| {
            // Hubs among the low ids, so the degree order moves them.
            let s = match rng.below(4) {
                0 => rng.below(8),
                _ => rng.below(n),
            };
            (s, rng.below(n), rng.below(1000) as f64 / 8.0)
        })
        .collect();
    // Duplicates (the last weight wins) and self-loops.
    edges.extend_from_within(..100);
    edges.extend((0..20).map(|i| (i * 7, i * 7, 0.5)));
    let all: Vec<u64> = (0..n).collect();
    let opts = BuildOptions {
        directed,
        weighted,
        compress,
        order: first,
        group_tiles: 2,
        memory: 256 << 20,
        ..Default::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    for d in [&a, &c] {
        std::fs::create_dir(d).unwrap();
    }
    let old = Store::open(&common::build(&a, &edges, &all, &opts).path).unwrap();
    assert_eq!(old.manifest().vertex_order, first);
    // A random permutation of the old dense ids.
    let mut new_of_old: Vec<u32> = (0..n as u32).collect();
    for i in (1..n as usize).rev() {
        new_of_old.swap(i, rng.below(i as u64 + 1) as usize);
    }
    // The old dense id of each original id (= rank: the ids are 0..n).
    let mut old_of_orig: Vec<u32> = (0..n as u32).collect();
    if let Some(ranks) = old.load_ranks().unwrap() {
        for (v, &r) in ranks.iter().enumerate() {
            old_of_orig[r as usize] = v as u32;
        }
    }
    let new_of = |x: u64| new_of_old[old_of_orig[x as usize] as usize] as u64;
    let budget = Budget::new(opts.memory);
    let r = relabel(
        &old,
        &b,
        new_of_old.clone(),
        VertexOrder::Bfs,
        &opts,
        &budget,
    )
    .unwrap();
    verify(&r.path).unwrap();
    let got = Store::open(&r.path).unwrap();
    // The oracle: the input renamed, built in its own order.
    let renamed: Vec<(u64, u64, f64)> = edges
        .iter()
        .map(|&(s, d, w)| (new_of(s), new_of(d), w))
        .collect();
    let want_opts = BuildOptions {
        order: VertexOrder::Original,
        ..opts.clone()
    };
    let want = Store::open(&common::build(&c, &renamed, &all, &want_opts).path).unwrap();
    let case = format!(
        "seed {seed} directed {directed} weighted {weighted} compress {compress} first {first}"
    );
    let (g, w) = (data_files(got.path()), data_files(want.path()));
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        w.keys().collect::<Vec<_>>(),
        "{case}"
    );
    for (k, bytes) in &g {
        assert!(*bytes == w[k], "{case}: {k} differs");
    }
    assert_eq!(facts(got.manifest()), facts(want.manifest()), "{case}");
    assert_eq!(got.manifest().vertex_order, VertexOrder::Bfs);
    // order.bin: the new dense id's original id.
    let ranks = got.load_ranks().unwrap().expect("an order map");
    for x in 0..n {
        assert_eq!(ranks[new_of(x) as usize] as u64, x, "{case}");
    }
}

#[test]
fn a_permutation_relabels_as_the_renamed_input_builds() {
    outcore::progress::set_quiet(true);
    let mut seed = 11;
    for directed in [true, false] {
        for weighted in [false, true] {
            for compress in [false, true] {
                for first in [VertexOrder::Original, VertexOrder::Degree] {
                    seed += 1;
                    check(seed, directed, weighted, compress, first);
                }
            }
        }
    }
}

/// The identity composed with the old order is no order map at all, and
/// new ids that are no permutation are refused.
#[test]
fn identity_keeps_no_order_map_and_a_non_permutation_is_refused() {
    outcore::progress::set_quiet(true);
    let dir = tempfile::tempdir().unwrap();
    let edges = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (3, 0, 1.0)];
    let opts = BuildOptions {
        order: VertexOrder::Original,
        ..Default::default()
    };
    let old = Store::open(&common::build(dir.path(), &edges, &[], &opts).path).unwrap();
    let budget = Budget::new(opts.memory);
    let out = dir.path().join("same");
    let r = relabel(
        &old,
        &out,
        vec![0, 1, 2, 3],
        VertexOrder::Original,
        &opts,
        &budget,
    )
    .unwrap();
    assert!(!r.manifest.has_order_map);
    assert!(!out.join("order.bin").exists());
    let bad = dir.path().join("bad");
    for ids in [vec![0, 1, 1, 3], vec![0, 1, 2], vec![0, 1, 2, 4]] {
        let e = relabel(&old, &bad, ids, VertexOrder::Bfs, &opts, &budget).unwrap_err();
        assert!(e.to_string().contains("relabel"), "{e}");
        assert!(!bad.exists());
    }
}
