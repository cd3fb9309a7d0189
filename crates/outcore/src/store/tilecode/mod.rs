//! Compressed tiles (`import --compress`): G-Store's tiles with CEESOR's gap
//! coding of sorted neighbour ids (the "first offset, then gaps" of
//! ../shared/papers/003, here over a tile's sorted (src, dst) keys), the
//! gaps in Lemire's stream-vbyte code.
//!
//! Inside a tile, edges are sorted by (src, dst), so the 32-bit keys
//! `src << 16 | dst` increase strictly. A *frame* codes a run of them:
//!
//! ```text
//! u32 count | count 2-bit lengths, four a byte (length - 1) | key 0, then key i - key i-1 - 1, each in 1-4 bytes | zeros to a 4-byte boundary
//! ```
//!
//! Degree-ordered graphs put most edges in dense hub tiles, where gaps are
//! small: kron-22 codes in 1.73 bytes per edge and kron-24 in 1.86, against
//! 4 for plain tiles. The code was chosen by measurement (kron-20, one
//! core): LEB128 varints take 6% fewer bytes (1.62 at kron-22) but decode
//! with a branch per byte at 0.3 G edges/s; stream-vbyte's lengths, kept
//! apart from the gap bytes, let [`decode`] gather four gaps with one
//! SSSE3 shuffle and sum them in registers, at 1.4 G edges/s (0.6 G with
//! the portable loop), several times what the disk delivers
//! (`benches/compress.sh` prints both).
//!
//! Frames never straddle a [`CHUNK_BYTES`] boundary of `tiles/edges.bin` (a
//! frame that would is closed, the rest of the chunk filled with zero words,
//! which decode as empty frames), so a run of whole chunks is a run of whole
//! frames and an aligned piece never shares a chunk with the next. Every
//! frame has its own entry in `tiles/index.bin`, holding its byte offset (so
//! a large tile has several entries, consecutive, with the same row and
//! column); `tiles/groups.bin` counts entries. Engines hold and cache the
//! coded words and decode a frame into plain tile words (`src | dst << 16`)
//! just before applying it.

mod encode;
pub(crate) mod groups;

use super::tiles::CHUNK_BYTES;
pub use encode::FrameEncoder;
use groups::groups;
use std::mem::MaybeUninit;

/// The manifest's name for this coding (`tiles.compression`).
pub const GAP_SVB: &str = "gap-svb";

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
/// more than a byte each, and a frame fits in a chunk.
pub const SCRATCH_WORDS: u64 = CHUNK_BYTES;

/// A frame's parts at `p`: (count, lengths, gaps, next frame's position);
/// `None` at the end or when the frame does not fit in `b`.
#[inline]
fn frame_at(b: &[u8], p: usize) -> Option<(usize, &[u8], &[u8], usize)> {
    let head = b.get(p..p + 4)?;
    let n = u32::from_le_bytes(head.try_into().expect("4 bytes")) as usize;
    let lens = b.get(p + 4..(p + 4).checked_add(n.div_ceil(4))?)?;
    let data_at = p + 4 + lens.len();
    let data_len: usize = lens
        .iter()
        .map(|&c| {
            (c & 3) as usize + (c >> 2 & 3) as usize + (c >> 4 & 3) as usize + (c >> 6) as usize + 4
        })
        .sum::<usize>()
        - (4 - n % 4) % 4;
    let data = b.get(data_at..data_at + data_len)?;
    Some((n, lens, data, (data_at + data_len + 3) & !3))
}

/// Decodes the frame at `p` into `out`; the next frame's position, `None`
/// at the end (or where damage cut the piece short).
#[inline]
fn decode_frame(b: &[u8], p: usize, out: &mut Vec<u32>) -> Option<usize> {
    let (n, lens, data, next) = frame_at(b, p)?;
    out.reserve(n);
    let base = out.len();
    let (ok, i) = decode_gaps(lens, data, &mut out.spare_capacity_mut()[..n]);
    // SAFETY: slots base..base + i were written.
    unsafe { out.set_len(base + i) };
    ok.then_some(next)
}

