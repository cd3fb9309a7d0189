//! Outputs in a shell: stdout carries data only, a closed pipe ends a
//! command quietly with exit 0, and every output follows one rule (a plain
//! file replaced whole, a special file written directly).

use crate::{bin, store};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn stdout_is_data_only() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    for quiet in [true, false] {
        let mut c = bin();
        if quiet {
            c.arg("-q");
        }
        let o = c
            .args(["run", "pagerank"])
            .arg(&s)
            .args(["--out", "-"])
            .output()
            .unwrap();
        assert!(o.status.success());
        let text = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 << 14, "one line per vertex, nothing else");
        assert!(lines.iter().all(|l| {
            let mut p = l.split(' ');
            p.next().unwrap().parse::<u64>().is_ok()
                && p.next().unwrap().parse::<f64>().is_ok()
                && p.next().is_none()
        }));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("pagerank:"),
            "the summary on stderr"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let cmds: [&[&str]; 3] = [
        &["export", "STORE", "--out", "-"],
        &["run", "pagerank", "STORE", "--out", "-"],
        &["query", "khop", "STORE", "--source", "0", "--hops", "3"],
    ];
    for args in cmds {
        let mut c = bin();
        for a in args {
            if *a == "STORE" {
                c.arg(&s);
            } else {
                c.arg(a);
            }
        }
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is gone: the rest of the output hits a closed pipe.
        let out = child.wait_with_output().unwrap();
        assert!(!first.is_empty(), "{args:?}");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("error"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// One rule for outputs: a plain file is replaced whole, a special file
/// (`/dev/stdout`) written directly; a store is never replaced without
/// `--force` (tested in cli/errors.rs).
#[test]
fn outputs_follow_one_rule() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let o = bin()
        .args(["-q", "export"])
        .arg(&s)
        .args(["--out", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let direct = String::from_utf8(o.stdout).unwrap();
    assert!(direct.lines().count() > 1000);
    let f = d.path().join("edges.txt");
    std::fs::write(&f, "stale\n").unwrap();
    for args in [&["export"][..], &["run", "wcc"][..]] {
        let o = bin()
            .arg("-q")
            .args(args)
            .arg(&s)
            .arg("--out")
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains("stale") && text.lines().count() > 1000);
    }
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
}
