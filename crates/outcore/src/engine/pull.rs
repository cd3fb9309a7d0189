//! The pull mode of a program whose messages do not combine, in memory on
//! the select engine, over the simple graph ([`Edges::Simple`]: k-core's
//! h-index iteration, Montresor et al.'s distributed k-core run
//! Gauss-Seidel). Nothing is sent: a vertex pulls its distinct
//! neighbours' current states, in id order, straight into
//! [`VertexProgram::pull`] (a fused gather, Ligra's `EdgeMapDense`: one
//! pass over the list, no message built; k-core counts the estimates
//! into its h-index there). Its default builds the messages
//! `edge(scatter(u, state[u]))` and `apply`s them.
//!
//! - Active vertices wait in a dense bitset ([`Dense`]) scanned in id
//!   order, in batches of up to 64 Ki vertices (smaller when their lists
//!   exceed 256 Ki slots); only the pages of their lists are read
//!   (`select/simple.rs`: out ∪ in, deduplicated, without the vertex;
//!   a directed store opens two engines, each half of the buffer pool).
//! - A batch's new states are computed on every core from the states
//!   before the batch, then written (Jacobi inside a batch, Gauss-Seidel
//!   across batches): a vertex activated ahead of the scan runs in the
//!   same round. A vertex whose state changed (and whose `pull` says it
//!   sends) wakes the neighbours [`VertexProgram::wakes`] names, tested
//!   against the new states.
//! - A vertex whose new state [`VertexProgram::again`] names steps again
//!   in the next round by itself (colouring's tentative vertices; such a
//!   program double-buffers its state if its rounds are synchronous).
//! - A round ends at the end of the scan; the run ends when none is active
//!   or `end` says so. One [`IterStats`] per round.
//!
//! Memory: the states and an active bit a vertex, charged first; the
//! batch buffers; the buffer pools take the rest (less 8 MiB).

use crate::engine::frontier::Dense;
use crate::engine::select::run::{
    min_pool_bytes, pool_bytes, run_stats, slot_batches, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::select::simple::{Scratch, Simple};
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::engine::superstep::init::Input;
use crate::engine::vertex::{Aggregate, Edges, VertexProgram};
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::store::csr::{Slot, SlotWidth};
use crate::store::Store;
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

/// Bytes of state [`run`] charges for `P` on `n` vertices: a state and an
/// active bit a vertex.
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    std::mem::size_of::<P::State>() as u64 * n + Dense::bytes(n)
}

/// The states of a pull run by dense id (charged to the budget until
/// dropped).
pub struct PullStates<S> {
    pub states: Vec<S>,
    pub charge: Charge,
}

/// Runs `prog` (not combining, along [`Edges::Simple`]) in the pull mode
/// to its fixpoint on the select engine; returns the states by dense id.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(PullStates<P::State>, RunStats)>
where
    P::State: PartialEq,
{
    match store.manifest().slot_width() {
        SlotWidth::Narrow => run_in::<P, u32>(store, prog, select, budget),
        SlotWidth::Wide => run_in::<P, u64>(store, prog, select, budget),
    }
}

