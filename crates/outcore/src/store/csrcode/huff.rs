//! Huffman-coded bit lengths: the second of a page's two codes. Each delta
//! falls in a class, its sign and the bit length of its magnitude; the
//! class is coded with a canonical Huffman code built for the page, then
//! come the magnitude's bits below its leading one.
//!
//! This is CEESOR §2.4's idea (../shared/papers/003: a bit-length step,
//! then the offset's bits) with the length coded by its measured frequency
//! instead of in unary, the leading one implied, and the sign folded into
//! the class: the gaps inside a list are never negative, so they pay no
//! sign bit, and the jumps at list starts pay what their mix of signs is
//! worth. On p2p-Gnutella31 in its own order it codes 10.9 bits an edge
//! where stream-vbyte takes 15.6 and CEESOR reports 11.73.
//!
//! ```text
//! u32 entries | u8 P | u8 N |
//! code lengths (0 = unused, at most 11), 4 bits each, low nibble first, the
//!   last byte's unused nibble 0: the classes of deltas >= 0 with bit length
//!   0..P, then of deltas < 0 with magnitude bit length 1..=N |
//! u32 bytes of stream A | stream A: entries 0, 2, 4 … | stream B: entries 1, 3, 5 …
//!   (each entry its class's code, then the magnitude's bits below the
//!   leading one, both least significant bit first; each stream's last byte
//!   zero-padded)
//! ```
//!
//! Two streams let the decoder run two independent chains of table lookups
//! and shifts (Huff0 in zstd uses four): the bit-serial decode of one
//! stream is bound by the latency of each lookup.

use crate::store::csr::PAD;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The longest code: decoding looks a class up in one table of 2^11.
const MAX_LEN: u32 = 9;
/// Classes 0..=32: deltas >= 0 of that bit length; 33..=64: deltas < 0 of
/// magnitude bit length 1..=32.
const CLASSES: usize = 65;
/// The first class of negative deltas.
const NEG: usize = 33;

/// The class of delta `d`, its extra bits' count and value.
#[inline]
fn class(d: i64) -> (usize, u32, u64) {
    let a = d.unsigned_abs();
    let b = 64 - a.leading_zeros();
    let extra = b.saturating_sub(1);
    let c = if d < 0 { 32 + b as usize } else { b as usize };
    (c, extra, a & ((1u64 << extra) - 1))
}

/// Code lengths for class counts: Huffman's, the counts halved until no
/// code is longer than [`MAX_LEN`]; a lone class gets a 1-bit code.
fn lengths(counts: &[u64; CLASSES]) -> [u8; CLASSES] {
    let used: Vec<usize> = (0..CLASSES).filter(|&c| counts[c] > 0).collect();
    let mut len = [0u8; CLASSES];
    if used.len() == 1 {
        len[used[0]] = 1;
    }
    if used.len() < 2 {
        return len;
    }
    let mut w: Vec<u64> = used.iter().map(|&c| counts[c]).collect();
    let m = used.len();
    loop {
        let mut parent = vec![0usize; 2 * m - 1];
        let mut heap: BinaryHeap<_> = (0..m).map(|i| Reverse((w[i], i))).collect();
        let mut next = m;
        while let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) {
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa + wb, next)));
            next += 1;
        }
        // Parents come after their children: depths from the root down.
        let mut depth = vec![0u32; next];
        for i in (0..next - 1).rev() {
            depth[i] = depth[parent[i]] + 1;
        }
        if depth[..m].iter().all(|&d| d <= MAX_LEN) {
            for (i, &c) in used.iter().enumerate() {
                len[c] = depth[i] as u8;
            }
            return len;
        }
        for x in &mut w {
            *x = x.div_ceil(2);
        }
    }
}

/// The canonical codes of `len`, bit-reversed (sent least significant
/// bit first).
fn codes(len: &[u8; CLASSES]) -> [u32; CLASSES] {
    let mut count = [0u32; MAX_LEN as usize + 1];
    for &l in len.iter().filter(|&&l| l > 0) {
        count[l as usize] += 1;
    }
    let mut next = [0u32; MAX_LEN as usize + 1];
    let mut code = 0;
    for l in 1..=MAX_LEN as usize {
        code = (code + count[l - 1]) << 1;
        next[l] = code;
    }
    let mut out = [0u32; CLASSES];
    for (c, &l) in len.iter().enumerate().filter(|(_, &l)| l > 0) {
        out[c] = next[l as usize].reverse_bits() >> (32 - l as u32);
        next[l as usize] += 1;
    }
    out
}

