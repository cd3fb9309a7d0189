//! Tests of the buffer pool: the clock and pins scripted, the budget
//! checks; `pass.rs`: whole passes over a file (`for_each_page`).

use super::*;
use crate::io::Backend;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

/// A directory for this module's tests under the target dir.
fn disk_dir() -> tempfile::TempDir {
    crate::io::disk_test_dir("outcore-bufpool-test")
}

fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8 ^ (i as u8)
}

fn make_file(dir: &Path, len: u64) -> (PathBuf, Vec<u8>) {
    let path = dir.join("pages.bin");
    let data: Vec<u8> = (0..len).map(byte_at).collect();
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&data).unwrap();
    f.sync_all().unwrap();
    (path, data)
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// Reserve, "read", mark loaded and unpin: a full miss.
fn load(p: &mut BufferPool, page: u64) -> u32 {
    let fr = p.reserve(page).expect("a free frame");
    assert!(p.is_loading(fr));
    assert_eq!(p.page_of(fr), Some(page));
    // SAFETY: the frame is reserved; page_bytes bytes are writable.
    unsafe { *p.frame_ptr(fr) = page as u8 };
    p.loaded(fr, true);
    p.unpin(fr);
    fr
}

fn touch(p: &mut BufferPool, page: u64) -> bool {
    match p.pin_if_resident(page) {
        Some(fr) => {
            assert_eq!(p.frame(fr)[0], page as u8);
            p.unpin(fr);
            true
        }
        None => {
            load(p, page);
            false
        }
    }
}

#[test]
fn scripted_counts_and_clock() {
    let b = Budget::new(1 << 30);
    let mut p = BufferPool::new(3, 4096, 100, &b).unwrap();
    // Cold: three misses fill the three frames.
    for page in [0, 1, 2] {
        assert!(!touch(&mut p, page));
    }
    assert_eq!(
        p.stats(),
        PoolStats {
            hits: 0,
            misses: 3,
            evictions: 0,
            reads: 3
        }
    );
    // Hits.
    assert!(touch(&mut p, 1));
    assert!(touch(&mut p, 2));
    // Every frame is referenced: the hand clears all bits and takes frame 0 (page 0).
    assert!(!touch(&mut p, 3));
    assert_eq!(p.lookup(0), None);
    assert_eq!(p.lookup(3), Some(0));
    // Page 2 is referenced again; page 1 is not: page 1 goes next.
    assert!(touch(&mut p, 2));
    assert!(!touch(&mut p, 4));
    assert_eq!(p.lookup(1), None);
    assert!(p.lookup(2).is_some() && p.lookup(3).is_some() && p.lookup(4).is_some());
    assert!(touch(&mut p, 3));
    assert!(touch(&mut p, 4));
    assert_eq!(
        p.stats(),
        PoolStats {
            hits: 5,
            misses: 5,
            evictions: 2,
            reads: 5
        }
    );
    // A failed load drops the page and leaves the frame empty.
    let fr = p.reserve(7).unwrap();
    p.loaded(fr, false);
    p.unpin(fr);
    assert_eq!(p.lookup(7), None);
    assert_eq!(p.page_of(fr), None);
    assert_eq!(p.pin_if_resident(7), None);
    assert_eq!(p.stats().reads, 6);
    assert_eq!(p.pinned(), 0);
}

#[test]
fn clock_never_evicts_pinned_or_loading_frames() {
    let b = Budget::new(1 << 30);
    let mut p = BufferPool::new(4, 4096, 1000, &b).unwrap();
    load(&mut p, 10);
    load(&mut p, 11);
    let a = p.pin_if_resident(10).unwrap();
    let c = p.pin_if_resident(10).unwrap(); // two pins of one frame
    assert_eq!(a, c);
    let l = p.reserve(12).unwrap(); // loading, never marked loaded here
    assert_eq!(p.pinned(), 2);
    for page in 100..400 {
        let fr = load(&mut p, page);
        assert_ne!(fr, a);
        assert_ne!(fr, l);
        assert_eq!(p.lookup(10), Some(a));
        assert_eq!(p.lookup(12), Some(l));
        assert!(p.is_loading(l));
    }
    p.unpin(a);
    assert_eq!(p.pinned(), 2, "one pin of page 10 is left");
    p.unpin(a);
    assert_eq!(p.pinned(), 1);
    // Page 10 may go now.
    for page in 400..410 {
        load(&mut p, page);
    }
    assert_eq!(p.lookup(10), None);
    assert_eq!(p.lookup(12), Some(l));
    p.loaded(l, true);
    p.unpin(l);
    assert_eq!(p.pinned(), 0);
}

#[test]
fn reserve_returns_none_when_all_are_pinned() {
    let b = Budget::new(1 << 30);
    let mut p = BufferPool::new(3, 8192, 10, &b).unwrap();
    let f0 = p.reserve(0).unwrap();
    let f1 = p.reserve(1).unwrap();
    p.loaded(f1, true); // loaded but still pinned
    let f2 = p.reserve(2).unwrap();
    assert_eq!(p.pinned(), 3);
    assert_eq!(p.reserve(3), None);
    assert_eq!(p.stats().misses, 3);
    p.unpin(f1);
    let f3 = p.reserve(3).unwrap();
    assert_eq!(f3, f1, "the only unpinned frame");
    assert_eq!(p.lookup(1), None);
    assert_eq!(p.reserve(4), None);
    for f in [f0, f2, f3] {
        p.loaded(f, true);
        p.unpin(f);
    }
    assert_eq!(p.pinned(), 0);
}

#[test]
#[should_panic(expected = "while its read is in flight")]
fn unpin_of_a_loading_frame_panics() {
    let b = Budget::new(1 << 30);
    let mut p = BufferPool::new(2, 4096, 10, &b).unwrap();
    let f = p.reserve(0).unwrap();
    p.unpin(f);
}

#[test]
fn new_checks_and_budget() {
    let b = Budget::new(1 << 30);
    assert!(BufferPool::new(4, 4096 + 512, 10, &b).is_err());
    assert!(BufferPool::new(4, 2048, 10, &b).is_err());
    assert!(BufferPool::new(0, 4096, 10, &b).is_err());
    {
        let p = BufferPool::new(16, 8192, 1_000_000, &b).unwrap();
        assert_eq!(p.table.len(), 1_000_000);
        assert_eq!(p.file_pages(), 1_000_000);
        assert_eq!(p.frames(), 16);
        assert_eq!(p.page_bytes(), 8192);
        assert!(b.used() >= 16 * 8192 + 4_000_000, "{}", b.used());
        assert!(b.used() <= 16 * 8192 + 4_000_000 + 16 * 64);
    }
    assert_eq!(b.used(), 0);
    // The page table alone does not fit.
    let small = Budget::new(1 << 20);
    let err = BufferPool::new(1, 4096, 1 << 20, &small)
        .unwrap_err()
        .to_string();
    assert!(err.contains("page table"), "{err}");
    let err = BufferPool::new(512, 4096, 10, &small)
        .unwrap_err()
        .to_string();
    assert!(err.contains("frames"), "{err}");
    assert_eq!(small.used(), 0);
}

mod pass;
