//! Step 2 of triangle listing: one block of oriented lists in memory,
//! indexed by neighbour, against one sequential scan of the oriented lists
//! below the block's end (block nested loop).

use super::entry::Entry;
use super::probe::{intersect, prefetch, Probe};
use super::{Bufs, Credit, Plan, Sink, PER_VERTEX};
use crate::error::{Error, Result};
use crate::io::Reader;
use crate::mem::Budget;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Finds every triangle whose highest corner lies in vertices `v0..v1`
/// (oriented entries `w0..w1`) and credits its corners; returns the list
/// entries compared.
#[allow(clippy::too_many_arguments)]
pub(super) fn block<E: Entry>(
    reader: &mut Reader,
    bufs: &mut Bufs,
    [meta, adj]: [usize; 2],
    (v0, v1): (u64, u64),
    (w0, w1): (u64, u64),
    credit: Credit,
    p: &Plan,
    sink: &mut Sink<E>,
    budget: &Budget,
) -> Result<u64> {
    let nv = (v1 - v0) as usize;
    let ne = (w1 - w0) as usize;
    let _c = budget.charge(
        nv as u64 * PER_VERTEX
            + ne as u64 * p.per_entry
            + p.max_list * p.per_entry
            + (p.dense_limit * 4 * rayon::current_num_threads()) as u64,
        "triangle block",
    )?;
    let Bufs { s, out } = bufs;
    let [ms, ls, ..] = s;
    let stage = &mut out[0];
    let damaged = |what: &str| {
        Error::Invalid(format!(
            "triangle listing: {what} in the oriented lists of vertices {v0}..{v1}; the spill file was damaged"
        ))
    };
    // The block's lists and, per neighbour u, the block vertices pointing
    // to u (local id << 1 | both, position of u in the block's entries).
    let words = E::WORDS as u64;
    ms.seek(reader, meta, 2 * v0, 2 * v1)?;
    ls.seek(reader, adj, w0 * words, w1 * words)?;
    let mut off = Vec::with_capacity(nv + 1);
    off.push(0u32);
    let mut ent: Vec<E> = Vec::with_capacity(ne);
    for _ in 0..nv {
        ms.next(reader)?;
        let len = ms.next(reader)? as usize;
        if ent.len() + len > ne {
            return Err(damaged("more entries than recorded"));
        }
        E::take(ls, reader, len, &mut ent)?;
        off.push(ent.len() as u32);
    }
    let mut rev: Vec<(E, u32, u32)> = Vec::with_capacity(ne);
    for x in 0..nv {
        for i in off[x]..off[x + 1] {
            let e = ent[i as usize];
            rev.push((e.vertex(), (x as u32) << 1 | e.both(), i));
        }
    }
    // By neighbour, then by vertex: a task's lists lie in ascending order.
    rev.par_sort_unstable_by_key(|r| E::key(r.0, r.1));
    let cv: Vec<AtomicU64> = (0..nv).map(|_| AtomicU64::new(0)).collect();

    // The scan, in batches of lists (at most `max_list` entries, or one
    // list) intersected in parallel.
    ms.seek(reader, meta, 0, 2 * v1)?;
    ls.seek(reader, adj, 0, w1 * words)?;
    let cap = p.max_list as usize;
    // The lists scanned hold at most the `w1` entries before the block's end.
    let mut ul: Vec<E> = Vec::with_capacity(cap.min(w1 as usize));
    let mut tasks: Vec<(usize, usize, usize)> = Vec::new();
    // (u, list start, index entries start..end)
    let mut batch: Vec<(E, usize, usize, usize)> = Vec::new();
    let (mut r, mut work) = (0usize, 0u64);
    let mut u = 0u64;
    // The length of list `u`, when read from the meta file already.
    let mut pending: Option<usize> = None;
    while u < v1 && r < rev.len() {
        crate::cancel::check()?;
        ul.clear();
        batch.clear();
        while u < v1 && r < rev.len() {
            let len = match pending.take() {
                Some(len) => len,
                None => {
                    ms.next(reader)?;
                    ms.next(reader)? as usize
                }
            };
            if len as u64 > p.max_list {
                return Err(damaged("a list longer than planned"));
            }
            if rev[r].0.get() != u {
                ls.skip(reader, len * E::WORDS)?;
                u += 1;
                continue;
            }
            if !ul.is_empty() && ul.len() + len > cap {
                // This list starts the next batch.
                pending = Some(len);
                break;
            }
            let (start, r0) = (ul.len(), r);
            E::take(ls, reader, len, &mut ul)?;
            while r < rev.len() && rev[r].0.get() == u {
                r += 1;
            }
            batch.push((E::of(u), start, r0, r));
            u += 1;
        }
        // Tasks of at most TASK index entries, so a hub's many pointing
        // vertices spread over the threads.
        tasks.clear();
        for (k, &(_, _, r0, r1)) in batch.iter().enumerate() {
            tasks.extend((r0..r1).step_by(TASK).map(|t| (k, t, (t + TASK).min(r1))));
        }
        let acc: Vec<AtomicU64> = (0..ul.len()).map(|_| AtomicU64::new(0)).collect();
        let cu: Vec<AtomicU64> = (0..batch.len()).map(|_| AtomicU64::new(0)).collect();
        work += tasks
            .par_iter()
            .map_init(Scratch::default, |probe, &(k, r0, r1)| {
                let (u, start, ..) = batch[k];
                let end = batch.get(k + 1).map_or(ul.len(), |b| b.1);
                let lu = &ul[start..end];
                probe.table.build(lu, u, p.dense_limit);
                probe.acc.clear();
                probe.acc.resize(lu.len(), 0);
                let (mut c_u, mut work) = (0u64, lu.len() as u64);
                let mine = &rev[r0..r1];
                for (t, &(_, x, at)) in mine.iter().enumerate() {
                    if let Some(&(_, y, _)) = mine.get(t + AHEAD) {
                        prefetch(&ent[off[(y >> 1) as usize] as usize..]);
                    }
                    let (x, both_vu) = ((x >> 1) as usize, x & 1);
                    // Only neighbours of v below u (before u in its list)
                    // can close a triangle.
                    let lv = &ent[off[x] as usize..at as usize];
                    // Triangle v > u > w: each corner gets the arcs between
                    // the other two.
                    let cw = credit.of(both_vu);
                    let acc_u = &mut probe.acc;
                    let mut hit = |i: usize, j: usize| {
                        c_u += credit.of(lv[i].both());
                        acc_u[j] += cw;
                        credit.of(lu[j].both())
                    };
                    let c = if lv.len() > 8 * lu.len() {
                        work += (lu.len() * 8) as u64;
                        intersect(lv, lu, hit)
                    } else {
                        work += lv.len() as u64;
                        let mut c = 0;
                        let t = &probe.table;
                        if t.dense {
                            for (i, &e) in lv.iter().enumerate() {
                                let j = t.pos.get(e.index()).copied().unwrap_or(0);
                                if j > 0 {
                                    c += hit(i, j as usize - 1);
                                }
                            }
                        } else {
                            for (i, &e) in lv.iter().enumerate() {
                                if let Some(j) = t.get(e.vertex()) {
                                    c += hit(i, j as usize);
                                }
                            }
                        }
                        c
                    };
                    if c > 0 {
                        cv[x].fetch_add(c, Ordering::Relaxed);
                    }
                }
                probe.table.clear(lu);
                cu[k].fetch_add(c_u, Ordering::Relaxed);
                for (a, &x) in acc[start..end].iter().zip(&probe.acc) {
                    if x > 0 {
                        a.fetch_add(x, Ordering::Relaxed);
                    }
                }
                work
            })
            .sum::<u64>();
        for (&(u, ..), c) in batch.iter().zip(&cu) {
            let c = c.load(Ordering::Relaxed);
            if c > 0 {
                sink.add(reader, stage, u, c)?;
            }
        }
        for (j, a) in acc.iter().enumerate() {
            let a = a.load(Ordering::Relaxed);
            if a > 0 {
                sink.add(reader, stage, ul[j].vertex(), a)?;
            }
        }
    }
    if r < rev.len() {
        return Err(damaged("a neighbour beyond the block"));
    }
    for (x, c) in cv.iter().enumerate() {
        let c = c.load(Ordering::Relaxed);
        if c > 0 {
            sink.add(reader, stage, E::of(v0 + x as u64), c)?;
        }
    }
    ms.drain(reader)?;
    ls.drain(reader)?;
    Ok(work)
}

/// Index entries one parallel task takes at most.
const TASK: usize = 1024;
/// How many lists ahead a task prefetches.
const AHEAD: usize = 4;

/// A thread's scratch: the probe table of the list being intersected and
/// the credits of its entries.
#[derive(Default)]
struct Scratch<E: Entry> {
    table: Probe<E>,
    acc: Vec<u64>,
}
