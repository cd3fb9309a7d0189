//! Writing buckets: a full buffer is partitioned stably by bucket, encoded
//! into one aligned buffer where every bucket's section starts on an
//! [`ALIGN`] boundary (preceded by the bytes its last write left over), and
//! each section's whole blocks are written with `O_DIRECT` at the bucket
//! file's end; the remainder (under one block) waits for the next spill, and
//! the last is written padded when the sorter finishes. Direct writes skip
//! the page cache: no kernel copy, which was a third of the build's CPU time.
//! Where the filesystem refuses `O_DIRECT` the same writes go through the
//! page cache.
//!
//! A spill runs on a background thread while the caller fills the other
//! record buffer (double buffering), and its writes run on a thread of their
//! own while the next spill encodes into a second buffer (shares of 256 MiB
//! and more; smaller ones have one and wait for its writes): encoding (6.5 ns
//! a record) and writing (3 ns) had run one after the other, and at kron-24
//! the remap waited on them: 16 spills of 0.2 s encoding and 0.1 s writing.

use super::buckets::Buckets;
use super::group::{piece, piece_bytes, regroup, Of};
use super::write::{access, write_sections, Write};
use super::Split;
use crate::error::{IoContext, Result};
use crate::ingest::sort::Record;
use crate::io::{fault, open_direct, AlignedBuf, ALIGN};
use crate::mem::Budget;
use std::sync::Arc;
use std::thread::JoinHandle;

/// The writing side of a sorter's buckets; moves to the spill thread and back.
pub(super) struct Spiller {
    pub buckets: Buckets,
    split: Split,
    /// Files are opened per write (hundreds of buckets, three sorters: more
    /// than the descriptors a process may hold); created on the first.
    created: Vec<bool>,
    buffered: bool,
    /// Whether every file took `O_DIRECT`.
    pub direct: bool,
    /// Bytes of records written so far.
    pub bytes: u64,
    /// Bytes written per file (whole blocks) and the bytes left over.
    at: Vec<u64>,
    tails: Vec<Vec<u8>>,
    /// Encoding buffers not in use (one or two; one is away while its
    /// writes run).
    free: Vec<AlignedBuf>,
    /// The last spill's writes, on their thread: its buffer comes back with
    /// the result (whether every file took `O_DIRECT`).
    writing: Option<JoinHandle<(AlignedBuf, Result<bool>)>>,
    /// Each record's bucket.
    ids: Vec<u16>,
    /// Records per piece regrouped by cell, and the regrouping's charge.
    piece: usize,
    _pieces: Option<crate::mem::budget::Charge>,
}

/// Where a spill put each bucket's section in the encoding: from
/// `start[i]` (aligned) to `end[i]`.
struct Sections {
    start: Vec<usize>,
    end: Vec<usize>,
}

/// Bytes an encoding of `records` records may take with `buckets`
/// (`cells` cells a bucket): the records, two blocks a bucket for
/// alignment, and the cells' counts of each piece, 3 bytes each.
pub(super) fn encoding_bytes<R: Record>(records: usize, buckets: usize, cells: usize) -> usize {
    let pieces = records / piece::<R>(records) + buckets;
    records * R::BYTES + 2 * buckets * ALIGN + pieces * 3 * cells
}

impl Spiller {
    /// Creates the bucket files and an encoding buffer for `records` records.
    pub fn new<R: Record>(
        buckets: Buckets,
        split: Split,
        (records, encodings): (usize, usize),
        budget: &Budget,
        buffered: bool,
    ) -> Result<Spiller> {
        let cells = buckets.cells.as_ref().map_or(0, |c| 1 << c.bits);
        let bytes = encoding_bytes::<R>(records, buckets.count, cells);
        let pieces = match cells {
            0 => None,
            _ => Some(budget.charge(piece_bytes::<R>(records), "bucket sort: cell regrouping")?),
        };
        let what = "bucket sort: spill encoding";
        let free = (0..encodings)
            .map(|_| {
                let mut b = AlignedBuf::new(bytes, budget, what)?;
                // Records go to every cell's run at once: huge pages keep
                // the stores out of TLB misses.
                let s = b.as_mut_slice();
                crate::mem::budget::advise_huge(s.as_mut_ptr(), s.len());
                Ok(b)
            })
            .collect::<Result<Vec<_>>>()?;
        let count = buckets.count;
        Ok(Spiller {
            buckets,
            split,
            created: vec![false; count],
            buffered,
            direct: !buffered,
            bytes: 0,
            at: vec![0; count],
            tails: vec![Vec::new(); count],
            free,
            writing: None,
            ids: Vec::new(),
            piece: piece::<R>(records),
            _pieces: pieces,
        })
    }

    /// Waits for the last spill's writes; their buffer becomes free again.
    fn wait_writes(&mut self) -> Result<()> {
        if let Some(h) = self.writing.take() {
            let (buf, r) = h.join().expect("spill writer panicked");
            self.free.push(buf);
            self.direct &= r?;
        }
        Ok(())
    }

