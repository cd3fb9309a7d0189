//! The command line end to end: imports, bad input, atomicity, verify, export.

use assert_cmd::Command;
use predicates::prelude::*;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

fn outcore() -> Command {
    let mut c = Command::cargo_bin("outcore").unwrap();
    c.arg("--quiet");
    c
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Nothing but the inputs remains: no store, no temporary directories.
fn assert_clean(dir: &Path, inputs: &[&str]) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !inputs.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn export_set(store: &Path, layout: &str, both: bool) -> BTreeSet<String> {
    let out = store.with_extension(format!("{layout}.txt"));
    let mut c = outcore();
    c.args([
        "export",
        store.to_str().unwrap(),
        "--layout",
        layout,
        "--force",
        "--out",
        out.to_str().unwrap(),
    ]);
    if both {
        c.arg("--both-directions");
    }
    c.assert().success();
    let s = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    s.lines().map(str::to_string).collect()
}

#[test]
fn snap_import_round_trips_and_gz_is_transparent() {
    let d = tempfile::tempdir().unwrap();
    let text = "# comment\n% other comment\n1 2\n2 3\n\n1 2\n3 3\n10000000000 1\n";
    let plain = write(d.path(), "g.txt", text);
    let gz = d.path().join("g.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    for (input, store) in [(&plain, "a.oc"), (&gz, "b.oc")] {
        let s = d.path().join(store);
        outcore()
            .args([
                "import",
                input.to_str().unwrap(),
                "--format",
                "snap",
                "--out",
                s.to_str().unwrap(),
            ])
            .assert()
            .success();
        outcore()
            .args(["verify", s.to_str().unwrap()])
            .assert()
            .success();
        let expect: BTreeSet<String> = ["1 2", "2 3", "3 3", "10000000000 1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(export_set(&s, "tiles", false), expect);
        assert_eq!(export_set(&s, "csr", false), expect);
        let json = outcore()
            .args(["info", "--json", s.to_str().unwrap()])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(v["vertices"], 4);
        assert_eq!(v["edges"], 4);
        assert_eq!(v["self_loops"], 1);
        assert_eq!(v["id_map"], true);
    }
}

#[test]
fn ldbc_examples_import_with_isolated_vertices_and_weights() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/graphalytics");
    if !data.exists() {
        panic!(
            "../shared/data/graphalytics is missing (run from a checkout with shared/ beside it)"
        );
    }
    let d = tempfile::tempdir().unwrap();
    for (name, directed) in [("example-directed", true), ("example-undirected", false)] {
        let s = d.path().join(format!("{name}.oc"));
        let mut c = outcore();
        c.args([
            "import",
            data.join(format!("{name}.v")).to_str().unwrap(),
            data.join(format!("{name}.e")).to_str().unwrap(),
        ]);
        c.args([
            "--format",
            "ldbc",
            "--weighted",
            "--out",
            s.to_str().unwrap(),
        ]);
        c.arg(if directed {
            "--directed"
        } else {
            "--undirected"
        });
        c.assert().success();
        let vertices = std::fs::read_to_string(data.join(format!("{name}.v")))
            .unwrap()
            .lines()
            .count();
        let json = outcore()
            .args(["info", "--json", s.to_str().unwrap()])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(v["vertices"], vertices as u64);
        let edges = std::fs::read_to_string(data.join(format!("{name}.e"))).unwrap();
        let parse = |l: &str| -> (u64, u64, f64) {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        };
        let mut expect: Vec<(u64, u64, f64)> = edges.lines().map(parse).collect();
        if !directed {
            expect = expect
                .into_iter()
                .map(|(a, b, w)| (a.min(b), a.max(b), w))
                .collect();
        }
        expect.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut got: Vec<(u64, u64, f64)> = export_set(&s, "csr", false)
            .iter()
            .map(|l| parse(l))
            .collect();
        got.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(got, expect, "{name}");
    }
}

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

#[test]
fn generation_is_deterministic_across_thread_counts() {
    let d = tempfile::tempdir().unwrap();
    for kind in ["kron", "rmat", "er", "grid"] {
        let mut outs = Vec::new();
        for threads in ["1", "2", "3"] {
            let f = d.path().join(format!("{kind}-{threads}.txt"));
            let mut c = outcore();
            c.env("RAYON_NUM_THREADS", threads).args([
                "generate",
                kind,
                "--seed",
                "7",
                "--edges",
                f.to_str().unwrap(),
            ]);
            match kind {
                "kron" | "rmat" => c.args(["--scale", "12"]),
                "er" => c.args(["--vertices", "5000", "--num-edges", "40000"]),
                _ => c.args(["--rows", "60", "--cols", "70", "--weighted"]),
            };
            c.assert().success();
            outs.push(std::fs::read(&f).unwrap());
        }
        assert!(!outs[0].is_empty());
        assert_eq!(outs[0], outs[1], "{kind}");
        assert_eq!(outs[0], outs[2], "{kind}");
    }
}

#[test]
fn generated_edge_list_imports_to_the_same_store_edges() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    outcore()
        .args([
            "generate",
            "kron",
            "--scale",
            "11",
            "--edges",
            &p("k.bin32"),
            "--edge-format",
            "bin32",
        ])
        .assert()
        .success();
    outcore()
        .args(["generate", "kron", "--scale", "11", "--out", &p("gen.oc")])
        .assert()
        .success();
    outcore()
        .args([
            "import",
            &p("k.bin32"),
            "--format",
            "bin32",
            "--undirected",
            "--out",
            &p("imp.oc"),
        ])
        .assert()
        .success();
    // Import remaps ids (isolated vertices of the generator are absent), so compare edge sets.
    assert_eq!(
        export_set(&d.path().join("gen.oc"), "tiles", true),
        export_set(&d.path().join("imp.oc"), "csr", true)
    );
}

