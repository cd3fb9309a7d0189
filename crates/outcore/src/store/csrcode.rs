//! Compressed CSR pages (`import --compress`, manifest `csr.compression`
//! [`CODEC`]): CEESOR's gap coding of sorted adjacency lists
//! (../shared/papers/003), applied to each page of the page-packed CSR
//! ([`super::csr`]), the codes in Lemire's stream-vbyte (the tiles' code,
//! [`super::tilecode`]).
//!
//! The slot space stays the plain one: offsets, degrees and weights are
//! those of the plain store, and a reader that decodes page `p` holds
//! exactly the bytes the plain `csr/{dir}.adj` has there. Only how a page
//! lies on disk changes:
//!
//! ```text
//! csr/{dir}.adz   coded pages back to back:
//!                 u32 entries | entries 2-bit lengths, four a byte (length - 1) |
//!                 zigzag(x_i - x_{i-1} mod 2^32) of each entry (x_{-1} = 0) in 1-4 bytes
//! csr/{dir}.pgi   u64 byte offset of every coded page in .adz, plus the total
//! ```
//!
//! A page's entries are its lists one after another (padding only at its
//! end), so inside a list the delta is the gap to the previous neighbour
//! and at a list's start the signed jump from the previous list's last
//! neighbour (CEESOR codes the first neighbour against the vertex id; a
//! page does not know its vertices, and keeps no list lengths: the offsets
//! have them). Padding is not stored: the decoder fills the page's tail.
//!
//! One read per list still holds: a list that fits a plain page lies in one
//! coded page, which lies in one or two 4 KiB blocks of `.adz`; the
//! directory (8 bytes a page, 0.2% of the plain file) is loaded whole.
//! Page checksums ([`super::pagesums`]) cover the coded bytes, so a read is
//! checked before it is decoded; the decoder is strict (counts, lengths,
//! no id equal to [`PAD`]) so a damaged page without sums is an error too.

use super::csr::PAD;
use super::file::read_u64s;
use super::pagesums::{self, PageSums};
use super::tilecode::groups::{GROUPS, SHUFFLES};
use super::Store;
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, ALIGN};
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::path::PathBuf;
use std::sync::Arc;

/// The manifest's name of this code.
pub const CODEC: &str = "page-svb";

/// The coded adjacency and the page directory of direction `which`.
pub fn files(which: &str) -> (String, String) {
    (format!("csr/{which}.adz"), format!("csr/{which}.pgi"))
}

/// The largest coded size of a page of `slots` slots.
pub fn max_coded(slots: usize) -> usize {
    4 + slots.div_ceil(4) + 4 * slots
}

