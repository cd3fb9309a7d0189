//! Compressed CSR pages (`import --compress[=fast|small]`, manifest
//! `csr.compression` [`SVB`] or [`HUFF`]): CEESOR's gap coding of sorted adjacency lists
//! (../shared/papers/003), applied to each page of the page-packed CSR
//! ([`super::csr`]).
//!
//! The slot space stays the plain one: offsets, degrees and weights are
//! those of the plain store, and a reader that decodes page `p` holds
//! exactly the bytes the plain `csr/{dir}.adj` has there. Only how a page
//! lies on disk changes:
//!
//! ```text
//! csr/{dir}.adz   coded pages back to back: the deltas x_i - x_{i-1} of each
//!                 page's entries (x_{-1} = 0), in stream-vbyte ([`svb`]) for
//!                 `fast`, or for `small` a tag byte and then 0: stream-vbyte
//!                 or 1: Huffman-coded bit lengths ([`huff`]); a wide store's
//!                 pages (8-byte ids) as their low halves in that code and
//!                 the carries the halves lose ([`wide`])
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
//! Two codes, because neither wins both ways
//! (docs/history/BENCHMARKS-2026-11.md, "CSR codes"): stream-vbyte decodes ten times faster, so a select run on a
//! fast disk is quicker with it; Huffman-coded bit lengths store 25-35%
//! fewer bytes (under CEESOR's bits on p2p-Gnutella31), for slow disks and
//! small budgets. `small` takes, page by page, the smaller of the two
//! (stream-vbyte on a tie), which also bounds a narrow page at 4 bytes and
//! 2 bits an entry (a wide page at its plain bytes and 5).
//!
//! One read per list still holds: a list that fits a plain page lies in one
//! coded page, which lies in one or two 4 KiB blocks of `.adz`; the
//! directory (8 bytes a page, 0.2% of the plain file) is loaded whole.
//! Page checksums ([`super::pagesums`]) cover the coded bytes, so a read is
//! checked before it is decoded; the decoders are strict (counts, lengths,
//! code tables, no id equal to [`PAD`]; in a wide page, ids below 2^63 and
//! the carries' counts and indexes) so a damaged page without sums is an
//! error too.

mod dir;
pub mod huff;
mod reads;
pub mod svb;
pub mod wide;

pub use dir::PageDir;
pub use reads::CodedReads;

use super::csr::PAD;
use crate::error::{Error, Result};
use crate::io::ALIGN;

/// The manifest's name of [`Code::Small`]: tagged pages, each in the
/// smaller of [`svb`] and [`huff`].
pub const HUFF: &str = "page-huff";
/// The manifest's name of [`Code::Fast`]: every page in [`svb`], untagged.
pub const SVB: &str = "page-svb";

/// How `--compress` codes the CSR's pages (the tiles' code is the same for
/// both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Code {
    /// Stream-vbyte ([`SVB`]): decodes at 2.5 G entries/s on one core.
    #[default]
    Fast,
    /// The smaller of Huffman-coded bit lengths and stream-vbyte, page by
    /// page ([`HUFF`]): 25-35% fewer bytes on the graphs measured, decodes
    /// at about 0.27 G entries/s.
    Small,
}

impl Code {
    /// The manifest's name of the code.
    pub fn codec(self) -> &'static str {
        match self {
            Code::Fast => SVB,
            Code::Small => HUFF,
        }
    }
}

impl std::str::FromStr for Code {
    type Err = Error;
    fn from_str(s: &str) -> Result<Code> {
        match s {
            "fast" => Ok(Code::Fast),
            "small" => Ok(Code::Small),
            _ => Err(Error::Invalid(format!(
                "unknown compression `{s}`: expected fast (stream-vbyte) or small (Huffman-coded bit lengths where smaller)"
            ))),
        }
    }
}

/// A page's tag: stream-vbyte follows.
const TAG_SVB: u8 = 0;
/// A page's tag: Huffman-coded bit lengths follow.
const TAG_HUFF: u8 = 1;

/// The coded adjacency and the page directory of direction `which`.
pub fn files(which: &str) -> (String, String) {
    (format!("csr/{which}.adz"), format!("csr/{which}.pgi"))
}

/// The largest coded size of a page of `slots` narrow slots (its tag and
/// the largest stream-vbyte form), and of a wide page of the same bytes
/// ([`wide`]: at most its plain bytes and 5).
pub fn max_coded(slots: usize) -> usize {
    1 + svb::max_coded(slots)
}

/// Appends the coded form of one plain page (its slots, entries then
/// padding) to `out` in `code`.
pub fn encode(code: Code, slots: &[u32], out: &mut Vec<u8>) {
    let k = slots.iter().position(|&x| x == PAD).unwrap_or(slots.len());
    debug_assert!(
        slots[k..].iter().all(|&x| x == PAD),
        "padding inside a page"
    );
    encode_entries(code, &slots[..k], out);
}

/// Appends the coded form of a page's entries (its slots before the
/// padding; any u32 values) to `out` in `code`.
fn encode_entries(code: Code, entries: &[u32], out: &mut Vec<u8>) {
    match code {
        Code::Fast => svb::encode(entries, out),
        Code::Small => {
            let at = out.len();
            out.push(TAG_HUFF);
            huff::encode(entries, out);
            if out.len() - at > svb::coded_len(entries) {
                out.truncate(at);
                out.push(TAG_SVB);
                svb::encode(entries, out);
            }
        }
    }
}

