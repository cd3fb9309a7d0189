//! Decode throughput of compressed tiles on one core (`benches/compress.sh`):
//! reads a store's `tiles/edges.bin` into memory, then decodes every frame
//! with the engines' decoder, against a pass over plain tile words; then,
//! with a compressed CSR, decodes its out pages (Huffman or stream-vbyte
//! each) against the same pages all in stream-vbyte.
//!
//!   cargo run --release --example decode -- STORE [MAX_BYTES]

use outcore::mem::Budget;
use outcore::store::csr::SlotWidth;
use outcore::store::csrcode::{self, PageDir};
use outcore::store::tilecode;
use outcore::store::tiles::{IndexEntry, EDGES_FILE, INDEX_FILE};
use outcore::store::Store;
use std::time::Instant;

/// Passes over the tiles (the figures are their mean).
const REPS: u64 = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: decode STORE [MAX_BYTES]")?;
    let max: u64 = args.next().map_or(Ok(1 << 30), |s| s.parse())?;
    let store = Store::open(path.as_ref())?;
    let m = store.manifest();
    let raw = std::fs::read(store.file(INDEX_FILE))?;
    let entries = IndexEntry::decode_all(&raw);
    let bytes = std::fs::read(store.file(EDGES_FILE))?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Pieces within the first `max` bytes, in index order.
    let unit = if m.tiles.compressed() { 1 } else { 4 };
    let pieces: Vec<(usize, usize)> = entries
        .windows(2)
        .map(|w| {
            (
                (w[0].first * unit) as usize / 4,
                (w[1].first * unit) as usize / 4,
            )
        })
        .take_while(|&(_, b)| (b * 4) as u64 <= max)
        .collect();
    let covered = pieces.last().map_or(0, |p| p.1) as u64 * 4;
    let mut scratch = Vec::new();
    let (mut edges, mut check) = (0u64, 0u64);
    let t = Instant::now();
    for _ in 0..REPS {
        for &(a, b) in &pieces {
            let w = &words[a..b];
            if m.tiles.compressed() {
                edges += tilecode::for_each_frame(w, &mut scratch, |f| {
                    check = f.iter().fold(check, |x, &e| x.wrapping_add(e as u64));
                });
            } else {
                check = w.iter().fold(check, |x, &e| x.wrapping_add(e as u64));
                edges += w.len() as u64;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} edges from {:.1} MiB x{REPS} in {s:.2} s: {:.0} M edges/s, {:.0} MB/s of tile bytes on one core ({})",
        edges / REPS,
        covered as f64 / (1 << 20) as f64,
        edges as f64 / s / 1e6,
        REPS as f64 * covered as f64 / s / 1e6,
        if m.tiles.compressed() { "decoded" } else { "plain words summed" },
    );
    eprintln!("(checksum {check:x})");
    if m.csr.compression.is_some() {
        csr_pages(&store)?;
    }
    Ok(())
}

/// Decodes every coded page of the CSR's out-adjacency in memory, as the
/// select engine does page by page; then the same pages all in
/// stream-vbyte, the faster and larger of the two codes.
fn csr_pages(store: &Store) -> Result<(), Box<dyn std::error::Error>> {
    let dir = PageDir::load(store, "out", &Budget::new(u64::MAX))?.ok_or("no page directory")?;
    let coded = std::fs::read(store.file(&csrcode::files("out").0))?;
    let page_bytes = store.manifest().csr.page_bytes as usize;
    let pages = dir.pages();
    let mut plain = vec![0u8; pages as usize * page_bytes];
    let t = Instant::now();
    for _ in 0..REPS {
        dir.decode(0, pages, &coded, 0, &mut plain)?;
    }
    let s = t.elapsed().as_secs_f64() / REPS as f64;
    // Tagged pages (`small`): 1 is Huffman's (after a wide page's form).
    let tagged = store.manifest().csr.compression.as_deref() == Some(csrcode::HUFF);
    let wide = store.manifest().slot_width() == SlotWidth::Wide;
    let huff = (0..pages)
        .filter(|&p| {
            let s = dir.span(p, p + 1).0 as usize;
            // A wide page of form 0 (its low halves coded) has the tag next.
            tagged && (!wide || coded[s] == 0) && coded[s + wide as usize] == 1
        })
        .count();
    let mut svb = Vec::new();
    let mut starts = vec![0];
    let mut entries = 0;
    for page in plain.chunks_exact(page_bytes) {
        if wide {
            let slots: Vec<u64> = page
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            entries += slots.iter().take_while(|&&x| x != u64::MAX).count();
            csrcode::wide::encode(csrcode::Code::Fast, &slots, &mut svb);
        } else {
            let slots: Vec<u32> = page
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .take_while(|&x| x != u32::MAX)
                .collect();
            entries += slots.len();
            csrcode::svb::encode(&slots, &mut svb);
        }
        starts.push(svb.len());
    }
    let mut again = vec![0u8; page_bytes];
    let t = Instant::now();
    for _ in 0..REPS {
        for w in starts.windows(2) {
            match wide {
                true => csrcode::wide::decode(&svb[w[0]..w[1]], &mut again, false)?,
                false => csrcode::svb::decode(&svb[w[0]..w[1]], &mut again)?,
            };
        }
    }
    let s2 = t.elapsed().as_secs_f64() / REPS as f64;
    let bits = |b: usize| 8.0 * b as f64 / entries.max(1) as f64;
    println!(
        "csr out{}: {entries} entries in {pages} pages ({huff} Huffman, {} stream-vbyte), {:.2} bits an entry, decoded at {:.0} M entries/s ({:.0} MB/s coded) on one core; all stream-vbyte: {:.2} bits, {:.0} M entries/s",
        if wide { " (8-byte ids)" } else { "" },
        pages as usize - huff,
        bits(coded.len()),
        entries as f64 / s / 1e6,
        coded.len() as f64 / s / 1e6,
        bits(svb.len()),
        entries as f64 / s2 / 1e6,
    );
    Ok(())
}
