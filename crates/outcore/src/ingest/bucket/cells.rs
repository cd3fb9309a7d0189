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

use super::buckets::{Buckets, Packing};
use super::code::Code;
use super::group::Of;

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
    /// Each bucket's lowest and highest key spilled (`(MAX, 0)` while none).
    pub span: Vec<(u128, u128)>,
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
            span: vec![(u128::MAX, 0); ranges.len()],
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
    #[cfg(test)]
    pub fn of(&self, i: usize, key: u128) -> usize {
        cell_in(self.lo[i], self.shift[i], (1 << self.bits) - 1, key)
    }

    /// How the records of cell `c` of bucket `i` are stored (`pack`: the
    /// buckets'): keys above the cell's lowest, in the bytes its range
    /// needs. The first and last cells also hold the keys below and above
    /// the cells' range (the first and last buckets' are open): they take
    /// the whole bucket's width, the first from the bucket's lowest key.
    #[inline]
    pub fn code(&self, pack: &Packing, i: usize, c: usize) -> Code {
        cell_code((self.lo[i], self.shift[i]), 1 << self.bits, pack.code(i), c)
    }

    /// Each bucket's cells and the bucket's own code, with its counts
    /// and span to add to, one at a time and apart (the buckets of a spill
    /// are regrouped on two threads).
    pub fn buckets<'a>(&'a mut self, pack: &'a Packing) -> impl Iterator<Item = Of<'a>> {
        let per = 1usize << self.bits;
        let (lo, shift) = (&self.lo, &self.shift);
        self.count
            .chunks_mut(per)
            .zip(self.span.iter_mut())
            .enumerate()
            .map(move |(i, (count, span))| Of {
                cells: (lo[i], shift[i]),
                code: pack.code(i),
                count,
                span,
            })
    }

    /// Keys for the splitters of a sorter nested in bucket `b` (`n`
    /// records), sorted: as many from each cell as its share of the
    /// records, evenly spread over the cell's keys (within the keys the
    /// bucket got); `None` when the bucket holds one key (no split would
    /// divide it).
    pub fn sample(&self, b: usize, n: u64, want: u64) -> Option<Vec<u128>> {
        let (min, max) = self.span[b];
        if min >= max {
            return None;
        }
        let per = 1usize << self.bits;
        let counts = &self.count[b * per..(b + 1) * per];
        let sh = self.shift[b];
        let mut keys = Vec::new();
        for (c, &m) in counts.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let lo = self.lo[b].saturating_add((c as u128) << sh);
            let hi = match c + 1 == per {
                true => max,
                false => lo.saturating_add((1u128 << sh) - 1).min(max),
            };
            let lo = if c == 0 { min } else { lo.max(min) };
            let k = (m as u64 * want / n.max(1)).clamp(1, want) as u128;
            let range = hi.saturating_sub(lo);
            let (step, rem) = (range / k, range % k);
            keys.extend((0..k).map(|j| lo + j * step + j * rem / k));
        }
        Some(keys)
    }
}

/// The code of cell `c` of `per` cells of a bucket from `lo` of
/// `1 << shift` keys each, stored as `bucket` without cells
/// ([`Cells::code`]).
#[inline]
pub(super) fn cell_code((lo, sh): (u128, u32), per: usize, bucket: Code, c: usize) -> Code {
    match c {
        0 => bucket,
        // A cell whose lowest key is past u128 gets no key.
        _ if c + 1 == per => Code {
            lo: lo.saturating_add((c as u128) << sh),
            width: bucket.width,
        },
        _ => Code {
            lo: lo.saturating_add((c as u128) << sh),
            width: (sh as usize).div_ceil(8).clamp(1, bucket.width.max(1)),
        },
    }
}

/// The cell of `key` among cells of `1 << shift` keys from `lo` (those
/// below `lo` in the first), the last one `last` (and every key above it).
#[inline]
pub(super) fn cell_in(lo: u128, shift: u32, last: usize, key: u128) -> usize {
    (key.saturating_sub(lo) >> shift).min(last as u128) as usize
}

/// Records a bucket's cell aims at, and the fewest and most cells a bucket
/// and a sorter have.
const CELL_RECORDS: u64 = 4096;
pub(super) const MIN_CELL_BITS: u32 = 4;
pub(super) const MAX_CELL_BITS: u32 = 11;
pub(super) const MAX_CELLS: usize = 1 << 20;

/// Places a bucket's records cell by cell as they are decoded.
pub(super) struct Placer {
    /// The next slot of each cell, and each cell's end.
    pos: Vec<usize>,
    ends: Vec<usize>,
    /// A run went past its cell's count.
    stray: bool,
}

impl Placer {
    /// For bucket `b` when the buckets have cells.
    pub fn new(cells: &Cells, b: usize) -> Placer {
        let counts = &cells.count[b << cells.bits..(b + 1) << cells.bits];
        let (mut pos, mut ends) = (Vec::with_capacity(counts.len()), Vec::new());
        let mut at = 0;
        for &n in counts {
            pos.push(at);
            at += n as usize;
            ends.push(at);
        }
        Placer {
            pos,
            ends,
            stray: false,
        }
    }

    /// The slots of the next `k` records of cell `c` (`None`, and the load
    /// fails, when the cell counted fewer).
    #[inline]
    pub fn run(&mut self, c: usize, k: usize) -> Option<std::ops::Range<usize>> {
        let p = self.pos[c];
        match p + k <= self.ends[c] {
            true => {
                self.pos[c] = p + k;
                Some(p..p + k)
            }
            false => {
                self.stray = true;
                None
            }
        }
    }

    /// The slots of all cells.
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
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
