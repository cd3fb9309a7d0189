//! The CSV and TSV parsers: default columns, quoting, headers, columns
//! chosen by name or index, and rejected rows.

use std::slice::from_ref;

use super::*;

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

/// Ids of a store's kind (an update's edges, `store_ids`): a line of the
/// other kind is refused saying what the store holds, wherever the parser
/// finds it (the first data line, or one further down, in snap and csv
/// alike), never with advice to read the other kind.
#[test]
fn a_stores_ids_are_refused_in_its_terms() {
    let d = tempfile::tempdir().unwrap();
    let o = ParseOptions {
        store_ids: true,
        ..opts()
    };
    for (name, text, format, at) in [
        (
            "first.txt",
            &b"ann bob\ncarl dave\n"[..],
            InputFormat::Snap,
            ":1:",
        ),
        ("later.txt", b"1 2\nann bob\n", InputFormat::Snap, ":2:"),
        ("later.csv", b"1,2\nann,bob\n", InputFormat::Csv, ":2:"),
    ] {
        let p = write(d.path(), name, text);
        let msg = read(from_ref(&p), format, &o).unwrap_err().to_string();
        assert!(msg.contains(&format!("{name}{at}")), "{msg}");
        assert!(
            msg.contains("this store's vertex ids are integers") && !msg.contains("--ids"),
            "{msg}"
        );
    }
}