    /// Partitions `recs` stably by bucket (and cell), encodes them and
    /// starts writing every bucket's whole blocks (on a thread of their own).
    pub fn spill<R: Record>(&mut self, recs: &[R]) -> Result<()> {
        if self.free.is_empty() {
            self.wait_writes()?;
        }
        let mut enc_buf = self.free.pop().expect("a free encoding buffer");
        let enc = enc_buf.as_mut_slice();
        let left: usize = self.tails.iter().map(|t| t.len()).sum();
        let s = match self.buckets.cells.is_some() {
            true => self.encode_cells(recs, enc),
            false => self.encode_buckets(recs, enc, 0).0,
        };
        let ends: usize = (0..s.end.len()).map(|i| s.end[i] - s.start[i]).sum();
        self.bytes += (ends - left) as u64;
        let b = &mut self.buckets;
        let mut writes = Vec::new();
        for i in 0..b.count {
            let (lo, end) = (s.start[i], s.end[i]);
            let whole = (end - lo) / ALIGN * ALIGN;
            if whole > 0 {
                writes.push(Write {
                    file: i,
                    at: self.at[i],
                    from: lo,
                    len: whole,
                    create: !self.created[i],
                });
                self.created[i] = true;
                self.at[i] += whole as u64;
            }
            self.tails[i].clear();
            self.tails[i].extend_from_slice(&enc[lo + whole..end]);
        }
        let files = b.files.clone();
        // In file order after the last spill's: wait for those first.
        self.wait_writes()?;
        let buffered = self.buffered;
        self.writing = Some(std::thread::spawn(move || {
            let r = write_sections(&writes, &files, &enc_buf, buffered);
            (enc_buf, r)
        }));
        crate::cancel::check()
    }

    /// Section `i` of `enc` laid out from `start[i]`: the bytes the last
    /// spill left over, `front[i]` bytes kept free, then `bytes[i]`;
    /// returns where each data begins.
    fn lay_out(
        &self,
        bytes: &[usize],
        front: &[usize],
        enc: &mut [u8],
    ) -> (Vec<usize>, Vec<usize>) {
        let mut start = vec![0];
        for (i, &n) in bytes.iter().enumerate() {
            let len = self.tails[i].len() + front[i] + n;
            start.push(start[i] + len.next_multiple_of(ALIGN));
        }
        let data = (0..bytes.len())
            .map(|i| {
                let t = &self.tails[i];
                enc[start[i]..start[i] + t.len()].copy_from_slice(t);
                start[i] + t.len() + front[i]
            })
            .collect();
        (start, data)
    }

    /// Each section the bucket's records in push order, after `head`
    /// bytes kept free per piece of records (for [`Self::encode_cells`]);
    /// also returns the records of each bucket.
    fn encode_buckets<R: Record>(
        &mut self,
        recs: &[R],
        enc: &mut [u8],
        head: usize,
    ) -> (Sections, Vec<usize>) {
        let b = &self.buckets;
        let split = self.split;
        // Two threads, each half of the records: their buckets, then
        // each stores its records at its own part of every section.
        let half = recs.len() / 2;
        self.ids.resize(recs.len(), 0);
        let (ids_a, ids_b) = self.ids.split_at_mut(half);
        let (recs_a, recs_b) = recs.split_at(half);
        let ids_of = |recs: &[R], ids: &mut [u16]| {
            let mut count = vec![0usize; b.count];
            if split == Split::Ordered && R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 {
                // Keys of 64 bits: the table's cells in 64-bit arithmetic
                // (u128 shifts and compares cost a tenth of kron-24's read
                // phase).
                let (base, last) = (b.base as u64, super::CELLS as u64 - 1);
                for (r, id) in recs.iter().zip(ids.iter_mut()) {
                    let k = r.radix_key() as u64;
                    let i = b.table[(k.saturating_sub(base) >> b.shift).min(last) as usize];
                    *id = i;
                    count[i as usize] += 1;
                }
                return count;
            }
            for (r, id) in recs.iter().zip(ids.iter_mut()) {
                let i = b.of(split, r.radix_key());
                *id = i as u16;
                count[i] += 1;
            }
            count
        };
        let (count_a, count_b) = std::thread::scope(|t| {
            let a = t.spawn(|| ids_of(recs_b, ids_b));
            let c = ids_of(recs_a, ids_a);
            (c, a.join().expect("bucket ids thread panicked"))
        });
        let count: Vec<usize> = count_a.iter().zip(&count_b).map(|(a, b)| a + b).collect();
        let rec: Vec<usize> = (0..b.count)
            .map(|i| b.pack.code(i).rec_bytes::<R>())
            .collect();
        let bytes: Vec<usize> = (0..b.count).map(|i| count[i] * rec[i]).collect();
        let front: Vec<usize> = count
            .iter()
            .map(|&n| n.div_ceil(self.piece) * head)
            .collect();
        let (start, data) = self.lay_out(&bytes, &front, enc);
        // Each section's records: the first half's, then the second's.
        let (mut parts_a, mut parts_b) = (Vec::new(), Vec::new());
        let mut rest = enc;
        let mut at = 0;
        for i in 0..b.count {
            let r = std::mem::take(&mut rest).split_at_mut(data[i] - at).1;
            let (a, r) = r.split_at_mut(count_a[i] * rec[i]);
            let (c, r) = r.split_at_mut(count_b[i] * rec[i]);
            parts_a.push(a);
            parts_b.push(c);
            (rest, at) = (r, data[i] + bytes[i]);
        }
        let pack = &b.pack;
        let store = |recs: &[R], ids: &[u16], parts: &mut [&mut [u8]]| {
            let mut pos = vec![0usize; parts.len()];
            for (r, &i) in recs.iter().zip(ids) {
                let (i, p) = (i as usize, pos[i as usize]);
                // Stores past the record stay inside its part.
                pack.code(i).encode_at(r, parts[i], p);
                pos[i] = p + rec[i];
            }
        };
        let (ids_a, ids_b) = self.ids.split_at(half);
        std::thread::scope(|t| {
            t.spawn(|| store(recs_b, ids_b, &mut parts_b));
            store(recs_a, ids_a, &mut parts_a);
        });
        let b = &mut self.buckets;
        for (n, &c) in b.records.iter_mut().zip(&count) {
            *n += c as u64;
        }
        let end = (0..b.count).map(|i| data[i] + bytes[i]).collect();
        (Sections { start, end }, count)
    }

