//! Reading buckets back: one at a time, loaded with `O_DIRECT` reads of
//! whole blocks (the last block's padding ignored) and sorted in memory,
//! the next one loaded and sorted on a background thread meanwhile.

use super::spill::Packing;
use crate::error::{IoContext, Result};
use crate::ingest::sort::{sort_records_with, ExternalSorter, Record, Sorted};
use crate::io::fault::{self, Faulty};
use crate::io::AlignedBuf;
use crate::io::{open_direct, Access, ALIGN};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;
use std::thread::JoinHandle;

/// Bytes per read of a bucket (rounded to whole records and blocks).
const CHUNK: usize = 4 << 20;
/// Records read per step when an oversized bucket is fed to the run sorter.
const FEED: usize = 1 << 16;

/// Bucket files removed on drop.
pub(super) struct BucketFiles(pub Vec<PathBuf>);

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

/// A loader's result: the sorted bucket, and the sort scratch and read
/// buffer returned for reuse.
type Loaded<R> = JoinHandle<(Result<Vec<R>>, Vec<R>, Chunks)>;

/// The records of spilled buckets, one bucket at a time.
pub struct BucketStream<R: Record> {
    name: &'static str,
    dir: PathBuf,
    budget: Budget,
    charge: Option<Charge>,
    records: Vec<u64>,
    files: BucketFiles,
    pack: Packing,
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
    /// The aligned read buffer (a whole number of records and blocks);
    /// away with the loader while one runs.
    chunk: Option<Chunks>,
    /// Whether bucket files are read with `O_DIRECT`.
    direct: bool,
    stats: BucketStats,
}

/// What a bucket stream did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketStats {
    /// Records per bucket.
    pub records: Vec<u64>,
    /// Buckets loaded and sorted in the background before they were needed.
    pub prefetched: u64,
    /// Buckets too large to load, merged from runs instead.
    pub merged: u64,
}

/// The two aligned read buffers a loader alternates between.
type Chunks = [AlignedBuf; 2];

/// Reads and sorts one bucket file into `out`. A reader thread fills one
/// chunk while this one decodes the other, so the disk and the decoding
/// overlap.
fn load<R: Record>(
    path: &Path,
    records: u64,
    (pack, bucket): (&Packing, usize),
    direct: bool,
    mut out: Vec<R>,
    scratch: &mut Vec<R>,
    chunks: &mut Chunks,
) -> Result<Vec<R>> {
    out.clear();
    out.reserve(records as usize);
    if records > 0 {
        let (f, _) = open_direct(path, Access::Read, !direct)?;
        let rec = pack.rec_bytes::<R>(bucket);
        let total = records * rec as u64;
        let [a, b] = chunks;
        std::thread::scope(|s| -> Result<()> {
            type Filled<'b> = (&'b mut AlignedBuf, usize, std::io::Result<()>);
            let (full_tx, full_rx) = sync_channel::<Filled<'_>>(2);
            let (empty_tx, empty_rx) = sync_channel::<&mut AlignedBuf>(2);
            empty_tx.send(a).expect("receiver alive");
            empty_tx.send(b).expect("receiver alive");
            let f = &f;
            s.spawn(move || {
                let mut at = 0u64;
                while at < total {
                    let Ok(buf) = empty_rx.recv() else { return };
                    let want = (total - at)
                        .next_multiple_of(ALIGN as u64)
                        .min(buf.len() as u64);
                    let r = fault::read_exact_at(f, &mut buf.as_mut_slice()[..want as usize], at);
                    let (valid, failed) = (want.min(total - at) as usize, r.is_err());
                    if full_tx.send((buf, valid, r)).is_err() || failed {
                        return;
                    }
                    at += want;
                }
            });
            let mut done = 0u64;
            // A record cut by a chunk's end: its first bytes.
            let mut cut = Vec::with_capacity(rec);
            while done < total {
                let (buf, valid, r) = full_rx
                    .recv()
                    .expect("the reader sends until the end or an error");
                r.at(path)?;
                let mut data = &buf.as_slice()[..valid];
                if !cut.is_empty() {
                    let take = (rec - cut.len()).min(data.len());
                    cut.extend_from_slice(&data[..take]);
                    data = &data[take..];
                    if cut.len() == rec {
                        out.push(pack.decode(bucket, &cut));
                        cut.clear();
                    }
                }
                let whole = data.len() / rec * rec;
                pack.decode_into(bucket, &data[..whole], &mut out);
                cut.extend_from_slice(&data[whole..]);
                done += valid as u64;
                let _ = empty_tx.send(buf);
            }
            Ok(())
        })?;
    }
    sort_records_with(&mut out, scratch);
    Ok(out)
}

