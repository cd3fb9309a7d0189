//! Tests of the parsers through the public `EdgeSource` interface.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::slice::from_ref;

use flate2::write::GzEncoder;
use flate2::Compression;

use super::*;
use crate::ingest::RawEdge;

/// Block sizes every reading test is run with: byte-sized blocks exercise
/// carrying lines across blocks, the default the fast path.
const SIZES: [usize; 5] = [1, 3, 17, 4096, DEFAULT_BLOCK_SIZE];

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn gz(content: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(content).unwrap();
    e.finish().unwrap()
}

fn e(src: u64, dst: u64) -> RawEdge {
    RawEdge {
        src,
        dst,
        weight: 1.0,
    }
}

fn ew(src: u64, dst: u64, weight: f64) -> RawEdge {
    RawEdge { src, dst, weight }
}

fn opts() -> ParseOptions {
    ParseOptions::default()
}

fn weighted() -> ParseOptions {
    ParseOptions {
        weighted: true,
        ..ParseOptions::default()
    }
}

/// Reads vertices and edges with one block size.
fn read_with(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
    block: usize,
) -> Result<(Vec<u64>, Vec<RawEdge>)> {
    let mut src = FileSource::open(inputs, format, opts, block)?;
    let mut vs = Vec::new();
    src.for_each_vertex_batch(&mut |b| {
        vs.extend_from_slice(b);
        Ok(())
    })?;
    let mut es = Vec::new();
    src.for_each_edge_batch(&mut |b| {
        assert!(!b.is_empty());
        es.extend_from_slice(b);
        Ok(())
    })?;
    Ok((vs, es))
}

/// Reads with every block size, checking they agree.
fn read(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
) -> Result<(Vec<u64>, Vec<RawEdge>)> {
    let first = read_with(inputs, format, opts, SIZES[0]);
    for &bs in &SIZES[1..] {
        let other = read_with(inputs, format, opts, bs);
        match (&first, &other) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "block size {bs}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "block size {bs}"),
            _ => panic!("block size {bs}: {other:?} vs {first:?}"),
        }
    }
    first
}

fn edges(inputs: &[PathBuf], format: InputFormat, opts: &ParseOptions) -> Vec<RawEdge> {
    read(inputs, format, opts).unwrap().1
}

/// The error of reading, with its line (0 for non-parse errors).
fn fail(inputs: &[PathBuf], format: InputFormat, opts: &ParseOptions) -> (u64, String) {
    let err = read(inputs, format, opts).unwrap_err();
    let line = match &err {
        Error::Parse { line, .. } => *line,
        _ => 0,
    };
    (line, err.to_string())
}

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
fn snap_basic() {
    let d = tempfile::tempdir().unwrap();
    let text = b"# Directed graph\n% also a comment\n   # indented comment\n\n1 2\n3\t4\r\n  5   6  \n\t\n7 8 junk\n+9 10\n0 0";
    let p = write(d.path(), "g.txt", text);
    assert_eq!(
        edges(&[p], InputFormat::Snap, &opts()),
        vec![e(1, 2), e(3, 4), e(5, 6), e(7, 8), e(9, 10), e(0, 0)]
    );
}

#[test]
fn snap_weighted() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "g.txt",
        b"1 2 0.5\r\n2 3 7 extra\n3 4 -1e-3\n4 5 +2\n",
    );
    assert_eq!(
        edges(&[p], InputFormat::Snap, &weighted()),
        vec![ew(1, 2, 0.5), ew(2, 3, 7.0), ew(3, 4, -1e-3), ew(4, 5, 2.0)]
    );
}

#[test]
fn huge_ids_text() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "g.txt",
        b"18446744073709551615 18446744073709551614\n9223372036854775808 0\n",
    );
    assert_eq!(
        edges(&[p], InputFormat::Snap, &opts()),
        vec![e(u64::MAX, u64::MAX - 1), e(1 << 63, 0)]
    );
    let p = write(d.path(), "h.txt", b"1 2\n18446744073709551616 1\n");
    let (line, msg) = fail(&[p], InputFormat::Snap, &opts());
    assert_eq!(line, 2);
    assert!(msg.contains("too large"), "{msg}");
}

