//! Compressed CSR pages (`--compress=fast|small`, `store::csrcode`) against
//! plain ones, in both codes: the same lists, offsets, degrees and weights
//! (property tests with hubs whose lists span many pages, empty lists, ids
//! at page edges); the same answers from the select engine (pool, staging
//! and its grouped reads, run-ahead), the external engine's scatter and
//! the triangle streams; damage caught.

use crate::common;

use crate::common::programs;
use common::Rng;
use common::*;
use outcore::algo::cdlp::{cdlp, CdlpConfig};
use outcore::algo::kcore::kcore;
use outcore::algo::lcc::lcc;
use outcore::algo::reference::{self, MemGraph};
use outcore::algo::sssp::{sssp, SsspConfig};
use outcore::algo::{pagerank, vertex};
use outcore::engine::external::ExternalConfig;
use outcore::engine::planner::EngineChoice;
use outcore::engine::select::SelectConfig;
use outcore::engine::stats::RunStats;
use outcore::ingest::build::BuildOptions;
use outcore::io::Backend;
use outcore::mem::Budget;
use outcore::store::csrcode::Code;
use outcore::store::export::Layout;
use outcore::store::verify::verify;
use outcore::store::Store;
use proptest::prelude::*;
use std::path::Path;

/// Random edges on `0..n`: a fifth leave hub 3 (a list over many pages),
/// a tenth stay among the first 50 vertices (small gaps).
pub(crate) fn edges_of(n: u64, m: usize, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Rng::new(seed);
    (0..m)
        .map(|i| {
            let (s, d) = match i % 10 {
                0 | 4 => (3.min(n - 1), r.below(n)),
                7 => (r.below(50.min(n)), r.below(50.min(n))),
                _ => (r.below(n), r.below(n)),
            };
            (s, d, 1.0 + (i % 5) as f64)
        })
        .collect()
}

pub(crate) fn store_in(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    opts: &BuildOptions,
) -> Store {
    outcore::progress::set_quiet(true);
    std::fs::create_dir_all(dir).unwrap();
    let mut src = outcore::ingest::VecSource::new(edges.iter().copied());
    src.dense = Some(n);
    let r = outcore::ingest::build::build_store(&mut src, &dir.join("g.oc"), opts).unwrap();
    Store::open(&r.path).unwrap()
}

/// The same graph plain and compressed in `code` (weighted), both with
/// CSR ids of `id_bytes` (8: wide pages, `store::csrcode::wide`).
fn pair(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    directed: bool,
    code: Code,
    id_bytes: u64,
) -> (Store, Store) {
    let opts = |compress| BuildOptions {
        directed,
        weighted: true,
        memory: 128 << 20,
        compress,
        csr_code: code,
        csr_id_bytes: id_bytes,
        ..Default::default()
    };
    (
        store_in(&dir.join("plain"), n, edges, &opts(false)),
        store_in(&dir.join("coded"), n, edges, &opts(true)),
    )
}

/// Offsets, degrees and weights are the plain store's bytes; the lists
/// export the same; `verify` decodes every page strictly.
fn check_pair(plain: &Store, coded: &Store, code: Code) {
    verify(coded.path()).unwrap();
    let (p, c) = (store_files(plain.path()), store_files(coded.path()));
    for (k, v) in &p {
        if k.starts_with("csr/") && k.contains(".adj") {
            assert!(!c.contains_key(k), "{k} beside the coded pages");
        } else if !k.starts_with("tiles/") && k != "manifest.json" {
            assert!(v == &c[k], "{k} differs");
        }
    }
    let mc = coded.manifest();
    assert_eq!(mc.csr.compression.as_deref(), Some(code.codec()));
    assert_eq!(mc.csr, {
        let mut x = plain.manifest().csr.clone();
        x.compression = mc.csr.compression.clone();
        x
    });
    let layouts: &[Layout] = match mc.directed {
        true => &[Layout::Csr, Layout::CsrIn],
        false => &[Layout::Csr],
    };
    for &l in layouts {
        assert_eq!(exported(plain, l, true), exported(coded, l, true));
    }
    check_sample(plain, "out");
    check_sample(coded, "out");
    if mc.directed {
        check_sample(coded, "in");
    }
}

