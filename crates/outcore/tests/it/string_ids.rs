//! String vertex ids (`--ids string`): a csv of names builds exactly the
//! store the same graph builds with integer ids numbered in the names' byte
//! order (every layout file byte for byte), whether the names, the edges
//! and the ranks stay in memory or spill and merge; the store maps dense ids
//! back to the names and finds a vertex by its name.

use crate::common::{store_files, Rng};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::ingest::VecSource;
use outcore::store::{Id, IdLookup, Store, VertexOrder};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A pool of awkward names: numbers that are not integers in byte order,
/// separators and quotes (quoted in the csv), non-ASCII, long shared prefixes.
fn name_pool(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut pool: Vec<Vec<u8>> = Vec::new();
    for i in 0..n {
        let name = match rng.below(7) {
            0 => format!("{i}"),
            1 => format!("00{i}"),
            2 => format!("user, {i}"),
            3 => format!("say \"{i}\""),
            4 => format!("Zoë-{i}-ünïcode"),
            5 => format!("#{i} with spaces inside"),
            _ => format!("{}{i}", "p".repeat(rng.below(300) as usize)),
        };
        pool.push(name.into_bytes());
    }
    pool.sort();
    pool.dedup();
    pool
}

/// A csv field for `name`, quoted when it needs to be (and sometimes when not).
fn field(rng: &mut Rng, name: &[u8]) -> String {
    let s = String::from_utf8(name.to_vec()).unwrap();
    let must = s.contains(',') || s.contains('"') || s.starts_with('#');
    if must || rng.below(4) == 0 {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

struct Case {
    /// Edges as indices into the sorted pool, in input order.
    edges: Vec<(usize, usize, f64)>,
    pool: Vec<Vec<u8>>,
}

fn case(seed: u64, names: usize, m: usize) -> Case {
    let mut rng = Rng::new(seed);
    let pool = name_pool(&mut rng, names);
    let k = pool.len() as u64;
    let edges = (0..m)
        .map(|i| {
            // A hub, repeats and self-loops.
            let s = if i % 5 == 0 {
                1.min(k - 1)
            } else {
                rng.below(k)
            } as usize;
            let d = if i % 17 == 0 {
                s
            } else {
                rng.below(k) as usize
            };
            (s, d, rng.below(9) as f64 + 0.5)
        })
        .collect();
    Case { edges, pool }
}

/// The layout files of a store (the manifest and id files aside).
fn layout_files(store: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = store_files(store);
    files.retain(|rel, _| !rel.starts_with("ids.") && rel != "manifest.json");
    files
}

fn check(seed: u64, names: usize, m: usize, directed: bool, cap: Option<u64>) {
    outcore::progress::set_quiet(true);
    let c = case(seed, names, m);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(seed ^ 77);
    let mut text = String::new();
    for &(s, d, w) in &c.edges {
        let (a, b) = (field(&mut rng, &c.pool[s]), field(&mut rng, &c.pool[d]));
        text += &format!("{a},{b},{w}\n");
    }
    let csv = dir.path().join("g.csv");
    std::fs::write(&csv, text).unwrap();
    let opts = BuildOptions {
        directed,
        weighted: true,
        memory: 128 << 20,
        sort_buffer_cap: cap,
        order: VertexOrder::Degree,
        ..Default::default()
    };
    let popts = ParseOptions {
        weighted: true,
        ids: IdKind::String,
        ..Default::default()
    };
    let mut src = parse::open(std::slice::from_ref(&csv), InputFormat::Csv, &popts).unwrap();
    let named = build_store(src.as_mut(), &dir.path().join("named.oc"), &opts).unwrap();
    // A sorter holds at least 1024 records.
    if cap.is_some() && m > 2048 {
        assert!(named.spilled_bytes > 0, "seed {seed}: the sorters spilled");
    }
    // The oracle: the same edges with integer ids = rank of the name among
    // the names that occur, every rank a vertex.
    let mut used: Vec<usize> = c.edges.iter().flat_map(|e| [e.0, e.1]).collect();
    used.sort_unstable();
    used.dedup();
    let rank = |i: usize| used.binary_search(&i).unwrap() as u64;
    let mut ints = VecSource::new(c.edges.iter().map(|&(s, d, w)| (rank(s), rank(d), w)));
    ints.dense = Some(used.len() as u64);
    let int = build_store(&mut ints, &dir.path().join("int.oc"), &opts).unwrap();
    assert_eq!(named.manifest.num_vertices, used.len() as u64);
    assert_eq!(named.manifest.num_edges, int.manifest.num_edges);
    assert!(named.manifest.string_ids && !int.manifest.string_ids);
    let (a, b) = (layout_files(&named.path), layout_files(&int.path));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(v == &b[k], "seed {seed}: {k} differs (directed {directed})");
    }
    // Names back from dense ids, and dense ids from names.
    let store = Store::open(&named.path).unwrap();
    outcore::store::verify::verify(&named.path).unwrap();
    let ids = store.load_ids().unwrap();
    let lookup = IdLookup::open(&store).unwrap();
    assert!(lookup.string_ids());
    for v in 0..store.manifest().num_vertices {
        let r = ids.rank(v) as usize;
        let want = Id::Name(c.pool[used[r]].as_slice().into());
        assert_eq!(ids.get(v), want);
        if v % 7 == 0 {
            assert_eq!(lookup.original(v).unwrap(), want);
            let typed = want.to_string();
            assert_eq!(lookup.dense_of_text(&typed).unwrap(), Some(v), "{typed}");
        }
    }
    assert_eq!(lookup.dense_of_text("no such name").unwrap(), None);
}

#[test]
fn string_ids_build_the_integer_store() {
    for (seed, names, m, directed) in [(1, 40, 300, true), (2, 400, 3000, false)] {
        check(seed, names, m, directed, None);
    }
}

#[test]
fn string_ids_spilled_and_merged_build_the_integer_store() {
    // Sorter shares of 64 KiB: edges, names (runs merged over levels) and
    // ranks all go through the disk.
    for (seed, names, m, directed) in [(3, 3000, 20_000, false), (4, 5000, 12_000, true)] {
        check(seed, names, m, directed, Some(64 << 10));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn csv_of_names_builds_the_store_of_its_ranks(
        seed in any::<u64>(),
        names in 1usize..600,
        m in 1usize..4000,
        directed in any::<bool>(),
        spill in any::<bool>(),
    ) {
        check(seed, names, m, directed, spill.then_some(64 << 10));
    }
}

#[test]
fn store_of_names_finds_and_prints_names() {
    fn id(s: &str) -> Id<'_> {
        Id::Name(s.as_bytes().into())
    }
    assert_eq!(id("alice").to_string(), "alice");
    assert_eq!(id("a b").to_string(), "\"a b\"");
    assert_eq!(id("say \"hi\"").to_string(), "\"say \"\"hi\"\"\"");
    assert_eq!(id("#tag").to_string(), "\"#tag\"");
    assert_eq!(id("").to_string(), "\"\"");
    assert_eq!(Id::Int(7).to_string(), "7");
    for s in ["alice", "a b", "say \"hi\"", "#tag", ""] {
        assert_eq!(
            &*outcore::store::parse_name(&id(s).to_string()),
            s.as_bytes()
        );
    }
}
