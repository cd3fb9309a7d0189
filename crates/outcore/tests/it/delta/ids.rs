//! The I seam (issue 53, S3): with new vertices whose ids fall among the
//! base's, every reader of ids and ranks (`load_ids`, `load_ranks`,
//! `for_each_rank`, `rank_reader`, `IdLookup`, `RankWalk`, `LabelNames`)
//! gives the view's ranks: those of a store rebuilt with the same vertices.

use crate::common::Rng;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::ingest::VecSource;
use outcore::store::delta::testing::write_ops;
use outcore::store::verify::verify;
use outcore::store::walk::{LabelNames, RankBatch, RankWalk};
use outcore::store::{Id, IdLookup, Store, VertexOrder};
use std::path::Path;

pub type Adds = Vec<(Id<'static>, Id<'static>, f64)>;
pub type Removes = Vec<(Id<'static>, Id<'static>)>;

pub fn opts(directed: bool, weighted: bool, order: VertexOrder) -> BuildOptions {
    BuildOptions {
        directed,
        weighted,
        memory: 128 << 20,
        group_tiles: 2,
        order,
        ..Default::default()
    }
}

/// A store of integer-id edges and isolated `vertices`.
pub fn int_store(
    path: &Path,
    edges: &[(u64, u64, f64)],
    vertices: &[u64],
    o: &BuildOptions,
) -> Store {
    outcore::progress::set_quiet(true);
    let mut src = VecSource::new(edges.iter().copied());
    src.vertices = vertices.to_vec();
    let r = build_store(&mut src, path, o).unwrap();
    Store::open(&r.path).unwrap()
}

/// A store of named edges (a csv read with string ids).
pub fn name_store(path: &Path, edges: &[(String, String, f64)], o: &BuildOptions) -> Store {
    outcore::progress::set_quiet(true);
    let csv = path.with_extension("csv");
    let text: String = edges
        .iter()
        .map(|(a, b, w)| format!("{a},{b},{w}\n"))
        .collect();
    std::fs::write(&csv, text).unwrap();
    let popts = ParseOptions {
        weighted: true,
        ids: IdKind::String,
        ..Default::default()
    };
    let mut src = parse::open(std::slice::from_ref(&csv), InputFormat::Csv, &popts).unwrap();
    let r = build_store(src.as_mut(), path, o).unwrap();
    Store::open(&r.path).unwrap()
}

/// Every reader of ids and ranks of `view` agrees with `rebuilt` (the
/// same vertices): ranks are positions among the sorted original ids.
pub fn same_ids(view: &Store, rebuilt: &Store) {
    let n = rebuilt.manifest().num_vertices;
    assert_eq!(view.manifest().num_vertices, n);
    let (ov, or) = (view.load_ids().unwrap(), rebuilt.load_ids().unwrap());
    let ranks: Vec<u64> = (0..n).map(|v| ov.rank(v)).collect();
    for v in 0..n {
        assert_eq!(or.original_of_rank(ranks[v as usize]), ov.get(v), "{v}");
    }
    for r in 0..n {
        assert_eq!(ov.original_of_rank(r), or.original_of_rank(r), "rank {r}");
        assert_eq!(ov.rank(ov.dense_of_rank(r)), r);
    }
    let loaded = view.load_ranks().unwrap().unwrap();
    assert_eq!(loaded.iter().map(|&r| r as u64).collect::<Vec<_>>(), ranks);
    let mut streamed = Vec::new();
    assert!(view
        .for_each_rank(|first, r| {
            assert_eq!(first, streamed.len() as u64);
            streamed.extend(r.iter().map(|&r| r as u64));
        })
        .unwrap());
    assert_eq!(streamed, ranks, "for_each_rank");
    let mut s = view.rank_reader().unwrap();
    let one: Vec<u64> = (0..n).map(|_| s.next_rank().unwrap()).collect();
    assert_eq!(one, ranks, "next_rank");
    let (mut s, mut buf, mut batched) = (view.rank_reader().unwrap(), Vec::new(), Vec::new());
    while (batched.len() as u64) < n {
        let mut out = vec![0; 7.min(n as usize - batched.len())];
        s.next_ranks(&mut out, &mut buf).unwrap();
        batched.extend(out);
    }
    assert_eq!(batched, ranks, "next_ranks");

    let l = IdLookup::open(view).unwrap();
    for v in 0..n {
        let r = ranks[v as usize];
        assert_eq!(l.rank(v).unwrap(), r);
        assert_eq!(l.dense_of_rank(r).unwrap(), v);
        let id = or.original_of_rank(r).into_owned();
        assert_eq!(l.original(v).unwrap(), id);
        assert_eq!(l.original_of_rank(r).unwrap(), id);
        assert_eq!(l.rank_of_text(&id.to_string()).unwrap(), Some(r), "{id}");
        assert_eq!(l.dense_of_text(&id.to_string()).unwrap(), Some(v), "{id}");
        if let Id::Int(x) = id {
            assert_eq!(l.rank_of_original(x).unwrap(), Some(r));
            assert_eq!(l.dense(x).unwrap(), Some(v));
        }
    }
    let absent = if l.string_ids() {
        "no such name"
    } else {
        "999999999"
    };
    assert_eq!(l.rank_of_text(absent).unwrap(), None);
    assert!(l.rank(n).is_err() && l.original_of_rank(n).is_err());

    let mut w = RankWalk::open(view).unwrap();
    let mut r = 0;
    while let Some((rank, dense, id)) = w.next_vertex().unwrap() {
        assert_eq!((rank, dense), (r, ov.dense_of_rank(r)), "walk");
        assert_eq!(id, or.original_of_rank(r));
        r += 1;
    }
    assert_eq!(r, n);
    let (mut w, mut b, mut r) = (RankWalk::open(view).unwrap(), RankBatch::default(), 0);
    while w.next_batch(5, &mut b).unwrap() {
        assert_eq!(b.first, r);
        for i in 0..b.len() {
            assert_eq!(b.dense[i], ov.dense_of_rank(r + i as u64));
            assert_eq!(b.id(i), or.original_of_rank(r + i as u64));
        }
        r += b.len() as u64;
    }
    assert_eq!(r, n);
    let mut names = LabelNames::open(view).unwrap();
    let own = or.original_of_rank(0).into_owned();
    for r in (0..n).rev() {
        assert_eq!(names.name(r, 0, &own).unwrap(), or.original_of_rank(r));
    }
}

