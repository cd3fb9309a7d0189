//! The oracle and the fixtures of the delta update tests: a store's shape,
//! the edge set NetworkX semantics give after each batch, the batch's
//! edge-list files, imports of the oracle and the view's lists in
//! original ids.

use crate::common::Rng;
use outcore::algo::reference::MemGraph;
use outcore::api::update::{edit_options, removal_options};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use outcore::ingest::update::Counts;
use outcore::ingest::EdgeSource;
use outcore::store::delta::format::{NEW_IDS_FILE, NEW_OFF_FILE, NEW_STR_FILE};
use outcore::store::{Id, Manifest, Store, VertexOrder};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub(crate) type Key = (u64, u64);

/// A store's shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub directed: bool,
    pub weighted: bool,
    pub names: bool,
    pub loops: bool,
}

/// The oracle: edges (NetworkX semantics) and vertices, by integer id.
pub(crate) struct Oracle {
    pub shape: Shape,
    pub edges: BTreeMap<Key, f64>,
    pub vertices: BTreeSet<u64>,
}

impl Oracle {
    fn key(&self, s: u64, d: u64) -> Key {
        match self.shape.directed || s <= d {
            true => (s, d),
            false => (d, s),
        }
    }

    /// Applies a batch; returns the counts the update should report and
    /// the new vertices.
    pub(crate) fn apply(&mut self, removes: &[Key], adds: &[(u64, u64, f64)]) -> (Counts, u64) {
        let before = self.edges.clone();
        let mut c = Counts::default();
        let asked: BTreeSet<Key> = removes.iter().map(|&(s, d)| self.key(s, d)).collect();
        c.removals = asked.len() as u64;
        for k in &asked {
            if self.edges.remove(k).is_none() {
                c.removals_absent += 1;
            }
        }
        let n0 = self.vertices.len();
        for &(s, d, w) in adds {
            self.vertices.insert(s);
            self.vertices.insert(d);
            if s == d && self.shape.loops {
                c.self_loops_dropped += 1;
                continue;
            }
            let w = if self.shape.weighted { w } else { 1.0 };
            let k = self.key(s, d);
            self.edges.insert(k, w);
        }
        for (k, w) in &self.edges {
            match before.get(k) {
                None => c.added += 1,
                Some(o) if o != w => c.reweighted += 1,
                _ => {}
            }
        }
        c.removed = before
            .keys()
            .filter(|k| !self.edges.contains_key(k))
            .count() as u64;
        (c, (self.vertices.len() - n0) as u64)
    }
}

pub(crate) fn name(shape: Shape, v: u64) -> String {
    match shape.names {
        // Names in another order than the integers.
        true => format!("n{}", v * 7919 % 10007),
        false => v.to_string(),
    }
}

/// The text a store's original id `id` has in the oracle's files.
pub(crate) fn text(id: &Id<'_>) -> String {
    match id {
        Id::Int(v) => v.to_string(),
        Id::Name(n) => String::from_utf8_lossy(n).into_owned(),
    }
}

pub(crate) fn unquote(s: String) -> String {
    match s.starts_with('"') {
        true => s.trim_matches('"').to_string(),
        false => s,
    }
}

/// Writes `edges` as text: CSV for names (`csv`), else blank-separated.
pub(crate) fn write_edges(
    dir: &Path,
    file: &str,
    shape: Shape,
    edges: &[(u64, u64, f64)],
    csv: bool,
) -> PathBuf {
    let p = dir.join(file);
    let sep = if csv && shape.names { "," } else { " " };
    let mut t = String::new();
    for &(s, d, w) in edges {
        t += &format!("{}{sep}{}", name(shape, s), name(shape, d));
        if shape.weighted {
            t += &format!("{sep}{w}");
        }
        t += "\n";
    }
    std::fs::write(&p, t).unwrap();
    p
}

pub(crate) fn popts(shape: Shape, weighted: bool) -> (InputFormat, ParseOptions) {
    let f = if shape.names {
        InputFormat::Csv
    } else {
        InputFormat::Snap
    };
    let o = ParseOptions {
        weighted,
        directed: shape.directed,
        ids: if shape.names {
            IdKind::String
        } else {
            IdKind::Int
        },
        allow_empty: true,
        ..Default::default()
    };
    (f, o)
}

pub(crate) fn bopts(shape: Shape) -> BuildOptions {
    BuildOptions {
        directed: shape.directed,
        weighted: shape.weighted,
        drop_self_loops: shape.loops,
        memory: 128 << 20,
        order: VertexOrder::Degree,
        ..Default::default()
    }
}

/// Builds a store of `edges` (and isolated `vertices`, as a vertex list
/// of an LDBC pair when there are any) at `dir/file`.
pub(crate) fn import(dir: &Path, file: &str, shape: Shape, o: &Oracle) -> Store {
    import_coded(dir, file, shape, o, false)
}

