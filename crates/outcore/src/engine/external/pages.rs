//! Sparse state access (PartitionedVC: a sparse superstep loads only the
//! vertex data its active vertices and its messages touch). When few
//! vertices of an interval send or receive, the engine reads, and writes
//! back, only the `ALIGN`-sized pages of the interval's state slot that hold
//! them, all in flight at once, instead of the whole slot: a superstep with
//! a frontier of ten vertices costs ten pages, not a pass over the state.
//! The pages land at their own offsets of the slot's buffer, so the engine
//! indexes states the same way either way; only touched states are read.

use super::disk::wait_for;
use crate::error::{Error, Result};
use crate::io::{ReadReq, Reader, WriteReq, ALIGN};

/// Tag of the first page request (the engine's other tags stay below).
const TAG: u64 = 1 << 50;

/// Whether `touched` vertices of an interval whose states (`sbytes` each)
/// take `slot` bytes are few enough to go page by page: their pages (one
/// each, two when a state may straddle a page boundary) at most a quarter
/// of the slot. A page read alone costs about 3 read in sequence (80K
/// random 4 KiB reads/s at depth 64 against 0.3-1.3 GB/s here).
pub fn sparse(touched: u64, slot: usize, sbytes: usize) -> bool {
    let per = if ALIGN.is_multiple_of(sbytes) { 1 } else { 2 };
    touched.saturating_mul(per * ALIGN as u64) <= slot as u64 / 4
}

/// Adds the pages holding the state of the vertex at offset `x`
/// (`sbytes` bytes a state) to `pages`; calls come in ascending `x`.
pub fn push(pages: &mut Vec<u32>, x: usize, sbytes: usize) {
    push_bytes(pages, x * sbytes, (x + 1) * sbytes);
}

/// Adds the pages holding bytes `from..to` (non-empty) to `pages`; calls
/// come in ascending `from`.
pub fn push_bytes(pages: &mut Vec<u32>, from: usize, to: usize) {
    for p in (from / ALIGN) as u32..=((to - 1) / ALIGN) as u32 {
        if pages.last().is_none_or(|&l| l < p) {
            pages.push(p);
        }
    }
}

/// The pages of the active vertices: set bits of `bits` below `len`.
pub fn of_bits(bits: &[u8], len: usize, sbytes: usize, pages: &mut Vec<u32>) {
    pages.clear();
    for (wi, w) in bits[..len.div_ceil(8)].chunks(8).enumerate() {
        let mut word = w
            .iter()
            .enumerate()
            .fold(0u64, |a, (j, &b)| a | (b as u64) << (8 * j));
        while word != 0 {
            let x = wi * 64 + word.trailing_zeros() as usize;
            word &= word - 1;
            if x < len {
                push(pages, x, sbytes);
            }
        }
    }
}

