//! Reads on both backends: random reads (direct on disk, on tmpfs),
//! partial reads continued, the buffered fallback where O_DIRECT is
//! refused, one large request, `read_range` at any alignment, and a
//! sequential throughput check (ignored).

use super::*;

#[test]
fn random_reads_on_disk_are_direct_and_match() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 3 * 1024 * 1024 + 1234);
    let mut r = Reader::new(Some(Backend::Sync), 4).unwrap();
    let f = r.open(&path, "test").unwrap();
    assert!(
        r.direct(f),
        "O_DIRECT refused on the target dir's filesystem"
    );
    for (i, b) in BACKENDS.into_iter().enumerate() {
        let s = random_reads(b, &path, &data, 42 + i as u64);
        assert!(s.bytes_read > 0);
    }
}

#[test]
fn partial_reads_are_continued() {
    // Reads capped at 8 KiB: every longer request is finished in pieces.
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 1024 * 1024 + 5000);
    for (i, b) in BACKENDS.into_iter().enumerate() {
        random_reads_in(b, &path, &data, 5 + i as u64, Some(2 * ALIGN));
    }
}

#[test]
fn random_reads_on_tmpfs_match() {
    let Some(dir) = tmpfs_dir() else {
        eprintln!("no /dev/shm: skipped");
        return;
    };
    let (path, data) = make_file(dir.path(), "f", 2 * 1024 * 1024 + 77);
    let mut r = Reader::new(Some(Backend::Sync), 4).unwrap();
    let f = r.open(&path, "test").unwrap();
    eprintln!("tmpfs: direct = {}", r.direct(f));
    for (i, b) in BACKENDS.into_iter().enumerate() {
        random_reads(b, &path, &data, 7 + i as u64);
    }
}

#[test]
fn buffered_fallback_where_o_direct_is_refused() {
    // procfs refuses O_DIRECT at open.
    let want = std::fs::read("/proc/version").unwrap();
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 4).unwrap();
        let f = r.open(Path::new("/proc/version"), "test").unwrap();
        assert!(!r.direct(f));
        let mut buf = AlignedBuf::new(ALIGN, &budget(), "test").unwrap();
        let req = ReadReq {
            file: f,
            offset: 0,
            len: ALIGN,
            buf: buf.as_mut_ptr(),
            tag: 9,
        };
        // SAFETY: buf outlives the wait below.
        unsafe { r.submit(&[req]).unwrap() };
        let mut out = Vec::new();
        r.wait(1, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        let n = out[0].result.as_ref().copied().unwrap();
        assert_eq!(&buf.as_slice()[..n], &want[..], "{b}");
    }
}

#[test]
fn large_request_in_one_piece() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", (32 << 20) + 5);
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 2).unwrap();
        let f = r.open(&path, "test").unwrap();
        let mut buf = AlignedBuf::new(40 << 20, &budget(), "test").unwrap();
        let q = ReadReq {
            file: f,
            offset: 0,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
            tag: 0,
        };
        // SAFETY: buf outlives the wait.
        unsafe { r.submit(&[q]).unwrap() };
        let mut out = Vec::new();
        r.wait(1, &mut out).unwrap();
        assert_eq!(*out[0].result.as_ref().unwrap(), data.len());
        assert!(buf.as_slice()[..data.len()] == data[..]);
    }
}

