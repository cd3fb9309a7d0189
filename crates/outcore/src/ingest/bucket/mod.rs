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
//! then partitioned stably and appended to the bucket files in large
//! `O_DIRECT` writes on a background thread while the other buffer fills
//! (`spill.rs`). Reading back loads one bucket at a time, sorts it on both cores while the
//! consumer still works on the previous one (a background thread), and hands
//! the records out. One write and one read per record, no merge heap.
//! Ordered buckets are counted per cell of their own key range as they
//! spill, and read back straight into their cells' places, so the sort
//! only sorts each cell (`cells.rs`). A
//! bucket too large for memory (a bad sample, a stream that came in order)
//! is distributed again by a nested sorter, and a flood of one key is read
//! back as it is (`nest.rs`).
//!
//! Ties keep push order (partitioning and appends are stable, the in-memory
//! sort is stable), so "last occurrence wins" holds as with the run sorter.

use super::sort::{sort_records, Record, Sorted};
use crate::error::Result;
use crate::ingest::scratch::ScratchFiles;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use spill::Spiller;
use std::thread::JoinHandle;
use stream::BucketFiles;
pub use stream::{BucketStats, BucketStream};

mod buckets;
mod cells;
mod code;
mod decode;
mod group;
mod loader;
mod nest;
mod read;
mod spill;
mod stream;
#[cfg(test)]
mod tests;
mod write;

/// How keys are assigned to buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Ranges of keys from sampled splitters: the whole stream is in key order.
    Ordered,
    /// A hash of the key: equal keys meet, order holds inside a bucket only.
    Hashed,
}

/// Keys sampled from the first full buffer to choose splitters.
const SAMPLE: usize = 1 << 16;
/// Cells of the bucket lookup table ([`Split::Ordered`]).
const CELLS: usize = 1 << 16;
/// Budget for block alignment beyond an eighth of the encoding: two blocks
/// for each of 64 buckets.
const SLACK: u64 = 2 * 64 * crate::io::ALIGN as u64;
/// Sorter shares from which spills encode into two buffers (one written
/// while the next spill encodes into the other).
const TWO_ENCODINGS: u64 = 256 << 20;
/// The most buckets (files) one sorter makes.
const MAX_BUCKETS: usize = 4096;

type SpillJob<R> = JoinHandle<(Spiller, Vec<R>, Result<()>)>;

/// A distribution sorter; see the module docs.
pub struct BucketSorter<R: Record> {
    name: &'static str,
    /// What its bucket files are named after: the name, and for a sorter
    /// nested in a bucket ([`BucketStream`]) the buckets it descends from.
    tag: String,
    /// Nested: the records of the bucket it sorts (else `u64::MAX`).
    whole: u64,
    /// Keys to take splitters from, when given: else the first buffer's.
    sample: Option<Vec<u128>>,
    /// Where its files are named and released.
    files: ScratchFiles,
    split: Split,
    budget: Budget,
    buf: Vec<R>,
    /// Records a buffer holds.
    capacity: usize,
    charge: Option<Charge>,
    /// Held for the spill encoding until the first spill allocates it.
    enc_charge: Option<Charge>,
    /// What the buckets may take when read back (the charge is all free
    /// again then).
    share: u64,
    /// Encoding buffers for spills: 2 (writes beside the next encoding) or
    /// 1; buckets read back run as many ahead.
    encodings: usize,
    expected: u64,
    pushed: u64,
    /// Set at the first spill; away on the spill thread while a job runs.
    spiller: Option<Spiller>,
    job: Option<SpillJob<R>>,
    /// Write through the page cache (tests of the fallback).
    buffered: bool,
    spilled: u64,
}

