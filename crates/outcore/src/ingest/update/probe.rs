//! The probe and the normalisation of an update: each edge the batch
//! touches, keyed by dense ids (smaller first in an undirected store),
//! with its weight in the base (a merge-join of the sorted keys with one
//! sequential scan of the base's out-CSR), in the previous view (the old
//! generation's records over the base) and after the batch (removals,
//! then additions, the last occurrence winning). What the new generation
//! records for it follows from base and after alone: nothing when they
//! agree, a tombstone of a base edge the view lacks, an addition of an
//! edge (or weight) the base lacks; so a generation is old delta ⊕ batch,
//! normalised against the base, as LSM-style compaction of two levels.

use super::batch::{Batch, KeyHash};
use super::ids::{Joined, UNKNOWN};
use crate::error::Result;
use crate::store::csrscan::scan_base_lists;
use crate::store::delta::format::record;
use crate::store::delta::DeltaLists;
use crate::store::Store;
use std::collections::HashSet;

/// A touched edge: its key, its weight in the base, in the previous view
/// and after the batch (`None`: absent), and whether a removal named it.
#[derive(Clone, Copy, Debug)]
pub struct Touched {
    pub s: u64,
    pub d: u64,
    pub base: Option<f64>,
    pub old: Option<f64>,
    pub new: Option<f64>,
    pub removal: bool,
}

/// The batch's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Distinct edges asked to be removed, and those of them the view did
    /// not hold.
    pub removals: u64,
    pub removals_absent: u64,
    /// Edges of the new view the previous one lacked, edges it held that
    /// the new one lacks, edges whose weight changed.
    pub added: u64,
    pub removed: u64,
    pub reweighted: u64,
    /// Added self-loops the store's build option dropped.
    pub self_loops_dropped: u64,
}

/// The touched edges of `batch` (ids joined in `j`), sorted by key, with
/// the batch's counts (all but `added`, `removed` and `reweighted`,
/// which [`probe`] sets).
pub fn touched(store: &Store, batch: &Batch, j: &Joined) -> (Vec<Touched>, Counts) {
    let m = store.base();
    let key = |s: u64, d: u64| match m.directed || s <= d {
        true => (s, d),
        false => (d, s),
    };
    let mut c = Counts::default();
    // (key, order, weight): removals first, then additions in order.
    let mut ops: Vec<((u64, u64), u64, f64)> =
        Vec::with_capacity(batch.removes.len() + batch.adds.len());
    let mut unknown: HashSet<(u32, u32), std::hash::BuildHasherDefault<KeyHash>> =
        HashSet::default();
    for (k, &(s, d)) in batch.removes.iter().enumerate() {
        let (ds, dd) = (j.dense[s as usize], j.dense[d as usize]);
        if ds == UNKNOWN || dd == UNKNOWN {
            unknown.insert(if m.directed || s <= d { (s, d) } else { (d, s) });
            continue;
        }
        ops.push((key(ds, dd), k as u64, f64::NAN));
    }
    let r = batch.removes.len() as u64;
    for (k, &(s, d, w)) in batch.adds.iter().enumerate() {
        let (ds, dd) = (j.dense[s as usize], j.dense[d as usize]);
        if ds == dd && m.build.drop_self_loops {
            c.self_loops_dropped += 1;
            continue;
        }
        let w = if m.weighted { w } else { 1.0 };
        ops.push((key(ds, dd), r + k as u64, w));
    }
    ops.sort_unstable_by_key(|o| (o.0, o.1));
    let mut out: Vec<Touched> = Vec::new();
    for (i, &((s, d), k, w)) in ops.iter().enumerate() {
        let first = i == 0 || ops[i - 1].0 != (s, d);
        if first {
            out.push(Touched {
                s,
                d,
                base: None,
                old: None,
                new: None,
                removal: false,
            });
        }
        let t = out.last_mut().expect("pushed");
        match k < r {
            true => t.removal = true,
            false => t.new = Some(w),
        }
    }
    c.removals = out.iter().filter(|t| t.removal).count() as u64 + unknown.len() as u64;
    c.removals_absent = unknown.len() as u64;
    (out, c)
}