fn run_in<P: VertexProgram, T: Slot>(
    store: &Store,
    prog: &mut P,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(PullStates<P::State>, RunStats)>
where
    P::State: PartialEq,
{
    let start = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    if P::COMBINES || prog.edges() != Edges::Simple {
        return Err(Error::Invalid(format!(
            "internal: {} runs in the pull mode, so it must not combine and go along simple lists",
            prog.name()
        )));
    }
    if T::WIDTH == SlotWidth::Narrow && n >= u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{n} vertices do not fit u32 dense ids"
        )));
    }
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    let max_degs: Vec<u64> = if m.directed {
        vec![m.degrees.max_out, m.degrees.max_in]
    } else {
        vec![m.degrees.max_out]
    };
    let entries = m.csr.out_entries + m.csr.in_entries;
    let bound: u64 = max_degs.iter().sum();
    let state_bytes = state_bytes::<P>(n);
    // Gathered neighbours and neighbours to wake (two ids a slot), pieces
    // (one per vertex and page), per thread the scratch lists, messages
    // and a program's counts (three ids, a message and 4 bytes per entry
    // of the longest union), per vertex the engines' ranges and page lists
    // (about 112 bytes) and the batch (an id), bounds, new states and
    // changes (about 28 bytes).
    let threads = rayon::current_num_threads().max(1) as u64;
    let slots = SLOT_CHUNK.max(bound).min(entries + 1);
    let vertices = VERTEX_CHUNK.min(n as usize) as u64;
    let id = std::mem::size_of::<T>() as u64;
    let msg = std::mem::size_of::<P::Msg>() as u64;
    let batch_bytes = slots * 2 * id
        + (vertices + slots / 256 + 1) * Simple::<T>::PIECE_BYTES
        + threads * (4 + msg + 3 * id) * (bound.min(n) + 1)
        + vertices * (112 + 28 + id)
        + 4096;
    let min_pool: u64 = dirs
        .iter()
        .map(|d| min_pool_bytes(store, d, false, budget))
        .sum();
    budget.require(
        &format!("{} on {n} vertices", prog.name()),
        &[
            ("vertex states", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("slack", 1 << 20),
        ],
    )?;
    let charge = budget.charge(state_bytes, "vertex program state")?;
    let _batch = budget.charge(batch_bytes, "select batch buffers")?;
    // The pool of each engine: half of the total for directed stores.
    let per_engine =
        pool_bytes(store, dirs, false, select.pool_bytes, budget, |_| 0) / dirs.len() as u64;
    let used0 = budget.used();
    let mut engines: Vec<SelectEngine> = dirs
        .iter()
        .map(|d| {
            let cfg = SelectConfig {
                pool_bytes: Some(per_engine),
                ..select.clone()
            };
            SelectEngine::new(store, d, false, budget, &cfg)
        })
        .collect::<Result<_>>()?;
    let pool_charged = budget.used() - used0;

    let mut agg = Aggregate::default();
    let mut active = Dense::empty(n);
    let mut states: Vec<P::State> = Vec::new();
    let mut input = Input::open(store, None)?;
    while input.next()? {
        let at = input.start;
        if states.is_empty() {
            let (s, _) = input.init(prog, 0, &mut Aggregate::default());
            states = huge_vec(n as usize, |_| s);
        }
        for i in 0..input.rank.len() {
            let (s, on) = input.init(prog, i, &mut agg);
            states[at + i] = s;
            if on {
                active.activate(T::of((at + i) as u64));
            }
        }
    }
    // Its batch of ranks and degrees (tens of MiB) is not kept for the rounds.
    drop(input);

    let mut iterations: Vec<IterStats> = Vec::new();
    let mut progress = Progress::new(prog.name());
    let mut g = Simple::<T>::default();
    let mut batch: Vec<T> = Vec::new();
    // Each thread's scratch lists, kept from batch to batch.
    let work: Vec<Mutex<Scratch<T>>> = (0..=threads).map(|_| Mutex::default()).collect();
    let mut round = 0usize;
    while active.count() > 0 && prog.begin(round, &agg) {
        agg = Aggregate::default();
        let snap = Snap::take(&engines.iter().collect::<Vec<_>>());
        let (mut processed, mut edges, mut changed) = (0u64, 0u64, 0u64);
        let mut cursor = 0u64;
        loop {
            crate::cancel::check()?;
            active.take(&mut cursor, VERTEX_CHUNK, &mut batch);
            if batch.is_empty() {
                break;
            }
            processed += batch.len() as u64;
            let mut refs: Vec<&mut SelectEngine> = engines.iter_mut().collect();
            for r in slot_batches(&mut refs, &max_degs, &batch)? {
                let vs = &batch[r];
                edges += g.gather(&mut refs, vs)?;
                changed += pull(&*prog, &mut states, &mut active, vs, &g, &work, &mut agg);
            }
            let done = cursor;
            progress.tick(|| format!("round {round}: {done}/{n} scanned, {processed} active"));
        }
        let refs: Vec<&SelectEngine> = engines.iter().collect();
        iterations.push(snap.finish(&refs, round, processed, edges));
        let line = format!("round {round}: {processed} active, {changed} changed");
        progress.tick(|| line);
        round += 1;
        if prog.end(round - 1, &agg, active.count()) {
            break;
        }
    }
    drop((g, batch, work));
    let refs: Vec<&SelectEngine> = engines.iter().collect();
    let mut stats = run_stats(
        prog.name(),
        &refs,
        budget,
        state_bytes,
        pool_charged,
        start,
        iterations,
    );
    stats.threads = threads as usize;
    progress.done(|| {
        format!(
            "{round} rounds, {} read in {:.2}s (I/O wait {:.2}s)",
            crate::size::format_size(stats.bytes_read),
            stats.wall_seconds,
            stats.io_wait_seconds
        )
    });
    Ok((PullStates { states, charge }, stats))
}

