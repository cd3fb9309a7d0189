//! `outcore update` between processes (issue 53): two updates of one store
//! at once both land, and a removal set the budget cannot hold is refused
//! with the store left as it was; a delta (`update --no-compact`) runs and
//! compacts as a rebuild; the compaction policy (`--compact-at`).

mod common;

use common::{bin, names, ok_in, walk};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Stdio;

/// The edges of the store at `store` (both directions, sorted lines),
/// compacted first (`export` reads no delta).
fn edges(dir: &Path, store: &str) -> Vec<String> {
    ok_in(dir, &["compact", store]);
    let out = ok_in(dir, &["export", store, "--both-directions", "--out", "-"]);
    let mut v: Vec<String> = out.lines().map(str::to_string).collect();
    v.sort();
    v
}

/// Every file of the store at `store`, by path, with its bytes.
fn files(store: &Path) -> BTreeMap<String, Vec<u8>> {
    (walk(store).into_iter())
        .map(|f| {
            let rel = f
                .strip_prefix(store)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read(&f).unwrap())
        })
        .collect()
}

/// `text`'s edges, undirected: each the smaller id first.
fn undirected(text: &str) -> BTreeSet<(u64, u64)> {
    (text.lines())
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            let (s, d) = (f.next().unwrap(), f.next().unwrap());
            (s.min(d), s.max(d))
        })
        .collect()
}

