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