#[test]
fn read_range_any_alignment() {
    let disk = disk_dir();
    let shm = tmpfs_dir();
    let mut dirs = vec![disk.path().to_path_buf()];
    dirs.extend(shm.as_ref().map(|d| d.path().to_path_buf()));
    for dir in dirs {
        let (path, data) = make_file(&dir, "f", (9 << 20) + 333);
        for b in BACKENDS {
            let bud = Budget::new(64 << 20);
            let mut r = Reader::new(Some(b), 4).unwrap();
            let f = r.open(&path, "test").unwrap();
            let mut rng = Rng(99);
            for _ in 0..50 {
                let off = rng.below(data.len() as u64);
                let len = rng.below(data.len() as u64 - off + 1) as usize;
                let len = if rng.below(3) == 0 { len.min(100) } else { len };
                let v = read_range(&mut r, f, off, len, &bud).unwrap();
                assert!(v == data[off as usize..off as usize + len], "{off} {len}");
            }
            let v = read_range(&mut r, f, 0, data.len(), &bud).unwrap();
            assert!(v == data);
            assert_eq!(bud.used(), 0);
            assert!(bud.peak() <= 4 << 20);
            assert!(read_range(&mut r, f, data.len() as u64, 0, &bud)
                .unwrap()
                .is_empty());
            let e = read_range(&mut r, f, data.len() as u64 - 10, 11, &bud).unwrap_err();
            assert!(e.to_string().contains("ends at"), "{e}");
            assert!(read_range(&mut r, 7, 0, 1, &bud).is_err());
            assert!(r.stats().requests > 50);
        }
    }
}

/// Sequential throughput of a 1 GiB file, 1 MiB requests, depth 8.
/// `cargo test --release -p outcore --lib io::tests::reads::throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn throughput() {
    const FILE: u64 = 1 << 30;
    const REQ: usize = 1 << 20;
    const DEPTH: usize = 8;
    struct Remove(PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .unwrap_or(exe.parent().unwrap())
        .to_path_buf();
    let path = target.join(format!("outcore-io-throughput-{}.bin", std::process::id()));
    let _guard = Remove(path.clone());
    {
        let mut f = std::io::BufWriter::with_capacity(REQ, File::create(&path).unwrap());
        let chunk: Vec<u8> = (0..REQ as u64).map(byte_at).collect();
        for _ in 0..FILE / REQ as u64 {
            f.write_all(&chunk).unwrap();
        }
        f.into_inner().unwrap().sync_all().unwrap();
    }
    let b = budget();
    for backend in BACKENDS {
        let mut r = Reader::new(Some(backend), DEPTH).unwrap();
        let f = r.open(&path, "test").unwrap();
        let mut bufs: Vec<AlignedBuf> = (0..DEPTH)
            .map(|_| AlignedBuf::new(REQ, &b, "throughput").unwrap())
            .collect();
        let n = FILE / REQ as u64;
        let t = Instant::now();
        let mut next = 0u64;
        let mut out = Vec::new();
        let mut bytes = 0u64;
        let mut reqs = Vec::new();
        for (slot, buf) in bufs.iter_mut().enumerate() {
            reqs.push(ReadReq {
                file: f,
                offset: next * REQ as u64,
                len: REQ,
                buf: buf.as_mut_ptr(),
                tag: next << 8 | slot as u64,
            });
            next += 1;
        }
        // SAFETY: bufs outlive the reader's requests (drained below).
        unsafe { r.submit(&reqs).unwrap() };
        while r.pending() > 0 {
            out.clear();
            r.wait(1, &mut out).unwrap();
            reqs.clear();
            for c in &out {
                let got = *c.result.as_ref().unwrap();
                assert_eq!(got, REQ);
                bytes += got as u64;
                let slot = (c.tag & 0xff) as usize;
                assert_eq!(bufs[slot].as_slice()[7], byte_at(7));
                if next < n {
                    reqs.push(ReadReq {
                        file: f,
                        offset: next * REQ as u64,
                        len: REQ,
                        buf: bufs[slot].as_mut_ptr(),
                        tag: next << 8 | slot as u64,
                    });
                    next += 1;
                }
            }
            // SAFETY: as above; a slot's buffer is reused only after its completion.
            unsafe { r.submit(&reqs).unwrap() };
        }
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(bytes, FILE);
        let s = r.stats();
        println!(
            "{backend}: direct={} {:.0} MB/s ({:.2} s, {} requests, {:.2} s waiting)",
            r.direct(f),
            bytes as f64 / secs / 1e6,
            secs,
            s.requests,
            s.wait_seconds
        );
    }
}
