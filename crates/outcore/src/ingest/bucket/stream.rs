//! Reading buckets back: one at a time, loaded with `O_DIRECT` reads of
//! whole blocks (the last block's padding ignored) and sorted in memory,
//! the next ones loaded and sorted on a background thread meanwhile: up to
//! two ahead when the share is large and the charge holds four buckets, so
//! the next-but-one is read from disk while the next one sorts (one ahead,
//! every bucket's read waited on the previous sort: 1.3-1.4 s of the
//! consumer's time in each of a kron-24 import's two bucket passes).

use super::buckets::Packing;
use super::loader::{Job, Loader};
use super::nest;
use super::read::Chunks;
use super::BucketSorter;
use crate::error::Result;
use crate::ingest::scratch::ScratchFiles;
use crate::ingest::sort::{Record, Sorted};
use crate::io::AlignedBuf;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

/// Bucket files, released to their scratch on drop.
pub(super) struct BucketFiles(pub Vec<PathBuf>, pub ScratchFiles);

impl Drop for BucketFiles {
    fn drop(&mut self) {
        self.1.release(std::mem::take(&mut self.0));
    }
}

enum Current<R: Record> {
    Mem(Vec<R>, usize),
    /// An oversized bucket, distributed again.
    Nested(Box<Sorted<R>>),
    /// An oversized bucket of one key, read back as it is (bucket `.0`):
    /// the records decoded so far and the next one's index.
    Flood(usize, Box<nest::Feed<R>>, Vec<R>, usize),
}

/// The records of spilled buckets, one bucket at a time.
pub struct BucketStream<R: Record> {
    name: &'static str,
    /// The bucket files' name ([`BucketSorter`]'s tag).
    tag: String,
    /// Records of the bucket the sorter was nested in (`u64::MAX`: not
    /// nested): a bucket as large did not divide.
    whole: u64,
    budget: Budget,
    charge: Option<Charge>,
    records: Vec<u64>,
    files: BucketFiles,
    pack: Packing,
    /// Records a bucket may have to be loaded whole.
    per: usize,
    /// Buckets the loader may hold loaded ahead of the current one (the
    /// charge covers this many, the current one and the sort scratch).
    depth: usize,
    /// The next bucket to start.
    next: usize,
    cur: Current<R>,
    loader: Option<Loader<R>>,
    /// Buffers kept between buckets: spares for the loads and the sort
    /// scratch (away with the loader while one runs).
    spare: Vec<Vec<R>>,
    scratch: Vec<R>,
    /// The aligned read buffers; away with the loader while one runs.
    chunk: Option<Chunks>,
    /// Whether bucket files are read with `O_DIRECT`.
    direct: bool,
    /// Bytes per read ([`super::read::chunk_for`]).
    chunk_bytes: usize,
    /// The bucket the consumer holds or waits for (the loader measures how
    /// far ahead it is).
    taken: Arc<AtomicUsize>,
    /// The most buckets the loader started ahead of the consumer's.
    ahead: Arc<AtomicUsize>,
    stats: BucketStats,
    /// Not rewound: each bucket's file is deleted once it is read.
    once: bool,
}

/// What a bucket stream did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketStats {
    /// Records per bucket.
    pub records: Vec<u64>,
    /// Buckets loaded and sorted in the background before they were needed.
    pub prefetched: u64,
    /// The most buckets the background loader was ahead of the consumer
    /// when it started one (2: the next-but-one was read while the next
    /// one sorted).
    pub ahead: u64,
    /// Buckets read straight into their cells' places (`cells.rs`).
    pub placed: u64,
    /// Buckets too large to load, distributed again by a nested sorter
    /// (counted at every level).
    pub nested: u64,
    /// Buckets too large to load of one key throughout, read back as they
    /// are.
    pub streamed: u64,
    /// Bytes oversized buckets spilled once more: the nested sorters'
    /// buckets (summed over levels).
    pub respilled: u64,
}

