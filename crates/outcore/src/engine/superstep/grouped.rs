//! Grouped messages in memory: programs whose messages do not combine
//! (`COMBINES = false`: CDLP's label multiset, MIS, colouring, weighted
//! betweenness) get every message of a superstep together, as the external
//! engine gives them (PartitionedVC's grouped delivery, here without logs).
//!
//! The messages land in one arena laid out like a CSR by the receivers'
//! bounds: a vertex can receive at most one message per stored entry that
//! names it in the lists the program sends along (its in-degree for
//! [`Edges::Out`] on a directed store, in- plus out-degree for
//! [`Edges::Both`], its degree on an undirected one), so its slots start at
//! the prefix sum of those bounds and a cursor per vertex fills them. The
//! offsets are fixed for the run (no count pass: the edges are read once a
//! superstep); `end` hands each vertex the slice its cursor filled, in
//! arrival order, and rewinds the cursor. Programs must not depend on that
//! order (the external engine's sort does not keep one either).
//!
//! Memory: 8 bytes of offset and 8 of cursor a vertex plus the message
//! size per entry ([`arena_bytes`]), charged to the budget for the run.
//! On a shard with ghost mirrors the ghosts never receive (their owners
//! deliver along their own copies of the edges), so the arena is built
//! with rows for the held vertices only and slots for the owned ones
//! ([`Arena::new`]'s `rows` and `keep`): the slots are the entries naming
//! owned vertices, and the charge at open is theirs.

use super::{MemState, CHUNK};
use crate::engine::frontier::{Collect, Part};
use crate::engine::vertex::{Aggregate, Edges, VertexProgram};
use crate::engine::words::Word;
use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::store::degrees::DegreeStream;
use crate::store::Store;
use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ops::Range;

/// The messages one superstep may deliver, by receiver.
pub(super) struct Arena<M> {
    /// The vertex of the first row (row `i` is vertex `first + i`).
    first: usize,
    /// First slot of each row, plus the total.
    off: Vec<u64>,
    /// Next free slot of each vertex (`off[v]` when nothing arrived).
    next: Vec<UnsafeCell<u64>>,
    slots: Vec<UnsafeCell<MaybeUninit<M>>>,
    _charge: Charge,
}

// SAFETY: a vertex's cursor and slots are written only by the thread
// delivering to it (the stream engine's one writer per block, the select
// engine's single thread), and read in `end` after every delivery.
unsafe impl<M: Send> Sync for Arena<M> {}

/// The stored entries naming a vertex that `edges` delivers along: the
/// messages a vertex may receive in one superstep, summed.
fn entries(store: &Store, edges: Edges) -> u64 {
    let m = store.manifest();
    match (m.directed, edges) {
        (true, Edges::Both | Edges::Simple) => m.csr.out_entries + m.csr.in_entries,
        _ => m.csr.out_entries,
    }
}

/// The bytes of the arena of a program sending `msg_bytes`-byte messages
/// along `edges` (its worst case: every entry delivers), for the planner's
/// fit check.
pub fn arena_bytes(store: &Store, edges: Edges, msg_bytes: u64) -> u64 {
    let n = store.manifest().num_vertices;
    16 * n + 8 + entries(store, edges) * msg_bytes
}

impl<M: Copy + Send> Arena<M> {
    /// The arena of `prog` on `store`, charged to `budget`: rows for the
    /// vertices of `rows`, slots for those of `keep` (every vertex on one
    /// store; a shard's ghosts, which never receive under mirrors, get
    /// neither). The rows are charged before the degrees are read, the
    /// slots once their number is known.
    pub(super) fn new<P: VertexProgram<Msg = M>>(
        store: &Store,
        prog: &P,
        budget: &Budget,
        rows: Range<usize>,
        keep: Range<usize>,
    ) -> Result<Arena<M>> {
        let m = store.manifest();
        let n = m.num_vertices as usize;
        let edges = prog.edges();
        let charge = budget.charge(16 * rows.len() as u64 + 8, "grouped messages")?;
        let mut off = Vec::with_capacity(rows.len() + 1);
        let mut next = Vec::with_capacity(rows.len());
        let dirs: &[&str] = match (m.directed, edges) {
            (false, _) => &["out"],
            (true, Edges::Out) => &["in"],
            (true, Edges::Both | Edges::Simple) => &["in", "out"],
        };
        let mut streams = dirs
            .iter()
            .map(|d| DegreeStream::open(store.root(), d))
            .collect::<Result<Vec<_>>>()?;
        let (mut total, mut all) = (0u64, 0u64);
        for v in 0..n {
            if rows.contains(&v) {
                off.push(total);
                next.push(UnsafeCell::new(total));
            }
            for s in &mut streams {
                let d = s.next_degree()?;
                all += d;
                total += if keep.contains(&v) { d } else { 0 };
            }
        }
        off.push(total);
        if all != entries(store, edges) {
            return Err(Error::Invalid(format!(
                "{}: the degrees sum to {all} list entries but the manifest counts {}; the store is damaged, rebuild it",
                store.path().display(),
                entries(store, edges)
            )));
        }
        let bytes = total * std::mem::size_of::<M>() as u64;
        let charge = charge.absorb(budget.charge(bytes, "grouped messages")?);
        let slots =
            crate::mem::huge_vec(total as usize, |_| UnsafeCell::new(MaybeUninit::uninit()));
        Ok(Arena {
            first: rows.start,
            off,
            next,
            slots,
            _charge: charge,
        })
    }

