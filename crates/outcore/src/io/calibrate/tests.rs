use super::*;

/// A directory for this module's tests under the target dir.
fn disk_dir() -> tempfile::TempDir {
    crate::io::disk_test_dir("outcore-calibrate-test")
}

/// A file of `len` bytes of non-repeating data (so no layer can skip it).
fn make_file(path: &Path, len: u64) {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut rng = SplitMix64(42);
    let mut chunk = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        for w in chunk.chunks_exact_mut(8) {
            w.copy_from_slice(&rng.next().to_le_bytes());
        }
        let n = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    f.into_inner().unwrap().sync_all().unwrap();
}

#[test]
fn calibrates_a_small_file() {
    let dir = disk_dir();
    let path = dir.path().join("data.bin");
    make_file(&path, 32 << 20);
    for backend in [Backend::Uring, Backend::Sync] {
        let b = Budget::new(1 << 30);
        let c = calibrate(&path, 4096, &[1, 4, 16], 0.2, Some(backend), &b).unwrap();
        eprintln!("{}", c.table());
        assert_eq!(c.backend, backend.to_string());
        assert_eq!(c.page_bytes, 4096);
        assert_eq!(c.points.iter().map(|p| p.0).collect::<Vec<_>>(), [1, 4, 16]);
        for &(d, iops, mbs, lat) in &c.points {
            assert!(iops > 10.0, "depth {d}: {iops} IOPS");
            assert!((mbs - iops * 4096.0 / 1e6).abs() < 1e-6 * mbs.max(1.0));
            assert!(lat > 0.0 && lat < 1e6, "depth {d}: {lat} µs");
            // Little's law: about `d` reads in flight.
            let n = iops * lat / 1e6;
            assert!(
                n > 0.5 * d as f64 && n < 1.5 * d as f64,
                "depth {d}: λ·R = {n}"
            );
        }
        // (Whether more depth is faster is the disk's and the hour's:
        // a benchmark's question, not this test's.)
        assert!([1, 4, 16].contains(&c.best_depth));
        let max = c.points.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(c.best_iops >= 0.95 * max);
        assert!(c
            .points
            .iter()
            .filter(|p| p.0 < c.best_depth)
            .all(|p| p.1 < 0.95 * max));
        assert_eq!(b.used(), 0);
    }
}

#[test]
fn tiny_files_and_bad_arguments() {
    let dir = disk_dir();
    let path = dir.path().join("tiny.bin");
    make_file(&path, 3 * 4096 + 100);
    let b = Budget::new(1 << 30);
    let c = calibrate(&path, 4096, &[2, 1], 0.02, None, &b).unwrap();
    assert_eq!(c.points.len(), 2);
    assert!(c.points.iter().all(|p| p.1 > 0.0));
    assert!(calibrate(&path, 8192, &[1], 0.01, None, &b).is_ok());
    let e = calibrate(&path, 16384, &[1], 0.01, None, &b)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tiny.bin") && e.contains("one 16384-byte page"),
        "{e}"
    );
    assert!(calibrate(&path, 1000, &[1], 0.01, None, &b).is_err());
    assert!(calibrate(&path, 4096, &[], 0.01, None, &b).is_err());
    assert!(calibrate(&path, 4096, &[0], 0.01, None, &b).is_err());
    assert!(calibrate(&path, 4096, &[1], f64::NAN, None, &b).is_err());
    let e = calibrate(&dir.path().join("missing"), 4096, &[1], 0.01, None, &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing"), "{e}");
    // Zero seconds: one read per slot.
    let c = calibrate(&path, 4096, &[4], 0.0, None, &b).unwrap();
    assert_eq!(c.best_depth, 4);
    // Budget too small for the buffers.
    let small = Budget::new(4096);
    assert!(calibrate(&path, 4096, &[2], 0.01, None, &small).is_err());
}

#[test]
fn save_and_load_round_trip() {
    let dir = disk_dir();
    assert_eq!(load(dir.path()), None);
    let c = Calibration {
        page_bytes: 4096,
        points: vec![(1, 10_000.5, 40.96, 99.9), (8, 70_000.0, 286.72, 114.0)],
        best_depth: 8,
        best_iops: 70_000.0,
        backend: "uring".into(),
    };
    save(dir.path(), &c).unwrap();
    assert_eq!(load(dir.path()), Some(c.clone()));
    let mut c2 = c.clone();
    c2.best_depth = 1;
    save(dir.path(), &c2).unwrap();
    assert_eq!(load(dir.path()), Some(c2));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [FILE_NAME], "no temporary file is left");
    std::fs::write(dir.path().join(FILE_NAME), b"{ not json").unwrap();
    assert_eq!(load(dir.path()), None);
    assert!(save(&dir.path().join("absent"), &c).is_err());
}

/// `cargo test --release -p outcore --lib io::calibrate::tests::calibrate_2gib -- --ignored --nocapture`
#[test]
#[ignore]
fn calibrate_2gib() {
    let dir = disk_dir();
    let path = dir.path().join("calibrate-2g.bin");
    make_file(&path, 2 << 30);
    let b = Budget::new(1 << 30);
    for backend in [Backend::Uring, Backend::Sync] {
        let c = calibrate(
            &path,
            4096,
            &[1, 2, 4, 8, 16, 32, 64, 128],
            2.0,
            Some(backend),
            &b,
        )
        .unwrap();
        println!("{}", c.table());
    }
    std::fs::remove_file(&path).unwrap();
}
