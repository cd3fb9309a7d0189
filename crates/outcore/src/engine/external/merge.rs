//! Sort-reduce of one interval's log (GraFBoost §III-B): the log's sorted
//! runs become one stream of records in target order. A log that fits the
//! merge memory is read whole and sorted in memory; a larger one is merged
//! externally, `fan_in` runs at a time, each merge reducing equal targets
//! when the program combines ("reduction in every merge step"), in as many
//! levels as needed, the last level feeding the apply step directly.

use super::disk::{align_up, read_into, Appender};
use super::log::{record_bytes, reduce_sorted, Run};
use crate::engine::vertex::Value;
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Reader, ALIGN};
use crate::mem::Budget;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Memory and fan-in of the merges.
#[derive(Clone, Copy, Debug)]
pub struct MergeConfig {
    /// Bytes a log may take in memory to be sorted there.
    pub memory: u64,
    /// Bytes of read buffer per run in an external merge.
    pub run_buffer: usize,
    /// Runs merged at once (at least 2).
    pub fan_in: usize,
}

impl MergeConfig {
    /// Merges in `memory` with read buffers of `run_buffer` bytes: the fan-in
    /// is `fan_in` when given, else as many runs as their buffers fit.
    pub fn new(memory: u64, run_buffer: usize, fan_in: Option<usize>) -> MergeConfig {
        MergeConfig {
            memory,
            run_buffer,
            fan_in: fan_in
                .unwrap_or((memory / (run_buffer + ALIGN) as u64) as usize)
                .max(2),
        }
    }
}

/// What the merges of one superstep did.
#[derive(Clone, Copy, Debug, Default)]
pub struct MergeCounts {
    /// Intermediate merge levels (0 when every log fit or had few runs).
    pub levels: u64,
    /// Bytes the intermediate levels wrote.
    pub bytes_written: u64,
    /// Logs sorted in memory / merged from disk.
    pub in_memory: u64,
    pub external: u64,
}

/// Calls `sink(target, value)` for the records of `runs` in target order
/// (reduced when `combine` is given); targets are local to the log's
/// interval, as [`super::log`] writes them. `scratch` are two files for
/// the intermediate levels.
#[allow(clippy::too_many_arguments)]
pub fn sort_reduce<M: Value>(
    reader: &mut Reader,
    runs: &[Run],
    combine: Option<fn(M, M) -> M>,
    cfg: &MergeConfig,
    scratch: [usize; 2],
    stage: &mut Appender,
    budget: &Budget,
    counts: &mut MergeCounts,
    mut sink: impl FnMut(u32, M) -> Result<()>,
) -> Result<()> {
    let rec = record_bytes::<M>();
    let total: u64 = runs.iter().map(|r| r.records).sum();
    if total == 0 {
        return Ok(());
    }
    let mem_rec = std::mem::size_of::<(u32, M)>() as u64;
    if total * mem_rec + cfg.run_buffer as u64 <= cfg.memory {
        counts.in_memory += 1;
        let _c = budget.charge(total * mem_rec, "external engine log sort")?;
        let mut all: Vec<(u32, M)> = Vec::with_capacity(total as usize);
        let mut buf = AlignedBuf::new(cfg.run_buffer + ALIGN, budget, "external engine log read")?;
        for r in runs {
            let mut cur = Cursor::<M>::new(*r, &mut buf);
            while let Some(x) = cur.next(reader)? {
                all.push(x);
            }
        }
        if all.len() > 1 << 16 {
            all.par_sort_unstable_by_key(|r| r.0);
        } else {
            all.sort_unstable_by_key(|r| r.0);
        }
        if let Some(f) = combine {
            reduce_sorted(&mut all, f);
        }
        for (t, m) in all {
            sink(t, m)?;
        }
        return Ok(());
    }
    counts.external += 1;
    let fan_in = cfg.fan_in.max(2);
    let mut level: Vec<Run> = runs.to_vec();
    let mut out_file = 0;
    while level.len() > fan_in {
        crate::cancel::check()?;
        counts.levels += 1;
        let file = scratch[out_file];
        stage.switch(reader, file, 0)?;
        let mut next = Vec::new();
        for group in level.chunks(fan_in) {
            let start = stage.position();
            let mut records = 0u64;
            merge_group(reader, group, combine, cfg, budget, |reader, t, m| {
                let mut b = [0u8; 64];
                b[..4].copy_from_slice(&t.to_le_bytes());
                m.put(&mut b[4..]);
                records += 1;
                stage.push(reader, &b[..rec])
            })?;
            let end = stage.finish_run(reader)?;
            counts.bytes_written += end - start;
            next.push(Run {
                file,
                offset: start,
                records,
            });
        }
        stage.drain(reader)?;
        level = next;
        out_file ^= 1;
    }
    merge_group(reader, &level, combine, cfg, budget, |_, t, m| sink(t, m))
}

