//! The work plan of a batch of tiles (see [`super::work::process`]):
//! which thread applies each direction of each tile, with the hub blocks
//! of reductions shared over threads (longest-processing-time first, then
//! water-filling), and the cache-square order of a thread's work.

use super::*;

/// Blocks whose work may be split over threads in one batch.
pub(super) const MAX_SHARED: usize = 2;

/// Blocks per side of the square of tiles whose work is done together (see
/// [`super::work::process`]): 16 blocks of 2^16 vertices keep the read side of the square's
/// vertex state (8 bytes per vertex) in the last-level cache.
const WORK_SQUARE_SHIFT: u32 = 4;

/// A block whose work is split over threads.
pub(super) struct SharedBlock {
    pub(super) block: u32,
    /// The thread writing the block itself (the largest share).
    pub(super) owner: u16,
    /// Edges of the block's work per thread.
    pub(super) quota: Vec<u64>,
}

/// Who applies what in a batch.
pub(super) struct WorkPlan {
    /// For each batch entry: the thread applying its forward and its reverse
    /// direction.
    pub(super) thread: Vec<[u16; 2]>,
    pub(super) shared: Vec<SharedBlock>,
}

/// Gives each block's work to a thread: blocks heavier than half a thread's
/// fair share and carrying at least `share_min` edges (when given) are split
/// (at most [`MAX_SHARED`]) so as to
/// level the threads' loads; the others go, heaviest first, each to the
/// least-loaded thread so far.
pub(super) fn assign_work(
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
pub(super) fn work_key(row: u32, col: u32, rev: bool) -> u128 {
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
