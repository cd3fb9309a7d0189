//! The work of a batch of tiles spread over the threads: blocks owned by
//! one thread each, hub blocks of reductions shared through private copies,
//! squares of tiles kept in cache (see [`process`]).

use super::delta::{filtered, StreamDelta};
use super::*;

/// Blocks per side of the square of tiles whose work is done together (see
/// [`process`]): 16 blocks of 2^16 vertices keep the read side of the square's
/// vertex state (8 bytes per vertex) in the last-level cache.
const WORK_SQUARE_SHIFT: u32 = 4;

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
            match (coded, kills.and_then(|k| k.kills(i))) {
                (true, None) => {
                    let n = tilecode::for_each_frame(edges, &mut frame, all);
                    decoded += n * dirs.len() as u64;
                }
                (true, Some(dead)) => {
                    let n = tilecode::for_each_frame(edges, &mut frame, |e| filtered(e, dead, all));
                    decoded += n * dirs.len() as u64;
                }
                (false, None) => all(edges),
                (false, Some(dead)) => filtered(edges, dead, all),
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

/// Blocks whose work may be split over threads in one batch.
const MAX_SHARED: usize = 2;

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

/// A block whose work is split over threads.
struct SharedBlock {
    block: u32,
    /// The thread writing the block itself (the largest share).
    owner: u16,
    /// Edges of the block's work per thread.
    quota: Vec<u64>,
}

/// Who applies what in a batch.
struct WorkPlan {
    /// For each batch entry: the thread applying its forward and its reverse
    /// direction.
    thread: Vec<[u16; 2]>,
    shared: Vec<SharedBlock>,
}

/// Gives each block's work to a thread: blocks heavier than half a thread's
/// fair share and carrying at least `share_min` edges (when given) are split
/// (at most [`MAX_SHARED`]) so as to
/// level the threads' loads; the others go, heaviest first, each to the
/// least-loaded thread so far.
fn assign_work(
    metas: &[TileMeta],
    needs: &[u8],
    batch: &[(usize, &[u32])],
    threads: usize,
    share_min: Option<u64>,
) -> WorkPlan {
    let blocks = batch
        .iter()
        .map(|&(i, _)| metas[i].row.max(metas[i].col) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut load = vec![0u64; blocks];
    for &(i, e) in batch {
        let m = metas[i];
        if needs[i] & 1 != 0 {
            load[m.col as usize] += e.len() as u64;
        }
        if needs[i] & 2 != 0 {
            load[m.row as usize] += e.len() as u64;
        }
    }
    let total: u64 = load.iter().sum();
    let mut order: Vec<u32> = (0..blocks as u32)
        .filter(|&b| load[b as usize] > 0)
        .collect();
    order.sort_unstable_by_key(|&b| (std::cmp::Reverse(load[b as usize]), b));
    let split = if let (Some(min), true) = (share_min, threads > 1) {
        order
            .iter()
            .take(MAX_SHARED)
            .take_while(|&&b| {
                let l = load[b as usize];
                l * 2 * threads as u64 > total && l >= min
            })
            .count()
    } else {
        0
    };
    let mut owner = vec![0u16; blocks];
    let mut tot = vec![0u64; threads];
    for &b in &order[split..] {
        let t = (0..threads).min_by_key(|&t| (tot[t], t)).unwrap_or(0);
        owner[b as usize] = t as u16;
        tot[t] += load[b as usize];
    }
    // Water-fill the split blocks' work over the threads.
    let mut shared = Vec::with_capacity(split);
    for &b in &order[..split] {
        let l = load[b as usize];
        let mut by: Vec<usize> = (0..threads).collect();
        by.sort_unstable_by_key(|&t| tot[t]);
        // The k least-loaded threads share it, k the largest such that the
        // block's work lifts them all to the (k+1)-th thread's load.
        let mut k = 1;
        while k < threads && by[..k].iter().map(|&t| tot[by[k]] - tot[t]).sum::<u64>() <= l {
            k += 1;
        }
        let sum = by[..k].iter().map(|&t| tot[t]).sum::<u64>() + l;
        let (level, rem) = (sum / k as u64, sum % k as u64);
        let mut quota = vec![0u64; threads];
        for (j, &t) in by[..k].iter().enumerate() {
            quota[t] = level + ((j as u64) < rem) as u64 - tot[t];
        }
        let own = (0..threads)
            .max_by_key(|&t| (quota[t], std::cmp::Reverse(t)))
            .unwrap_or(0);
        for t in 0..threads {
            tot[t] += quota[t];
        }
        owner[b as usize] = own as u16;
        shared.push(SharedBlock {
            block: b,
            owner: own as u16,
            quota,
        });
    }
    // Each direction of each batch entry: its block's owner, or for a
    // shared block the next thread with quota left (in batch order).
    let mut left: Vec<Vec<u64>> = shared.iter().map(|s| s.quota.clone()).collect();
    let thread = batch
        .iter()
        .map(|&(i, e)| {
            let m = metas[i];
            let mut pick = |b: u32| -> u16 {
                match shared.iter().position(|s| s.block == b) {
                    None => owner[b as usize],
                    Some(k) => {
                        let q = &mut left[k];
                        let t = (0..threads)
                            .find(|&t| q[t] > 0)
                            .unwrap_or(shared[k].owner as usize);
                        q[t] = q[t].saturating_sub(e.len() as u64);
                        t as u16
                    }
                }
            };
            let f = if needs[i] & 1 != 0 { pick(m.col) } else { 0 };
            let r = if needs[i] & 2 != 0 { pick(m.row) } else { 0 };
            [f, r]
        })
        .collect();
    WorkPlan { thread, shared }
}

/// Where a direction of the tile at block (`row`, `col`) goes in a
/// thread's work: square by square, then column by column inside the
/// square, then by row, the two directions of a tile side by side. Block
/// numbers take 32 bits (2^48 vertices), so the key is 121 bits: square
/// (28 + 28 bits), column, row, direction.
#[inline]
fn work_key(row: u32, col: u32, rev: bool) -> u128 {
    let sq = ((row >> WORK_SQUARE_SHIFT) as u128) << 28 | (col >> WORK_SQUARE_SHIFT) as u128;
    sq << 65 | (col as u128) << 33 | (row as u128) << 1 | rev as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The work order is square-major, column-major inside a square, with
    /// block numbers past 2^16 (stores past 2^32 vertices) kept apart: a
    /// 64-bit key with 16-bit fields ran row 2^16 into the column's bits.
    #[test]
    fn work_keys_order_blocks_past_2_16() {
        let far = 1u32 << 16;
        let tiles = [
            (0, 0),
            (1, 0),
            (0, 1),
            (15, 15),
            (16, 0),
            (0, 16),
            (far, 0),
            (0, far),
            (far + 1, far),
            (far, far + 1),
            (u32::MAX, u32::MAX),
        ];
        let mut keys: Vec<(u128, (u32, u32, bool))> = Vec::new();
        for &(r, c) in &tiles {
            for rev in [false, true] {
                keys.push((work_key(r, c, rev), (r, c, rev)));
            }
        }
        keys.sort_unstable();
        let order: Vec<_> = keys.iter().map(|k| k.1).collect();
        let mut want: Vec<_> = keys.iter().map(|k| k.1).collect();
        let sq = |b: u32| b >> WORK_SQUARE_SHIFT;
        want.sort_unstable_by_key(|&(r, c, rev)| (sq(r), sq(c), c, r, rev));
        assert_eq!(order, want);
        keys.dedup_by_key(|k| k.0);
        assert_eq!(keys.len(), 2 * tiles.len());
    }

    /// A batch over `tiles` (row, col, edges), both directions needed.
    fn plan(tiles: &[(u32, u32, usize)], threads: usize, share: bool) -> (WorkPlan, Vec<u64>) {
        let metas: Vec<TileMeta> = tiles
            .iter()
            .map(|&(row, col, e)| TileMeta {
                row,
                col,
                offset: 0,
                bytes: e as u64 * 4,
            })
            .collect();
        let words = vec![0u32; tiles.iter().map(|t| t.2).max().unwrap_or(0)];
        let batch: Vec<(usize, &[u32])> = tiles
            .iter()
            .enumerate()
            .map(|(i, t)| (i, &words[..t.2]))
            .collect();
        let needs = vec![3u8; tiles.len()];
        let p = assign_work(&metas, &needs, &batch, threads, share.then_some(0));
        let mut per_thread = vec![0u64; threads];
        for (b, t) in p.thread.iter().enumerate() {
            per_thread[t[0] as usize] += tiles[b].2 as u64;
            per_thread[t[1] as usize] += tiles[b].2 as u64;
        }
        (p, per_thread)
    }

    #[test]
    fn unshared_blocks_have_one_writer_and_loads_are_levelled() {
        // A hub block 0 with most of the work, pieces of it, light blocks.
        let mut tiles = vec![(0, 0, 100); 40];
        tiles.extend((1..30).map(|c| (0, c, 10)));
        tiles.extend((1..30).map(|c| (c, c, 5)));
        for threads in 1..=4 {
            for share in [false, true] {
                let (p, per) = plan(&tiles, threads, share);
                assert_eq!(
                    per.iter().sum::<u64>(),
                    2 * tiles.iter().map(|t| t.2 as u64).sum::<u64>()
                );
                // Every block not shared is written by one thread.
                let mut writer = std::collections::HashMap::new();
                for (b, t) in p.thread.iter().enumerate() {
                    let (r, c) = (tiles[b].0, tiles[b].1);
                    for (blk, th) in [(c, t[0]), (r, t[1])] {
                        if p.shared.iter().any(|s| s.block == blk) {
                            continue;
                        }
                        assert_eq!(*writer.entry(blk).or_insert(th), th, "block {blk}");
                    }
                }
                if share && threads > 1 {
                    assert_eq!(p.shared.first().map(|s| s.block), Some(0));
                    let (lo, hi) = (per.iter().min().unwrap(), per.iter().max().unwrap());
                    // Levelled to within a piece (100 edges) and a light block.
                    assert!(hi - lo <= 200, "{per:?}");
                    for s in &p.shared {
                        assert!(s.quota[s.owner as usize] == *s.quota.iter().max().unwrap());
                    }
                } else {
                    assert!(p.shared.is_empty());
                }
            }
        }
    }
}
