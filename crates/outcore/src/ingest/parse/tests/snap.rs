//! The SNAP edge-list parser: plain and weighted lines, comments and
//! blanks, ids up to u64::MAX, rejected lines with their file and line
//! (also across block cuts and in gzip), and many edges in order.

use std::slice::from_ref;

use super::*;

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
            "a line needs at least two columns, source and target",
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
