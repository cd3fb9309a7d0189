//! The I seam's primitive (issue 53): the vertices a delta adds, and the
//! ranks of the view, as an LSM-style read merges a run with the level
//! above it (PartitionedVC's buffered structural updates, merged on
//! read). New vertices get dense ids `n_base..n'` in arrival order; their
//! original ids fall anywhere among the base's, so the view's ranks (the
//! positions among all sorted original ids, what a rebuild's ranks are)
//! interleave:
//!
//! - base rank `r` has view rank `r + #{ins <= r}`, where `ins` of a new
//!   vertex is the number of base ranks before it ([`NewIds::shift`]);
//! - the `j`th new vertex by original id has view rank `ins_j + j`.
//!
//! [`NewIds`] holds the new vertices' ids and `ins` in memory (16 bytes a
//! new vertex, plus the names): a delta stays small beside its base until
//! compaction. The readers of ids and ranks (`Store::load_ranks`,
//! `for_each_rank`, `RankStream`, `OriginalIds`, `IdLookup`, `RankWalk`,
//! `LabelNames`) apply it at one call site each.

use super::format::{INS_FILE, NEW_IDS_FILE, NEW_OFF_FILE, NEW_STR_FILE};
use crate::error::{Error, Result};
use crate::store::{Id, Store};
use std::borrow::Cow;

/// Original ids of the new vertices, by dense id.
enum Names {
    Ints(Vec<u64>),
    /// `off[i]..off[i + 1]` of `bytes` is new vertex `i`'s name.
    Strings {
        off: Vec<u64>,
        bytes: Vec<u8>,
    },
}

/// The vertices a delta adds: their original ids and where they fall
/// among the base ranks (see the module docs).
pub struct NewIds {
    n_base: u64,
    names: Names,
    /// (base ranks before, dense id), by original id.
    ins: Vec<(u64, u64)>,
    /// Position in `ins` of new vertex `n_base + i`.
    pos: Vec<u64>,
    /// `#{ins < b << SHIFT_BUCKET_BITS}` for each bucket `b` of base
    /// ranks (and one past the last): [`NewIds::shift`] searches one
    /// bucket's few entries, not all of `ins` (a bucketed rank directory,
    /// as succinct rank/select structures keep). Empty under
    /// `OUTCORE_DELTA_SKIP=ids`: no shift.
    first: Vec<u32>,
}

/// Base ranks per bucket of [`NewIds::shift`]'s directory.
const SHIFT_BUCKET_BITS: u32 = 8;

/// The directory of [`NewIds::first`] for `ins` over `n_base` base ranks.
fn shift_directory(ins: &[(u64, u64)], n_base: u64) -> Vec<u32> {
    let buckets = (n_base >> SHIFT_BUCKET_BITS) + 2;
    let mut first = Vec::with_capacity(buckets as usize);
    let mut j = 0usize;
    for b in 0..buckets {
        while ins.get(j).is_some_and(|e| e.0 < b << SHIFT_BUCKET_BITS) {
            j += 1;
        }
        first.push(j as u32);
    }
    first
}

/// A view rank: a base vertex's base rank, or a new vertex's dense id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranked {
    Base(u64),
    New(u64),
}

/// The rank of a new vertex placed `before` base ranks, `j`th among them.
#[inline]
fn view_rank(before: u64, j: usize) -> u64 {
    before + j as u64
}

