//! Graph500 Kronecker and R-MAT generators.
//!
//! Each of `edge_factor * 2^scale` samples picks one quadrant of the adjacency
//! matrix at each of `scale` levels with probabilities `a, b, c, d`
//! (Graph500: 0.57, 0.19, 0.19, 0.05): the source bit is 1 with probability
//! `c + d`, the destination bit given the source bit follows (Graph500's
//! `kronecker_generator.m`). Each level compares one 32-bit half of a random
//! u64 with integer thresholds (probabilities resolved to 2^-32), so no
//! floating point and no branch runs in the inner loop.
//! Vertex ids are then scrambled by a seed-derived bijection of `[0, 2^scale)`
//! (add, multiply by an odd constant and reverse the bits, two rounds, as
//! Graph500's `scramble`), so ids are not ordered by degree.

use super::par::{NumberedBlocks, BLOCK_EDGES};
use crate::base::rng::{hash3, stream, SplitMix64, Xoshiro256};
use crate::ingest::RawEdge;
use lanes::{Isa, LaneJumps};

/// The Graph500 initiator.
pub(crate) const GRAPH500_ABC: (f64, f64, f64) = (0.57, 0.19, 0.19);

/// `p * 2^64`, saturating; `p` in `[0, 1]`.
fn threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// `p * 2^32`, saturating: a uniform u32 `r` has `P(r < threshold32(p)) = p` within 2^-32.
fn threshold32(p: f64) -> u32 {
    (threshold(p) >> 32) as u32
}

/// A seed-derived bijection of `[0, 2^scale)`.
#[derive(Clone, Debug)]
pub(crate) struct Scramble {
    scale: u32,
    mask: u64,
    add: [u64; 2],
    mul: [u64; 2],
}

impl Scramble {
    pub fn new(seed: u64, scale: u32) -> Scramble {
        let mut sm = SplitMix64::new(hash3(seed, stream::SCRAMBLE, scale as u64));
        let mut add = [0; 2];
        let mut mul = [0; 2];
        for i in 0..2 {
            add[i] = sm.next_u64();
            mul[i] = sm.next_u64() | 1;
        }
        let mask = if scale >= 64 {
            u64::MAX
        } else {
            (1u64 << scale) - 1
        };
        Scramble {
            scale,
            mask,
            add,
            mul,
        }
    }

    /// The image of `v < 2^scale`.
    #[inline]
    pub fn apply(&self, v: u64) -> u64 {
        if self.scale == 0 {
            return 0;
        }
        let shift = 64 - self.scale;
        let mut v = v;
        for i in 0..2 {
            // Both steps only let low bits influence high bits, so each is a
            // bijection of the low `scale` bits; the reversal then moves the
            // well-mixed high bits down.
            v = (v.wrapping_add(self.add[i]).wrapping_mul(self.mul[i])) & self.mask;
            v = v.reverse_bits() >> shift;
        }
        v
    }
}

/// The Kronecker / R-MAT block generator.
pub(crate) struct KronBlocks {
    scale: u32,
    samples: u64,
    seed: u64,
    edge_stream: u64,
    weight_stream: u64,
    weighted: bool,
    /// Thresholds for `a`, `a + b`, `a + b + c` on a uniform u32.
    t_a32: u32,
    t_ab32: u32,
    t_abc32: u32,
    scramble: Scramble,
    /// Where the lanes of a full block start ([`lanes`]).
    lanes: LaneJumps,
    /// `None`: full blocks too go one by one.
    isa: Option<Isa>,
}

mod lanes;