#[test]
fn run_writes_ldbc_output_and_stats_and_refuses_small_budgets() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/graphalytics");
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("g.oc");
    outcore()
        .args(["import", data.join("example-directed.v").to_str().unwrap()])
        .args([
            data.join("example-directed.e").to_str().unwrap(),
            "--format",
            "ldbc",
            "--weighted",
        ])
        .args(["--out", s.to_str().unwrap()])
        .assert()
        .success();
    let st = s.to_str().unwrap();
    let out = d.path().join("bfs.txt");
    let stats = d.path().join("bfs.json");
    for io in ["uring", "sync"] {
        outcore()
            .args([
                "run", "bfs", st, "--source", "1", "--io", io, "--memory", "256MiB",
            ])
            .args([
                "--out",
                out.to_str().unwrap(),
                "--stats",
                stats.to_str().unwrap(),
            ])
            .assert()
            .success()
            .stderr(predicate::str::contains("bfs:"));
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            std::fs::read_to_string(data.join("example-directed-BFS")).unwrap()
        );
        let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        for key in [
            "wall_seconds",
            "bytes_read",
            "io_wait_seconds",
            "compute_seconds",
            "peak_rss_bytes",
        ] {
            assert!(j[key].is_number(), "{key} missing from --stats");
        }
        let it = &j["iterations"][0];
        for key in ["seconds", "bytes_read", "cache_hits", "active_vertices"] {
            assert!(
                it[key].is_number(),
                "iterations[].{key} missing from --stats"
            );
        }
        assert_eq!(j["io_backend"], io);
    }
    let pr = d.path().join("pr.txt");
    outcore()
        .args([
            "run",
            "pagerank",
            st,
            "--iterations",
            "2",
            "--out",
            pr.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&pr).unwrap(),
        std::fs::read_to_string(data.join("example-directed-PR")).unwrap()
    );
    outcore()
        .args(["run", "bfs", st, "--source", "12345"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("12345"));
    // A big graph in a tiny budget: refused, saying how much it needs.
    let big = d.path().join("big.oc");
    outcore()
        .args([
            "generate",
            "kron",
            "--scale",
            "17",
            "--out",
            big.to_str().unwrap(),
        ])
        .assert()
        .success();
    outcore()
        .args(["run", "pagerank", big.to_str().unwrap(), "--memory", "4MiB"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("needs at least"));
    // CDLP (external engine) passes Graphalytics validation exactly.
    let cd = d.path().join("cdlp.txt");
    outcore()
        .args(["run", "cdlp", st, "--iterations", "2", "--out"])
        .arg(&cd)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&cd).unwrap(),
        std::fs::read_to_string(data.join("example-directed-CDLP")).unwrap()
    );
    // LCC (triangle listing) passes Graphalytics validation.
    let lc = d.path().join("lcc.txt");
    outcore()
        .args(["run", "lcc", st, "--out"])
        .arg(&lc)
        .assert()
        .success();
    outcore::algo::validate::validate(
        &lc,
        &data.join("example-directed-LCC"),
        outcore::algo::validate::rule_for("LCC").unwrap(),
    )
    .unwrap();
    // State larger than the budget: auto runs external; the ranks equal the
    // stream engine's.
    let (ps, pe) = (d.path().join("ps.txt"), d.path().join("pe.txt"));
    let b = big.to_str().unwrap();
    outcore()
        .args(["run", "pagerank", b, "--memory", "1GiB", "--out"])
        .arg(&ps)
        .assert()
        .success();
    let js = d.path().join("pe.json");
    outcore()
        .args(["run", "pagerank", b, "--memory", "6MiB", "--out"])
        .arg(&pe)
        .arg("--stats")
        .arg(&js)
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&js).unwrap()).unwrap();
    assert_eq!(j["engine"], "external");
    assert!(
        j["iterations"][0]["external"]["intervals"]
            .as_u64()
            .unwrap()
            > 1
    );
    // The planner's estimate is in every superstep.
    assert_eq!(j["iterations"][0]["planner"]["chosen"], "external");
    assert!(
        j["iterations"][0]["planner"]["external_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    // Peak RSS (the process's high-water mark) within the budget + 64 MiB,
    // for the external engine and for LCC's triangle listing.
    let rss_ok = |j: &serde_json::Value| {
        let (rss, budget) = (
            j["peak_rss_bytes"].as_u64().unwrap(),
            j["memory_budget"].as_u64().unwrap(),
        );
        assert!(
            rss > 0 && rss <= budget + (64 << 20),
            "peak RSS {rss} over {budget} + 64 MiB"
        );
    };
    rss_ok(&j);
    let jl = d.path().join("lcc.json");
    outcore()
        .args(["run", "lcc", b, "--memory", "8MiB", "--stats"])
        .arg(&jl)
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&jl).unwrap()).unwrap();
    rss_ok(&j);
    assert!(
        j["iterations"].as_array().unwrap().len() > 3,
        "several blocks at 8 MiB"
    );
    let parse = |p: &Path| -> Vec<f64> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let (a, e) = (parse(&ps), parse(&pe));
    assert_eq!(a.len(), e.len());
    for (x, y) in a.iter().zip(&e) {
        assert!((x - y).abs() <= 1e-9 * x.abs(), "{x} vs {y}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("outcore-external"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "spill directories left: {leftovers:?}"
    );
}

