//! The update logs of the external engine: PartitionedVC's multi-log (one log
//! per target interval) filled through GraFBoost's in-memory sort-reduce.
//!
//! Messages `(target, value)` collect in one buffer charged to the budget.
//! When it is full it is sorted by target and, when the program combines,
//! reduced (equal targets folded into one record); the sorted records of each
//! target interval are then appended to that interval's log file as one run
//! (direct writes, runs start aligned). An interval's log is therefore a
//! list of sorted runs, merged when the interval is applied (`merge.rs`).
//! The buffer holds targets as `T` (u32, or u64 on a wide store); a
//! record's target on disk is local to its interval (the interval's first
//! vertex subtracted), so a log record keeps a 4-byte target whatever the
//! store's id width (DESIGN.md, "Wide ids").

use super::disk::Appender;
use crate::engine::vertex::{Value, VertexProgram};
use crate::error::Result;
use crate::io::Reader;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::csr::Slot;
use rayon::prelude::*;

/// One sorted run in a log file.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub file: usize,
    pub offset: u64,
    pub records: u64,
}

/// The most vertices an interval holds: its local targets are u32s below
/// `u32::MAX`. The planners clamp their intervals to it.
pub const MAX_INTERVAL: u64 = u32::MAX as u64 - 1;

/// Encoded record size of a message: u32 interval-local target + the value.
pub fn record_bytes<M: Value>() -> usize {
    4 + M::BYTES
}

/// Counters of one superstep's logging.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogCounts {
    /// Messages produced by edges.
    pub messages: u64,
    /// Records written to the logs (after in-buffer reduction).
    pub records_written: u64,
    /// Bytes appended to log files (records plus alignment padding).
    pub bytes_written: u64,
    /// Buffer flushes.
    pub flushes: u64,
}

/// The message buffer (targets as `T`) and the per-interval run lists.
pub struct MultiLog<M: Value, T: Slot = u32> {
    buf: Vec<(T, M)>,
    cap: usize,
    _charge: Charge,
    /// First vertex of each interval, plus n.
    bounds: Vec<u64>,
    /// Log file of each interval (from `Reader::create`).
    files: Vec<usize>,
    /// Where each interval's log ends (aligned).
    ends: Vec<u64>,
    /// Runs of each interval.
    pub runs: Vec<Vec<Run>>,
    pub counts: LogCounts,
    combine: Option<fn(M, M) -> M>,
}

impl<M: Value, T: Slot> MultiLog<M, T> {
    /// A buffer of `cap` messages (charged to `budget`) over intervals
    /// starting at `bounds` (plus n), with log files `files`.
    pub fn new<P: VertexProgram<Msg = M>>(
        cap: usize,
        bounds: Vec<u64>,
        files: Vec<usize>,
        budget: &Budget,
    ) -> Result<MultiLog<M, T>> {
        let combine = if P::COMBINES {
            Some(P::combine as fn(M, M) -> M)
        } else {
            None
        };
        Self::with_combine(cap, bounds, files, combine, budget)
    }

    /// Like [`new`](MultiLog::new), for logs that are not a program's.
    pub fn with_combine(
        cap: usize,
        bounds: Vec<u64>,
        files: Vec<usize>,
        combine: Option<fn(M, M) -> M>,
        budget: &Budget,
    ) -> Result<MultiLog<M, T>> {
        // Targets on disk are local u32s, below u32::MAX (the apply's
        // sentinel).
        if let Some(w) = bounds.windows(2).find(|w| w[1] - w[0] > MAX_INTERVAL) {
            return Err(crate::error::Error::Invalid(format!(
                "external engine: interval {}..{} holds 2^32 - 1 vertices or more",
                w[0], w[1]
            )));
        }
        let cap = cap.max(1);
        let charge = budget.charge(
            (cap * std::mem::size_of::<(T, M)>()) as u64,
            "external engine message buffer",
        )?;
        let k = files.len();
        Ok(MultiLog {
            // Grown as messages come, up to `cap` (the charge): a large
            // budget over a small graph reserves what the graph sends.
            buf: Vec::new(),
            cap,
            _charge: charge,
            bounds,
            files,
            ends: vec![0; k],
            runs: vec![Vec::new(); k],
            counts: LogCounts::default(),
            combine,
        })
    }

