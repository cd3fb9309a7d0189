//! Exact Erdős–Rényi G(n, m): `m` distinct edges chosen uniformly among all
//! `n(n-1)` ordered pairs (directed) or `n(n-1)/2` unordered pairs
//! (undirected), without self-loops.
//!
//! The pair-index space `[0, N)` is split into `K` fixed chunks, `K` depending
//! only on `n` and `m` (about [`BLOCK_EDGES`] edges per chunk). How many of
//! the `m` edges fall in each chunk is multivariate hypergeometric; it is
//! drawn exactly by halving the chunk range recursively, the left half's
//! count being `Hypergeometric(range pairs, left pairs, count)` (see
//! [`super::hyper`]), each tree node with its own seeded random stream. The
//! tree is walked depth-first, left to right, so counts come out in chunk
//! order with `O(log K)` memory. Each chunk then picks its distinct pair
//! indices with its own random stream: selection sampling when the chunk is
//! at least half full, otherwise the first `count` distinct values of a
//! sequence of uniform draws (draw, sort, dedup, draw the shortfall, repeat),
//! which is a uniform subset by symmetry. Edges come out in pair-index order.
//!
//! Pair indices: directed `i = u (n-1) + (v - [v > u])`; undirected
//! `i = v (v-1) / 2 + u` with `u < v` (emitted as `u -> v`).

use super::hyper::hypergeometric;
use super::par::{Blocks, BLOCK_EDGES};
use crate::base::rng::{mix64, stream, Xoshiro256};
use crate::ingest::RawEdge;

/// The number of distinct non-loop pairs among `n` vertices.
pub(crate) fn possible_pairs(n: u64, directed: bool) -> u128 {
    let n = n as u128;
    let p = n * n.saturating_sub(1);
    if directed {
        p
    } else {
        p / 2
    }
}

pub(crate) struct ErBlocks {
    n: u64,
    directed: bool,
    seed: u64,
    weighted: bool,
    /// Number of possible pairs (`< 2^64` since `n < 2^32`).
    pairs: u64,
    m: u64,
    chunks: u64,
}

/// One chunk to generate: its index and how many edges it holds.
pub(crate) struct ErTask {
    chunk: u64,
    count: u64,
}

impl ErBlocks {
    /// `n < 2^32` and `m <= possible_pairs(n, directed)` (checked by `GenConfig::validate`).
    pub fn new(n: u64, m: u64, directed: bool, seed: u64, weighted: bool) -> ErBlocks {
        let pairs = possible_pairs(n, directed) as u64;
        debug_assert!(m <= pairs);
        let chunks = if m == 0 {
            0
        } else {
            m.div_ceil(BLOCK_EDGES).min(pairs)
        };
        ErBlocks {
            n,
            directed,
            seed,
            weighted,
            pairs,
            m,
            chunks,
        }
    }

    /// First pair index of chunk `i` (`i <= chunks`).
    #[inline]
    fn chunk_start(&self, i: u64) -> u64 {
        (i as u128 * self.pairs as u128 / self.chunks as u128) as u64
    }

    /// The pair with index `i`.
    #[inline]
    fn unrank(&self, i: u64) -> (u64, u64) {
        if self.directed {
            let (u, r) = (i / (self.n - 1), i % (self.n - 1));
            (u, r + (r >= u) as u64)
        } else {
            // v < n < 2^32, so v (v + 1) fits in a u64 (u128 here is ~20x slower).
            let tri = |v: u64| v * v.saturating_sub(1) / 2;
            let estimate = ((1.0 + (1.0 + 8.0 * i as f64).sqrt()) / 2.0) as u64;
            let mut v = estimate.min((1 << 32) - 2);
            while v > 1 && tri(v) > i {
                v -= 1;
            }
            while tri(v + 1) <= i {
                v += 1;
            }
            (i - tri(v), v)
        }
    }

    /// Distinct offsets in `[0, range)`, `count` of them, sorted.
    fn pick(rng: &mut Xoshiro256, range: u64, count: u64, out: &mut Vec<u64>) {
        out.clear();
        if count == 0 {
            return;
        }
        if count as u128 * 2 >= range as u128 {
            // Selection sampling (Knuth's Algorithm S): O(range) <= O(2 count).
            let mut needed = count;
            for j in 0..range {
                if rng.below(range - j) < needed {
                    out.push(j);
                    needed -= 1;
                    if needed == 0 {
                        break;
                    }
                }
            }
        } else {
            let count = count as usize;
            out.reserve(count);
            while out.len() < count {
                for _ in out.len()..count {
                    out.push(rng.below(range));
                }
                out.sort_unstable();
                out.dedup();
            }
        }
    }
}