impl NewIds {
    /// The new vertices of `store`'s delta; `None` without any.
    pub fn load(store: &Store) -> Result<Option<NewIds>> {
        let (base, Some(d)) = (store.base(), store.delta()) else {
            return Ok(None);
        };
        let (n_base, k) = (base.num_vertices, d.new_vertices(base.num_vertices));
        if k == 0 {
            return Ok(None);
        }
        let u64s = |rel: &str| store.read_delta_u64s(rel);
        let damaged =
            |rel: &str, why: &str| Error::damaged(store.path(), &store.delta_name(rel), why);
        let names = match base.string_ids {
            true => {
                let off = u64s(NEW_OFF_FILE)?;
                let bytes = store.read_delta_file(NEW_STR_FILE)?;
                let ok = off.len() as u64 == k + 1
                    && off.first() == Some(&0)
                    && off.last() == Some(&(bytes.len() as u64))
                    && off.windows(2).all(|w| w[0] <= w[1]);
                if !ok {
                    return Err(damaged(NEW_OFF_FILE, "it does not index the new names"));
                }
                Names::Strings { off, bytes }
            }
            false => Names::Ints(u64s(NEW_IDS_FILE)?),
        };
        let flat = u64s(INS_FILE)?;
        let ins: Vec<(u64, u64)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        let mut pos = vec![u64::MAX; k as usize];
        for (j, &(before, v)) in ins.iter().enumerate() {
            if before > n_base
                || !(n_base..n_base + k).contains(&v)
                || pos[(v - n_base) as usize] != u64::MAX
            {
                return Err(damaged(INS_FILE, "it does not place each new vertex once"));
            }
            pos[(v - n_base) as usize] = j as u64;
        }
        let ids = NewIds {
            n_base,
            names,
            first: match super::skip("ids") {
                true => Vec::new(),
                false => shift_directory(&ins, n_base),
            },
            ins,
            pos,
        };
        let sorted = ids
            .ins
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && ids.id(w[0].1) < ids.id(w[1].1));
        if ids.ins.len() as u64 != k || !sorted {
            return Err(damaged(INS_FILE, "it is not in the order of the new ids"));
        }
        Ok(Some(ids))
    }

    /// How many vertices the delta adds.
    pub fn len(&self) -> u64 {
        self.ins.len() as u64
    }

    /// True when it adds none (never for a loaded one).
    pub fn is_empty(&self) -> bool {
        self.ins.is_empty()
    }

    /// The base's vertex count: the first new dense id.
    pub fn n_base(&self) -> u64 {
        self.n_base
    }

    /// Bytes held (what a reader charges to its budget).
    pub fn memory_bytes(&self) -> u64 {
        let names = match &self.names {
            Names::Ints(v) => 8 * v.len(),
            Names::Strings { off, bytes } => 8 * off.len() + bytes.len(),
        };
        (names + 24 * self.ins.len() + 4 * self.first.len()) as u64
    }

    /// The view rank of base rank `r`.
    #[inline]
    pub fn shift(&self, r: u64) -> u64 {
        if self.first.is_empty() {
            return r; // `OUTCORE_DELTA_SKIP=ids`
        }
        // Entries of buckets before r's are all <= r; past the next, > r.
        let b = (r >> SHIFT_BUCKET_BITS) as usize;
        let (lo, hi) = match (self.first.get(b), self.first.get(b + 1)) {
            (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
            _ => return r + self.ins.partition_point(|e| e.0 <= r) as u64,
        };
        r + (lo + self.ins[lo..hi].partition_point(|e| e.0 <= r)) as u64
    }

    /// The view rank of new vertex `v` (a dense id `>= n_base`).
    #[inline]
    pub fn rank_of_new(&self, v: u64) -> u64 {
        let j = self.pos[(v - self.n_base) as usize] as usize;
        view_rank(self.ins[j].0, j)
    }

    /// What view rank `r` is: a base rank or a new vertex.
    pub fn at_rank(&self, r: u64) -> Ranked {
        let (mut lo, mut hi) = (0usize, self.ins.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if view_rank(self.ins[mid].0, mid) < r {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        match self.ins.get(lo) {
            Some(&(before, v)) if view_rank(before, lo) == r => Ranked::New(v),
            _ => Ranked::Base(r - lo as u64),
        }
    }

    /// The original id of new vertex `v` (a dense id `>= n_base`).
    pub fn id(&self, v: u64) -> Id<'_> {
        let i = (v - self.n_base) as usize;
        match &self.names {
            Names::Ints(ids) => Id::Int(ids[i]),
            Names::Strings { off, bytes } => {
                Id::Name(Cow::Borrowed(&bytes[off[i] as usize..off[i + 1] as usize]))
            }
        }
    }

    /// The dense id of the new vertex `id`, if the delta adds it.
    pub fn find(&self, id: &Id<'_>) -> Option<u64> {
        let j = self.ins.partition_point(|e| self.id(e.1) < *id);
        self.ins.get(j).filter(|e| self.id(e.1) == *id).map(|e| e.1)
    }

    /// The new vertices by original id: (base ranks before, dense id).
    pub fn by_id(&self) -> &[(u64, u64)] {
        &self.ins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// View ranks of base and new vertices are the positions among all
    /// sorted ids, and `at_rank` inverts them.
    #[test]
    fn view_ranks_interleave() {
        let base = [10u64, 20, 30, 40];
        // New ids 5, 25, 26, 50 arriving as 26, 50, 5, 25.
        let arrival = [26u64, 50, 5, 25];
        let mut ins: Vec<(u64, u64, u64)> = arrival
            .iter()
            .zip(4u64..)
            .map(|(&id, v)| (id, base.partition_point(|&b| b < id) as u64, v))
            .collect();
        ins.sort();
        let flat: Vec<(u64, u64)> = ins.iter().map(|e| (e.1, e.2)).collect();
        let ids = NewIds {
            n_base: 4,
            names: Names::Ints(arrival.to_vec()),
            first: shift_directory(&flat, 4),
            ins: flat,
            pos: arrival
                .iter()
                .map(|id| ins.iter().position(|e| e.0 == *id).unwrap() as u64)
                .collect(),
        };
        let mut all: Vec<u64> = base.iter().chain(&arrival).copied().collect();
        all.sort();
        for (r, b) in base.iter().enumerate() {
            let want = all.binary_search(b).unwrap() as u64;
            assert_eq!(ids.shift(r as u64), want);
            assert_eq!(ids.at_rank(want), Ranked::Base(r as u64));
        }
        for (i, id) in arrival.iter().enumerate() {
            let v = 4 + i as u64;
            let want = all.binary_search(id).unwrap() as u64;
            assert_eq!(ids.rank_of_new(v), want);
            assert_eq!(ids.at_rank(want), Ranked::New(v));
            assert_eq!(ids.find(&Id::Int(*id)), Some(v));
        }
        assert_eq!(ids.find(&Id::Int(20)), None);
    }

    /// The bucketed directory of `shift` counts as a search of all of
    /// `ins` does, across buckets, at their edges and past the last.
    #[test]
    fn shift_directory_counts_as_a_full_search() {
        let mut rng = crate::base::rng::SplitMix64::new(3);
        for n_base in [1u64, 255, 256, 257, 5000, 70000] {
            let k = (rng.next_u64() % 300) as usize;
            let mut before: Vec<u64> = (0..k).map(|_| rng.next_u64() % (n_base + 1)).collect();
            before.extend([0, n_base, n_base.saturating_sub(1), 256.min(n_base)]);
            before.sort_unstable();
            let ins: Vec<(u64, u64)> = (before.iter().zip(n_base..))
                .map(|(&b, v)| (b, v))
                .collect();
            let ids = NewIds {
                n_base,
                names: Names::Ints(Vec::new()),
                first: shift_directory(&ins, n_base),
                pos: Vec::new(),
                ins,
            };
            for r in 0..n_base {
                let want = r + ids.ins.partition_point(|e| e.0 <= r) as u64;
                assert_eq!(ids.shift(r), want, "n_base {n_base}, rank {r}");
            }
        }
    }
}
