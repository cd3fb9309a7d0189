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
//! deliver along their own copies of the edges), so their rows are
//! dropped ([`Arena::keep_rows`]): the slots are the entries naming owned
//! vertices, and the charge shrinks to them.

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

/// The messages one superstep may deliver, by receiver.
pub(super) struct Arena<M> {
    /// First slot of each vertex, plus the total.
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
    /// The arena of `prog` on `store`, charged to `budget`.
    pub(super) fn new<P: VertexProgram<Msg = M>>(
        store: &Store,
        prog: &P,
        budget: &Budget,
    ) -> Result<Arena<M>> {
        let m = store.manifest();
        let n = m.num_vertices as usize;
        let edges = prog.edges();
        let bytes = arena_bytes(store, edges, std::mem::size_of::<M>() as u64);
        let charge = budget.charge(bytes, "grouped messages")?;
        let mut off = Vec::with_capacity(n + 1);
        let mut next = Vec::with_capacity(n);
        let dirs: &[&str] = match (m.directed, edges) {
            (false, _) => &["out"],
            (true, Edges::Out) => &["in"],
            (true, Edges::Both | Edges::Simple) => &["in", "out"],
        };
        let mut streams = dirs
            .iter()
            .map(|d| DegreeStream::open(store.root(), d))
            .collect::<Result<Vec<_>>>()?;
        let mut total = 0u64;
        for _ in 0..n {
            off.push(total);
            next.push(UnsafeCell::new(total));
            for s in &mut streams {
                total += s.next_degree()?;
            }
        }
        off.push(total);
        if total != entries(store, edges) {
            return Err(Error::Invalid(format!(
                "{}: the degrees sum to {total} list entries but the manifest counts {}; the store is damaged, rebuild it",
                store.path().display(),
                entries(store, edges)
            )));
        }
        let slots =
            crate::mem::huge_vec(total as usize, |_| UnsafeCell::new(MaybeUninit::uninit()));
        Ok(Arena {
            off,
            next,
            slots,
            _charge: charge,
        })
    }

    /// Keeps the rows of the vertices of `keep` only (a shard's owned
    /// vertices, when its ghosts never receive): the other vertices get
    /// no slots, the slots are allocated anew for the kept rows and the
    /// charge is theirs. Before any delivery (every cursor rewound).
    pub(super) fn keep_rows(
        &mut self,
        keep: std::ops::Range<usize>,
        budget: &Budget,
    ) -> Result<()> {
        let n = self.next.len();
        let (mut total, mut start) = (0u64, self.off[0]);
        for v in 0..n {
            let end = self.off[v + 1];
            let at = self.next[v].get_mut();
            assert_eq!(*at, start, "internal: keep_rows after a delivery");
            self.off[v] = total;
            *at = total;
            total += if keep.contains(&v) { end - start } else { 0 };
            start = end;
        }
        self.off[n] = total;
        // The old slots and charge go first: the peak is the larger one.
        let zero = budget.charge(0, "grouped messages")?;
        drop(std::mem::replace(&mut self._charge, zero));
        self.slots = Vec::new();
        let bytes = 16 * n as u64 + 8 + total * std::mem::size_of::<M>() as u64;
        self._charge = budget.charge(bytes, "grouped messages")?;
        self.slots =
            crate::mem::huge_vec(total as usize, |_| UnsafeCell::new(MaybeUninit::uninit()));
        Ok(())
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
        // SAFETY: the caller's exclusive access to `d`.
        let at = unsafe { &mut *self.next[d].get() };
        // More messages than entries naming `d`: the engines deliver one
        // per entry, so this is a broken invariant, not bad input.
        assert!(
            *at < self.off[d + 1],
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
        let (off, next, slots) = self.parts();
        let at = next[v].get_mut();
        for &m in &slots[off[v] as usize..*at as usize] {
            f(m);
        }
        *at = off[v];
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
        let n = self.n;
        let owned = self.owned.clone();
        let (off, next, slots) = self.grouped.as_mut().expect("a grouped arena").parts();
        let mut msgs: Vec<&mut [Option<P::Msg>]> = match fuse {
            true => self.out.chunks_mut(CHUNK).collect(),
            false => Vec::new(),
        };
        msgs.resize_with(n.div_ceil(CHUNK), Default::default);
        let col = Collect::default();
        let parts: Vec<(u64, Aggregate, Part)> = self
            .states
            .par_chunks_mut(CHUNK)
            .zip(self.active.words_mut().par_chunks_mut(CHUNK / 64))
            .zip(next.par_chunks_mut(CHUNK))
            .zip(msgs)
            .enumerate()
            .map(|(c, (((states, active), next), msgs))| {
                let (mut count, mut agg, mut part) = (0u64, Aggregate::default(), col.part());
                active.fill(0);
                for (i, s) in states.iter_mut().enumerate() {
                    let v = c * CHUNK + i;
                    let at = next[i].get_mut();
                    let m = &slots[off[v] as usize..*at as usize];
                    *at = off[v];
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
