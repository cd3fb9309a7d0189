//! The compressed CSR page decoder (`store::csrcode`, page-huff: a tag, then
//! stream-vbyte or Huffman-coded bit lengths) on arbitrary bytes: it never
//! panics or writes past the page (stream-vbyte's group path decodes with
//! SSSE3 shuffles, Huffman's reads its streams 8 bytes at a time); a page it accepts has no padding among its entries
//! and codes back to bytes that decode to the same page; and a page of
//! slots taken from the input codes and decodes to itself. The same for
//! wide pages (`csrcode::wide`: the low halves in either code, carries, or
//! plain ids) when the control byte's top bit is set.

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::store::csrcode::{decode_page, encode_page, wide, Code};

/// Plain page slots: entries, then padding.
const PAD: u32 = u32::MAX;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    // Pages of 16 to 4096 bytes.
    let page_bytes = 16usize << ((ctl & 0x3f) % 9);
    if ctl & 0x80 != 0 {
        return wide_pages(rest, page_bytes, ctl & 0x40 != 0);
    }
    let mut page = vec![0u8; page_bytes];
    if let Ok(used) = decode_page(rest, &mut page) {
        assert!(used <= rest.len());
        let slots: Vec<u32> = page
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let k = slots.iter().position(|&x| x == PAD).unwrap_or(slots.len());
        assert!(
            slots[k..].iter().all(|&x| x == PAD),
            "padding inside a page"
        );
        let mut coded = Vec::new();
        encode_page(&slots, &mut coded);
        let mut again = vec![0u8; page_bytes];
        assert_eq!(decode_page(&coded, &mut again), Ok(coded.len()));
        assert_eq!(again, page);
    }
    // The input as a page's entries (no padding value among them).
    let mut slots: Vec<u32> = rest
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .filter(|&x| x != PAD)
        .take(page_bytes / 4)
        .collect();
    slots.resize(page_bytes / 4, PAD);
    let mut coded = Vec::new();
    encode_page(&slots, &mut coded);
    let mut plain = vec![0u8; page_bytes];
    assert_eq!(decode_page(&coded, &mut plain), Ok(coded.len()));
    let want: Vec<u8> = slots.iter().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(plain, want);
});

/// Wide pages in the store's code (`small` when `tagged`).
fn wide_pages(rest: &[u8], page_bytes: usize, tagged: bool) {
    let code = if tagged { Code::Small } else { Code::Fast };
    let ids = |page: &[u8]| -> Vec<u64> {
        page.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let mut page = vec![0u8; page_bytes];
    if let Ok(used) = wide::decode(rest, &mut page, tagged) {
        assert!(used <= rest.len());
        let slots = ids(&page);
        let k = slots
            .iter()
            .position(|&x| x == u64::MAX)
            .unwrap_or(slots.len());
        assert!(
            slots[k..].iter().all(|&x| x == u64::MAX),
            "padding inside a page"
        );
        assert!(slots[..k].iter().all(|&x| x < 1 << 63), "an id past 2^63");
        let mut coded = Vec::new();
        wide::encode(code, &slots, &mut coded);
        let mut again = vec![0u8; page_bytes];
        assert_eq!(wide::decode(&coded, &mut again, tagged), Ok(coded.len()));
        assert_eq!(again, page);
    }
    // The input as a page's ids (below 2^63, in any order).
    let mut slots: Vec<u64> = ids(rest)
        .into_iter()
        .filter(|&x| x < 1 << 63)
        .take(page_bytes / 8)
        .collect();
    slots.resize(page_bytes / 8, u64::MAX);
    let mut coded = Vec::new();
    wide::encode(code, &slots, &mut coded);
    assert!(coded.len() <= 5 + page_bytes);
    let mut plain = vec![0u8; page_bytes];
    assert_eq!(wide::decode(&coded, &mut plain, tagged), Ok(coded.len()));
    assert_eq!(ids(&plain), slots);
}
