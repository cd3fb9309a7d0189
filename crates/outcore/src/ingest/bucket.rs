//! Distribution sorting inside the budget: scatter into buckets, then sort
//! each bucket in memory (external sample sort; GridGraph's and G-Store's
//! preprocessing partition edges the same way instead of merging runs).
//!
//! Records gather in one buffer charged to the [`Budget`]. If everything fits
//! nothing touches the disk. When the buffer first fills, bucket boundaries
//! are chosen from its keys ([`Split::Ordered`]: sampled splitters, so buckets
//! in order give every record in key order) or from a hash of the key
//! ([`Split::Hashed`]: buckets balanced whatever the key distribution, equal
//! keys in one bucket, key order only inside a bucket); every full buffer is
//! then partitioned stably and appended to the bucket files in large writes.
//! Reading back loads one bucket at a time, sorts it on both cores while the
//! consumer still works on the previous one (a background thread), and hands
//! the records out. One write and one read per record, no merge heap. A
//! bucket too large for memory (a flood of one key, a bad sample) is sorted by
//! the run-merging [`ExternalSorter`] instead: slower, never wrong.
//!
//! Ties keep push order (partitioning and appends are stable, the in-memory
//! sort is stable), so "last occurrence wins" holds as with the run sorter.

use super::sort::{sort_records_with, ExternalSorter, Record, Sorted};
use crate::error::{IoContext, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// How keys are assigned to buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Ranges of keys from sampled splitters: the whole stream is in key order.
    Ordered,
    /// A hash of the key: equal keys meet, order holds inside a bucket only.
    Hashed,
}

/// Records decoded per read while loading a bucket.
const LOAD_CHUNK: usize = 1 << 20;
/// Keys sampled from the first full buffer to choose splitters.
const SAMPLE: usize = 1 << 16;
/// Cells of the bucket lookup table ([`Split::Ordered`]).
const CELLS: usize = 1 << 16;
/// The most buckets (files) one sorter makes.
const MAX_BUCKETS: usize = 4096;

/// A distribution sorter; see the module docs.
pub struct BucketSorter<R: Record> {
    name: &'static str,
    dir: PathBuf,
    split: Split,
    budget: Budget,
    buf: Vec<R>,
    charge: Option<Charge>,
    charge_bytes: u64,
    expected: u64,
    pushed: u64,
    spilled_bytes: u64,
    /// Set at the first spill.
    buckets: Option<Buckets>,
    /// Spill scratch, kept between spills (fresh pages cost a fault each).
    ids: Vec<u16>,
    bytes: Vec<u8>,
}

struct Buckets {
    /// Ordered: keys fall in [`CELLS`] cells of `1 << shift` keys from
    /// `base` (keys outside go to the first or last cell), and `table` maps a
    /// cell to its bucket: splitters sit on cell boundaries, so finding a
    /// record's bucket is a shift and a lookup, not a search.
    base: u128,
    shift: u32,
    table: Vec<u16>,
    count: usize,
    files: Vec<PathBuf>,
    records: Vec<u64>,
}

impl Buckets {
    #[inline]
    fn cell(&self, key: u128) -> usize {
        ((key.saturating_sub(self.base) >> self.shift) as usize).min(CELLS - 1)
    }

    #[inline]
    fn of(&self, split: Split, key: u128) -> usize {
        match split {
            Split::Ordered => self.table[self.cell(key)] as usize,
            Split::Hashed => {
                let h = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                (((h >> 32) * self.count as u64) >> 32) as usize
            }
        }
    }
}

impl<R: Record> BucketSorter<R> {
    /// A sorter holding up to `bytes` of the budget (the buffer and its sort
    /// scratch), spilling into `dir`; `expected` records (an estimate, when
    /// known) sizes the number of buckets so each fits in memory.
    pub fn new(
        name: &'static str,
        dir: &Path,
        budget: &Budget,
        bytes: u64,
        split: Split,
        expected: Option<u64>,
    ) -> Result<Self> {
        // Per record: itself and a sort scratch copy (or, when spilling, its
        // encoding and bucket number).
        let size = std::mem::size_of::<R>() as u64;
        let per = 2 * size + 2;
        let records = (bytes / per).max(1024);
        let charge_bytes = records * per;
        let charge = Some(budget.charge(charge_bytes, name)?);
        Ok(BucketSorter {
            name,
            dir: dir.to_path_buf(),
            split,
            budget: budget.clone(),
            buf: Vec::with_capacity(records as usize),
            charge,
            charge_bytes,
            expected: expected.unwrap_or(0),
            pushed: 0,
            spilled_bytes: 0,
            buckets: None,
            ids: Vec::new(),
            bytes: Vec::new(),
        })
    }

