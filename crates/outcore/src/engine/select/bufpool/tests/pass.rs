//! `for_each_page` over real files: every page once with the file's
//! bytes, larger pages on tmpfs, errors, panics and short reads.

use super::*;

/// for_each_page of `pages` sees each distinct page once with the file's bytes.
fn check_pass(pool: &mut BufferPool, reader: &mut Reader, fi: usize, pages: &[u64], data: &[u8]) {
    let pb = pool.page_bytes();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    pool.for_each_page(reader, fi, pages, |page, bytes| {
        assert_eq!(bytes.len(), pb);
        let at = page as usize * pb;
        assert!(bytes == &data[at..at + pb], "page {page} differs");
        *seen.entry(page).or_default() += 1;
        Ok(())
    })
    .unwrap();
    let mut want: Vec<u64> = pages.to_vec();
    want.sort_unstable();
    want.dedup();
    assert_eq!(seen.len(), want.len());
    assert!(seen.values().all(|&n| n == 1));
    assert!(want.iter().all(|p| seen.contains_key(p)));
    assert_eq!(pool.pinned(), 0);
    assert!(pool.in_flight.iter().all(|&x| !x));
    assert_eq!(reader.pending(), 0);
}

#[test]
fn for_each_page_reads_the_file() {
    let dir = disk_dir();
    let pb = 4096usize;
    let file_pages = 300u64;
    let (path, data) = make_file(dir.path(), file_pages * pb as u64);
    let mut rng = Rng(7);
    for backend in [Backend::Uring, Backend::Sync] {
        for frames in [1usize, 3, 1000] {
            for depth in [1usize, 8, 64] {
                let b = Budget::new(1 << 30);
                let mut pool = BufferPool::new(frames, pb, file_pages, &b).unwrap();
                let mut reader = Reader::new(Some(backend), depth).unwrap();
                let fi = reader.open(&path, "test").unwrap();
                // Random order with duplicates, more pages than frames.
                let pages: Vec<u64> = (0..1000).map(|_| rng.below(file_pages)).collect();
                check_pass(&mut pool, &mut reader, fi, &pages, &data);
                let distinct = {
                    let mut v = pages.clone();
                    v.sort_unstable();
                    v.dedup();
                    v.len() as u64
                };
                let s = pool.stats();
                assert_eq!(s.misses, distinct);
                assert_eq!(s.reads, distinct);
                assert_eq!(s.hits, 0);
                // Again, with part of it resident; then sorted input.
                check_pass(&mut pool, &mut reader, fi, &pages, &data);
                let s2 = pool.stats();
                assert_eq!(s2.hits + s2.misses, 2 * distinct);
                if frames >= file_pages as usize {
                    assert_eq!(s2.hits, distinct, "everything was resident");
                    assert_eq!(s2.evictions, 0);
                } else {
                    assert!(s2.evictions > 0);
                }
                let sorted: Vec<u64> = (0..file_pages).step_by(3).collect();
                check_pass(&mut pool, &mut reader, fi, &sorted, &data);
                check_pass(&mut pool, &mut reader, fi, &[], &data);
                check_pass(&mut pool, &mut reader, fi, &[5, 5, 5], &data);
                assert!(b.used() > 0);
                drop(pool);
                assert_eq!(b.used(), 0, "{backend} frames {frames}");
            }
        }
    }
}

#[test]
fn for_each_page_with_larger_pages_on_tmpfs() {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::Builder::new()
            .prefix("outcore-bufpool-test")
            .tempdir_in(shm)
            .unwrap()
    } else {
        disk_dir()
    };
    let pb = 16384usize;
    let (path, data) = make_file(dir.path(), 64 * pb as u64);
    let mut rng = Rng(99);
    for backend in [Backend::Uring, Backend::Sync] {
        let b = Budget::new(1 << 30);
        let mut pool = BufferPool::new(5, pb, 64, &b).unwrap();
        let mut reader = Reader::new(Some(backend), 16).unwrap();
        let fi = reader.open(&path, "test").unwrap();
        let pages: Vec<u64> = (0..500).map(|_| rng.below(64)).collect();
        check_pass(&mut pool, &mut reader, fi, &pages, &data);
        check_pass(&mut pool, &mut reader, fi, &pages, &data);
    }
}