/// The delta from `prev` to `x` modulo 2^32, as a signed 32-bit value
/// zigzagged (small either way, ids anywhere in `0..2^32`).
#[inline]
fn zigzag(x: u32, prev: u32) -> u32 {
    let d = x.wrapping_sub(prev) as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

#[inline]
fn unzigzag(z: u32, prev: u32) -> u32 {
    prev.wrapping_add((z >> 1) ^ (z & 1).wrapping_neg())
}

/// Bytes an aligned read of `pages` consecutive coded pages of
/// `page_bytes` each may need: their longest coded form, from anywhere in
/// a block.
pub fn read_bytes(pages: usize, page_bytes: usize) -> usize {
    (pages * max_coded(page_bytes / 4)).next_multiple_of(ALIGN) + ALIGN
}

/// Appends the coded form of one plain page (its slots, entries then
/// padding) to `out`.
pub fn encode_page(slots: &[u32], out: &mut Vec<u8>) {
    let k = slots.iter().position(|&x| x == PAD).unwrap_or(slots.len());
    debug_assert!(
        slots[k..].iter().all(|&x| x == PAD),
        "padding inside a page"
    );
    out.extend_from_slice(&(k as u32).to_le_bytes());
    let lens_at = out.len();
    out.resize(lens_at + k.div_ceil(4), 0);
    let mut prev = 0u32;
    for (i, &x) in slots[..k].iter().enumerate() {
        let z = zigzag(x, prev);
        prev = x;
        let len = match z {
            0..=0xff => 0,
            0x100..=0xffff => 1,
            0x1_0000..=0xff_ffff => 2,
            _ => 3,
        };
        out[lens_at + i / 4] |= (len as u8) << (2 * (i % 4));
        out.extend_from_slice(&z.to_le_bytes()[..len + 1]);
    }
}

/// Decodes the coded page at the start of `coded` into `page` (the plain
/// page's bytes: little-endian u32 slots, the tail padded); returns the
/// coded bytes consumed, or what is wrong with them.
pub fn decode_page(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    let slots = page.len() / 4;
    let head: [u8; 4] = coded
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or("the page's entry count is cut off")?;
    let k = u32::from_le_bytes(head) as usize;
    if k > slots {
        return Err(format!("a page claims {k} entries; a page holds {slots}"));
    }
    let lens = coded
        .get(4..4 + k.div_ceil(4))
        .ok_or("the page's lengths are cut off")?;
    let data = &coded[4 + lens.len()..];
    let mut prev = 0u32;
    // Whole groups of four while a 16-byte load stays in the data, then
    // one entry at a time.
    let (g, mut q) = groups(lens, data, &mut page[..4 * (k / 4 * 4)], &mut prev);
    if g == usize::MAX {
        return Err("an entry decodes to the padding value, not a vertex id".into());
    }
    for (i, out) in page.chunks_exact_mut(4).take(k).enumerate().skip(4 * g) {
        let c = lens[i / 4];
        let len = ((c >> (2 * (i % 4))) & 3) as usize;
        let z = match data.get(q..q + 4) {
            Some(w) => {
                u32::from_le_bytes(w.try_into().expect("4 bytes")) & (u32::MAX >> (24 - 8 * len))
            }
            None => {
                let w = data
                    .get(q..q + len + 1)
                    .ok_or("the page's codes are cut off")?;
                w.iter().rev().fold(0u32, |a, &b| a << 8 | b as u32)
            }
        };
        q += len + 1;
        let x = unzigzag(z, prev);
        if x == PAD {
            return Err(format!("entry {i} decodes to {x}, not a vertex id"));
        }
        prev = x;
        out.copy_from_slice(&x.to_le_bytes());
    }
    if !k.is_multiple_of(4) && lens[k / 4] >> (2 * (k % 4)) != 0 {
        return Err("the page's unused length bits are not zero".into());
    }
    page[4 * k..].fill(0xff);
    Ok(4 + lens.len() + q)
}

/// Decodes whole groups of four codes into `out` (4 slots a group) while a
/// 16-byte load stays inside `data`, continuing from `prev`; returns
/// (groups, bytes) decoded, groups `usize::MAX` when an entry decodes to
/// [`PAD`]. SSSE3 where the CPU has it (one shuffle, the zigzag undone
/// and a prefix sum in registers a group), else table-driven scalar loads.
fn groups(lens: &[u8], data: &[u8], out: &mut [u8], prev: &mut u32) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3.
        return unsafe { groups_ssse3(lens, data, out, prev) };
    }
    groups_scalar(lens, data, out, prev)
}

