//! The L seam's primitive (issue 53): a direction's delta lists, and a
//! base list merged with its records, as an LSM-style read merges a run
//! with the levels above it (PartitionedVC's buffered structural updates
//! applied at read time). [`DeltaLists::lookup`] finds one vertex's
//! records (bits, then the 512-bit block ranks), [`DeltaLists::cursor`]
//! walks the touched vertices in order, [`merge`] applies records to a
//! base list: tombstones drop their base entries, additions go in order.
//!
//! [`scan_csr`] is the CSR scan of the view: base lists below `n_base`,
//! each touched one merged, then the lists of the new vertices.
//!
//! The lists are held in memory (16-24 bytes a record, n'/8 for the bits),
//! checked whole against the manifest's checksums: a delta stays small
//! beside its base until compaction.

use super::format::{is_tombstone, lists_files, nbr, record, touched_rank};
use crate::error::{Error, Result};
use crate::store::csrscan::{scan_base_csr, scan_base_lists};
use crate::store::Store;

/// The slot [`scan_csr`] reports for entries of a list the delta touched
/// (they have no place in the base's adjacency).
pub const NO_SLOT: u64 = u64::MAX;

/// One direction's delta lists, in memory.
pub struct DeltaLists {
    n: u64,
    bits: Vec<u64>,
    rnk: Vec<u64>,
    off: Vec<u64>,
    deg: Vec<u64>,
    rec: Vec<u64>,
    w: Option<Vec<f64>>,
}

/// A touched vertex's records: sorted by [`format::record`], weights
/// beside them in a weighted store, and its degree in the view.
#[derive(Clone, Copy, Debug)]
pub struct Records<'a> {
    pub v: u64,
    pub recs: &'a [u64],
    pub weights: Option<&'a [f64]>,
    pub degree: u64,
}

impl Records<'_> {
    fn weight(&self, i: usize) -> f64 {
        self.weights.map_or(1.0, |w| w[i])
    }

    /// True when these records remove base entry `u` (a tombstone).
    pub fn removes(&self, u: u64) -> bool {
        self.recs.binary_search(&record(u, true)).is_ok()
    }

    /// The additions: (neighbour, weight), by neighbour.
    pub fn additions(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        (0..self.recs.len())
            .filter(|&i| !is_tombstone(self.recs[i]))
            .map(|i| (nbr(self.recs[i]), self.weight(i)))
    }
}

impl DeltaLists {
    /// Loads direction `which` of `store`'s delta; `None` without one.
    pub fn load(store: &Store, which: &str) -> Result<Option<DeltaLists>> {
        let Some(d) = store.delta() else {
            return Ok(None);
        };
        let read = |rel: &str| store.read_delta_u64s(rel);
        let [bits, rnk, off, deg, rec, w] = lists_files(which);
        let l = DeltaLists {
            n: d.num_vertices,
            bits: read(&bits)?,
            rnk: read(&rnk)?,
            off: read(&off)?,
            deg: read(&deg)?,
            rec: read(&rec)?,
            w: match store.base().weighted {
                true => Some(read(&w)?.into_iter().map(f64::from_bits).collect()),
                false => None,
            },
        };
        let last = l.off.last().copied();
        if l.off.first() != Some(&0) || last != Some(l.rec.len() as u64) {
            let why = "the offsets do not span the records";
            return Err(Error::damaged(store.path(), &store.delta_name(&off), why));
        }
        Ok(Some(l))
    }

    /// True when the delta touches vertex `v`'s list (a bit test).
    #[inline]
    pub fn touches(&self, v: u64) -> bool {
        v < self.n && self.bits[(v / 64) as usize] >> (v % 64) & 1 == 1
    }

    /// The records of vertex `v`, when the delta touches it.
    pub fn lookup(&self, v: u64) -> Option<Records<'_>> {
        let i = touched_rank(&self.bits, &self.rnk, self.n, v)?;
        Some(self.records(v, i as usize))
    }

    fn records(&self, v: u64, i: usize) -> Records<'_> {
        let (a, b) = (self.off[i] as usize, self.off[i + 1] as usize);
        Records {
            v,
            recs: &self.rec[a..b],
            weights: self.w.as_ref().map(|w| &w[a..b]),
            degree: self.deg[i],
        }
    }

    /// True when the delta removes base edge `v -> u` (a tombstone; a new
    /// weight is a tombstone and an addition).
    pub fn removes(&self, v: u64, u: u64) -> bool {
        self.lookup(v).is_some_and(|r| r.removes(u))
    }

    /// Bytes held (what a reader charges to its budget).
    pub fn memory_bytes(&self) -> u64 {
        let w = self.w.as_ref().map_or(0, |w| w.len());
        8 * (self.bits.len()
            + self.rnk.len()
            + self.off.len()
            + self.deg.len()
            + self.rec.len()
            + w) as u64
    }

    /// The touched vertices' records, by increasing vertex.
    pub fn cursor(&self) -> impl Iterator<Item = Records<'_>> + '_ {
        let words = self.bits.iter().enumerate();
        let touched = words.flat_map(|(k, &w)| {
            (0..64u64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| k as u64 * 64 + b)
        });
        touched.enumerate().map(|(i, v)| self.records(v, i))
    }
}

