//! `update`: a store after adding and removing edges holds, file for file,
//! the store an import of the updated edge list builds (the oracle: the
//! NetworkX-semantics reference edge set, removals then additions, every
//! vertex kept), with integer and string ids, directed and undirected,
//! weighted, in degree and original order, plain and coded; absent
//! removals are counted.

use crate::common::{reference, reference_vertices, store_files, Rng};
use outcore::api::{self, UpdateOptions};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::ingest::{EdgeSource, VecSource};
use outcore::store::VertexOrder;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

type Edges = Vec<(u64, u64, f64)>;

struct Case {
    base: Edges,
    isolated: Vec<u64>,
    adds: Edges,
    removes: Vec<(u64, u64)>,
}

fn case(seed: u64, n: u64, m: usize) -> Case {
    let mut r = Rng::new(seed);
    let w = |r: &mut Rng| (r.below(9) + 1) as f64 / 2.0;
    let mut base: Edges = (0..m)
        .map(|i| {
            let s = if i % 4 == 0 { r.below(3) } else { r.below(n) };
            let d = if i % 13 == 0 { s } else { r.below(n) };
            (s, d, w(&mut r))
        })
        .collect();
    // Sparse ids: gaps, and a few far above the rest.
    for e in base.iter_mut().step_by(7) {
        e.1 = e.1 * 1000 + 5;
    }
    let isolated = vec![n * 2000 + 1, 3];
    let mut adds = Vec::new();
    let mut removes = Vec::new();
    for i in 0..m / 3 {
        match r.below(4) {
            // An edge the base holds, with a new weight.
            0 => {
                let (s, d, _) = base[r.below(m as u64) as usize];
                adds.push((s, d, w(&mut r)));
            }
            // A new edge, among new vertices too.
            1 => adds.push((r.below(n), n * 3000 + r.below(n), w(&mut r))),
            2 => adds.push((r.below(n), r.below(n), w(&mut r))),
            // A self-loop.
            _ => adds.push((i as u64, i as u64, 1.0)),
        }
        // Removals of held edges (either way round), and of absent ones.
        let (s, d, _) = base[r.below(m as u64) as usize];
        removes.push(if r.below(2) == 0 { (s, d) } else { (d, s) });
        if r.below(3) == 0 {
            removes.push((n * 5000 + i as u64, 1));
        }
    }
    Case {
        base,
        isolated,
        adds,
        removes,
    }
}

fn layout(store: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut f = store_files(store);
    f.remove("manifest.json");
    f
}

/// The oracle's edge list: the base's edges less the removals (absent ones
/// counted), then the additions; and the absent removals.
fn expected(c: &Case, directed: bool, loops: bool) -> (BTreeMap<(u64, u64), f64>, u64) {
    let mut held = reference(&c.base, directed, loops);
    let mut absent = std::collections::BTreeSet::new();
    for &(s, d) in &c.removes {
        let k = if directed {
            (s, d)
        } else {
            (s.min(d), s.max(d))
        };
        if held.remove(&k).is_none() && !reference(&c.base, directed, loops).contains_key(&k) {
            absent.insert(k);
        }
    }
    for (k, w) in reference(&c.adds, directed, loops) {
        held.insert(k, w);
    }
    (held, absent.len() as u64)
}

fn check(seed: u64, directed: bool, order: VertexOrder, compress: bool, loops: bool) {
    outcore::progress::set_quiet(true);
    let c = case(seed, 60, 400);
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        directed,
        weighted: true,
        drop_self_loops: loops,
        memory: 128 << 20,
        order,
        compress,
        ..Default::default()
    };
    let store = dir.path().join("g.oc");
    let mut base = VecSource::new(c.base.iter().copied());
    base.vertices = c.isolated.clone();
    build_store(&mut base, &store, &opts).unwrap();
    let mut adds = VecSource::new(c.adds.iter().copied());
    // A vertex list with the additions (as an LDBC `.v` brings), new ids
    // among them.
    let listed = [5, 60 * 7000 + 1, 60 * 7000 + 2];
    adds.vertices = listed.to_vec();
    let removes = VecSource::new(c.removes.iter().map(|&(s, d)| (s, d, 1.0)));
    let uopts = UpdateOptions {
        memory: 256 << 20,
        scratch_dir: None,
    };
    let got = api::update(
        api::update::open(&store).unwrap(),
        vec![Box::new(adds)],
        vec![Box::new(removes)],
        &uopts,
    )
    .unwrap();
    let (want, absent) = expected(&c, directed, loops);
    assert_eq!(got.removals_absent, absent, "seed {seed}");
    assert_eq!(got.additions_read, c.adds.len() as u64);
    // Every vertex stays: the base's, the isolated ones, the added ones.
    let mut all = c.base.clone();
    all.extend(&c.adds);
    let mut isolated = c.isolated.clone();
    isolated.extend(listed);
    let vertices: Vec<u64> = reference_vertices(&all, &isolated).into_iter().collect();
    let mut oracle = VecSource::new(want.iter().map(|(&(s, d), &w)| (s, d, w)));
    oracle.vertices = vertices.clone();
    let rebuilt = build_store(&mut oracle, &dir.path().join("want.oc"), &opts).unwrap();
    let (a, b) = (&got.build.manifest, &rebuilt.manifest);
    assert_eq!(a.num_vertices, vertices.len() as u64, "seed {seed}");
    assert_eq!(
        (a.num_edges, a.num_self_loops),
        (b.num_edges, b.num_self_loops)
    );
    assert_eq!((a.vertex_order, a.tiles.compressed()), (order, compress));
    let (a, b) = (layout(&store), layout(&rebuilt.path));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(
            v == &b[k],
            "seed {seed}: {k} differs (directed {directed}, {order:?})"
        );
    }
    outcore::store::verify::verify(&store).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn an_update_builds_what_an_import_of_the_updated_list_builds(
        seed in 1u64..1_000_000, directed: bool, degree: bool, compress: bool, loops: bool,
    ) {
        let order = if degree { VertexOrder::Degree } else { VertexOrder::Original };
        check(seed, directed, order, compress, loops);
    }
}