impl KronBlocks {
    /// `rmat` selects the R-MAT random streams (so kron and rmat with equal
    /// parameters still differ, as their kinds do).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rmat: bool,
        scale: u32,
        edge_factor: u64,
        a: f64,
        b: f64,
        c: f64,
        seed: u64,
        weighted: bool,
    ) -> KronBlocks {
        let (edge_stream, weight_stream) = if rmat {
            (stream::RMAT, stream::RMAT_WEIGHT)
        } else {
            (stream::KRON, stream::KRON_WEIGHT)
        };
        KronBlocks {
            scale,
            samples: edge_factor << scale,
            seed,
            edge_stream,
            weight_stream,
            weighted,
            t_a32: threshold32(a),
            t_ab32: threshold32(a + b),
            t_abc32: threshold32(a + b + c),
            scramble: Scramble::new(seed, scale),
            lanes: LaneJumps::new((scale / 2 + scale % 2) as u64, BLOCK_EDGES as usize),
            isa: Isa::detect(),
        }
    }

    /// One sample's (unscrambled) endpoints: one 32-bit half of a random
    /// u64 per level, so probabilities are resolved to 2^-32 (Graph500's
    /// reference code resolves them to 10^-4).
    #[inline]
    fn sample(&self, rng: &mut Xoshiro256) -> (u64, u64) {
        let (t_a, t_ab, t_abc) = (self.t_a32, self.t_ab32, self.t_abc32);
        let (mut s, mut d) = (0u64, 0u64);
        // Quadrants: [0, t_a) = (0,0), [t_a, t_ab) = (0,1), [t_ab, t_abc) = (1,0),
        // [t_abc, 2^32) = (1,1). Branch-free: the bits are unpredictable.
        let bits = |r: u32| {
            let sb = r >= t_ab;
            let db = (r >= t_abc) | ((r >= t_a) & !sb);
            (sb as u64, db as u64)
        };
        for _ in 0..self.scale / 2 {
            let r = rng.next_u64();
            let (s0, d0) = bits(r as u32);
            let (s1, d1) = bits((r >> 32) as u32);
            s = (s << 2) | (s0 << 1) | s1;
            d = (d << 2) | (d0 << 1) | d1;
        }
        if self.scale % 2 == 1 {
            let (s0, d0) = bits((rng.next_u64() >> 32) as u32);
            s = (s << 1) | s0;
            d = (d << 1) | d0;
        }
        (s, d)
    }
}

impl NumberedBlocks for KronBlocks {
    fn num_blocks(&self) -> u64 {
        self.samples.div_ceil(BLOCK_EDGES)
    }

    fn run_block(&self, block: u64, out: &mut Vec<RawEdge>) {
        let first = block * BLOCK_EDGES;
        let count = (self.samples - first).min(BLOCK_EDGES) as usize;
        let mut rng = Xoshiro256::for_block(self.seed, self.edge_stream, block);
        match self.isa {
            Some(isa) if count == BLOCK_EDGES as usize => {
                lanes::block(self, &self.lanes, &rng, out, isa)
            }
            _ => self.scalar(&mut rng, count, out),
        }
        if self.weighted {
            let mut wr = Xoshiro256::for_block(self.seed, self.weight_stream, block);
            for e in out.iter_mut() {
                e.weight = wr.next_f64();
            }
        }
    }
}

