//! `outcore partition`: shards that `verify`, `info` and `run` open as
//! stores, the balance on stderr and in `--stats`, `verify DIR` naming a
//! damaged shard, and nothing left behind when it fails.

use super::{assert_clean, outcore};
use predicates::prelude::*;

#[test]
fn partition_makes_shards_that_verify_and_run() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    outcore()
        .current_dir(dir)
        .args([
            "generate",
            "kron",
            "--scale",
            "10",
            "--weighted",
            "--out",
            "g.oc",
        ])
        .assert()
        .success();
    outcore()
        .current_dir(dir)
        .args([
            "partition",
            "g.oc",
            "--parts",
            "3",
            "--out",
            "p",
            "--stats",
            "s.json",
        ])
        .args(["--memory", "256MiB"])
        .assert()
        .success()
        .stdout("")
        .stderr(
            predicate::str::contains("partitioned g.oc into 3 shards")
                .and(predicate::str::contains("max/mean")),
        );
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap();
    assert_eq!(j["parts"], 3);
    assert_eq!(j["shards"].as_array().unwrap().len(), 3);
    let ratio = j["balance"]["max_over_mean"].as_f64().unwrap();
    assert!((1.0..=1.2).contains(&ratio), "{ratio}");
    for key in ["seconds", "bytes_written", "peak_rss_bytes"] {
        assert!(j[key].is_number(), "{key} missing from --stats");
    }
    outcore()
        .current_dir(dir)
        .args(["verify", "p"])
        .assert()
        .success()
        .stdout(predicate::str::contains("p: ok (3 shards"));
    for k in 0..3 {
        let shard = format!("p/shard-{k:03}");
        outcore()
            .current_dir(dir)
            .args(["verify", &shard])
            .assert()
            .success();
        outcore()
            .current_dir(dir)
            .args(["info", &shard])
            .assert()
            .success();
        outcore()
            .current_dir(dir)
            .args([
                "run", "wcc", &shard, "--memory", "256MiB", "--out", "wcc.txt",
            ])
            .assert()
            .success();
    }
    // The partition itself is not a store: the error says what to open.
    outcore()
        .current_dir(dir)
        .args(["run", "wcc", "p"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("partitioned store")
                .and(predicate::str::contains("shard-000")),
        );
    // An existing partition is replaced only with --force.
    let again = [
        "partition",
        "g.oc",
        "--parts",
        "2",
        "--out",
        "p",
        "--memory",
        "256MiB",
    ];
    outcore()
        .current_dir(dir)
        .args(again)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--force"));
    outcore()
        .current_dir(dir)
        .args(again)
        .arg("--force")
        .assert()
        .success();
    outcore()
        .current_dir(dir)
        .args(["verify", "p"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(2 shards"));
    // A flipped byte in a shard: verify names the shard.
    let f = dir.join("p/shard-001/tiles/edges.bin");
    let mut b = std::fs::read(&f).unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 1;
    std::fs::write(&f, b).unwrap();
    outcore()
        .current_dir(dir)
        .args(["verify", "p"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("shard 1 (p/shard-001)"));
}

#[test]
fn a_failed_partition_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    outcore()
        .current_dir(dir)
        .args(["generate", "kron", "--scale", "10", "--out", "g.oc"])
        .assert()
        .success();
    outcore()
        .current_dir(dir)
        .env("OUTCORE_FAULT_DISK_FULL_AFTER", "60000")
        .args([
            "partition",
            "g.oc",
            "--parts",
            "3",
            "--out",
            "p",
            "--memory",
            "256MiB",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("disk full"));
    assert_clean(dir, &["g.oc"]);
    outcore()
        .current_dir(dir)
        .args([
            "partition",
            "g.oc",
            "--parts",
            "2",
            "--out",
            "p",
            "--memory",
            "64MiB",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("raise --memory"));
    assert_clean(dir, &["g.oc"]);
}