impl<R: Record> BucketSorter<R> {
    /// A sorter holding up to `bytes` of the budget, spilling into `scratch`;
    /// `expected` records (an estimate, when known) sizes the number of
    /// buckets so each fits in memory.
    pub fn new(
        name: &'static str,
        scratch: &ScratchFiles,
        budget: &Budget,
        bytes: u64,
        split: Split,
        expected: Option<u64>,
    ) -> Result<Self> {
        // Per record: itself and a sort scratch copy (spilling: a second
        // buffer filled while the first is encoded), its bucket number, and
        // its encoding (plus an eighth for block alignment); twice when the
        // share is large, one encoding written while the next spill
        // encodes into the other (small shares keep their records: fewer
        // would make buckets too large to load).
        let size = std::mem::size_of::<R>() as u64;
        let enc = R::BYTES as u64 + (R::BYTES as u64).div_ceil(8);
        let encodings = 1 + u64::from(bytes >= TWO_ENCODINGS);
        // Ordered buckets' spills regroup their sections by cell in pieces,
        // each headed by the counts of its cells.
        let pieces = |records| match split {
            Split::Ordered => {
                group::piece_bytes::<R>(records) + encodings * group::counts_bytes::<R>(records)
            }
            Split::Hashed => 0,
        };
        let per_record = 2 * size + 2 + encodings * enc;
        // What the records leave, then what they leave beside the pieces
        // for as many (at least as many as fit beside them).
        let room = bytes.saturating_sub(encodings * SLACK);
        let most = (room / per_record) as usize;
        let records = (room.saturating_sub(pieces(most)) / per_record).max(1024);
        let charge_bytes = records * (2 * size + 2);
        let charge = Some(budget.charge(charge_bytes, name)?);
        let enc_bytes = encodings * (records * enc + SLACK) + pieces(records as usize);
        let enc_charge = Some(budget.charge(enc_bytes, name)?);
        Ok(BucketSorter {
            name,
            tag: name.to_string(),
            whole: u64::MAX,
            sample: None,
            files: scratch.clone(),
            split,
            budget: budget.clone(),
            // Grown as records come, up to `capacity` (the charge): a
            // large budget over a small input reserves what the input holds.
            buf: Vec::new(),
            capacity: records as usize,
            charge,
            enc_charge,
            encodings: encodings as usize,
            // Read back, the records' buffers (and a second encoding's
            // worth) hold the buckets; one encoding's worth is left for the
            // read buffers.
            share: charge_bytes + (encodings - 1) * records * enc,
            expected: expected.unwrap_or(0),
            pushed: 0,
            spiller: None,
            job: None,
            buffered: false,
            spilled: 0,
        })
    }

    /// Writes spills through the page cache, as where `O_DIRECT` is refused.
    #[cfg(test)]
    pub(crate) fn buffered(mut self) -> Self {
        self.buffered = true;
        self
    }

    /// A sorter for the records of one oversized bucket of a stream (see
    /// [`stream`]): ordered, splitters from `sample` (keys read from across
    /// the bucket's file, where a first buffer holds only the front of a
    /// stream that came in order), files named after `tag`.
    pub(super) fn nested(
        parent: (&'static str, &ScratchFiles, &Budget),
        bytes: u64,
        expected: u64,
        (tag, sample): (String, Vec<u128>),
        buffered: bool,
    ) -> Result<Self> {
        let (name, scratch, budget) = parent;
        let mut s = Self::new(name, scratch, budget, bytes, Split::Ordered, Some(expected))?;
        s.tag = tag;
        s.whole = expected;
        s.sample = Some(sample);
        s.buffered = buffered;
        Ok(s)
    }

    /// Takes the splitters of an ordered sorter from `sample` (keys from
    /// across the whole input), not from its first buffer; an empty sample
    /// changes nothing.
    pub fn with_sample(mut self, sample: Vec<u128>) -> Self {
        if !sample.is_empty() {
            self.sample = Some(sample);
        }
        self
    }

    /// Adds one record.
    #[inline]
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.buf.len() == self.buf.capacity().min(self.capacity) {
            self.make_room()?;
        }
        self.buf.push(r);
        self.pushed += 1;
        Ok(())
    }

    /// Adds every record of `it`, as many [`Self::push`]es do, filling the
    /// buffer a run at a time (no capacity check per record).
    pub fn extend(&mut self, mut it: impl Iterator<Item = R>) -> Result<()> {
        loop {
            let before = self.buf.len();
            let room = self.buf.capacity().min(self.capacity) - before;
            if room == 0 {
                match it.next() {
                    Some(r) => self.push(r)?,
                    None => return Ok(()),
                }
                continue;
            }
            self.buf.extend(it.by_ref().take(room));
            let added = self.buf.len() - before;
            self.pushed += added as u64;
            if added < room {
                return Ok(());
            }
        }
    }

