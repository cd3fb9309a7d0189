//! Spill sections grouped by cell ([`super::cells`]): a spill lays a
//! bucket's records out as without cells, then regroups them piece by piece
//! (each the counts of the bucket's cells, then the records cell by cell,
//! keys above their cell's lowest) in a scratch buffer the core's L2 holds,
//! copied back over the records it read. Storing every record straight into
//! its cell's run, a hundred thousand runs at once at kron-24 / 1 GiB, made
//! the read phase three times slower.

use super::cells::{cell_code, cell_in};
use super::code::Code;
use crate::base::leb128;
use crate::ingest::sort::Record;
use crate::io::ALIGN;

/// Bytes of records per piece a bucket's section is regrouped by cell in
/// ([`super::spill::Spiller::encode_cells`]): 1 MiB, in the core's L2 cache.
const PIECE_BYTES: usize = 1 << 20;

/// Records per piece for a sorter whose buffer holds `records`: a
/// sixteenth of them, 4096 or more (small shares keep their memory for
/// records; fewer would spend more on the cells' counts than the cells
/// save).
pub(super) fn piece<R: Record>(records: usize) -> usize {
    let most = PIECE_BYTES / R::BYTES.max(1);
    most.min((records / 16).max(4096)).min(records).max(1)
}

/// What the regrouping of a sorter whose buffer holds `records` takes
/// beside its encodings: a piece's records, their cells and its encoding,
/// and each cell's code and places, on each of two threads.
pub(super) fn piece_bytes<R: Record>(records: usize) -> u64 {
    let p = piece::<R>(records);
    let per = std::mem::size_of::<R>() + 2 + R::BYTES;
    let cell = 3 + std::mem::size_of::<(Code, usize)>() + 2 * 8 + 4;
    (2 * (p * per + cell * cells_a_bucket(records))) as u64
}

/// The most bytes the cells' counts take in one encoding of `records`
/// records: 3 bytes a count, every piece's cells and one more piece a
/// bucket (buckets as many as [`super::BucketSorter`] makes for that
/// buffer, cells at most [`MAX_CELLS`] in all).
///
/// [`MAX_CELLS`]: super::cells::MAX_CELLS
pub(super) fn counts_bytes<R: Record>(records: usize) -> u64 {
    let pieces = records / piece::<R>(records);
    let per = cells_a_bucket(records);
    let buckets = (records * R::BYTES / (16 * ALIGN)).clamp(64, super::MAX_BUCKETS);
    let cells = (buckets * per).min(super::cells::MAX_CELLS);
    (3 * (cells + pieces * per)) as u64
}

/// The most cells a bucket of a sorter whose buffer holds `records` has:
/// buckets are at most what a quarter of its load holds, cells about 4 K
/// records ([`super::cells::Cells::new`]).
fn cells_a_bucket(records: usize) -> usize {
    use super::cells::{MAX_CELL_BITS, MIN_CELL_BITS};
    (records / 4096)
        .next_power_of_two()
        .clamp(1 << MIN_CELL_BITS, 1 << MAX_CELL_BITS)
}

/// One bucket's cells for [`Piece::regroup`]: their keys (the lowest, the
/// bits of each), how the bucket is stored without cells, and the counts
/// and span to add to.
pub(super) struct Of<'a> {
    pub cells: (u128, u32),
    pub code: Code,
    pub count: &'a mut [u32],
    pub span: &'a mut (u128, u128),
}

/// A piece of a bucket's section being regrouped by cell
/// ([`super::spill::Spiller::encode_cells`]), and its scratch.
pub(super) struct Piece<R> {
    recs: Vec<R>,
    /// Each record's cell, and per cell: its records, its code and record
    /// bytes, where its next record goes and its run ends.
    ids: Vec<u16>,
    local: Vec<u32>,
    codes: Vec<(Code, usize)>,
    pos: Vec<usize>,
    ends: Vec<usize>,
    /// The cells `codes` are of.
    bucket: (u128, u32),
    out: Vec<u8>,
}

impl<R: Record> Piece<R> {
    /// Pieces of up to `records` records of buckets of `1 << bits` cells,
    /// whose counts take `head` bytes.
    pub fn new(bits: u32, records: usize, head: usize) -> Self {
        let per = 1 << bits;
        Piece {
            recs: Vec::with_capacity(records),
            ids: Vec::with_capacity(records),
            local: vec![0; per],
            codes: Vec::new(),
            pos: vec![0; per],
            ends: vec![0; per],
            bucket: (u128::MAX, u32::MAX),
            out: vec![0; records * R::BYTES + head],
        }
    }