/// `store::csrsample` reads the lists a scan reads: every one with
/// `every` = 1, those that begin in every third page with 3.
fn check_sample(s: &Store, which: &str) {
    use outcore::store::csrsample::sample_lists;
    let mut lists = std::collections::BTreeMap::<u64, (u64, Vec<u64>)>::new();
    outcore::store::csrscan::scan_csr(s, which, false, |v, slot, u, _| {
        lists.entry(v).or_insert((slot, Vec::new())).1.push(u);
        Ok(())
    })
    .unwrap();
    let m = s.manifest();
    let per_page = m.csr.page_bytes / m.slot_width().bytes();
    for every in [1, 3] {
        let mut got = Vec::new();
        sample_lists(s, which, every, |v, l| {
            got.push((v, l.to_vec()));
            Ok(())
        })
        .unwrap();
        let want: Vec<(u64, Vec<u64>)> = (lists.iter())
            .filter(|(_, (slot, _))| (slot / per_page).is_multiple_of(every))
            .map(|(&v, (_, l))| (v, l.clone()))
            .collect();
        assert_eq!(got, want, "{which}, every {every}");
    }
}

/// A flipped byte in a coded or a plain adjacency fails the sample's
/// checked reads instead of giving other lists.
#[test]
fn a_sample_of_a_damaged_adjacency_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, coded) = pair(
        dir.path(),
        5_000,
        &edges_of(5_000, 40_000, 7),
        false,
        Code::Fast,
        4,
    );
    for (s, rel) in [(plain, "csr/out.adj"), (coded, "csr/out.adz")] {
        let path = s.path().join(rel);
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x10;
        std::fs::write(&path, bytes).unwrap();
        let r = outcore::store::csrsample::sample_lists(&s, "out", 1, |_, _| Ok(()));
        let e = r.expect_err(rel).to_string();
        assert!(e.contains("checksum"), "{rel}: {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn coded_pages_hold_the_same_lists(
        n in 1u64..20_000,
        m in 0usize..30_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        small in any::<bool>(),
        wide in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let code = if small { Code::Small } else { Code::Fast };
        let id_bytes = if wide { 8 } else { 4 };
        let (plain, coded) = pair(dir.path(), n, &edges_of(n, m, seed), directed, code, id_bytes);
        check_pair(&plain, &coded, code);
    }
}

/// Ids at the ends of the range and lists of exactly a page, a page and
/// one, and many pages.
#[test]
fn page_edges_and_extreme_ids() {
    let n = 3 * 1024 + 7;
    let mut edges: Vec<(u64, u64, f64)> = Vec::new();
    edges.extend((0..1024).map(|d| (0, n - 1 - d, 1.0)));
    edges.extend((0..1025).map(|d| (1, d * 3 % n, 2.0)));
    edges.extend((0..n).map(|d| (2, d, 3.0)));
    edges.push((n - 1, 0, 4.0));
    for (directed, code, id_bytes) in [
        (false, Code::Fast, 4),
        (true, Code::Small, 4),
        (false, Code::Small, 4),
        (true, Code::Fast, 8),
        (false, Code::Small, 8),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (plain, coded) = pair(dir.path(), n, &edges, directed, code, id_bytes);
        check_pair(&plain, &coded, code);
    }
}

pub(crate) fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs().max(1e-300)
}

