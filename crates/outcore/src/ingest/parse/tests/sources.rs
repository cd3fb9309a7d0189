//! Opening inputs, whatever the format: format names, refused options,
//! gzip members, several files in order, missing files, a callback's error,
//! a one-thread rayon pool, inputs recognised by their content, and a
//! throughput check (ignored).

use std::slice::from_ref;

use super::*;

#[test]
fn format_names() {
    for f in InputFormat::ALL {
        assert_eq!(f.name().parse::<InputFormat>().unwrap(), f);
    }
    assert_eq!("CSV".parse::<InputFormat>().unwrap(), InputFormat::Csv);
    let err = "graphml".parse::<InputFormat>().unwrap_err();
    assert!(matches!(err, Error::Invalid(_)));
    let msg = err.to_string();
    assert!(
        msg.contains("graphml") && msg.contains("snap, csv, tsv, mtx, ldbc, bin32, bin64"),
        "{msg}"
    );
}

#[test]
fn gzip_and_concatenated_members() {
    let d = tempfile::tempdir().unwrap();
    let mut two = gz(b"1 2\n3 ");
    two.extend(gz(b"4\n5 6\n"));
    let p = write(d.path(), "g.txt.gz", &two);
    assert_eq!(
        edges(from_ref(&p), InputFormat::Snap, &opts()),
        vec![e(1, 2), e(3, 4), e(5, 6)]
    );
    let mut src = open(&[p], InputFormat::Snap, &opts()).unwrap();
    assert_eq!(src.input_bytes(), Some(two.len() as u64));
    assert_eq!(src.describe(), "g.txt.gz");
    src.for_each_edge_batch(&mut |_| Ok(())).unwrap();
    assert_eq!(src.bytes_consumed(), two.len() as u64);
    // A second pass restarts the count.
    src.for_each_edge_batch(&mut |_| Ok(())).unwrap();
    assert_eq!(src.bytes_consumed(), two.len() as u64);
}

#[test]
fn corrupt_gzip_is_an_io_error() {
    let d = tempfile::tempdir().unwrap();
    let mut bytes = gz(&b"1 2\n".repeat(10000));
    bytes.truncate(bytes.len() / 2);
    let p = write(d.path(), "cut.txt.gz", &bytes);
    let err = read_with(&[p], InputFormat::Snap, &opts(), 4096).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(err.to_string().contains("cut.txt.gz"), "{err}");
}

#[test]
fn inputs_concatenate_in_order() {
    let d = tempfile::tempdir().unwrap();
    let a = write(d.path(), "a.txt", b"1 2\n2 3");
    let b = write(d.path(), "b.txt.gz", &gz(b"# b\n3 4\n"));
    let c = write(d.path(), "c.txt", b"");
    let e4 = write(d.path(), "d.txt", b"4 5\n\n1 2\n");
    let all = [a, b, c, e4];
    assert_eq!(
        edges(&all, InputFormat::Snap, &opts()),
        vec![e(1, 2), e(2, 3), e(3, 4), e(4, 5), e(1, 2)]
    );
    let src = open(&all, InputFormat::Snap, &opts()).unwrap();
    assert_eq!(src.describe(), "a.txt .. d.txt (4 files)");
    // Line numbers restart in each file.
    let bad = write(d.path(), "e.txt", b"\n\nx\n");
    let (line, msg) = fail(&[all[0].clone(), bad], InputFormat::Snap, &opts());
    assert_eq!(line, 3);
    assert!(msg.contains("e.txt:3:"), "{msg}");
}

#[test]
fn callback_error_stops_the_stream() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "g.txt", &b"1 2\n".repeat(100_000));
    let mut src = FileSource::open(&[p], InputFormat::Snap, &opts(), 64).unwrap();
    let mut calls = 0;
    let err = src
        .for_each_edge_batch(&mut |_| {
            calls += 1;
            if calls == 3 {
                Err(Error::Interrupted)
            } else {
                Ok(())
            }
        })
        .unwrap_err();
    assert!(matches!(err, Error::Interrupted));
    assert_eq!(calls, 3);
}

#[test]
fn missing_and_bad_inputs() {
    let d = tempfile::tempdir().unwrap();
    let good = write(d.path(), "g.txt", b"1 2\n");
    let missing = d.path().join("nope.txt");
    for format in InputFormat::ALL {
        let err = open(&[good.clone(), missing.clone()], format, &opts())
            .err()
            .unwrap();
        assert!(matches!(err, Error::Io { .. }), "{format}: {err}");
        assert!(err.to_string().contains("nope.txt"), "{format}: {err}");
    }
    let err = open(&[d.path().to_path_buf()], InputFormat::Snap, &opts())
        .err()
        .unwrap();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(matches!(
        open(&[], InputFormat::Snap, &opts()),
        Err(Error::Invalid(_))
    ));
}

