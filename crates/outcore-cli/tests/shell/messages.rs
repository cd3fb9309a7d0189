//! What the user reads: a missing file named once, an option's missing
//! companion named, progress lines off a terminal, and `--help` describing
//! every option once.

use crate::{bin, store};

#[test]
fn a_missing_file_is_named_once() {
    let d = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["import"])
        .arg(d.path().join("nope.txt"))
        .arg("--out")
        .arg(d.path().join("x.oc"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("nope.txt"), "{e}");
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
}

#[test]
fn kcore_k_needs_its_output() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let o = bin()
        .args(["run", "kcore"])
        .arg(&s)
        .args(["--k", "3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--kcore-out"), "{e}");
}

/// Progress off a terminal: plain lines with position, percentage, rate and
/// ETA (every OUTCORE_PROGRESS_SECONDS); nothing but the summary with -q.
#[test]
fn progress_lines_off_a_terminal() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let run = |quiet: bool| {
        let mut c = bin();
        if quiet {
            c.arg("-q");
        }
        let o = c
            .env("OUTCORE_PROGRESS_SECONDS", "0")
            .args(["run", "pagerank"])
            .arg(&s)
            .args([
                "--iterations",
                "5",
                "--memory",
                "64MiB",
                "--engine",
                "external",
            ])
            .output()
            .unwrap();
        assert!(o.status.success());
        String::from_utf8(o.stderr).unwrap()
    };
    let e = run(false);
    assert!(
        e.lines()
            .any(|l| l.contains("/5, ") && l.contains('%') && l.contains("ETA")),
        "{e}"
    );
    let q = run(true);
    assert_eq!(q.lines().count(), 1, "only the summary: {q}");
    assert!(q.contains("pagerank:"));
}

/// `--help`: every argument and option described, each default stated once,
/// each query kind with its own options only.
#[test]
fn help_describes_everything_once() {
    let cmds: [&[&str]; 13] = [
        &["generate"],
        &["import"],
        &["info"],
        &["verify"],
        &["export"],
        &["run"],
        &["query", "khop"],
        &["query", "egonet"],
        &["query", "induced"],
        &["query", "cross"],
        &["calibrate"],
        &["report"],
        &["demo"],
    ];
    for c in cmds {
        let o = bin().args(c).arg("--help").output().unwrap();
        let h = String::from_utf8(o.stdout).unwrap();
        for line in h.lines() {
            let t = line.trim();
            let is_item = t.starts_with("--") || t.starts_with("-") || t.starts_with('<');
            if !is_item {
                continue;
            }
            // `--flag <VALUE>   description`: something after the name.
            let rest = t.split("  ").skip(1).map(str::trim).find(|s| !s.is_empty());
            assert!(rest.is_some(), "{c:?}: `{t}` has no description");
            let low = t.to_lowercase();
            assert!(
                !(low.contains("[default:") && low.matches("default").count() > 1),
                "{c:?}: `{t}` states its default twice"
            );
        }
    }
    let induced = String::from_utf8(
        bin()
            .args(["query", "induced", "--help"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        !induced.contains("--hops") && !induced.contains("--set-a"),
        "{induced}"
    );
    let khop = String::from_utf8(
        bin()
            .args(["query", "khop", "--help"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        !khop.contains("--vertices") && khop.contains("--hops"),
        "{khop}"
    );
}