impl KronBlocks {
    /// `count` edges one after another from `rng` (a block's tail, or a
    /// block too short to cut into lanes).
    fn scalar(&self, rng: &mut Xoshiro256, count: usize, out: &mut Vec<RawEdge>) {
        out.reserve(count);
        for _ in 0..count {
            let (s, d) = self.sample(rng);
            out.push(RawEdge {
                src: self.scramble.apply(s),
                dst: self.scramble.apply(d),
                weight: 1.0,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(g: &KronBlocks) -> Vec<RawEdge> {
        crate::gen::par::collect_all(g)
    }

    /// The lanes give every full block exactly the edges the one-by-one
    /// loop gives, whatever the scale's parity, the initiator and the block.
    #[test]
    fn lanes_give_the_scalar_stream() {
        for (rmat, scale, seed) in [
            (false, 1, 1),
            (false, 2, 7),
            (true, 5, 3),
            (false, 24, 1),
            (true, 31, 9),
        ] {
            let (a, b, c) = if rmat {
                (0.45, 0.25, 0.15)
            } else {
                GRAPH500_ABC
            };
            // Six full blocks at least.
            let factor = ((6 * BLOCK_EDGES) >> scale).max(16);
            let mut g = KronBlocks::new(rmat, scale, factor, a, b, c, seed, false);
            for isa in Isa::available() {
                g.isa = Some(isa);
                for block in [0u64, 5] {
                    let mut lanes = Vec::new();
                    g.run_block(block, &mut lanes);
                    assert_eq!(lanes.len(), BLOCK_EDGES as usize);
                    let mut scalar = Vec::new();
                    let mut rng = Xoshiro256::for_block(seed, g.edge_stream, block);
                    g.scalar(&mut rng, BLOCK_EDGES as usize, &mut scalar);
                    let first_diff = lanes.iter().zip(&scalar).position(|(x, y)| x != y);
                    assert_eq!(first_diff, None, "{isa:?} scale {scale} block {block}");
                }
            }
        }
    }

    #[test]
    fn scramble_is_a_bijection() {
        for scale in 0..=16u32 {
            for seed in [1u64, 2, 12345] {
                let s = Scramble::new(seed, scale);
                let n = 1usize << scale;
                let mut seen = vec![false; n];
                for v in 0..n as u64 {
                    let w = s.apply(v);
                    assert!(w < n as u64, "scale {scale}: {v} -> {w}");
                    assert!(!seen[w as usize], "scale {scale}: {w} hit twice");
                    seen[w as usize] = true;
                }
            }
        }
        // Not the identity, and seed-dependent.
        let s1 = Scramble::new(1, 10);
        let s2 = Scramble::new(2, 10);
        assert!((0..1024).any(|v| s1.apply(v) != v));
        assert!((0..1024).any(|v| s1.apply(v) != s2.apply(v)));
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(1.0), u64::MAX);
        assert_eq!(threshold(0.5), 1 << 63);
        assert_eq!(threshold32(0.5), 1 << 31);
        assert_eq!(threshold32(1.0), u32::MAX);
        assert_eq!(threshold32(0.0), 0);
    }

    #[test]
    fn quadrant_frequencies_match_the_initiator() {
        // Scale 1, no scramble effect on counts of (s, d) classes.
        let (a, b, c) = (0.5, 0.2, 0.2);
        let g = KronBlocks::new(true, 1, 100_000, a, b, c, 3, false);
        let mut rng = Xoshiro256::from_seed(5);
        let mut q = [0u32; 4];
        for _ in 0..200_000 {
            let (s, d) = g.sample(&mut rng);
            q[(s * 2 + d) as usize] += 1;
        }
        let want = [a, b, c, 1.0 - a - b - c];
        for i in 0..4 {
            let f = q[i] as f64 / 200_000.0;
            assert!((f - want[i]).abs() < 0.005, "{q:?}");
        }
    }

    #[test]
    fn ids_in_range_and_counts() {
        let (a, b, c) = GRAPH500_ABC;
        let g = KronBlocks::new(false, 10, 3, a, b, c, 1, true);
        let e = collect(&g);
        assert_eq!(e.len(), 3 << 10);
        for x in &e {
            assert!(x.src < 1024 && x.dst < 1024);
            assert!((0.0..1.0).contains(&x.weight));
        }
        // Weighted and unweighted runs have the same endpoints.
        let g2 = KronBlocks::new(false, 10, 3, a, b, c, 1, false);
        let e2 = collect(&g2);
        assert!(e
            .iter()
            .zip(&e2)
            .all(|(x, y)| x.src == y.src && x.dst == y.dst));
        assert!(e2.iter().all(|x| x.weight == 1.0));
    }

    #[test]
    fn degree_distribution_is_heavy_tailed() {
        let (a, b, c) = GRAPH500_ABC;
        let scale = 14;
        let g = KronBlocks::new(false, scale, 16, a, b, c, 1, false);
        let n = 1usize << scale;
        let mut deg = vec![0u64; n];
        for e in collect(&g) {
            deg[e.src as usize] += 1;
            deg[e.dst as usize] += 1;
        }
        let mean = deg.iter().sum::<u64>() as f64 / n as f64;
        let max = *deg.iter().max().unwrap() as f64;
        let below = deg.iter().filter(|&&d| (d as f64) < mean).count();
        assert!(max > 20.0 * mean, "max {max} mean {mean}");
        assert!(
            below as f64 > 0.6 * n as f64,
            "{below} of {n} below the mean"
        );
        // The hubs are spread out by the scramble, not packed at low ids.
        let top = deg.iter().enumerate().max_by_key(|(_, &d)| d).unwrap().0;
        assert_ne!(top, 0);
    }
}