    /// Logs one message; flushes when the buffer is full.
    #[inline]
    pub fn push(
        &mut self,
        reader: &mut Reader,
        stage: &mut Appender,
        target: T,
        m: M,
    ) -> Result<()> {
        if self.buf.len() == self.buf.capacity() {
            crate::mem::budget::grow_toward(&mut self.buf, self.cap);
        }
        self.buf.push((target, m));
        self.counts.messages += 1;
        if self.buf.len() == self.cap {
            self.flush(reader, stage)?;
        }
        Ok(())
    }

    /// Sorts and reduces the buffer and appends one run per interval.
    pub fn flush(&mut self, reader: &mut Reader, stage: &mut Appender) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        crate::cancel::check()?;
        self.counts.flushes += 1;
        if self.buf.len() > 1 << 16 {
            self.buf.par_sort_unstable_by_key(|r| r.0);
        } else {
            self.buf.sort_unstable_by_key(|r| r.0);
        }
        if let Some(f) = self.combine {
            reduce_sorted(&mut self.buf, f);
        }
        let rec = record_bytes::<M>();
        let local = |t: T, lo: u64| (t.get() - lo) as u32;
        let mut i = 0;
        while i < self.buf.len() {
            let t = self.buf[i].0.get();
            let k = self.bounds.partition_point(|&b| b <= t) - 1;
            let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
            let j = i + self.buf[i..].partition_point(|r| r.0.get() < hi);
            let at = self.ends[k];
            stage.switch(reader, self.files[k], at)?;
            let mut x = i;
            while x < j {
                let space = stage.space(reader, (j - x) * rec)?;
                let fit = space.len() / rec;
                for (slot, r) in space.chunks_exact_mut(rec).zip(&self.buf[x..x + fit]) {
                    slot[..4].copy_from_slice(&local(r.0, lo).to_le_bytes());
                    r.1.put(&mut slot[4..]);
                }
                x += fit;
                stage.commit(reader, fit * rec)?;
                if fit == 0 {
                    // Less than a record left in the staging buffer: this
                    // record straddles two buffers.
                    let mut b = [0u8; 64];
                    b[..4].copy_from_slice(&local(self.buf[x].0, lo).to_le_bytes());
                    self.buf[x].1.put(&mut b[4..]);
                    stage.push(reader, &b[..rec])?;
                    x += 1;
                }
            }
            let end = stage.finish_run(reader)?;
            self.runs[k].push(Run {
                file: self.files[k],
                offset: at,
                records: (j - i) as u64,
            });
            self.counts.records_written += (j - i) as u64;
            self.counts.bytes_written += end - at;
            self.ends[k] = end;
            i = j;
        }
        stage.drain(reader)?;
        self.buf.clear();
        Ok(())
    }

    /// Bytes the message buffer holds charged.
    pub fn bytes(&self) -> u64 {
        (self.cap * std::mem::size_of::<(T, M)>()) as u64
    }

    /// First vertex of each interval, plus n.
    pub fn bounds(&self) -> &[u64] {
        &self.bounds
    }

    /// Forgets interval `k`'s runs (its log is rewritten from the start).
    pub fn reset(&mut self, k: usize) {
        self.runs[k].clear();
        self.ends[k] = 0;
    }
}

/// Folds records with equal targets (the buffer is sorted by target).
pub fn reduce_sorted<T: Copy + Eq, M: Copy>(buf: &mut Vec<(T, M)>, f: fn(M, M) -> M) {
    let mut w = 0;
    for r in 0..buf.len() {
        if w > 0 && buf[w - 1].0 == buf[r].0 {
            buf[w - 1].1 = f(buf[w - 1].1, buf[r].1);
        } else {
            buf[w] = buf[r];
            w += 1;
        }
    }
    buf.truncate(w);
}
