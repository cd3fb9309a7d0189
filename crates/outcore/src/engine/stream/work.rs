//! The work of a batch of tiles spread over the threads: blocks owned by
//! one thread each, hub blocks of reductions shared through private copies,
//! squares of tiles kept in cache (see [`process`]).

use super::delta::StreamDelta;
use super::plan::{assign_work, work_key, MAX_SHARED};
use super::*;

/// Applies a batch of tiles on every thread; counts the edges processed
/// and the blocks shared in `it`.
///
/// - **Ownership**: every direction of a tile writes one block, and a block
///   is written by one thread only, so programs need no atomics. Blocks are
///   given to threads by longest-processing-time-first on the batch's edge
///   counts (not modulo the thread count).
/// - **Shared hub blocks**: on degree-ordered stores the first block holds
///   the hubs and may receive half of all edge work, more than one thread's
///   fair share. For programs whose edge function is a reduction
///   ([`TileProgram::shares_blocks`]), up to [`MAX_SHARED`] such blocks
///   with at least [`StreamConfig::share_min_edges`] of work have it split
///   over threads: the owner writes the block, the others private zeroed
///   copies, merged after the batch.
/// - **Order**: each thread works square by square (16 x 16 blocks), column
///   by column inside a square. Edges in a tile are sorted by source, so one
///   side of a tile is read in order and the other at random; consecutive
///   tiles of a column share the random side (kept in L2), and the in-order
///   sides of a square stay in the last-level cache.
#[allow(clippy::too_many_arguments)]
pub(super) fn process<P: TileProgram>(
    prog: &P,
    metas: &[TileMeta],
    needs: &[u8],
    batch: &[(usize, &[u32])],
    threads: usize,
    share: Option<(&Scratch, u64)>,
    coded: bool,
    kills: Option<&StreamDelta>,
    it: &mut IterStats,
) {
    if batch.is_empty() {
        return;
    }
    let (share, min) = match share {
        Some((s, min)) if prog.shares_blocks() => (Some(s), Some(min)),
        _ => (None, None),
    };
    let plan = assign_work(metas, needs, batch, threads, min);
    let edges_done = AtomicU64::new(0);
    let run = |t: usize| {
        let mut work: Vec<(u128, usize, Dir)> = Vec::with_capacity(batch.len());
        for (b, &(i, _)) in batch.iter().enumerate() {
            let m = metas[i];
            if needs[i] & 1 != 0 && plan.thread[b][0] as usize == t {
                work.push((work_key(m.row, m.col, false), b, Dir::Forward));
            }
            if needs[i] & 2 != 0 && plan.thread[b][1] as usize == t {
                work.push((work_key(m.row, m.col, true), b, Dir::Reverse));
            }
        }
        work.sort_unstable_by_key(|w| (w.0, w.1));
        let mut frame = Vec::new();
        let mut decoded = 0;
        let mut w = 0;
        while w < work.len() {
            let (_, b, dir) = work[w];
            // Both directions of a tile on this thread are adjacent (the key
            // differs in its last bit only): a coded tile is decoded once.
            let both = work.get(w + 1).is_some_and(|x| x.1 == b);
            w += 1 + both as usize;
            let (i, edges) = batch[b];
            let m = metas[i];
            let apply = |edges: &[u32], dir: Dir| {
                let tile = Tile {
                    row: m.row,
                    col: m.col,
                    edges,
                };
                let wb = tile.written_block(dir);
                match plan.shared.iter().position(|s| s.block == wb) {
                    Some(k) if plan.shared[k].owner as usize != t => {
                        let into = share.expect("sharing needs scratch").block(t, k);
                        prog.apply_private(&tile, dir, into);
                    }
                    _ => prog.apply(&tile, dir),
                }
            };
            let dirs: &[Dir] = match (both, dir) {
                (true, _) => &[Dir::Forward, Dir::Reverse],
                (false, Dir::Forward) => &[Dir::Forward],
                (false, Dir::Reverse) => &[Dir::Reverse],
            };
            // The delta's tombstones in this piece's tile: its edges are
            // applied in the runs between them (see [`super::delta`]).
            let all = |e: &[u32]| dirs.iter().for_each(|&d| apply(e, d));
            match (coded, kills.and_then(|k| k.cutter(i))) {
                (true, None) => {
                    let n = tilecode::for_each_frame(edges, &mut frame, all);
                    decoded += n * dirs.len() as u64;
                }
                (true, Some(mut cuts)) => {
                    let n = tilecode::for_each_frame(edges, &mut frame, |e| cuts.feed(e, all));
                    decoded += n * dirs.len() as u64;
                    cuts.finish();
                }
                (false, None) => all(edges),
                (false, Some(mut cuts)) => {
                    cuts.feed(edges, all);
                    cuts.finish();
                }
            }
        }
        edges_done.fetch_add(decoded, Relaxed);
    };
    if threads == 1 {
        run(0);
    } else {
        rayon::scope(|s| {
            for t in 0..threads {
                s.spawn(move |_| run(t));
            }
        });
    }
    if let Some(scratch) = share {
        for (k, sh) in plan.shared.iter().enumerate() {
            for t in (0..threads).filter(|&t| t != sh.owner as usize && sh.quota[t] > 0) {
                let copy = scratch.block(t, k);
                prog.merge_private(sh.block, copy);
                for c in copy.iter() {
                    c.store(0, Relaxed);
                }
            }
        }
    }
    it.shared_blocks += plan.shared.len() as u64;
    it.edges_processed += match coded {
        true => edges_done.load(Relaxed),
        false => batch
            .iter()
            .map(|&(i, e)| e.len() as u64 * (needs[i].count_ones() as u64))
            .sum::<u64>(),
    };
}

/// Private zeroed copies of [`MAX_SHARED`] blocks for every thread, charged
/// to the budget (1 MiB per thread).
pub(super) struct Scratch {
    cells: Vec<AtomicU64>,
    _charge: crate::mem::budget::Charge,
}

impl Scratch {
    /// `None` with one thread, or when the budget cannot spare the copies
    /// (the engine then keeps one writer per block).
    pub(super) fn new(threads: usize, budget: &Budget) -> Option<Scratch> {
        if threads < 2 {
            return None;
        }
        let n = threads * MAX_SHARED * BLOCK;
        let charge = budget.charge(n as u64 * 8, "shared-block copies").ok()?;
        Some(Scratch {
            cells: crate::mem::huge_vec(n, |_| AtomicU64::new(0)),
            _charge: charge,
        })
    }

    /// Thread `t`'s copy of the `k`-th shared block.
    fn block(&self, t: usize, k: usize) -> &[AtomicU64; BLOCK] {
        let at = (t * MAX_SHARED + k) * BLOCK;
        self.cells[at..at + BLOCK]
            .try_into()
            .expect("a whole block")
    }
}