#[test]
fn snap_errors() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], bool, u64, &str)] = &[
        (b"1 2\n-3 4\n", false, 2, "negative vertex id"),
        (b"1 2\n3 -4\n", false, 2, "negative vertex id"),
        (
            b"# c\n1\n",
            false,
            2,
            "expected two non-negative integer vertex ids",
        ),
        (
            b"1 2x\n",
            false,
            1,
            "expected two non-negative integer vertex ids",
        ),
        (b"1.5 2\n", false, 1, "expected two"),
        (b"a b\n", false, 1, "found `a b`"),
        (b"1 2 1\n2 3\r\n", true, 2, "missing weight"),
        (b"1 2 heavy\n", true, 1, "weight is not a number"),
        (b"1 2 inf\n", true, 1, "finite"),
        (b"1 2 nan\n", true, 1, "finite"),
    ];
    for (i, (text, w, line, needle)) in cases.iter().enumerate() {
        let p = write(d.path(), &format!("bad{i}.txt"), text);
        let o = ParseOptions {
            weighted: *w,
            ..opts()
        };
        let (l, msg) = fail(&[p], InputFormat::Snap, &o);
        assert_eq!(l, *line, "case {i}: {msg}");
        assert!(msg.contains(needle), "case {i}: {msg}");
        assert!(
            msg.contains(&format!("bad{i}.txt:{line}:")),
            "case {i}: {msg}"
        );
    }
}

#[test]
fn error_line_across_blocks() {
    let d = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..1000 {
        if i % 97 == 0 {
            text += "# comment line\n\n";
        }
        text += &format!("{} {}\r\n", i, i + 1);
    }
    text += "12 oops\n5 6\n";
    let good_lines = text.lines().count() as u64 - 1;
    for gzipped in [false, true] {
        let (name, bytes) = if gzipped {
            ("big.txt.gz", gz(text.as_bytes()))
        } else {
            ("big.txt", text.clone().into_bytes())
        };
        let p = write(d.path(), name, &bytes);
        for bs in [1, 2, 5, 64, 1000, 1 << 20] {
            let err = read_with(from_ref(&p), InputFormat::Snap, &opts(), bs).unwrap_err();
            match err {
                Error::Parse { line, text, .. } => {
                    assert_eq!(line, good_lines, "block size {bs}");
                    assert_eq!(text, "12 oops");
                }
                other => panic!("{other}"),
            }
        }
    }
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
fn many_edges_in_order() {
    let d = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let n = 200_000u64;
    for i in 0..n {
        text += &format!("{} {} {}\n", i * 3, i * 7 + 1, i % 10);
    }
    let p = write(d.path(), "many.txt", text.as_bytes());
    for bs in [4096, 65536, DEFAULT_BLOCK_SIZE] {
        let (_, es) = read_with(from_ref(&p), InputFormat::Snap, &weighted(), bs).unwrap();
        assert_eq!(es.len() as u64, n);
        for (i, x) in es.iter().enumerate() {
            let i = i as u64;
            assert_eq!(*x, ew(i * 3, i * 7 + 1, (i % 10) as f64));
        }
    }
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
        assert!(matches!(
            open(from_ref(&p), f, &hdr),
            Err(Error::Invalid(_))
        ));
    }
}

#[test]
fn csv_default_columns() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "g.csv",
        b"1,2\r\n 3 , \"4\" ,x\n\n# note\n\"5\",6\n",
    );
    assert_eq!(
        edges(&[p], InputFormat::Csv, &opts()),
        vec![e(1, 2), e(3, 4), e(5, 6)]
    );
    let p = write(d.path(), "w.csv", b"1,2,0.5\n3,4,\"2\"\n");
    assert_eq!(
        edges(&[p], InputFormat::Csv, &weighted()),
        vec![ew(1, 2, 0.5), ew(3, 4, 2.0)]
    );
    let p = write(d.path(), "g.tsv", b"1\t2\tfoo, bar\n3\t4\n");
    assert_eq!(
        edges(&[p], InputFormat::Tsv, &opts()),
        vec![e(1, 2), e(3, 4)]
    );
}