/// The edges the frames of a piece decode to (their counts summed; frames
/// cut short by damage count as far as they are whole).
pub fn decoded_len(words: &[u32]) -> usize {
    let b = as_bytes(words);
    let (mut p, mut n) = (0, 0);
    while let Some((count, _, _, next)) = frame_at(b, p) {
        n += count;
        p = next;
    }
    n
}

/// [`decode`] into `out`, which holds [`decoded_len`] words: returns the
/// words written (fewer where damage cut the piece short).
pub fn decode_into(words: &[u32], out: &mut [MaybeUninit<u32>]) -> usize {
    let b = as_bytes(words);
    let (mut p, mut w) = (Some(0), 0);
    while let Some(q) = p {
        let Some((n, lens, data, next)) = frame_at(b, q) else {
            break;
        };
        let Some(dst) = out.get_mut(w..w + n) else {
            break;
        };
        let (ok, i) = decode_gaps(lens, data, dst);
        w += i;
        p = ok.then_some(next);
    }
    w
}

/// Decodes a frame's `lens` and gap `data` into `dst` (its count of
/// words): whether the data held every gap, and the words written.
#[inline]
fn decode_gaps(lens: &[u8], data: &[u8], dst: &mut [MaybeUninit<u32>]) -> (bool, usize) {
    let n = dst.len();
    // The first key is coded whole: start one below zero.
    let mut key = u32::MAX;
    let (groups, mut q) = groups(lens, data, dst, &mut key);
    let mut i = 4 * groups;
    let mut ok = true;
    while i < n {
        let len = (lens[i / 4] >> (2 * (i % 4)) & 3) as usize;
        let Some(bytes) = data.get(q..q + len + 1) else {
            ok = false;
            break;
        };
        let mut g = [0u8; 4];
        g[..=len].copy_from_slice(bytes);
        key = key.wrapping_add(u32::from_le_bytes(g)).wrapping_add(1);
        dst[i].write(key.rotate_left(16));
        q += len + 1;
        i += 1;
    }
    (ok, i)
}

/// Decodes the frames of one index entry strictly (for `verify` and the
/// sequential scans): every count, length, gap and padding byte must be
/// exact and keys must stay below 2^32. Calls `f(local src, local dst)` per
/// edge.
pub fn decode_strict(b: &[u8], mut f: impl FnMut(u16, u16)) -> Result<u64, String> {
    let mut p = 0;
    let mut edges = 0u64;
    while p < b.len() {
        let (n, lens, data, next) =
            frame_at(b, p).ok_or_else(|| format!("the frame at byte {p} is cut short"))?;
        if n % 4 != 0 && lens[lens.len() - 1] >> (2 * (n % 4)) != 0 {
            return Err(format!("the frame at byte {p} has lengths past its count"));
        }
        let mut key = 0u64;
        let mut q = 0;
        for i in 0..n {
            let len = (lens[i / 4] >> (2 * (i % 4)) & 3) as usize + 1;
            let mut g = [0u8; 4];
            g[..len].copy_from_slice(&data[q..q + len]);
            q += len;
            let g = u32::from_le_bytes(g) as u64;
            key = if i == 0 { g } else { key + g + 1 };
            if key > u32::MAX as u64 {
                return Err(format!("a key passes 2^32 in the frame at byte {p}"));
            }
            f((key >> 16) as u16, key as u16);
        }
        edges += n as u64;
        let end = p + 4 + lens.len() + data.len();
        if next > b.len() || b[end..next].iter().any(|&x| x != 0) {
            return Err(format!("the padding of the frame at byte {p} is wrong"));
        }
        p = next;
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
                    let before = fast.len();
                    decode(&words(piece), &mut fast);
                    // In place: the same words, as many as decoded_len says.
                    let n = decoded_len(&words(piece));
                    assert_eq!(n, fast.len() - before, "tile {t}");
                    let mut into = vec![MaybeUninit::new(0); n];
                    assert_eq!(decode_into(&words(piece), &mut into), n);
                    // SAFETY: initialised above.
                    let into: Vec<u32> = into.iter().map(|w| unsafe { w.assume_init() }).collect();
                    assert_eq!(into, fast[before..], "tile {t}");
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
                // In place, never past the room given, never panicking.
                let mut into = vec![MaybeUninit::new(0); decoded_len(&words(&bad))];
                assert!(decode_into(&words(&bad), &mut into) <= into.len());
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
