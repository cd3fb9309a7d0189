//! How `distinct.tmp` ([`super::distinct`]) codes an edge's ranks: the
//! zigzag varint of the difference of its key from the previous edge's
//! (src << 32 | dst, branch-free for codes of up to 8 bytes; wide ranks:
//! src << 64 | dst, byte by byte).

/// How `distinct.tmp` codes an edge's ranks: the zigzag varint of the
/// difference of its key from the previous edge's.
pub(super) trait SpillCode: Copy {
    /// The previous edge's key.
    type Prev: Copy + Default + Send + Sync;
    /// The longest code.
    const MAX_CODE: usize;
    /// Codes (s, d) at the front of `out` (8 bytes longer than the code
    /// may be written) and returns the code's length.
    fn put(prev: &mut Self::Prev, s: Self, d: Self, out: &mut [u8]) -> usize;
    /// The edge coded at the front of `b`, and the code's length; `None`
    /// when `b` holds only part of it.
    fn take(b: &[u8], prev: &mut Self::Prev) -> Option<((Self, Self), usize)>;
}

impl SpillCode for u32 {
    type Prev = u64;
    const MAX_CODE: usize = 10;
    #[inline(always)]
    fn put(prev: &mut u64, s: u32, d: u32, out: &mut [u8]) -> usize {
        let key = (s as u64) << 32 | d as u64;
        let len = put_varint(out, zigzag(key.wrapping_sub(*prev)));
        *prev = key;
        len
    }
    #[inline(always)]
    fn take(b: &[u8], prev: &mut u64) -> Option<((u32, u32), usize)> {
        let (z, i) = take_varint(b)?;
        let key = prev.wrapping_add(unzigzag(z));
        *prev = key;
        Some((((key >> 32) as u32, key as u32), i))
    }
}

/// Wide ranks: a 128-bit key (src << 64 | dst), its difference in
/// base-128 groups byte by byte (wide stores only; no fast path).
impl SpillCode for u64 {
    type Prev = u128;
    const MAX_CODE: usize = 19;
    fn put(prev: &mut u128, s: u64, d: u64, out: &mut [u8]) -> usize {
        let key = (s as u128) << 64 | d as u128;
        let x = key.wrapping_sub(*prev);
        let mut z = (x << 1) ^ ((x as i128 >> 127) as u128);
        *prev = key;
        let mut i = 0;
        loop {
            let byte = (z & 0x7F) as u8;
            z >>= 7;
            if z == 0 {
                out[i] = byte;
                return i + 1;
            }
            out[i] = byte | 0x80;
            i += 1;
        }
    }
    fn take(b: &[u8], prev: &mut u128) -> Option<((u64, u64), usize)> {
        let (mut z, mut i, mut shift) = (0u128, 0usize, 0u32);
        loop {
            let byte = *b.get(i)?;
            if shift > 126 {
                return None;
            }
            z |= ((byte & 0x7F) as u128) << shift;
            i += 1;
            if byte < 0x80 {
                break;
            }
            shift += 7;
        }
        let key = prev.wrapping_add((z >> 1) ^ (z & 1).wrapping_neg());
        *prev = key;
        Some((((key >> 64) as u64, key as u64), i))
    }
}

/// A narrow code's varint and its length; `None` when `b` holds only part
/// of it.
#[inline(always)]
fn take_varint(b: &[u8]) -> Option<(u64, usize)> {
    let (z, i) = match b.first_chunk::<8>().map(|c| u64::from_le_bytes(*c)) {
        // A varint of at most 8 bytes with all of them here: its length
        // from the first clear top bit, its 7-bit groups gathered without a
        // branch (lengths vary from edge to edge: a loop mispredicts).
        Some(x) if !x & 0x8080_8080_8080_8080 != 0 => {
            let len = ((!x & 0x8080_8080_8080_8080).trailing_zeros() / 8 + 1) as usize;
            let x = match len {
                8 => x,
                _ => x & ((1u64 << (8 * len)) - 1),
            };
            (gather7(x), len)
        }
        // Byte by byte near a chunk's end, or longer than 8 bytes.
        _ => crate::base::leb128::take(b)?,
    };
    Some((z, i))
}

/// Zigzag: small differences of either sign become small codes.
#[inline(always)]
fn zigzag(x: u64) -> u64 {
    (x << 1) ^ ((x as i64 >> 63) as u64)
}

#[inline(always)]
fn unzigzag(z: u64) -> u64 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

/// The 7-bit groups of `v` (below 2^56) one to a byte, top bits clear: in
/// three steps of halving lanes (28 bits to a 32-bit lane, 14 to 16, 7 to
/// 8) where a loop over the eight groups took 24 operations.
#[inline(always)]
fn spread7(v: u64) -> u64 {
    let x = (v & 0x0000_0000_0FFF_FFFF) | ((v & 0x00FF_FFFF_F000_0000) << 4);
    let x = (x & 0x0000_3FFF_0000_3FFF) | ((x & 0x0FFF_C000_0FFF_C000) << 2);
    (x & 0x007F_007F_007F_007F) | ((x & 0x3F80_3F80_3F80_3F80) << 1)
}

/// The inverse of [`spread7`]: the low 7 bits of each byte of `x`, packed.
#[inline(always)]
fn gather7(x: u64) -> u64 {
    let x = x & 0x7F7F_7F7F_7F7F_7F7F;
    let x = (x & 0x007F_007F_007F_007F) | ((x & 0x7F00_7F00_7F00_7F00) >> 1);
    let x = (x & 0x0000_3FFF_0000_3FFF) | ((x & 0x3FFF_0000_3FFF_0000) >> 2);
    (x & 0x0000_0000_0FFF_FFFF) | ((x & 0x0FFF_FFFF_0000_0000) >> 4)
}

/// Writes `v` as a little-endian base-128 varint at the front of `out`
/// (which has room for 8 bytes more than the code when it is short) and
/// returns its length.
#[inline(always)]
fn put_varint(out: &mut [u8], v: u64) -> usize {
    if v >> 56 == 0 {
        // Up to 8 bytes: groups spread and continuation bits set without a
        // loop (its length varies from edge to edge), stored as 8 bytes.
        let len = (64 - (v | 1).leading_zeros()).div_ceil(7) as usize;
        let mut x = spread7(v);
        x |= 0x8080_8080_8080_8080 & ((1u64 << (8 * (len - 1))) - 1);
        out[..8].copy_from_slice(&x.to_le_bytes());
        return len;
    }
    crate::base::leb128::put(out, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 7-bit groups spread and gathered in lanes are those of a loop
    /// over the groups, for every length of value.
    #[test]
    fn groups_spread_and_gather_as_a_loop_would() {
        let mut x: u64 = 11;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x >> (8 + i % 56);
            let mut by_loop = 0u64;
            for k in 0..8 {
                by_loop |= (v << k) & (0x7F << (8 * k));
            }
            assert_eq!(spread7(v), by_loop, "{v:#x}");
            assert_eq!(gather7(by_loop | 0x8080_8080_8080_8080), v, "{v:#x}");
        }
    }
}
