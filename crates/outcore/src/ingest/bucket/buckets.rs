//! The bucket map: which bucket (and, ordered, which cell) a record's key
//! falls in, the bucket files, and how each bucket's records are packed in
//! them ([`Packing`]). The distribution sort's splitters sit on the
//! boundaries of a table's cells (external sample sort, as GridGraph and
//! G-Store partition edges), so a record's bucket is a shift and a lookup.

use super::cells::Cells;
use super::code::Code;
use super::{Split, CELLS, MAX_BUCKETS, SAMPLE};
use crate::ingest::sort::Record;
use std::path::PathBuf;
use std::sync::Arc;

/// The bucket map and files.
#[derive(Default)]
pub(super) struct Buckets {
    /// Ordered: keys fall in `CELLS` cells of `1 << shift` keys from
    /// `base` (keys outside go to the first or last cell), and `table` maps a
    /// cell to its bucket: splitters sit on cell boundaries, so finding a
    /// record's bucket is a shift and a lookup, not a search.
    pub base: u128,
    pub shift: u32,
    pub table: Vec<u16>,
    pub count: usize,
    pub files: Vec<PathBuf>,
    /// Records per bucket.
    pub records: Vec<u64>,
    /// How each bucket's records are stored.
    pub pack: Packing,
    /// Ordered: each bucket's cells and the records spilled into each (the
    /// readers place a bucket's records cell by cell as they decode them).
    pub cells: Option<Cells>,
}

/// How records are stored in the bucket files ([`Code`]): bucket `i`'s keys
/// above `lo[i]` (the lowest key the bucket can hold) in `width[i]` bytes,
/// or, when the buckets have cells, each spill's section of a bucket
/// grouped by cell, keys above their cell's lowest ([`Cells::code`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Packing {
    pub lo: Vec<u128>,
    pub width: Vec<usize>,
    /// Ordered buckets: their cells and the records in each.
    pub cells: Option<Arc<Cells>>,
    /// Bytes of each bucket's file that hold its records (the rest of its
    /// last block is padding).
    pub len: Vec<u64>,
}

/// The cell of `key` among `CELLS` cells of `1 << shift` keys from `base`
/// (keys outside go to the first or last).
#[inline]
pub(super) fn cell_of(base: u128, shift: u32, key: u128) -> usize {
    ((key.saturating_sub(base) >> shift).min(super::CELLS as u128 - 1)) as usize
}

impl Packing {
    /// How bucket `i`'s records are stored (buckets without cells).
    #[inline]
    pub fn code(&self, i: usize) -> Code {
        Code {
            lo: self.lo[i],
            width: self.width[i],
        }
    }

    /// The fewest bytes a record of bucket `i` takes (its narrowest cell's,
    /// when it has cells): a stretch of the file decodes to at most its
    /// length over this many records.
    pub fn min_rec_bytes<R: Record>(&self, i: usize) -> usize {
        let rec = |c: Code| c.rec_bytes::<R>();
        let narrowest = self.cells.as_ref().map(|cells| {
            (0..1usize << cells.bits)
                .map(|c| rec(cells.code(self, i, c)))
                .min()
                .expect("a bucket has cells")
        });
        narrowest.unwrap_or_else(|| rec(self.code(i))).max(1)
    }
}

impl Buckets {
    #[inline]
    pub fn cell(&self, key: u128) -> usize {
        cell_of(self.base, self.shift, key)
    }

    #[inline]
    pub fn of(&self, split: Split, key: u128) -> usize {
        match split {
            Split::Ordered => self.table[self.cell(key)] as usize,
            Split::Hashed => {
                let h = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (((h >> 32) * self.count as u64) >> 32) as usize
            }
        }
    }
}

