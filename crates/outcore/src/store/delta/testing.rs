//! Test support: a batch of removals and additions in original ids,
//! normalised against the base's lists in memory (the whole graph: small
//! stores only) and written as the next generation. What seam tests use
//! until the update's own probe and merge (issue 53, U1) exist.
//!
//! Removals first, then additions; the last occurrence wins; self-loops
//! follow the base's `drop_self_loops` (their vertices stay); endpoints
//! the base lacks become new vertices in order of first appearance.

use super::format::record;
use super::write::{DeltaWriter, Stop, ViewCounts};
use crate::error::{Error, Result};
use crate::store::csrscan::scan_base_csr;
use crate::store::{Id, Store};
use std::collections::{BTreeMap, HashMap};

/// What a batch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpsReport {
    /// Edges of the view the base lacks, and base edges the view lacks
    /// (a new weight counts in both).
    pub added: u64,
    pub removed: u64,
    /// Additions of an edge already there with that weight, removals of
    /// an edge not there.
    pub present_adds: u64,
    pub absent_removes: u64,
    pub new_vertices: u64,
    pub self_loops_dropped: u64,
}

type Key = (u64, u64);

/// Writes `removes` then `adds` (original ids; weights ignored in an
/// unweighted store) as the next generation of `store`'s delta.
pub fn write_ops(
    store: &Store,
    removes: &[(Id<'static>, Id<'static>)],
    adds: &[(Id<'static>, Id<'static>, f64)],
) -> Result<OpsReport> {
    write(store, removes, adds, None)
}

/// [`write_ops`], left as a kill at `at` would leave it.
pub fn write_ops_torn(
    store: &Store,
    removes: &[(Id<'static>, Id<'static>)],
    adds: &[(Id<'static>, Id<'static>, f64)],
    at: Stop,
) -> Result<OpsReport> {
    write(store, removes, adds, Some(at))
}

fn write(
    store: &Store,
    removes: &[(Id<'static>, Id<'static>)],
    adds: &[(Id<'static>, Id<'static>, f64)],
    stop: Option<Stop>,
) -> Result<OpsReport> {
    if store.delta().is_some() {
        return Err(Error::Invalid(
            "write_ops on a store that has a delta: merging generations needs the merged lists"
                .into(),
        ));
    }
    let m = store.base();
    let n = m.num_vertices;
    let ids = store.load_base_ids()?;
    let mut dense: HashMap<Id<'static>, u64> =
        (0..n).map(|v| (ids.get(v).into_owned(), v)).collect();
    let key = |s: u64, d: u64| {
        if m.directed {
            (s, d)
        } else {
            (s.min(d), s.max(d))
        }
    };
    let mut base: BTreeMap<Key, f64> = BTreeMap::new();
    scan_base_csr(store, "out", m.weighted, |v, _, u, w| {
        base.insert(key(v, u), w);
        Ok(())
    })?;
    let mut cur = base.clone();
    let mut r = OpsReport::default();
    for (a, b) in removes {
        let gone = match (dense.get(a), dense.get(b)) {
            (Some(&s), Some(&d)) => cur.remove(&key(s, d)).is_none(),
            _ => true,
        };
        r.absent_removes += gone as u64;
    }
    let mut new: Vec<Id<'static>> = Vec::new();
    for (a, b, w) in adds {
        let mut id = |x: &Id<'static>| {
            let next = n + new.len() as u64;
            *dense.entry(x.clone()).or_insert_with(|| {
                new.push(x.clone());
                next
            })
        };
        let (s, d) = (id(a), id(b));
        if s == d && m.build.drop_self_loops {
            r.self_loops_dropped += 1;
            continue;
        }
        let w = if m.weighted { *w } else { 1.0 };
        r.present_adds += (cur.insert(key(s, d), w) == Some(w)) as u64;
    }
    let nv = n + new.len() as u64;
    r.new_vertices = new.len() as u64;
    // The records: additions (new edges, new weights) and tombstones.
    let directed = m.directed;
    let mut lists: [BTreeMap<u64, Vec<(u64, f64)>>; 2] = Default::default();
    let mut put = |s: u64, d: u64, w: f64, tomb: bool| {
        lists[0].entry(s).or_default().push((record(d, tomb), w));
        if directed {
            lists[1].entry(d).or_default().push((record(s, tomb), w));
        } else if s != d {
            lists[0].entry(d).or_default().push((record(s, tomb), w));
        }
    };
    for (&(s, d), &w) in &cur {
        if base.get(&(s, d)) != Some(&w) {
            put(s, d, w, false);
            r.added += 1;
        }
    }
    for (&(s, d), &w) in &base {
        if cur.get(&(s, d)) != Some(&w) {
            put(s, d, 0.0, true);
            r.removed += 1;
        }
    }
    let mut deg = [vec![0u64; nv as usize], vec![0u64; nv as usize]];
    let mut loops = 0;
    for &(s, d) in cur.keys() {
        loops += (s == d) as u64;
        deg[0][s as usize] += 1;
        if directed {
            deg[1][d as usize] += 1;
        } else if s != d {
            deg[0][d as usize] += 1;
        }
    }
    let max = |d: &[u64]| d.iter().copied().max().unwrap_or(0);
    let counts = ViewCounts {
        num_edges: cur.len() as u64,
        num_self_loops: loops,
        max_out: max(&deg[0]),
        max_in: if directed { max(&deg[1]) } else { max(&deg[0]) },
        added: r.added,
        removed: r.removed,
    };
    let mut w = DeltaWriter::create(store, nv)?;
    for (i, which) in super::format::directions(m).iter().enumerate() {
        let mut l = w.lists(which)?;
        for (&v, list) in &mut lists[i] {
            list.sort_by_key(|e| e.0);
            let recs: Vec<u64> = list.iter().map(|e| e.0).collect();
            let ws: Vec<f64> = list.iter().map(|e| e.1).collect();
            l.push(v, &recs, &ws, deg[i][v as usize])?;
        }
        w.close_lists(l)?;
    }
    if !new.is_empty() {
        let sorted: Vec<Id<'_>> = (0..n).map(|r| ids.original_of_rank(r)).collect();
        let mut ins: Vec<(Id<'static>, u64, u64)> = new
            .iter()
            .zip(n..)
            .map(|(id, v)| (id.clone(), sorted.partition_point(|b| b < id) as u64, v))
            .collect();
        ins.sort();
        let ins: Vec<(u64, u64)> = ins.into_iter().map(|(_, r, v)| (r, v)).collect();
        w.new_ids(&new, &ins)?;
    }
    match stop {
        None => w.commit(counts)?,
        Some(at) => w.stop(at)?,
    }
    Ok(r)
}
