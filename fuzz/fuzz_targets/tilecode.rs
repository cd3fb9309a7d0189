//! The compressed-tile decoders (`store::tilecode`) on arbitrary bytes: the
//! fast decoder (SSSE3 groups, unsafe writes) never panics or overruns,
//! and wherever the strict decoder accepts the bytes both give the same
//! edges; keys taken from the bytes round-trip through the encoder.

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::store::tilecode::{self, FrameEncoder};

fuzz_target!(|data: &[u8]| {
    let mut b = data.to_vec();
    b.resize(b.len().next_multiple_of(4), 0);
    let words: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut fast = Vec::new();
    let n = tilecode::decode(&words, &mut fast);
    assert_eq!(n, fast.len());
    let mut strict = Vec::new();
    if let Ok(n) = tilecode::decode_strict(&b, |s, d| strict.push(s as u32 | (d as u32) << 16)) {
        assert_eq!(n as usize, strict.len());
        assert_eq!(fast, strict);
    }
    // The bytes as sorted keys of one tile: coded, then decoded alike.
    let mut keys: Vec<u32> = words.clone();
    keys.sort_unstable();
    keys.dedup();
    let mut enc = FrameEncoder::default();
    enc.begin_tile();
    for &k in &keys {
        enc.push(k);
    }
    let (coded, len) = enc.finish();
    assert_eq!(coded.len() as u64, len);
    let mut back = Vec::new();
    tilecode::decode_strict(&coded, |s, d| back.push((s as u32) << 16 | d as u32)).unwrap();
    assert_eq!(back, keys);
});
