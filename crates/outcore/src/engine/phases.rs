//! The phase loop of a vertex program with a priority
//! ([`VertexProgram::priority`]: SSSP's `floor(dist / delta)`), in memory
//! on the select engine: delta-stepping (Meyer & Sanders) for any in-place
//! program whose combine is a minimum (of its messages' `PartialOrd`: a
//! message lowers the state when it is less).
//!
//! Active vertices wait in a bucket queue ([`Buckets`]) by priority. A
//! **phase** is the lowest non-empty bucket: its live entries go to the
//! select engine as one round (every page requested before any is
//! processed, with the engine's run-ahead over the queue's lookahead), each
//! edge delivers `edge(scatter(state))` combined into the receiver's state
//! in place, and a receiver whose state changed is queued by its new
//! priority (its old entry goes stale). Receivers that fall into the
//! current bucket form the next round of the same phase, until it stays
//! empty. Without a priority every vertex waits in bucket 0: Bellman-Ford
//! rounds (`SelectConfig::no_priority`, tests). One [`IterStats`] per
//! phase, merged pairwise past 10,000 ([`Phases`]).
//!
//! Memory: the state words and a queued bit a vertex, charged first; batch
//! buffers; the buckets as they grow (1 MiB steps); the buffer pool takes
//! the rest, less 8 MiB and a quarter at most kept for the queue.

use crate::engine::frontier::{Buckets, BUCKET_CHUNK};
use crate::engine::select::run::{
    min_pool_bytes, pool_bytes, run_stats, Phases, Snap, SLOT_CHUNK, VERTEX_CHUNK,
};
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::engine::superstep::init::Input;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::engine::words::Word;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::{huge_vec, Budget};
use crate::progress::Progress;
use crate::store::csr::{Slot, SlotWidth};
use crate::store::Store;
use std::time::Instant;

/// Bytes of state [`run`] charges on `n` vertices: a 64-bit word and a
/// queued bit a vertex.
pub fn state_bytes(n: u64) -> u64 {
    8 * n + Buckets::<u64>::bits_bytes(n)
}

/// The states of a phased run, as words (charged to the budget until
/// dropped).
pub struct PhaseStates<P: VertexProgram> {
    words: Vec<u64>,
    _charge: Charge,
    _p: std::marker::PhantomData<fn() -> P::State>,
}

impl<P: VertexProgram> PhaseStates<P> {
    /// The state of dense vertex `v`.
    #[inline]
    pub fn get(&self, v: usize) -> P::State {
        crate::engine::words::unword(self.words[v])
    }

    /// Vertices.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True without vertices.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The state words (their charge goes with them).
    pub fn into_words(self) -> (Vec<u64>, Charge) {
        (self.words, self._charge)
    }
}

/// Runs `prog` (in place, with a priority) to its fixpoint in phases on
/// the select engine; returns the states by dense id.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(PhaseStates<P>, RunStats)>
where
    P::Msg: PartialOrd,
{
    match store.manifest().slot_width() {
        SlotWidth::Narrow => run_in::<P, u64, u32>(store, prog, select, budget),
        SlotWidth::Wide => run_in::<P, u64, u64>(store, prog, select, budget),
    }
}

/// The states as words of `W` and the bucket queue over ids of type `T`.
struct Phased<'a, P: VertexProgram, W: Word, T: Slot> {
    prog: &'a P,
    words: Vec<W>,
    queue: Buckets<T>,
    /// False: every vertex in bucket 0 (Bellman-Ford rounds).
    prioritised: bool,
    /// Edges delivered in the current phase.
    edges: u64,
}

