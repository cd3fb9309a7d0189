use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Wide(u128, u32);

impl Record for Wide {
    const BYTES: usize = 20;
    type Key = u128;
    fn key(&self) -> u128 {
        self.0
    }
    fn radix_key(&self) -> u128 {
        self.0
    }
    fn encode(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.0.to_le_bytes());
        out[16..].copy_from_slice(&self.1.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Wide(
            u128::from_le_bytes(b[..16].try_into().unwrap()),
            u32::from_le_bytes(b[16..].try_into().unwrap()),
        )
    }
}

#[test]
fn stable_for_every_key_shape() {
    let mut x: u64 = 3;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // (keys, mask): full 128-bit keys, a few high bits, many repeats,
    // keys differing only in low bits, one key.
    type Shape = fn(u64, u64) -> u128;
    let shapes: [(usize, Shape); 9] = [
        (70_000, |a, b| (a as u128) << 64 | b as u128),
        (50_000, |a, _| ((a >> 61) as u128) << 100),
        (40_000, |a, _| (a % 5) as u128),
        (30_000, |a, _| (1u128 << 90) | (a & 0xFFF) as u128),
        (20_000, |_, _| 42),
        // Below 2^64 (the 64-bit LSD with wide digits; ranges of more
        // than 256 records after the MSD pass's 2048): all 64 bits,
        // 44 bits (an edge key), 13 bits (one digit), two digits of
        // uneven use.
        (1_200_000, |a, _| a as u128),
        (800_000, |a, _| (a >> 20) as u128),
        (60_000, |a, _| (a & 0x1FFF) as u128),
        (60_000, |a, b| ((a & 0xF) << 40 | (b & 0xFF_FFFF)) as u128),
    ];
    for (n, shape) in shapes {
        let mut v: Vec<Wide> = (0..n as u32)
            .map(|i| Wide(shape(next(), next()), i))
            .collect();
        let mut expect = v.clone();
        expect.sort_by_key(|w| w.0);
        let mut scratch = Vec::new();
        sort_records_with(&mut v, &mut scratch);
        assert_eq!(v, expect, "n = {n}");
        // The scratch is reused: a second sort of the sorted data.
        sort_records_with(&mut v, &mut scratch);
        assert_eq!(v, expect);
    }
}

/// Records placed cell by cell (cells in key order, push order inside
/// each) come out as a stable sort: cells large and small, of keys
/// sorted in an odd or an even number of passes, of keys wider than 64
/// bits, empty ones.
#[test]
fn cells_sort_as_a_stable_sort() {
    let mut x: u64 = 5;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // (records, key, cell of a key): cells of 2^k keys over a range.
    type Key = fn(u64, u64) -> u128;
    let shapes: [(usize, Key, u32); 6] = [
        // ~3 K records a cell, 35 bits inside: three passes.
        (400_000, |a, _| (a >> 22) as u128, 35),
        // 64 cells of 2^32 keys, whose keys vary in 24 bits (two
        // passes: sorted in place) in even cells and 12 (one pass:
        // sorted into the scratch) in odd ones; most records in even
        // cells, then most in odd ones (the others are copied over).
        (
            200_000,
            |a, b| {
                let c = (a % 64) & !(((a >> 8) % 10 < 7) as u64);
                let inner = (b >> 40) >> (12 * (c & 1));
                (c << 32 | inner) as u128
            },
            32,
        ),
        (
            200_000,
            |a, b| {
                let c = (a % 64) | ((a >> 8) % 10 < 7) as u64;
                let inner = (b >> 40) >> (12 * (c & 1));
                (c << 32 | inner) as u128
            },
            32,
        ),
        // One cell of most records (sorted with an MSD pass of its own).
        (
            200_000,
            |a, b| {
                if a % 8 > 0 {
                    (b >> 34) as u128
                } else {
                    (a >> 20) as u128
                }
            },
            30,
        ),
        // Wide keys, differing above bit 64 inside a cell.
        (50_000, |a, b| (a as u128) << 64 | b as u128, 124),
        // Equal keys.
        (50_000, |_, _| 7, 2),
    ];
    for (n, key, cell_bits) in shapes {
        let v: Vec<Wide> = (0..n as u32)
            .map(|i| Wide(key(next(), next()), i))
            .collect();
        let cell = |k: u128| (k >> cell_bits) as usize;
        let cells = v.iter().map(|w| cell(w.0)).max().unwrap() + 1;
        let mut bounds = vec![0usize; cells + 1];
        for w in &v {
            bounds[cell(w.0) + 1] += 1;
        }
        for c in 0..cells {
            bounds[c + 1] += bounds[c];
        }
        let mut pos = bounds.clone();
        let mut placed = v.clone();
        for w in &v {
            placed[pos[cell(w.0)]] = *w;
            pos[cell(w.0)] += 1;
        }
        let mut expect = v.clone();
        expect.sort_by_key(|w| w.0);
        let mut scratch = Vec::new();
        sort_cells(&mut placed, &mut scratch, &bounds);
        assert_eq!(placed, expect, "n = {n}");
    }
}