#[test]
fn csv_header_and_named_columns() {
    let d = tempfile::tempdir().unwrap();
    let a = write(
        d.path(),
        "a.csv",
        b"\xEF\xBB\xBFname,\"to\",from,w\n\"x, y\",2,1,0.25\nz,4,3,1e1\n",
    );
    let b = write(d.path(), "b.csv", b"from,w,to,name\n5,3,6,q\n");
    let o = ParseOptions {
        weighted: true,
        header: true,
        columns: Some("from, to, W".into()),
        ..opts()
    };
    assert_eq!(
        edges(&[a.clone(), b.clone()], InputFormat::Csv, &o),
        vec![ew(1, 2, 0.25), ew(3, 4, 10.0), ew(5, 6, 3.0)]
    );
    // Header without columns: defaults, header skipped in each file.
    let c = write(d.path(), "c.csv", b"src,dst\n1,2\n");
    let hdr = ParseOptions {
        header: true,
        ..opts()
    };
    assert_eq!(
        edges(&[c.clone(), c.clone()], InputFormat::Csv, &hdr),
        vec![e(1, 2), e(1, 2)]
    );
    // Indices with a header.
    let idx = ParseOptions {
        header: true,
        columns: Some("2,1".into()),
        ..opts()
    };
    assert_eq!(
        edges(from_ref(&a), InputFormat::Csv, &idx),
        vec![e(1, 2), e(3, 4)]
    );
    // Indices without a header.
    let t = write(d.path(), "t.tsv", b"a\t1\t2\n\"b\"\t3\t4\n");
    let idx = ParseOptions {
        columns: Some("2,1".into()),
        ..opts()
    };
    assert_eq!(edges(&[t], InputFormat::Tsv, &idx), vec![e(2, 1), e(4, 3)]);
    // Unknown names, names without header, wrong arity.
    let bad = |cols: &str, header: bool, weighted: bool| {
        let o = ParseOptions {
            weighted,
            header,
            columns: Some(cols.into()),
            ..opts()
        };
        match open(from_ref(&a), InputFormat::Csv, &o) {
            Err(Error::Invalid(m)) => m,
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("{cols} accepted"),
        }
    };
    assert!(bad("from,nope", true, false).contains("to, from, w"));
    // Column names imply a header row, announced or not.
    let named = ParseOptions {
        columns: Some("from,to".into()),
        ..opts()
    };
    assert_eq!(
        edges(from_ref(&a), InputFormat::Csv, &named),
        vec![e(1, 2), e(3, 4)]
    );
    assert!(bad("from,to,w", true, false).contains("weight"));
    assert!(bad("from,to", true, true).contains("weight"));
    assert!(bad("1", false, false).contains("SRC,DST"));
}

#[test]
fn csv_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "g.csv", b"src,dst\n1,2\n3\n");
    let hdr = ParseOptions {
        header: true,
        ..opts()
    };
    let (line, msg) = fail(&[p], InputFormat::Csv, &hdr);
    assert_eq!(line, 3, "{msg}");
    assert!(msg.contains("comma-separated"), "{msg}");
    let p = write(d.path(), "n.csv", b"1,2\n-1,2\n");
    let (line, msg) = fail(&[p], InputFormat::Csv, &opts());
    assert_eq!(line, 2);
    assert!(msg.contains("negative vertex id"), "{msg}");
    let p = write(d.path(), "w.csv", b"1,2,3\n1,2\n");
    let (line, msg) = fail(&[p], InputFormat::Csv, &weighted());
    assert_eq!(line, 2);
    assert!(msg.contains("missing weight"), "{msg}");
    let p = write(d.path(), "x.csv", b"1,2,abc\n");
    let (line, msg) = fail(&[p], InputFormat::Csv, &weighted());
    assert_eq!(line, 1);
    assert!(msg.contains("not a number"), "{msg}");
    let p = write(d.path(), "s.tsv", b"1 2\n");
    let (line, msg) = fail(&[p], InputFormat::Tsv, &opts());
    assert_eq!(line, 1);
    assert!(msg.contains("tab-separated"), "{msg}");
}

const MTX_GENERAL: &[u8] = b"%%MatrixMarket matrix coordinate real general\n% comment\n%\n  \n4 5 3\n1 2 0.5\n3 1 -2\r\n4 5 1e2\n";

#[test]
fn mtx_general() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "m.mtx", MTX_GENERAL);
    let (vs, es) = read(from_ref(&p), InputFormat::Mtx, &weighted()).unwrap();
    assert_eq!(vs, vec![1, 2, 3, 4, 5]);
    assert_eq!(es, vec![ew(1, 2, 0.5), ew(3, 1, -2.0), ew(4, 5, 100.0)]);
    let (_, es) = read(&[p], InputFormat::Mtx, &opts()).unwrap();
    assert_eq!(es, vec![e(1, 2), e(3, 1), e(4, 5)]);
}

#[test]
fn mtx_symmetric_pattern() {
    let d = tempfile::tempdir().unwrap();
    let text = b"%%matrixmarket MATRIX Coordinate PATTERN Symmetric\n3 3 3\n2 1\n3 3\n3 1\n";
    let p = write(d.path(), "s.mtx.gz", &gz(text));
    let undirected = edges(from_ref(&p), InputFormat::Mtx, &opts());
    assert_eq!(undirected, vec![e(2, 1), e(3, 3), e(3, 1)]);
    let directed = ParseOptions {
        directed: true,
        ..opts()
    };
    assert_eq!(
        edges(from_ref(&p), InputFormat::Mtx, &directed),
        vec![e(2, 1), e(1, 2), e(3, 3), e(3, 1), e(1, 3)]
    );
    let err = open(&[p], InputFormat::Mtx, &weighted()).err().unwrap();
    assert!(
        matches!(err, Error::Invalid(_)) && err.to_string().contains("pattern"),
        "{err}"
    );
}

