//! External merge sort of fixed-size records inside the budget.
//!
//! Records are gathered in a buffer charged to the [`Budget`], sorted (stably,
//! on both cores) and spilled as sorted runs to a scratch directory; reading
//! back merges the runs. When everything fits in one buffer nothing touches the
//! disk. Ties between equal keys come out in push order, so a consumer that
//! keeps the last of equal keys implements "last occurrence wins".

pub use crate::base::radix::{
    sort_cells, sort_records, sort_records_known, sort_records_with, KeyBits, Record,
};
use crate::error::{IoContext, Result};
use crate::io::fault::Faulty;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use merge::Merger;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Read buffer per run during a merge, and the smallest one allowed.
const MERGE_BUF: usize = 1 << 20;
const MIN_MERGE_BUF: usize = 64 << 10;
/// The smallest sort buffer, in records.
const MIN_RECORDS: usize = 1024;

/// An external sorter; see the module docs.
pub struct ExternalSorter<R: Record> {
    name: &'static str,
    dir: PathBuf,
    buf: Vec<R>,
    capacity: usize,
    runs: Vec<PathBuf>,
    budget: Budget,
    charge: Option<Charge>,
    pushed: u64,
    spilled_bytes: u64,
}

impl<R: Record> ExternalSorter<R> {
    /// A sorter that may hold up to `bytes` of the budget and spills into
    /// `dir`. Memory is charged as the buffer grows; when the budget has no
    /// room for growth the buffer spills early instead of failing.
    /// `name` names the run files and budget charges.
    pub fn new(name: &'static str, dir: &Path, budget: &Budget, bytes: u64) -> Result<Self> {
        let capacity = (bytes / Self::PER).max(MIN_RECORDS as u64) as usize;
        let mut s = ExternalSorter {
            name,
            dir: dir.to_path_buf(),
            buf: Vec::new(),
            capacity,
            runs: Vec::new(),
            budget: budget.clone(),
            charge: None,
            pushed: 0,
            spilled_bytes: 0,
        };
        s.grow()?;
        Ok(s)
    }

    /// Bytes of budget per buffered record: the stable parallel sort needs a
    /// scratch copy as large as the buffer.
    const PER: u64 = 2 * std::mem::size_of::<R>() as u64;

    /// Grows the buffer (doubling up to `capacity`); false if the budget has
    /// no room and the buffer must spill instead.
    fn grow(&mut self) -> Result<bool> {
        let cur = self.buf.capacity();
        if cur >= self.capacity {
            return Ok(false);
        }
        let want = (cur * 2).clamp(MIN_RECORDS, self.capacity);
        let old = self.charge.take();
        let extra = (want - cur) as u64 * Self::PER;
        match self.budget.charge(extra, self.name) {
            Ok(c) => {
                self.buf.reserve_exact(want - self.buf.len());
                self.charge = Some(merge_charges(old, c));
                Ok(true)
            }
            Err(e) if cur == 0 => Err(e),
            Err(_) => {
                self.charge = old;
                self.capacity = cur;
                Ok(false)
            }
        }
    }

    /// Adds one record.
    #[inline]
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.buf.len() == self.buf.capacity() && !self.grow()? {
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

    /// Bytes written to run files so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled_bytes
    }

    fn sort_buf(&mut self) {
        sort_records(&mut self.buf);
    }

    fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.sort_buf();
        let path = self
            .dir
            .join(format!("{}-run{:05}.tmp", self.name, self.runs.len()));
        write_run(&path, &self.buf)?;
        self.spilled_bytes += (self.buf.len() * R::BYTES) as u64;
        self.runs.push(path);
        self.buf.clear();
        Ok(())
    }

    /// Finishes pushing and returns the records in key order.
    pub fn finish(mut self) -> Result<Sorted<R>> {
        if self.runs.is_empty() {
            self.sort_buf();
            let mut buf = std::mem::take(&mut self.buf);
            buf.shrink_to_fit();
            // The sort scratch is gone: keep a charge for the records only.
            let charge = self.charge.take();
            let keep = buf.len() as u64 * std::mem::size_of::<R>() as u64;
            drop(charge);
            let charge = self.budget.charge(keep, self.name)?;
            return Ok(Sorted {
                inner: Inner::Memory(buf, 0),
                _charge: Some(charge),
            });
        }
        self.spill()?;
        self.buf = Vec::new();
        let mem = self.charge.take().map_or(MERGE_BUF, |c| c.bytes() as usize);
        // Merge with a bounded fan-in: every run needs a read buffer.
        let max_fanin = (mem / MIN_MERGE_BUF).clamp(2, 1024);
        let mut runs = std::mem::take(&mut self.runs);
        let mut generation = 0;
        while runs.len() > max_fanin {
            generation += 1;
            let mut progress = crate::progress::Progress::bar(
                format!(
                    "merge {} runs of {} (pass {generation})",
                    runs.len(),
                    self.name
                ),
                self.pushed,
                crate::progress::Unit::Items,
            );
            let mut done = 0u64;
            let mut next = Vec::new();
            for (i, group) in runs.chunks(max_fanin).enumerate() {
                let path = self
                    .dir
                    .join(format!("{}-merge{generation}-{i:05}.tmp", self.name));
                let mut merger = Merger::<R>::open(group, mem / group.len())?;
                let mut out = RunWriter::create(&path)?;
                while let Some(r) = merger.next_record()? {
                    out.write(&r)?;
                    done += 1;
                    if done.is_multiple_of(1 << 20) {
                        crate::cancel::check()?;
                        progress.set(done);
                    }
                }
                out.finish()?;
                for p in group {
                    let _ = std::fs::remove_file(p);
                }
                self.spilled_bytes += merger.bytes_read;
                next.push(path);
            }
            runs = next;
            progress.done(|| format!("{done} records into {} runs", runs.len()));
        }
        let buf = (mem / runs.len()).min(MERGE_BUF);
        let charge = self.budget.charge((buf * runs.len()) as u64, self.name)?;
        let merger = Merger::open(&runs, buf)?;
        // The runs stay until the stream is dropped (a rewind reads them again).
        Ok(Sorted {
            inner: Inner::Merge(merger, RunFiles(runs), buf),
            _charge: Some(charge),
        })
    }
}

