//! The id join of an update: each id of the batch is a base vertex (its
//! dense id through the base's id maps), a vertex an earlier generation
//! added (`n_base..n_old`, from that generation's `ids/new.*`), or, when
//! an addition names it, a new vertex (`n_old..n'` in order of arrival).
//! Ids only removals name stay unknown: their removals are absent.
//!
//! The base's maps are held in memory ([`crate::store::ids::OriginalIds`],
//! up to 16 bytes a vertex, as the rewrite holds them) and each distinct
//! id of the batch is found by binary search over the ranks.

use super::batch::{Batch, KeyMap};
use crate::error::Result;
use crate::ingest::names::fingerprint;
use crate::store::delta::NewIds;
use crate::store::OriginalIds;
use crate::store::{Id, Store};
use std::borrow::Cow;

/// An id of the batch that is no vertex.
pub const UNKNOWN: u64 = u64::MAX;

/// The join's result.
pub struct Joined {
    /// The dense id of each interned id of the batch, or [`UNKNOWN`].
    pub dense: Vec<u64>,
    /// Vertices of the view: the base's, the earlier generations' new
    /// ones, this batch's.
    pub n_view: u64,
    /// The original ids of every vertex past the base (dense `n_base..`),
    /// and for each, (base ranks before it, dense id), by original id.
    pub new_ids: Vec<Id<'static>>,
    pub ins: Vec<(u64, u64)>,
    /// Vertices this batch adds.
    pub new_vertices: u64,
}

/// The base ranks whose original id is below `id`, and whether rank
/// `that` holds `id` itself.
fn rank_of(ids: &OriginalIds, n: u64, id: &Id<'_>) -> (u64, bool) {
    rank_from(ids, 0, n, id)
}

/// [`rank_of`] for an id known to be at or past rank `from`: a gallop
/// from `from`, then a binary search inside the step it overshot.
fn rank_from(ids: &OriginalIds, from: u64, n: u64, id: &Id<'_>) -> (u64, bool) {
    let (mut lo, mut step) = (from, 1u64);
    while lo + step <= n && ids.original_of_rank(lo + step - 1) < *id {
        lo += step;
        step *= 2;
    }
    let mut hi = (lo + step).min(n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ids.original_of_rank(mid) < *id {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo, lo < n && ids.original_of_rank(lo) == *id)
}

/// The original ids of the vertices earlier generations added, by dense
/// id (the I seam's [`NewIds`], checked as every reader checks it).
fn old_new_ids(store: &Store) -> Result<Vec<Id<'static>>> {
    let Some(new) = NewIds::load(store)? else {
        return Ok(Vec::new());
    };
    let first = new.n_base();
    Ok((first..first + new.len())
        .map(|v| new.id(v).into_owned())
        .collect())
}

/// The key of an original id in the batch: the integer, or the name's
/// fingerprint.
fn key_of(id: &Id<'_>) -> u128 {
    match id {
        Id::Int(v) => *v as u128,
        Id::Name(n) => fingerprint(n),
    }
}

/// Joins `batch`'s ids with `store`'s (see the module docs).
pub fn join(store: &Store, ids: &OriginalIds, batch: &Batch) -> Result<Joined> {
    let m = store.base();
    let n_base = m.num_vertices;
    let id_of = |i: u32| -> Id<'_> {
        match m.string_ids {
            true => Id::Name(Cow::Borrowed(batch.name(i))),
            false => Id::Int(batch.ids[i as usize] as u64),
        }
    };
    let old = old_new_ids(store)?;
    let old_dense: KeyMap<u128, u64> = (old.iter().zip(n_base..))
        .map(|(id, v)| (key_of(id), v))
        .collect();
    // The batch's ids in increasing order, each found by galloping from
    // the previous one's rank: the base's maps are walked forward once
    // instead of searched from the top for every id.
    let mut by_id: Vec<(Id<'_>, u32)> =
        (0..batch.ids.len() as u32).map(|i| (id_of(i), i)).collect();
    by_id.sort_unstable();
    let mut dense = vec![UNKNOWN; batch.ids.len()];
    let mut from = 0;
    for (id, i) in &by_id {
        let (r, found) = rank_from(ids, from, n_base, id);
        from = r;
        dense[*i as usize] = match found {
            true => ids.dense_of_rank(r),
            false => old_dense
                .get(&batch.ids[*i as usize])
                .copied()
                .unwrap_or(UNKNOWN),
        };
    }
    drop(by_id);
    // New vertices: listed ones, then the additions' endpoints, in order.
    let n_old = n_base + old.len() as u64;
    let mut new_ids = old;
    let order =
        (batch.listed.iter().copied()).chain(batch.adds.iter().flat_map(|&(s, d, _)| [s, d]));
    for i in order {
        if dense[i as usize] == UNKNOWN {
            dense[i as usize] = n_base + new_ids.len() as u64;
            new_ids.push(id_of(i).into_owned());
        }
    }
    let n_view = n_base + new_ids.len() as u64;
    let mut ins: Vec<(&Id<'static>, u64, u64)> = (new_ids.iter().zip(n_base..))
        .map(|(id, v)| (id, rank_of(ids, n_base, id).0, v))
        .collect();
    ins.sort();
    let ins = ins.into_iter().map(|(_, r, v)| (r, v)).collect();
    Ok(Joined {
        dense,
        n_view,
        new_vertices: n_view - n_old,
        new_ids,
        ins,
    })
}
