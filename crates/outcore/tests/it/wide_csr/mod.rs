//! The wide CSR layout (`csr.id_bytes` 8, format version 2: the slots
//! dense ids beyond 2^32 need; issue 14, item 4) forced on small graphs
//! against the narrow one: the same lists, offsets, degrees, weights and
//! tiles (property tests with hubs over many pages, both page sizes); the
//! same lists from the select engine read as u32 or u64 ids; the same
//! answers from the select engine, the external engine's scatter and the
//! triangle streams (`engines.rs`); what is refused: `refused.rs`.

use crate::common;
use crate::compressed_csr::{edges_of, store_in};

use common::*;
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::store::csr::Slot;
use outcore::store::export::Layout;
use outcore::store::verify::verify;
use outcore::store::{Store, VertexOrder};
use proptest::prelude::*;
use std::path::Path;

mod engines;
mod past_2_32;
mod refused;

/// The same graph with 4-byte and with 8-byte CSR slots.
fn pair(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    directed: bool,
    weighted: bool,
    page_bytes: u64,
) -> (Store, Store) {
    let opts = BuildOptions {
        directed,
        weighted,
        memory: 128 << 20,
        page_bytes,
        ..Default::default()
    };
    pair_with(dir, n, edges, &opts, true, false)
}

/// [`pair`] built with `opts`; with `dense` false the ids are spread over
/// 2^40 (`n` even: wider than 32 bits, so the build reads 16-byte edges)
/// or 2^31 (`n` odd), and the source does not say how many there are, so
/// the build ranks them through an id map. `counted`: the
/// wide store is not asked for; a narrow build numbers no vertex
/// (`narrow_max` 0), so every build goes on wide once it has counted its
/// vertices (a dense source before its read, an id map after it, ids ranked
/// on disk once numbered).
fn pair_with(
    dir: &Path,
    n: u64,
    edges: &[(u64, u64, f64)],
    opts: &BuildOptions,
    dense: bool,
    counted: bool,
) -> (Store, Store) {
    let at = |csr_id_bytes| BuildOptions {
        csr_id_bytes,
        ..opts.clone()
    };
    let wide = match counted {
        true => BuildOptions {
            narrow_max: 0,
            ..opts.clone()
        },
        false => at(8),
    };
    if dense {
        return (
            store_in(&dir.join("narrow"), n, edges, &at(4)),
            store_in(&dir.join("wide"), n, edges, &wide),
        );
    }
    let bits = if n.is_multiple_of(2) { 40 } else { 31 };
    let spread = |v: u64| v.wrapping_mul(0x9E37_79B9) % (1 << bits);
    let edges: Vec<_> = edges
        .iter()
        .map(|&(s, d, w)| (spread(s), spread(d), w))
        .collect();
    let build = |name: &str, o: &BuildOptions| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        Store::open(&common::build(&sub, &edges, &[], o).path).unwrap()
    };
    (build("narrow", &at(4)), build("wide", &wide))
}

/// The tiles, degrees and id maps are the narrow store's bytes; the
/// adjacency is 8 bytes a slot, its lists packed (`verify`) to pages of
/// half as many slots, so the slot offsets and the weights beside the
/// slots move; the lists and weights export the same.
fn check_pair(narrow: &Store, wide: &Store) {
    verify(wide.path()).unwrap();
    let (a, b) = (store_files(narrow.path()), store_files(wide.path()));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    let by_slot = |k: &str| k.starts_with("csr/") || k.starts_with("weights/");
    for (k, v) in &a {
        if !by_slot(k) && k != "manifest.json" {
            assert!(v == &b[k], "{k} differs");
        }
    }
    let (mn, mw) = (narrow.manifest(), wide.manifest());
    assert_eq!((mn.format_version, mn.csr.id_bytes), (1, 4));
    assert_eq!((mw.format_version, mw.csr.id_bytes), (2, 8));
    assert_eq!(mw.csr.out_entries, mn.csr.out_entries);
    assert_eq!(mw.csr.compression, mn.csr.compression);
    assert!(mw.csr.out_slots.is_multiple_of(mw.csr.page_bytes / 8));
    match mw.csr.compression {
        None => assert_eq!(mw.files["csr/out.adj"].bytes, 8 * mw.csr.out_slots),
        // Wide pages cost the narrow code of their lists (ids below 2^31
        // carry nothing), plus a page's header and first jump: half as
        // many ids a page, twice as many pages.
        Some(_) => {
            let pages = mw.csr.out_slots / (mw.csr.page_bytes / 8);
            let (w, n) = (mw.files["csr/out.adz"].bytes, mn.files["csr/out.adz"].bytes);
            assert!(w <= n + 12 * pages, "{w} coded wide bytes, {n} narrow");
        }
    }
    let layouts: &[Layout] = match mw.directed {
        true => &[Layout::Csr, Layout::CsrIn],
        false => &[Layout::Csr],
    };
    for &l in layouts {
        assert_eq!(exported(narrow, l, true), exported(wide, l, true));
    }
    // The select engine hands out the same lists as u32 or u64 ids.
    let want = selected::<u32>(narrow);
    assert_eq!(selected::<u64>(narrow), want);
    assert_eq!(selected::<u32>(wide), want);
    assert_eq!(selected::<u64>(wide), want);
}

