//! What the command line refuses and how it fails: malformed and bad
//! input named by file and line, an existing store kept unless `--force`,
//! a full disk leaving nothing behind, and `verify` and every command that
//! opens a store catching damage.

use crate::{assert_clean, export_set, outcore, write};
use predicates::prelude::*;

#[test]
fn malformed_line_names_file_line_and_text_and_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "g.txt", "1 2\n2 3\n3 x4\n");
    outcore()
        .current_dir(d.path())
        .args(["import", "g.txt", "--format", "snap", "--out", "g.oc"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("g.txt:3:").and(predicate::str::contains("3 x4")));
    assert_clean(d.path(), &["g.txt"]);
}

#[test]
fn bad_inputs_fail_clearly() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("neg.txt", "1 2\n-3 4\n", &[], "negative"),
        (
            "noweight.txt",
            "1 2 0.5\n2 3\n",
            &["--weighted"],
            "noweight.txt:2:",
        ),
        (
            "badweight.txt",
            "1 2 0.5\n2 3 heavy\n",
            &["--weighted"],
            "badweight.txt:2:",
        ),
        ("short.txt", "1 2\n7\n", &[], "short.txt:2:"),
    ];
    for (name, text, extra, needle) in cases {
        write(d.path(), name, text);
        outcore()
            .current_dir(d.path())
            .args(["import", name, "--format", "snap", "--out", "g.oc"])
            .args(*extra)
            .assert()
            .failure()
            .stderr(predicate::str::contains(*needle));
        assert!(!d.path().join("g.oc").exists());
    }
    outcore()
        .current_dir(d.path())
        .args(["import", "neg.txt", "--format", "graphml", "--out", "g.oc"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("graphml"));
    outcore()
        .current_dir(d.path())
        .args(["import", "missing.txt", "--format", "snap", "--out", "g.oc"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("missing.txt"));
    assert_clean(
        d.path(),
        &["neg.txt", "noweight.txt", "badweight.txt", "short.txt"],
    );
}

#[test]
fn existing_output_is_refused_unless_forced() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "1 2\n");
    write(d.path(), "b.txt", "1 2\n2 3\n");
    let run = |input: &str, force: bool| {
        let mut c = outcore();
        c.current_dir(d.path())
            .args(["import", input, "--out", "g.oc"]);
        if force {
            c.arg("--force");
        }
        c.assert()
    };
    run("a.txt", false).success();
    run("b.txt", false)
        .failure()
        .stderr(predicate::str::contains("already exists"));
    assert_eq!(export_set(&d.path().join("g.oc"), "tiles", false).len(), 1);
    run("b.txt", true).success();
    assert_eq!(export_set(&d.path().join("g.oc"), "tiles", false).len(), 2);
    assert_clean(d.path(), &["a.txt", "b.txt", "g.oc"]);
}

#[test]
fn disk_full_leaves_no_store() {
    let d = tempfile::tempdir().unwrap();
    let text: String = (0..20_000)
        .map(|i| format!("{} {}\n", i, (i * 7919) % 20_000))
        .collect();
    write(d.path(), "g.txt", &text);
    outcore()
        .current_dir(d.path())
        .env("OUTCORE_FAULT_DISK_FULL_AFTER", "50000")
        .args(["import", "g.txt", "--out", "g.oc"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("disk full"));
    assert_clean(d.path(), &["g.txt"]);
}

#[test]
fn verify_catches_corruption_and_open_refuses_damage() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("g.oc");
    outcore()
        .args([
            "generate",
            "kron",
            "--scale",
            "10",
            "--out",
            s.to_str().unwrap(),
        ])
        .assert()
        .success();
    outcore()
        .args(["verify", s.to_str().unwrap()])
        .assert()
        .success();
    // Flip one byte in the middle of the tiles.
    let edges = s.join("tiles/edges.bin");
    let mut bytes = std::fs::read(&edges).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&edges, &bytes).unwrap();
    outcore()
        .args(["verify", s.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("tiles/edges.bin").and(predicate::str::contains("checksum")),
        );
    // A truncated file is refused by every command that opens the store.
    bytes.truncate(mid);
    std::fs::write(&edges, &bytes).unwrap();
    outcore()
        .args(["info", s.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicate::str::contains("tiles/edges.bin"));
    // An unknown format version is refused.
    let m = s.join("manifest.json");
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("\"format_version\": 1", "\"format_version\": 99");
    std::fs::write(&m, text).unwrap();
    outcore()
        .args(["info", s.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicate::str::contains("version 99"));
}
