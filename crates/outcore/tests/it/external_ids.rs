//! The external id remap: integer ids ranked on disk (sorted by the id
//! collector's sorter, edges ranked by two merge joins) build byte for byte
//! the store the in-memory id map builds, for ids near 2^64,
//! duplicate-heavy and vertex-heavy inputs, with sorters in memory or
//! spilled; and a build whose ids outgrow the id map's share of the budget
//! goes on to disk by itself, reading its input once.

use crate::common::{store_files, Passes, Rng};
use outcore::ingest::build::{build_store, BuildOptions, BuildReport};
use outcore::ingest::VecSource;
use outcore::store::VertexOrder;
use proptest::prelude::*;

fn source(edges: &[(u64, u64, f64)], vertices: &[u64]) -> VecSource {
    let mut s = VecSource::new(edges.iter().copied());
    s.vertices = vertices.to_vec();
    s
}

fn same_store(a: &BuildReport, b: &BuildReport, what: &str) {
    let (fa, fb) = (store_files(&a.path), store_files(&b.path));
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (k, v) in &fa {
        assert!(v == &fb[k], "{what}: {k} differs");
    }
}

/// Random inputs: `kind` 0 = ids near 2^64, 1 = duplicate-heavy, 2 =
/// vertex-heavy with few edges, 3 = ids 0..n (no id map kept).
fn input(seed: u64, kind: u64) -> (Vec<(u64, u64, f64)>, Vec<u64>) {
    let mut rng = Rng::new(seed);
    let id = |rng: &mut Rng| match kind {
        0 => u64::MAX - rng.below(5000) * 3,
        1 => rng.below(60) * 1_000_003,
        2 => rng.next(),
        _ => rng.below(3000),
    };
    let m = [6000, 8000, 300, 5000][kind as usize];
    let edges = (0..m)
        .map(|i| {
            let s = id(&mut rng);
            let d = if i % 11 == 0 { s } else { id(&mut rng) };
            (s, d, rng.below(7) as f64)
        })
        .collect();
    let vertices = match kind {
        2 => (0..20_000).map(|_| rng.next()).collect(),
        3 => (0..3000).collect(),
        _ => vec![id(&mut rng), id(&mut rng)],
    };
    (edges, vertices)
}

/// `sampled`: the on-disk build's source gives a sample (range buckets);
/// without one its input sorter hashes, and spilled, the joins sort it by
/// source first.
fn check(seed: u64, kind: u64, directed: bool, cap: Option<u64>, drop_loops: bool, sampled: bool) {
    outcore::progress::set_quiet(true);
    let (edges, vertices) = input(seed, kind);
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed,
        weighted: true,
        drop_self_loops: drop_loops,
        memory: 128 << 20,
        order: VertexOrder::Degree,
        ..Default::default()
    };
    let mem = build_store(&mut source(&edges, &vertices), &dir.path().join("a"), &opts).unwrap();
    let ext_opts = BuildOptions {
        external_ids: true,
        sort_buffer_cap: cap,
        ..opts
    };
    let mut ext_source = source(&edges, &vertices);
    ext_source.sampled = sampled;
    let mut src = Passes::new(Box::new(ext_source));
    let ext = build_store(&mut src, &dir.path().join("b"), &ext_opts).unwrap();
    assert_eq!(src.edges, 1, "kind {kind}: the input is read once");
    if cap.is_some() && edges.len() > 2048 {
        assert!(ext.spilled_bytes > 0, "kind {kind}: spilled");
    }
    assert!(on_disk(&ext), "kind {kind}: ranked on disk");
    assert_eq!(mem.manifest.has_id_map, kind != 3);
    same_store(&mem, &ext, &format!("kind {kind} seed {seed}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn external_ids_build_the_in_memory_store(
        seed in any::<u64>(),
        kind in 0..4u64,
        directed in any::<bool>(),
        spill in any::<bool>(),
        drop_loops in any::<bool>(),
        sampled in any::<bool>(),
    ) {
        // A 48 KiB cap spills every sorter into many buckets.
        check(seed, kind, directed, spill.then_some(48 << 10), drop_loops, sampled);
    }
}