fn groups_scalar(lens: &[u8], data: &[u8], out: &mut [u8], prev: &mut u32) -> (usize, usize) {
    let (mut q, mut g, mut bad) = (0usize, 0usize, false);
    for (group, &c) in out.chunks_exact_mut(16).zip(lens) {
        let Some(window) = data.get(q..q + 16) else {
            break;
        };
        let (offs, total) = &GROUPS[c as usize];
        for (k, slot) in group.chunks_exact_mut(4).enumerate() {
            let o = offs[k] as usize;
            let len = (c >> (2 * k)) & 3;
            let z = u32::from_le_bytes(window[o..o + 4].try_into().expect("4 bytes"))
                & (u32::MAX >> (24 - 8 * len));
            *prev = unzigzag(z, *prev);
            bad |= *prev == PAD;
            slot.copy_from_slice(&prev.to_le_bytes());
        }
        q += *total as usize;
        g += 1;
    }
    (if bad { usize::MAX } else { g }, q)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn groups_ssse3(lens: &[u8], data: &[u8], out: &mut [u8], prev: &mut u32) -> (usize, usize) {
    use std::arch::x86_64::*;
    let (mut q, mut g) = (0, 0);
    let groups = (out.len() / 16).min(lens.len());
    let (ones, zero, pad) = (_mm_set1_epi32(1), _mm_setzero_si128(), _mm_set1_epi32(-1));
    let mut last = _mm_set1_epi32(*prev as i32);
    let mut bad = _mm_setzero_si128();
    while g < groups && q + 16 <= data.len() {
        let c = lens[g] as usize;
        // SAFETY: q + 16 <= data.len(); SHUFFLES[c] is 16 bytes; the 16
        // bytes at 16g lie in out (g < out.len() / 16).
        unsafe {
            let x = _mm_loadu_si128(data.as_ptr().add(q) as *const __m128i);
            let m = _mm_loadu_si128(SHUFFLES[c].as_ptr() as *const __m128i);
            let z = _mm_shuffle_epi8(x, m);
            // (z >> 1) ^ -(z & 1), then summed along the lanes onto the last.
            let d = _mm_xor_si128(
                _mm_srli_epi32(z, 1),
                _mm_sub_epi32(zero, _mm_and_si128(z, ones)),
            );
            let v = _mm_add_epi32(d, _mm_slli_si128(d, 4));
            let v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
            let v = _mm_add_epi32(v, last);
            last = _mm_shuffle_epi32(v, 0xFF);
            bad = _mm_or_si128(bad, _mm_cmpeq_epi32(v, pad));
            _mm_storeu_si128(out.as_mut_ptr().add(16 * g) as *mut __m128i, v);
        }
        q += GROUPS[c].1 as usize;
        g += 1;
    }
    *prev = _mm_cvtsi128_si32(last) as u32;
    let bad = _mm_movemask_epi8(bad) != 0;
    (if bad { usize::MAX } else { g }, q)
}

/// The page directory of one coded direction, in memory (charged).
pub struct PageDir {
    offsets: Vec<u64>,
    path: PathBuf,
    page_bytes: usize,
    _charge: Charge,
}

impl PageDir {
    /// Loads the directory of `which` (checked whole against the manifest
    /// and against the coded file's size), or `None` for a plain store.
    pub fn load(store: &Store, which: &str, budget: &Budget) -> Result<Option<PageDir>> {
        let m = store.manifest();
        if m.csr.compression.is_none() {
            return Ok(None);
        }
        let (adz, pgi) = files(which);
        let entry = m.files.get(&pgi).ok_or_else(|| {
            Error::store(store.path(), format!("{pgi} is missing from the manifest"))
        })?;
        let charge = budget.charge(entry.bytes, "CSR page directory")?;
        let path = store.file(&pgi);
        if &super::file::checksum(&path)? != entry {
            return Err(Error::store(
                &path,
                "checksum mismatch; the store is damaged (run `outcore verify`)",
            ));
        }
        let offsets = read_u64s(&path)?;
        let coded = m.files.get(&adz).map_or(0, |f| f.bytes);
        let page_bytes = m.csr.page_bytes as usize;
        let slots = if which == "in" {
            m.csr.in_slots
        } else {
            m.csr.out_slots
        };
        let pages = slots / (page_bytes as u64 / 4);
        let max = max_coded(page_bytes / 4) as u64;
        let ok = offsets.len() as u64 == pages + 1
            && offsets.first() == Some(&0)
            && offsets.last() == Some(&coded)
            && offsets
                .windows(2)
                .all(|w| w[0] < w[1] && w[1] - w[0] <= max);
        if !ok {
            return Err(Error::store(
                &path,
                format!(
                    "does not describe {pages} coded pages in {coded} bytes; the store is damaged"
                ),
            ));
        }
        Ok(Some(PageDir {
            offsets,
            path: store.file(&adz),
            page_bytes,
            _charge: charge,
        }))
    }

    /// Plain pages.
    pub fn pages(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Bytes of the coded file.
    pub fn coded_bytes(&self) -> u64 {
        *self.offsets.last().expect("a closing offset")
    }

    /// Bytes `[start, end)` of the coded file that pages `p0..p1` occupy.
    pub fn span(&self, p0: u64, p1: u64) -> (u64, u64) {
        (self.offsets[p0 as usize], self.offsets[p1 as usize])
    }

    /// The aligned read `[start, end)` (multiples of `align`, `end` at most
    /// the file's end) that covers pages `p0..p1`.
    pub fn aligned_span(&self, p0: u64, p1: u64, align: u64) -> (u64, u64) {
        let (s, e) = self.span(p0, p1);
        (
            s / align * align,
            e.next_multiple_of(align).min(self.coded_bytes()),
        )
    }

    /// Decodes pages `p0..p1` from `buf` (coded bytes read from file offset
    /// `at`, covering their span) into `out` (`(p1 - p0)` plain pages).
    pub fn decode(&self, p0: u64, p1: u64, buf: &[u8], at: u64, out: &mut [u8]) -> Result<()> {
        for (p, page) in (p0..p1).zip(out.chunks_exact_mut(self.page_bytes)) {
            let (s, e) = self.span(p, p + 1);
            let bytes = s
                .checked_sub(at)
                .and_then(|s| buf.get(s as usize..(e - at) as usize))
                .ok_or_else(|| Error::Invalid(format!("coded page {p} lies outside the read")))?;
            match decode_page(bytes, page) {
                Ok(n) if n == bytes.len() => {}
                Ok(n) => {
                    return Err(Error::store(
                        &self.path,
                        format!("coded page {p} ends after {n} of its {} bytes; the store is damaged (run `outcore verify`)", bytes.len()),
                    ))
                }
                Err(why) => {
                    return Err(Error::store(
                        &self.path,
                        format!("coded page {p}: {why}; the store is damaged (run `outcore verify`)"),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Reads of single coded pages into staging buffers, decoded into plain
/// pages on completion (the select engine's buffer pool: its frames hold
/// plain pages, its reads go through here).
pub struct CodedReads {
    dir: Arc<PageDir>,
    bufs: Vec<AlignedBuf>,
    free: Vec<usize>,
}

impl CodedReads {
    /// Bytes of one staging buffer for pages of `page_bytes`: the longest
    /// coded page, from anywhere in a block.
    pub fn staging_bytes(page_bytes: u64) -> u64 {
        read_bytes(1, page_bytes as usize) as u64
    }

    /// `slots` staging buffers (one per read in flight), charged to `budget`.
    pub fn new(dir: Arc<PageDir>, slots: usize, budget: &Budget) -> Result<CodedReads> {
        let len = Self::staging_bytes(dir.page_bytes as u64) as usize;
        let bufs = (0..slots.max(1))
            .map(|_| AlignedBuf::new(len, budget, "coded page staging"))
            .collect::<Result<Vec<_>>>()?;
        Ok(CodedReads {
            free: (0..bufs.len()).rev().collect(),
            dir,
            bufs,
        })
    }

    /// Plain pages of the direction.
    pub fn pages(&self) -> u64 {
        self.dir.pages()
    }

    /// Takes a staging buffer for page `p`: (slot, file offset, length,
    /// buffer), or `None` when every one is in use.
    pub fn start(&mut self, p: u64) -> Option<(usize, u64, usize, *mut u8)> {
        let slot = self.free.pop()?;
        let (s, e) = self.dir.aligned_span(p, p + 1, ALIGN as u64);
        let len = ((e - s) as usize).next_multiple_of(ALIGN);
        Some((slot, s, len, self.bufs[slot].as_mut_ptr()))
    }

    /// Ends the read of page `p` into `slot` (`n` bytes arrived, or the
    /// read's error): checks
    /// them against `sums` and decodes the page into `page`; frees the slot
    /// whatever happens.
    pub fn finish(
        &mut self,
        slot: usize,
        p: u64,
        n: std::io::Result<usize>,
        sums: &Option<Arc<PageSums>>,
        page: &mut [u8],
    ) -> Result<()> {
        self.free.push(slot);
        let n = n.map_err(|e| Error::io(&self.dir.path, e))?;
        let (s, e) = self.dir.aligned_span(p, p + 1, ALIGN as u64);
        if (n as u64) < e - s {
            return Err(Error::io(
                &self.dir.path,
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "short read of coded page {p}: {n} of {} bytes at offset {s}",
                        e - s
                    ),
                ),
            ));
        }
        let bytes = &self.bufs[slot].as_slice()[..(e - s) as usize];
        pagesums::check(sums, s, bytes)?;
        self.dir.decode(p, p + 1, bytes, s, page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plain(lists: &[Vec<u32>], slots: usize) -> Vec<u32> {
        let mut page: Vec<u32> = lists.iter().flatten().copied().collect();
        page.resize(slots, PAD);
        page
    }

    fn bytes(page: &[u32]) -> Vec<u8> {
        page.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    proptest! {
        #[test]
        fn pages_round_trip(
            lists in prop::collection::vec(prop::collection::btree_set(0u32..u32::MAX, 0..40), 0..30),
            small in any::<bool>(),
        ) {
            let lists: Vec<Vec<u32>> = lists
                .into_iter()
                .map(|s| s.into_iter().map(|x| if small { x % 5000 } else { x }).collect::<std::collections::BTreeSet<u32>>().into_iter().collect())
                .collect();
            let slots = 1024;
            let mut all: Vec<u32> = lists.iter().flatten().copied().collect();
            all.truncate(slots);
            let page = plain(&[all], slots);
            let mut coded = vec![7u8];
            encode_page(&page, &mut coded);
            prop_assert!(coded.len() - 1 <= max_coded(slots));
            let mut out = vec![0u8; 4 * slots];
            prop_assert_eq!(decode_page(&coded[1..], &mut out), Ok(coded.len() - 1));
            prop_assert_eq!(out, bytes(&page));
        }
    }

    /// The SSSE3 groups and the portable ones agree (codes of every
    /// length, jumps both ways, a padding value caught).
    #[test]
    fn group_decoders_agree() {
        let mut r = 12345u64;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r
        };
        let page: Vec<u32> = (0..1024)
            .map(|i| match i % 7 {
                0 => next() as u32 >> 1,
                1 => (next() % 300) as u32,
                _ => (next() % 70_000) as u32,
            })
            .collect();
        let mut coded = Vec::new();
        encode_page(&page, &mut coded);
        let (lens, data) = coded[4..].split_at(256);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        let (mut pa, mut pb) = (0, 0);
        let sa = groups(lens, data, &mut a, &mut pa);
        let sb = groups_scalar(lens, data, &mut b, &mut pb);
        assert_eq!((sa, pa), (sb, pb));
        assert!(sa.0 > 200);
        assert_eq!(a[..16 * sa.0], b[..16 * sa.0]);
        assert_eq!(a[..16 * sa.0], bytes(&page)[..16 * sa.0]);
        let mut out = vec![0u8; 4096];
        assert_eq!(decode_page(&coded, &mut out), Ok(coded.len()));
        assert_eq!(out, bytes(&page));
        // Eight 1-byte codes; the sixth steps from 0 to -1: the padding.
        let (lens, mut data) = (&[0u8, 0][..], vec![0u8; 24]);
        data[5] = 1;
        let data = &data[..];
        assert_eq!(groups(lens, data, &mut a[..32], &mut 0).0, usize::MAX);
        assert_eq!(
            groups_scalar(lens, data, &mut a[..32], &mut 0).0,
            usize::MAX
        );
    }

    #[test]
    fn extremes_and_damage() {
        let page = plain(&[vec![0, 1, PAD - 1], vec![3, PAD - 2], vec![0]], 8);
        let mut coded = Vec::new();
        encode_page(&page, &mut coded);
        let mut out = vec![0u8; 32];
        assert_eq!(decode_page(&coded, &mut out), Ok(coded.len()));
        assert_eq!(out, bytes(&page));
        // An empty page is its count.
        let mut empty = Vec::new();
        encode_page(&[PAD; 8], &mut empty);
        assert_eq!(empty, [0, 0, 0, 0]);
        assert_eq!(decode_page(&empty, &mut out), Ok(4));
        assert!(out.iter().all(|&b| b == 0xff));
        // Too many entries, cut codes, a value out of range.
        assert!(decode_page(&[9, 0, 0, 0], &mut out).is_err());
        assert!(decode_page(&coded[..coded.len() - 1], &mut out).is_err());
        let mut bad = Vec::new();
        encode_page(&plain(&[vec![PAD - 1]], 8), &mut bad);
        bad[5] ^= 2; // the entry codes -1 from 0: PAD
        assert!(decode_page(&bad, &mut out).is_err());
    }
}
