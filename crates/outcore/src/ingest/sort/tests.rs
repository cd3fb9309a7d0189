use super::*;

/// A test record: a key and a payload (push order, in the tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pair(pub u64, pub u32);

impl Record for Pair {
    const BYTES: usize = 12;
    type Key = u64;
    fn key(&self) -> u64 {
        self.0
    }
    fn radix_key(&self) -> u128 {
        self.0 as u128
    }
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..12].copy_from_slice(&self.1.to_le_bytes());
    }
    const KEY_BYTES: usize = 8;
    fn from_key(key: u128, rest: &[u8]) -> Self {
        Pair(key as u64, u32::from_le_bytes(rest.try_into().unwrap()))
    }
    fn decode(b: &[u8]) -> Self {
        Pair(
            u64::from_le_bytes(b[..8].try_into().unwrap()),
            u32::from_le_bytes(b[8..12].try_into().unwrap()),
        )
    }
}

#[test]
fn radix_sort_is_stable_at_every_size() {
    for n in [0usize, 1, 255, 256, 1000, 20_000, 100_003] {
        let mut x: u64 = 99;
        let mut v: Vec<Pair> = (0..n as u32)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Pair((x >> 30) % (n as u64 / 3 + 1) + (1 << 40), i)
            })
            .collect();
        let mut expect = v.clone();
        expect.sort_by_key(|p| p.0);
        sort_records(&mut v);
        assert_eq!(v, expect, "n = {n}");
    }
}