impl<R: Record> BucketStream<R> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        name: &'static str,
        dir: &Path,
        budget: &Budget,
        charge: Charge,
        records: Vec<u64>,
        files: BucketFiles,
        pack: Packing,
        per: usize,
        direct: bool,
    ) -> Result<Self> {
        let bytes = CHUNK;
        let what = "bucket sort: read buffers";
        let chunk = [
            AlignedBuf::new(bytes, budget, what)?,
            AlignedBuf::new(bytes, budget, what)?,
        ];
        Ok(BucketStream {
            name,
            dir: dir.to_path_buf(),
            budget: budget.clone(),
            charge: Some(charge),
            records,
            files,
            pack,
            per,
            next: 0,
            cur: Current::Mem(Vec::new(), 0),
            prefetch: None,
            spare: Vec::new(),
            scratch: Vec::new(),
            chunk: Some(chunk),
            direct,
            stats: BucketStats::default(),
        })
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
                Current::Ext(s) => {
                    if s.next_chunk(out, max)? && out.len() == max {
                        return Ok(());
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

    fn start_prefetch(&mut self, b: usize) {
        if b < self.records.len() && self.fits(b) {
            let path = self.files.0[b].clone();
            let n = self.records[b];
            let pack = self.pack.clone();
            let out = std::mem::take(&mut self.spare);
            let mut scratch = std::mem::take(&mut self.scratch);
            let mut chunk = self.chunk.take().expect("one loader at a time");
            let direct = self.direct;
            let h = std::thread::spawn(move || {
                let r = load::<R>(&path, n, (&pack, b), direct, out, &mut scratch, &mut chunk);
                (r, scratch, chunk)
            });
            self.prefetch = Some((b, h));
        }
    }

    /// Waits for the loader; its scratch comes back for reuse.
    fn join(&mut self, h: Loaded<R>) -> Result<Vec<R>> {
        let (r, scratch, chunk) = h.join().expect("bucket loader panicked");
        self.scratch = scratch;
        self.chunk = Some(chunk);
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
                Some((p, h)) if p == b => {
                    self.stats.prefetched += 1;
                    self.join(h)?
                }
                _ => {
                    let out = std::mem::take(&mut self.spare);
                    let chunk = self.chunk.as_mut().expect("no loader running");
                    let (path, n) = (&self.files.0[b], self.records[b]);
                    let pb = (&self.pack, b);
                    load::<R>(path, n, pb, self.direct, out, &mut self.scratch, chunk)?
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
            let mut f = Faulty(File::open(path).at(path)?);
            let rec = self.pack.rec_bytes::<R>(b);
            let mut bytes = vec![0u8; FEED * rec];
            let mut left = self.records[b] as usize;
            while left > 0 {
                let n = left.min(FEED);
                f.read_exact(&mut bytes[..n * rec]).at(path)?;
                for c in bytes[..n * rec].chunks_exact(rec) {
                    s.push(self.pack.decode(b, c))?;
                }
                left -= n;
            }
            drop(bytes);
            let sorted = s.finish()?;
            self.cur = Current::Ext(Box::new(sorted));
            self.stats.merged += 1;
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

    /// What the stream did so far.
    pub fn stats(&self) -> BucketStats {
        BucketStats {
            records: self.records.clone(),
            ..self.stats.clone()
        }
    }
}

impl<R: Record> Drop for BucketStream<R> {
    fn drop(&mut self) {
        if let Some((_, h)) = self.prefetch.take() {
            let _ = h.join();
        }
    }
}
