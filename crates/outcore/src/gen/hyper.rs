//! An exact hypergeometric sampler for populations up to `2^64 - 1`.
//!
//! `hypergeometric(total, good, draws)` is the number of good items among
//! `draws` taken without replacement from `total` items of which `good` are
//! good. Small draw counts are simulated item by item with exact integer
//! randoms. Otherwise the sampler inverts the distribution function: the
//! probabilities relative to the mode follow from the exact ratio
//! `p(k+1)/p(k) = (good-k)(draws-k) / ((k+1)(total-good-draws+k+1))`,
//! the support is walked outwards from the mode until the relative
//! probability falls below 1e-20 (the mass left out is far below the 2^-53
//! resolution of the uniform variate), and a uniform variate is located in
//! the cumulative sums. Only `+ * /` on IEEE doubles are used (no `ln`/`exp`
//! from the platform's libm), so draws are bit-identical on every machine.
//! The cost is proportional to the standard deviation, which is fine for the
//! `log K`-level splitting tree of the G(n, m) generator.

use crate::base::rng::Xoshiro256;

/// Draw counts up to this are simulated directly.
const DIRECT_MAX: u64 = 24;
/// Relative probability at which the walk away from the mode stops.
const TAIL: f64 = 1e-20;

/// Number of good items among `draws` drawn from `total` with `good` good ones.
pub(crate) fn hypergeometric(rng: &mut Xoshiro256, total: u64, good: u64, draws: u64) -> u64 {
    debug_assert!(good <= total && draws <= total);
    if draws == 0 || good == 0 {
        return 0;
    }
    if good == total {
        return draws;
    }
    if draws == total {
        return good;
    }
    // Good items among the drawn = good - good items among the not drawn.
    if draws > total / 2 {
        return good - hypergeometric(rng, total, good, total - draws);
    }
    // Good items among the drawn = draws - bad items among the drawn.
    if good > total / 2 {
        return draws - hypergeometric(rng, total, total - good, draws);
    }
    if draws <= DIRECT_MAX {
        direct(rng, total, good, draws)
    } else {
        inversion(rng, total, good, draws)
    }
}

/// Draws items one by one: exact, O(draws).
fn direct(rng: &mut Xoshiro256, total: u64, good: u64, draws: u64) -> u64 {
    let (mut rem_total, mut rem_good, mut k) = (total, good, 0);
    for _ in 0..draws {
        if rem_good == 0 {
            break;
        }
        if rng.below(rem_total) < rem_good {
            k += 1;
            rem_good -= 1;
        }
        rem_total -= 1;
    }
    k
}

/// The pmf ratios of one hypergeometric distribution.
struct Pmf {
    good: u64,
    draws: u64,
    /// `total - good`: the bad items.
    bad: u64,
}

impl Pmf {
    /// `p(k+1) / p(k)`, for `k < hi`.
    #[inline]
    fn up(&self, k: u64) -> f64 {
        // bad - (draws - k - 1) >= 1 because k + 1 >= lo.
        let num = (self.good - k) as f64 * (self.draws - k) as f64;
        let den = (k + 1) as f64 * (self.bad - (self.draws - k - 1)) as f64;
        num / den
    }

    /// `p(k-1) / p(k)`, for `k > lo`.
    #[inline]
    fn down(&self, k: u64) -> f64 {
        let num = k as f64 * (self.bad - (self.draws - k)) as f64;
        let den = (self.good - k + 1) as f64 * (self.draws - k + 1) as f64;
        num / den
    }
}

