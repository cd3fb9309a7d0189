//! Buckets read back cell by cell: the spill counts every record in a cell
//! of its bucket's own key range ([`Cells`]), so a bucket's reader knows
//! before it reads one record where each goes, decodes every record straight
//! into its cell's next slot ([`Placer`]), and leaves the sort each cell on
//! its own ([`sort_cells`]). This is the MSD pass of a sample sort done at
//! decode time: the in-memory sort's own count and scatter over the whole
//! bucket (two passes over memory, about a third of its time) are gone. At
//! kron-24 / 1 GiB the build's user CPU went 40.9 -> 37.2 s.
//!
//! [`sort_cells`]: crate::ingest::sort::sort_cells

use super::spill::{cell_of, Buckets};
use crate::ingest::sort::Record;
use std::mem::MaybeUninit;

/// An ordered sorter's buckets, each cut into `1 << bits` cells of its own
/// key range (bucket `i`'s cell `c` holds keys from `lo[i] + (c << shift[i])`,
/// those below `lo[i]` in the first, those above the last cell in it), and
/// the records spilled into each (`count[i << bits | c]`). A bucket's reader
/// knows from them where each record goes before it reads one: it decodes
/// every record straight into its cell's place, and the sort is left with
/// each cell on its own (`radix::sort_cells`): the sort's own count and
/// scatter over the whole bucket, two passes over memory, are gone. The
/// cells are the bucket's own, not the lookup table's: those are even in
/// key space, so in a degree-ordered adjacency a bucket of hubs was 2-4 of
/// them.
#[derive(Debug, Default)]
pub(crate) struct Cells {
    pub lo: Vec<u128>,
    pub shift: Vec<u32>,
    pub bits: u32,
    pub count: Vec<u32>,
}

impl Cells {
    /// Cells for buckets of about `per` records with key ranges `ranges`
    /// (lowest and highest key): cells of about [`CELL_RECORDS`] records,
    /// [`MAX_CELLS`] at most in all.
    pub fn new(ranges: &[(u128, u128)], per: u64) -> Cells {
        let want = (per / CELL_RECORDS).max(1).ilog2();
        let want = want.clamp(MIN_CELL_BITS, MAX_CELL_BITS);
        let room = (MAX_CELLS / ranges.len().max(1)).max(1).ilog2();
        let bits = want.min(room);
        let (lo, shift) = ranges
            .iter()
            .map(|&(lo, hi)| {
                let span = 128 - hi.saturating_sub(lo).leading_zeros();
                (lo, span.saturating_sub(bits))
            })
            .unzip();
        Cells {
            lo,
            shift,
            bits,
            count: vec![0; ranges.len() << bits],
        }
    }

    /// Cells for ordered buckets `b` that start at cells `starts` of its
    /// table (each bucket's keys from its first table cell's start to its
    /// last's end), of about `per` records each.
    pub fn of_buckets(b: &Buckets, starts: &[usize], per: u64) -> Cells {
        let at = |c: usize| b.base.checked_add((c as u128) << b.shift);
        let ranges: Vec<(u128, u128)> = (0..b.count)
            .map(|i| {
                let lo = match i {
                    0 => b.base,
                    _ => at(starts[i - 1]).unwrap_or(u128::MAX),
                };
                let end = starts.get(i).copied().unwrap_or(super::CELLS);
                let hi = at(end).map_or(u128::MAX, |e| e - 1);
                (lo, hi)
            })
            .collect();
        Cells::new(&ranges, per)
    }

    /// The cell of `key` in bucket `i`.
    #[inline]
    pub fn of(&self, i: usize, key: u128) -> usize {
        cell_in(self.lo[i], self.shift[i], (1 << self.bits) - 1, key)
    }

    /// Counts `key` (of bucket `i`). Counts of buckets too large to load
    /// (never placed) may wrap.
    #[inline]
    pub fn add(&mut self, i: usize, key: u128) {
        let at = (i << self.bits) | self.of(i, key);
        self.count[at] = self.count[at].wrapping_add(1);
    }
}

/// The cell of `key` among cells of `1 << shift` keys from `lo` (those
/// below `lo` in the first), the last one `last` (and every key above it).
#[inline]
fn cell_in(lo: u128, shift: u32, last: usize, key: u128) -> usize {
    (key.saturating_sub(lo) >> shift).min(last as u128) as usize
}

