//! Reading buckets back: one at a time, loaded with `O_DIRECT` reads of
//! whole blocks (the last block's padding ignored) and sorted in memory,
//! the next one loaded and sorted on a background thread meanwhile.

use super::spill::open_direct;
use crate::error::{IoContext, Result};
use crate::ingest::sort::{sort_records_with, ExternalSorter, Record, Sorted};
use crate::io::AlignedBuf;
use crate::io::ALIGN;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

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
type Loaded<R> = JoinHandle<(Result<Vec<R>>, Vec<R>, AlignedBuf)>;

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
    /// The aligned read buffer (a whole number of records and blocks);
    /// away with the loader while one runs.
    chunk: Option<AlignedBuf>,
    /// Whether bucket files are read with `O_DIRECT`.
    direct: bool,
}

/// Reads and sorts one bucket file into `out`.
fn load<R: Record>(
    path: &Path,
    records: u64,
    direct: bool,
    mut out: Vec<R>,
    scratch: &mut Vec<R>,
    chunk: &mut AlignedBuf,
) -> Result<Vec<R>> {
    out.clear();
    out.reserve(records as usize);
    if records > 0 {
        let (f, _) = open_direct(path, false, !direct)?;
        let total = records * R::BYTES as u64;
        let mut at = 0u64;
        while at < total {
            let want = (total - at)
                .next_multiple_of(ALIGN as u64)
                .min(chunk.len() as u64);
            let buf = &mut chunk.as_mut_slice()[..want as usize];
            f.read_exact_at(buf, at).at(path)?;
            let valid = want.min(total - at) as usize;
            out.extend(buf[..valid].chunks_exact(R::BYTES).map(R::decode));
            at += want;
        }
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
        per: usize,
        direct: bool,
    ) -> Result<Self> {
        // A chunk ends on a record and on a block: a multiple of both.
        let lcm = R::BYTES / gcd(R::BYTES, ALIGN) * ALIGN;
        let chunk = AlignedBuf::new(
            lcm * (1usize << 20).div_ceil(lcm),
            budget,
            "bucket sort: read buffer",
        )?;
        Ok(BucketStream {
            name,
            dir: dir.to_path_buf(),
            budget: budget.clone(),
            charge: Some(charge),
            records,
            files,
            per,
            next: 0,
            cur: Current::Mem(Vec::new(), 0),
            prefetch: None,
            spare: Vec::new(),
            scratch: Vec::new(),
            chunk: Some(chunk),
            direct,
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

    fn fits(&self, b: usize) -> bool {
        self.records[b] as usize <= self.per
    }

    fn start_prefetch(&mut self, b: usize) {
        if b < self.records.len() && self.fits(b) {
            let path = self.files.0[b].clone();
            let n = self.records[b];
            let out = std::mem::take(&mut self.spare);
            let mut scratch = std::mem::take(&mut self.scratch);
            let mut chunk = self.chunk.take().expect("one loader at a time");
            let direct = self.direct;
            let h = std::thread::spawn(move || {
                let r = load::<R>(&path, n, direct, out, &mut scratch, &mut chunk);
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
                Some((p, h)) if p == b => self.join(h)?,
                _ => {
                    let out = std::mem::take(&mut self.spare);
                    let chunk = self.chunk.as_mut().expect("no loader running");
                    let (path, n) = (&self.files.0[b], self.records[b]);
                    load::<R>(path, n, self.direct, out, &mut self.scratch, chunk)?
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
            let mut bytes = vec![0u8; FEED * R::BYTES];
            let mut left = self.records[b] as usize;
            while left > 0 {
                let n = left.min(FEED);
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

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
