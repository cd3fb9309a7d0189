//! Inputs recognised, never silently misread (issue 49): header rows in
//! snap and csv alike, files that are not text refused by their first
//! bytes, ids past 2^64 - 1 and negative ones refused rather than read as
//! names, names that are not text, inputs without edges, a byte-order
//! mark, and messages that name the separator in use and what a short line
//! lacks.

use std::slice::from_ref;

use super::*;

fn auto() -> ParseOptions {
    ParseOptions {
        ids: IdKind::Auto,
        ..opts()
    }
}

/// Whether `--ids auto` read the input's ids as strings.
fn strings(path: &Path, format: InputFormat) -> bool {
    open(&[path.to_path_buf()], format, &auto())
        .unwrap()
        .string_ids()
}

/// The message of the error opening (or reading) `path`.
fn refused(path: &Path, format: InputFormat, o: &ParseOptions) -> String {
    read(&[path.to_path_buf()], format, o)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_header_row_is_skipped_in_snap_as_in_csv() {
    let d = tempfile::tempdir().unwrap();
    let want = vec![e(1, 2), e(2, 3)];
    for (name, text, format) in [
        ("h.txt", &b"src dst\n1 2\n2 3\n"[..], InputFormat::Snap),
        (
            "c.txt",
            b"# comment\nFromNode\tToNode\n1\t2\n2 3\n",
            InputFormat::Snap,
        ),
        (
            "w.txt",
            b"\n  src dst weight\n1 2 0.5\n2 3 1\n",
            InputFormat::Snap,
        ),
        ("c.csv", b"# comment\nsrc,dst\n1,2\n2,3\n", InputFormat::Csv),
        ("t.tsv", b"src\tdst\n1\t2\n2\t3\n", InputFormat::Tsv),
    ] {
        let p = write(d.path(), name, text);
        assert!(!strings(&p, format), "{name}: integer ids");
        assert_eq!(edges(from_ref(&p), format, &auto()), want, "{name}");
        assert_eq!(edges(from_ref(&p), format, &opts()), want, "{name}");
    }
    // --header for snap and tsv: the first line, whatever it holds.
    let hdr = ParseOptions {
        header: true,
        ..auto()
    };
    let p = write(d.path(), "n.txt", b"# from to\n1 2\n2 3\n");
    assert_eq!(edges(from_ref(&p), InputFormat::Snap, &hdr), want);
    let p = write(d.path(), "n.tsv", b"a\tb\n1\t2\n2\t3\n");
    assert_eq!(edges(from_ref(&p), InputFormat::Tsv, &hdr), want);
    // A header in each of several files.
    let a = write(d.path(), "a.txt", b"src dst\n1 2\n");
    let b = write(d.path(), "b.txt", b"# b\nsrc dst\n2 3\n");
    assert_eq!(edges(&[a, b], InputFormat::Snap, &auto()), want);
    // Lines of names: string ids, the first line read as data.
    let p = write(d.path(), "names.txt", b"alice bob\nbob carol\n");
    assert!(strings(&p, InputFormat::Snap));
    // Integers required: refused at line 1, with the ways out.
    let msg = refused(&p, InputFormat::Snap, &opts());
    assert!(msg.contains("names.txt:1:"), "{msg}");
    assert!(
        msg.contains("--header") && msg.contains("--ids string"),
        "{msg}"
    );
    // LDBC `.e` files share the mechanism.
    let p = write(d.path(), "g.e", b"src dst\n1 2\n2 3\n");
    assert_eq!(edges(from_ref(&p), InputFormat::Ldbc, &auto()), want);
}

#[test]
fn inputs_that_are_not_text_are_refused_by_their_first_bytes() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], &str)] = &[
        (b"PAR1\x15\x04\x15\x80\x01\x00\x00", "Parquet"),
        (b"ARROW1\x00\x00\xff\xff\xff\xff", "Arrow IPC"),
        (b"PK\x03\x04\x14\x00\x00\x00", "zip"),
        (b"\x7fELF\x02\x01\x01\x00", "ELF"),
        (b"BZh91AY&SY\x8a\x02\xfe", "bzip2"),
        (b"\xfd7zXZ\x00\x00\x04", "xz"),
        (b"\x28\xb5\x2f\xfd\x04\x58", "zstd"),
        (b"7z\xbc\xaf\x27\x1c\x00\x04", "7-Zip"),
        (b"%PDF-1.7\n1 0 obj\n", "PDF"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG"),
        (b"SQLite format 3\x00\x10\x00", "SQLite"),
        (b"{\n  \"format\": \"outcore-store\",\n", "manifest"),
        (b"\xff\xfe1\x00 \x002\x00", "UTF-16"),
    ];
    for (i, (bytes, name)) in cases.iter().enumerate() {
        let p = write(d.path(), &format!("x{i}.txt"), bytes);
        for format in [InputFormat::Snap, InputFormat::Csv, InputFormat::Mtx] {
            let msg = refused(&p, format, &auto());
            assert!(
                msg.contains(name) && msg.contains(&format!("x{i}.txt")),
                "{msg}"
            );
            assert!(!msg.contains(|c: char| c.is_control()), "{msg:?}");
        }
        // Inside gzip, whatever the file is called.
        let p = write(d.path(), &format!("z{i}.txt"), &gz(bytes));
        let msg = refused(&p, InputFormat::Snap, &auto());
        assert!(msg.contains(name) && msg.contains("inside gzip"), "{msg}");
    }
    // gzip is read by its bytes, not its name.
    let p = write(d.path(), "g.txt", &gz(b"1 2\n2 3\n"));
    assert_eq!(
        edges(&[p], InputFormat::Snap, &opts()),
        vec![e(1, 2), e(2, 3)]
    );
    // Other binary data: the line of its first NUL, escaped.
    let p = write(d.path(), "n.txt", b"1 2\n2 3\n\x01\x00\x1b[31m\xff 4\n");
    let err = read(from_ref(&p), InputFormat::Snap, &opts()).unwrap_err();
    assert!(matches!(err, Error::Parse { line: 3, .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("NUL byte") && msg.contains(r"\x01\0\x1b[31m\xff 4"),
        "{msg}"
    );
    // Binary formats given as such are not sniffed.
    let p = write(d.path(), "p.bin", b"PAR1\x00\x00\x00\x00");
    assert_eq!(
        edges(&[p], InputFormat::Bin32, &opts()),
        vec![e(0x3152_4150, 0)]
    );
    // A store given as an input.
    let store = d.path().join("s.oc");
    std::fs::create_dir(&store).unwrap();
    std::fs::write(store.join("manifest.json"), "{}").unwrap();
    let msg = refused(&store, InputFormat::Snap, &opts());
    assert!(msg.contains("an outcore store"), "{msg}");
    // A pipe would be read empty after the first look.
    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let msg = refused(&fifo, InputFormat::Snap, &opts());
    assert!(
        msg.contains("not a regular file") && msg.contains("import -"),
        "{msg}"
    );
}

#[test]
fn integers_out_of_range_are_errors_not_names() {
    let d = tempfile::tempdir().unwrap();
    for (name, text, format, needle) in [
        (
            "o.txt",
            &b"18446744073709551616 1\n1 2\n"[..],
            InputFormat::Snap,
            "too large",
        ),
        (
            "o1.txt",
            b"1 99999999999999999999999\n",
            InputFormat::Snap,
            "too large",
        ),
        (
            "o.csv",
            b"18446744073709551616,1\n",
            InputFormat::Csv,
            "too large",
        ),
        ("n.txt", b"-1 2\n3 4\n", InputFormat::Snap, "negative"),
    ] {
        let p = write(d.path(), name, text);
        let err = read(from_ref(&p), format, &auto()).unwrap_err();
        assert!(matches!(err, Error::Parse { line: 1, .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{name}:1:")) && msg.contains(needle),
            "{msg}"
        );
    }
    // Strings when asked.
    let p = write(d.path(), "s.txt", b"18446744073709551616 1\n");
    let o = ParseOptions {
        ids: IdKind::String,
        ..opts()
    };
    assert!(open(&[p], InputFormat::Snap, &o).unwrap().string_ids());
}

#[test]
fn inputs_without_edges_are_refused_unless_allowed() {
    let d = tempfile::tempdir().unwrap();
    let allow = ParseOptions {
        allow_empty: true,
        ..auto()
    };
    let hdr = ParseOptions {
        header: true,
        ..auto()
    };
    let mtx = b"%%MatrixMarket matrix coordinate pattern general\n3 3 0\n";
    for (name, text, format, o, why) in [
        ("e.txt", &b""[..], InputFormat::Snap, &auto(), "is empty"),
        (
            "c.txt",
            b"# only\n\n% comments\n",
            InputFormat::Snap,
            &auto(),
            "only comments",
        ),
        (
            "h.csv",
            b"src,dst\n# none\n",
            InputFormat::Csv,
            &hdr,
            "only a header",
        ),
        (
            "g.txt.gz",
            &gz(b"# x\n")[..],
            InputFormat::Snap,
            &auto(),
            "only comments",
        ),
        (
            "m.mtx",
            &mtx[..],
            InputFormat::Mtx,
            &opts(),
            "declares no entries",
        ),
        ("b.bin32", b"", InputFormat::Bin32, &opts(), "is empty"),
        ("l.e", b"", InputFormat::Ldbc, &auto(), "is empty"),
    ] {
        let p = write(d.path(), name, text);
        let msg = match open(from_ref(&p), format, o) {
            Err(e @ Error::Invalid(_)) => e.to_string(),
            Err(e) => panic!("{name}: {e}"),
            Ok(_) => panic!("{name}: accepted"),
        };
        assert!(msg.contains("no edges") && msg.contains(name), "{msg}");
        assert!(msg.contains(why) && msg.contains("--allow-empty"), "{msg}");
        let allowed = ParseOptions {
            allow_empty: true,
            ..o.clone()
        };
        assert_eq!(edges(&[p], format, &allowed), vec![], "{name}");
    }
    // Several files: each named.
    let a = write(d.path(), "a.txt", b"");
    let b = write(d.path(), "b.txt", b"# b\n");
    let msg = open(&[a.clone(), b], InputFormat::Snap, &auto())
        .err()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("a.txt is empty") && msg.contains("b.txt holds only"),
        "{msg}"
    );
    // Matrix Market: the declared vertices, when allowed.
    let p = write(d.path(), "m.mtx", mtx);
    let (vs, es) = read(&[p], InputFormat::Mtx, &allow).unwrap();
    assert_eq!((vs, es), (vec![1, 2, 3], vec![]));
    // One file with an edge is enough.
    let c = write(d.path(), "c.txt", b"1 2\n");
    assert_eq!(edges(&[a, c], InputFormat::Snap, &auto()), vec![e(1, 2)]);
}

#[test]
fn names_are_text() {
    let d = tempfile::tempdir().unwrap();
    let o = ParseOptions {
        ids: IdKind::String,
        ..opts()
    };
    let mut big = b"a b\n".repeat(3000);
    big.extend_from_slice(b"c\x00d e\n");
    for (name, text, line, shown) in [
        ("u.txt", &b"a b\nc\xe9 d\n"[..], 2, r"c\xe9 d"),
        ("z.txt", &big[..], 3001, r"c\0d e"),
    ] {
        let p = write(d.path(), name, text);
        let mut src = open(&[p], InputFormat::Snap, &o).unwrap();
        let err = src.for_each_named_batch(&mut |_| Ok(())).unwrap_err();
        assert!(
            matches!(err, Error::Parse { line: l, .. } if l == line),
            "{err}"
        );
        let msg = err.to_string();
        assert!(msg.contains("not text") && msg.contains(shown), "{msg}");
    }
}

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_line() {
    let d = tempfile::tempdir().unwrap();
    for (name, format) in [("b.txt", InputFormat::Snap), ("b.csv", InputFormat::Csv)] {
        let sep = if format == InputFormat::Csv { "," } else { " " };
        let text = format!("\u{feff}1{sep}2\n2{sep}3\n");
        let p = write(d.path(), name, text.as_bytes());
        assert_eq!(
            edges(&[p], format, &auto()),
            vec![e(1, 2), e(2, 3)],
            "{name}"
        );
    }
}

#[test]
fn messages_name_the_separator_and_what_a_short_line_lacks() {
    let d = tempfile::tempdir().unwrap();
    let space = ParseOptions {
        delimiter: Some(b' '),
        ..opts()
    };
    let p = write(d.path(), "s.csv", b"1 2\n3,4\n");
    let msg = refused(&p, InputFormat::Csv, &space);
    assert!(
        msg.contains("space-separated") && !msg.contains("comma"),
        "{msg}"
    );
    for (name, text, format, needle) in [
        (
            "one.txt",
            &b"1 2\n3\n"[..],
            InputFormat::Snap,
            "a line needs at least two columns, source and target",
        ),
        (
            "one.csv",
            b"1,2\n3\n",
            InputFormat::Csv,
            "a row needs at least two comma-separated columns, source and target",
        ),
        (
            "one.tsv",
            b"1\t2\n3\n",
            InputFormat::Tsv,
            "two tab-separated columns",
        ),
    ] {
        let p = write(d.path(), name, text);
        let msg = refused(&p, format, &auto());
        assert!(
            msg.contains(&format!("{name}:2:")) && msg.contains(needle),
            "{msg}"
        );
        assert!(
            msg.ends_with("found `3`") && !msg.contains("--ids"),
            "{msg}"
        );
    }
    // Names: the same.
    let o = ParseOptions {
        ids: IdKind::String,
        ..opts()
    };
    let p = write(d.path(), "n.txt", b"a b\nc\n");
    let mut src = open(&[p], InputFormat::Snap, &o).unwrap();
    let msg = src
        .for_each_named_batch(&mut |_| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("n.txt:2:") && msg.contains("at least two columns"),
        "{msg}"
    );
}

/// A `--columns` spec is checked against whether the input is read
/// weighted, the same for text and columnar inputs.
#[test]
fn column_specs_match_the_weighting() {
    use super::super::shape::column_parts;
    assert_eq!(column_parts(" a, b", false, "x").unwrap(), ["a", "b"]);
    assert_eq!(column_parts("0,1,2", true, "x").unwrap(), ["0", "1", "2"]);
    let err = |s, w| column_parts(s, w, "names").unwrap_err().to_string();
    assert!(err("0,1,2", false).contains("names a weight column"));
    assert!(err("0,1", true).contains("has no weight column"));
    assert!(err("0", false).contains("`0`: expected SRC,DST or SRC,DST,W (names)"));
}