/// Reads (`write` false) or writes the `pages` (ascending) of the slot at
/// `base` of `file`, into or from the same offsets of `buf`; adjacent pages
/// go in one request, every request in flight at once. Waits for all of
/// them, even after a failure, before returning the first error.
///
/// A read may reach the end of the file (the offsets file's last page is
/// rarely whole): it then holds the bytes the file has and zeros after
/// them ([`Reader::wait`]); a read that stops before the file's end, or
/// pages that start past it, are errors naming the file's role.
pub fn io(
    reader: &mut Reader,
    file: usize,
    base: u64,
    buf: &mut [u8],
    pages: &[u32],
    write: bool,
) -> Result<()> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in pages {
        match runs.last_mut() {
            Some((first, count)) if *first + *count == p as usize => *count += 1,
            _ => runs.push((p as usize, 1)),
        }
    }
    let mut submitted = 0;
    let mut first_err = None;
    for (j, &(first, count)) in runs.iter().enumerate() {
        let (off, len) = (first * ALIGN, count * ALIGN);
        let offset = base + off as u64;
        if off + len > buf.len() {
            first_err = Some(Error::Invalid(format!(
                "{} pages {first}..{} lie beyond the buffer's {} bytes",
                reader.role(file),
                first + count,
                buf.len()
            )));
            break;
        }
        if !write && offset >= reader.file_len(file) {
            first_err = Some(reader.ended_early(file, offset, len, 0));
            break;
        }
        let tag = TAG + j as u64;
        let p = buf[off..].as_mut_ptr();
        // SAFETY: `buf` outlives every request: all are waited for below.
        let r = unsafe {
            match write {
                true => reader.submit_writes(&[WriteReq {
                    file,
                    offset,
                    len,
                    buf: p,
                    tag,
                }]),
                false => reader.submit(&[ReadReq {
                    file,
                    offset,
                    len,
                    buf: p,
                    tag,
                }]),
            }
        };
        if let Err(e) = r {
            first_err = Some(e);
            break;
        }
        submitted += 1;
    }
    for j in 0..submitted {
        let r = wait_for(reader, file, TAG + j as u64);
        if let (Err(e), None) = (r, &first_err) {
            first_err = Some(e);
        }
    }
    first_err.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{disk_test_dir, AlignedBuf, Backend};
    use crate::mem::Budget;
    use proptest::prelude::*;

    fn byte_at(i: u64) -> u8 {
        (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8 ^ (i as u8)
    }

    /// Reads `pages` of a file of `size` bytes (mostly not a whole number
    /// of pages) on `backend`; returns the buffer (0xEE where not read).
    fn read_pages(backend: Backend, size: u64, pages: &[u32]) -> Result<(Vec<u8>, Vec<u8>)> {
        let dir = disk_test_dir("outcore-pages-test");
        let path = dir.path().join("f.off");
        let data: Vec<u8> = (0..size).map(byte_at).collect();
        std::fs::write(&path, &data).expect("test file");
        let mut reader = Reader::new(Some(backend), 8)?;
        let f = reader.open(&path, "offsets")?;
        let budget = Budget::new(1 << 30);
        let mut buf = AlignedBuf::new(
            size.next_multiple_of(ALIGN as u64) as usize,
            &budget,
            "test",
        )?;
        buf.as_mut_slice().fill(0xEE);
        io(&mut reader, f, 0, buf.as_mut_slice(), pages, false)?;
        Ok((buf.as_slice().to_vec(), data))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any set of pages of a file whose last page is partial reads
        /// exactly the file's bytes, zeros past its end, on both backends.
        #[test]
        fn pages_of_a_file_with_a_partial_last_page(
            size in 1u64..(40 * ALIGN as u64),
            picks in proptest::collection::vec(any::<u32>(), 1..12),
            last in any::<bool>(),
        ) {
            let count = size.div_ceil(ALIGN as u64) as u32;
            let mut pages: Vec<u32> = picks.iter().map(|p| p % count).collect();
            if last {
                pages.push(count - 1);
            }
            pages.sort_unstable();
            pages.dedup();
            for backend in [Backend::Uring, Backend::Sync] {
                let (buf, data) = read_pages(backend, size, &pages).unwrap();
                for p in 0..count as usize {
                    let page = &buf[p * ALIGN..(p + 1) * ALIGN];
                    if !pages.contains(&(p as u32)) {
                        prop_assert!(page.iter().all(|&b| b == 0xEE), "page {} was not asked for", p);
                        continue;
                    }
                    let end = ((p + 1) * ALIGN).min(data.len());
                    prop_assert!(page[..end - p * ALIGN] == data[p * ALIGN..end], "{backend}: page {p}");
                    prop_assert!(page[end - p * ALIGN..].iter().all(|&b| b == 0), "{backend}: page {p} past the end");
                }
            }
        }
    }

    #[test]
    fn pages_of_states_that_straddle_pages() {
        let mut p = Vec::new();
        // 40-byte states: vertex 102 spans bytes 4080..4120, pages 0 and 1.
        for x in [0, 1, 102, 103, 500] {
            push(&mut p, x, 40);
        }
        assert_eq!(p, vec![0, 1, 4]);
        let mut bits = vec![0u8; 16];
        bits[0] = 0b1000_0001; // 0 and 7
        bits[12] = 1; // 96
        of_bits(&bits, 97, 40, &mut p);
        assert_eq!(p, vec![0]);
        of_bits(&bits, 96, 4096, &mut p);
        assert_eq!(p, vec![0, 7]);
    }
}