    /// Buckets with cells: each section is cut in pieces of up to
    /// [`piece`] records, each the counts of the bucket's cells (varints),
    /// then its records cell by cell (in push order within a cell), each
    /// key above its cell's lowest ([`super::cells::Cells::code`]). The records are first
    /// laid out by bucket as without cells, then each piece is regrouped
    /// in a scratch buffer the core's cache holds and copied back over the
    /// records read: storing every record straight into its cell's run
    /// (a hundred thousand runs at once at kron-24 / 1 GiB) made the read
    /// phase three times slower.
    fn encode_cells<R: Record>(&mut self, recs: &[R], enc: &mut [u8]) -> Sections {
        let bits = self.buckets.cells.as_ref().expect("cells").bits;
        // A count of at most a piece's records (2^17 or fewer) takes at
        // most 3 bytes.
        let head = 3 << bits;
        let (mut s, count) = self.encode_buckets(recs, enc, head);
        let b = &mut self.buckets;
        let cells = b.cells.as_mut().expect("cells");
        // Two threads, each a run of buckets with half the records.
        let (total, mut acc) = (recs.len(), 0);
        let mid = count
            .iter()
            .position(|&n| {
                acc += n;
                2 * acc >= total
            })
            .map_or(b.count, |m| m + 1);
        let (lo, hi) = enc.split_at_mut(s.start[mid]);
        let mut of: Vec<Of<'_>> = cells.buckets(&b.pack).collect();
        let (of_lo, of_hi) = of.split_at_mut(mid);
        // Each bucket: where its records begin, and where its bytes go.
        let at: Vec<(usize, usize)> = (0..b.count)
            .map(|i| {
                let rec = b.pack.code(i).rec_bytes::<R>();
                (s.end[i] - count[i] * rec, s.start[i] + self.tails[i].len())
            })
            .collect();
        let (ends_lo, ends_hi) = s.end.split_at_mut(mid);
        let (at_lo, at_hi) = at.split_at(mid);
        let piece = (self.piece, head);
        std::thread::scope(|t| {
            t.spawn(|| regroup::<R>(hi, s.start[mid], (of_hi, at_hi), ends_hi, piece));
            regroup::<R>(lo, 0, (of_lo, at_lo), ends_lo, piece);
        });
        s
    }

    /// Writes every bucket's leftover bytes as a last, zero-padded block and
    /// closes the files; [`super::buckets::Packing::len`] says where the data ends.
    pub fn finish(mut self) -> Result<(Buckets, bool)> {
        self.wait_writes()?;
        let mut enc = self.free.pop().expect("a free encoding buffer");
        let block = &mut enc.as_mut_slice()[..ALIGN];
        for i in 0..self.buckets.count {
            let t = &self.tails[i];
            if t.is_empty() {
                continue;
            }
            block[..t.len()].copy_from_slice(t);
            block[t.len()..].fill(0);
            let path = &self.buckets.files[i];
            let (f, d) = open_direct(path, access(self.created[i]), self.buffered)?;
            self.created[i] = true;
            self.direct &= d;
            fault::write_all_at(&f, block, self.at[i]).at(path)?;
        }
        let mut b = std::mem::take(&mut self.buckets);
        b.pack.len = (0..b.count)
            .map(|i| self.at[i] + self.tails[i].len() as u64)
            .collect();
        b.pack.cells = b.cells.take().map(Arc::new);
        Ok((b, self.direct))
    }
}

impl Drop for Spiller {
    fn drop(&mut self) {
        // Writes in flight end before their files may be removed.
        if let Some(h) = self.writing.take() {
            let _ = h.join();
        }
    }
}
