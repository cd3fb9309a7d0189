//! One superstep on the update logs (GraFBoost's sort-reduce on
//! PartitionedVC's multi-log; DESIGN.md "external"): the scatter reads the
//! active vertices' lists and logs every edge's message, the apply
//! sort-reduces each interval's log and applies it in vertex order.

use super::disk::{align_up, read_slot, write_all, Appender};
use super::log::MultiLog;
use super::merge::{sort_reduce, MergeConfig, MergeCounts};
use super::pages;
use super::scatter::{for_each_edge, ListFiles, ScatterBufs};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, Value, VertexProgram};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Reader};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::csr::Slot;
use crate::store::Store;
use std::time::Instant;

/// The spill layout of a run: where states, bits and lists are.
pub(super) struct Spill<'a> {
    pub store: &'a Store,
    /// First vertex of each interval, plus n.
    pub bounds: &'a [u64],
    pub state_file: usize,
    pub bits_file: usize,
    pub stride: u64,
    pub bit_stride: u64,
    pub lists: &'a [ListFiles],
    pub scratch: [usize; 2],
    pub merge: &'a MergeConfig,
    /// One interval whose state stays in `Bufs::state` between supersteps.
    pub resident: bool,
}

/// The buffers of a run, reused by every superstep.
pub(super) struct Bufs<M> {
    pub state: AlignedBuf,
    pub bits: AlignedBuf,
    pub scatter: ScatterBufs,
    pub stage: Appender,
    pub pages: Vec<u32>,
    pub msgs: Vec<M>,
}

/// What a log superstep did.
#[derive(Default)]
pub(super) struct LogStep {
    pub adj_bytes: u64,
    pub sparse_intervals: u64,
    pub scatter_secs: f64,
    pub merge: MergeCounts,
}