/// Appends the [`Code::Small`] form of one plain page (its slots, entries
/// then padding) to `out`: a tag and the smaller code.
pub fn encode_page(slots: &[u32], out: &mut Vec<u8>) {
    encode(Code::Small, slots, out)
}

/// Decodes the [`Code::Small`] page (tag first) at the start of `coded` into `page`
/// (the plain page's bytes: little-endian u32 slots, the tail padded);
/// returns the coded bytes consumed, or what is wrong with them.
pub fn decode_page(coded: &[u8], page: &mut [u8]) -> std::result::Result<usize, String> {
    decode_tagged(coded, page, true)
}

/// [`decode_page`]; the entries may be any u32 values unless `ids`.
fn decode_tagged(coded: &[u8], page: &mut [u8], ids: bool) -> std::result::Result<usize, String> {
    let used = match (coded.first(), ids) {
        (Some(&TAG_SVB), true) => svb::decode(&coded[1..], page)?,
        (Some(&TAG_SVB), false) => svb::decode_words(&coded[1..], page)?,
        (Some(&TAG_HUFF), true) => huff::decode(&coded[1..], page)?,
        (Some(&TAG_HUFF), false) => huff::decode_words(&coded[1..], page)?,
        (Some(t), _) => return Err(format!("a page tagged {t}; the tags are 0 and 1")),
        (None, _) => return Err("the page's tag is cut off".into()),
    };
    Ok(1 + used)
}

/// Bytes an aligned read of `pages` consecutive coded pages of
/// `page_bytes` each may need: their longest coded form, from anywhere in
/// a block.
pub fn read_bytes(pages: usize, page_bytes: usize) -> usize {
    (pages * max_coded(page_bytes / 4)).next_multiple_of(ALIGN) + ALIGN
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(page: &[u32]) -> Vec<u8> {
        page.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Sorted lists back to back: small gaps inside, jumps either way
    /// between them.
    fn lists() -> impl Strategy<Value = Vec<u32>> {
        let list = prop::collection::btree_set(0u32..u32::MAX, 0..40);
        (prop::collection::vec(list, 0..30), 0u32..4).prop_map(|(ls, scale)| {
            ls.into_iter()
                .flat_map(|s| {
                    let m = [5_000, 70_000, 1 << 24, u32::MAX][scale as usize];
                    let s: std::collections::BTreeSet<u32> = s.into_iter().map(|x| x % m).collect();
                    s.into_iter()
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn pages_round_trip_in_both_codes(entries in lists(), slots in 1usize..1100) {
            let mut page = entries;
            page.truncate(slots);
            page.resize(slots, PAD);
            for code in [Code::Fast, Code::Small] {
                let mut coded = vec![7u8];
                encode(code, &page, &mut coded);
                prop_assert!(coded.len() - 1 <= max_coded(slots));
                let mut out = vec![0u8; 4 * slots];
                let used = match code {
                    Code::Fast => svb::decode(&coded[1..], &mut out),
                    Code::Small => decode_page(&coded[1..], &mut out),
                };
                prop_assert_eq!(used, Ok(coded.len() - 1));
                prop_assert_eq!(&out, &bytes(&page));
                // `small` is never larger than stream-vbyte and its tag.
                let k = page.iter().position(|&x| x == PAD).unwrap_or(slots);
                if code == Code::Small {
                    prop_assert!(coded.len() - 1 <= 1 + svb::coded_len(&page[..k]));
                }
            }
        }
    }

    /// Small gaps take the Huffman code; a page of a few scattered ids
    /// stays stream-vbyte; both decode. Damage is refused: an unknown tag,
    /// cut codes, a table that is no prefix code, stray padding bits.
    #[test]
    fn the_smaller_code_is_taken_and_damage_refused() {
        let near: Vec<u32> = (0..1024).map(|i| 1000 + 3 * i).collect();
        let mut coded = Vec::new();
        encode(Code::Small, &near, &mut coded);
        assert_eq!(coded[0], TAG_HUFF);
        assert!(coded.len() < svb::coded_len(&near) / 3, "{}", coded.len());
        let mut out = vec![0u8; 4096];
        assert_eq!(decode_page(&coded, &mut out), Ok(coded.len()));
        assert_eq!(out, bytes(&near));
        let mut few = vec![PAD; 8];
        few[0] = 4_000_000_000;
        let mut c2 = Vec::new();
        encode(Code::Small, &few, &mut c2);
        assert_eq!(c2[0], TAG_SVB);
        let mut out8 = vec![0u8; 32];
        assert_eq!(decode_page(&c2, &mut out8), Ok(c2.len()));
        assert_eq!(out8, bytes(&few));

        let refused = |bad: &[u8]| decode_page(bad, &mut vec![0u8; 4096]).is_err();
        assert!(refused(&[]));
        let mut bad = coded.clone();
        bad[0] = 2;
        assert!(refused(&bad));
        assert!(refused(&coded[..coded.len() - 1]));
        // The code table: classes 0..P, then N; P past 33.
        let mut bad = coded.clone();
        bad[5] = 40;
        assert!(refused(&bad));
        // A code length changed: the lengths no longer fill the code space.
        let mut bad = coded.clone();
        bad[7] ^= 0x11;
        assert!(refused(&bad));
        // A page of one entry whose last byte has bits past its codes.
        let mut one = Vec::new();
        huff::encode(&[5], &mut one);
        let mut out4 = vec![0u8; 4];
        assert_eq!(huff::decode(&one, &mut out4), Ok(one.len()));
        let last = one.len() - 1;
        one[last] |= 0x80;
        assert!(huff::decode(&one, &mut out4).is_err());
    }
}
