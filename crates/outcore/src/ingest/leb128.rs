//! LEB128 varints (little-endian groups of 7 bits, the high bit set on
//! every byte but the last): the scratch files' counts and differences.

/// Writes `v` at the front of `out`; returns its bytes.
pub(crate) fn put(out: &mut [u8], mut v: u64) -> usize {
    let mut k = 0;
    while v >= 0x80 {
        out[k] = v as u8 | 0x80;
        v >>= 7;
        k += 1;
    }
    out[k] = v as u8;
    k + 1
}