    /// Adds one record.
    #[inline]
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.buf.len() == self.buf.capacity() {
            self.spill()?;
        }
        self.buf.push(r);
        self.pushed += 1;
        Ok(())
    }

    /// Records pushed so far.
    pub fn len(&self) -> u64 {
        self.pushed
    }

    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Bytes written to bucket files so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled_bytes
    }

    /// Records one loaded bucket may hold: the bucket being handed out, the
    /// next one and its sort scratch share the charge.
    fn load_capacity(&self) -> u64 {
        (self.charge_bytes / (3 * std::mem::size_of::<R>() as u64)).max(1024)
    }

    fn choose_buckets(&self) -> Buckets {
        // Buckets a quarter of the load capacity: reading back holds a
        // quarter of this sorter's charge and leaves the rest to the sorters
        // filled meanwhile; sampling noise rarely overflows one.
        let per = self.load_capacity() / 4;
        let expected = self.expected.max(4 * self.buf.len() as u64);
        let count = (expected / per + 1).clamp(2, MAX_BUCKETS as u64) as usize;
        let mut b = Buckets {
            base: 0,
            shift: 0,
            table: Vec::new(),
            count,
            files: Vec::new(),
            records: Vec::new(),
        };
        if self.split == Split::Ordered {
            let step = (self.buf.len() / SAMPLE).max(1);
            let mut sample: Vec<u128> = self
                .buf
                .iter()
                .step_by(step)
                .map(|r| r.radix_key())
                .collect();
            sample.sort_unstable();
            b.base = sample[0];
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
        }
        b.files = (0..b.count)
            .map(|i| self.dir.join(format!("{}-bucket{i:05}.tmp", self.name)))
            .collect();
        b.records = vec![0; b.count];
        b
    }

    /// Partitions the buffer stably by bucket and appends each part to its file.
    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if self.buckets.is_none() {
            self.buckets = Some(self.choose_buckets());
        }
        let b = self.buckets.as_mut().expect("set above");
        let split = self.split;
        let ids = &mut self.ids;
        ids.clear();
        ids.extend(self.buf.iter().map(|r| b.of(split, r.radix_key()) as u16));
        let mut start = vec![0usize; b.count + 1];
        for &i in ids.iter() {
            start[i as usize + 1] += 1;
        }
        for i in 0..b.count {
            start[i + 1] += start[i];
        }
        let bytes = &mut self.bytes;
        bytes.resize(self.buf.len() * R::BYTES, 0);
        let mut pos = start.clone();
        for (r, &i) in self.buf.iter().zip(ids.iter()) {
            let p = pos[i as usize];
            r.encode(&mut bytes[p * R::BYTES..(p + 1) * R::BYTES]);
            pos[i as usize] = p + 1;
        }
        for i in 0..b.count {
            let (lo, hi) = (start[i], start[i + 1]);
            if lo == hi {
                continue;
            }
            let path = &b.files[i];
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .at(path)?;
            f.write_all(&bytes[lo * R::BYTES..hi * R::BYTES]).at(path)?;
            b.records[i] += (hi - lo) as u64;
        }
        self.spilled_bytes += bytes.len() as u64;
        self.buf.clear();
        bytes.clear();
        crate::cancel::check()
    }

    /// Once pushing is over and other work comes before [`Self::finish`]: a
    /// sorter that spilled writes out its buffer and gives its memory back
    /// (finishing takes what it needs again).
    pub fn park(&mut self) -> Result<()> {
        if self.buckets.is_some() {
            self.spill()?;
            self.buf = Vec::new();
            self.bytes = Vec::new();
            self.ids = Vec::new();
            self.charge = None;
        }
        Ok(())
    }

    /// Finishes pushing; the records come back in key order (per bucket when
    /// hashed).
    pub fn finish(mut self) -> Result<Sorted<R>> {
        if self.buckets.is_none() {
            let mut buf = std::mem::take(&mut self.buf);
            sort_records_with(&mut buf, &mut Vec::new());
            buf.shrink_to_fit();
            let keep = buf.len() as u64 * std::mem::size_of::<R>() as u64;
            self.charge = None;
            let charge = self.budget.charge(keep, self.name)?;
            return Ok(Sorted::memory(buf, charge));
        }
        self.spill()?;
        self.buf = Vec::new();
        self.bytes = Vec::new();
        self.ids = Vec::new();
        self.charge = None;
        let b = self.buckets.take().expect("spilled");
        let largest = b.records.iter().copied().max().unwrap_or(0);
        let per = self.load_capacity().min(largest.max(1)) as usize;
        let charge = self
            .budget
            .charge(per as u64 * 3 * std::mem::size_of::<R>() as u64, self.name)?;
        let files = BucketFiles(b.files);
        Ok(Sorted::buckets(BucketStream {
            name: self.name,
            dir: self.dir.clone(),
            budget: self.budget.clone(),
            charge: Some(charge),
            records: b.records,
            files,
            per,
            next: 0,
            cur: Current::Mem(Vec::new(), 0),
            prefetch: None,
            spare: Vec::new(),
            scratch: Vec::new(),
        }))
    }
}