/// Merges base list `base` (sorted by neighbour) with `r` into `out`
/// (cleared first): base entries without a tombstone, and the additions,
/// by neighbour.
pub fn merge(base: &[(u64, f64)], r: &Records<'_>, out: &mut Vec<(u64, f64)>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < base.len() || j < r.recs.len() {
        let b = base.get(i).map(|e| e.0);
        let x = r.recs.get(j).copied();
        match (b, x) {
            // An addition before (or replacing) the next base entry.
            (Some(u), Some(x)) if nbr(x) <= u && !is_tombstone(x) => {
                out.push((nbr(x), r.weight(j)));
                j += 1;
            }
            // A tombstone: its base entry goes.
            (Some(u), Some(x)) if nbr(x) == u => {
                i += 1;
                j += 1;
            }
            // A tombstone of no base entry (normalised records have none).
            (Some(u), Some(x)) if nbr(x) < u => j += 1,
            (Some(_), _) => {
                out.push(base[i]);
                i += 1;
            }
            (None, Some(x)) => {
                if !is_tombstone(x) {
                    out.push((nbr(x), r.weight(j)));
                }
                j += 1;
            }
            (None, None) => unreachable!(),
        }
    }
}

/// Scans CSR direction `which` (`"out"` or `"in"`) of the graph `store`
/// holds, calling `f(vertex, slot, neighbour, weight)` for every entry by
/// increasing vertex, each list sorted: the base's lists, with the delta's
/// records merged into the lists it touches (their slot is [`NO_SLOT`])
/// and the new vertices' lists after (see
/// [`crate::store::csrscan::scan_base_csr`] for the base alone).
pub fn scan_csr(
    store: &Store,
    which: &str,
    weighted: bool,
    mut f: impl FnMut(u64, u64, u64, f64) -> Result<()>,
) -> Result<()> {
    let Some(lists) = DeltaLists::load(store, which)? else {
        return scan_base_csr(store, which, weighted, f);
    };
    let mut cur = lists.cursor().peekable();
    let (mut base, mut out) = (Vec::new(), Vec::new());
    let mut emit = |f: &mut dyn FnMut(u64, u64, u64, f64) -> Result<()>,
                    r: &Records<'_>,
                    base: &[(u64, f64)]|
     -> Result<()> {
        merge(base, r, &mut out);
        out.iter().try_for_each(|&(u, w)| f(r.v, NO_SLOT, u, w))
    };
    scan_base_lists(store, which, weighted, |l| {
        // Touched vertices whose base list is empty come before `l`.
        while let Some(r) = cur.next_if(|r| r.v < l.v) {
            emit(&mut f, &r, &[])?;
        }
        match cur.next_if(|r| r.v == l.v) {
            Some(r) => {
                base.clear();
                base.extend(l.nbrs.iter().enumerate().map(|(i, &u)| (u, l.weight(i))));
                emit(&mut f, &r, &base)
            }
            None => l
                .nbrs
                .iter()
                .enumerate()
                .try_for_each(|(i, &u)| f(l.v, l.slot + i as u64, u, l.weight(i))),
        }
    })?;
    for r in cur {
        emit(&mut f, &r, &[])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::delta::format::RANK_BLOCK_BITS;

    /// Lookups past the first rank block agree with the cursor, and a
    /// merge applies tombstones, replacements and additions.
    #[test]
    fn delta_lists_lookup_and_merge() {
        let n = 3000u64;
        let touched: Vec<u64> = (0..n).filter(|v| v % 7 == 3 || v % 11 == 0).collect();
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        for &v in &touched {
            bits[(v / 64) as usize] |= 1 << (v % 64);
        }
        let per = (RANK_BLOCK_BITS / 64) as usize;
        let mut rnk = vec![0];
        for b in bits.chunks(per) {
            rnk.push(rnk.last().unwrap() + b.iter().map(|w| w.count_ones() as u64).sum::<u64>());
        }
        let l = DeltaLists {
            n,
            bits,
            rnk,
            off: (0..=touched.len() as u64).map(|i| 2 * i).collect(),
            deg: touched.clone(),
            rec: touched.iter().flat_map(|&v| [v << 1, v << 1 | 1]).collect(),
            w: None,
        };
        let by_cursor: Vec<u64> = l.cursor().map(|r| r.v).collect();
        assert_eq!(by_cursor, touched);
        for v in 0..n {
            match l.lookup(v) {
                Some(r) => assert_eq!((r.v, r.recs, r.degree), (v, &[v << 1, v << 1 | 1][..], v)),
                None => assert!(!touched.contains(&v), "{v}"),
            }
        }
        let base = [(1, 1.0), (4, 1.0), (6, 1.0), (9, 1.0)];
        let recs = [2 << 1, 4 << 1, 4 << 1 | 1, 6 << 1 | 1, 12 << 1];
        let w = [2.0, 3.0, 0.0, 0.0, 5.0];
        let r = Records {
            v: 0,
            recs: &recs,
            weights: Some(&w),
            degree: 5,
        };
        let mut out = Vec::new();
        merge(&base, &r, &mut out);
        assert_eq!(out, [(1, 1.0), (2, 2.0), (4, 3.0), (9, 1.0), (12, 5.0)]);
    }
}
