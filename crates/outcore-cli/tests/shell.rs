//! The shell experience: stdout carries data only, a closed pipe ends a
//! command quietly with exit 0, and errors say each thing once.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_outcore"))
}

fn store(dir: &std::path::Path) -> std::path::PathBuf {
    let s = dir.join("k.oc");
    let st = bin()
        .args(["--quiet", "generate", "kron", "--scale", "14", "--out"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert!(st.stdout.is_empty(), "generate writes no data to stdout");
    s
}

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

/// One rule for outputs: a plain file is replaced whole, a special file
/// (`/dev/stdout`) written directly; a store is never replaced without
/// `--force` (tested in cli.rs).
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

/// Sizes: `GB` is 10^9 bytes, `GiB` and `G` 2^30.
#[test]
fn sizes_say_what_they_mean() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    for (size, bytes) in [
        ("1GB", 1_000_000_000u64),
        ("1GiB", 1 << 30),
        ("1G", 1 << 30),
    ] {
        let j = d.path().join("s.json");
        let o = bin()
            .args(["-q", "run", "wcc"])
            .arg(&s)
            .args(["--memory", size, "--stats"])
            .arg(&j)
            .output()
            .unwrap();
        assert!(o.status.success());
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
        assert_eq!(v["memory_budget"].as_u64(), Some(bytes), "{size}");
        // The stats file explains itself.
        assert_eq!(v["command"], "run");
        assert_eq!(v["parameters"]["algorithm"], "wcc");
        assert_eq!(v["parameters"]["memory"].as_u64(), Some(bytes));
        assert_eq!(v["parameters"]["engine"], "auto");
        assert_eq!(v["store"], s.display().to_string());
        assert!(v["outcore_version"].as_str().is_some_and(|x| !x.is_empty()));
        let t = v["started_at"].as_str().unwrap();
        assert!(
            t.len() == 20 && t.ends_with('Z') && t.as_bytes()[10] == b'T',
            "{t}"
        );
    }
}

#[test]
fn query_stats_explain_themselves() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let j = d.path().join("q.json");
    let o = bin()
        .args(["-q", "query", "khop"])
        .arg(&s)
        .args(["--source", "0", "--hops", "2", "--stats"])
        .arg(&j)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&j).unwrap()).unwrap();
    assert_eq!(v["command"], "query");
    assert_eq!(v["parameters"]["hops"], 2);
    assert_eq!(v["parameters"]["source"], 0);
    assert!(v["started_at"].as_str().is_some());
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
    let cmds: [&[&str]; 12] = [
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

/// PageRank and WCC as vertex programs on the select engine equal the
/// stream engine's results.
#[test]
fn select_engine_runs_pagerank_and_wcc() {
    let d = tempfile::tempdir().unwrap();
    let s = store(d.path());
    let run = |alg: &str, engine: &str| -> Vec<(u64, f64)> {
        let out = d.path().join(format!("{alg}-{engine}.txt"));
        let o = bin()
            .args(["-q", "run", alg])
            .arg(&s)
            .args(["--engine", engine, "--iterations", "5", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{alg} {engine}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| {
                let (a, b) = l.split_once(' ').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect()
    };
    for alg in ["pagerank", "wcc"] {
        let (a, b) = (run(alg, "stream"), run(alg, "select"));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.0, y.0);
            assert!(
                (x.1 - y.1).abs() <= 1e-9 * x.1.abs().max(1.0),
                "{alg}: {x:?} vs {y:?}"
            );
        }
    }
}

/// `kill -9` during a build leaves its hidden temporary directory; the next
/// build of the same store removes it (the process is gone) and succeeds.
#[test]
fn a_killed_build_is_cleaned_up_by_the_next() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("outcore-tmp"))
            .collect()
    };
    let mut child = bin()
        .current_dir(p)
        .args(["-q", "generate", "kron", "--scale", "20", "--out", "g.oc"])
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while leftovers().is_empty() && t.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SIGKILL: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !leftovers().is_empty(),
        "the killed build left its directory"
    );
    assert!(!p.join("g.oc").exists(), "no store from a killed build");
    let o = bin()
        .current_dir(p)
        .args(["generate", "kron", "--scale", "10", "--out", "g.oc"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no longer runs"));
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}

/// A flipped bit in `order.bin` (the vertex order's map, read by queries
/// with positioned reads, not checksummed per read) is detected by the
/// query: an error naming the corruption, never another vertex's answer.
#[test]
fn a_corrupted_order_map_fails_a_query() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // A star around 5 and a path: skewed, so the store is ordered by degree.
    let mut text: String = (100..140).map(|i| format!("5 {i}\n")).collect();
    text += "1 2\n2 3\n3 4\n";
    std::fs::write(p.join("g.txt"), text).unwrap();
    let o = bin()
        .current_dir(p)
        .args([
            "-q",
            "import",
            "g.txt",
            "--undirected",
            "--order",
            "degree",
            "--out",
            "g.oc",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let khop = || {
        bin()
            .current_dir(p)
            .args([
                "-q", "query", "khop", "g.oc", "--source", "2", "--hops", "1",
            ])
            .output()
            .unwrap()
    };
    let good = khop();
    assert!(good.status.success());
    assert_eq!(String::from_utf8_lossy(&good.stdout), "1\n2\n3\n");
    // Flip one bit of the source's entry in order.bin.
    let store = outcore::store::Store::open(&p.join("g.oc")).unwrap();
    let v = outcore::store::IdLookup::open(&store)
        .unwrap()
        .dense_of_text("2")
        .unwrap()
        .unwrap();
    let f = p.join("g.oc/order.bin");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[4 * v as usize] ^= 1;
    std::fs::write(&f, bytes).unwrap();
    let bad = khop();
    assert!(
        !bad.status.success(),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("corrupted"));
}

/// A build in `--order bfs` stays within the budget plus 64 MiB too.
#[test]
fn a_build_in_bfs_order_stays_within_the_budget() {
    // 4.2 M vertices: the order's 20 bytes a vertex are 80 MiB of the 128;
    // uncharged, the stream engine takes them again (peak 229 MiB).
    let d = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(d.path())
        .args(["generate", "kron", "--scale", "22", "--order", "bfs"])
        .args(["--memory", "128MiB", "--out", "g.oc"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(peak_rss_mib(&err) <= 128.0 + 64.0, "{err}");
    // Its few fat levels stream the tiles, its many thin ones (a hub's
    // neighbourhood, then hundreds of small components) read lists.
    let counts: Vec<u64> = err
        .split("levels, ")
        .nth(1)
        .and_then(|s| s.split(" list by list").next())
        .unwrap_or_else(|| panic!("no level counts in: {err}"))
        .split(" over tiles and ")
        .map(|c| c.parse().unwrap())
        .collect();
    assert!(counts[0] > 0 && counts[1] > counts[0], "{err}");
}

/// The peak RSS a build reports on stderr, in MiB.
fn peak_rss_mib(err: &str) -> f64 {
    err.split("peak RSS ")
        .nth(1)
        .and_then(|s| s.split(" MiB").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in: {err}"))
}

/// Importing a csv of names at the smallest budget stays within the budget
/// plus 64 MiB of peak RSS (the process's high-water mark, as the build
/// reports it): the parse pipeline's blocks of names are sized for that.
#[test]
fn a_csv_of_names_imports_within_the_budget() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut text = String::from("source,target\n");
    for _ in 0..2_500_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text += &format!("user-{:x},\"acct {:x}\"\n", x >> 24, x & 0xFF_FFFF_FFFF);
    }
    std::fs::write(p.join("g.csv"), text).unwrap();
    let o = bin()
        .current_dir(p)
        .args([
            "-q", "import", "g.csv", "--header", "--memory", "128MiB", "--out", "g.oc",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let mib = peak_rss_mib(&err);
    assert!(
        mib > 0.0 && mib <= 128.0 + 64.0,
        "peak RSS {mib} MiB: {err}"
    );
}
