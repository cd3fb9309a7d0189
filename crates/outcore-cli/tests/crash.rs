//! Crash safety (issue 12, item 3): `kill -9` of an import at 20 moments
//! spread over its run, of an update at 16, of a run, two imports racing for one output,
//! readers sharing a store, and a reader of a store replaced under it (issue 53: pins).

mod common;

use common::{bin, names};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn import(dir: &Path, force: bool) -> Command {
    let mut c = bin();
    c.current_dir(dir)
        .args([
            "-q",
            "import",
            "k.txt",
            "--undirected",
            "--memory",
            "128MiB",
            "--out",
            "g.oc",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if force {
        c.arg("--force");
    }
    c
}

#[test]
fn an_import_killed_at_any_moment_leaves_no_store_and_a_rerun_succeeds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(bin().current_dir(p).args([
        "-q", "generate", "kron", "--scale", "17", "--edges", "k.txt",
    ]));
    // How long a whole import takes here (the moments are spread over it).
    let t = Instant::now();
    ok(&mut import(p, false));
    let whole = t.elapsed();
    let want = ok(bin().current_dir(p).args(["info", "g.oc", "--json"]));
    std::fs::remove_dir_all(p.join("g.oc")).unwrap();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for i in 0..20u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Moment i of 20 across the import, jittered within its twentieth.
        let frac = (i as f64 + (x % 1000) as f64 / 1000.0) / 20.0;
        let mut child = import(p, true).spawn().unwrap();
        std::thread::sleep(whole.mul_f64(frac));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // Only whole stores look like stores: g.oc is absent or verifies.
        // A kill inside the commit (between the manifest's sync and the
        // rename, or between the exchange and the old store's removal)
        // may leave a whole store under the build's hidden temporary
        // name; the rerun below must remove it.
        for n in names(p) {
            let path = p.join(&n);
            if path.join("manifest.json").exists() {
                assert!(
                    n == "g.oc" || n.starts_with(".g.oc.outcore-tmp-"),
                    "a store-like directory {n} after a kill at {frac:.2}"
                );
                ok(bin().args(["-q", "verify"]).arg(&path));
            }
        }
    }
    // The next import removes what the killed ones left, and succeeds.
    ok(&mut import(p, true));
    assert_eq!(names(p), ["g.oc", "k.txt"], "leftovers after the rerun");
    ok(bin().current_dir(p).args(["-q", "verify", "g.oc"]));
    let got = ok(bin().current_dir(p).args(["info", "g.oc", "--json"]));
    let counts = |j: &str| {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        (v["vertices"].clone(), v["edges"].clone())
    };
    assert_eq!(counts(&got), counts(&want));
}

#[test]
fn an_update_killed_at_any_moment_leaves_the_store_before_or_after_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let gen = |scale: &str, seed: &str, out: &str| {
        ok(bin().current_dir(p).args([
            "-q", "generate", "kron", "--scale", scale, "--seed", seed, "--edges", out,
        ]))
    };
    gen("16", "1", "k.txt");
    gen("13", "2", "add.txt");
    let k = std::fs::read_to_string(p.join("k.txt")).unwrap();
    let removes: String = k.lines().step_by(50).map(|l| format!("{l}\n")).collect();
    std::fs::write(p.join("rm.txt"), removes).unwrap();
    ok(&mut import(p, false));
    ok(Command::new("cp")
        .current_dir(p)
        .args(["-a", "g.oc", "base.oc"]));
    let update = || {
        let mut c = bin();
        c.current_dir(p)
            .args([
                "-q", "update", "g.oc", "--add", "add.txt", "--remove", "rm.txt",
            ])
            .args(["--memory", "192MiB"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    };
    let counts = || {
        let j = ok(bin().current_dir(p).args(["info", "g.oc", "--json"]));
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        (
            v["vertices"].as_u64().unwrap(),
            v["edges"].as_u64().unwrap(),
        )
    };
    let before = counts();
    let t = Instant::now();
    ok(&mut update());
    let whole = t.elapsed();
    let after = counts();
    assert_ne!(before, after);
    let restore = || {
        std::fs::remove_dir_all(p.join("g.oc")).unwrap();
        ok(Command::new("cp")
            .current_dir(p)
            .args(["-a", "base.oc", "g.oc"]));
    };
    restore();
    let (mut old, mut new) = (0, 0);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    // Jittered moments, then (only if the timed run was slow and every
    // kill came too late) earlier and earlier ones.
    let jittered = (0..16u32).map(|i| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((i as f64 + (x % 1000) as f64 / 1000.0) / 16.0, false)
    });
    let earlier = (1..=6).map(|j| (0.5 / 16.0 / f64::from(1 << j), true));
    for (frac, extra) in jittered.collect::<Vec<_>>().into_iter().chain(earlier) {
        if extra && old > 0 {
            break;
        }
        let mut child = update().spawn().unwrap();
        std::thread::sleep(whole.mul_f64(frac));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // The store is whole, as it was before the update or after it.
        ok(bin().current_dir(p).args(["-q", "verify", "g.oc"]));
        let c = counts();
        assert!(c == before || c == after, "{c:?} after a kill at {frac:.2}");
        if c == after {
            new += 1;
            restore();
        } else {
            old += 1;
        }
    }
    assert!(
        old > 0,
        "no kill landed inside an update (old {old}, new {new})"
    );
    // The next update removes what the killed ones left, and lands.
    ok(&mut update());
    assert_eq!(counts(), after);
    assert_eq!(
        names(p),
        ["add.txt", "base.oc", "g.oc", "k.txt", "rm.txt"],
        "leftovers after the next update"
    );
}

