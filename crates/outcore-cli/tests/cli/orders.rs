//! Vertex orders (`--order degree|bfs|original|auto`): identical outputs
//! in original ids whatever the order, a budget too small for the degree
//! order refused, and the auto order's choice by skew and, with
//! `--compress`, by coded size.

use crate::{assert_clean, export_set, outcore, write};
use predicates::prelude::*;
use std::path::Path;

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

/// On plain stores (`--no-compress`): on coded ones `auto` may also take
/// `bfs` by coded size (`auto_order_with_compress_takes_bfs_where_it_codes_smaller`).
#[test]
fn auto_order_sorts_skewed_graphs_only() {
    let d = tempfile::tempdir().unwrap();
    let order_of = |args: &[&str]| -> String {
        let s = d.path().join("g.oc");
        outcore()
            .args(["generate"])
            .args(args)
            .args(["--no-compress", "--out", s.to_str().unwrap(), "--force"])
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
    // Kronecker: no locality to find; the degree order stays, and auto
    // weighs only the input's own order against it: a skewed graph's
    // breadth-first levels are not numbered (they cost up to half a build).
    let kron = ["generate", "kron", "--scale", "12"];
    assert_eq!(build(&kron, "auto").0, "degree");
    let s = d.path().join("auto.oc");
    let out = outcore()
        .args(kron)
        .args(["--compress", "--memory", "256MiB", "--force", "--out"])
        .arg(&s)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The summary's phases: the choice, with no numbering of levels.
    assert!(err.contains("order choice"), "{err}");
    assert!(!err.contains("bfs order"), "{err}");
    assert_clean(d.path(), &["grid.txt", "auto.oc", "degree.oc", "bfs.oc"]);
}
