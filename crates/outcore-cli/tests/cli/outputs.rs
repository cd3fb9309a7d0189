//! Outputs checked before the work (issue 49): every path a command writes
//! (`--out`, `--stats`, `--walks`, `--kcore-out`, `export --out`, query
//! outputs, `generate --edges`, a store's `--out`) is refused before
//! anything is computed when it cannot be created (its directory missing,
//! or a directory where a file goes), leaving nothing behind; and
//! `--force` replaces a store, never a plain file or an input.

use crate::{outcore, write};
use assert_cmd::Command;
use std::path::Path;

/// `outcore` without `--quiet`: its progress lines show whether it worked.
fn loud() -> Command {
    Command::cargo_bin("outcore").unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn outputs_that_cannot_be_created_are_refused_before_the_work() {
    let d = tempfile::tempdir().unwrap();
    outcore()
        .current_dir(d.path())
        .args(["generate", "kron", "--scale", "10", "--out", "g.oc"])
        .assert()
        .success();
    write(d.path(), "e.txt", "1 2\n2 3\n");
    write(d.path(), "ids.txt", "1\n2\n");
    std::fs::create_dir(d.path().join("adir")).unwrap();
    let before = names(d.path());
    let cases: &[&[&str]] = &[
        &["run", "pagerank", "g.oc", "--out", "nodir/pr.txt"],
        &["run", "pagerank", "g.oc", "--out", "adir"],
        &[
            "run",
            "wcc",
            "g.oc",
            "--engine",
            "external",
            "--out",
            "nodir/w.txt",
        ],
        &[
            "run",
            "bfs",
            "g.oc",
            "--source",
            "0",
            "--stats",
            "nodir/s.json",
        ],
        &["run", "cdlp", "g.oc", "--stats", "adir/"],
        &[
            "run",
            "kcore",
            "g.oc",
            "--k",
            "2",
            "--kcore-out",
            "nodir/k.txt",
        ],
        &["run", "randomwalk", "g.oc", "--walks", "nodir/w.txt"],
        &["export", "g.oc", "--out", "nodir/e.txt"],
        &[
            "query",
            "khop",
            "g.oc",
            "--source",
            "0",
            "--out",
            "nodir/q.txt",
        ],
        &[
            "query",
            "induced",
            "g.oc",
            "--vertices",
            "ids.txt",
            "--stats",
            "nodir/q.json",
        ],
        &[
            "generate",
            "kron",
            "--scale",
            "12",
            "--edges",
            "nodir/k.txt",
        ],
        &["generate", "kron", "--scale", "12", "--out", "nodir/k.oc"],
        &["import", "e.txt", "--out", "nodir/e.oc"],
    ];
    for args in cases {
        let o = loud().current_dir(d.path()).args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        let path = args.last().unwrap();
        let dir = path.split('/').next().unwrap();
        assert!(
            err.contains(&format!("error: {path}")) || err.contains(&format!("error: {dir}")),
            "{args:?}: the error does not lead with the output path:\n{err}"
        );
        assert!(
            err.contains("does not exist") || err.contains("is a directory"),
            "{args:?}: {err}"
        );
        // Nothing ran: no progress, no summary, nothing written.
        assert_eq!(
            err.lines().count(),
            1,
            "{args:?}: work before the refusal:\n{err}"
        );
        assert!(o.stdout.is_empty());
        assert_eq!(names(d.path()), before, "{args:?} left files");
        assert!(names(&d.path().join("adir")).is_empty());
    }
}

#[test]
fn force_replaces_stores_only_never_a_file_or_an_input() {
    let d = tempfile::tempdir().unwrap();
    let text = "1 2\n2 3\n3 1\n";
    write(d.path(), "e.txt", text);
    write(d.path(), "notes.txt", "keep me\n");
    // The input itself, with and without --force.
    for force in [true, false] {
        let o = outcore()
            .current_dir(d.path())
            .args(["import", "e.txt", "--out", "e.txt"])
            .args(force.then_some("--force"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("e.txt") && err.contains("input"), "{err}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("e.txt")).unwrap(),
            text
        );
    }
    // The input by another name (a hard link).
    std::fs::hard_link(d.path().join("e.txt"), d.path().join("same.txt")).unwrap();
    outcore()
        .current_dir(d.path())
        .args(["import", "e.txt", "--out", "same.txt", "--force"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("input"));
    assert_eq!(
        std::fs::read_to_string(d.path().join("e.txt")).unwrap(),
        text
    );
    std::fs::remove_file(d.path().join("same.txt")).unwrap();
    // Another plain file.
    let o = outcore()
        .current_dir(d.path())
        .args(["import", "e.txt", "--out", "notes.txt", "--force"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("notes.txt") && err.contains("not a store"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("notes.txt")).unwrap(),
        "keep me\n"
    );
    // A store is replaced.
    for _ in 0..2 {
        outcore()
            .current_dir(d.path())
            .args(["import", "e.txt", "--out", "g.oc", "--force"])
            .assert()
            .success();
    }
    assert_eq!(names(d.path()), ["e.txt", "g.oc", "notes.txt"]);
}