#[test]
fn mtx_symmetric_integer_weighted_directed() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "i.mtx",
        b"%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 7\n1 1 3\n",
    );
    let o = ParseOptions {
        weighted: true,
        directed: true,
        ..opts()
    };
    assert_eq!(
        edges(&[p], InputFormat::Mtx, &o),
        vec![ew(2, 1, 7.0), ew(1, 2, 7.0), ew(1, 1, 3.0)]
    );
}

#[test]
fn mtx_isolated_vertices_in_batches() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "big.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n100000 150000 1\n1 150000\n",
    );
    let mut src = open(&[p], InputFormat::Mtx, &opts()).unwrap();
    let mut batches = 0;
    let mut next = 1u64;
    src.for_each_vertex_batch(&mut |b| {
        batches += 1;
        assert!(b.len() <= mtx::VERTEX_BATCH);
        for &v in b {
            assert_eq!(v, next);
            next += 1;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(next, 150_001);
    assert!(batches >= 3);
    let mut es = Vec::new();
    src.for_each_edge_batch(&mut |b| {
        es.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    assert_eq!(es, vec![e(1, 150_000)]);
}

#[test]
fn mtx_rejected_headers() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], &str)] = &[
        (
            b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "array",
        ),
        (
            b"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
            "complex",
        ),
        (
            b"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
            "hermitian",
        ),
        (
            b"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
            "skew-symmetric",
        ),
        (b"1 2\n", "%%MatrixMarket"),
        (b"", "%%MatrixMarket"),
        (
            b"%%MatrixMarket matrix coordinate real general\n% only comments\n",
            "size line",
        ),
        (
            b"%%MatrixMarket matrix coordinate real general\n3 3\n",
            "size line",
        ),
        // Found by fuzzing: a size beyond 2^32 made the build list
        // hundreds of trillions of isolated vertices.
        (
            b"%%MatrixMarket matrix coordinate real general\n3 444444444444444 1\n1 2 1\n",
            "fewer than 2^32 vertices",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let p = write(d.path(), &format!("h{i}.mtx"), text);
        let err = open(&[p], InputFormat::Mtx, &opts()).err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains(needle) && msg.contains(&format!("h{i}.mtx")),
            "case {i}: {msg}"
        );
    }
}

