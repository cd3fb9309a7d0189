//! Lane-parallel Kronecker sampling: a full block's random stream cut into
//! [`LANES`] consecutive pieces, each lane's generator moved to its piece's
//! first draw by a jump ([`super::super::jump`]), and the lanes stepped in
//! lock step so the compiler keeps their xoshiro states, level thresholds
//! and scrambles in vector registers (AVX-512 or AVX2, chosen at run time;
//! elsewhere the target's baseline vectors, except on x86-64 where SSE2
//! loses to the one-by-one loop). Lane `l` writes the `l`-th piece of the
//! block, so the block holds exactly the edges the one-by-one loop
//! ([`KronBlocks::sample`]) gives: the same graph for the same seed.
//!
//! Scale 24, one core: 40 ns an edge one by one, 9.7 with AVX-512 and 14.6
//! with AVX2. Sixteen lanes make two independent chains of eight per
//! AVX-512 step; eight lanes took 10.7 and 22.8.

#![allow(clippy::needless_range_loop)] // lanes index several arrays at once

use super::{KronBlocks, Scramble};
use crate::base::rng::Xoshiro256;
use crate::gen::jump::{jump, steps, Poly};
use crate::ingest::RawEdge;

/// Lanes a block is cut into.
pub(super) const LANES: usize = 16;

type V = [u64; LANES];

/// Where each lane starts in a block of `edges` edges: lane `l` skips
/// `l * edges / LANES` edges of `draws` random words each.
pub(super) struct LaneJumps {
    by: Vec<Poly>,
    /// Edges per lane.
    per: usize,
}

impl LaneJumps {
    pub fn new(draws: u64, edges: usize) -> LaneJumps {
        let per = edges / LANES;
        LaneJumps {
            by: (1..LANES as u64)
                .map(|l| steps(l * per as u64 * draws))
                .collect(),
            per,
        }
    }
}

/// What the lanes' loop reads, copied out of [`KronBlocks`].
#[derive(Clone, Copy)]
struct Params {
    scale: u32,
    /// Thresholds (on a 32-bit half of a draw) as i64: below 2^32, so a
    /// signed compare is exact, which AVX2 has for 64-bit lanes.
    t_a: i64,
    t_ab: i64,
    t_abc: i64,
}

/// The instruction sets the lanes' loop is compiled for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Isa {
    Avx512,
    Avx2,
    /// Whatever the target's baseline is.
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    Baseline,
}

impl Isa {
    /// The best this CPU runs, if the lanes beat the one-by-one loop here.
    pub fn detect() -> Option<Isa> {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512bw")
            {
                return Some(Isa::Avx512);
            }
            if is_x86_feature_detected!("avx2") {
                return Some(Isa::Avx2);
            }
            None
        }
        #[cfg(not(target_arch = "x86_64"))]
        Some(Isa::Baseline)
    }

    /// Every set this CPU runs (for tests).
    #[cfg(test)]
    pub fn available() -> Vec<Isa> {
        match Isa::detect() {
            Some(Isa::Avx512) => vec![Isa::Avx512, Isa::Avx2, Isa::Baseline],
            Some(Isa::Avx2) => vec![Isa::Avx2, Isa::Baseline],
            _ => vec![Isa::Baseline],
        }
    }
}

/// Fills `out` (empty) with the `LANES * jumps.per` edges of the block
/// whose stream starts at `rng`, unweighted, with the loop compiled for `isa`
/// (which this CPU must run).
pub(super) fn block(
    g: &KronBlocks,
    jumps: &LaneJumps,
    rng: &Xoshiro256,
    out: &mut Vec<RawEdge>,
    isa: Isa,
) {
    let per = jumps.per;
    let mut st: [V; 4] = [[0; LANES]; 4];
    for l in 0..LANES {
        let lane = match l {
            0 => rng.clone(),
            _ => jump(rng, &jumps.by[l - 1]),
        };
        for (w, x) in lane.state().into_iter().enumerate() {
            st[w][l] = x;
        }
    }
    let p = Params {
        scale: g.scale,
        t_a: g.t_a32 as i64,
        t_ab: g.t_ab32 as i64,
        t_abc: g.t_abc32 as i64,
    };
    out.resize(
        LANES * per,
        RawEdge {
            src: 0,
            dst: 0,
            weight: 1.0,
        },
    );
    let sc = &g.scramble;
    match isa {
        // SAFETY: `isa` is one this CPU runs (`Isa::detect`).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { fill_avx512(p, sc, &mut st, out, per) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { fill_avx2(p, sc, &mut st, out, per) },
        _ => fill(p, sc, &mut st, out, per),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
unsafe fn fill_avx512(p: Params, sc: &Scramble, st: &mut [V; 4], out: &mut [RawEdge], per: usize) {
    fill(p, sc, st, out, per)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2(p: Params, sc: &Scramble, st: &mut [V; 4], out: &mut [RawEdge], per: usize) {
    fill(p, sc, st, out, per)
}

/// The lanes' loop; inlined into each target's copy.
#[inline(always)]
fn fill(p: Params, sc: &Scramble, st: &mut [V; 4], out: &mut [RawEdge], per: usize) {
    let mut s: V = [0; LANES];
    let mut d: V = [0; LANES];
    for j in 0..per {
        s.fill(0);
        d.fill(0);
        for _ in 0..p.scale / 2 {
            let r = next(st);
            for l in 0..LANES {
                let (s0, d0) = bits(&p, (r[l] & 0xFFFF_FFFF) as i64);
                let (s1, d1) = bits(&p, (r[l] >> 32) as i64);
                s[l] = (s[l] << 2) | (s0 << 1) | s1;
                d[l] = (d[l] << 2) | (d0 << 1) | d1;
            }
        }
        if p.scale % 2 == 1 {
            let r = next(st);
            for l in 0..LANES {
                let (s0, d0) = bits(&p, (r[l] >> 32) as i64);
                s[l] = (s[l] << 1) | s0;
                d[l] = (d[l] << 1) | d0;
            }
        }
        for l in 0..LANES {
            s[l] = sc.apply(s[l]);
            d[l] = sc.apply(d[l]);
        }
        for l in 0..LANES {
            let e = &mut out[l * per + j];
            e.src = s[l];
            e.dst = d[l];
        }
    }
}

/// One quadrant choice: (source bit, destination bit), as
/// [`KronBlocks::sample`] makes it.
#[inline(always)]
fn bits(p: &Params, r: i64) -> (u64, u64) {
    let sb = r >= p.t_ab;
    let db = (r >= p.t_abc) | ((r >= p.t_a) & !sb);
    (sb as u64, db as u64)
}

/// xoshiro256** on every lane (as [`Xoshiro256::next_u64`]).
#[inline(always)]
fn next(st: &mut [V; 4]) -> V {
    let mut r = [0u64; LANES];
    for l in 0..LANES {
        let s1 = st[1][l];
        let x = (s1 << 2).wrapping_add(s1).rotate_left(7);
        r[l] = (x << 3).wrapping_add(x);
        let t = s1 << 17;
        st[2][l] ^= st[0][l];
        st[3][l] ^= s1;
        st[1][l] ^= st[2][l];
        st[0][l] ^= st[3][l];
        st[2][l] ^= t;
        st[3][l] = st[3][l].rotate_left(45);
    }
    r
}
