//! Compressed tiles (`import --compress`): G-Store's tiles with CEESOR's gap
//! coding of sorted neighbour ids (the "first offset, then gaps" of
//! ../shared/papers/003, here over a tile's sorted (src, dst) keys).
//!
//! Inside a tile, edges are sorted by (src, dst), so the 32-bit keys
//! `src << 16 | dst` increase strictly. A *frame* codes a run of them:
//!
//! ```text
//! u32 count (little-endian) | key 0 as LEB128 | (key i - key i-1 - 1) as LEB128 ... | zero bytes to a 4-byte boundary
//! ```
//!
//! Degree-ordered graphs put most edges in dense hub tiles, where gaps are
//! small: kron-22 codes in 1.62 bytes per edge and kron-24 in 1.76, against
//! 4 for plain tiles (LEB128 beat stream-vbyte's 1.73 and nibble codes'
//! 1.70 bytes by at most 4% and decodes with one branch per byte).
//!
//! Frames never straddle a [`CHUNK_BYTES`] boundary of `tiles/edges.bin` (a
//! frame that would is closed, the rest of the chunk filled with zero words,
//! which decode as empty frames), so a run of whole chunks is a run of whole
//! frames and an aligned piece never shares a chunk with the next. Every
//! frame has its own entry in `tiles/index.bin`, holding its byte offset (so
//! a large tile has several entries, consecutive, with the same row and
//! column); `tiles/groups.bin` counts entries. Engines hold and cache the
//! coded words and decode a piece into plain tile words (`src | dst << 16`)
//! just before applying it: the [`decode`] loop runs at several times the
//! disk's speed (see `benches/compress.sh`).

use super::tiles::CHUNK_BYTES;

/// The manifest's name for this coding (`tiles.compression`).
pub const GAP_VARINT: &str = "gap-varint";

/// Longest LEB128 code of a u32.
const MAX_CODE: u64 = 5;

/// Builds frames from keys arriving in physical order, tile by tile.
pub struct FrameEncoder {
    /// Coded bytes not yet taken; `base` is the file offset of `out[0]`.
    out: Vec<u8>,
    base: u64,
    /// Where the open frame's count lies in `out`, its count and last key.
    open: Option<usize>,
    count: u32,
    prev: u32,
    /// The file offset the open frame must end by.
    limit: u64,
}

impl Default for FrameEncoder {
    fn default() -> Self {
        FrameEncoder {
            out: Vec::with_capacity(1 << 20),
            base: 0,
            open: None,
            count: 0,
            prev: 0,
            limit: 0,
        }
    }
}

impl FrameEncoder {
    fn pos(&self) -> u64 {
        self.base + self.out.len() as u64
    }

    /// Closes the open frame (if any): its count, then padding to 4 bytes.
    fn close(&mut self) {
        if let Some(at) = self.open.take() {
            self.out[at..at + 4].copy_from_slice(&self.count.to_le_bytes());
            let pad = (4 - self.out.len() % 4) % 4;
            self.out.extend(std::iter::repeat_n(0u8, pad));
        }
    }

    /// Opens a frame at the next position that leaves room for its count and
    /// one key before the chunk ends; returns its file offset.
    fn open_frame(&mut self) -> u64 {
        let mut at = self.pos();
        let end = (at / CHUNK_BYTES + 1) * CHUNK_BYTES;
        if end - at < 4 + MAX_CODE + 3 {
            self.out
                .extend(std::iter::repeat_n(0u8, (end - at) as usize));
            at = end;
        }
        self.limit = (at / CHUNK_BYTES + 1) * CHUNK_BYTES;
        self.open = Some(self.out.len());
        self.out.extend_from_slice(&[0; 4]);
        self.count = 0;
        at
    }

    /// Starts a new tile: closes the open frame and returns the file offset
    /// of the tile's first frame.
    pub fn begin_tile(&mut self) -> u64 {
        self.close();
        self.open_frame()
    }

    /// Codes `key` (`src << 16 | dst`, above the tile's previous key).
    /// Returns the offset of a new frame of the same tile when the key did
    /// not fit before the chunk's end (the caller indexes it).
    #[inline]
    pub fn push(&mut self, key: u32) -> Option<u64> {
        let mut gap = if self.count == 0 {
            key
        } else {
            key.wrapping_sub(self.prev).wrapping_sub(1)
        };
        let mut code = [0u8; MAX_CODE as usize];
        let mut len = 0;
        while gap >= 0x80 {
            code[len] = gap as u8 | 0x80;
            gap >>= 7;
            len += 1;
        }
        code[len] = gap as u8;
        len += 1;
        let mut new = None;
        if self.pos() + len as u64 > self.limit {
            self.close();
            new = Some(self.open_frame());
            return self.push_new(key, new);
        }
        self.out.extend_from_slice(&code[..len]);
        self.count += 1;
        self.prev = key;
        new
    }