impl<R: Record> Drop for BucketSorter<R> {
    fn drop(&mut self) {
        if let Some(b) = &self.buckets {
            for p in &b.files {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Bucket files removed on drop.
struct BucketFiles(Vec<PathBuf>);

impl Drop for BucketFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

enum Current<R: Record> {
    Mem(Vec<R>, usize),
    /// An oversized bucket, merged from runs.
    Ext(Box<Sorted<R>>),
}

/// A loader's result: the sorted bucket and the sort scratch, returned
/// for reuse.
type Loaded<R> = JoinHandle<(Result<Vec<R>>, Vec<R>)>;

/// The records of spilled buckets, one bucket at a time.
pub struct BucketStream<R: Record> {
    name: &'static str,
    dir: PathBuf,
    budget: Budget,
    charge: Option<Charge>,
    records: Vec<u64>,
    files: BucketFiles,
    /// Records a bucket may have to be loaded whole.
    per: usize,
    /// The next bucket to start.
    next: usize,
    cur: Current<R>,
    prefetch: Option<(usize, Loaded<R>)>,
    /// Buffers kept between buckets: a spare for the next load and the
    /// sort scratch.
    spare: Vec<R>,
    scratch: Vec<R>,
}

/// Reads and sorts one bucket file into `out`.
fn load<R: Record>(
    path: &Path,
    records: u64,
    mut out: Vec<R>,
    scratch: &mut Vec<R>,
) -> Result<Vec<R>> {
    out.clear();
    out.reserve(records as usize);
    if records > 0 {
        let mut f = File::open(path).at(path)?;
        let mut bytes = vec![0u8; LOAD_CHUNK.min(records as usize) * R::BYTES];
        let mut left = records as usize;
        while left > 0 {
            let n = left.min(LOAD_CHUNK);
            f.read_exact(&mut bytes[..n * R::BYTES]).at(path)?;
            out.extend(bytes[..n * R::BYTES].chunks_exact(R::BYTES).map(R::decode));
            left -= n;
        }
    }
    sort_records_with(&mut out, scratch);
    Ok(out)
}

impl<R: Record> BucketStream<R> {
    /// The next record, or `None` at the end.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<R>> {
        loop {
            match &mut self.cur {
                Current::Mem(v, i) => {
                    if let Some(r) = v.get(*i) {
                        *i += 1;
                        return Ok(Some(*r));
                    }
                }
                Current::Ext(s) => {
                    if let Some(r) = s.next_record()? {
                        return Ok(Some(r));
                    }
                }
            }
            if !self.advance()? {
                return Ok(None);
            }
        }
    }

    fn fits(&self, b: usize) -> bool {
        self.records[b] as usize <= self.per
    }

    fn start_prefetch(&mut self, b: usize) {
        if b < self.records.len() && self.fits(b) {
            let path = self.files.0[b].clone();
            let n = self.records[b];
            let out = std::mem::take(&mut self.spare);
            let mut scratch = std::mem::take(&mut self.scratch);
            let h = std::thread::spawn(move || {
                let r = load::<R>(&path, n, out, &mut scratch);
                (r, scratch)
            });
            self.prefetch = Some((b, h));
        }
    }

    /// Waits for the loader; its scratch comes back for reuse.
    fn join(&mut self, h: Loaded<R>) -> Result<Vec<R>> {
        let (r, scratch) = h.join().expect("bucket loader panicked");
        self.scratch = scratch;
        r
    }

    /// Moves to the next bucket; false at the end.
    fn advance(&mut self) -> Result<bool> {
        // Keep the finished bucket's buffer as the spare (release an
        // oversized one's charges) before the next one is held.
        if let Current::Mem(v, _) = std::mem::replace(&mut self.cur, Current::Mem(Vec::new(), 0)) {
            if v.capacity() > self.spare.capacity() {
                self.spare = v;
            }
        }
        self.recharge()?;
        let b = self.next;
        if b >= self.records.len() {
            return Ok(false);
        }
        self.next += 1;
        if self.fits(b) {
            let v = match self.prefetch.take() {
                Some((p, h)) if p == b => self.join(h)?,
                _ => {
                    let out = std::mem::take(&mut self.spare);
                    load::<R>(&self.files.0[b], self.records[b], out, &mut self.scratch)?
                }
            };
            self.cur = Current::Mem(v, 0);
            self.start_prefetch(b + 1);
        } else {
            // Too large to load: merge it from runs with the whole charge.
            self.spare = Vec::new();
            self.scratch = Vec::new();
            let bytes = self.charge.take().map_or(0, |c| c.bytes());
            let mut s = ExternalSorter::<R>::new(self.name, &self.dir, &self.budget, bytes)?;
            let path = &self.files.0[b];
            let mut f = File::open(path).at(path)?;
            let mut bytes = vec![0u8; LOAD_CHUNK * R::BYTES];
            let mut left = self.records[b] as usize;
            while left > 0 {
                let n = left.min(LOAD_CHUNK);
                f.read_exact(&mut bytes[..n * R::BYTES]).at(path)?;
                for c in bytes[..n * R::BYTES].chunks_exact(R::BYTES) {
                    s.push(R::decode(c))?;
                }
                left -= n;
            }
            drop(bytes);
            let sorted = s.finish()?;
            self.cur = Current::Ext(Box::new(sorted));
        }
        Ok(true)
    }

    /// Starts the stream over.
    pub fn rewind(&mut self) -> Result<()> {
        if let Some((_, h)) = self.prefetch.take() {
            let _ = self.join(h);
        }
        self.cur = Current::Mem(Vec::new(), 0);
        self.recharge()?;
        self.next = 0;
        Ok(())
    }

    /// Takes back the loading charge an oversized bucket borrowed.
    fn recharge(&mut self) -> Result<()> {
        if self.charge.is_none() {
            let bytes = self.per as u64 * 3 * std::mem::size_of::<R>() as u64;
            self.charge = Some(self.budget.charge(bytes, self.name)?);
        }
        Ok(())
    }

    /// Records per bucket (for tests and stats).
    pub fn bucket_records(&self) -> &[u64] {
        &self.records
    }
}

impl<R: Record> Drop for BucketStream<R> {
    fn drop(&mut self) {
        if let Some((_, h)) = self.prefetch.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pair(u64, u32);

    impl Record for Pair {
        const BYTES: usize = 12;
        type Key = u64;
        fn key(&self) -> u64 {
            self.0
        }
        fn radix_key(&self) -> u128 {
            self.0 as u128
        }
        fn encode(&self, out: &mut [u8]) {
            out[..8].copy_from_slice(&self.0.to_le_bytes());
            out[8..12].copy_from_slice(&self.1.to_le_bytes());
        }
        fn decode(b: &[u8]) -> Self {
            Pair(
                u64::from_le_bytes(b[..8].try_into().unwrap()),
                u32::from_le_bytes(b[8..12].try_into().unwrap()),
            )
        }
    }

    /// Sorts `keys` (tagged with their push order) with a sorter of `bytes`
    /// and checks the stream, twice (rewound), against a stable sort; returns
    /// the bucket sizes (empty when nothing spilled).
    fn check(keys: &[u64], bytes: u64, split: Split, expected: Option<u64>) -> Vec<u64> {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(1 << 30);
        let mut s =
            BucketSorter::<Pair>::new("t", dir.path(), &budget, bytes, split, expected).unwrap();
        let pairs: Vec<Pair> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| Pair(k, i as u32))
            .collect();
        for &p in &pairs {
            s.push(p).unwrap();
        }
        let mut expect = pairs.clone();
        expect.sort_by_key(|p| p.0);
        let mut sorted = s.finish().unwrap();
        for round in 0..2 {
            let mut got = Vec::new();
            while let Some(r) = sorted.next_record().unwrap() {
                got.push(r);
            }
            if split == Split::Hashed {
                // Equal keys together, in push order; keys sorted per bucket.
                let mut runs: Vec<Vec<Pair>> = Vec::new();
                for p in &got {
                    match runs.last_mut() {
                        Some(r) if r[0].0 == p.0 => r.push(*p),
                        _ => runs.push(vec![*p]),
                    }
                }
                let mut seen: Vec<u64> = runs.iter().map(|r| r[0].0).collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), runs.len(), "a key appears in two places");
                got.sort_by_key(|p| p.0);
            }
            assert_eq!(got, expect, "round {round}");
            sorted.rewind().unwrap();
        }
        let records = match &sorted {
            s if s.is_spilled() => s.bucket_records().map(<[u64]>::to_vec).unwrap_or_default(),
            _ => Vec::new(),
        };
        drop(sorted);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "files left"
        );
        assert!(budget.used() == 0, "charges left");
        records
    }