#[test]
fn a_run_killed_leaves_the_store_whole_and_the_next_run_cleans_up() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(bin()
        .current_dir(p)
        .args(["-q", "generate", "kron", "--scale", "16", "--out", "g.oc"]));
    let mut child = bin()
        .current_dir(p)
        .args(["-q", "run", "pagerank", "g.oc", "--engine", "external"])
        .args([
            "--iterations",
            "100000",
            "--memory",
            "16MiB",
            "--out",
            "pr.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until the engine has spilled (its directory beside the store).
    let t = Instant::now();
    while names(p).len() < 2 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    ok(bin().current_dir(p).args(["-q", "verify", "g.oc"]));
    ok(bin().current_dir(p).args([
        "-q", "run", "wcc", "g.oc", "--engine", "external", "--memory", "16MiB",
    ]));
    assert_eq!(
        names(p),
        ["g.oc"],
        "a killed run's spill files outlived the next run"
    );
}

#[test]
fn racing_imports_one_wins_the_other_says_why() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(bin().current_dir(p).args([
        "-q", "generate", "kron", "--scale", "15", "--edges", "k.txt",
    ]));
    for _ in 0..3 {
        let a = import(p, false).spawn().unwrap();
        let b = import(p, false).spawn().unwrap();
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        assert!(a.status.success() != b.status.success(), "exactly one wins");
        let loser = if a.status.success() { &b } else { &a };
        let err = String::from_utf8_lossy(&loser.stderr);
        assert!(err.contains("g.oc") && err.contains("--force"), "{err}");
        assert_eq!(names(p), ["g.oc", "k.txt"]);
        ok(bin().current_dir(p).args(["-q", "verify", "g.oc"]));
        std::fs::remove_dir_all(p.join("g.oc")).unwrap();
    }
}

#[test]
fn readers_share_a_store() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(bin()
        .current_dir(p)
        .args(["-q", "generate", "kron", "--scale", "15", "--out", "g.oc"]));
    let runs: Vec<_> = (0..4)
        .map(|i| {
            let alg = ["wcc", "pagerank"][i % 2];
            bin()
                .current_dir(p)
                .args(["-q", "run", alg, "g.oc", "--out", &format!("{i}.txt")])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let read = |i: u32| std::fs::read(p.join(format!("{i}.txt"))).unwrap();
    assert_eq!(read(0), read(2));
    assert_eq!(read(1), read(3));
    assert!(!read(0).is_empty());
}

/// Issue 53, item 3: a run begun before an update and an `import --force`
/// of its store finishes with the old graph's result (its store stays, as
/// a hidden `.old` directory, until the run closes it), and the next writer
/// removes that directory.
#[test]
fn a_run_begun_before_an_update_and_a_replace_reads_the_old_store() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(bin().current_dir(p).args([
        "-q", "generate", "kron", "--scale", "14", "--edges", "k.txt",
    ]));
    ok(bin().current_dir(p).args([
        "-q", "generate", "kron", "--scale", "13", "--seed", "3", "--edges", "k2.txt",
    ]));
    // New vertices: the update changes the id map, not the edges alone.
    let adds: String = (0..500)
        .map(|i| format!("{} {i}\n", 1_000_000 + i))
        .collect();
    std::fs::write(p.join("add.txt"), adds).unwrap();
    ok(&mut import(p, false));
    ok(Command::new("cp")
        .current_dir(p)
        .args(["-a", "g.oc", "old.oc"]));
    let run = |store: &str, out: &str, slow: Option<&str>| {
        let mut c = bin();
        c.current_dir(p)
            .args(["-q", "run", "pagerank", store, "--iterations", "100"])
            // Tiles read again each iteration, each read delayed when slow.
            .args(["--engine", "stream", "--memory", "16MiB", "--out", out])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(ms) = slow {
            c.env("OUTCORE_FAULT_IO", format!("slow@{ms}"));
        }
        c
    };
    // The oracle: the same run over a copy of the old store.
    ok(&mut run("old.oc", "want.txt", None));
    let writers = [
        // A rewrite: it replaces the store (an update into the delta
        // leaves the base in place).
        vec!["-q", "update", "g.oc", "--add", "add.txt", "--rewrite"],
        vec!["-q", "import", "k2.txt", "--out", "g.oc", "--force"],
    ];
    let trash = || names(p).iter().filter(|n| n.contains(".old")).count();
    let mut reader = run("g.oc", "got.txt", Some("50")).spawn().unwrap();
    // The run has opened (pinned) the store before the first writer
    // replaces it: a descriptor of the store's directory is among its own.
    let dir = p.join("g.oc").canonicalize().unwrap();
    let fds = format!("/proc/{}/fd", reader.id());
    let pinned = || {
        std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == dir))
    };
    let t = Instant::now();
    while !pinned() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the run never opened the store"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut waiting = Vec::new();
    for w in &writers {
        ok(bin().current_dir(p).args(w));
        assert!(
            reader.try_wait().unwrap().is_none(),
            "the run ended before the writers did; slow it down"
        );
        waiting.push(trash());
    }
    let o = reader.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| std::fs::read(p.join(f)).unwrap();
    assert!(
        read("got.txt") == read("want.txt"),
        "the run read another graph"
    );
    // The store the run read waited for it; the update's, which nobody
    // read, went with the import. Closed, it goes with the next writer.
    assert_eq!(waiting, [1, 1]);
    assert_eq!(trash(), 1);
    ok(bin().current_dir(p).args(&writers[0]));
    assert_eq!(
        names(p),
        ["add.txt", "g.oc", "got.txt", "k.txt", "k2.txt", "old.oc", "want.txt"]
    );
}