impl<R: Record> BucketStream<R> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        name: &'static str,
        budget: &Budget,
        charge: Charge,
        records: Vec<u64>,
        files: BucketFiles,
        pack: Packing,
        per: usize,
        depth: usize,
        (direct, chunk_bytes): (bool, usize),
    ) -> Result<Self> {
        let chunk = read_buffers(budget, chunk_bytes)?;
        Ok(BucketStream {
            name,
            tag: name.to_string(),
            whole: u64::MAX,
            budget: budget.clone(),
            charge: Some(charge),
            records,
            files,
            pack,
            per,
            depth,
            next: 0,
            cur: Current::Mem(Vec::new(), 0),
            loader: None,
            spare: Vec::new(),
            scratch: Vec::new(),
            chunk: Some(chunk),
            direct,
            chunk_bytes,
            taken: Arc::new(AtomicUsize::new(0)),
            ahead: Arc::new(AtomicUsize::new(0)),
            stats: BucketStats::default(),
            once: false,
        })
    }

    /// The stream of a sorter whose files are named after `tag`, nested in
    /// a bucket of `whole` records (`u64::MAX`: not nested).
    pub(super) fn nesting(mut self, tag: String, whole: u64) -> Self {
        self.tag = tag;
        self.whole = whole;
        self
    }

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
                Current::Nested(s) => {
                    if let Some(r) = s.next_record()? {
                        return Ok(Some(r));
                    }
                }
                Current::Flood(_, f, v, i) => {
                    if let Some(r) = v.get(*i) {
                        *i += 1;
                        return Ok(Some(*r));
                    }
                    v.clear();
                    *i = 0;
                    if f.next(v)? {
                        continue;
                    }
                }
            }
            if !self.advance()? {
                return Ok(None);
            }
        }
    }

    /// Appends records to `out` until it holds `max` or the stream ends
    /// (slices of the loaded bucket, copied whole).
    pub fn next_chunk(&mut self, out: &mut Vec<R>, max: usize) -> Result<()> {
        while out.len() < max {
            match &mut self.cur {
                Current::Mem(v, i) => {
                    let take = (max - out.len()).min(v.len() - *i);
                    out.extend_from_slice(&v[*i..*i + take]);
                    *i += take;
                    if out.len() == max {
                        return Ok(());
                    }
                }
                Current::Nested(s) => {
                    if s.next_chunk(out, max)? && out.len() == max {
                        return Ok(());
                    }
                }
                Current::Flood(_, f, v, i) => {
                    let take = (max - out.len()).min(v.len() - *i);
                    out.extend_from_slice(&v[*i..*i + take]);
                    *i += take;
                    if out.len() == max {
                        return Ok(());
                    }
                    v.clear();
                    *i = 0;
                    if f.next(v)? {
                        continue;
                    }
                }
            }
            if !self.advance()? {
                return Ok(());
            }
        }
        Ok(())
    }

    fn fits(&self, b: usize) -> bool {
        self.records[b] as usize <= self.per
    }

    /// Starts the loader at bucket `from` (which fits); it stops before the
    /// next bucket that does not.
    fn spawn_loader(&mut self, from: usize) {
        let end = (from..self.records.len())
            .find(|&b| !self.fits(b))
            .unwrap_or(self.records.len());
        // The consumer holds none now: one buffer becomes its current
        // bucket, `depth` more are loaded ahead of it.
        let buffers = (0..=self.depth)
            .map(|_| self.spare.pop().unwrap_or_default())
            .collect();
        self.loader = Some(Loader::spawn(
            Job {
                from,
                paths: self.files.0[from..end].to_vec(),
                records: self.records[from..end].to_vec(),
                pack: self.pack.clone(),
                direct: self.direct,
            },
            buffers,
            std::mem::take(&mut self.scratch),
            self.chunk.take().expect("one loader at a time"),
            (self.taken.clone(), self.ahead.clone()),
        ));
    }

    /// Stops the loader (dropping what it loaded ahead) and takes its
    /// buffers back.
    fn stop_loader(&mut self) {
        if let Some(l) = self.loader.take() {
            let (scratch, chunk, rest) = l.stop();
            self.scratch = scratch;
            self.chunk = Some(chunk);
            self.spare.extend(rest);
        }
    }

    /// Moves to the next bucket; false at the end.
    fn advance(&mut self) -> Result<bool> {
        // The bucket about to be taken, before the loader can start another.
        self.taken.store(self.next, Relaxed);
        // The finished bucket's buffer goes back to the loader, or becomes
        // a spare (release an oversized one's charges first).
        match std::mem::replace(&mut self.cur, Current::Mem(Vec::new(), 0)) {
            Current::Mem(v, _) => {
                match &self.loader {
                    Some(l) => {
                        if let Err(v) = l.give_back(v) {
                            self.spare.push(v);
                        }
                    }
                    None => self.spare.push(v),
                }
                self.spare.truncate(self.depth + 1);
            }
            // What a nested sorter's stream did counts here too.
            Current::Nested(s) => {
                if let Some(b) = s.bucket_stats() {
                    self.stats.nested += b.nested;
                    self.stats.placed += b.placed;
                    self.stats.streamed += b.streamed;
                    self.stats.respilled += b.respilled;
                }
            }
            Current::Flood(b, ..) => self.read_whole(b),
        }
        self.recharge()?;
        let b = self.next;
        if b >= self.records.len() {
            self.stop_loader();
            return Ok(false);
        }
        self.next += 1;
        if self.fits(b) {
            if self.loader.is_none() {
                self.spawn_loader(b);
            }
            let l = self.loader.as_ref().expect("a loader runs");
            let from = l.from;
            let got = l.next();
            let v = match got {
                Some((p, r)) => {
                    debug_assert_eq!(p, b, "buckets arrive in order");
                    let (v, placed) = r?;
                    self.stats.placed += placed as u64;
                    v
                }
                // It ended without a word: it panicked (join says so).
                None => {
                    self.stop_loader();
                    unreachable!("the loader sends every bucket of its range");
                }
            };
            self.stats.prefetched += (b > from) as u64;
            self.cur = Current::Mem(v, 0);
            self.read_whole(b);
        } else {
            self.oversized(b)?;
        }
        Ok(true)
    }

    /// Says the stream will not be rewound: each bucket's file is released
    /// to the scratch (deleted in the background) once it has been read,
    /// not all at the end.
    pub fn consume_once(&mut self) {
        self.once = true;
    }

    /// Bucket `b`'s file has been read whole.
    fn read_whole(&self, b: usize) {
        if self.once {
            self.files.1.release(vec![self.files.0[b].clone()]);
        }
    }

    /// Bucket `b`, too large to load: distributed again by a nested sorter
    /// (on splitters sampled from its file, or, when those found one key
    /// or did not divide the bucket it came from, on a split found by a
    /// scan), or read back as it is when it holds one key throughout; with
    /// the whole charge (the read buffers' too).
    fn oversized(&mut self, b: usize) -> Result<()> {
        self.stop_loader();
        self.spare = Vec::new();
        self.scratch = Vec::new();
        self.chunk = None;
        // The loading charge goes to the nested sorter; the read buffers'
        // memory (dropped above) to the feed's buffer, then the nested
        // stream's own.
        let bytes = self.charge.take().map_or(0, |c| c.bytes());
        let path = &self.files.0[b];
        let n = self.records[b];
        let file = (path.as_path(), n);
        let bucket = (&self.pack, b);
        let read = (&self.budget, self.direct, self.chunk_bytes);
        let sample = match n < self.whole {
            true => nest::sample::<R>(path, n, bucket)?,
            false => None,
        };
        let sample = match sample {
            Some(s) => Some(s),
            None => nest::split::<R>(file, bucket, read)?,
        };
        let Some(sample) = sample else {
            let feed = nest::Feed::open(file, bucket, read)?;
            let v = Vec::with_capacity(feed.records());
            self.stats.streamed += 1;
            self.cur = Current::Flood(b, Box::new(feed), v, 0);
            return Ok(());
        };
        let mut s = BucketSorter::<R>::nested(
            (self.name, &self.files.1, &self.budget),
            bytes,
            n,
            (nest::tag(&self.tag, b), sample),
            !self.direct,
        )?;
        nest::feed(file, bucket, read, &mut |r| s.extend(r.iter().copied()))?;
        s.park()?;
        self.stats.nested += 1;
        self.stats.respilled += s.spilled_bytes();
        let mut sorted = s.finish()?;
        self.read_whole(b);
        // Its files go as they are read: it is made again if this stream
        // is rewound.
        sorted.consume_once();
        self.cur = Current::Nested(Box::new(sorted));
        Ok(())
    }

    /// Starts the stream over.
    pub fn rewind(&mut self) -> Result<()> {
        assert!(!self.once, "a stream consumed once is rewound");
        self.stop_loader();
        self.cur = Current::Mem(Vec::new(), 0);
        self.recharge()?;
        self.next = 0;
        Ok(())
    }

    /// Takes back the loading charge and read buffers an oversized bucket
    /// borrowed.
    fn recharge(&mut self) -> Result<()> {
        if self.chunk.is_none() && self.loader.is_none() {
            self.chunk = Some(read_buffers(&self.budget, self.chunk_bytes)?);
        }
        if self.charge.is_none() {
            let buffers = 2 + self.depth as u64;
            let bytes = self.per as u64 * buffers * std::mem::size_of::<R>() as u64;
            self.charge = Some(self.budget.charge(bytes, self.name)?);
        }
        Ok(())
    }

    /// What the stream did so far.
    pub fn stats(&self) -> BucketStats {
        BucketStats {
            records: self.records.clone(),
            ahead: self.ahead.load(Relaxed) as u64,
            ..self.stats.clone()
        }
    }
}

/// The two aligned buffers buckets are read through.
fn read_buffers(budget: &Budget, bytes: usize) -> Result<Chunks> {
    let what = "bucket sort: read buffers";
    Ok([
        AlignedBuf::new(bytes, budget, what)?,
        AlignedBuf::new(bytes, budget, what)?,
    ])
}

impl<R: Record> Drop for BucketStream<R> {
    fn drop(&mut self) {
        self.stop_loader();
    }
}