    /// The records `plain` holds (at most a piece's of the bucket `of`
    /// is, stored as its code without cells) regrouped: the counts of the
    /// bucket's cells as varints, then the records cell by cell, in order
    /// within a cell, each as its cell's code says. Counts them in `of`.
    pub fn regroup(&mut self, of: &mut Of<'_>, plain: &[u8]) -> &[u8] {
        let per = self.local.len();
        if self.bucket != of.cells {
            self.codes = (0..per)
                .map(|c| {
                    let k = cell_code(of.cells, per, of.code, c);
                    (k, k.rec_bytes::<R>())
                })
                .collect();
            self.bucket = of.cells;
        }
        self.recs.clear();
        of.code.decode_each(plain, |r| self.recs.push(r));
        self.local.fill(0);
        self.ids.clear();
        let ((lo, sh), last) = (of.cells, per - 1);
        let (mut min, mut max) = *of.span;
        let local = &mut self.local;
        if R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 {
            // Keys of 64 bits: 64-bit arithmetic.
            let (lo, last) = (lo as u64, last as u64);
            let (mut lo_k, mut hi_k) = (min.min(u64::MAX as u128) as u64, max as u64);
            self.ids.extend(self.recs.iter().map(|r| {
                let k = r.radix_key() as u64;
                (lo_k, hi_k) = (lo_k.min(k), hi_k.max(k));
                let c = (k.saturating_sub(lo) >> sh).min(last) as usize;
                local[c] += 1;
                c as u16
            }));
            (min, max) = (lo_k as u128, hi_k as u128);
        } else {
            self.ids.extend(self.recs.iter().map(|r| {
                let k = r.radix_key();
                (min, max) = (min.min(k), max.max(k));
                let c = cell_in(lo, sh, last, k);
                local[c] += 1;
                c as u16
            }));
        }
        *of.span = (min, max);
        for (n, &l) in of.count.iter_mut().zip(local.iter()) {
            // Counts of buckets too large to load (never placed) may wrap.
            *n = n.wrapping_add(l);
        }
        let mut at = 0;
        for &n in local.iter() {
            at += leb128::put(&mut self.out[at..], n as u64);
        }
        let runs = local.iter().zip(&self.codes);
        for ((&n, &(_, rec)), (p, e)) in runs.zip(self.pos.iter_mut().zip(&mut self.ends)) {
            *p = at;
            at += n as usize * rec;
            *e = at;
        }
        let (pos, ends, out) = (&mut self.pos, &self.ends, &mut self.out);
        for (r, &c) in self.recs.iter().zip(&self.ids) {
            let (c, p) = (c as usize, pos[c as usize]);
            let (code, rec) = self.codes[c];
            // Stores past the record stay inside its cell's run.
            code.encode_at(r, &mut out[..ends[c]], p);
            pos[c] = p + rec;
        }
        &self.out[..at]
    }
}

/// Regroups the sections of buckets `of` by cell ([`super::spill::Spiller::encode_cells`]):
/// `enc` is the encoding from `base` on, `at` where each bucket's records
/// begin and where its bytes go, `end` where they end (set to where the
/// regrouped bytes end).
pub(super) fn regroup<R: Record>(
    enc: &mut [u8],
    base: usize,
    (of, at): (&mut [Of<'_>], &[(usize, usize)]),
    end: &mut [usize],
    (records, head): (usize, usize),
) {
    let Some(bits) = of.first().map(|o| o.count.len().ilog2()) else {
        return;
    };
    let mut piece = Piece::<R>::new(bits, records, head);
    for ((of, &(from, to)), end) in of.iter_mut().zip(at).zip(end) {
        let rec = of.code.rec_bytes::<R>();
        // Each piece's regrouped bytes go back over its records (the free
        // front keeps them from the records not read yet).
        let (mut from, mut to) = (from - base, to - base);
        while from < *end - base {
            let len = (*end - base - from).min(records * rec);
            let out = piece.regroup(of, &enc[from..from + len]);
            enc[to..to + out.len()].copy_from_slice(out);
            (from, to) = (from + len, to + out.len());
        }
        *end = to + base;
    }
}