/// Run files removed on drop.
struct RunFiles(Vec<PathBuf>);

impl Drop for RunFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn merge_charges(old: Option<Charge>, new: Charge) -> Charge {
    match old {
        Some(o) => o.absorb(new),
        None => new,
    }
}

impl<R: Record> Drop for ExternalSorter<R> {
    fn drop(&mut self) {
        for p in &self.runs {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn write_run<R: Record>(path: &Path, recs: &[R]) -> Result<()> {
    let mut w = RunWriter::create(path)?;
    for r in recs {
        w.write(r)?;
    }
    w.finish()
}

struct RunWriter {
    path: PathBuf,
    out: BufWriter<Faulty<File>>,
    scratch: [u8; 64],
}

impl RunWriter {
    fn create(path: &Path) -> Result<Self> {
        let f = File::create(path).at(path)?;
        Ok(RunWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, Faulty(f)),
            scratch: [0; 64],
        })
    }

    #[inline]
    fn write<R: Record>(&mut self, r: &R) -> Result<()> {
        r.encode(&mut self.scratch[..R::BYTES]);
        self.out.write_all(&self.scratch[..R::BYTES]).at(&self.path)
    }

    fn finish(mut self) -> Result<()> {
        self.out.flush().at(&self.path)
    }
}

/// Records in key order: from memory, or merged from runs. The stream can
/// be read again from the start ([`Sorted::rewind`]): records in memory are
/// kept, run files stay on disk until the stream is dropped.
pub struct Sorted<R: Record> {
    inner: Inner<R>,
    _charge: Option<Charge>,
}

enum Inner<R: Record> {
    /// The records and the index of the next one.
    Memory(Vec<R>, usize),
    /// The merge, its run files and the read buffer per run.
    Merge(Merger<R>, RunFiles, usize),
    /// Buckets of a distribution sort, loaded one at a time.
    Buckets(Box<super::bucket::BucketStream<R>>),
}

impl<R: Record> Sorted<R> {
    /// Records sorted in memory, holding `charge`.
    pub(crate) fn memory(buf: Vec<R>, charge: Charge) -> Self {
        Sorted {
            inner: Inner::Memory(buf, 0),
            _charge: Some(charge),
        }
    }

    /// The buckets of a distribution sort (they carry their own charge).
    pub(crate) fn buckets(s: super::bucket::BucketStream<R>) -> Self {
        Sorted {
            inner: Inner::Buckets(Box::new(s)),
            _charge: None,
        }
    }

    /// The next record, or `None` at the end.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<R>> {
        match &mut self.inner {
            Inner::Memory(v, i) => {
                let r = v.get(*i).copied();
                *i += r.is_some() as usize;
                Ok(r)
            }
            Inner::Merge(m, _, _) => m.next_record(),
            Inner::Buckets(b) => b.next_record(),
        }
    }

    /// Appends the next records to `out` until it holds `max` (fewer only
    /// at the end); false when nothing was left. In-memory records are
    /// copied as slices, not one call per record.
    pub fn next_chunk(&mut self, out: &mut Vec<R>, max: usize) -> Result<bool> {
        let before = out.len();
        match &mut self.inner {
            Inner::Memory(v, i) => {
                let take = max.saturating_sub(out.len()).min(v.len() - *i);
                out.extend_from_slice(&v[*i..*i + take]);
                *i += take;
            }
            Inner::Merge(m, _, _) => {
                while out.len() < max {
                    let Some(r) = m.next_record()? else { break };
                    out.push(r);
                }
            }
            Inner::Buckets(b) => b.next_chunk(out, max)?,
        }
        Ok(out.len() > before)
    }

    /// Says the stream will not be rewound, so a distribution sort's bucket
    /// files can go as soon as they are read ([`super::bucket::BucketStream::consume_once`]).
    pub fn consume_once(&mut self) {
        if let Inner::Buckets(b) = &mut self.inner {
            b.consume_once();
        }
    }

    /// Starts the stream over: the next record is the first again. A merged
    /// stream reopens its runs (with the same read buffers, already charged).
    pub fn rewind(&mut self) -> Result<()> {
        match &mut self.inner {
            Inner::Memory(_, i) => *i = 0,
            Inner::Merge(m, runs, buf) => m.reopen(&runs.0, *buf)?,
            Inner::Buckets(b) => b.rewind()?,
        }
        Ok(())
    }

    /// What a spilled distribution sort's stream did.
    pub fn bucket_stats(&self) -> Option<super::bucket::BucketStats> {
        match &self.inner {
            Inner::Buckets(b) => Some(b.stats()),
            _ => None,
        }
    }

    /// True when the records come from runs on disk (a rewind reads them again).
    pub fn is_spilled(&self) -> bool {
        matches!(self.inner, Inner::Merge(..) | Inner::Buckets(..))
    }
}

mod merge;
#[cfg(test)]
pub(crate) mod tests;