/// The calling thread's scratch (one each; the last for a caller outside
/// the pool).
fn mine<W>(work: &[Mutex<W>]) -> std::sync::MutexGuard<'_, W> {
    let i = rayon::current_thread_index().map_or(work.len() - 1, |i| i.min(work.len() - 1));
    work[i].lock().expect("a thread's scratch")
}

/// Pulls and applies every vertex of `vs` (ascending; `g`: their simple
/// lists) in parallel from the states before the batch, then writes the
/// new states and wakes the neighbours that may follow; returns how many
/// states changed.
fn pull<P: VertexProgram, T: Slot>(
    prog: &P,
    states: &mut [P::State],
    active: &mut Dense,
    vs: &[T],
    g: &Simple<T>,
    work: &[Mutex<Scratch<T>>],
    agg: &mut Aggregate,
) -> u64
where
    P::State: PartialEq,
{
    let chunk = (vs.len() / (8 * rayon::current_num_threads())).max(64);
    let st = &*states;
    // Per chunk: (new state, sends) of each vertex, and the aggregate.
    type Part<S> = (Vec<(S, bool)>, Aggregate);
    let parts: Vec<Part<P::State>> = vs
        .par_chunks(chunk)
        .enumerate()
        .map(|(c, part)| {
            let mut w = mine(work);
            let sc = &mut *w;
            let mut a = Aggregate::default();
            let base = c * chunk;
            let out = part
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    g.neighbours(base + k, v, sc);
                    // The fused gather: the neighbours' states as they are.
                    let nbrs = (sc.set().iter()).map(|&u| (u.get(), st[u.get() as usize]));
                    let v = v.get();
                    let mut s = st[v as usize];
                    let sends = prog.pull(v, &mut s, nbrs, &mut a);
                    (s, sends)
                })
                .collect();
            (out, a)
        })
        .collect();
    // (index in vs, old state) of the changed vertices that send.
    let mut moved: Vec<(usize, P::State)> = Vec::new();
    let mut changed = 0u64;
    let news = parts.into_iter().flat_map(|(out, a)| {
        agg.merge(&a);
        out
    });
    for (i, (&v, (s, sends))) in vs.iter().zip(news).enumerate() {
        if prog.again(&s) {
            active.activate(v);
        }
        let v = v.get() as usize;
        let old = states[v];
        if s != old {
            states[v] = s;
            changed += 1;
            if sends {
                moved.push((i, old));
            }
        }
    }
    let st = &*states;
    let wake: Vec<Vec<T>> = moved
        .par_chunks((moved.len() / (8 * rayon::current_num_threads())).max(64))
        .map(|part| {
            let mut w = mine(work);
            let sc = &mut *w;
            let mut out = Vec::new();
            for &(i, old) in part {
                g.neighbours(i, vs[i], sc);
                let new = &st[vs[i].get() as usize];
                out.extend(
                    (sc.set().iter().copied())
                        .filter(|&u| prog.wakes(&old, new, &st[u.get() as usize])),
                );
            }
            out
        })
        .collect();
    for u in wake.into_iter().flatten() {
        active.activate(u);
    }
    changed
}