    fn random(n: usize, modulo: u64, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 20) % modulo
            })
            .collect()
    }

    #[test]
    fn small_inputs_stay_in_memory() {
        for split in [Split::Ordered, Split::Hashed] {
            assert!(check(&random(5000, 100, 1), 1 << 20, split, None).is_empty());
        }
    }

    #[test]
    fn spilled_buckets_come_back_in_order_and_stable() {
        // 1024-record buffers: many spills into many buckets.
        for (n, modulo, seed) in [
            (60_000, 1 << 40, 2),
            (60_000, 300, 3),
            (30_001, u64::MAX, 4),
        ] {
            for split in [Split::Ordered, Split::Hashed] {
                let keys = random(n, modulo, seed);
                let b = check(&keys, 0, split, Some(n as u64));
                assert!(b.len() > 2, "{split:?}: {} buckets", b.len());
            }
        }
    }

    #[test]
    fn sorted_inputs_and_floods_of_one_key_fall_back_to_merging() {
        // Sorted input: the first buffer's sample covers little of the
        // range, so the last bucket overflows and is merged from runs.
        let keys: Vec<u64> = (0..40_000u64).map(|i| i * 7).collect();
        let b = check(&keys, 0, Split::Ordered, Some(1000));
        assert!(b.iter().any(|&r| r > 1024), "{b:?}");
        // One key 20,000 times: a bucket no split can divide.
        let mut keys = random(20_000, 1 << 30, 5);
        keys.extend(std::iter::repeat_n(77, 20_000));
        for split in [Split::Ordered, Split::Hashed] {
            let b = check(&keys, 0, split, Some(40_000));
            assert!(b.iter().any(|&r| r >= 20_000), "{split:?}: {b:?}");
        }
    }

    #[test]
    fn hashed_buckets_are_balanced_for_skewed_keys() {
        // Keys crowded in a narrow range still spread evenly.
        let keys: Vec<u64> = random(50_000, 1 << 10, 6).iter().map(|k| k << 40).collect();
        let b = check(&keys, 0, Split::Hashed, Some(50_000));
        let (max, mean) = (*b.iter().max().unwrap(), 50_000 / b.len() as u64);
        assert!(max < 3 * mean, "{b:?}");
    }
}