/// Pushes the bucket of each of `recs` (ordered, with cells) to `ids` and
/// counts it in its cell.
pub(super) fn bucket_ids<R: Record>(b: &mut Buckets, recs: &[R], ids: &mut Vec<u16>) {
    let (base, shift, table) = (b.base, b.shift, &b.table);
    let cells = b.cells.as_mut().expect("cells");
    if R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 {
        // Keys of 64 bits: the same cells in 64-bit arithmetic (u128 shifts
        // and compares cost a tenth of kron-24's read phase).
        let (base, last) = (base as u64, super::CELLS as u64 - 1);
        let lo: Vec<u64> = cells.lo.iter().map(|&l| l as u64).collect();
        let (sh, bits) = (&cells.shift, cells.bits);
        let top = (1u64 << bits) - 1;
        let count = &mut cells.count;
        ids.extend(recs.iter().map(|r| {
            let k = r.radix_key() as u64;
            let i = table[(k.saturating_sub(base) >> shift).min(last) as usize];
            let j = i as usize;
            let c = (k.saturating_sub(lo[j]) >> sh[j]).min(top) as usize;
            let n = &mut count[j << bits | c];
            *n = n.wrapping_add(1);
            i
        }));
    } else {
        ids.extend(recs.iter().map(|r| {
            let k = r.radix_key();
            let i = table[cell_of(base, shift, k)];
            cells.add(i as usize, k);
            i
        }));
    }
}

/// Records a bucket's cell aims at, and the fewest and most cells a bucket
/// and a sorter have.
const CELL_RECORDS: u64 = 4096;
const MIN_CELL_BITS: u32 = 4;
const MAX_CELL_BITS: u32 = 11;
const MAX_CELLS: usize = 1 << 20;

/// Places a bucket's records cell by cell as they are decoded.
pub(super) struct Placer {
    /// The bucket's cells: the lowest key of the first, the bits of a
    /// cell's keys, the last cell.
    lo: u128,
    shift: u32,
    last: usize,
    /// The next slot of each cell, and each cell's end.
    pos: Vec<usize>,
    ends: Vec<usize>,
    /// A record went past the bucket's capacity.
    stray: bool,
}

impl Placer {
    /// For bucket `b` when the buckets have cells.
    pub fn new(cells: &Cells, b: usize) -> Option<Placer> {
        if cells.bits == 0 {
            return None;
        }
        let counts = &cells.count[b << cells.bits..(b + 1) << cells.bits];
        let (mut pos, mut ends) = (Vec::with_capacity(counts.len()), Vec::new());
        let mut at = 0;
        for &n in counts {
            pos.push(at);
            at += n as usize;
            ends.push(at);
        }
        Some(Placer {
            lo: cells.lo[b],
            shift: cells.shift[b],
            last: counts.len() - 1,
            pos,
            ends,
            stray: false,
        })
    }

    /// Writes `r` to the next slot of its cell. A cell given more records
    /// than it counted runs into the next one's slots (never outside the
    /// bucket's capacity), which then ends short: [`Self::bounds`] says so.
    #[inline]
    pub fn put<R: Record>(&mut self, slots: &mut [MaybeUninit<R>], r: R) {
        let c = match R::KEY_BYTES {
            // A key of 8 bytes or less: 64-bit arithmetic.
            1..=8 => {
                let k = (r.radix_key() as u64).saturating_sub(self.lo as u64);
                ((k >> self.shift) as usize).min(self.last)
            }
            _ => cell_in(self.lo, self.shift, self.last, r.radix_key()),
        };
        let p = &mut self.pos[c];
        match slots.get_mut(*p) {
            Some(s) => {
                s.write(r);
                *p += 1;
            }
            None => self.stray = true,
        }
    }

    /// The cells' bounds when every cell got exactly the records it
    /// counted (so each wrote its own slots, all of them), `n` in all.
    pub fn bounds(&self, n: usize) -> Option<Vec<usize>> {
        let full = !self.stray && self.pos == self.ends && self.ends.last() == Some(&n);
        full.then(|| {
            std::iter::once(0)
                .chain(self.ends.iter().copied())
                .collect()
        })
    }
}