#[test]
fn two_updates_at_once_both_land() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &["generate", "kron", "--scale", "12", "--edges", "k.txt"],
    );
    let base = std::fs::read_to_string(p.join("k.txt")).unwrap();
    let lines: Vec<&str> = base.lines().filter(|l| !l.starts_with('#')).collect();
    // Disjoint batches: each removes its own tenth of the base's lines
    // and adds edges to new vertices of its own.
    let mut want = undirected(&base);
    for k in 0..2 {
        let rm: String = (lines.iter().skip(k).step_by(10))
            .map(|l| format!("{l}\n"))
            .collect();
        let add: String = (0..300)
            .map(|i| format!("{} {}\n", (k + 1) * 1_000_000 + i, i * 7))
            .collect();
        std::fs::write(p.join(format!("rm{k}.txt")), &rm).unwrap();
        std::fs::write(p.join(format!("add{k}.txt")), &add).unwrap();
        let gone = undirected(&rm);
        want.retain(|e| !gone.contains(e));
        want.extend(undirected(&add));
    }
    // The oracle: an import of the edge list with both batches applied
    // (compared by edges: an update keeps vertices that lost every edge).
    let list: String = want.iter().map(|(s, d)| format!("{s} {d}\n")).collect();
    std::fs::write(p.join("want.txt"), list).unwrap();
    ok_in(
        p,
        &["import", "want.txt", "--undirected", "--out", "want.oc"],
    );
    for round in 0..3 {
        let g = format!("g{round}.oc");
        ok_in(p, &["import", "k.txt", "--undirected", "--out", &g]);
        let spawn = |k: usize| {
            bin()
                .current_dir(p)
                .args(["-q", "update", &g, "--add", &format!("add{k}.txt")])
                .args(["--remove", &format!("rm{k}.txt")])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        // Started together, in either order.
        let (a, b) = (spawn(round % 2), spawn(1 - round % 2));
        for c in [a, b] {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        assert!(
            edges(p, &g) == edges(p, "want.oc"),
            "round {round}: a batch was lost"
        );
        ok_in(p, &["verify", &g]);
    }
    assert!(
        names(p).iter().all(|n| !n.starts_with('.')),
        "leftovers: {:?}",
        names(p)
    );
}

#[test]
fn removals_past_the_budget_are_refused_and_the_store_kept() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &["generate", "kron", "--scale", "12", "--edges", "k.txt"],
    );
    // About a million edges to remove: more than 64 MiB's share holds.
    ok_in(
        p,
        &["generate", "kron", "--scale", "16", "--edges", "rm.txt"],
    );
    ok_in(p, &["import", "k.txt", "--undirected", "--out", "g.oc"]);
    let (before, listed) = (files(&p.join("g.oc")), names(p));
    let o = bin()
        .current_dir(p)
        .args([
            "-q",
            "update",
            "g.oc",
            "--remove",
            "rm.txt",
            "--memory",
            "64MiB",
            "--rewrite",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("memory budget") && err.contains("more edges to remove than"),
        "{err}"
    );
    assert!(err.contains("raise --memory"), "{err}");
    assert!(files(&p.join("g.oc")) == before, "the store changed");
    assert_eq!(names(p), listed);
    // Into the delta (the default), which holds a removal in fewer
    // bytes, the same removals fit.
    let o = bin()
        .current_dir(p)
        .args([
            "-q", "update", "g.oc", "--remove", "rm.txt", "--memory", "64MiB",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok_in(p, &["verify", "g.oc"]);
}

/// `update --no-compact` then `compact` through the command line: WCC and BFS
/// on base + delta (the external engine) equal the same runs on the
/// compacted store, `export` of the tiles refuses the delta naming
/// `compact` while `export --layout csr` gives the view's edges, and the
/// compacted store's edges are an import's of the updated list.
#[test]
fn a_delta_runs_and_compacts_as_a_rebuild() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &["generate", "kron", "--scale", "10", "--edges", "k.txt"],
    );
    let base = std::fs::read_to_string(p.join("k.txt")).unwrap();
    ok_in(p, &["import", "k.txt", "--undirected", "--out", "g.oc"]);
    let lines: Vec<&str> = base.lines().filter(|l| !l.starts_with('#')).collect();
    let rm: String = (lines.iter().step_by(7))
        .map(|l| format!("{l}\n"))
        .collect();
    let add: String = (0..200)
        .map(|i| format!("{} {}\n", 5_000 + i % 37, (i * 13) % 1024))
        .collect();
    std::fs::write(p.join("rm.txt"), &rm).unwrap();
    std::fs::write(p.join("add.txt"), &add).unwrap();
    let mut want = undirected(&base);
    let gone = undirected(&rm);
    want.retain(|e| !gone.contains(e));
    want.extend(undirected(&add));
    let u = [
        "update",
        "g.oc",
        "--no-compact",
        "--add",
        "add.txt",
        "--remove",
        "rm.txt",
    ];
    ok_in(p, &u);
    let out = bin()
        .current_dir(p)
        .args(["export", "g.oc", "--out", "-"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the tiles hold the base alone");
    assert!(String::from_utf8_lossy(&out.stderr).contains("outcore compact"));
    let csr = ["export", "g.oc", "--layout", "csr", "--out", "-"];
    let got: BTreeSet<(u64, u64)> = undirected(&ok_in(p, &csr));
    assert_eq!(got, want, "the view's edges, exported from the CSR");
    let runs = [
        vec!["run", "wcc", "g.oc", "--out"],
        vec!["run", "bfs", "g.oc", "--source", "5003", "--out"],
    ];
    let answers = |tag: &str| -> Vec<String> {
        (runs.iter().enumerate())
            .map(|(i, r)| {
                let f = format!("{tag}{i}.txt");
                let mut args = r.clone();
                args.push(&f);
                ok_in(p, &args);
                std::fs::read_to_string(p.join(&f)).unwrap()
            })
            .collect()
    };
    let on_delta = answers("delta");
    ok_in(p, &["compact", "g.oc"]);
    assert_eq!(on_delta, answers("compacted"), "base + delta = compacted");
    let got: BTreeSet<(u64, u64)> = undirected(&ok_in(p, &["export", "g.oc", "--out", "-"]));
    assert_eq!(got, want, "the compacted store's edges");
    ok_in(p, &["verify", "g.oc"]);
}

/// The compaction policy: updates land in the delta until its edge
/// changes reach `--compact-at` of the base's edges (default 0.1, or
/// `OUTCORE_COMPACT_AT`), then the update compacts; `--no-compact` keeps
/// the delta and `info` says a compaction is due; `--compact-at 0`
/// rewrites. The store ends as an import of the updated list.
#[test]
fn updates_land_in_the_delta_until_the_policy_compacts() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok_in(
        p,
        &["generate", "kron", "--scale", "10", "--edges", "k.txt"],
    );
    let base = std::fs::read_to_string(p.join("k.txt")).unwrap();
    ok_in(p, &["import", "k.txt", "--undirected", "--out", "g.oc"]);
    let json = |s: &str| -> serde_json::Value { serde_json::from_str(s).unwrap() };
    let info = |env: Option<&str>| {
        let mut c = bin();
        c.current_dir(p).args(["info", "g.oc", "--json"]);
        if let Some(f) = env {
            c.env("OUTCORE_COMPACT_AT", f);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        json(&String::from_utf8_lossy(&o.stdout))
    };
    let e = info(None)["edges"].as_u64().unwrap();
    let mut want = undirected(&base);
    let mut next = 0u64;
    // `k` new edges, each to a new vertex: k edge changes.
    let mut update = |k: u64, flags: &[&str], env: Option<&str>| -> serde_json::Value {
        let add: String = (0..k)
            .map(|i| format!("{} {}\n", 1_000_000 + next + i, (next + i) % 1000))
            .collect();
        next += k;
        want.extend(undirected(&add));
        std::fs::write(p.join("add.txt"), &add).unwrap();
        let mut c = bin();
        c.current_dir(p)
            .args([
                "-q", "update", "g.oc", "--add", "add.txt", "--stats", "s.json",
            ])
            .args(flags);
        if let Some(f) = env {
            c.env("OUTCORE_COMPACT_AT", f);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        json(&std::fs::read_to_string(p.join("s.json")).unwrap())
    };
    // 2%: kept (`--delta`, the default's old name, is accepted).
    let s = update(e / 50, &["--delta"], None);
    assert_eq!(s["delta"], true);
    assert_eq!(s["compaction"]["compacted"], false, "{s}");
    assert!(s["compaction"]["reason"]
        .as_str()
        .unwrap()
        .contains("below"));
    let i = info(None);
    assert_eq!(i["delta"]["compaction_due"], false, "{i}");
    assert!((i["delta"]["fraction"].as_f64().unwrap() - 0.02).abs() < 0.002);
    // 12% with --no-compact: kept, and due.
    let s = update(e / 10, &["--no-compact"], None);
    assert_eq!(s["compaction"]["compacted"], false, "{s}");
    assert_eq!(info(None)["delta"]["compaction_due"], true);
    let text = ok_in(p, &["info", "g.oc"]);
    assert!(text.contains("compaction    due:"), "{text}");
    // At 0.5 (from the environment): kept, and not due.
    let s = update(1, &[], Some("0.5"));
    assert_eq!(s["compaction"]["compacted"], false, "{s}");
    assert_eq!(info(Some("0.5"))["delta"]["compaction_due"], false);
    // The default: past 0.1, so this update compacts.
    let s = update(1, &[], None);
    assert_eq!(s["compaction"]["compacted"], true, "{s}");
    assert!(s["compaction"]["reason"]
        .as_str()
        .unwrap()
        .contains("compacted"));
    assert!(info(None)["delta"].is_null());
    // 0: a rewrite, no delta written.
    let s = update(1, &["--compact-at", "0"], None);
    assert_eq!(
        (&s["delta"], &s["compaction"]["compacted"]),
        (&false.into(), &true.into())
    );
    assert!(info(None)["delta"].is_null());
    let s = update(1, &["--rewrite"], None);
    assert_eq!(s["delta"], false);
    // A negative fraction is refused.
    let o = bin()
        .current_dir(p)
        .args(["update", "g.oc", "--add", "add.txt", "--compact-at=-1"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let got: BTreeSet<(u64, u64)> = undirected(&ok_in(p, &["export", "g.oc", "--out", "-"]));
    assert_eq!(got, want, "the updated store's edges");
    ok_in(p, &["verify", "g.oc"]);
}

/// Batches beyond the budget: an update whose additions the delta cannot
/// hold at `--memory` rewrites the store (the build streams them), ending
/// as an import of the updated list; with `--no-compact` it is refused
/// and the store is left as it was.
#[test]
fn an_update_too_big_for_the_delta_rewrites_the_store() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let gen = |scale: &str, out: &str| {
        ok_in(p, &["generate", "kron", "--scale", scale, "--edges", out]);
    };
    gen("10", "k.txt");
    // About two million edges: more than 160 MiB's delta share holds.
    gen("17", "add.txt");
    ok_in(p, &["import", "k.txt", "--undirected", "--out", "g.oc"]);
    let (before, listed) = (files(&p.join("g.oc")), names(p));
    let update = |flags: &[&str]| {
        let args = [
            "-q", "update", "g.oc", "--add", "add.txt", "--memory", "160MiB",
        ];
        bin()
            .current_dir(p)
            .args(args)
            .args(flags)
            .output()
            .unwrap()
    };
    let o = update(&["--no-compact"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("without --no-compact"), "{err}");
    assert!(files(&p.join("g.oc")) == before, "the store changed");
    assert_eq!(names(p), listed);
    let o = update(&["--stats", "s.json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.join("s.json")).unwrap()).unwrap();
    let (delta, compacted) = (&s["delta"], &s["compaction"]["compacted"]);
    assert_eq!((delta, compacted), (&false.into(), &true.into()), "{s}");
    let reason = s["compaction"]["reason"].as_str().unwrap();
    assert!(reason.contains("rewrote the store") && reason.contains("need more than"));
    let read = |f: &str| std::fs::read_to_string(p.join(f)).unwrap();
    let mut want = undirected(&read("k.txt"));
    want.extend(undirected(&read("add.txt")));
    let got = undirected(&ok_in(p, &["export", "g.oc", "--out", "-"]));
    assert!(got == want, "the rewritten store's edges");
    ok_in(p, &["verify", "g.oc"]);
}