    /// `key` as the first of a frame just opened.
    fn push_new(&mut self, key: u32, new: Option<u64>) -> Option<u64> {
        let fresh = self.push(key);
        debug_assert!(fresh.is_none(), "a key fits an empty frame");
        new
    }

    /// Coded bytes ready to write (up to the open frame), if at least
    /// `min` of them.
    pub fn take(&mut self, min: usize) -> Option<Vec<u8>> {
        let upto = self.open.unwrap_or(self.out.len());
        if upto < min || upto == 0 {
            return None;
        }
        let rest = self.out.split_off(upto);
        self.open = self.open.map(|_| 0);
        self.base += upto as u64;
        Some(std::mem::replace(&mut self.out, rest))
    }

    /// Closes the last frame; returns the remaining bytes and the file length.
    pub fn finish(mut self) -> (Vec<u8>, u64) {
        self.close();
        let len = self.pos();
        (self.out, len)
    }
}

/// Views words as their little-endian bytes.
pub fn as_bytes(words: &[u32]) -> &[u8] {
    // SAFETY: u8 has no alignment or validity requirements; the length is
    // the same memory. The store is little-endian and so are the targets.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, words.len() * 4) }
}

/// Decodes the frames of a piece (whole frames, as the index cuts them)
/// into plain tile words, appended to `out`; returns the edges decoded.
/// Never panics: coded words come from checksummed chunks, and damage the
/// checksums missed ends the piece early (`verify` reports it exactly).
pub fn decode(words: &[u32], out: &mut Vec<u32>) -> usize {
    let b = as_bytes(words);
    let before = out.len();
    let mut p = Some(0);
    while let Some(q) = p {
        p = decode_frame(b, q, out);
    }
    out.len() - before
}

/// Decodes a piece frame by frame into `scratch` (at most a chunk's worth
/// of edges, [`SCRATCH_WORDS`]), calling `f` with each non-empty frame's
/// plain tile words: engines apply a frame while it is in the L2 cache.
/// Returns the edges decoded.
pub fn for_each_frame(words: &[u32], scratch: &mut Vec<u32>, mut f: impl FnMut(&[u32])) -> u64 {
    let b = as_bytes(words);
    let mut edges = 0;
    let mut p = Some(0);
    while let Some(q) = p {
        scratch.clear();
        p = decode_frame(b, q, scratch);
        if !scratch.is_empty() {
            edges += scratch.len() as u64;
            f(scratch);
        }
    }
    edges
}

/// Words [`for_each_frame`]'s scratch may grow to: a frame's edges take
/// at least a byte each, and a frame fits in a chunk.
pub const SCRATCH_WORDS: u64 = CHUNK_BYTES;

/// Decodes the frame at `p` into `out`; the next frame's position, `None`
/// at the end (or where damage cut the piece short).
#[inline]
fn decode_frame(b: &[u8], mut p: usize, out: &mut Vec<u32>) -> Option<usize> {
    let head = b.get(p..p + 4)?;
    let n = u32::from_le_bytes(head.try_into().expect("4 bytes")) as usize;
    p += 4;
    out.reserve(n.min(b.len() - p));
    let mut key = 0u32;
    for i in 0..n {
        let (g, q) = leb(b, p)?;
        p = q;
        key = match i {
            0 => g,
            _ => key.wrapping_add(g).wrapping_add(1),
        };
        out.push(key.rotate_left(16));
    }
    Some((p + 3) & !3)
}

/// One LEB128 code at `p`: (value, next position), `None` when cut short.
#[inline(always)]
fn leb(b: &[u8], p: usize) -> Option<(u32, usize)> {
    let x = *b.get(p)?;
    if x < 0x80 {
        return Some((x as u32, p + 1));
    }
    let mut v = (x & 0x7f) as u32;
    let mut shift = 7;
    let mut q = p + 1;
    loop {
        let x = *b.get(q)?;
        q += 1;
        v |= ((x & 0x7f) as u32).wrapping_shl(shift);
        if x < 0x80 || shift >= 28 {
            return Some((v, q));
        }
        shift += 7;
    }
}

