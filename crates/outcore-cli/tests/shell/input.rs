//! Inputs recognised: Matrix Market by its banner, standard input,
//! `--delimiter`, CSV header rows, names as ids, and the hints given when
//! integers are required.

use crate::bin;
use std::process::Stdio;

fn import(dir: &std::path::Path, args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::io::Write;
    let mut c = bin();
    c.current_dir(dir).arg("-q").arg("import").args(args);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut i = child.stdin.take().unwrap();
    if let Some(b) = stdin {
        i.write_all(b).unwrap();
    }
    drop(i);
    child.wait_with_output().unwrap()
}

fn edges_of(dir: &std::path::Path, store: &str) -> Vec<String> {
    let o = bin()
        .current_dir(dir)
        .args(["-q", "export", store, "--out", "-"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let mut v: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// Input is recognised: Matrix Market by its banner, standard input,
/// `--delimiter`, an unannounced CSV header.
#[test]
fn inputs_are_recognised() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(
        p.join("m.txt"),
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
    )
    .unwrap();
    // Read as Matrix Market whatever the name: symmetric, both directions.
    let o = import(p, &["m.txt", "--out", "m.oc"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(edges_of(p, "m.oc"), ["1 2", "2 1", "2 3", "3 2"]);
    // Forced to snap: refused, pointing to --format mtx.
    let o = import(p, &["m.txt", "--format", "snap", "--out", "s.oc"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--format mtx"));
    assert!(!p.join("s.oc").exists());
    // Standard input, with a semicolon delimiter and a header row.
    let o = import(
        p,
        &["-", "--format", "csv", "--delimiter", ";", "--out", "c.oc"],
        Some(b"from;to\n1;2\n2;3\n"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(edges_of(p, "c.oc"), ["1 2", "2 3"]);
    let left: Vec<_> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("stdin"))
        .collect();
    assert!(left.is_empty(), "spooled stdin removed: {left:?}");
    // Rows of names: string ids, the first row read as data.
    std::fs::write(p.join("bad.csv"), "a,b\nc,d\n").unwrap();
    let o = import(p, &["bad.csv", "--out", "s.oc"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(edges_of(p, "s.oc"), ["a b", "c d"]);
    // Integers required: a header row that cannot be one is refused with the hints.
    let o = import(p, &["bad.csv", "--ids", "int", "--out", "b.oc"], None);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad.csv:1") && e.contains("--header"), "{e}");
    // A name further down an integer file: an error that suggests --ids string.
    std::fs::write(p.join("typo.txt"), "1 2\n2 x3\n").unwrap();
    let o = import(p, &["typo.txt", "--out", "t.oc"], None);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("typo.txt:2") && e.contains("--ids string"),
        "{e}"
    );
}

/// The files of a store but its manifest (which records timings), by path.
fn store_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            let inner = store_files(&e.path());
            files.extend(inner.into_iter().map(|(n, b)| (format!("{name}/{n}"), b)));
        } else if name != "manifest.json" {
            files.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    files.sort();
    files
}

/// A `src dst` header line changes nothing: the store equals the one built
/// without it (snap found by its next line or announced with --header,
/// csv after a comment), and a note says the line was read as a header.
#[test]
fn a_header_line_builds_the_store_built_without_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let body = "1 2\n2 3\n3 1\n7 1\n";
    std::fs::write(p.join("plain.txt"), body).unwrap();
    let o = import(p, &["plain.txt", "--out", "plain.oc"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = edges_of(p, "plain.oc");
    assert_eq!(want, ["1 2", "2 3", "3 1", "7 1"]);
    let csv = format!("# edges\nsrc,dst\n{}", body.replace(' ', ","));
    for (name, text, extra) in [
        ("h.txt", format!("src dst\n{body}"), None),
        ("hh.txt", format!("src dst\n{body}"), Some("--header")),
        ("h.csv", csv, None),
    ] {
        std::fs::write(p.join(name), text).unwrap();
        let store = format!("{name}.oc");
        let mut args = vec![name, "--out", &store];
        args.extend(extra);
        let mut c = bin();
        c.current_dir(p).arg("import").args(&args);
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {err}");
        if extra.is_none() {
            assert!(err.contains("reading it as a header"), "{name}: {err}");
        }
        assert_eq!(edges_of(p, &store), want, "{name}");
        assert!(
            store_files(&p.join(&store)) == store_files(&p.join("plain.oc")),
            "{name}: the store's files differ"
        );
    }
}

/// Binary inputs are refused by their first bytes (a broken Parquet or
/// Arrow file as corrupt), naming the format and
/// echoing no byte raw; ids past 2^64 - 1 are an error; an input without
/// edges is refused unless --allow-empty; a short line says what it lacks
/// and messages name the separator in use.
#[test]
fn inputs_are_never_silently_misread() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let fails = |args: &[&str], needles: &[&str]| {
        let o = import(p, args, None);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: `{n}` not in {err}");
        }
        let raw = o
            .stderr
            .iter()
            .any(|&b| b >= 0x80 || (b < 0x20 && b != b'\n'));
        assert!(!raw, "{args:?}: raw bytes in {err:?}");
        assert!(!p.join("x.oc").exists(), "{args:?}: a store was left");
        err
    };
    std::fs::write(p.join("g.parquet"), b"PAR1\x15\x04\x15\x80\x01\x00\x00\xff").unwrap();
    // Read as what their first bytes say, and refused as corrupt.
    fails(
        &["g.parquet", "--out", "x.oc"],
        &["g.parquet", "Parquet", "corrupt"],
    );
    std::fs::write(p.join("g.arrow"), b"ARROW1\x00\x00\xff\xff\xff\xff\x10").unwrap();
    fails(
        &["g.arrow", "--out", "x.oc"],
        &["g.arrow", "Arrow IPC", "corrupt"],
    );
    std::fs::write(p.join("g.zip"), b"PK\x03\x04\x14\x00\x00\x00\x08\x00").unwrap();
    fails(
        &["g.zip", "--format", "csv", "--out", "x.oc"],
        &["zip archive"],
    );
    fails(&[env!("CARGO_BIN_EXE_outcore"), "--out", "x.oc"], &["ELF"]);
    std::fs::write(p.join("n.txt"), b"1 2\n\xff\x00\x1b[2J 3\n").unwrap();
    fails(
        &["n.txt", "--out", "x.oc"],
        &["n.txt:2:", "NUL byte", r"\xff\0\x1b[2J 3"],
    );
    // An id past 2^64 - 1 on the first line: an error, not a name.
    std::fs::write(p.join("big.txt"), "18446744073709551616 1\n1 2\n").unwrap();
    fails(&["big.txt", "--out", "x.oc"], &["big.txt:1:", "too large"]);
    // No edges.
    std::fs::write(p.join("empty.txt"), "# nothing here\n").unwrap();
    fails(
        &["empty.txt", "--out", "x.oc"],
        &["no edges", "empty.txt holds only comments", "--allow-empty"],
    );
    let o = import(p, &["empty.txt", "--allow-empty", "--out", "e.oc"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(edges_of(p, "e.oc").is_empty());
    // Allowed, it builds in every order and layout (the locality orders
    // have no neighbour to place), and the summaries print no -0.0.
    for order in ["auto", "bfs", "degree", "original"] {
        let args = ["empty.txt", "--allow-empty", "--compress", "--force"];
        let o = import(
            p,
            &[&args[..], &["--order", order, "--out", "c.oc"]].concat(),
            None,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "--order {order}: {err}");
        assert!(!err.contains("-0.0"), "--order {order}: {err}");
        assert!(edges_of(p, "c.oc").is_empty());
    }
    let o = import(p, &["-", "--format", "csv", "--out", "x.oc"], Some(b""));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is empty"));
    // A one-column line: what it lacks, not --ids string.
    std::fs::write(p.join("one.txt"), "1 2\n3\n").unwrap();
    let err = fails(
        &["one.txt", "--out", "x.oc"],
        &[
            "one.txt:2:",
            "at least two columns, source and target",
            "found `3`",
        ],
    );
    assert!(!err.contains("--ids"), "{err}");
    // The separator in use, not "comma".
    std::fs::write(p.join("sp.csv"), "1 2\n3,4\n").unwrap();
    let err = fails(
        &["sp.csv", "--delimiter", "space", "--out", "x.oc"],
        &["sp.csv:2:", "space-separated"],
    );
    assert!(!err.contains("comma"), "{err}");
}
