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

/// The varint at the front of `b` and its bytes; `None` when `b` ends
/// inside it or it does not fit 64 bits.
pub(crate) fn take(b: &[u8]) -> Option<(u64, usize)> {
    let (mut z, mut i, mut shift) = (0u64, 0usize, 0u32);
    loop {
        let byte = *b.get(i)?;
        if shift == 63 && byte > 1 {
            return None;
        }
        z |= ((byte & 0x7F) as u64) << shift;
        i += 1;
        if byte < 0x80 {
            return Some((z, i));
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    /// Values of every length come back; a cut varint and one past 64 bits
    /// do not.
    #[test]
    fn varints_round_trip_and_overflow_is_refused() {
        let mut out = [0u8; 10];
        for v in [0, 1, 127, 128, 1 << 32, u64::MAX >> 1, u64::MAX] {
            let n = super::put(&mut out, v);
            assert_eq!(super::take(&out[..n]), Some((v, n)));
            assert_eq!(super::take(&out[..n - 1]), None);
        }
        assert_eq!(
            super::take(&[0xff; 9].iter().chain(&[2]).copied().collect::<Vec<_>>()),
            None
        );
        assert_eq!(super::take(&[0x80; 11]), None);
    }
}
