//! The compressed CSR page decoder (`store::csrcode`, page-huff: a tag, then
//! stream-vbyte or Huffman-coded bit lengths) on arbitrary bytes: it never
//! panics or writes past the page (stream-vbyte's group path decodes with
//! SSSE3 shuffles, Huffman's reads its streams 8 bytes at a time); a page it accepts has no padding among its entries
//! and codes back to bytes that decode to the same page; and a page of
//! slots taken from the input codes and decodes to itself.

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::store::csrcode::{decode_page, encode_page};

/// Plain page slots: entries, then padding.
const PAD: u32 = u32::MAX;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    // Pages of 16 to 4096 bytes.
    let page_bytes = 16usize << (ctl % 9);
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
