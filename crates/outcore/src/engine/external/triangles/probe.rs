//! The intersection kernels of triangle listing: the probe index of one
//! oriented list (dense positions or a hash table), a merge or galloping
//! intersection, and a prefetch of the lists a task reads next.

use super::entry::Entry;

/// Asks for the first cache lines of `list` (the lists a task reads lie
/// far apart in the block; their first lines would each miss).
#[inline]
pub(super) fn prefetch<E: Entry>(list: &[E]) {
    #[cfg(target_arch = "x86_64")]
    for k in
        (0..list.len().min(192 / std::mem::size_of::<E>())).step_by(64 / std::mem::size_of::<E>())
    {
        // SAFETY: prefetching an address inside a live slice has no effect
        // beyond the cache.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                list.as_ptr().add(k) as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = list;
}

/// From the neighbours of one list to their positions: a dense array of
/// positions (+1) when the list's owner has a low id (its neighbours are
/// lower still: hubs, whose lists are probed most), else an
/// open-addressing hash table. The list is probed by the lists of the
/// vertices pointing to its owner.
#[derive(Default)]
pub(super) struct Probe<E: Entry> {
    pub dense: bool,
    pub pos: Vec<u32>,
    keys: Vec<E>,
    vals: Vec<u32>,
    shift: u32,
}

impl<E: Entry> Probe<E> {
    /// Indexes `list`, the oriented list of `u`.
    pub fn build(&mut self, list: &[E], u: E, dense_limit: usize) {
        let u = u.get() as usize;
        self.dense = u <= dense_limit;
        if self.dense {
            if self.pos.len() < u {
                self.pos.resize(u, 0);
            }
            for (j, &e) in list.iter().enumerate() {
                if let Some(p) = self.pos.get_mut(e.index()) {
                    *p = j as u32 + 1;
                }
            }
            return;
        }
        let cap = (list.len() * 2).next_power_of_two().max(16);
        self.shift = E::BITS - cap.trailing_zeros();
        self.keys.clear();
        self.keys.resize(cap, E::EMPTY);
        self.vals.resize(cap, 0);
        for (j, &e) in list.iter().enumerate() {
            let mut h = e.vertex().hash(self.shift);
            while self.keys[h] != E::EMPTY {
                h = (h + 1) & (cap - 1);
            }
            self.keys[h] = e.vertex();
            self.vals[h] = j as u32;
        }
    }

    /// Forgets `list` (the dense array is kept zeroed between lists).
    pub fn clear(&mut self, list: &[E]) {
        if self.dense {
            for &e in list {
                if let Some(p) = self.pos.get_mut(e.index()) {
                    *p = 0;
                }
            }
        }
    }

    /// The position of vertex `w` (hash mode).
    #[inline]
    pub fn get(&self, w: E) -> Option<u32> {
        let mask = self.keys.len() - 1;
        let mut h = w.hash(self.shift);
        loop {
            let k = self.keys[h];
            if k == w {
                return Some(self.vals[h]);
            }
            if k == E::EMPTY {
                return None;
            }
            h = (h + 1) & mask;
        }
    }
}

/// Calls `hit(i, j)` for every `a[i] >> 1 == b[j] >> 1` (both sorted) and
/// sums what it returns: a branch-light merge, or binary searches of the
/// shorter list's entries in the longer when their lengths differ widely.
#[inline]
pub(super) fn intersect<E: Entry>(
    a: &[E],
    b: &[E],
    mut hit: impl FnMut(usize, usize) -> u64,
) -> u64 {
    let mut c = 0;
    if a.len() * 32 < b.len() {
        let mut lo = 0;
        for (i, &x) in a.iter().enumerate() {
            lo += b[lo..].partition_point(|&y| y.vertex() < x.vertex());
            if lo < b.len() && b[lo].vertex() == x.vertex() {
                c += hit(i, lo);
            }
        }
        return c;
    }
    if b.len() * 32 < a.len() {
        let mut lo = 0;
        for (j, &y) in b.iter().enumerate() {
            lo += a[lo..].partition_point(|&x| x.vertex() < y.vertex());
            if lo < a.len() && a[lo].vertex() == y.vertex() {
                c += hit(lo, j);
            }
        }
        return c;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].vertex(), b[j].vertex());
        if x == y {
            c += hit(i, j);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorted oriented entries (`id << 1 | both`) of a pseudo-random set.
    fn list(seed: u64, len: usize, below: u32) -> Vec<u32> {
        let mut x = seed | 1;
        let mut ids: Vec<u32> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % below as u64) as u32
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.iter().map(|&w| w << 1 | (w % 3 == 0) as u32).collect()
    }

    #[test]
    fn probe_finds_positions_in_both_modes() {
        let mut p = Probe::default();
        for (seed, len) in [(1, 0), (2, 1), (3, 40), (4, 3000)] {
            let l = list(seed, len, 5000);
            for limit in [0, usize::MAX] {
                p.build(&l, 5000, limit);
                assert_eq!(p.dense, limit > 0);
                for w in 0..5000u32 {
                    let want = l.iter().position(|&e| e >> 1 == w).map(|j| j as u32);
                    let got = if p.dense {
                        p.pos[w as usize].checked_sub(1)
                    } else {
                        p.get(w)
                    };
                    assert_eq!(got, want, "w {w}, len {len}, limit {limit}");
                }
                p.clear(&l);
                assert!(p.pos.iter().all(|&x| x == 0), "cleared");
            }
        }
    }

    #[test]
    fn intersect_merges_and_gallops() {
        for (la, lb) in [(0, 10), (5, 5), (30, 40), (3, 2000), (2000, 3), (500, 700)] {
            let (a, b) = (
                list(la as u64 + 7, la, 3000),
                list(lb as u64 + 99, lb, 3000),
            );
            let mut hits = Vec::new();
            let c = intersect(&a, &b, |i, j| {
                hits.push((i, j));
                1
            });
            let want: Vec<(usize, usize)> = a
                .iter()
                .enumerate()
                .filter_map(|(i, &x)| b.iter().position(|&y| y >> 1 == x >> 1).map(|j| (i, j)))
                .collect();
            assert_eq!(hits, want, "{la} x {lb}");
            assert_eq!(c, want.len() as u64);
        }
    }

    /// u64 entries (a wide store's) keep ids past 2^32 whole: ids sharing
    /// their low 32 bits are neither found for each other in the hash
    /// table nor matched by the intersection.
    #[test]
    fn wide_entries_keep_ids_past_2_32_apart() {
        let ids = |base: u64| -> Vec<u64> {
            (0..300u64)
                .map(|i| (base + i * (1 << 32) + i) << 1 | (i & 1))
                .collect()
        };
        let (a, b) = (ids(5), ids(6));
        let mut p = Probe::<u64>::default();
        p.build(&a, 1 << 50, 1000);
        assert!(!p.dense);
        for (j, &e) in a.iter().enumerate() {
            assert_eq!(p.get(e >> 1), Some(j as u32));
            // The same low half as entry j's id.
            assert_eq!(p.get((e >> 1) + (1 << 32)), None);
        }
        // 5 + i(2^32 + 1) and 6 + i(2^32 + 1) share no id; the low halves
        // of 5 + (i+1)(2^32+1) and 6 + i(2^32+1) are equal.
        for &e in &b {
            assert_eq!(p.get(e >> 1), None);
        }
        assert_eq!(intersect(&a, &b, |_, _| 1), 0);
        let c = intersect(&a, &a, |i, j| {
            assert_eq!(i, j);
            1
        });
        assert_eq!(c, a.len() as u64);
    }
}