/// Every out-list (with its weights, if any) through the select engine,
/// asked for and handed out as ids of type `T`, in a pool of a few frames.
fn selected<T: Slot>(store: &Store) -> Vec<(u64, u64, f64)> {
    let cfg = SelectConfig {
        pool_bytes: Some(64 << 10),
        ..Default::default()
    };
    let m = store.manifest();
    let budget = Budget::new(64 << 20);
    let mut eng = SelectEngine::new(store, "out", m.weighted, &budget, &cfg).unwrap();
    let vs: Vec<T> = (0..m.num_vertices).map(T::of).collect();
    let mut out = Vec::new();
    match m.weighted {
        true => eng.for_each_weighted(&vs, |v, nbrs, ws| {
            out.extend(nbrs.iter().zip(ws).map(|(u, &w)| (v.get(), u.get(), w)));
            Ok(())
        }),
        false => eng.for_each_list(&vs, |v, nbrs| {
            out.extend(nbrs.iter().map(|u| (v.get(), u.get(), 1.0)));
            Ok(())
        }),
    }
    .unwrap();
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn wide_slots_hold_the_same_lists(
        n in 1u64..20_000,
        m in 0usize..30_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        big_pages in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let page = if big_pages { 8192 } else { 4096 };
        let edges = edges_of(n, m, seed);
        let (narrow, wide) = pair(dir.path(), n, &edges, directed, weighted, page);
        check_pair(&narrow, &wide);
    }

    /// The wide build carries ranks and dense ids as u64 and sorts 128-bit
    /// keys: through every path of the build (ids ranked by an id map or
    /// dense, the input spilled so the distinct edges go through
    /// `distinct.tmp`, tiles sorted or placed, degree or original order,
    /// the directed out-CSR sorted or written straight, the ids ranked on
    /// disk first, the pages coded or not, the width asked for or found
    /// when the vertices are counted) it writes the narrow build's store.
    #[test]
    fn the_wide_build_writes_the_narrow_store(
        n in 1u64..5_000,
        m in 0usize..20_000,
        seed in any::<u64>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        dense in any::<bool>(),
        spill in any::<bool>(),
        sort_tiles in any::<bool>(),
        by_degree in any::<bool>(),
        external_ids in any::<bool>(),
        compress in any::<bool>(),
        counted in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let opts = BuildOptions {
            directed,
            weighted,
            compress,
            memory: 128 << 20,
            sort_buffer_cap: spill.then_some(32 << 10),
            sort_tiles,
            // Ranked on disk first (`named.rs`), when the ids are not dense.
            external_ids: external_ids && !dense,
            order: match by_degree {
                true => VertexOrder::Degree,
                false => VertexOrder::Original,
            },
            ..Default::default()
        };
        // A build that counts no vertex stays narrow.
        let counted = counted && m > 0;
        let edges = edges_of(n, m, seed);
        let (narrow, wide) = pair_with(dir.path(), n, &edges, &opts, dense, counted);
        check_pair(&narrow, &wide);
    }
}

/// A build that spilled its input and then counts more vertices than a
/// narrow build numbers goes on wide from the spilled input (it read it
/// once) and writes the narrow build's store.
#[test]
fn a_build_widens_after_spilling() {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed: false,
        weighted: true,
        compress: true,
        memory: 128 << 20,
        sort_buffer_cap: Some(32 << 10),
        ..Default::default()
    };
    let (n, seed) = (829, 11048192312453818724);
    let edges = edges_of(n, 9596, seed);
    let (narrow, wide) = pair_with(dir.path(), n, &edges, &opts, false, true);
    check_pair(&narrow, &wide);
    let mut src = Passes::new(Box::new(outcore::ingest::VecSource::new(
        edges.iter().copied(),
    )));
    let counted = BuildOptions {
        narrow_max: 0,
        ..opts
    };
    let r = outcore::ingest::build::build_store(&mut src, &dir.path().join("once"), &counted);
    assert_eq!(r.unwrap().manifest.csr.id_bytes, 8);
    assert_eq!(src.edges, 1, "the input is read once");
}

/// Lists of exactly a wide page (512 slots), a page and one, and many
/// pages, and the ids at both ends.
#[test]
fn wide_page_edges() {
    let n = 3 * 512 + 7;
    let mut edges: Vec<(u64, u64, f64)> = Vec::new();
    edges.extend((0..512).map(|d| (0, n - 1 - d, 1.0)));
    edges.extend((0..513).map(|d| (1, d * 3 % n, 2.0)));
    edges.extend((0..n).map(|d| (2, d, 3.0)));
    edges.push((n - 1, 0, 4.0));
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (narrow, wide) = pair(dir.path(), n, &edges, directed, true, 4096);
        check_pair(&narrow, &wide);
    }
}