/// Integer ids 10, 20, ... and new ones before, between and after them
/// (arriving out of order), in each vertex order.
#[test]
fn delta_ids_interleaved_ints() {
    for (k, order) in [VertexOrder::Degree, VertexOrder::Original]
        .into_iter()
        .enumerate()
    {
        let d = tempfile::tempdir().unwrap();
        let mut rng = Rng::new(3 + k as u64);
        let edges: Vec<(u64, u64, f64)> = (0..120)
            .map(|_| (10 * rng.below(40), 10 * rng.below(40), 1.0))
            .collect();
        let o = opts(true, false, order);
        let store = int_store(&d.path().join("g.oc"), &edges, &[395], &o);
        let new = [1005u64, 15, 3, 231, 9999, 2, 16];
        let adds: Adds = new
            .iter()
            .map(|&x| (Id::Int(x), Id::Int(10 * rng.below(40)), 1.0))
            .collect();
        let (s, t, _) = edges[0];
        write_ops(&store, &[(Id::Int(s), Id::Int(t))], &adds).unwrap();
        let view = Store::open_with_delta(store.path()).unwrap();
        let mut all = edges.clone();
        all.extend(
            new.iter()
                .zip(&adds)
                .map(|(&x, a)| (x, a.1.as_u64().unwrap(), 1.0)),
        );
        let rebuilt = int_store(&d.path().join("r.oc"), &all, &[395], &o);
        same_ids(&view, &rebuilt);
        verify(view.path()).unwrap();
    }
}

/// Names, new ones among the base's.
#[test]
fn delta_ids_interleaved_names() {
    let d = tempfile::tempdir().unwrap();
    let name = |i: u64| format!("v{i:03}");
    let mut rng = Rng::new(9);
    let edges: Vec<(String, String, f64)> = (0..90)
        .map(|_| (name(2 * rng.below(30)), name(2 * rng.below(30)), 1.0))
        .collect();
    let o = opts(false, true, VertexOrder::Degree);
    let store = name_store(&d.path().join("g.oc"), &edges, &o);
    let new = ["v031", "a", "v007", "zz top", "v0071"];
    let adds: Adds = new
        .iter()
        .map(|x| {
            let a = Id::Name(x.as_bytes().to_vec().into());
            (
                a,
                Id::Name(name(2 * rng.below(30)).into_bytes().into()),
                2.0,
            )
        })
        .collect();
    write_ops(&store, &[], &adds).unwrap();
    let view = Store::open_with_delta(store.path()).unwrap();
    let mut all = edges.clone();
    for (x, a) in new.iter().zip(&adds) {
        let Id::Name(b) = &a.1 else { unreachable!() };
        let b = String::from_utf8(b.to_vec()).unwrap();
        all.push((format!("\"{x}\""), b, 2.0));
    }
    let rebuilt = name_store(&d.path().join("r.oc"), &all, &o);
    same_ids(&view, &rebuilt);
    verify(view.path()).unwrap();
}