fn inversion(rng: &mut Xoshiro256, total: u64, good: u64, draws: u64) -> u64 {
    let bad = total - good;
    let lo = draws.saturating_sub(bad);
    let hi = draws.min(good);
    let mode = ((draws as u128 + 1) * (good as u128 + 1) / (total as u128 + 2)) as u64;
    let mode = mode.clamp(lo, hi);
    let pmf = Pmf { good, draws, bad };

    // Pass 1: the (truncated) total mass relative to p(mode) = 1, summed in a
    // fixed order: the upper side, then the lower side.
    let mut sum_up = 0.0;
    let (mut k, mut w) = (mode, 1.0f64);
    while k < hi {
        w *= pmf.up(k);
        k += 1;
        if w < TAIL {
            break;
        }
        sum_up += w;
    }
    let mut sum_down = 0.0;
    let (mut k, mut w) = (mode, 1.0f64);
    while k > lo {
        w *= pmf.down(k);
        k -= 1;
        if w < TAIL {
            break;
        }
        sum_down += w;
    }
    let total_mass = 1.0 + sum_up + sum_down;

    // Pass 2: invert, visiting mode, mode+1, mode-1, mode+2, mode-2, ...
    let mut u = rng.next_f64() * total_mass;
    u -= 1.0;
    if u < 0.0 {
        return mode;
    }
    let (mut ku, mut wu, mut up_open) = (mode, 1.0f64, mode < hi);
    let (mut kd, mut wd, mut down_open) = (mode, 1.0f64, mode > lo);
    while up_open || down_open {
        if up_open {
            wu *= pmf.up(ku);
            ku += 1;
            if wu < TAIL {
                up_open = false;
            } else {
                u -= wu;
                if u < 0.0 {
                    return ku;
                }
                up_open = ku < hi;
            }
        }
        if down_open {
            wd *= pmf.down(kd);
            kd -= 1;
            if wd < TAIL {
                down_open = false;
            } else {
                u -= wd;
                if u < 0.0 {
                    return kd;
                }
                down_open = kd > lo;
            }
        }
    }
    // Only reachable through rounding in the sums (probability ~1e-16).
    mode
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact pmf by the product formula in f64 (small cases only).
    fn exact_pmf(total: u64, good: u64, draws: u64) -> Vec<f64> {
        let lo = draws.saturating_sub(total - good);
        let hi = draws.min(good);
        let mut w = vec![0.0; (hi + 1) as usize];
        // p(lo) relative 1, then ratios.
        let pmf = Pmf {
            good,
            draws,
            bad: total - good,
        };
        let mut cur = 1.0;
        w[lo as usize] = 1.0;
        for k in lo..hi {
            cur *= pmf.up(k);
            w[(k + 1) as usize] = cur;
        }
        let s: f64 = w.iter().sum();
        w.iter().map(|x| x / s).collect()
    }

    fn chi_square(total: u64, good: u64, draws: u64, trials: u32, seed: u64) {
        let p = exact_pmf(total, good, draws);
        let mut counts = vec![0u32; p.len()];
        let mut rng = Xoshiro256::from_seed(seed);
        for _ in 0..trials {
            let k = hypergeometric(&mut rng, total, good, draws);
            assert!((k as usize) < counts.len(), "{k} out of support");
            counts[k as usize] += 1;
        }
        let mut chi = 0.0;
        let mut cells = 0;
        let mut rest_e = 0.0;
        let mut rest_o = 0.0;
        for (i, &pi) in p.iter().enumerate() {
            let e = pi * trials as f64;
            if e >= 5.0 {
                chi += (counts[i] as f64 - e).powi(2) / e;
                cells += 1;
            } else {
                rest_e += e;
                rest_o += counts[i] as f64;
            }
        }
        if rest_e > 0.0 {
            chi += (rest_o - rest_e).powi(2) / rest_e.max(1.0);
            cells += 1;
        }
        let dof = (cells - 1) as f64;
        // mean dof, sd sqrt(2 dof): allow 5 sd.
        assert!(
            chi < dof + 5.0 * (2.0 * dof).sqrt() + 5.0,
            "H({total},{good},{draws}): chi2 {chi} with {dof} dof"
        );
    }

    #[test]
    fn matches_exact_pmf_on_small_cases() {
        // Direct path, inversion path, and the symmetric reductions.
        chi_square(50, 20, 10, 40_000, 1);
        chi_square(200, 60, 80, 40_000, 2);
        chi_square(200, 150, 30, 40_000, 3);
        chi_square(200, 60, 170, 40_000, 4);
        chi_square(1000, 500, 500, 40_000, 5);
        chi_square(10_000, 9_990, 40, 40_000, 6);
        chi_square(10_000, 3, 5_000, 40_000, 7);
    }

    #[test]
    fn edge_cases() {
        let mut rng = Xoshiro256::from_seed(1);
        assert_eq!(hypergeometric(&mut rng, 10, 0, 5), 0);
        assert_eq!(hypergeometric(&mut rng, 10, 10, 5), 5);
        assert_eq!(hypergeometric(&mut rng, 10, 4, 10), 4);
        assert_eq!(hypergeometric(&mut rng, 10, 4, 0), 0);
        assert_eq!(hypergeometric(&mut rng, 0, 0, 0), 0);
        // Forced: 8 of 10 drawn with 5 good -> at least 3 good.
        for _ in 0..1000 {
            let k = hypergeometric(&mut rng, 10, 5, 8);
            assert!((3..=5).contains(&k));
        }
    }

    #[test]
    fn moments_for_huge_populations() {
        let mut rng = Xoshiro256::from_seed(11);
        let total = u64::MAX - 12345;
        let good = total / 2 + 7;
        for (draws, trials) in [(1000u64, 4000), (1 << 20, 2000), (1 << 34, 200)] {
            let mut sum = 0.0;
            let mut sq = 0.0;
            for _ in 0..trials {
                let k = hypergeometric(&mut rng, total, good, draws) as f64;
                sum += k;
                sq += k * k;
            }
            let mean = sum / trials as f64;
            let var = sq / trials as f64 - mean * mean;
            let p = good as f64 / total as f64;
            let (m0, v0) = (draws as f64 * p, draws as f64 * p * (1.0 - p));
            assert!(
                (mean - m0).abs() < 5.0 * (v0 / trials as f64).sqrt(),
                "draws {draws}: mean {mean} vs {m0}"
            );
            assert!(
                (var / v0 - 1.0).abs() < 0.2,
                "draws {draws}: var {var} vs {v0}"
            );
        }
    }
}
