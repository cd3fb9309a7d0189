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

use super::cells::Cells;
use super::Split;
use crate::error::{IoContext, Result};
use crate::ingest::sort::{KeyBits, Record};
use crate::io::{fault, AlignedBuf};
use crate::io::{open_direct, Access, Reader, WriteReq, ALIGN};
use crate::mem::Budget;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

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

/// How records are stored in the bucket files: where a record's encoding
/// begins with its radix key ([`Record::KEY_BYTES`]), bucket `i` stores the
/// key as its difference from `lo[i]` (the lowest key the bucket can hold)
/// in `width[i]` bytes, enough for the bucket's range, then the rest of the
/// encoding. Edge keys in narrow buckets take 5-7 bytes instead of 8.
#[derive(Clone, Debug, Default)]
pub(super) struct Packing {
    pub lo: Vec<u128>,
    pub width: Vec<usize>,
    /// Ordered buckets: their cells and the records in each.
    pub cells: Option<Arc<Cells>>,
}

/// The cell of `key` among `CELLS` cells of `1 << shift` keys from `base`
/// (keys outside go to the first or last).
#[inline]
pub(super) fn cell_of(base: u128, shift: u32, key: u128) -> usize {
    ((key.saturating_sub(base) >> shift).min(super::CELLS as u128 - 1)) as usize
}

impl Packing {
    /// Bytes a record of bucket `i` takes.
    #[inline]
    pub fn rec_bytes<R: Record>(&self, i: usize) -> usize {
        match R::KEY_BYTES {
            0 => R::BYTES,
            k => self.width[i] + R::BYTES - k,
        }
    }

    /// Writes `r` (of bucket `i`) into `out`, `rec_bytes(i)` long.
    #[inline]
    pub fn encode<R: Record>(&self, i: usize, r: &R, out: &mut [u8]) {
        if R::KEY_BYTES == 0 {
            return r.encode(out);
        }
        let w = self.width[i];
        let k = r.radix_key().wrapping_sub(self.lo[i]);
        debug_assert!(w >= 16 || k >> (8 * w) == 0, "key outside its bucket");
        out[..w].copy_from_slice(&k.to_le_bytes()[..w]);
        if R::BYTES > R::KEY_BYTES {
            let mut whole = [0u8; MAX_RECORD];
            r.encode(&mut whole[..R::BYTES]);
            out[w..].copy_from_slice(&whole[R::KEY_BYTES..R::BYTES]);
        }
    }

    /// Writes `r` (of bucket `i`) at `out[at..]`, `rec_bytes(i)` long; the
    /// bytes after it up to 8 past `at` may be overwritten (with what a
    /// later record of the section writes again) when `out` has them. A
    /// record that is its key alone and at most 8 bytes is then one 8-byte
    /// store instead of a copy of a length known only at run time.
    #[inline]
    pub fn encode_at<R: Record>(&self, i: usize, r: &R, out: &mut [u8], at: usize) {
        if R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 && R::BYTES == R::KEY_BYTES {
            if let Some(dst) = out.get_mut(at..at + 8) {
                let k = (r.radix_key() as u64).wrapping_sub(self.lo[i] as u64);
                debug_assert!(self.width[i] >= 8 || k >> (8 * self.width[i]) == 0);
                dst.copy_from_slice(&k.to_le_bytes());
                return;
            }
        }
        let len = self.rec_bytes::<R>(i);
        self.encode(i, r, &mut out[at..at + len]);
    }

    /// Appends the records of bucket `i` that `b` holds whole (`b.len()` a
    /// multiple of `rec_bytes(i)`), as [`Self::decode`] reads them, and
    /// adds their keys to `bits` (gathered here, where the keys are in
    /// registers, the sort that follows needs no pass of its own to plan);
    /// keys of at most 8 bytes are read as one 8-byte load and masked while
    /// 8 bytes remain.
    pub fn decode_into<R: Record>(&self, i: usize, b: &[u8], out: &mut Vec<R>, bits: &mut KeyBits) {
        let rec = self.rec_bytes::<R>(i);
        let mut done = 0;
        if let Some(l) = self.key_loads::<R>(i, b.len()) {
            let (mut or, mut and) = (0u64, u64::MAX);
            out.extend((0..l.count).map(|j| {
                let k = l.key(b, j);
                (or, and) = (or | k, and & k);
                R::from_key(k as u128, &[])
            }));
            done = l.count;
            if done > 0 {
                *bits = bits.merge(KeyBits {
                    or: or as u128,
                    and: and as u128,
                });
            }
        }
        let rest = out.len();
        out.extend(
            b[done * rec..b.len() / rec * rec]
                .chunks_exact(rec)
                .map(|c| self.decode::<R>(i, c)),
        );
        // The rest (wider keys, payloads, the last records): a pass while
        // they are still in cache.
        for r in &out[rest..] {
            bits.add(r.radix_key());
        }
    }