    /// The bytes charged for the arena.
    pub(super) fn charged(&self) -> u64 {
        self._charge.bytes()
    }

    /// The row of vertex `v` (one with a row).
    #[inline(always)]
    fn row(&self, v: usize) -> usize {
        v - self.first
    }

    /// The slots (messages the arena can hold in a superstep).
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Adds `m` to `d`'s messages.
    ///
    /// # Safety
    /// No other thread may push to `d` at the same time.
    #[inline]
    pub(super) unsafe fn push(&self, d: usize, m: M) {
        let r = self.row(d);
        // SAFETY: the caller's exclusive access to `d`.
        let at = unsafe { &mut *self.next[r].get() };
        // More messages than entries naming `d`: the engines deliver one
        // per entry, so this is a broken invariant, not bad input.
        assert!(
            *at < self.off[r + 1],
            "internal: vertex {d} received more messages than its lists hold"
        );
        // SAFETY: slot `*at` belongs to `d`, which the caller holds.
        unsafe { (*self.slots[*at as usize].get()).write(m) };
        *at += 1;
    }

    /// Adds `m` to `d`'s messages, with the arena held alone (a shard's
    /// receive).
    pub(super) fn push_mut(&mut self, d: usize, m: M) {
        // SAFETY: `&mut self`: no other thread pushes.
        unsafe { self.push(d, m) }
    }

    /// Hands `f` the messages `v` received, in arrival order, and rewinds
    /// its cursor (a shard's drain of a ghost).
    pub(super) fn take(&mut self, v: usize, mut f: impl FnMut(M)) {
        let r = self.row(v);
        let (off, next, slots) = self.parts();
        let at = next[r].get_mut();
        for &m in &slots[off[r] as usize..*at as usize] {
            f(m);
        }
        *at = off[r];
    }

    /// The offsets, the cursors (to rewind) and the slots as messages.
    fn parts(&mut self) -> (&[u64], &mut [UnsafeCell<u64>], &[M]) {
        let s = &self.slots;
        // SAFETY: `UnsafeCell<MaybeUninit<M>>` has `M`'s layout, nothing
        // writes during `end`, and only each vertex's filled slots (below
        // its cursor) are read.
        let slots = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const M, s.len()) };
        (&self.off, &mut self.next, slots)
    }
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// The apply step of a grouped program: each vertex's messages of the
    /// superstep together through `apply`; names the next frontier (and,
    /// for a [`VertexProgram::SCATTER_PURE`] program, the next messages).
    pub(super) fn apply_grouped(&mut self, prog: &P) -> (Aggregate, u64) {
        let p = prog;
        let apply_all = p.apply_all();
        let fuse = P::SCATTER_PURE;
        let owned = self.owned.clone();
        // The held vertices' chunks (`b`: a whole chunk), their rows.
        let b = self.held.start;
        let g = self.grouped.as_mut().expect("a grouped arena");
        let first = g.first;
        let (off, next, slots) = g.parts();
        let off = &off[b - first..];
        let mut msgs: Vec<&mut [Option<P::Msg>]> = match fuse {
            true => self.out[b..].chunks_mut(CHUNK).collect(),
            false => Vec::new(),
        };
        msgs.resize_with(self.states.len().div_ceil(CHUNK), Default::default);
        let col = Collect::default();
        let parts: Vec<(u64, Aggregate, Part)> = self
            .states
            .par_chunks_mut(CHUNK)
            .zip(self.active.words_mut()[b / 64..].par_chunks_mut(CHUNK / 64))
            .zip(next[b - first..].par_chunks_mut(CHUNK))
            .zip(msgs)
            .enumerate()
            .map(|(c, (((states, active), next), msgs))| {
                let (mut count, mut agg, mut part) = (0u64, Aggregate::default(), col.part());
                active.fill(0);
                for (i, s) in states.iter_mut().enumerate() {
                    let (r, v) = (c * CHUNK + i, b + c * CHUNK + i);
                    let at = next[i].get_mut();
                    let m = &slots[off[r] as usize..*at as usize];
                    *at = off[r];
                    let a = match m.is_empty() && !apply_all {
                        // A ghost: its owner applies it (its messages
                        // were drained to the owner).
                        _ if !owned.contains(&v) => false,
                        true => false,
                        false => p.apply(v as u64, s, m, &mut agg),
                    };
                    active[i / 64] |= (a as u64) << (i % 64);
                    count += a as u64;
                    if fuse {
                        msgs[i] = a.then(|| p.scatter(v as u64, s)).flatten();
                        if msgs[i].is_some() {
                            part.push(v);
                        }
                    }
                }
                col.done(&part);
                (count, agg, part)
            })
            .collect();
        self.gather(parts, fuse)
    }
}
