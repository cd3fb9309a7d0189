//! How the records of one bucket, or of one cell of a bucket, are stored in
//! the bucket files: where a record's encoding begins with its radix key
//! ([`Record::KEY_BYTES`]), the key is stored as its difference from the
//! lowest key the bucket (or cell) can hold, in as few bytes as its range
//! needs, then the rest of the encoding. Edge keys in narrow buckets take
//! 5-7 bytes instead of 8; in a cell of a bucket cut into 2048, 11 bits
//! fewer ([`super::cells`]).

use crate::ingest::sort::{KeyBits, Record};

/// The largest record a packed bucket handles.
pub(super) const MAX_RECORD: usize = 64;

/// Keys stored as their difference from `lo` in `width` bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Code {
    pub lo: u128,
    pub width: usize,
}

impl Code {
    /// Bytes a record takes.
    #[inline]
    pub fn rec_bytes<R: Record>(self) -> usize {
        match R::KEY_BYTES {
            0 => R::BYTES,
            k => self.width + R::BYTES - k,
        }
    }

    /// Writes `r` into `out`, `rec_bytes()` long.
    #[inline]
    pub fn encode<R: Record>(self, r: &R, out: &mut [u8]) {
        if R::KEY_BYTES == 0 {
            return r.encode(out);
        }
        let w = self.width;
        let k = r.radix_key().wrapping_sub(self.lo);
        debug_assert!(w >= 16 || k >> (8 * w) == 0, "key outside its range");
        out[..w].copy_from_slice(&k.to_le_bytes()[..w]);
        if R::BYTES > R::KEY_BYTES {
            let mut whole = [0u8; MAX_RECORD];
            r.encode(&mut whole[..R::BYTES]);
            out[w..].copy_from_slice(&whole[R::KEY_BYTES..R::BYTES]);
        }
    }

    /// Writes `r` at `out[at..]`, `rec_bytes()` long; the bytes after it up
    /// to 8 past `at` may be overwritten (with what a later record writes
    /// again) when `out` has them. A record that is its key alone and at
    /// most 8 bytes is then one 8-byte store instead of a copy of a length
    /// known only at run time.
    #[inline]
    pub fn encode_at<R: Record>(self, r: &R, out: &mut [u8], at: usize) {
        if R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 && R::BYTES == R::KEY_BYTES {
            if let Some(dst) = out.get_mut(at..at + 8) {
                let k = (r.radix_key() as u64).wrapping_sub(self.lo as u64);
                debug_assert!(self.width >= 8 || k >> (8 * self.width) == 0);
                dst.copy_from_slice(&k.to_le_bytes());
                return;
            }
        }
        let len = self.rec_bytes::<R>();
        self.encode(r, &mut out[at..at + len]);
    }

    /// Appends the records `b` holds whole (`b.len()` a multiple of
    /// `rec_bytes()`), as [`Self::decode`] reads them, and adds their keys
    /// to `bits` (gathered here, where the keys are in registers, the sort
    /// that follows needs no pass of its own to plan); keys of at most 8
    /// bytes are read as one 8-byte load and masked while 8 bytes remain.
    pub fn decode_into<R: Record>(self, b: &[u8], out: &mut Vec<R>, bits: &mut KeyBits) {
        let rec = self.rec_bytes::<R>();
        let mut done = 0;
        if let Some(l) = self.key_loads::<R>(b.len()) {
            let (mut or, mut and) = (0u64, u64::MAX);
            out.extend((0..l.count).map(|j| {
                let k = l.key(b, j);
                (or, and) = (or | k, and & k);
                R::from_key(k as u128, &[])
            }));
            done = l.count;
            if done > 0 {
                *bits = bits.merge(KeyBits {
                    or: or as u128,
                    and: and as u128,
                });
            }
        }
        let rest = out.len();
        out.extend(
            b[done * rec..b.len() / rec * rec]
                .chunks_exact(rec)
                .map(|c| self.decode::<R>(c)),
        );
        // The rest (wider keys, payloads, the last records): a pass while
        // they are still in cache.
        for r in &out[rest..] {
            bits.add(r.radix_key());
        }
    }

    /// Calls `f` with each record `b` holds whole, in order
    /// ([`Self::decode_into`]'s 8-byte loads where they apply).
    #[inline]
    pub fn decode_each<R: Record>(self, b: &[u8], mut f: impl FnMut(R)) {
        let rec = self.rec_bytes::<R>();
        let mut done = 0;
        if let Some(l) = self.key_loads::<R>(b.len()) {
            for j in 0..l.count {
                f(R::from_key(l.key(b, j) as u128, &[]));
            }
            done = l.count;
        }
        for c in b[done * rec..b.len() / rec * rec].chunks_exact(rec) {
            f(self.decode::<R>(c));
        }
    }

    /// For records that are their key alone, of at most 8 bytes, stored in
    /// `len` bytes: how many from the first can be read as one masked
    /// 8-byte load each (while 8 bytes remain).
    #[inline]
    fn key_loads<R: Record>(self, len: usize) -> Option<KeyLoads> {
        if !(R::KEY_BYTES > 0 && R::KEY_BYTES <= 8 && R::BYTES == R::KEY_BYTES) {
            return None;
        }
        let rec = self.rec_bytes::<R>();
        let w = self.width;
        Some(KeyLoads {
            rec,
            // Record j's key can be loaded as 8 bytes while j * rec + 8 <= len.
            count: match len {
                l if l >= 8 => ((l - 8) / rec + 1).min(len / rec),
                _ => 0,
            },
            mask: if w >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * w)) - 1
            },
            lo: self.lo as u64,
        })
    }

    /// Reads a record from `b`, `rec_bytes()` long.
    #[inline]
    pub fn decode<R: Record>(self, b: &[u8]) -> R {
        if R::KEY_BYTES == 0 {
            return R::decode(b);
        }
        let w = self.width;
        let mut k = [0u8; 16];
        k[..w].copy_from_slice(&b[..w]);
        R::from_key(self.lo.wrapping_add(u128::from_le_bytes(k)), &b[w..])
    }
}

/// Keys read as masked 8-byte loads ([`Code::key_loads`]).
struct KeyLoads {
    rec: usize,
    count: usize,
    mask: u64,
    lo: u64,
}

impl KeyLoads {
    /// The key of record `j` of `b`.
    #[inline(always)]
    fn key(&self, b: &[u8], j: usize) -> u64 {
        let at = j * self.rec;
        let x = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        self.lo.wrapping_add(x & self.mask)
    }
}
