//! The cache pool (G-Store's proactive caching): tiles copied out of
//! processed segments into one arena charged to the budget, kept while the
//! algorithm says they may be needed, compacted (memmove) when full.

use crate::error::{Error, Result};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::mem::MaybeUninit;

/// Where a cached tile lives in the arena (in u32 words).
#[derive(Clone, Copy, Debug)]
struct Slot {
    tile: u32,
    start: usize,
    len: usize,
}

/// A bump arena of cached tiles.
pub struct CachePool {
    arena: Vec<u32>,
    capacity: usize,
    slots: Vec<Slot>,
    /// For each tile: its slot index + 1, or 0 when not cached.
    where_: Vec<u32>,
    used: usize,
    /// Whether the pool was analysed for eviction since the last `new_round`.
    analysed: bool,
    _charge: Option<Charge>,
}

impl CachePool {
    /// A pool of `bytes` for a store of `tiles` tiles (0 bytes: no caching).
    pub fn new(bytes: u64, tiles: usize, budget: &Budget) -> Result<CachePool> {
        if tiles > u32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{tiles} tiles are more than the stream engine numbers (2^32 - 1); \
                 use --engine external"
            )));
        }
        let charge = if bytes > 0 {
            Some(budget.charge(bytes, "cache pool")?)
        } else {
            None
        };
        let capacity = (bytes / 4) as usize;
        // Reserved, not touched: RSS grows only as tiles are cached. Filling
        // it costs a page fault per 4 KiB (about 0.7 s per GiB here, most of
        // the first caching pass); `insert_all` spreads them over every core.
        // Transparent huge pages (MADV_HUGEPAGE) were measured slower on the
        // first pass, not faster (DESIGN.md "stream"), so they are not asked for.
        let arena = Vec::with_capacity(capacity);
        Ok(CachePool {
            arena,
            capacity,
            slots: Vec::new(),
            where_: vec![0; tiles],
            used: 0,
            analysed: false,
            _charge: charge,
        })
    }

    /// Pool size in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity as u64 * 4
    }

    /// Bytes held.
    pub fn used_bytes(&self) -> u64 {
        self.used as u64 * 4
    }

    /// True if `tile` is cached.
    #[inline]
    pub fn contains(&self, tile: usize) -> bool {
        self.where_[tile] != 0
    }

    /// The cached edges of `tile`.
    #[inline]
    pub fn get(&self, tile: usize) -> Option<&[u32]> {
        match self.where_[tile] {
            0 => None,
            s => {
                let s = self.slots[s as usize - 1];
                Some(&self.arena[s.start..s.start + s.len])
            }
        }
    }

    /// Cached tiles in arena order.
    pub fn tiles(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots.iter().map(|s| s.tile as usize)
    }

    /// Allows one more eviction analysis (the engine calls this once per
    /// segment: the program knows more after each).
    pub fn new_round(&mut self) {
        self.analysed = false;
    }

    /// Copies `edges` of `tile` in if there is room; when full, first evicts
    /// every tile for which `keep` is false (at most once per round: a full
    /// pool of tiles that are all still needed is not rescanned per insert).
    /// Returns whether it was cached.
    pub fn insert(&mut self, tile: usize, edges: &[u32], keep: impl Fn(usize) -> bool) -> bool {
        if self.contains(tile) || edges.len() > self.capacity {
            return self.contains(tile);
        }
        if self.used + edges.len() > self.capacity {
            if self.analysed {
                return false;
            }
            self.analysed = true;
            self.evict(keep);
            if self.used + edges.len() > self.capacity {
                return false;
            }
        }
        self.arena.extend_from_slice(edges);
        self.slots.push(Slot {
            tile: tile as u32,
            start: self.used,
            len: edges.len(),
        });
        self.used += edges.len();
        self.where_[tile] = self.slots.len() as u32;
        true
    }

    /// `insert` for each of `tiles` (tile, edges) in order, with the same
    /// outcome, but copying on every core: the bookkeeping is done first,
    /// then the copies (the first pass over a fresh arena is bound by page
    /// faults, which run in parallel). Returns how many were cached.
    pub fn insert_all(&mut self, tiles: &[(usize, &[u32])], keep: impl Fn(usize) -> bool) -> usize {
        let lens: Vec<(usize, usize)> = tiles.iter().map(|&(t, e)| (t, e.len())).collect();
        self.place(&lens, keep, |pool, pending| {
            let mut copies: Vec<&[u32]> = pending.drain(..).map(|k| tiles[k].1).collect();
            pool.copy_in(&mut copies);
        })
    }

    /// The bookkeeping of [`Self::insert_all`] and [`Self::insert_with`]:
    /// a slot at the arena's end for each entry (tile, words) of `tiles`
    /// not cached that fits, evicting at most once per round; `flush` fills
    /// the pending slots (the indices of their entries, in order) before an
    /// eviction moves the arena, and at the end. Returns the slots made.
    fn place(
        &mut self,
        tiles: &[(usize, usize)],
        keep: impl Fn(usize) -> bool,
        mut flush: impl FnMut(&mut Self, &mut Vec<usize>),
    ) -> usize {
        let (mut pending, mut n) = (Vec::new(), 0);
        for (k, &(tile, len)) in tiles.iter().enumerate() {
            if self.contains(tile) || len > self.capacity {
                continue;
            }
            if self.used + len > self.capacity {
                if self.analysed {
                    continue;
                }
                self.analysed = true;
                flush(self, &mut pending);
                self.evict(&keep);
                if self.used + len > self.capacity {
                    continue;
                }
            }
            self.slots.push(Slot {
                tile: tile as u32,
                start: self.used,
                len,
            });
            self.used += len;
            self.where_[tile] = self.slots.len() as u32;
            pending.push(k);
            n += 1;
        }
        flush(self, &mut pending);
        n
    }

    /// Copies `copies` (the contents of the last slots, in order) to the end
    /// of the arena, in parallel pieces.
    fn copy_in(&mut self, copies: &mut Vec<&[u32]>) {
        use rayon::prelude::*;
        /// Words per piece of work (1 MiB).
        const PIECE: usize = 1 << 18;
        if copies.is_empty() {
            return;
        }
        let from = self.arena.len();
        let words = self.used - from;
        debug_assert_eq!(words, copies.iter().map(|c| c.len()).sum::<usize>());
        let mut rest = &mut self.arena.spare_capacity_mut()[..words];
        let mut pieces: Vec<(&mut [MaybeUninit<u32>], &[u32])> = Vec::new();
        for src in copies.iter() {
            let (dst, tail) = rest.split_at_mut(src.len());
            rest = tail;
            pieces.extend(dst.chunks_mut(PIECE).zip(src.chunks(PIECE)));
        }
        pieces.into_par_iter().for_each(|(dst, src)| {
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(s);
            }
        });
        // SAFETY: the `words` words after the old length were all written above
        // (the slots' lengths sum to them) and are within the capacity.
        unsafe { self.arena.set_len(from + words) };
        copies.clear();
    }

    /// `insert_all` for tiles whose words `fill` writes in place: `tiles`
    /// are (tile, words), and `fill(k, dst)` writes the words of entry k
    /// into `dst`, returning how many (coded tiles decoded straight into
    /// the arena, on every core: no copy, and the arena's page faults
    /// taken in parallel). A tile filled short keeps the words written.
    pub fn insert_with<F>(
        &mut self,
        tiles: &[(usize, usize)],
        keep: impl Fn(usize) -> bool,
        fill: F,
    ) -> usize
    where
        F: Fn(usize, &mut [MaybeUninit<u32>]) -> usize + Sync,
    {
        self.place(tiles, keep, |pool, pending| {
            pool.fill_in(tiles, pending, &fill)
        })
    }

    /// Fills the last `pending.len()` slots (entries `pending` of `tiles`)
    /// in parallel; see [`Self::insert_with`].
    fn fill_in<F>(&mut self, tiles: &[(usize, usize)], pending: &mut Vec<usize>, fill: &F)
    where
        F: Fn(usize, &mut [MaybeUninit<u32>]) -> usize + Sync,
    {
        use rayon::prelude::*;
        if pending.is_empty() {
            return;
        }
        let from = self.arena.len();
        let words = self.used - from;
        let mut rest = &mut self.arena.spare_capacity_mut()[..words];
        let mut parts = Vec::with_capacity(pending.len());
        for &k in pending.iter() {
            let (dst, tail) = rest.split_at_mut(tiles[k].1);
            rest = tail;
            parts.push((k, dst));
        }
        let written: Vec<usize> = parts
            .into_par_iter()
            .map(|(k, dst)| {
                let w = fill(k, dst).min(dst.len());
                // Never read (the slot is cut to `w` below), but initialised.
                dst[w..].iter_mut().for_each(|d| _ = d.write(0));
                w
            })
            .collect();
        // SAFETY: every word of the `words` after the old length was written
        // above (the pending slots' lengths sum to them).
        unsafe { self.arena.set_len(from + words) };
        let first = self.slots.len() - pending.len();
        for (s, w) in self.slots[first..].iter_mut().zip(written) {
            s.len = w;
        }
        pending.clear();
    }

    /// Drops every tile for which `keep` is false and compacts the arena.
    pub fn evict(&mut self, keep: impl Fn(usize) -> bool) {
        let mut w = 0usize;
        let mut kept = Vec::with_capacity(self.slots.len());
        for s in std::mem::take(&mut self.slots) {
            if keep(s.tile as usize) {
                self.arena.copy_within(s.start..s.start + s.len, w);
                kept.push(Slot { start: w, ..s });
                w += s.len;
            } else {
                self.where_[s.tile as usize] = 0;
            }
        }
        self.arena.truncate(w);
        self.used = w;
        for (i, s) in kept.iter().enumerate() {
            self.where_[s.tile as usize] = i as u32 + 1;
        }
        self.slots = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_evict_compact() {
        let b = Budget::new(1 << 20);
        let mut p = CachePool::new(40, 5, &b).unwrap(); // 10 words
        assert!(p.insert(0, &[1, 2, 3], |_| true));
        assert!(p.insert(1, &[4, 5, 6, 7], |_| true));
        assert!(!p.insert(2, &[8, 9, 10, 11], |_| true)); // full, nothing evictable
        p.new_round();
        assert!(p.insert(2, &[8, 9, 10, 11], |t| t != 0)); // evicts tile 0
        assert_eq!(p.get(0), None);
        assert_eq!(p.get(1), Some(&[4, 5, 6, 7][..]));
        assert_eq!(p.get(2), Some(&[8, 9, 10, 11][..]));
        assert_eq!(p.used_bytes(), 32);
        assert!(!p.insert(3, &[0; 11], |_| false)); // larger than the pool
        assert!(!p.insert(4, &[0; 3], |_| false)); // full, and already analysed this round
    }

    /// A tile filled short (a decoder that stopped early) keeps the words
    /// written, and the next tile follows unharmed.
    #[test]
    fn a_tile_filled_short_keeps_what_was_written() {
        let b = Budget::new(1 << 20);
        let mut p = CachePool::new(64, 3, &b).unwrap();
        let fill = |k: usize, dst: &mut [MaybeUninit<u32>]| {
            let w = [2, 3][k];
            dst[..w]
                .iter_mut()
                .for_each(|d| _ = d.write(10 * k as u32 + 1));
            w
        };
        assert_eq!(p.insert_with(&[(0, 5), (2, 3)], |_| true, fill), 2);
        assert_eq!(p.get(0), Some(&[1, 1][..]));
        assert_eq!(p.get(2), Some(&[11, 11, 11][..]));
    }

    /// Slots name their tiles in u32: more tiles are refused, not wrapped.
    #[test]
    fn more_tiles_than_u32_are_refused() {
        let b = Budget::new(1 << 20);
        let e = CachePool::new(40, u32::MAX as usize + 1, &b).err().unwrap();
        assert!(e.to_string().contains("--engine external"), "{e}");
    }

    #[test]
    fn insert_all_is_insert_one_by_one() {
        // Tiles of 1–40 words and four of about 300 k (more than a piece of
        // the parallel copy; two fill most of the pool), so rounds with and
        // without eviction; tiles repeat within and across rounds.
        let mut x = 7u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let data: Vec<Vec<u32>> = (0..40u32)
            .map(|t| {
                let len = if t % 9 == 4 {
                    300_000 + t as usize
                } else {
                    1 + t as usize
                };
                (0..len as u32).map(|w| t << 20 | w).collect()
            })
            .collect();
        let b = Budget::new(1 << 30);
        let cap = 4 * 700_000;
        let (mut one, mut all, mut with) = (
            CachePool::new(cap, 40, &b).unwrap(),
            CachePool::new(cap, 40, &b).unwrap(),
            CachePool::new(cap, 40, &b).unwrap(),
        );
        for round in 0..30 {
            let batch: Vec<(usize, &[u32])> = (0..1 + next(12))
                .map(|_| next(40) as usize)
                .map(|t| (t, &data[t][..]))
                .collect();
            let keep = |t: usize| !(t + round).is_multiple_of(3);
            one.new_round();
            all.new_round();
            with.new_round();
            let n = batch.iter().filter(|&&(t, e)| {
                let had = one.contains(t);
                one.insert(t, e, keep) && !had
            });
            let n = n.count();
            assert_eq!(all.insert_all(&batch, keep), n, "round {round}");
            // Filled in place: the same.
            let lens: Vec<(usize, usize)> = batch.iter().map(|&(t, e)| (t, e.len())).collect();
            let fill = |k: usize, dst: &mut [MaybeUninit<u32>]| {
                dst.iter_mut()
                    .zip(batch[k].1)
                    .for_each(|(d, &s)| _ = d.write(s));
                batch[k].1.len()
            };
            assert_eq!(with.insert_with(&lens, keep, fill), n, "round {round}");
            assert_eq!(all.used_bytes(), one.used_bytes());
            assert_eq!(
                all.tiles().collect::<Vec<_>>(),
                one.tiles().collect::<Vec<_>>()
            );
            for (t, d) in data.iter().enumerate() {
                assert_eq!(all.get(t), one.get(t), "round {round} tile {t}");
                assert_eq!(with.get(t), one.get(t), "round {round} tile {t}");
                if let Some(e) = all.get(t) {
                    assert_eq!(e, &d[..]);
                }
            }
        }
    }
}
