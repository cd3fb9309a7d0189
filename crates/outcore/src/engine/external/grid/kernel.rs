//! The grid fold's kernel: a run of pieces (one read's tiles whose sources
//! share a words window) folded into the window's accumulators by two
//! threads holding equal shares of its edges.
//!
//! Degree-ordered graphs pile their edges onto the hub blocks (kron-24:
//! tile (0, 0) alone holds a fifth of the edges), so splitting by target
//! block (even and odd) left one thread with 72% of the work. Instead the
//! pieces are ordered by target block and cut where half the run's edges
//! lie, even inside a piece: the first thread owns the blocks up to the
//! cut's, the second those after it, and the one block both write is
//! folded by the second into a private block merged afterwards (as the
//! stream engine shares hub blocks). Runs too small to repay waking a
//! thread fold on one.

use super::fold::Piece;
use crate::engine::program::unpack;
use crate::engine::state::BLOCK;
use crate::engine::vertex::VertexProgram;
use crate::engine::words::{unword, word};

/// Runs with fewer edges fold on the calling thread alone.
const SPLIT_EDGES: usize = 1 << 16;

/// Where a run's pieces, and the words they read, are.
pub(super) struct Run<'a> {
    pub pieces: &'a [Piece],
    /// The read holding the pieces, and its file offset.
    pub buf: &'a [u32],
    pub start: u64,
    /// Source words of blocks `first..`.
    pub words: &'a [u64],
    pub first: usize,
}

impl Run<'_> {
    pub(super) fn edges(&self, p: &Piece) -> &[u32] {
        let o = ((p.off - self.start) / 4) as usize;
        &self.buf[o..o + (p.bytes / 4) as usize]
    }

    fn from(&self, p: &Piece) -> &[u64; BLOCK] {
        let at = (p.src as usize - self.first) * BLOCK;
        self.words[at..at + BLOCK].try_into().expect("a block")
    }
}

/// Folds `run` into `acc` (whole blocks from block `b0`); `order` and
/// `spare` (one block, zero on entry and on return) are scratch. Returns
/// the edge directions folded.
pub(super) fn fold_run<P: VertexProgram>(
    run: &Run,
    acc: &mut [u64],
    b0: usize,
    order: &mut Vec<usize>,
    spare: &mut [u64],
    id: u64,
) -> u64 {
    let total: usize = run.pieces.iter().map(|p| run.edges(p).len()).sum();
    if total < SPLIT_EDGES {
        for p in run.pieces {
            fold_piece::<P>(p, run.from(p), blk(acc, p.dst, b0), run.edges(p), id);
        }
        return total as u64;
    }
    order.clear();
    order.extend(0..run.pieces.len());
    order.sort_unstable_by_key(|&i| (run.pieces[i].dst, run.pieces[i].off));
    // The cut: piece `order[k]`, its first `e` edges on the first thread.
    let (mut k, mut e, mut seen) = (0, 0, 0);
    for (j, &i) in order.iter().enumerate() {
        let len = run.edges(&run.pieces[i]).len();
        (k, e) = (j, total / 2 - seen);
        if seen + len >= total / 2 {
            break;
        }
        seen += len;
    }
    let shared = run.pieces[order[k]].dst as usize;
    let (low, high) = acc.split_at_mut((shared + 1 - b0) * BLOCK);
    let spare: &mut [u64; BLOCK] = spare.try_into().expect("a block");
    let order = &order[..];
    let first = || {
        for (j, &i) in order[..=k].iter().enumerate() {
            let p = &run.pieces[i];
            let edges = run.edges(p);
            let edges = if j == k { &edges[..e] } else { edges };
            fold_piece::<P>(p, run.from(p), blk(low, p.dst, b0), edges, id);
        }
    };
    let second = || {
        let mut touched = false;
        for (j, &i) in order.iter().enumerate().skip(k) {
            let p = &run.pieces[i];
            let edges = run.edges(p);
            let edges = if j == k { &edges[e..] } else { edges };
            let to = match p.dst as usize == shared {
                true => {
                    touched |= !edges.is_empty();
                    &mut *spare
                }
                false => blk(high, p.dst, shared + 1),
            };
            fold_piece::<P>(p, run.from(p), to, edges, id);
        }
        touched
    };
    let (_, touched) = rayon::join(first, second);
    if touched {
        let at = low.len() - BLOCK;
        for (a, s) in low[at..].iter_mut().zip(spare.iter_mut()) {
            if *s != 0 {
                *a = word(P::combine(unword(*a ^ id), unword(*s ^ id))) ^ id;
                *s = 0;
            }
        }
    }
    total as u64
}

/// Block `b` of accumulators starting at block `base`.
fn blk(acc: &mut [u64], b: u32, base: usize) -> &mut [u64; BLOCK] {
    let at = (b as usize - base) * BLOCK;
    (&mut acc[at..at + BLOCK]).try_into().expect("a block")
}

fn fold_piece<P: VertexProgram>(
    p: &Piece,
    from: &[u64; BLOCK],
    to: &mut [u64; BLOCK],
    edges: &[u32],
    id: u64,
) {
    match (p.flip, p.loops) {
        (false, _) => fold_tile::<P, false, false>(from, to, edges, id),
        (true, true) => fold_tile::<P, true, true>(from, to, edges, id),
        (true, false) => fold_tile::<P, true, false>(from, to, edges, id),
    }
}

/// Folds `from[u]` into `to[v]` for every packed edge (u, v), or (v, u)
/// when `FLIP`; `SKIP_LOOPS` drops u == v. Accumulators hold the combined
/// word XOR the identity (zero: nothing received).
#[inline(always)]
fn fold_tile<P: VertexProgram, const FLIP: bool, const SKIP_LOOPS: bool>(
    from: &[u64; BLOCK],
    to: &mut [u64; BLOCK],
    edges: &[u32],
    id: u64,
) {
    for &e in edges {
        let (s, d) = unpack(e);
        if SKIP_LOOPS && s == d {
            continue;
        }
        let (f, t) = if FLIP { (d, s) } else { (s, d) };
        let c = to[t] ^ id;
        to[t] = word(P::combine(unword(c), unword(from[f]))) ^ id;
    }
}