/// Bits least significant first into bytes.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter<'_> {
    /// Appends the low `bits` (at most 32) of `v`.
    #[inline]
    fn put(&mut self, v: u64, bits: u32) {
        self.acc |= v << self.n;
        self.n += bits;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    fn finish(self) {
        let bytes = self.n.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// Appends the coded form of a page's entries (its slots before the
/// padding) to `out`.
pub fn encode(entries: &[u32], out: &mut Vec<u8>) {
    let mut counts = [0u64; CLASSES];
    let mut prev = 0i64;
    for &x in entries {
        counts[class(x as i64 - prev).0] += 1;
        prev = x as i64;
    }
    let len = lengths(&counts);
    let p = (0..NEG).rev().find(|&c| len[c] > 0).map_or(0, |c| c + 1);
    let n = (NEG..CLASSES)
        .rev()
        .find(|&c| len[c] > 0)
        .map_or(0, |c| c + 1 - NEG);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&[p as u8, n as u8]);
    let table: Vec<u8> = len[..p].iter().chain(&len[NEG..NEG + n]).copied().collect();
    out.extend(
        table
            .chunks(2)
            .map(|t| t[0] | t.get(1).map_or(0, |&h| h << 4)),
    );
    let code = codes(&len);
    // Even entries in the first stream, odd ones in the second.
    let a_at = out.len();
    out.extend_from_slice(&[0; 4]);
    for half in 0..2 {
        let start = out.len();
        let mut w = BitWriter { out, acc: 0, n: 0 };
        for (i, &x) in entries.iter().enumerate().skip(half).step_by(2) {
            let prev = if i == 0 { 0 } else { entries[i - 1] as i64 };
            let (c, extra, v) = class(x as i64 - prev);
            w.put(code[c] as u64, len[c] as u32);
            w.put(v, extra);
        }
        w.finish();
        if half == 0 {
            let a_len = (out.len() - start) as u32;
            out[a_at..a_at + 4].copy_from_slice(&a_len.to_le_bytes());
        }
    }
}

/// A decode table entry: code length (bits 0-3, 0 = no code), extra bits
/// (4-8), negative (9), magnitude has a leading one (10).
fn entry(c: usize, l: u8) -> u16 {
    let b = if c >= NEG { c - 32 } else { c } as u32;
    (l as u32 | b.saturating_sub(1) << 4 | ((c >= NEG) as u32) << 9 | ((b > 0) as u32) << 10) as u16
}

/// Decodes the coded page at the start of `coded` into `page` (little-endian
/// u32 slots, the tail padded); returns the coded bytes consumed, or what
/// is wrong with them.
pub fn decode(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    decode_below(coded, page, PAD as u64)
}

/// [`decode`] of a page of any u32 values, [`PAD`] among them (the low
/// halves of a wide page, [`super::wide`]).
pub(super) fn decode_words(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    decode_below(coded, page, 1 << 32)
}

/// [`decode`], refusing an entry outside `0..end`.
fn decode_below(coded: &[u8], page: &mut [u8], end: u64) -> std::result::Result<usize, String> {
    let slots = page.len() / 4;
    let head = coded.get(..6).ok_or("the page's header is cut off")?;
    let k = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
    if k > slots {
        return Err(format!("a page claims {k} entries; a page holds {slots}"));
    }
    let (p, n) = (head[4] as usize, head[5] as usize);
    if p > NEG || n > CLASSES - NEG {
        return Err(format!(
            "a code table of {p} + {n} classes; at most 33 + 32"
        ));
    }
    let nibbles = coded
        .get(6..6 + (p + n).div_ceil(2))
        .ok_or("the page's code table is cut off")?;
    let nibble = |i: usize| nibbles[i / 2] >> (4 * (i % 2)) & 15;
    if (p + n) % 2 == 1 && nibble(p + n) != 0 {
        return Err("the code table's unused nibble is not zero".into());
    }
    let mut len = [0u8; CLASSES];
    for i in 0..p + n {
        len[if i < p { i } else { NEG + i - p }] = nibble(i);
    }
    let kraft: u32 = len
        .iter()
        .filter(|&&l| l > 0)
        .map(|&l| (1u32 << MAX_LEN) >> l.min(31))
        .sum();
    let lone = len.iter().filter(|&&l| l > 0).count() == 1 && len.contains(&1);
    if len.iter().any(|&l| l as u32 > MAX_LEN) || !(kraft == 0 || kraft == 1 << MAX_LEN || lone) {
        return Err("the page's code lengths are not a complete prefix code".into());
    }
    let mut table = [0u16; 1 << MAX_LEN];
    let code = codes(&len);
    for (c, &l) in len.iter().enumerate().filter(|(_, &l)| l > 0) {
        let e = entry(c, l);
        for slot in table.iter_mut().skip(code[c] as usize).step_by(1 << l) {
            *slot = e;
        }
    }
    let at = 6 + nibbles.len();
    let a_len = coded
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        .ok_or("the page's stream length is cut off")?;
    let streams = &coded[at + 4..];
    if a_len > streams.len() {
        return Err("the page's first stream is cut off".into());
    }
    let mut a = Bits::new(&streams[..a_len]);
    let mut b = Bits::new(&streams[a_len..]);
    let (mut prev, mut bad) = (0i64, false);
    // Entries alternate between the streams: two independent chains of
    // table lookups and shifts, one sum.
    let mut pairs = page[..4 * k].chunks_exact_mut(8);
    for out in &mut pairs {
        let (da, ba) = a.next(&table);
        let (db, bb) = b.next(&table);
        let x0 = prev + da;
        prev = x0 + db;
        bad |= ba | bb | (x0 as u64 >= end) | (prev as u64 >= end);
        out[..4].copy_from_slice(&(x0 as u32).to_le_bytes());
        out[4..].copy_from_slice(&(prev as u32).to_le_bytes());
    }
    let rest = pairs.into_remainder();
    if !rest.is_empty() {
        let (da, ba) = a.next(&table);
        prev += da;
        bad |= ba | (prev as u64 >= end);
        rest.copy_from_slice(&(prev as u32).to_le_bytes());
    }
    if bad {
        return Err(format!(
            "an entry has no code in the page's table or decodes outside 0..{end}"
        ));
    }
    let b_len = b.finish()?;
    if a.finish()? != a_len {
        return Err("the page's first stream does not end where its length says".into());
    }
    page[4 * k..].fill(0xff);
    Ok(at + 4 + a_len + b_len)
}

/// One stream of codes, read least significant bit first.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    have: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Bits<'a> {
        Bits {
            data,
            pos: 0,
            buf: 0,
            have: 0,
        }
    }

    /// The next delta, and whether its code is missing from `table` (it
    /// then consumes nothing).
    #[inline(always)]
    fn next(&mut self, table: &[u16; 1 << MAX_LEN]) -> (i64, bool) {
        // At least 56 bits in `buf`: a code and its extra bits (42 at most).
        if let Some(w) = self.data.get(self.pos..self.pos + 8) {
            self.buf |= u64::from_le_bytes(w.try_into().expect("8 bytes")) << self.have;
            self.pos += (63 - self.have as usize) >> 3;
            self.have |= 56;
        } else {
            while self.have <= 56 {
                self.buf |= (self.data.get(self.pos).copied().unwrap_or(0) as u64) << self.have;
                self.pos += 1;
                self.have += 8;
            }
        }
        let e = table[(self.buf & ((1 << MAX_LEN) - 1)) as usize] as u32;
        let (l, extra) = (e & 15, e >> 4 & 31);
        let mut buf = self.buf >> l;
        let x = ((e >> 10 & 1) as i64) << extra | (buf & ((1u64 << extra) - 1)) as i64;
        buf >>= extra;
        self.buf = buf;
        self.have -= l + extra;
        let neg = -((e >> 9 & 1) as i64);
        ((x ^ neg) - neg, l == 0)
    }

    /// Bytes the stream's codes took, checked against its end and its
    /// padding bits.
    fn finish(&self) -> std::result::Result<usize, String> {
        let used = self.pos * 8 - self.have as usize;
        if used > self.data.len() * 8 {
            return Err("the page's codes are cut off".into());
        }
        let bytes = used.div_ceil(8);
        if !used.is_multiple_of(8) && self.data[bytes - 1] >> (used % 8) != 0 {
            return Err("the page's codes have bits set past their end".into());
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page made by hand from the format: entries 5, 6, 7 (deltas 5, 1,
    /// 1: classes 3 and 1, a 1-bit code each, 5's extra bits 01).
    #[test]
    fn a_page_by_hand() {
        let page = [3, 0, 0, 0, 4, 0, 0x10, 0x10, 1, 0, 0, 0, 0b0011, 0];
        let mut out = [0u8; 16];
        assert_eq!(decode(&page, &mut out), Ok(page.len()));
        assert_eq!(out[..12], [5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0]);
        assert_eq!(out[12..], [0xff; 4]);
        let mut coded = Vec::new();
        encode(&[5, 6, 7], &mut coded);
        assert_eq!(coded, page);
    }

    #[test]
    fn classes_and_codes() {
        assert_eq!(class(0), (0, 0, 0));
        assert_eq!(class(1), (1, 0, 0));
        assert_eq!(class(6), (3, 2, 2));
        assert_eq!(class(-1), (33, 0, 0));
        assert_eq!(class(-(u32::MAX as i64)), (64, 31, (1 << 31) - 1));
        // Skewed counts over all classes stay within the longest code and
        // make a complete prefix code.
        let mut counts = [0u64; CLASSES];
        for (c, x) in counts.iter_mut().enumerate() {
            *x = 1 << (c % 40);
        }
        let len = lengths(&counts);
        assert!(len.iter().all(|&l| (1..=MAX_LEN as u8).contains(&l)));
        let kraft: u32 = len.iter().map(|&l| 2048 >> l).sum();
        assert_eq!(kraft, 2048);
    }
}