/// SSSP, k-core and BFS of `store` (weighted) on the select engine with
/// `sel`: the references' answers on `g`. Returns the k-core run's figures.
pub(crate) fn select_answers_as_references(
    store: &Store,
    g: &MemGraph,
    sel: &SelectConfig,
    budget: &Budget,
) -> RunStats {
    let (d, _) = sssp(store, 3, &SsspConfig { delta: None }, sel, budget).unwrap();
    for (v, &e) in reference::sssp(g, 3).iter().enumerate() {
        assert!(d.value(v) == e || close(d.value(v), e), "sssp[{v}]");
    }
    let (k, kcore_run) = kcore(store, sel, budget).unwrap();
    for (v, &e) in reference::core_numbers(g).iter().enumerate() {
        assert_eq!(k.value(v), e, "core of {v}");
    }
    let (b, stats) = programs::bfs_on(
        store,
        3,
        EngineChoice::Select,
        Default::default(),
        sel.clone(),
        budget,
    )
    .unwrap();
    assert_eq!(stats.engine, "select");
    for (v, &e) in reference::bfs(g, 3).iter().enumerate() {
        assert_eq!(b[v], e, "bfs of {v}");
    }
    kcore_run
}

/// PageRank, SSSP (the weights beside the lists), WCC, CDLP and BFS on the
/// external engine's scatter (intervals of 7000 vertices, no grid), and
/// LCC (the triangle streams) of `store` (weighted): the references'
/// answers on `g`, inside a budget of 64 MiB.
pub(crate) fn external_answers_as_references(store: &Store, g: &MemGraph) {
    let ext = ExternalConfig {
        io: Some(Backend::Uring),
        interval_vertices: Some(7_000),
        grid: Some(false),
        ..Default::default()
    };
    let budget = Budget::new(64 << 20);
    let cfg = pagerank::PageRankConfig {
        iterations: 4,
        ..Default::default()
    };
    let (pr, _, _) = vertex::pagerank::run(store, &cfg, &ext, &budget).unwrap();
    let want = reference::pagerank(g, 0.85, 4);
    for v in 0..g.n {
        assert!(close(pr[v], want[v]), "pr[{v}] = {} != {}", pr[v], want[v]);
    }
    let (d, _) = vertex::sssp::run(store, 3, &ext, &budget).unwrap();
    for (v, &e) in reference::sssp(g, 3).iter().enumerate() {
        assert!(d[v] == e || close(d[v], e), "external sssp[{v}]");
    }
    let (w, _) = vertex::wcc::run(store, &ext, &budget).unwrap();
    assert_eq!(w, common::wide(reference::wcc(g)), "external wcc");
    let (c, _) = cdlp(store, &CdlpConfig { iterations: 3 }, &ext, &budget).unwrap();
    assert_eq!(c, common::wide(reference::cdlp(g, 3)), "cdlp");
    let (b, _) = vertex::bfs::run(store, 3, &ext, &budget).unwrap();
    assert_eq!(b, reference::bfs(g, 3), "external bfs");
    let (l, _) = lcc(store, &ext, &budget).unwrap();
    for (v, &e) in reference::lcc(g).iter().enumerate() {
        assert!((l[v] - e).abs() <= 1e-12, "lcc[{v}]");
    }
    assert!(budget.peak() <= budget.limit());
}