/// Fills in the base's and the previous view's weights of `touched`
/// (sorted by key) and the view's counts in `c`.
pub fn probe(
    store: &Store,
    old: &[Option<DeltaLists>],
    touched: &mut [Touched],
    c: &mut Counts,
) -> Result<()> {
    let m = store.base();
    // Base: one scan of the out-CSR a list at a time; a list the batch
    // touches is searched for the keys of its vertex, the others skipped.
    let mut at = 0usize;
    scan_base_lists(store, "out", m.weighted, |l| {
        while at < touched.len() && touched[at].s < l.v {
            at += 1;
        }
        let mut hi = at;
        while hi < touched.len() && touched[hi].s == l.v {
            hi += 1;
        }
        for t in &mut touched[at..hi] {
            if let Ok(i) = l.nbrs.binary_search(&t.d) {
                t.base = Some(l.weight(i));
            }
        }
        at = hi;
        Ok(())
    })?;
    // The previous view: the base, less its tombstones, with its additions.
    let out = old.first().and_then(|l| l.as_ref());
    for t in touched.iter_mut() {
        t.old = t.base;
        if let Some(r) = out.and_then(|l| l.lookup(t.s)) {
            if let Ok(i) = r.recs.binary_search(&record(t.d, false)) {
                t.old = Some(r.weights.map_or(1.0, |w| w[i]));
            } else if r.recs.binary_search(&record(t.d, true)).is_ok() {
                t.old = None;
            }
        }
        // Removals apply to the previous view; `new` is the last
        // addition's weight, or none.
        if t.removal {
            c.removals_absent += t.old.is_none() as u64;
        }
        match (t.old, t.new) {
            (None, Some(_)) => c.added += 1,
            (Some(_), None) => c.removed += 1,
            (Some(a), Some(b)) if a.to_bits() != b.to_bits() => c.reweighted += 1,
            _ => {}
        }
    }
    Ok(())
}

/// One record of the new generation: vertex, record, weight.
pub type Rec = (u64, u64, f64);

/// The new generation's records by direction (unsorted): the old
/// generation's records of edges the batch did not touch, and the
/// normalised records of those it did.
pub fn records(store: &Store, old: &[Option<DeltaLists>], touched: &[Touched]) -> Vec<Vec<Rec>> {
    let m = store.base();
    let directed = m.directed;
    let dirs = if directed { 2 } else { 1 };
    let mut out: Vec<Vec<Rec>> = vec![Vec::new(); dirs];
    let is_touched = |s: u64, d: u64| {
        touched
            .binary_search_by_key(&(s, d), |t| (t.s, t.d))
            .is_ok()
    };
    for (i, l) in old.iter().enumerate() {
        let Some(l) = l else { continue };
        for r in l.cursor() {
            for (k, &x) in r.recs.iter().enumerate() {
                let u = x >> 1;
                let (s, d) = match (i, directed) {
                    (0, true) => (r.v, u),
                    (_, true) => (u, r.v),
                    _ => (r.v.min(u), r.v.max(u)),
                };
                if !is_touched(s, d) {
                    out[i].push((r.v, x, r.weights.map_or(1.0, |w| w[k])));
                }
            }
        }
    }
    let mut put = |s: u64, d: u64, w: f64, tomb: bool| {
        out[0].push((s, record(d, tomb), w));
        if directed {
            out[1].push((d, record(s, tomb), w));
        } else if s != d {
            out[0].push((d, record(s, tomb), w));
        }
    };
    for t in touched {
        match (t.base, t.new) {
            (Some(a), Some(b)) if a.to_bits() == b.to_bits() => {}
            (None, None) => {}
            (Some(_), None) => put(t.s, t.d, 0.0, true),
            (None, Some(b)) => put(t.s, t.d, b, false),
            (Some(_), Some(b)) => {
                put(t.s, t.d, 0.0, true);
                put(t.s, t.d, b, false);
            }
        }
    }
    out
}
