//! Jump-ahead for xoshiro256 by any number of steps, so one block's random
//! stream can be cut into lanes generated side by side (`kron_lanes.rs`)
//! and still give exactly the numbers the stream gives one after another.
//!
//! The generator's step is a linear map `T` of its 256 state bits over
//! GF(2) (Blackman and Vigna's xoshiro jump functions rest on the same
//! fact). Its characteristic polynomial `P` (degree 256, primitive) is
//! found once by Berlekamp-Massey from 512 output bits; `x^k mod P =
//! sum r_i x^i` then gives `T^k = sum r_i T^i` (Cayley-Hamilton), so the
//! state `k` steps ahead is the XOR of the states `i` steps ahead for every
//! `r_i = 1`: 256 steps whatever `k` is.

use crate::base::rng::Xoshiro256;
use std::sync::OnceLock;

/// A polynomial over GF(2) of degree below 256: bit `i` is the coefficient of `x^i`.
pub(crate) type Poly = [u64; 4];

fn bit(p: &Poly, i: usize) -> bool {
    p[i / 64] >> (i % 64) & 1 == 1
}

/// The low 256 coefficients of `P` (its `x^256` term is implied).
fn characteristic() -> &'static Poly {
    static P: OnceLock<Poly> = OnceLock::new();
    P.get_or_init(|| {
        // Any nonzero linear function of the state (here its lowest bit;
        // not of the output, which the ** scrambler makes nonlinear) has P
        // as its minimal polynomial, P being irreducible.
        let mut g = Xoshiro256::from_state([1, 2, 3, 4]);
        let seq: Vec<bool> = (0..512)
            .map(|_| {
                g.next_u64();
                g.state()[0] & 1 == 1
            })
            .collect();
        let c = berlekamp_massey(&seq);
        assert_eq!(c.len(), 257, "xoshiro256's linear complexity is 256");
        // Connection polynomial 1 + c1 x + ... + c256 x^256 -> its
        // reciprocal x^256 + c1 x^255 + ... + c256.
        let mut p = [0u64; 4];
        for (i, &ci) in c.iter().enumerate().skip(1) {
            if ci {
                let e = 256 - i;
                p[e / 64] |= 1 << (e % 64);
            }
        }
        p
    })
}

/// The shortest connection polynomial `C` (coefficients from `x^0`) with
/// `s[n] = sum_{i>=1} C[i] s[n - i]` for every `n` the sequence allows.
fn berlekamp_massey(s: &[bool]) -> Vec<bool> {
    let (mut c, mut b) = (vec![true], vec![true]);
    let (mut len, mut m) = (0usize, 1usize);
    for n in 0..s.len() {
        let mut d = s[n];
        for i in 1..=len {
            d ^= c.get(i).copied().unwrap_or(false) & s[n - i];
        }
        if !d {
            m += 1;
            continue;
        }
        let t = c.clone();
        if c.len() < b.len() + m {
            c.resize(b.len() + m, false);
        }
        for (i, &bi) in b.iter().enumerate() {
            c[i + m] ^= bi;
        }
        if 2 * len <= n {
            len = n + 1 - len;
            b = t;
            m = 1;
        } else {
            m += 1;
        }
    }
    c.truncate(len + 1);
    c
}

/// `a * x mod P`.
fn times_x(a: &Poly, p: &Poly) -> Poly {
    let carry = a[3] >> 63;
    let mut r = [
        a[0] << 1,
        a[1] << 1 | a[0] >> 63,
        a[2] << 1 | a[1] >> 63,
        a[3] << 1 | a[2] >> 63,
    ];
    if carry == 1 {
        for (x, y) in r.iter_mut().zip(p) {
            *x ^= y;
        }
    }
    r
}

/// `a * b mod P`.
fn mul_mod(a: &Poly, b: &Poly, p: &Poly) -> Poly {
    let (mut acc, mut a) = ([0u64; 4], *a);
    for i in 0..256 {
        if bit(b, i) {
            for (x, y) in acc.iter_mut().zip(&a) {
                *x ^= y;
            }
        }
        a = times_x(&a, p);
    }
    acc
}

/// `x^k mod P`: what [`jump`] needs to move a state `k` steps ahead.
pub(crate) fn steps(k: u64) -> Poly {
    let p = characteristic();
    let (mut r, mut base) = ([1u64, 0, 0, 0], [2u64, 0, 0, 0]);
    let mut k = k;
    while k > 0 {
        if k & 1 == 1 {
            r = mul_mod(&r, &base, p);
        }
        base = mul_mod(&base, &base, p);
        k >>= 1;
    }
    r
}

/// The state of `g` after as many steps as `by` (from [`steps`]) stands for.
pub(crate) fn jump(g: &Xoshiro256, by: &Poly) -> Xoshiro256 {
    let mut st = g.clone();
    let mut acc = [0u64; 4];
    for i in 0..256 {
        if bit(by, i) {
            for (x, y) in acc.iter_mut().zip(st.state()) {
                *x ^= y;
            }
        }
        st.next_u64();
    }
    Xoshiro256::from_state(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_lands_where_stepping_does() {
        let mut seeds = Xoshiro256::from_seed(9);
        for k in [0u64, 1, 2, 255, 256, 257, 1000, 4097, 98_304, 1 << 20] {
            let start = Xoshiro256::from_seed(seeds.next_u64());
            let mut stepped = start.clone();
            for _ in 0..k {
                stepped.next_u64();
            }
            let jumped = jump(&start, &steps(k));
            assert_eq!(jumped.state(), stepped.state(), "k = {k}");
        }
    }

    #[test]
    fn the_polynomial_is_xoshiros() {
        // x^(2^256 - 1) = 1 for a primitive P of degree 256; checked via
        // x^(2^256) = x: 256 squarings of x.
        let p = characteristic();
        let mut r = [2u64, 0, 0, 0];
        for _ in 0..256 {
            r = mul_mod(&r, &r, p);
        }
        assert_eq!(r, [2, 0, 0, 0]);
        // And the reference implementation's own JUMP (2^128 steps).
        let jump128: Poly = [
            0x180e_c6d3_3cfd_0aba,
            0xd5a6_1266_f0c9_392c,
            0xa958_2618_e03f_c9aa,
            0x39ab_dc45_29b1_661c,
        ];
        let mut r = [2u64, 0, 0, 0];
        for _ in 0..128 {
            r = mul_mod(&r, &r, p);
        }
        assert_eq!(r, jump128);
    }
}