    /// Calls `f` with each record of bucket `i` that `b` holds whole, in
    /// order ([`Self::decode_into`]'s 8-byte loads where they apply).
    #[inline]
    pub fn decode_each<R: Record>(&self, i: usize, b: &[u8], mut f: impl FnMut(R)) {
        let rec = self.rec_bytes::<R>(i);
        let mut done = 0;
        if let Some(l) = self.key_loads::<R>(i, b.len()) {
            for j in 0..l.count {
                f(R::from_key(l.key(b, j) as u128, &[]));
            }
            done = l.count;
        }
        for c in b[done * rec..b.len() / rec * rec].chunks_exact(rec) {
            f(self.decode::<R>(i, c));
        }
    }

    /// For records of bucket `i` that are their key alone, of at most 8
    /// bytes, stored in `len` bytes: how many from the first can be read as
    /// one masked 8-byte load each (while 8 bytes remain).
    #[inline]
    fn key_loads<R: Record>(&self, i: usize, len: usize) -> Option<KeyLoads> {
        if !(R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 && R::BYTES == R::KEY_BYTES) {
            return None;
        }
        let rec = self.rec_bytes::<R>(i);
        let w = self.width[i];
        Some(KeyLoads {
            rec,
            // Record j's key can be loaded as 8 bytes while j * rec + 8 <= len.
            count: match len {
                l if l >= 8 => ((l - 8) / rec + 1).min(len / rec),
                _ => 0,
            },
            mask: if w >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * w)) - 1
            },
            lo: self.lo[i] as u64,
        })
    }

    /// Reads a record of bucket `i` from `b`, `rec_bytes(i)` long.
    #[inline]
    pub fn decode<R: Record>(&self, i: usize, b: &[u8]) -> R {
        if R::KEY_BYTES == 0 {
            return R::decode(b);
        }
        let w = self.width[i];
        let mut k = [0u8; 16];
        k[..w].copy_from_slice(&b[..w]);
        R::from_key(self.lo[i].wrapping_add(u128::from_le_bytes(k)), &b[w..])
    }
}

/// Keys read as masked 8-byte loads ([`Packing::key_loads`]).
struct KeyLoads {
    rec: usize,
    count: usize,
    mask: u64,
    lo: u64,
}

impl KeyLoads {
    /// The key of record `j` of `b`.
    #[inline(always)]
    fn key(&self, b: &[u8], j: usize) -> u64 {
        let at = j * self.rec;
        let x = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        self.lo.wrapping_add(x & self.mask)
    }
}

/// The largest record a packed bucket handles.
pub(super) const MAX_RECORD: usize = 64;

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
    ids: Vec<u16>,
}

/// One write of a spill: `len` bytes at `from` in the encoding, to file
/// `file` at `at`; `create` on the file's first.
struct Write {
    file: usize,
    at: u64,
    from: usize,
    len: usize,
    create: bool,
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
        let bytes = records * R::BYTES + 2 * buckets.count * ALIGN;
        let what = "bucket sort: spill encoding";
        let free = (0..encodings)
            .map(|_| AlignedBuf::new(bytes, budget, what))
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