impl Blocks for ErBlocks {
    type Task = ErTask;
    /// Pending chunk ranges `(lo, hi, count)`, the next one on top.
    type Cursor = Vec<(u64, u64, u64)>;

    fn start(&self) -> Self::Cursor {
        if self.chunks == 0 {
            Vec::new()
        } else {
            vec![(0, self.chunks, self.m)]
        }
    }

    fn plan(&self, cursor: &mut Self::Cursor, max: usize, out: &mut Vec<ErTask>) {
        while out.len() < max {
            let Some((lo, hi, count)) = cursor.pop() else {
                return;
            };
            if count == 0 {
                continue;
            }
            if hi - lo == 1 {
                out.push(ErTask { chunk: lo, count });
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let start = self.chunk_start(lo);
            let range = self.chunk_start(hi) - start;
            let left = self.chunk_start(mid) - start;
            let mut rng = Xoshiro256::for_block(self.seed, stream::ER_TREE ^ mix64(hi), lo);
            let in_left = hypergeometric(&mut rng, range, left, count);
            cursor.push((mid, hi, count - in_left));
            cursor.push((lo, mid, in_left));
        }
    }

    fn run(&self, task: &ErTask, out: &mut Vec<RawEdge>) {
        let start = self.chunk_start(task.chunk);
        let range = self.chunk_start(task.chunk + 1) - start;
        let mut rng = Xoshiro256::for_block(self.seed, stream::ER_CHUNK, task.chunk);
        let mut offsets = Vec::new();
        Self::pick(&mut rng, range, task.count, &mut offsets);
        out.reserve(offsets.len());
        out.extend(offsets.iter().map(|&o| {
            let (src, dst) = self.unrank(start + o);
            RawEdge {
                src,
                dst,
                weight: 1.0,
            }
        }));
        if self.weighted {
            let mut wr = Xoshiro256::for_block(self.seed, stream::ER_WEIGHT, task.chunk);
            for e in out.iter_mut() {
                e.weight = wr.next_f64();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn collect(g: &ErBlocks) -> Vec<RawEdge> {
        let mut cursor = g.start();
        let mut tasks = Vec::new();
        let mut all = Vec::new();
        loop {
            tasks.clear();
            g.plan(&mut cursor, 3, &mut tasks);
            if tasks.is_empty() {
                return all;
            }
            for t in &tasks {
                let mut v = Vec::new();
                g.run(t, &mut v);
                assert_eq!(v.len() as u64, t.count);
                all.extend(v);
            }
        }
    }

    fn check_exact(n: u64, m: u64, directed: bool, seed: u64) -> Vec<RawEdge> {
        let g = ErBlocks::new(n, m, directed, seed, false);
        let e = collect(&g);
        assert_eq!(e.len() as u64, m, "n {n} m {m} directed {directed}");
        let mut seen = HashSet::new();
        for x in &e {
            assert!(x.src < n && x.dst < n);
            assert_ne!(x.src, x.dst, "self-loop");
            let key = if directed {
                (x.src, x.dst)
            } else {
                assert!(x.src < x.dst);
                (x.src, x.dst)
            };
            assert!(seen.insert(key), "duplicate {key:?}");
        }
        e
    }

    #[test]
    fn unrank_is_a_bijection() {
        for directed in [true, false] {
            for n in [2u64, 3, 7, 40] {
                let g = ErBlocks::new(n, 1, directed, 1, false);
                let mut seen = HashSet::new();
                for i in 0..g.pairs {
                    let (u, v) = g.unrank(i);
                    assert!(u < n && v < n && u != v);
                    if !directed {
                        assert!(u < v);
                        assert_eq!(v * (v - 1) / 2 + u, i);
                    }
                    assert!(seen.insert((u, v)));
                }
            }
        }
        // Far out in a huge undirected index space.
        let n = (1u64 << 32) - 1;
        let g = ErBlocks::new(n, 1, false, 1, false);
        for i in [
            g.pairs - 1,
            g.pairs - 2,
            g.pairs / 2,
            1 << 60,
            (1 << 53) + 1,
        ] {
            let (u, v) = g.unrank(i);
            assert!(u < v && v < n);
            assert_eq!(v as u128 * (v as u128 - 1) / 2 + u as u128, i as u128);
        }
        let g = ErBlocks::new(n, 1, true, 1, false);
        assert_eq!(g.unrank(g.pairs - 1), (n - 1, n - 2));
    }

    #[test]
    fn exact_counts_distinct_no_loops() {
        for directed in [true, false] {
            check_exact(10, 0, directed, 1);
            check_exact(2, 1, directed, 1);
            let all = possible_pairs(6, directed) as u64;
            check_exact(6, all, directed, 1);
            check_exact(6, all - 1, directed, 2);
            check_exact(100, 1000, directed, 3);
            // Several chunks, sparse path.
            check_exact(3000, 300_000, directed, 4);
            // Several chunks, dense (selection sampling) path.
            check_exact(
                700,
                possible_pairs(700, directed) as u64 * 3 / 4,
                directed,
                5,
            );
        }
        let e = check_exact(1, 0, true, 1);
        assert!(e.is_empty());
    }

    #[test]
    fn roughly_uniform() {
        // Directed: out-degrees. Undirected: degrees. Chi-square against the mean.
        for directed in [true, false] {
            let n = 1000u64;
            let m = 200_000u64; // several chunks
            let e = check_exact(n, m, directed, 9);
            let mut counts = vec![0u64; n as usize];
            for x in &e {
                counts[x.src as usize] += 1;
                if !directed {
                    counts[x.dst as usize] += 1;
                }
            }
            let expected = counts.iter().sum::<u64>() as f64 / n as f64;
            let chi: f64 = counts
                .iter()
                .map(|&c| (c as f64 - expected).powi(2) / expected)
                .sum();
            let dof = (n - 1) as f64;
            // Without replacement the variance is smaller than multinomial's; 5 sd is generous.
            assert!(chi < dof + 5.0 * (2.0 * dof).sqrt(), "chi2 {chi} dof {dof}");
            // And not suspiciously flat either (m is well below the number of pairs).
            assert!(chi > dof * 0.2, "chi2 {chi} dof {dof}");
            // The chunk boundaries do not show: the pair-index space halves hold about m/2 each.
            let g = ErBlocks::new(n, m, directed, 9, false);
            let half = g.pairs / 2;
            let first = e
                .iter()
                .filter(|x| {
                    let i = if directed {
                        x.src * (n - 1) + x.dst - (x.dst > x.src) as u64
                    } else {
                        x.dst * (x.dst - 1) / 2 + x.src
                    };
                    i < half
                })
                .count() as f64;
            let sd = (m as f64 * 0.25).sqrt();
            assert!((first - m as f64 / 2.0).abs() < 5.0 * sd, "{first}");
        }
    }

    #[test]
    fn order_is_pair_index_order_and_weights() {
        let g = ErBlocks::new(500, 100_000, true, 3, true);
        let e = collect(&g);
        assert!(e
            .windows(2)
            .all(|w| (w[0].src, w[0].dst) < (w[1].src, w[1].dst)));
        assert!(e.iter().all(|x| (0.0..1.0).contains(&x.weight)));
        let e2 = collect(&ErBlocks::new(500, 100_000, true, 3, false));
        assert!(e
            .iter()
            .zip(&e2)
            .all(|(a, b)| (a.src, a.dst) == (b.src, b.dst)));
        let e3 = collect(&ErBlocks::new(500, 100_000, true, 4, false));
        assert!(e2
            .iter()
            .zip(&e3)
            .any(|(a, b)| (a.src, a.dst) != (b.src, b.dst)));
    }

    #[test]
    fn huge_sparse_space() {
        // n close to 2^32: index space ~2^64; a few edges, exact count, distinct.
        let n = (1u64 << 32) - 1;
        for directed in [true, false] {
            let g = ErBlocks::new(n, 200_000, directed, 1, false);
            let e = collect(&g);
            assert_eq!(e.len(), 200_000);
            let set: HashSet<(u64, u64)> = e.iter().map(|x| (x.src, x.dst)).collect();
            assert_eq!(set.len(), 200_000);
            assert!(e.iter().all(|x| x.src < n && x.dst < n && x.src != x.dst));
        }
    }
}