/// Runs superstep `step` of `prog` through `mlog`; updates `active_count`
/// (per interval), adds the next active vertices per tile block to
/// `blocks` and the applies' aggregate to `agg`.
// Intervals index `bounds`, `active_count` and the log's runs together.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
pub(super) fn superstep<P: VertexProgram, T: Slot>(
    reader: &mut Reader,
    prog: &P,
    sp: &Spill,
    bufs: &mut Bufs<P::Msg>,
    mlog: &mut MultiLog<P::Msg, T>,
    active_count: &mut [u64],
    blocks: &mut [u64],
    agg: &mut Aggregate,
    budget: &Budget,
    progress: &mut Progress,
    step: usize,
) -> Result<LogStep> {
    let t0 = Instant::now();
    let store = sp.store;
    let n = store.manifest().num_vertices;
    let k = sp.bounds.len() - 1;
    let sbytes = P::State::BYTES;
    let mut adj_bytes = 0u64;
    let mut sparse_intervals = 0u64;
    let mut mcounts = MergeCounts::default();
    let mut next_agg = Aggregate::default();
    mlog.counts = Default::default();
    // 1. Scatter.
    for i in 0..k {
        if active_count[i] == 0 {
            continue;
        }
        crate::cancel::check()?;
        let (lo, hi) = (sp.bounds[i], sp.bounds[i + 1]);
        let len = (hi - lo) as usize;
        if !sp.resident {
            read_slot(
                reader,
                sp.bits_file,
                i,
                sp.bit_stride,
                &mut bufs.bits,
                len.div_ceil(8),
            )?;
            // A sparse frontier: only its states' pages.
            if pages::sparse(active_count[i], len * sbytes, sbytes) {
                pages::of_bits(bufs.bits.as_slice(), len, sbytes, &mut bufs.pages);
                let base = i as u64 * sp.stride;
                let buf = bufs.state.as_mut_slice();
                pages::io(reader, sp.state_file, base, buf, &bufs.pages, false)?;
                sparse_intervals += 1;
            } else {
                read_slot(
                    reader,
                    sp.state_file,
                    i,
                    sp.stride,
                    &mut bufs.state,
                    len * sbytes,
                )?;
            }
        }
        let (sv, bv) = (bufs.state.as_slice(), bufs.bits.as_slice());
        let st = |x: usize| P::State::get(&sv[x * sbytes..]);
        let sends = |x: usize| {
            bv[x / 8] >> (x % 8) & 1 == 1 && prog.scatter(lo + x as u64, &st(x)).is_some()
        };
        // The first active vertex at or after `x` (whole zero words
        // skipped: a sparse frontier costs its words, not its vertices).
        let next_active = |mut x: usize| -> usize {
            while x < len {
                if x.is_multiple_of(64) && x + 64 <= len {
                    let w = u64::from_le_bytes(bv[x / 8..x / 8 + 8].try_into().expect("8 bytes"));
                    match w {
                        0 => x += 64,
                        w => return x + w.trailing_zeros() as usize,
                    }
                } else if bv[x / 8] >> (x % 8) & 1 == 1 {
                    return x;
                } else {
                    x += 1;
                }
            }
            len
        };
        for (li, l) in sp.lists.iter().enumerate() {
            let rev = li == 1;
            let mut cur: Option<(usize, P::Msg)> = None;
            adj_bytes += for_each_edge(
                reader,
                l,
                &mut bufs.scatter,
                lo,
                len,
                &sends,
                &next_active,
                active_count[i],
                |reader, x, d, w| {
                    // Every id is checked, sent along or not.
                    if d >= n {
                        let why = format!("a list names vertex {d}, beyond the {n} vertices");
                        return Err(Error::damaged(store.path(), &l.rel, why));
                    }
                    let m0 = match cur {
                        Some((cx, m)) if cx == x => m,
                        _ => {
                            let m = prog.scatter(lo + x as u64, &st(x)).expect("sends");
                            cur = Some((x, m));
                            m
                        }
                    };
                    let msg = match rev {
                        false => prog.edge(m0, lo + x as u64, d, w),
                        true => prog.edge_rev(m0, lo + x as u64, d, w),
                    };
                    if let Some(msg) = msg {
                        mlog.push(reader, &mut bufs.stage, T::of(d), msg)?;
                    }
                    Ok(())
                },
            )?;
        }
        progress.tick(|| format!("superstep {} scatter: interval {}/{k}", step + 1, i + 1));
    }
    mlog.flush(reader, &mut bufs.stage)?;
    let scatter_secs = t0.elapsed().as_secs_f64();
    // 2. Apply.
    let combine = if P::COMBINES {
        Some(P::combine as fn(P::Msg, P::Msg) -> P::Msg)
    } else {
        None
    };
    let apply_all = prog.apply_all();
    for i in 0..k {
        let has_log = !mlog.runs[i].is_empty();
        if !has_log && !apply_all {
            active_count[i] = 0;
            continue;
        }
        crate::cancel::check()?;
        let (lo, hi) = (sp.bounds[i], sp.bounds[i + 1]);
        let len = (hi - lo) as usize;
        let runs = std::mem::take(&mut mlog.runs[i]);
        // The interval's log, sort-reduced into `sink`.
        let reduce = |reader: &mut Reader,
                      stage: &mut Appender,
                      counts: &mut MergeCounts,
                      sink: &mut dyn FnMut(u32, P::Msg) -> Result<()>| {
            let (m, s) = (sp.merge, sp.scratch);
            sort_reduce::<P::Msg>(reader, &runs, combine, m, s, stage, budget, counts, sink)
        };
        // Few messages: sort them first, then read only their pages.
        let records: u64 = runs.iter().map(|r| r.records).sum();
        let early_bytes = records * std::mem::size_of::<(u32, P::Msg)>() as u64;
        let charge = (!sp.resident && !apply_all && pages::sparse(records, len * sbytes, sbytes))
            .then(|| {
                budget
                    .charge(early_bytes, "external engine sparse messages")
                    .ok()
            })
            .flatten();
        let sparse = charge.is_some();
        let mut early: Vec<(u32, P::Msg)> = match sparse {
            true => Vec::with_capacity(records as usize),
            false => Vec::new(),
        };
        let sl = match (sp.resident, sparse) {
            (true, _) => align_up((len * sbytes) as u64) as usize,
            (false, true) => {
                let mut keep = |t, msg| {
                    early.push((t, msg));
                    Ok(())
                };
                reduce(reader, &mut bufs.stage, &mut mcounts, &mut keep)?;
                bufs.pages.clear();
                for &(t, _) in early.iter().filter(|e| (e.0 as usize) < len) {
                    pages::push(&mut bufs.pages, t as usize, sbytes);
                }
                let base = i as u64 * sp.stride;
                let buf = bufs.state.as_mut_slice();
                pages::io(reader, sp.state_file, base, buf, &bufs.pages, false)?;
                sparse_intervals += 1;
                0
            }
            (false, false) => read_slot(
                reader,
                sp.state_file,
                i,
                sp.stride,
                &mut bufs.state,
                len * sbytes,
            )?,
        };
        let bl = align_up(len.div_ceil(8) as u64) as usize;
        bufs.bits.as_mut_slice()[..bl].fill(0);
        let sv = bufs.state.as_mut_slice();
        let bv = bufs.bits.as_mut_slice();
        let mut count = 0u64;
        // Targets are local to the interval: vertex `lo + x`.
        let mut next_x = 0; // vertices below were applied
        let mut apply_one = |x: u32, ms: &[P::Msg], agg: &mut Aggregate| {
            let (v, x) = (lo + x as u64, x as usize);
            let mut s = P::State::get(&sv[x * sbytes..]);
            if prog.apply(v, &mut s, ms, agg) {
                bv[x / 8] |= 1 << (x % 8);
                count += 1;
                blocks[v as usize / BLOCK] += 1;
            }
            s.put(&mut sv[x * sbytes..]);
        };
        let mut group_x = u32::MAX;
        bufs.msgs.clear();
        let mut feed = |t: u32, msg: P::Msg| -> Result<()> {
            if t as usize >= len {
                return Err(Error::Invalid(format!("external engine: a message for vertex {} landed in the log of interval {lo}..{hi}", lo + t as u64)));
            }
            if t != group_x {
                if group_x != u32::MAX {
                    apply_one(group_x, &bufs.msgs, &mut next_agg);
                    bufs.msgs.clear();
                }
                if apply_all {
                    for x in next_x..t {
                        apply_one(x, &[], &mut next_agg);
                    }
                }
                next_x = t + 1;
                group_x = t;
            }
            bufs.msgs.push(msg);
            Ok(())
        };
        match sparse {
            true => early.drain(..).try_for_each(|(t, m)| feed(t, m))?,
            false => reduce(reader, &mut bufs.stage, &mut mcounts, &mut feed)?,
        }
        if group_x != u32::MAX {
            apply_one(group_x, &bufs.msgs, &mut next_agg);
            bufs.msgs.clear();
        }
        if apply_all {
            for x in next_x..len as u32 {
                apply_one(x, &[], &mut next_agg);
            }
        }
        mlog.reset(i);
        drop(early);
        drop(charge);
        match (sp.resident, sparse) {
            (true, _) => {}
            (false, true) => {
                let base = i as u64 * sp.stride;
                let buf = bufs.state.as_mut_slice();
                pages::io(reader, sp.state_file, base, buf, &bufs.pages, true)?;
            }
            (false, false) => write_all(
                reader,
                sp.state_file,
                i as u64 * sp.stride,
                &bufs.state.as_slice()[..sl],
            )?,
        }
        if count > 0 && !sp.resident {
            write_all(
                reader,
                sp.bits_file,
                i as u64 * sp.bit_stride,
                &bufs.bits.as_slice()[..bl],
            )?;
        }
        active_count[i] = count;
        progress.tick(|| format!("superstep {} apply: interval {}/{k}", step + 1, i + 1));
    }
    agg.merge(&next_agg);
    Ok(LogStep {
        adj_bytes,
        sparse_intervals,
        scatter_secs,
        merge: mcounts,
    })
}