    /// Partitions `recs` stably by bucket, encodes them and starts writing
    /// every bucket's whole blocks (on a thread of their own).
    pub fn spill<R: Record>(&mut self, recs: &[R]) -> Result<()> {
        if self.free.is_empty() {
            self.wait_writes()?;
        }
        let mut enc_buf = self.free.pop().expect("a free encoding buffer");
        let b = &mut self.buckets;
        let split = self.split;
        self.ids.clear();
        match split {
            // Ordered buckets have cells.
            _ if b.cells.is_some() => super::cells::bucket_ids(b, recs, &mut self.ids),
            _ => self
                .ids
                .extend(recs.iter().map(|r| b.of(split, r.radix_key()) as u16)),
        }
        let mut count = vec![0usize; b.count];
        for &i in &self.ids {
            count[i as usize] += 1;
        }
        // Section i: its tail, then its records; starts aligned.
        let mut start = vec![0usize; b.count + 1];
        for i in 0..b.count {
            let bytes = count[i] * b.pack.rec_bytes::<R>(i);
            self.bytes += bytes as u64;
            let len = self.tails[i].len() + bytes;
            start[i + 1] = start[i] + len.next_multiple_of(ALIGN);
        }
        let enc = &mut enc_buf.as_mut_slice()[..start[b.count]];
        let mut pos: Vec<usize> = (0..b.count)
            .map(|i| {
                let t = &self.tails[i];
                enc[start[i]..start[i] + t.len()].copy_from_slice(t);
                start[i] + t.len()
            })
            .collect();
        let pack = &b.pack;
        let rec: Vec<usize> = (0..b.count).map(|i| pack.rec_bytes::<R>(i)).collect();
        for (r, &i) in recs.iter().zip(&self.ids) {
            let (i, p) = (i as usize, pos[i as usize]);
            // Stores past the record stay inside its section.
            pack.encode_at(i, r, &mut enc[..start[i + 1]], p);
            pos[i] = p + rec[i];
        }
        let mut writes = Vec::new();
        for i in 0..b.count {
            let (lo, end) = (start[i], pos[i]);
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
            b.records[i] += count[i] as u64;
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

    /// Writes every bucket's leftover bytes as a last, zero-padded block and
    /// closes the files; the records counts say where the data ends.
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

/// Writes in flight at once when a spill writes its buckets' sections.
const WRITE_DEPTH: usize = 64;
/// Sections smaller than this on average are written [`WRITE_DEPTH`] at a
/// time, larger ones one after another.
const SMALL_SECTIONS: usize = 1 << 20;

/// Writes a spill's sections of `enc`; small ones [`WRITE_DEPTH`] at once
/// (io_uring, or the portable backend's threads): one after another, a
/// spill of hundreds of buckets at `--memory 128MiB` (sections of 10-60
/// KiB) wrote at 70-200 MB/s and held kron-24's read phase at 8.5 s (6.4-6.8
/// s in flight) against 3.5 s at 1 GiB. Returns whether every file took
/// `O_DIRECT`.
fn write_sections(
    writes: &[Write],
    files: &[PathBuf],
    enc: &AlignedBuf,
    buffered: bool,
) -> Result<bool> {
    let mut direct = true;
    let bytes: usize = writes.iter().map(|w| w.len).sum();
    if bytes >= SMALL_SECTIONS * writes.len() {
        // Large sections (a large share, few buckets): one at a time, each
        // a long sequential write (at 1 GiB kron-24's read phase was 3.5 s
        // this way, 4.0-4.6 s with 46 writes of 10 MB in flight).
        for w in writes {
            let path = &files[w.file];
            let (f, d) = open_direct(path, access(!w.create), buffered)?;
            direct &= d;
            let data = &enc.as_slice()[w.from..w.from + w.len];
            fault::write_all_at(&f, data, w.at).at(path)?;
        }
        return Ok(direct);
    }
    let mut io = Reader::new(None, WRITE_DEPTH.min(writes.len()))?;
    let mut reqs = Vec::with_capacity(writes.len());
    for (k, w) in writes.iter().enumerate() {
        let path = &files[w.file];
        let (f, d) = open_direct(path, access(!w.create), buffered)?;
        direct &= d;
        let file = io.adopt(path, f, d);
        reqs.push(WriteReq {
            file,
            offset: w.at,
            len: w.len,
            buf: enc.as_slice()[w.from..w.from + w.len].as_ptr(),
            tag: k as u64,
        });
    }
    // SAFETY: `enc` outlives the writes: every one is waited for below
    // (and dropping `io` on an error waits for those in flight).
    unsafe { io.submit_writes(&reqs)? };
    let mut done = Vec::with_capacity(writes.len());
    while done.len() < writes.len() {
        io.wait(1, &mut done)?;
    }
    for c in done {
        let path = &files[writes[c.tag as usize].file];
        c.result.at(path)?;
    }
    Ok(direct)
}

/// A bucket file is created by its first write and appended to after.
fn access(created: bool) -> Access {
    if created {
        Access::Write
    } else {
        Access::Create
    }
}