#[test]
fn queries_sssp_kcore_and_calibrate_from_the_command_line() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/graphalytics");
    let d = tempfile::tempdir().unwrap();
    // A small undirected graph with big original ids: 10 - 20 - 30 - 40, 20 - 50, and 60 alone.
    write(d.path(), "g.txt", "10 20\n20 30\n30 40\n20 50\n60 60\n");
    let s = d.path().join("g.oc");
    let st = s.to_str().unwrap();
    outcore()
        .args([
            "import",
            d.path().join("g.txt").to_str().unwrap(),
            "--undirected",
            "--out",
            st,
        ])
        .assert()
        .success();
    let lines = |out: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(out)
            .lines()
            .map(str::to_string)
            .collect()
    };
    let k = outcore()
        .args(["query", "khop", st, "--source", "10", "--hops", "2"])
        .output()
        .unwrap();
    assert!(k.status.success());
    assert_eq!(lines(&k.stdout), ["10", "20", "30", "50"]);
    assert!(String::from_utf8_lossy(&k.stderr).contains("pages touched"));
    let e = outcore()
        .args(["query", "egonet", st, "--source", "20", "--hops", "1"])
        .output()
        .unwrap();
    assert_eq!(lines(&e.stdout), ["10 20", "20 30", "20 50"]);
    write(d.path(), "a.txt", "10\n30\n");
    write(d.path(), "b.txt", "# comment\n20\n40\n");
    let i = outcore()
        .args([
            "query",
            "induced",
            st,
            "--vertices",
            d.path().join("a.txt").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(lines(&i.stdout).is_empty());
    let c = outcore()
        .args([
            "query",
            "cross",
            st,
            "--set-a",
            d.path().join("a.txt").to_str().unwrap(),
        ])
        .args(["--set-b", d.path().join("b.txt").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(lines(&c.stdout), ["10 20", "30 20", "30 40"]);
    outcore()
        .args(["query", "khop", st, "--source", "99", "--hops", "1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("99"));
    // k-core: the path has core 1; the loop vertex 60 has core 0 (self-loops ignored).
    let kc = d.path().join("core.txt");
    outcore()
        .args(["run", "kcore", st, "--out", kc.to_str().unwrap()])
        .assert()
        .success();
    let cores = std::fs::read_to_string(&kc).unwrap();
    assert_eq!(cores, "10 1\n20 1\n30 1\n40 1\n50 1\n60 0\n");
    // BFS on each engine agrees.
    let mut outs = Vec::new();
    for eng in ["stream", "select", "auto"] {
        let o = d.path().join(format!("bfs-{eng}.txt"));
        outcore()
            .args([
                "run",
                "bfs",
                st,
                "--source",
                "40",
                "--engine",
                eng,
                "--out",
                o.to_str().unwrap(),
            ])
            .assert()
            .success();
        outs.push(std::fs::read_to_string(&o).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
    outcore()
        .args(["run", "cdlp", st, "--engine", "select"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("external engine only"));
    // SSSP on the Graphalytics example (weighted, directed) through the CLI.
    let w = d.path().join("w.oc");
    outcore()
        .args(["import", data.join("example-directed.v").to_str().unwrap()])
        .args([
            data.join("example-directed.e").to_str().unwrap(),
            "--format",
            "ldbc",
            "--weighted",
        ])
        .args(["--out", w.to_str().unwrap()])
        .assert()
        .success();
    let so = d.path().join("sssp.txt");
    outcore()
        .args([
            "run",
            "sssp",
            w.to_str().unwrap(),
            "--source",
            "1",
            "--out",
            so.to_str().unwrap(),
        ])
        .assert()
        .success();
    outcore::algo::validate::validate(
        &so,
        &data.join("example-directed-SSSP"),
        outcore::algo::validate::Rule::Epsilon,
    )
    .unwrap();
    outcore()
        .args(["run", "sssp", st, "--source", "10"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("weighted"));
    // Calibration is recorded in the store and does not upset verify.
    outcore()
        .args(["calibrate", st, "--depths", "1,4", "--seconds", "0.05"])
        .assert()
        .success()
        .stdout(predicate::str::contains("best depth"));
    assert!(s.join("calibration.json").exists());
    outcore().args(["verify", st]).assert().success();
}

#[test]
fn vertex_orders_give_identical_outputs() {
    let d = tempfile::tempdir().unwrap();
    // A weighted graph with big original ids: a hub, a triangle, a chain,
    // self-loops, duplicates and a separate component.
    let mut text = String::new();
    let big = |i: u64| 10_000_000_000 + i * 7_919;
    for i in 1..40u64 {
        text += &format!("{} {} {}\n", big(0), big(i), i % 5);
        text += &format!("{} {} 1.5\n", big(i), big(i + 1));
    }
    text += &format!("{} {} 2\n{} {} 0.5\n", big(3), big(3), big(2), big(1));
    text += "5 6 1\n6 7 1\n7 5 3\n18446744073709551615 5 2\n";
    write(d.path(), "g.txt", &text);
    write(
        d.path(),
        "set-a.txt",
        &format!("{}\n{}\n5\n", big(0), big(2)),
    );
    write(
        d.path(),
        "set-b.txt",
        &format!("{}\n{}\n6\n7\n", big(1), big(2)),
    );
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    for graph in ["--directed", "--undirected"] {
        let mut outs: Vec<Vec<(String, String)>> = Vec::new();
        for order in ["degree", "bfs", "original"] {
            let s = p(&format!("{order}.oc"));
            outcore()
                .args(["import", &p("g.txt"), "--weighted", graph, "--force"])
                .args(["--order", order, "--out", &s])
                .assert()
                .success();
            let j = verified_info(Path::new(&s));
            assert_eq!(j["vertex_order"], order);
            assert_eq!(j["order_map"], order != "original", "{graph}");
            let info = outcore().args(["info", &s]).output().unwrap();
            assert!(String::from_utf8_lossy(&info.stdout).contains("vertex order"));
            let mut got = Vec::new();
            let mut run = |name: &str, args: &[&str]| {
                let out = p(&format!("{order}-{name}.txt"));
                outcore()
                    .args(args)
                    .arg(&s)
                    .args(["--out", &out])
                    .assert()
                    .success();
                got.push((name.to_string(), std::fs::read_to_string(&out).unwrap()));
            };
            run("pagerank", &["run", "pagerank"]);
            run("wcc", &["run", "wcc"]);
            run("bfs", &["run", "bfs", "--source", "5"]);
            run("bfs-hub", &["run", "bfs", "--source", "max-degree"]);
            run(
                "bfs-select",
                &[
                    "run",
                    "bfs",
                    "--engine",
                    "select",
                    "--source",
                    "10000000000",
                ],
            );
            run("sssp", &["run", "sssp", "--source", "10000000000"]);
            let core = p(&format!("{order}-core.txt"));
            run("kcore", &["run", "kcore", "--k", "2", "--kcore-out", &core]);
            run(
                "khop",
                &["query", "khop", "--source", "10000000000", "--hops", "2"],
            );
            run(
                "egonet",
                &["query", "egonet", "--source", "10000015838", "--hops", "1"],
            );
            run(
                "induced",
                &["query", "induced", "--vertices", &p("set-b.txt")],
            );
            run(
                "cross",
                &[
                    "query",
                    "cross",
                    "--set-a",
                    &p("set-a.txt"),
                    "--set-b",
                    &p("set-b.txt"),
                ],
            );
            run(
                "cross-ba",
                &[
                    "query",
                    "cross",
                    "--set-a",
                    &p("set-b.txt"),
                    "--set-b",
                    &p("set-a.txt"),
                ],
            );
            got.push(("k-core".into(), std::fs::read_to_string(&core).unwrap()));
            got.push(("export".into(), {
                let mut v: Vec<String> = export_set(Path::new(&s), "tiles", false)
                    .into_iter()
                    .collect();
                v.sort();
                v.join("\n")
            }));
            outs.push(got);
        }
        for ((name, a), (_, b)) in outs[0].iter().zip(&outs[1]) {
            assert!(!a.is_empty(), "{graph} {name}: empty");
            if name == "pagerank" {
                for (la, lb) in a.lines().zip(b.lines()) {
                    let (ia, va) = la.split_once(' ').unwrap();
                    let (ib, vb) = lb.split_once(' ').unwrap();
                    let (va, vb): (f64, f64) = (va.parse().unwrap(), vb.parse().unwrap());
                    assert_eq!(ia, ib);
                    assert!(
                        (va - vb).abs() <= 1e-9 * vb.abs(),
                        "{graph} pagerank {ia}: {va} {vb}"
                    );
                }
                assert_eq!(a.lines().count(), b.lines().count());
            } else {
                assert_eq!(a, b, "{graph} {name}: the vertex orders disagree");
            }
        }
        // The outputs speak original ids, ascending.
        let wcc = &outs[0][1].1;
        let ids: Vec<u64> = wcc
            .lines()
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(
            wcc.contains("7 5\n") && wcc.contains("18446744073709551615 5\n"),
            "{wcc}"
        );
    }
}

#[test]
fn degree_order_refuses_a_budget_it_cannot_fit() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("g.oc");
    // 2^30 vertices need 8 GiB to be ordered by degree.
    outcore()
        .args([
            "generate",
            "er",
            "--vertices",
            "1073741824",
            "--num-edges",
            "1",
        ])
        .args(["--memory", "256MiB", "--order", "degree"])
        .args(["--out", s.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("--order degree on 1073741824 vertices")
                .and(predicate::str::contains("--order original")),
        );
    assert_clean(d.path(), &[]);
    let help = outcore().args(["import", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--order <ORDER>") && help.contains("`bfs` (Cuthill-McKee"),
        "{help}"
    );
}

/// `verify`, then `info --json` of a store.
fn verified_info(s: &Path) -> serde_json::Value {
    outcore()
        .args(["verify", s.to_str().unwrap()])
        .assert()
        .success();
    let info = outcore()
        .args(["info", "--json", s.to_str().unwrap()])
        .output()
        .unwrap();
    serde_json::from_slice(&info.stdout).unwrap()
}

#[test]
fn auto_order_sorts_skewed_graphs_only() {
    let d = tempfile::tempdir().unwrap();
    let order_of = |args: &[&str]| -> String {
        let s = d.path().join("g.oc");
        outcore()
            .args(["generate"])
            .args(args)
            .args(["--out", s.to_str().unwrap(), "--force"])
            .assert()
            .success();
        let j = verified_info(&s);
        j["vertex_order"].as_str().unwrap().to_string()
    };
    // Kronecker: largest degree far above 16 x mean.
    assert_eq!(order_of(&["kron", "--scale", "12"]), "degree");
    // A grid and a uniform random graph: no hubs, ids keep their order.
    assert_eq!(
        order_of(&["grid", "--rows", "40", "--cols", "50"]),
        "original"
    );
    assert_eq!(
        order_of(&["er", "--vertices", "5000", "--num-edges", "40000"]),
        "original"
    );
    // Asked for explicitly, the degree order is applied to any graph.
    assert_eq!(
        order_of(&["grid", "--rows", "40", "--cols", "50", "--order", "degree"]),
        "degree"
    );
}

#[test]
fn auto_order_with_compress_takes_bfs_where_it_codes_smaller() {
    let d = tempfile::tempdir().unwrap();
    let build = |input: &[&str], order: &str| -> (String, f64) {
        let s = d.path().join(format!("{order}.oc"));
        outcore()
            .args(input)
            .args(["--compress", "--order", order, "--memory", "256MiB"])
            .args(["--out", s.to_str().unwrap(), "--force"])
            .assert()
            .success();
        let j = verified_info(&s);
        let bits = ["tiles", "csr_out"]
            .iter()
            .map(|l| j["layouts"][l]["bits_per_edge"].as_f64().unwrap())
            .sum();
        (j["vertex_order"].as_str().unwrap().to_string(), bits)
    };
    // A 120 x 120 grid under shuffled ids: no order but a traversal finds
    // its locality back.
    let side = 120u64;
    let mut perm: Vec<u64> = (0..side * side).collect();
    let mut x = 7u64;
    for i in (1..perm.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        perm.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let mut text = String::new();
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            if c + 1 < side {
                text += &format!("{} {}\n", perm[v as usize], perm[v as usize + 1]);
            }
            if r + 1 < side {
                text += &format!("{} {}\n", perm[v as usize], perm[(v + side) as usize]);
            }
        }
    }
    let input = d.path().join("grid.txt");
    std::fs::write(&input, text).unwrap();
    let import = ["import", input.to_str().unwrap(), "--undirected"];
    let (auto, auto_bits) = build(&import, "auto");
    let (_, degree_bits) = build(&import, "degree");
    let (bfs, bfs_bits) = build(&import, "bfs");
    assert_eq!((auto.as_str(), bfs.as_str()), ("bfs", "bfs"));
    // (Auto's first order is the original one, bfs's by degree: ties differ.)
    for bits in [auto_bits, bfs_bits] {
        assert!(bits < 0.8 * degree_bits, "{bits} vs {degree_bits}");
    }
    // Kronecker: no locality to find; the degree order stays.
    let kron = ["generate", "kron", "--scale", "12"];
    assert_eq!(build(&kron, "auto").0, "degree");
    assert_clean(d.path(), &["grid.txt", "auto.oc", "degree.oc", "bfs.oc"]);
}
