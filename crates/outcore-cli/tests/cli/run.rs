//! `run` on the Graphalytics example: BFS, PageRank, CDLP and LCC outputs
//! that pass validation, `--stats` on both I/O backends, budgets refused
//! when too small, and the external engine within its budget agreeing with
//! the stream engine.

use crate::outcore;
use predicates::prelude::*;
use std::path::Path;

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