/// The build ranked its ids on disk (numbered them from the sorted ids,
/// then joined the edges with the ranks).
fn on_disk(r: &BuildReport) -> bool {
    let phase = |name| r.phases.iter().any(|p| p.0 == name);
    phase("ids") && phase("join")
}

/// 20,000 edges between `vertices`.
fn edges_among(vertices: &[u64]) -> Vec<(u64, u64, f64)> {
    (0..20_000)
        .map(|i| (vertices[i * 7], vertices[(i * 131) % vertices.len()], 1.0))
        .collect()
}

/// An undirected build in the original order at 128 MiB.
fn smallest_budget() -> BuildOptions {
    BuildOptions {
        directed: false,
        memory: 128 << 20,
        order: VertexOrder::Original,
        ..Default::default()
    }
}

/// Ids that outgrow the collector's share go on to disk from the same read
/// (the build used to start over and read the input again), whether they
/// outgrow it in the source's vertex list or in its edges: one pass over
/// each, and the store is the one the in-memory map builds.
#[test]
fn ids_outgrowing_the_map_are_ranked_on_disk_from_one_read() {
    // 2.5 million sparse ids: more than the id collector's quarter of a
    // 128 MiB budget holds (16 bytes an id while collecting).
    outcore::progress::set_quiet(true);
    let mut rng = Rng::new(99);
    let vertices: Vec<u64> = (0..2_500_000).map(|_| rng.next() | 1 << 63).collect();
    let listed = (edges_among(&vertices), vertices.clone());
    // 1.2 million edges between 2.4 million of them, and no vertex list.
    let n = vertices.len();
    let spanning = (0..1_200_000)
        .map(|i| (vertices[i], vertices[(i * 7 + 1_200_000) % n], 1.0))
        .collect::<Vec<_>>();
    let dir = tempfile::tempdir().unwrap();
    for (case, (edges, vertices)) in [listed, (spanning, vec![])].iter().enumerate() {
        let opts = smallest_budget();
        let mut src = Passes::new(Box::new(source(edges, vertices)));
        let small = build_store(&mut src, &dir.path().join(format!("a{case}")), &opts).unwrap();
        let read = (src.vertices, src.edges);
        assert_eq!(read, (1, 1), "case {case}: the input is read once");
        assert!(on_disk(&small), "case {case}: on disk: {:?}", small.phases);
        let big = BuildOptions {
            memory: 1 << 30,
            ..opts
        };
        let b = dir.path().join(format!("b{case}"));
        let mem = build_store(&mut source(edges, vertices), &b, &big).unwrap();
        assert!(!on_disk(&mem));
        // The budget is recorded in the manifest; everything else is equal
        // (the counts of input edges and duplicates too).
        let files = |path| {
            let mut f = store_files(path);
            let m = f.get_mut("manifest.json").unwrap();
            let mut v: serde_json::Value = serde_json::from_slice(m).unwrap();
            v["build"]["memory_budget"] = 0.into();
            *m = v.to_string().into_bytes();
            f
        };
        let same = files(&small.path) == files(&mem.path);
        assert!(same, "case {case}: the same store either way");
    }
}

/// Millions of ids dense in their span (SNAP files, Kronecker lists) stay
/// in memory at 128 MiB as a rank bitmap of a quarter byte a possible id:
/// kept beside it as an 8-byte list, 2.5 million of them outgrew the
/// budget and went to the on-disk ranking, 4x slower.
#[test]
fn dense_ids_stay_in_memory_at_the_smallest_budget() {
    outcore::progress::set_quiet(true);
    let vertices: Vec<u64> = (0..4_000_000u64).filter(|i| i % 8 < 5).collect();
    let edges = edges_among(&vertices);
    let dir = tempfile::tempdir().unwrap();
    let opts = smallest_budget();
    let r = build_store(&mut source(&edges, &vertices), &dir.path().join("a"), &opts).unwrap();
    assert!(!on_disk(&r), "{:?}", r.phases);
    assert_eq!(r.manifest.num_vertices, vertices.len() as u64);
    let ext = BuildOptions {
        external_ids: true,
        ..opts
    };
    let b = build_store(&mut source(&edges, &vertices), &dir.path().join("b"), &ext).unwrap();
    let (mut fa, mut fb) = (store_files(&r.path), store_files(&b.path));
    fa.remove("manifest.json");
    fb.remove("manifest.json");
    assert!(fa == fb, "the store the on-disk ranking builds");
}