/// SSSP, k-core and BFS on the select engine (a pool of a few frames, so
/// pages are evicted and read again through the staging buffers, and a
/// large one), PageRank, WCC and BFS on the external engine (no grid: the
/// scatter reads the lists), and LCC (the triangle streams): the answers
/// of the plain store's references.
#[test]
fn engines_answer_the_same_on_coded_pages() {
    let n = 30_000;
    let mut edges = edges_of(n, 120_000, 5);
    edges.extend((0..40_000u64).map(|i| (i % 40, (i * 7919) % n, 1.0)));
    for (directed, code, id_bytes) in [
        (false, Code::Fast, 4),
        (true, Code::Small, 4),
        (true, Code::Fast, 8),
        (false, Code::Small, 8),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (plain, coded) = pair(dir.path(), n, &edges, directed, code, id_bytes);
        let plain_bytes = plain.manifest().files["csr/out.adj"].bytes;
        let coded_bytes = coded.manifest().files["csr/out.adz"].bytes;
        assert!(coded_bytes * 2 < plain_bytes);
        let g = MemGraph::load(&plain).unwrap();
        let budget = Budget::new(256 << 20);
        for (io, pool) in [
            (Backend::Uring, Some(64 << 10)),
            (Backend::Sync, None),
            (Backend::Uring, None),
        ] {
            let sel = SelectConfig {
                io: Some(io),
                pool_bytes: pool,
                ..Default::default()
            };
            let coded_run = select_answers_as_references(&coded, &g, &sel, &budget);
            if pool.is_none() {
                // Every page read once, into a pool that holds them all:
                // the coded run reads the coded files about once, as
                // consecutive pages share their reads (a page at a time
                // read half as much again).
                let (_, plain_run) = kcore(&plain, &sel, &budget).unwrap();
                let dirs = if directed {
                    ["out", "in"].as_slice()
                } else {
                    &["out"]
                };
                let file = |s: &Store, f: &str| -> u64 {
                    dirs.iter()
                        .map(|d| s.manifest().files[&format!("csr/{d}.{f}")].bytes)
                        .sum()
                };
                let saved = file(&plain, "adj") - file(&coded, "adz");
                let fewer = plain_run.bytes_read.saturating_sub(coded_run.bytes_read);
                assert!(
                    fewer * 10 >= saved * 8,
                    "read {fewer} fewer bytes for {saved} fewer stored"
                );
            }
        }
        external_answers_as_references(&coded, &g);
    }
}

/// A flipped bit in the coded pages: `verify` names the file, and the
/// select engine, the external scatter and the triangle streams stop
/// instead of answering; with the page sums gone, the strict decoder or
/// the lists' checks still refuse most damage.
#[test]
fn damaged_coded_pages_are_caught() {
    damaged(Code::Fast, 4);
    damaged(Code::Small, 4);
    damaged(Code::Fast, 8);
    damaged(Code::Small, 8);
}

fn damaged(code: Code, id_bytes: u64) {
    let n = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let (_, coded) = pair(
        dir.path(),
        n,
        &edges_of(n, 60_000, 2),
        false,
        code,
        id_bytes,
    );
    let path = coded.path().join("csr/out.adz");
    let clean = std::fs::read(&path).unwrap();
    let mut r = Rng::new(78);
    let ext = ExternalConfig {
        grid: Some(false),
        ..Default::default()
    };
    let sel = SelectConfig::default();
    // First, in stream-vbyte, a change the decoder cannot see: bit 1 of
    // the first page's first code moves its first neighbour by one (only
    // the page sums tell); in `small`, a page's tag; then random bits. A
    // wide page starts with its form.
    let form = (id_bytes == 8) as usize;
    let mut flips = match code {
        Code::Fast => {
            let count = &clean[form..form + 4];
            let lens = u32::from_le_bytes(count.try_into().unwrap()).div_ceil(4) as usize;
            vec![(form + 4 + lens, 2u8)]
        }
        Code::Small => vec![(form, 2u8)],
    };
    flips.extend((0..5).map(|_| (r.below(clean.len() as u64) as usize, 1u8 << r.below(8))));
    for (at, bit) in flips {
        let mut bad = clean.clone();
        bad[at] ^= bit;
        std::fs::write(&path, &bad).unwrap();
        let err = verify(coded.path()).unwrap_err().to_string();
        assert!(err.contains("csr/out.adz"), "{err}");
        let budget = Budget::new(64 << 20);
        let e = kcore(&coded, &sel, &budget).unwrap_err().to_string();
        assert!(e.contains("csr/out.adz"), "select, byte {at}: {e}");
        let e = vertex::wcc::run(&coded, &ext, &budget)
            .unwrap_err()
            .to_string();
        assert!(e.contains("csr/out.adz"), "scatter, byte {at}: {e}");
        let e = lcc(&coded, &ext, &budget).unwrap_err().to_string();
        assert!(e.contains("csr/out.adz"), "triangles, byte {at}: {e}");
    }
    std::fs::write(&path, &clean).unwrap();
    verify(coded.path()).unwrap();
}