#[test]
fn updates_of_string_ids_build_what_an_import_builds() {
    outcore::progress::set_quiet(true);
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let base = write(
        "base.csv",
        "ann,bob,1\nbob,\"c,d\",2\nZoë,ann,3\nbob,eve,4\n",
    );
    let adds = write("adds.csv", "ann,bob,9\nnew_one,Zoë,5\n");
    let removes = write("removes.csv", "\"c,d\",bob\neve,bob\nnobody,ann\n");
    // The oracle: the updated list with its vertices, as LDBC files.
    write("want.v", "ann\nbob\nc,d\nZoë\neve\nnew_one\n");
    let want = write("want.e", "ann bob 9\nZoë ann 3\nnew_one Zoë 5\n");
    let popts = ParseOptions {
        weighted: true,
        ids: IdKind::String,
        directed: false,
        ..Default::default()
    };
    let opts = BuildOptions {
        directed: false,
        weighted: true,
        memory: 128 << 20,
        order: VertexOrder::Degree,
        compress: true,
        ..Default::default()
    };
    let open = |p: &Path, weighted: bool| -> Box<dyn EdgeSource> {
        let o = ParseOptions {
            weighted,
            ..popts.clone()
        };
        parse::open(&[p.to_path_buf()], InputFormat::Csv, &o).unwrap()
    };
    let store = dir.path().join("g.oc");
    build_store(open(&base, true).as_mut(), &store, &opts).unwrap();
    let uopts = UpdateOptions {
        memory: 256 << 20,
        scratch_dir: None,
    };
    let r = api::update(
        api::update::open(&store).unwrap(),
        vec![open(&adds, true)],
        vec![open(&removes, false)],
        &uopts,
    )
    .unwrap();
    assert_eq!((r.removals, r.removals_absent, r.removed()), (3, 1, 2));
    // "c,d" and eve lost their edges and stay, as NetworkX keeps them.
    let path = dir.path().join("want.oc");
    let ldbc = [dir.path().join("want.v"), want];
    let mut src = parse::open(&ldbc, InputFormat::Ldbc, &popts).unwrap();
    build_store(src.as_mut(), &path, &opts).unwrap();
    let (a, b) = (store_files(&store), store_files(&path));
    for (k, v) in &a {
        if k != "manifest.json" {
            assert!(v == &b[k], "{k} differs");
        }
    }
    assert_eq!(r.build.manifest.num_vertices, 6);
    assert_eq!(r.build.manifest.num_edges, 3);
}

#[test]
fn an_update_refuses_ids_of_the_other_kind_and_leaves_the_store() {
    outcore::progress::set_quiet(true);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("g.oc");
    let mut base = VecSource::new([(1, 2, 1.0), (2, 3, 1.0)]);
    build_store(&mut base, &store, &BuildOptions::default()).unwrap();
    let before = store_files(&store);
    let names = dir.path().join("names.txt");
    std::fs::write(&names, "a b\n").unwrap();
    let popts = ParseOptions {
        ids: IdKind::String,
        ..Default::default()
    };
    let adds = parse::open(&[names], InputFormat::Snap, &popts).unwrap();
    let uopts = UpdateOptions {
        memory: 256 << 20,
        scratch_dir: None,
    };
    let e = api::update(
        api::update::open(&store).unwrap(),
        vec![adds],
        vec![],
        &uopts,
    )
    .unwrap_err();
    assert!(e.to_string().contains("integer ids"), "{e}");
    assert_eq!(store_files(&store), before);
}
