//! A program's initial states. The ranks and out-degrees `init` sees are
//! read a batch at a time (one checked read per file, not one call per
//! vertex), and the word forms (in place: BFS, WCC; accumulating:
//! PageRank), whose `init` reads nothing but its [`VertexInfo`], compute a
//! batch in parallel chunks. On a shard ([`Local`]) ghosts start inactive
//! and silent, their `init` adds nothing to the aggregate, and `init`
//! sees global ranks. At kron-24 the one-vertex-at-a-time pass was
//! most of what a WCC run spent outside the engine's supersteps. Other
//! programs (weighted PageRank reads its weights in vertex order) keep the
//! sequential pass.

use super::{Local, CHUNK};
use crate::engine::bits::AtomicBits;
use crate::engine::frontier::{Collect, Part};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, VertexInfo, VertexProgram};
use crate::engine::words::Word;
use crate::error::Result;
use crate::store::degrees::DegreeStream;
use crate::store::{RankStream, Store};
use rayon::prelude::*;

/// Vertices a batch reads ahead (a whole number of chunks: 16 MiB of
/// ranks and degrees as u64).
const BATCH: usize = 1 << 20;
const _: () = assert!(BATCH.is_multiple_of(CHUNK));

/// The ranks and degrees of every vertex, a batch at a time.
pub(crate) struct Input<'a> {
    local: Option<&'a Local<'a>>,
    ranks: RankStream,
    degs: DegreeStream,
    n: usize,
    /// The current batch: its first vertex, ranks and degrees.
    pub start: usize,
    pub rank: Vec<u64>,
    pub deg: Vec<u64>,
    buf: Vec<u8>,
}

impl<'a> Input<'a> {
    pub fn open(store: &Store, local: Option<&'a Local<'a>>) -> Result<Input<'a>> {
        Ok(Input {
            local,
            ranks: store.rank_reader()?,
            degs: DegreeStream::of(store, "out")?,
            n: store.manifest().num_vertices as usize,
            start: 0,
            rank: Vec::new(),
            deg: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// Reads the next batch; false after the last.
    pub fn next(&mut self) -> Result<bool> {
        self.start += self.rank.len();
        let len = BATCH.min(self.n - self.start);
        if len == 0 {
            return Ok(false);
        }
        self.rank.resize(len, 0);
        self.deg.resize(len, 0);
        self.ranks.next_ranks(&mut self.rank, &mut self.buf)?;
        self.degs.next_degrees(&mut self.deg, &mut self.buf)?;
        Ok(true)
    }

    /// True when the batch's vertex `i` is a shard's ghost.
    #[inline(always)]
    fn ghost(&self, i: usize) -> bool {
        self.local
            .is_some_and(|l| !l.owned.contains(&(self.start + i)))
    }

    /// `init` of the batch's vertex `i`: a ghost's is inactive and adds
    /// nothing to `agg`.
    #[inline(always)]
    pub fn init<P: VertexProgram>(
        &self,
        prog: &P,
        i: usize,
        agg: &mut Aggregate,
    ) -> (P::State, bool) {
        let v = (self.start + i) as u64;
        let info = VertexInfo {
            v,
            rank: self.local.map_or(self.rank[i], |l| (l.rank)(v)),
            out_degree: self.deg[i],
        };
        match self.ghost(i) {
            false => prog.init(&info, agg),
            true => (prog.init(&info, &mut Aggregate::default()).0, false),
        }
    }
}

/// One chunk of a word-form batch: its aggregate and first senders.
pub(super) struct Chunk {
    pub agg: Aggregate,
    pub part: Part,
}

/// Initialises the batch in `input` of a word-form program in parallel:
/// `out` is the batch's words. In place, a word is the state and an active
/// vertex is marked in `changed` (and its block in `received`); else a word
/// is the vertex's first message and a vertex whose word is not `id` sends
/// (listed in its chunk's part). The chunks come back in vertex order, so
/// the caller merges aggregates and frontier parts deterministically.
pub(super) fn words<P: VertexProgram, W: Word>(
    prog: &P,
    input: &Input<'_>,
    out: &mut [W::Cell],
    id: W,
    in_place: bool,
    (changed, received): (&AtomicBits, &AtomicBits),
    col: &Collect,
) -> Vec<Chunk> {
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, out)| {
            let first = c * CHUNK;
            let mut agg = Aggregate::default();
            let mut part = col.part();
            let (mut bits, mut any, len) = (0u64, false, out.len());
            for (i, o) in out.iter_mut().enumerate() {
                let (s, a) = input.init(prog, first + i, &mut agg);
                let x = match !in_place && input.ghost(first + i) {
                    true => id,
                    false => W::msg(s),
                };
                *W::get_mut(o) = x;
                let v = input.start + first + i;
                if in_place {
                    bits |= (a as u64) << (v % 64);
                    any |= a;
                    if v % 64 == 63 || i + 1 == len {
                        changed.or_word(v / 64, std::mem::take(&mut bits));
                    }
                } else if x != id {
                    part.push(v);
                }
            }
            if any {
                received.set((input.start + first) / BLOCK);
            }
            col.done(&part);
            Chunk { agg, part }
        })
        .collect()
}