/// Text ids are first read as if they fit 32 bits (8-byte edges) when the
/// file's sample holds none wider; an id wider than that in a later block
/// moves the edges read so far into 16-byte ones and the read goes on, and
/// the store is the one the ids build directly.
#[test]
fn a_wide_id_late_in_a_text_file_widens_in_place() {
    use outcore::ingest::parse::{self, InputFormat, ParseOptions};
    outcore::progress::set_quiet(true);
    let mut rng = Rng::new(3);
    // Over one 4 MiB parse block, then one wide id.
    let mut edges: Vec<(u64, u64, f64)> = (0..450_000)
        .map(|_| (rng.below(100_000), rng.below(100_000), 1.0))
        .collect();
    edges.push((7, u64::MAX - 1, 1.0));
    let dir = tempfile::tempdir().unwrap();
    let text: String = edges.iter().map(|(s, d, _)| format!("{s} {d}\n")).collect();
    assert!(text.len() > 5 << 20);
    let file = dir.path().join("g.txt");
    std::fs::write(&file, text).unwrap();
    let opts = BuildOptions {
        directed: false,
        memory: 256 << 20,
        ..Default::default()
    };
    let src = parse::open(&[file], InputFormat::Snap, &ParseOptions::default()).unwrap();
    let mut src = Passes::new(src);
    let a = build_store(&mut src, &dir.path().join("a"), &opts).unwrap();
    assert_eq!(src.edges, 1, "the file is read once");
    let b = build_store(&mut source(&edges, &[]), &dir.path().join("b"), &opts).unwrap();
    let (mut fa, mut fb) = (store_files(&a.path), store_files(&b.path));
    // The manifests name different sources; the rest is equal.
    fa.remove("manifest.json");
    fb.remove("manifest.json");
    assert!(fa == fb);
    assert_eq!(a.manifest.num_edges, b.manifest.num_edges);
}

/// Without a sample the edges are guessed narrow: a wide id after a
/// spilled prefix (duplicates on both sides, the last weight wins) widens
/// them in place, and the store is the one read wide from the start.
#[test]
fn a_wide_id_after_spilling_widens_in_place() {
    outcore::progress::set_quiet(true);
    let mut rng = Rng::new(5);
    let mut edges: Vec<(u64, u64, f64)> = (0..60_000)
        .map(|i| (rng.below(3_000), rng.below(3_000), i as f64))
        .collect();
    edges.push((3, 1 << 40, 1.0));
    edges.extend((0..60_000).map(|i| (rng.below(3_000), rng.below(3_000), -(i as f64))));
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        weighted: true,
        sort_buffer_cap: Some(64 << 10),
        ..Default::default()
    };
    let mut unsampled = source(&edges, &[]);
    unsampled.sampled = false;
    let mut src = Passes::new(Box::new(unsampled));
    let a = build_store(&mut src, &dir.path().join("a"), &opts).unwrap();
    assert_eq!(src.edges, 1, "the input is read once");
    assert!(a.spilled_bytes > 0);
    let b = build_store(&mut source(&edges, &[]), &dir.path().join("b"), &opts).unwrap();
    let (mut fa, mut fb) = (store_files(&a.path), store_files(&b.path));
    // The manifests hold the timings; the rest is equal.
    fa.remove("manifest.json");
    fb.remove("manifest.json");
    assert!(fa == fb, "widened in place");
}