#[test]
fn invalid_options() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "g.bin", &[0u8; 16]);
    for f in [InputFormat::Bin32, InputFormat::Bin64] {
        let err = open(from_ref(&p), f, &weighted()).err().unwrap();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        assert!(err.to_string().contains("no weights"), "{err}");
    }
    let cols = ParseOptions {
        columns: Some("0,1".into()),
        ..opts()
    };
    let hdr = ParseOptions {
        header: true,
        ..opts()
    };
    for f in [InputFormat::Snap, InputFormat::Mtx, InputFormat::Bin32] {
        assert!(matches!(
            open(from_ref(&p), f, &cols),
            Err(Error::Invalid(_))
        ));
    }
    // Headers: snap, csv and tsv.
    for f in [InputFormat::Ldbc, InputFormat::Mtx, InputFormat::Bin32] {
        match open(from_ref(&p), f, &hdr) {
            Err(Error::Invalid(m)) => assert!(m.contains("header lines apply only"), "{m}"),
            Err(other) => panic!("{f}: {other}"),
            Ok(_) => panic!("{f}: accepted"),
        }
    }
}

#[test]
fn works_inside_a_one_thread_rayon_pool() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "g.txt", &b"1 2\n3 4\n".repeat(5000));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let n = pool.install(|| {
        let mut src = FileSource::open(from_ref(&p), InputFormat::Snap, &opts(), 256).unwrap();
        let mut n = 0;
        src.for_each_edge_batch(&mut |b| {
            n += b.len();
            Ok(())
        })
        .unwrap();
        n
    });
    assert_eq!(n, 10_000);
}

#[test]
fn inputs_are_recognised() {
    let d = tempfile::tempdir().unwrap();
    // A Matrix Market file under another name is refused as snap, pointing
    // to --format mtx; found by its banner.
    let m = write(
        d.path(),
        "m.txt",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
    );
    assert!(super::is_matrix_market(&m).unwrap());
    match open(from_ref(&m), InputFormat::Snap, &opts()) {
        Err(Error::Invalid(msg)) => assert!(msg.contains("--format mtx"), "{msg}"),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a Matrix Market file read as snap"),
    }
    // A header row that was not announced is taken as one.
    let h = write(d.path(), "h.csv", b"source,target\n1,2\n3,4\n");
    assert_eq!(
        edges(from_ref(&h), InputFormat::Csv, &opts()),
        vec![e(1, 2), e(3, 4)]
    );
    // A first row that is not numeric, with nothing numeric after it: a hint.
    let x = write(d.path(), "x.csv", b"a;b\nc;d\n");
    match open(from_ref(&x), InputFormat::Csv, &opts()) {
        Err(e @ Error::Parse { line: 1, .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("--header") && msg.contains("--delimiter"),
                "{msg}"
            )
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("accepted"),
    }
    // --delimiter.
    let s = write(d.path(), "s.csv", b"1;2\n3;4\n");
    let semi = ParseOptions {
        delimiter: Some(b';'),
        ..opts()
    };
    assert_eq!(
        edges(from_ref(&s), InputFormat::Csv, &semi),
        vec![e(1, 2), e(3, 4)]
    );
    assert!(
        open(from_ref(&s), InputFormat::Snap, &semi).is_err(),
        "snap has no delimiter"
    );
}

/// Throughput check: `cargo test --release -p outcore --lib parse::tests::sources::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    use std::time::Instant;
    let d = tempfile::tempdir().unwrap();
    let mut text = Vec::with_capacity(600 << 20);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while text.len() < 500 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        writeln!(text, "{}\t{}", x % 100_000_000, (x >> 20) % 100_000_000).unwrap();
    }
    let p = write(d.path(), "big.txt", &text);
    let gzp = write(d.path(), "big.txt.gz", &gz(&text[..100 << 20]));
    let w = write(
        d.path(),
        "big.csv",
        &text
            .iter()
            .map(|&b| if b == b'\t' { b',' } else { b })
            .collect::<Vec<_>>(),
    );
    for (path, format, mb) in [
        (&p, InputFormat::Snap, text.len()),
        (&w, InputFormat::Csv, text.len()),
        (&gzp, InputFormat::Snap, 100 << 20),
    ] {
        let mut src = open(from_ref(path), format, &opts()).unwrap();
        let t = Instant::now();
        let mut n = 0usize;
        src.for_each_edge_batch(&mut |b| {
            n += b.len();
            Ok(())
        })
        .unwrap();
        let s = t.elapsed().as_secs_f64();
        eprintln!(
            "{}: {n} edges, {:.0} MB/s of text",
            path.display(),
            mb as f64 / s / 1e6
        );
    }
}
