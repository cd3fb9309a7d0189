//! `query` (khop, egonet, induced, cross), k-core, BFS on each engine,
//! SSSP and `calibrate` from the command line, on a small graph with big
//! original ids and on the Graphalytics example.

use crate::{outcore, write};
use predicates::prelude::*;
use std::path::Path;

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
        .args(["run", "lcc", st, "--engine", "select"])
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
    // Calibration is recorded in the store and does not upset verify. It
    // reads the store's largest file: a coded store's adjacency (the
    // default layout) is smaller than its plain one; this store's files are
    // all under the 4 KiB page it reads, so a Kronecker store is measured.
    let k = d.path().join("k.oc");
    let k = k.to_str().unwrap();
    outcore()
        .args(["generate", "kron", "--scale", "12", "--out", k])
        .assert()
        .success();
    outcore()
        .args(["calibrate", k, "--depths", "1,4", "--seconds", "0.05"])
        .assert()
        .success()
        .stdout(predicate::str::contains("best depth"));
    assert!(Path::new(k).join("calibration.json").exists());
    outcore().args(["verify", k]).assert().success();
}