impl<P: VertexProgram, W: Word, T: Slot> Phased<'_, P, W, T>
where
    P::Msg: PartialOrd,
{
    /// The bucket of a state word.
    #[inline(always)]
    fn bucket(prog: &P, on: bool, x: W) -> u64 {
        match on {
            true => prog.priority(&x.get()).unwrap_or(0),
            false => 0,
        }
    }

    fn take(&mut self, b: u64) -> Vec<T> {
        let (words, prog, on) = (&self.words, self.prog, self.prioritised);
        self.queue
            .take(b, |v| Self::bucket(prog, on, words[v.get() as usize]))
    }

    /// Delivers `v`'s message along its edges (weights `ws`, or 1.0 each
    /// when empty); queues the receivers whose state changed.
    #[inline]
    fn relax(&mut self, v: T, nbrs: &[T], ws: &[f64]) -> Result<()> {
        self.edges += nbrs.len() as u64;
        let s = v.get();
        let Some(m) = self.prog.scatter(s, &self.words[s as usize].get()) else {
            return Ok(());
        };
        if ws.is_empty() {
            for &u in nbrs {
                self.deliver(s, m, u, 1.0)?;
            }
        } else {
            for (&u, &w) in nbrs.iter().zip(ws) {
                self.deliver(s, m, u, w)?;
            }
        }
        Ok(())
    }

    /// Combines `edge(m)` along `s -> u` into `u`'s state; queues `u` by
    /// its new priority when that changed it.
    #[inline(always)]
    fn deliver(&mut self, s: u64, m: P::Msg, u: T, w: f64) -> Result<()> {
        let (prog, on) = (self.prog, self.prioritised);
        let Some(m) = prog.edge(m, s, u.get(), w) else {
            return Ok(());
        };
        let d = u.get() as usize;
        let old = self.words[d];
        // The combine is a minimum: `m` lowers the state when it is less
        // (one comparison, as a hand-written relaxation has; NaN never is).
        if m < old.get::<P::Msg>() {
            debug_assert!(W::msg(P::combine(old.get(), m)) == W::msg(m));
            let new = W::msg(m);
            self.words[d] = new;
            let words = &self.words;
            return self.queue.update(
                u,
                Self::bucket(prog, on, new),
                Self::bucket(prog, on, old),
                |x| Self::bucket(prog, on, words[x.get() as usize]),
            );
        }
        Ok(())
    }

    /// Up to `k` queued vertices of the lowest buckets, least state first.
    fn lookahead(&self, k: usize, out: &mut Vec<T>) {
        let (words, prog, on) = (&self.words, self.prog, self.prioritised);
        self.queue.lookahead(
            k,
            out,
            |v| Self::bucket(prog, on, words[v.get() as usize]),
            |a, c| {
                let (a, c) = (words[a.get() as usize], words[c.get() as usize]);
                let (a, c): (P::Msg, P::Msg) = (a.get(), c.get());
                // The combine is a minimum: the lesser state is the one it keeps.
                match W::msg(P::combine(a, c)) == W::msg(a) {
                    true if W::msg(a) == W::msg(c) => std::cmp::Ordering::Equal,
                    true => std::cmp::Ordering::Less,
                    false => std::cmp::Ordering::Greater,
                }
            },
        );
    }

    fn maybe_compact(&mut self) {
        let (words, prog, on) = (&self.words, self.prog, self.prioritised);
        self.queue
            .maybe_compact(|v| Self::bucket(prog, on, words[v.get() as usize]));
    }
}