/// K-way merge of `runs` into `sink`, folding equal targets when combining.
fn merge_group<M: Value>(
    reader: &mut Reader,
    runs: &[Run],
    combine: Option<fn(M, M) -> M>,
    cfg: &MergeConfig,
    budget: &Budget,
    mut sink: impl FnMut(&mut Reader, u32, M) -> Result<()>,
) -> Result<()> {
    let mut bufs: Vec<AlignedBuf> = (0..runs.len())
        .map(|_| {
            AlignedBuf::new(
                cfg.run_buffer + ALIGN,
                budget,
                "external engine merge buffer",
            )
        })
        .collect::<Result<_>>()?;
    let mut cursors: Vec<Cursor<M>> = runs
        .iter()
        .zip(bufs.iter_mut())
        .map(|(r, b)| Cursor::new(*r, b))
        .collect();
    let mut heap = BinaryHeap::with_capacity(runs.len());
    let mut heads: Vec<Option<M>> = vec![None; runs.len()];
    for (i, c) in cursors.iter_mut().enumerate() {
        if let Some((t, m)) = c.next(reader)? {
            heads[i] = Some(m);
            heap.push(Reverse((t, i)));
        }
    }
    let mut pending: Option<(u32, M)> = None;
    while let Some(Reverse((t, i))) = heap.pop() {
        let m = heads[i].take().expect("head of a run in the heap");
        if let Some((t, x)) = cursors[i].next(reader)? {
            heads[i] = Some(x);
            heap.push(Reverse((t, i)));
        }
        match (pending, combine) {
            (Some((pt, pm)), Some(f)) if pt == t => pending = Some((t, f(pm, m))),
            (Some((pt, pm)), _) => {
                if pt > t {
                    return Err(Error::Invalid(format!(
                        "external engine: a log run is out of order ({pt} before {t}); \
                         the spill file was damaged"
                    )));
                }
                sink(reader, pt, pm)?;
                pending = Some((t, m));
            }
            (None, _) => pending = Some((t, m)),
        }
    }
    if let Some((t, m)) = pending {
        sink(reader, t, m)?;
    }
    Ok(())
}

/// Reads one run's records through a buffer whose first [`ALIGN`] bytes hold
/// a record split across two reads.
struct Cursor<'b, M> {
    run: Run,
    buf: &'b mut AlignedBuf,
    /// Next file offset to read (aligned).
    at: u64,
    /// Records not yet returned.
    left: u64,
    /// Valid bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    _m: std::marker::PhantomData<M>,
}

impl<'b, M: Value> Cursor<'b, M> {
    fn new(run: Run, buf: &'b mut AlignedBuf) -> Cursor<'b, M> {
        Cursor {
            run,
            at: run.offset,
            left: run.records,
            pos: ALIGN,
            end: ALIGN,
            buf,
            _m: std::marker::PhantomData,
        }
    }

    #[inline]
    fn next(&mut self, reader: &mut Reader) -> Result<Option<(u32, M)>> {
        if self.left == 0 {
            return Ok(None);
        }
        let rec = record_bytes::<M>();
        if self.end - self.pos < rec {
            self.refill(reader, rec)?;
        }
        let b = &self.buf.as_slice()[self.pos..self.pos + rec];
        let t = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
        let m = M::get(&b[4..]);
        self.pos += rec;
        self.left -= 1;
        Ok(Some((t, m)))
    }

    fn refill(&mut self, reader: &mut Reader, rec: usize) -> Result<()> {
        let keep = self.end - self.pos;
        debug_assert!(keep < rec && rec <= ALIGN);
        let s = self.buf.as_mut_slice();
        s.copy_within(self.pos..self.end, ALIGN - keep);
        let want_bytes = self.left * rec as u64 - keep as u64;
        let room = s.len() - ALIGN;
        let len = (align_up(want_bytes) as usize).min(room);
        let got = read_into(reader, self.run.file, self.at, &mut s[ALIGN..ALIGN + len])?;
        let want = want_bytes.min(len as u64) as usize;
        if got < want {
            return Err(reader.ended_early(self.run.file, self.at, want, got));
        }
        self.at += got as u64;
        self.pos = ALIGN - keep;
        self.end = ALIGN + got.min(len);
        Ok(())
    }
}
