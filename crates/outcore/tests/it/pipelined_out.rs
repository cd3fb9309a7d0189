//! `--out` as the CLI writes it (`VertexValues::write`, `write_set`: the
//! walk, the lookups, the formatting and the writes pipelined over threads
//! and batches of 2^16 vertices) gives the bytes of a plain sequential
//! writer, kept here as the oracle: rank by rank, `writeln!("{id} {value}")`.
//! Several batches, a vertex order map and string ids (quoted names, label
//! names looked up by rank).

use outcore::algo::output::format_float;
use outcore::api::{Kind, VertexValues};
use outcore::engine::results::Out;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use std::fmt::Write as _;
use std::sync::Arc;

/// Vertices: five batches and a part.
const N: u64 = 5 * (1 << 16) + 1234;

/// The sequential oracle: one line per rank, the dense id found by sorting.
fn sequential(store: &Store, line: impl Fn(&mut String, u64, String)) -> String {
    let ids = store.load_ids().unwrap();
    let mut by_rank: Vec<u64> = (0..store.manifest().num_vertices).collect();
    by_rank.sort_by_key(|&v| ids.rank(v));
    let mut out = String::new();
    for v in by_rank {
        line(&mut out, v, ids.get(v).to_string());
    }
    out
}

#[test]
fn pipelined_out_equals_the_sequential_writer() {
    outcore::progress::set_quiet(true);
    let dir = tempfile::tempdir().unwrap();
    // Names that need quoting, a hub (so the degree order is not the names').
    let name = |i: u64| match i % 4 {
        0 => format!("v{i}"),
        1 => format!("\"a b {i}\""),
        2 => format!("{i}"),
        _ => format!("\"say \"\"{i}\"\"\""),
    };
    let mut csv = String::new();
    for i in 0..N {
        let j = if i % 3 == 0 { 7 } else { (i * 7919 + 13) % N };
        writeln!(csv, "{},{}", name(i), name(j)).unwrap();
    }
    let path = dir.path().join("g.csv");
    std::fs::write(&path, csv).unwrap();
    let popts = ParseOptions {
        ids: IdKind::String,
        ..Default::default()
    };
    let opts = BuildOptions {
        order: VertexOrder::Degree,
        ..Default::default()
    };
    let mut src = parse::open(std::slice::from_ref(&path), InputFormat::Csv, &popts).unwrap();
    let built = build_store(src.as_mut(), &dir.path().join("g.oc"), &opts).unwrap();
    let store = Store::open(&built.path).unwrap();
    let m = store.manifest();
    assert!(m.string_ids && m.has_order_map && m.num_vertices == N);
    let ids = store.load_ids().unwrap();

    let budget = Budget::new(64 << 20);
    let file = dir.path().join("out.txt");
    let out = Out {
        path: &file,
        store: &store,
        budget: &budget,
        scratch: dir.path(),
    };
    let written = || std::fs::read_to_string(&file).unwrap();

    // Floats (infinity among them) and integers (negative among them).
    let float = |v: u64| match v % 11 {
        0 => f64::INFINITY,
        _ => (v as f64 * 0.37).sin() * 1e3,
    };
    let mut values = VertexValues::memory(Kind::Float, move |v| float(v).to_bits());
    values.write(&out).unwrap();
    let want = sequential(&store, |s, v, id| {
        writeln!(s, "{id} {}", format_float(float(v))).unwrap()
    });
    assert_eq!(written(), want, "floats");

    let int = |v: u64| v as i64 - 1000;
    let mut values = VertexValues::memory(Kind::Int, move |v| int(v) as u64);
    values.write(&out).unwrap();
    let want = sequential(&store, |s, v, id| writeln!(s, "{id} {}", int(v)).unwrap());
    assert_eq!(written(), want, "integers");

    // Labels: ranks, written as the names of those vertices (the vertex's
    // own, a repeated one, scattered ones).
    let own: Vec<u64> = (0..N).map(|v| ids.rank(v)).collect();
    let labels: Arc<Vec<u64>> = Arc::new(
        (0..N)
            .map(|v| match v % 3 {
                0 => 5,
                1 => (v * 104_729) % N,
                _ => own[v as usize],
            })
            .collect(),
    );
    let l = labels.clone();
    let mut values = VertexValues::memory(Kind::Label, move |v| l[v as usize]);
    values.write(&out).unwrap();
    let want = sequential(&store, |s, v, id| {
        let l = ids.original_of_rank(labels[v as usize]);
        writeln!(s, "{id} {l}").unwrap()
    });
    assert_eq!(written(), want, "labels");

    // A vertex set.
    let mut values = VertexValues::memory(Kind::Int, |v| v % 3);
    values.write_set(&out, |x| x == 1).unwrap();
    let want = sequential(&store, |s, v, id| {
        if v % 3 == 1 {
            writeln!(s, "{id}").unwrap()
        }
    });
    assert_eq!(written(), want, "set");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "no temporary left"
    );
}