fn run_in<P: VertexProgram, W: Word, T: Slot>(
    store: &Store,
    prog: &mut P,
    select: &SelectConfig,
    budget: &Budget,
) -> Result<(PhaseStates<P>, RunStats)>
where
    P::Msg: PartialOrd,
{
    let start = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    let directed_both = m.directed && prog.edges().both();
    if !P::IN_PLACE || !P::COMBINES || directed_both {
        return Err(Error::Invalid(format!(
            "internal: {} runs in phases, so it must combine in place along out-lists",
            prog.name()
        )));
    }
    let weighted = prog.weighted();
    let state_bytes = state_bytes(n);
    let max_deg = m.degrees.max_out;
    let entries = m.csr.out_entries;
    // for_each_weighted gathers ids, weights (8) and a piece record (24)
    // per slot; ranges and page lists take about 112 bytes per vertex.
    let per_slot = 32 + std::mem::size_of::<T>() as u64;
    let batch_bytes = VERTEX_CHUNK.min(n as usize) as u64 * 112
        + SLOT_CHUNK.max(max_deg).min(entries + 1) * per_slot
        + 4096;
    let min_pool = min_pool_bytes(store, "out", weighted, budget);
    budget.require(
        &format!("{} on {n} vertices", prog.name()),
        &[
            ("vertex states", state_bytes),
            ("batch buffers", batch_bytes),
            ("minimal buffer pools", min_pool),
            ("bucket queue", BUCKET_CHUNK),
            ("slack", 1 << 20),
        ],
    )?;
    let charge = budget.charge(state_bytes, "vertex program state")?;
    let _batch = budget.charge(batch_bytes, "select batch buffers")?;
    let pool = pool_bytes(store, &["out"], weighted, select.pool_bytes, budget, |a| {
        (4 * n).min(a / 4)
    });
    let used0 = budget.used();
    let mut eng = SelectEngine::new(
        store,
        "out",
        weighted,
        budget,
        &SelectConfig {
            pool_bytes: Some(pool),
            ..select.clone()
        },
    )?;
    let pool_charged = budget.used() - used0;
    prog.setup(store, &mut eng)?;
    let prog = &*prog;

    let mut agg = Aggregate::default();
    let mut words: Vec<W> = huge_vec(n as usize, |_| W::default());
    let mut first: Vec<T> = Vec::new();
    // Ranks and degrees a batch at a time (one checked read per file).
    let mut input = Input::open(store, None)?;
    while input.next()? {
        let start = input.start;
        for (i, w) in words[start..start + input.rank.len()]
            .iter_mut()
            .enumerate()
        {
            let (s, active) = input.init(prog, i, &mut agg);
            *w = W::msg(s);
            if active {
                first.push(T::of((start + i) as u64));
            }
        }
    }
    let mut ph = Phased::<P, W, T> {
        prog,
        words,
        queue: Buckets::new(n, budget, "bucket queue"),
        prioritised: !select.no_priority,
        edges: 0,
    };
    for v in first {
        let b = Phased::<P, W, T>::bucket(prog, ph.prioritised, ph.words[v.get() as usize]);
        let words = &ph.words;
        let on = ph.prioritised;
        ph.queue.update(v, b, b, |x| {
            Phased::<P, W, T>::bucket(prog, on, words[x.get() as usize])
        })?;
    }

    let mut phases = Phases::default();
    let mut progress = Progress::new(prog.name());
    let (mut phase, mut processed) = (0usize, 0u64);
    while let Some(b) = ph.queue.first() {
        crate::cancel::check()?;
        let snap = Snap::take(&[&eng]);
        let mut active = 0u64;
        ph.edges = 0;
        loop {
            let cur = ph.take(b);
            if cur.is_empty() {
                break;
            }
            active += cur.len() as u64;
            let lookahead = |ph: &Phased<P, W, T>, k, out: &mut Vec<T>| ph.lookahead(k, out);
            let relax = |ph: &mut Phased<P, W, T>, v, nbrs: &[T], ws: &[f64]| ph.relax(v, nbrs, ws);
            if weighted {
                eng.for_each_weighted_ahead(&mut ph, &cur, max_deg, lookahead, relax)?;
            } else {
                eng.for_each_list_ahead(&mut ph, &cur, max_deg, lookahead, relax)?;
            }
            ph.queue.done_with(cur);
            ph.maybe_compact();
        }
        if active == 0 {
            continue; // only stale entries
        }
        processed += active;
        phases.add(snap.finish(&[&eng], phase, active, ph.edges));
        phase += 1;
        progress.tick(|| {
            format!(
                "bucket {b} (phase {phase}): {processed} vertices processed, {} queued",
                ph.queue.queued_count()
            )
        });
    }
    let iterations: Vec<IterStats> = phases.finish();
    let mut stats = run_stats(
        prog.name(),
        &[&eng],
        budget,
        state_bytes,
        pool_charged,
        start,
        iterations,
    );
    stats.threads = 1;
    progress.done(|| {
        format!(
            "{phase} phases, {} read in {:.2}s (I/O wait {:.2}s)",
            crate::size::format_size(stats.bytes_read),
            stats.wall_seconds,
            stats.io_wait_seconds
        )
    });
    let Phased { words, .. } = ph;
    let words = words.into_iter().map(|w| w.wide()).collect();
    Ok((
        PhaseStates {
            words,
            _charge: charge,
            _p: std::marker::PhantomData,
        },
        stats,
    ))
}
