//! `update --delta` (issue 53, U1): random sequences of updates, read from
//! edge-list files by the import's parsers (sparse integer ids and string
//! ids; duplicates, self-loops, new vertices, new weights, absent
//! removals; directed, undirected, weighted), each written as the next
//! delta generation. After every update the view (base + delta, read
//! through the merged CSR scan into a `MemGraph`) equals, in original ids,
//! the store an import of the updated edge list builds; its counts are
//! the rebuild's; the update's counts are the oracle's; `verify` passes.
//! A kill at each step of the commit leaves the store as it was.

mod fixture;

use crate::common::Rng;
pub(crate) use fixture::*;
use outcore::api::update as edit;
use outcore::api::UpdateOptions;
use outcore::ingest::update::{update_delta, DeltaOptions};
use outcore::store::delta::Stop;
use outcore::store::verify::verify;
use outcore::store::Store;
use std::collections::BTreeMap;

fn sequence(shape: Shape, seed: u64) {
    outcore::progress::set_quiet(true);
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng::new(seed);
    let n = 70;
    let mut o = Oracle {
        shape,
        edges: BTreeMap::new(),
        vertices: (0..n).collect(),
    };
    let base: Vec<(u64, u64, f64)> = (0..5 * n)
        .map(|i| {
            let s = if i % 3 == 0 { r.below(4) } else { r.below(n) };
            (s, r.below(n), (r.below(5) + 1) as f64)
        })
        .collect();
    o.apply(&[], &base);
    let path = d.path().join("g.oc");
    import(d.path(), "g.oc", shape, &o);
    for step in 0..3 {
        let store = Store::open_with_delta(&path).unwrap();
        let (rm, add) = batch(&o, &mut r, n, 40 + 30 * step);
        let [adds, removes] = sources(d.path(), &store, shape, &format!("u{step}"), &rm, &add);
        let before = view_lists(&store);
        drop(store);
        let (want, new) = o.apply(&rm, &add);
        if step == 1 {
            // A kill at each step of the commit leaves the store as it was.
            for at in [Stop::AfterFiles, Stop::AfterRename] {
                let store = Store::open_with_delta(&path).unwrap();
                let [adds, removes] =
                    sources(d.path(), &store, shape, &format!("k{step}"), &rm, &add);
                let m = store.manifest().clone();
                let opts = DeltaOptions {
                    memory: 256 << 20,
                    stop: Some(at),
                };
                update_delta(&store, adds, removes, &opts).unwrap();
                drop(store);
                let again = Store::open_with_delta(&path).unwrap();
                assert_eq!(again.manifest(), &m, "{shape:?} {at:?}");
                assert_eq!(view_lists(&again), before, "{shape:?} {at:?}");
                verify(&path).unwrap();
            }
        }
        let uopts = UpdateOptions {
            memory: 256 << 20,
            scratch_dir: None,
        };
        let got = edit::update_delta(edit::open_with_delta(&path).unwrap(), adds, removes, &uopts)
            .unwrap();
        let what = format!("{shape:?} seed {seed} step {step}");
        assert_eq!(got.counts, want, "{what}: the update's counts");
        assert_eq!(got.new_vertices, new, "{what}: new vertices");
        assert_eq!(got.generation, step as u64 + 1, "{what}");
        verify(&path).unwrap();
        let view = Store::open_with_delta(&path).unwrap();
        let rebuilt = import(d.path(), &format!("want{step}.oc"), shape, &o);
        assert_eq!(
            counts(view.manifest()),
            counts(rebuilt.manifest()),
            "{what}: the view's counts are the rebuild's"
        );
        let (a, b) = (view_lists(&view), view_lists(&rebuilt));
        let b: Vec<_> = (b.into_iter())
            .map(|m| {
                m.into_iter()
                    .map(|((x, y), w)| ((unquote(x), unquote(y)), w))
                    .collect()
            })
            .collect();
        let a: Vec<_> = (a.into_iter())
            .map(|m| {
                m.into_iter()
                    .map(|((x, y), w)| ((unquote(x), unquote(y)), w))
                    .collect::<BTreeMap<_, _>>()
            })
            .collect();
        assert_eq!(a, b, "{what}: the view's lists are the rebuild's");
    }
    // `compact` folds the delta into a new base: a store without a delta
    // whose lists and counts are the rebuild's; a second one has nothing
    // to do.
    let uopts = UpdateOptions {
        memory: 256 << 20,
        scratch_dir: None,
    };
    let done = edit::compact(edit::open(&path).unwrap(), &uopts).unwrap();
    assert!(done.is_some(), "{shape:?}: the delta is compacted");
    verify(&path).unwrap();
    let compacted = Store::open(&path).expect("no delta after compaction");
    let rebuilt = import(d.path(), "want-final.oc", shape, &o);
    assert_eq!(counts(compacted.manifest()), counts(rebuilt.manifest()));
    let plain = |v: Vec<BTreeMap<(String, String), u64>>| -> Vec<BTreeMap<_, _>> {
        (v.into_iter())
            .map(|m| {
                m.into_iter()
                    .map(|((x, y), w)| ((unquote(x), unquote(y)), w))
                    .collect()
            })
            .collect()
    };
    assert_eq!(
        plain(view_lists(&compacted)),
        plain(view_lists(&rebuilt)),
        "{shape:?}: the compacted store's lists are the rebuild's"
    );
    drop(compacted);
    let again = edit::compact(edit::open(&path).unwrap(), &uopts).unwrap();
    assert!(again.is_none(), "{shape:?}: nothing left to compact");
}

#[test]
fn delta_updates_equal_a_rebuild_directed_weighted() {
    for seed in [1, 2] {
        let s = Shape {
            directed: true,
            weighted: true,
            names: false,
            loops: false,
        };
        sequence(s, seed);
    }
}

#[test]
fn delta_updates_equal_a_rebuild_undirected() {
    for seed in [3, 4] {
        let s = Shape {
            directed: false,
            weighted: false,
            names: false,
            loops: true,
        };
        sequence(s, seed);
        let s = Shape {
            directed: false,
            weighted: true,
            names: false,
            loops: false,
        };
        sequence(s, seed + 10);
    }
}

#[test]
fn delta_updates_equal_a_rebuild_string_ids() {
    for seed in [5, 6] {
        let s = Shape {
            directed: true,
            weighted: false,
            names: true,
            loops: true,
        };
        sequence(s, seed);
        let s = Shape {
            directed: false,
            weighted: true,
            names: true,
            loops: false,
        };
        sequence(s, seed + 10);
    }
}
