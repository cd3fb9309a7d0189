//! Self-contained pseudo-random numbers, so generated graphs never change with a
//! crate version: SplitMix64 (seeding and hashing) and xoshiro256** (streams).
//!
//! Every block of every generator gets its own stream, seeded from
//! `(seed, stream tag, block index)`, so the output is independent of the
//! order in which blocks are generated and of the number of threads.

/// Stream tags: one per use, so no two uses ever share a random stream.
pub(crate) mod stream {
    pub const KRON: u64 = 0x6b72_6f6e_0000_0001;
    pub const RMAT: u64 = 0x726d_6174_0000_0002;
    pub const KRON_WEIGHT: u64 = 0x6b72_6f6e_0000_0003;
    pub const RMAT_WEIGHT: u64 = 0x726d_6174_0000_0004;
    pub const SCRAMBLE: u64 = 0x7363_7261_0000_0005;
    pub const ER_TREE: u64 = 0x6572_0000_0000_0006;
    pub const ER_CHUNK: u64 = 0x6572_0000_0000_0007;
    pub const ER_WEIGHT: u64 = 0x6572_0000_0000_0008;
    pub const GRID_WEIGHT: u64 = 0x6772_6964_0000_0009;
    pub const COLORING: u64 = 0x636f_6c6f_0000_000a;
    pub const MIS: u64 = 0x6d69_7300_0000_000b;
    pub const WALK: u64 = 0x7761_6c6b_0000_000c;
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 finalizer: a bijective 64-bit mixing function.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hashes `(seed, stream, index)` to one 64-bit value.
#[inline]
pub(crate) fn hash3(seed: u64, stream: u64, index: u64) -> u64 {
    let x = mix64(seed.wrapping_add(GOLDEN));
    let x = mix64(x ^ stream);
    mix64(
        x ^ index
            .wrapping_mul(GOLDEN)
            .wrapping_add(0x2545_f491_4f6c_dd1d),
    )
}

/// SplitMix64 (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix64(self.0)
    }
}

/// xoshiro256** 1.0 (Blackman, Vigna 2018).
#[derive(Clone, Debug)]
pub(crate) struct Xoshiro256 {
    s: [u64; 4],
}

impl Xoshiro256 {
    /// A generator whose state is filled by SplitMix64 from `seed`.
    pub fn from_seed(seed: u64) -> Xoshiro256 {
        let mut sm = SplitMix64::new(seed);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        // SplitMix64 never yields four zero words in a row from one seed, but be sure.
        if s == [0; 4] {
            return Xoshiro256 {
                s: [GOLDEN, 1, 2, 3],
            };
        }
        Xoshiro256 { s }
    }

    /// The stream for block `index` of use `stream` under the user's `seed`.
    /// A generator in state `s` (not all zero).
    pub(crate) fn from_state(s: [u64; 4]) -> Xoshiro256 {
        debug_assert!(s != [0; 4]);
        Xoshiro256 { s }
    }

    /// The four state words.
    pub(crate) fn state(&self) -> [u64; 4] {
        self.s
    }

    pub fn for_block(seed: u64, stream: u64, index: u64) -> Xoshiro256 {
        Xoshiro256::from_seed(hash3(seed, stream, index))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)`, exactly (Lemire's multiply-and-reject); `n > 0`.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as u64
    }
}

/// A stateless uniform draw in `[0, n)` for item `key` (exact: rejection by rehashing).
/// `base` should already be a hash of the seed and the use.
#[inline]
pub(crate) fn hash_below(base: u64, key: u64, n: u64) -> u64 {
    debug_assert!(n > 0);
    let threshold = n.wrapping_neg() % n;
    let mut x = mix64(base ^ mix64(key));
    loop {
        let m = (x as u128) * (n as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
        x = mix64(x.wrapping_add(GOLDEN));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference outputs of SplitMix64 seeded with 1234567 (from the public-domain C code).
        let mut sm = SplitMix64::new(1234567);
        assert_eq!(sm.next_u64(), 6457827717110365317);
        assert_eq!(sm.next_u64(), 3203168211198807973);
        assert_eq!(sm.next_u64(), 9817491932198370423);
    }

    #[test]
    fn xoshiro_reference_values() {
        // xoshiro256** with state {1, 2, 3, 4} (reference C implementation).
        let mut x = Xoshiro256 { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..6).map(|_| x.next_u64()).collect();
        assert_eq!(
            got,
            [
                11520,
                0,
                1509978240,
                1215971899390074240,
                1216172134540287360,
                607988272756665600
            ]
        );
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut x = Xoshiro256::from_seed(7);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            let v = x.below(7);
            counts[v as usize] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
        assert_eq!(x.below(1), 0);
        let big = u64::MAX - 3;
        for _ in 0..100 {
            assert!(x.below(big) < big);
        }
    }

    #[test]
    fn f64_in_unit_interval() {
        let mut x = Xoshiro256::from_seed(9);
        let mut sum = 0.0;
        for _ in 0..100_000 {
            let v = x.next_f64();
            assert!((0.0..1.0).contains(&v));
            sum += v;
        }
        assert!((sum / 100_000.0 - 0.5).abs() < 0.01);
    }

    #[test]
    fn hash_below_in_range() {
        let base = hash3(1, stream::GRID_WEIGHT, 0);
        let mut counts = [0u32; 5];
        for k in 0..50_000 {
            counts[hash_below(base, k, 5) as usize] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
    }
}