/// Decodes the frames of one index entry strictly (for `verify` and the
/// sequential scans): every count, code and padding byte must be exact and
/// keys must stay below 2^32. Calls `f(local src, local dst)` per edge.
pub fn decode_strict(b: &[u8], mut f: impl FnMut(u16, u16)) -> Result<u64, String> {
    let mut p = 0;
    let mut edges = 0u64;
    while p < b.len() {
        if p + 4 > b.len() {
            return Err(format!("a frame count is cut short at byte {p}"));
        }
        let n = u32::from_le_bytes(b[p..p + 4].try_into().expect("4 bytes"));
        p += 4;
        let mut key = 0u64;
        for i in 0..n {
            let (g, q) = leb(b, p).ok_or_else(|| format!("a code is cut short at byte {p}"))?;
            if q - p == MAX_CODE as usize && b[q - 1] > 0x0f {
                return Err(format!("the code at byte {p} exceeds 32 bits"));
            }
            p = q;
            key = if i == 0 { g as u64 } else { key + g as u64 + 1 };
            if key > u32::MAX as u64 {
                return Err(format!("a key passes 2^32 at byte {p}"));
            }
            f((key >> 16) as u16, key as u16);
        }
        edges += n as u64;
        let end = (p + 3) & !3;
        if end > b.len() || b[p..end].iter().any(|&x| x != 0) {
            return Err(format!("the frame's padding at byte {p} is wrong"));
        }
        p = end;
    }
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes tiles of keys; returns (file bytes, frame offsets with tile).
    fn code(tiles: &[Vec<u32>]) -> (Vec<u8>, Vec<(usize, u64)>) {
        let mut enc = FrameEncoder::default();
        let mut file = Vec::new();
        let mut frames = Vec::new();
        for (t, keys) in tiles.iter().enumerate() {
            frames.push((t, enc.begin_tile()));
            for &k in keys {
                if let Some(at) = enc.push(k) {
                    frames.push((t, at));
                }
                if let Some(b) = enc.take(1000) {
                    file.extend(b);
                }
            }
        }
        let (rest, len) = enc.finish();
        file.extend(rest);
        assert_eq!(file.len() as u64, len);
        (file, frames)
    }

    fn words(b: &[u8]) -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn frames_round_trip_and_never_straddle_a_chunk() {
        let mut rng = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        // Dense, sparse, extreme keys, an empty-ish tile, a 100K-edge tile.
        let mut tiles: Vec<Vec<u32>> = vec![vec![0, 1, 2, u32::MAX], vec![u32::MAX], vec![7]];
        for t in 0..40 {
            let n = [1usize, 3, 200, 5000, 100_000][t % 5];
            let spread = [1u64 << 32, 1 << 18, 1 << 12][t % 3];
            let mut k: Vec<u32> = (0..n).map(|_| (next() % spread) as u32).collect();
            k.sort_unstable();
            k.dedup();
            tiles.push(k);
        }
        let (file, frames) = code(&tiles);
        assert_eq!(file.len() % 4, 0);
        for (i, w) in frames.windows(2).enumerate() {
            let (a, b) = (w[0].1, w[1].1);
            assert!(a < b, "frame {i}");
            assert_eq!(
                a / CHUNK_BYTES,
                (b - 1) / CHUNK_BYTES,
                "frame {i} straddles"
            );
        }
        assert!(
            frames.len() > tiles.len(),
            "large tiles take several frames"
        );
        let mut ends: Vec<u64> = frames.iter().skip(1).map(|f| f.1).collect();
        ends.push(file.len() as u64);
        for (t, keys) in tiles.iter().enumerate() {
            let (mut fast, mut strict) = (Vec::new(), Vec::new());
            for (k, &(ft, at)) in frames.iter().enumerate() {
                if ft == t {
                    let piece = &file[at as usize..ends[k] as usize];
                    decode(&words(piece), &mut fast);
                    decode_strict(piece, |s, d| strict.push((s as u32) << 16 | d as u32)).unwrap();
                }
            }
            let plain: Vec<u32> = keys.iter().map(|k| k.rotate_left(16)).collect();
            assert_eq!(fast, plain, "tile {t}");
            assert_eq!(strict, *keys, "tile {t}");
        }
    }

    #[test]
    fn damage_is_reported_by_the_strict_decoder_and_never_panics_the_fast_one() {
        let (file, _) = code(&[vec![1, 300, 70_000, 1 << 31]]);
        for i in 0..file.len() {
            for bit in [0x01u8, 0x80] {
                let mut bad = file.clone();
                bad[i] ^= bit;
                let mut out = Vec::new();
                decode(&words(&bad), &mut out);
                // Where the strict decoder accepts the damage (a changed gap
                // or count; checksums catch those), both decoders agree.
                if let Ok(n) = decode_strict(&bad, |_, _| {}) {
                    assert_eq!(n as usize, out.len(), "byte {i}");
                }
            }
        }
        assert!(decode_strict(&file[..file.len() - 4], |_, _| {}).is_err());
    }
}
