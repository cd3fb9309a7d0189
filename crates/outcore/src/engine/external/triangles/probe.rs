//! The intersection kernels of triangle listing: the probe index of one
//! oriented list (dense positions or a hash table), a merge or galloping
//! intersection, and a prefetch of the lists a task reads next.

/// Asks for the first cache lines of `list` (the lists a task reads lie
/// far apart in the block; their first lines would each miss).
#[inline]
pub(super) fn prefetch(list: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    for k in (0..list.len().min(48)).step_by(16) {
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
pub(super) struct Probe {
    pub dense: bool,
    pub pos: Vec<u32>,
    keys: Vec<u32>,
    vals: Vec<u32>,
    shift: u32,
}

impl Probe {
    /// Indexes `list`, the oriented list of `u`.
    pub fn build(&mut self, list: &[u32], u: u32, dense_limit: usize) {
        self.dense = u as usize <= dense_limit;
        if self.dense {
            if self.pos.len() < u as usize {
                self.pos.resize(u as usize, 0);
            }
            for (j, &e) in list.iter().enumerate() {
                if let Some(p) = self.pos.get_mut((e >> 1) as usize) {
                    *p = j as u32 + 1;
                }
            }
            return;
        }
        let cap = (list.len() * 2).next_power_of_two().max(16);
        self.shift = 32 - cap.trailing_zeros();
        self.keys.clear();
        self.keys.resize(cap, u32::MAX);
        self.vals.resize(cap, 0);
        for (j, &e) in list.iter().enumerate() {
            let mut h = self.slot(e >> 1);
            while self.keys[h] != u32::MAX {
                h = (h + 1) & (cap - 1);
            }
            self.keys[h] = e >> 1;
            self.vals[h] = j as u32;
        }
    }

    /// Forgets `list` (the dense array is kept zeroed between lists).
    pub fn clear(&mut self, list: &[u32]) {
        if self.dense {
            for &e in list {
                if let Some(p) = self.pos.get_mut((e >> 1) as usize) {
                    *p = 0;
                }
            }
        }
    }

    #[inline]
    fn slot(&self, w: u32) -> usize {
        (w.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    /// The position of `w` (hash mode).
    #[inline]
    pub fn get(&self, w: u32) -> Option<u32> {
        let mask = self.keys.len() - 1;
        let mut h = self.slot(w);
        loop {
            let k = self.keys[h];
            if k == w {
                return Some(self.vals[h]);
            }
            if k == u32::MAX {
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
pub(super) fn intersect(a: &[u32], b: &[u32], mut hit: impl FnMut(usize, usize) -> u64) -> u64 {
    let mut c = 0;
    if a.len() * 32 < b.len() {
        let mut lo = 0;
        for (i, &x) in a.iter().enumerate() {
            lo += b[lo..].partition_point(|&y| y >> 1 < x >> 1);
            if lo < b.len() && b[lo] >> 1 == x >> 1 {
                c += hit(i, lo);
            }
        }
        return c;
    }
    if b.len() * 32 < a.len() {
        let mut lo = 0;
        for (j, &y) in b.iter().enumerate() {
            lo += a[lo..].partition_point(|&x| x >> 1 < y >> 1);
            if lo < a.len() && a[lo] >> 1 == y >> 1 {
                c += hit(lo, j);
            }
        }
        return c;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i] >> 1, b[j] >> 1);
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
}