#[test]
fn for_each_page_errors() {
    let dir = disk_dir();
    let pb = 4096usize;
    // 10 whole pages and a half page.
    let (path, data) = make_file(dir.path(), 10 * pb as u64 + 2048);
    for backend in [Backend::Uring, Backend::Sync] {
        let b = Budget::new(1 << 30);
        let mut pool = BufferPool::new(3, pb, 12, &b).unwrap();
        let mut reader = Reader::new(Some(backend), 4).unwrap();
        let fi = reader.open(&path, "test").unwrap();
        // Beyond the page table.
        let e = pool
            .for_each_page(&mut reader, fi, &[1, 12], |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("page 12"), "{e}");
        // The half page at the end reads as far as the file goes, then zeros.
        let mut tail = Vec::new();
        pool.for_each_page(&mut reader, fi, &[10], |_, b| {
            tail = b.to_vec();
            Ok(())
        })
        .unwrap();
        assert_eq!(tail.len(), pb);
        assert!(tail[pb / 2..].iter().all(|&x| x == 0));
        // Beyond the end of the file.
        let e = pool
            .for_each_page(&mut reader, fi, &[11], |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pages.bin") && e.contains("end of the file"),
            "{e}"
        );
        assert_eq!(pool.pinned(), 0);
        // An error from the callback stops the calls and releases everything.
        let mut calls = 0;
        let mut stopped = false;
        let e = pool
            .for_each_page(&mut reader, fi, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], |p, _| {
                assert!(!stopped, "called after an error");
                calls += 1;
                if p == 4 {
                    stopped = true;
                    Err(Error::Invalid("stop at 4".into()))
                } else {
                    Ok(())
                }
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("stop at 4"), "{e}");
        assert!(stopped && calls <= 10, "{calls}");
        assert_eq!(pool.pinned(), 0);
        assert_eq!(reader.pending(), 0);
        assert!((0..3).all(|f| !pool.is_loading(f)));
        // A listed page loading for someone else: an error, pins released.
        check_pass(&mut pool, &mut reader, fi, &[0, 1], &data);
        let other = pool.reserve(2).unwrap();
        let e = pool
            .for_each_page(&mut reader, fi, &[0, 1, 2], |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("page 2 is being loaded"), "{e}");
        assert_eq!(pool.pinned(), 1);
        pool.loaded(other, false);
        pool.unpin(other);
        // The pool still works afterwards.
        check_pass(&mut pool, &mut reader, fi, &[9, 0, 3, 3, 8], &data);
        // Every frame pinned by the caller: an error, not a hang.
        let held: Vec<u32> = (0..3)
            .map(|p| {
                pool.pin_if_resident(p).unwrap_or_else(|| {
                    let f = pool.reserve(p).unwrap();
                    pool.loaded(f, true);
                    f
                })
            })
            .collect();
        let e = pool
            .for_each_page(&mut reader, fi, &[5], |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("pinned"), "{e}");
        // Resident pages still go through.
        pool.for_each_page(&mut reader, fi, &[0, 1, 2], |_, _| Ok(()))
            .unwrap();
        for f in held {
            pool.unpin(f);
        }
        assert_eq!(pool.pinned(), 0);
    }
}

#[test]
fn a_panicking_callback_leaves_no_read_in_flight() {
    let dir = disk_dir();
    let pb = 4096usize;
    let (path, _) = make_file(dir.path(), 256 * pb as u64);
    for backend in [Backend::Uring, Backend::Sync] {
        let b = Budget::new(1 << 30);
        let mut pool = BufferPool::new(64, pb, 256, &b).unwrap();
        let mut reader = Reader::new(Some(backend), 32).unwrap();
        let fi = reader.open(&path, "test").unwrap();
        let pages: Vec<u64> = (0..256).collect();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.for_each_page(&mut reader, fi, &pages, |_, _| -> Result<()> {
                panic!("callback panics")
            })
        }));
        assert!(r.is_err());
        assert_eq!(reader.pending(), 0, "{backend}");
    }
}

#[test]
fn short_read_is_an_error() {
    let dir = disk_dir();
    let pb = 4096usize;
    let (path, _) = make_file(dir.path(), 4 * pb as u64);
    let b = Budget::new(1 << 30);
    let mut pool = BufferPool::new(2, pb, 8, &b).unwrap();
    for backend in [Backend::Uring, Backend::Sync] {
        let mut reader = Reader::new(Some(backend), 4).unwrap();
        let fi = reader.open(&path, "test").unwrap();
        // The file shrinks after it was opened.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(2 * pb as u64 + 100).unwrap();
        let e = pool
            .for_each_page(&mut reader, fi, &[0, 3], |_, _| Ok(()))
            .unwrap_err()
            .to_string();
        // The reader finds the file cut short (issue 49: it names the role).
        assert!(
            e.contains("test: 0 of 4096 bytes at offset 12288") && e.contains("pages.bin"),
            "{e}"
        );
        assert_eq!(pool.pinned(), 0);
        assert_eq!(pool.lookup(3), None);
        f.set_len(4 * pb as u64).unwrap();
    }
}