    /// A full buffer spills; one that has not reached `capacity` grows
    /// toward it.
    #[cold]
    fn make_room(&mut self) -> Result<()> {
        if self.buf.len() >= self.capacity {
            return self.spill();
        }
        crate::mem::budget::grow_toward(&mut self.buf, self.capacity);
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

    /// Bytes handed to the bucket files by the spills that have ended
    /// (after [`Self::park`]: all of them).
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    /// Records one loaded bucket may hold: the bucket being handed out, the
    /// next one and its sort scratch share the charge.
    fn load_capacity(&self) -> u64 {
        (self.share / (3 * std::mem::size_of::<R>() as u64)).max(1024)
    }

    /// Waits for the running spill; its buffer comes back empty.
    fn wait(&mut self) -> Result<Vec<R>> {
        match self.job.take() {
            Some(h) => {
                let (sp, mut v, r) = h.join().expect("spill thread panicked");
                self.spilled = sp.bytes;
                self.spiller = Some(sp);
                r?;
                v.clear();
                Ok(v)
            }
            None => Ok(Vec::new()),
        }
    }

    /// Hands the full buffer to a spill thread and goes on with the other.
    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if self.spiller.is_none() && self.job.is_none() {
            let b = self.choose_buckets();
            self.enc_charge = None;
            let sp = Spiller::new::<R>(
                b,
                self.split,
                (self.capacity, self.encodings),
                &self.budget,
                self.buffered,
            )?;
            self.spiller = Some(sp);
        }
        let mut next = self.wait()?;
        // The second buffer is made at the first spill.
        next.reserve_exact(self.capacity);
        let full = std::mem::replace(&mut self.buf, next);
        let mut sp = self.spiller.take().expect("idle spiller");
        self.job = Some(std::thread::spawn(move || {
            let r = sp.spill(&full);
            (sp, full, r)
        }));
        Ok(())
    }

    /// Once pushing is over and other work comes before [`Self::finish`]: a
    /// sorter that spilled writes out its buffer and gives its memory back
    /// (finishing takes what it needs again).
    pub fn park(&mut self) -> Result<()> {
        if self.spiller.is_some() || self.job.is_some() {
            self.spill()?;
            self.wait()?;
            self.buf = Vec::new();
            self.charge = None;
        }
        Ok(())
    }

    /// Finishes pushing; the records come back in key order (per bucket when
    /// hashed).
    pub fn finish(mut self) -> Result<Sorted<R>> {
        if self.spiller.is_none() && self.job.is_none() {
            let mut buf = std::mem::take(&mut self.buf);
            sort_records(&mut buf);
            buf.shrink_to_fit();
            let keep = buf.len() as u64 * std::mem::size_of::<R>() as u64;
            self.charge = None;
            self.enc_charge = None;
            let charge = self.budget.charge(keep, self.name)?;
            return Ok(Sorted::memory(buf, charge));
        }
        self.park()?;
        let sp = self.spiller.take().expect("spilled");
        let (b, direct) = sp.finish()?;
        self.enc_charge = None;
        let largest = b.records.iter().copied().max().unwrap_or(0);
        let per = self.load_capacity().min(largest.max(1)) as usize;
        // The current bucket, the sort scratch and one or two loaded ahead:
        // two when the share is large (as for the encodings) and four of
        // the largest fit what three loads were allotted. Small shares keep
        // the memory for the phases after: at `--memory 128MiB` a fourth
        // buffer for the edges left the write phase short.
        let depth = match self.encodings == 2 && 4 * largest <= 3 * self.load_capacity() {
            true => 2,
            false => 1,
        };
        let bytes = per as u64 * (2 + depth as u64) * std::mem::size_of::<R>() as u64;
        let charge = self.budget.charge(bytes, self.name)?;
        let stream = BucketStream::new(
            self.name,
            &self.budget,
            charge,
            b.records,
            BucketFiles(b.files, self.files.clone()),
            b.pack,
            per,
            depth,
            (direct, read::chunk_for(self.share)),
        )?;
        Ok(Sorted::buckets(
            stream.nesting(std::mem::take(&mut self.tag), self.whole),
        ))
    }
}

impl<R: Record> Drop for BucketSorter<R> {
    fn drop(&mut self) {
        if let Some(h) = self.job.take() {
            if let Ok((sp, _, _)) = h.join() {
                self.spiller = Some(sp);
            }
        }
        if let Some(sp) = &self.spiller {
            self.files.release(sp.buckets.files.clone());
        }
    }
}