impl Buckets {
    /// Up to `count` buckets split at the quantiles of `sample` (keys, any
    /// order), each rounded to a cell of a [`CELLS`]-entry table spanning
    /// the sample; each bucket's own cells of about `per` records.
    pub fn ordered<R: Record>(mut sample: Vec<u128>, count: usize, per: u64) -> Buckets {
        sample.sort_unstable();
        let mut b = Buckets {
            base: sample[0],
            ..Default::default()
        };
        let span = sample[sample.len() - 1] - b.base;
        b.shift = (128 - span.leading_zeros()).saturating_sub(CELLS.trailing_zeros());
        // Bucket i starts at the cell of the i-th quantile.
        let mut starts: Vec<usize> = (1..count)
            .map(|i| b.cell(sample[i * sample.len() / count]))
            .filter(|&c| c > 0)
            .collect();
        starts.dedup();
        b.table = vec![0u16; CELLS];
        let mut bucket = 0u16;
        let mut next = starts.iter().peekable();
        for (c, slot) in b.table.iter_mut().enumerate() {
            if next.peek() == Some(&&c) {
                next.next();
                bucket += 1;
            }
            *slot = bucket;
        }
        b.count = starts.len() + 1;
        b.pack = ordered_packing::<R>(&b, &starts);
        b.cells = Some(Cells::of_buckets(&b, &starts, per));
        b
    }

    /// `count` buckets by a hash of the key, keys stored whole.
    pub fn hashed<R: Record>(count: usize) -> Buckets {
        Buckets {
            count,
            pack: Packing {
                lo: vec![0; count],
                width: vec![R::KEY_BYTES; count],
                cells: None,
                len: Vec::new(),
            },
            ..Default::default()
        }
    }
}

/// Each ordered bucket's lowest possible key and the bytes its range needs:
/// bucket `i` holds the cells from its start to the next bucket's (the
/// first also every key below `base`, the last every key above the cells).
fn ordered_packing<R: Record>(b: &Buckets, starts: &[usize]) -> Packing {
    let kmax = match R::KEY_BYTES {
        0 | 16.. => u128::MAX,
        k => (1u128 << (8 * k)) - 1,
    };
    let at = |c: usize| b.base.checked_add((c as u128) << b.shift);
    let mut pack = Packing::default();
    for i in 0..b.count {
        let lo = match i {
            0 => 0,
            _ => at(starts[i - 1]).unwrap_or(u128::MAX),
        };
        let hi = match starts.get(i).map(|&c| at(c)) {
            Some(Some(end)) => (end - 1).min(kmax),
            _ => kmax,
        };
        let range = hi.saturating_sub(lo);
        pack.lo.push(lo);
        pack.width.push(
            ((128 - range.leading_zeros()) as usize)
                .div_ceil(8)
                .clamp(1, R::KEY_BYTES.max(1)),
        );
    }
    pack
}

impl<R: Record> super::BucketSorter<R> {
    /// The buckets of this sorter's first spill: key ranges from a sample
    /// (its own, or the buffer's) or hashes, sized to the load capacity.
    pub(super) fn choose_buckets(&mut self) -> Buckets {
        // Buckets a quarter of the load capacity: reading back holds a
        // quarter of this sorter's charge and leaves the rest to the sorters
        // filled meanwhile; sampling noise rarely overflows one.
        let per = self.load_capacity() / 4;
        let expected = self.expected.max(4 * self.buf.len() as u64);
        let count = (expected / per + 1).clamp(2, MAX_BUCKETS as u64) as usize;
        // Alignment costs up to two blocks a bucket per spill: at most an
        // eighth of the encoding (or what the charge's slack covers).
        let count = count.min((self.capacity * R::BYTES / (16 * crate::io::ALIGN)).max(64));
        let mut b = match self.split {
            Split::Ordered => {
                let step = (self.buf.len() / SAMPLE).max(1);
                let sample: Vec<u128> = match self.sample.take() {
                    Some(s) if !s.is_empty() => s,
                    _ => self
                        .buf
                        .iter()
                        .step_by(step)
                        .map(|r| r.radix_key())
                        .collect(),
                };
                Buckets::ordered::<R>(sample, count, per)
            }
            Split::Hashed => Buckets::hashed::<R>(count),
        };
        b.files = (0..b.count)
            .map(|i| self.files.path(&format!("{}-bucket{i:05}", self.tag)))
            .collect();
        b.records = vec![0; b.count];
        b
    }
}