#[test]
fn mtx_entry_errors() {
    let d = tempfile::tempdir().unwrap();
    let head = "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n";
    let p = write(d.path(), "few.mtx", format!("{head}1 2 1\n").as_bytes());
    let (_, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert!(
        msg.contains("few.mtx") && msg.contains("declares 2 entries") && msg.contains("only 1"),
        "{msg}"
    );
    let p = write(
        d.path(),
        "more.mtx",
        format!("{head}1 2 1\n% c\n2 3 1\n\n3 1 1\n1 1 1\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert_eq!(line, 8, "{msg}");
    assert!(
        msg.contains("more.mtx") && msg.contains("only 2 entries"),
        "{msg}"
    );
    let p = write(
        d.path(),
        "range.mtx",
        format!("{head}1 2 1\n4 1 1\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert_eq!(line, 5);
    assert!(msg.contains("out of range"), "{msg}");
    let p = write(
        d.path(),
        "zero.mtx",
        format!("{head}0 2 1\n1 1 1\n").as_bytes(),
    );
    assert_eq!(fail(&[p], InputFormat::Mtx, &opts()).0, 4);
    let p = write(
        d.path(),
        "noval.mtx",
        format!("{head}1 2 1\n2 2\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &weighted());
    assert_eq!(line, 5);
    assert!(msg.contains("missing weight"), "{msg}");
}

#[test]
fn ldbc_pairs_and_basenames() {
    let d = tempfile::tempdir().unwrap();
    let v = write(d.path(), "g.v", b"1\n2\n3\n99\n");
    let ed = write(d.path(), "g.e", b"1 2 0.5\n2 3 1.5\n");
    let o = weighted();
    let want_v = vec![1, 2, 3, 99];
    let want_e = vec![ew(1, 2, 0.5), ew(2, 3, 1.5)];
    for inputs in [
        vec![v.clone(), ed.clone()],
        vec![ed.clone(), v.clone()],
        vec![d.path().join("g")],
    ] {
        let (vs, es) = read(&inputs, InputFormat::Ldbc, &o).unwrap();
        assert_eq!(vs, want_v);
        assert_eq!(es, want_e);
    }
    let (vs, es) = read(from_ref(&ed), InputFormat::Ldbc, &o).unwrap();
    assert!(vs.is_empty());
    assert_eq!(es, want_e);
    // Progress covers both files; the edge pass starts after the vertex bytes.
    let mut src = open(&[d.path().join("g")], InputFormat::Ldbc, &o).unwrap();
    let total = std::fs::metadata(&v).unwrap().len() + std::fs::metadata(&ed).unwrap().len();
    assert_eq!(src.input_bytes(), Some(total));
    src.for_each_vertex_batch(&mut |_| Ok(())).unwrap();
    src.for_each_edge_batch(&mut |_| Ok(())).unwrap();
    assert_eq!(src.bytes_consumed(), total);
    // Gzipped pair behind a basename.
    write(d.path(), "z.v.gz", &gz(b"7\n"));
    write(d.path(), "z.e.gz", &gz(b"7 8\n"));
    let (vs, es) = read(&[d.path().join("z")], InputFormat::Ldbc, &opts()).unwrap();
    assert_eq!((vs, es), (vec![7], vec![e(7, 8)]));
}

#[test]
fn ldbc_errors() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "only.e", b"1 2\n");
    let err = open(&[d.path().join("only")], InputFormat::Ldbc, &opts())
        .err()
        .unwrap();
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("only.v"),
        "{err}"
    );
    let err = open(&[d.path().join("none")], InputFormat::Ldbc, &opts())
        .err()
        .unwrap();
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("none"),
        "{err}"
    );
    let v = write(d.path(), "x.v", b"1\n");
    assert!(matches!(
        open(&[v], InputFormat::Ldbc, &opts()),
        Err(Error::Invalid(_))
    ));
    let v = write(d.path(), "bad.v", b"1\n2\n-5\n");
    let ed = write(d.path(), "bad.e", b"1 2\n");
    let (line, msg) = fail(&[v, ed], InputFormat::Ldbc, &opts());
    assert_eq!(line, 3);
    assert!(
        msg.contains("bad.v:3:") && msg.contains("negative vertex id"),
        "{msg}"
    );
}

#[test]
fn binary_formats() {
    let d = tempfile::tempdir().unwrap();
    let mut b32 = Vec::new();
    for (s, t) in [(1u32, 2u32), (u32::MAX, 0), (7, 7)] {
        b32.extend(s.to_le_bytes());
        b32.extend(t.to_le_bytes());
    }
    let p = write(d.path(), "g.bin", &b32);
    let want32 = vec![e(1, 2), e(u32::MAX as u64, 0), e(7, 7)];
    assert_eq!(edges(from_ref(&p), InputFormat::Bin32, &opts()), want32);
    let pz = write(d.path(), "g.bin.gz", &gz(&b32));
    assert_eq!(
        edges(&[p, pz], InputFormat::Bin32, &opts()),
        [want32.clone(), want32].concat()
    );
    let mut b64 = Vec::new();
    for (s, t) in [(u64::MAX, u64::MAX - 1), (0, 1 << 40)] {
        b64.extend(s.to_le_bytes());
        b64.extend(t.to_le_bytes());
    }
    let p = write(d.path(), "g.bin64", &b64);
    assert_eq!(
        edges(&[p], InputFormat::Bin64, &opts()),
        vec![e(u64::MAX, u64::MAX - 1), e(0, 1 << 40)]
    );
}

#[test]
fn binary_truncated() {
    let d = tempfile::tempdir().unwrap();
    let bytes = vec![1u8; 16 * 3 + 5];
    let p = write(d.path(), "t.bin", &bytes);
    let err = open(&[p], InputFormat::Bin64, &opts()).err().unwrap();
    match &err {
        Error::Parse { line, text, .. } => {
            assert_eq!(*line, 4);
            assert!(text.contains("5 trailing bytes"), "{err}");
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("t.bin"), "{err}");
    // Gzipped: found while streaming, after the whole records were delivered.
    let p = write(d.path(), "t.bin.gz", &gz(&bytes[..8 * 5 + 3]));
    for bs in [1, 8, 16, 4096] {
        let err = read_with(from_ref(&p), InputFormat::Bin32, &opts(), bs).unwrap_err();
        match &err {
            Error::Parse { line, text, .. } => {
                assert_eq!(*line, 6, "{err}");
                assert!(text.contains("3 trailing bytes"), "{err}");
            }
            other => panic!("{other}"),
        }
    }
}

/// Throughput check: `cargo test --release -p outcore --lib parse::tests::throughput -- --ignored --nocapture`.
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