/// [`import`], with compressed tiles and lists when `compress`.
pub(crate) fn import_coded(
    dir: &Path,
    file: &str,
    shape: Shape,
    o: &Oracle,
    compress: bool,
) -> Store {
    let edges: Vec<(u64, u64, f64)> = o.edges.iter().map(|(&(s, d), &w)| (s, d, w)).collect();
    let e = write_edges(dir, &format!("{file}.e"), shape, &edges, false);
    let mut vt = String::new();
    for &v in &o.vertices {
        vt += &(name(shape, v) + "\n");
    }
    let vp = dir.join(format!("{file}.v"));
    std::fs::write(&vp, vt).unwrap();
    let (_, po) = popts(shape, shape.weighted);
    let mut src = parse::open(&[vp, e], InputFormat::Ldbc, &po).unwrap();
    let path = dir.join(file);
    let b = BuildOptions {
        compress,
        ..bopts(shape)
    };
    build_store(src.as_mut(), &path, &b).unwrap();
    Store::open_with_delta(&path).unwrap()
}

/// Each direction's lists of a store's view, in original ids (as the
/// oracle's files name them), with weights' bits.
pub(crate) fn view_lists(store: &Store) -> Vec<BTreeMap<(String, String), u64>> {
    let g = MemGraph::load(store).unwrap();
    let ids = store.load_ids().unwrap();
    let n_base = store.base().num_vertices;
    let mut new: Vec<String> = Vec::new();
    if store.manifest().num_vertices > n_base {
        if store.base().string_ids {
            let off = store.read_delta_u64s(NEW_OFF_FILE).unwrap();
            let bytes = store.read_delta_file(NEW_STR_FILE).unwrap();
            new = (off.windows(2))
                .map(|w| String::from_utf8_lossy(&bytes[w[0] as usize..w[1] as usize]).into())
                .collect();
        } else {
            new = (store.read_delta_u64s(NEW_IDS_FILE).unwrap().iter())
                .map(|v| v.to_string())
                .collect();
        }
    }
    let orig = |v: u64| match v < n_base {
        true => text(&ids.get(v)),
        false => new[(v - n_base) as usize].clone(),
    };
    let map = |lists: &[Vec<(u32, f64)>]| {
        let mut m = BTreeMap::new();
        for (v, l) in lists.iter().enumerate() {
            for &(u, w) in l {
                m.insert((orig(v as u64), orig(u as u64)), w.to_bits());
            }
        }
        m
    };
    let mut all: BTreeSet<String> = (0..n_base).map(|v| text(&ids.get(v))).collect();
    all.extend(new.iter().cloned());
    let mut vs = BTreeMap::new();
    for v in all {
        vs.insert((v, String::new()), 0);
    }
    vec![map(&g.out), map(&g.inn), vs]
}

pub(crate) fn counts(m: &Manifest) -> [u64; 5] {
    [
        m.num_vertices,
        m.num_edges,
        m.num_self_loops,
        m.degrees.max_out,
        m.degrees.max_in,
    ]
}

/// A batch: removals of held edges (either way round, twice), of absent
/// edges and of unknown vertices; additions of held edges (new weights),
/// duplicates, self-loops, new vertices.
pub(crate) fn batch(
    o: &Oracle,
    r: &mut Rng,
    n: u64,
    size: usize,
) -> (Vec<Key>, Vec<(u64, u64, f64)>) {
    let held: Vec<Key> = o.edges.keys().copied().collect();
    let w = |r: &mut Rng| (r.below(9) + 1) as f64 / 2.0;
    let mut removes = Vec::new();
    let mut adds = Vec::new();
    for i in 0..size {
        let (s, d) = held[r.below(held.len() as u64) as usize];
        match r.below(4) {
            0 => removes.push((d, s)),
            1 => removes.push((n * 50 + i as u64, s)),
            _ => removes.push((s, d)),
        }
        if r.below(5) == 0 {
            removes.push((r.below(n), r.below(n)));
        }
        match r.below(6) {
            0 => adds.push((s, d, w(r))),
            1 => adds.push((r.below(n), n * 20 + r.below(n), w(r))),
            2 => adds.push((i as u64 % n, i as u64 % n, w(r))),
            3 => {
                let e = (r.below(n), r.below(n), w(r));
                adds.push(e);
                adds.push((e.0, e.1, w(r)));
            }
            _ => adds.push((r.below(n), r.below(n), w(r))),
        }
    }
    (removes, adds)
}

pub(crate) fn sources(
    dir: &Path,
    store: &Store,
    shape: Shape,
    tag: &str,
    rm: &[Key],
    add: &[(u64, u64, f64)],
) -> [Vec<Box<dyn EdgeSource>>; 2] {
    let rm: Vec<(u64, u64, f64)> = rm.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    let (f, _) = popts(shape, true);
    let mut po = edit_options(store, false, None, shape.names.then_some(b','));
    po.allow_empty = true;
    let a = write_edges(dir, &format!("{tag}.add"), shape, add, true);
    let no_w = Shape {
        weighted: false,
        ..shape
    };
    let r = write_edges(dir, &format!("{tag}.rm"), no_w, &rm, true);
    [
        vec![parse::open(&[a], f, &po).unwrap()],
        vec![parse::open(&[r], f, &removal_options(&po)).unwrap()],
    ]
}
