//! Runs and queries: `--memory` sizes mean what they say, `--stats` files
//! explain themselves, and the select engine's PageRank and WCC equal the
//! stream engine's.

use crate::{bin, store};

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
