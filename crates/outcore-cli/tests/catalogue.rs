//! `outcore run betweenness|coloring|mis|randomwalk` end to end, in
//! original ids: the answers checked by their properties on a graph with
//! sparse, large ids; the same seed gives the same files at any budget; bad
//! arguments are refused with errors that say what to do; weighted
//! betweenness follows the weights.

mod common;

use common::{bin, ok_in};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A ring of 40 with chords, ids 1000 apart; undirected.
fn graph(dir: &Path) -> (String, Vec<(u64, u64)>) {
    let mut edges = Vec::new();
    for i in 0..40u64 {
        edges.push((i * 1000, (i + 1) % 40 * 1000));
        if i % 3 == 0 {
            edges.push((i * 1000, (i * 7 + 5) % 40 * 1000));
        }
    }
    let text: String = edges.iter().map(|(a, b)| format!("{a} {b}\n")).collect();
    std::fs::write(dir.join("g.txt"), text).unwrap();
    ok_in(dir, &["import", "g.txt", "--out", "g.oc", "--undirected"]);
    ("g.oc".into(), edges)
}

fn values(dir: &Path, file: &str) -> HashMap<u64, f64> {
    std::fs::read_to_string(dir.join(file))
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_catalogue_answers_in_original_ids() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let (s, edges) = graph(p);
    let simple: Vec<(u64, u64)> = edges.iter().copied().filter(|(a, b)| a != b).collect();

    ok_in(p, &["run", "coloring", &s, "--seed", "4", "--out", "c.txt"]);
    let c = values(p, "c.txt");
    assert_eq!(c.len(), 40);
    assert!(
        simple.iter().all(|(a, b)| c[a] != c[b]),
        "a proper colouring"
    );
    ok_in(
        p,
        &[
            "run", "coloring", &s, "--seed", "4", "--out", "c2.txt", "--memory", "8MiB",
        ],
    );
    assert_eq!(
        std::fs::read(p.join("c.txt")).unwrap(),
        std::fs::read(p.join("c2.txt")).unwrap()
    );

    ok_in(p, &["run", "mis", &s, "--seed", "4", "--out", "m.txt"]);
    let m = values(p, "m.txt");
    let inside: HashSet<u64> = m
        .iter()
        .filter(|(_, &x)| x == 1.0)
        .map(|(&v, _)| v)
        .collect();
    assert!(simple
        .iter()
        .all(|(a, b)| !(inside.contains(a) && inside.contains(b))));
    for v in m.keys().filter(|v| !inside.contains(v)) {
        assert!(
            simple
                .iter()
                .any(|(a, b)| a == v && inside.contains(b) || b == v && inside.contains(a)),
            "{v} could join"
        );
    }

    ok_in(
        p,
        &[
            "run",
            "randomwalk",
            &s,
            "--walks-per-vertex",
            "2",
            "--length",
            "6",
            "--seed",
            "9",
            "--walks",
            "w.txt",
            "--out",
            "v.txt",
        ],
    );
    let adj: HashSet<(u64, u64)> = simple.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
    let walks = std::fs::read_to_string(p.join("w.txt")).unwrap();
    assert_eq!(walks.lines().count(), 80);
    let mut visits: HashMap<u64, f64> = HashMap::new();
    for w in walks.lines() {
        let vs: Vec<u64> = w.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(vs.len(), 7);
        assert!(
            vs.windows(2).all(|x| adj.contains(&(x[0], x[1]))),
            "{w}: every step follows an edge"
        );
        for v in vs {
            *visits.entry(v).or_default() += 1.0;
        }
    }
    let v = values(p, "v.txt");
    assert!(v
        .iter()
        .all(|(k, x)| visits.get(k).copied().unwrap_or(0.0) == *x));

    // Betweenness from given sources, and the sources file's errors.
    std::fs::write(p.join("src.txt"), "# two sources\n0\n\n5000\n").unwrap();
    ok_in(
        p,
        &[
            "run",
            "betweenness",
            &s,
            "--sources",
            "src.txt",
            "--out",
            "b.txt",
        ],
    );
    assert_eq!(values(p, "b.txt").len(), 40);
    std::fs::write(p.join("bad.txt"), "0\n777\n").unwrap();
    let o = bin()
        .current_dir(p)
        .args(["run", "betweenness", &s, "--sources", "bad.txt"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("bad.txt, line 2") && e.contains("777"),
        "{e}"
    );
}

#[test]
fn bad_arguments_say_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let (s, _) = graph(p);
    for (args, want) in [
        (
            vec!["run", "randomwalk", &s, "--restart", "1.5"],
            "--restart must be in [0, 1)",
        ),
        (
            vec!["run", "randomwalk", &s, "--walks-per-vertex", "0"],
            "at least 1",
        ),
        (
            vec!["run", "triangles", &s, "--engine", "select"],
            "external engine only",
        ),
        (
            vec!["run", "betweenness", &s, "--samples", "0"],
            "--samples must be between 1",
        ),
        (
            vec![
                "run",
                "betweenness",
                &s,
                "--samples",
                "2",
                "--sources",
                "x.txt",
            ],
            "exclude each other",
        ),
        (
            vec!["run", "betweenness", &s, "--sources", "missing.txt"],
            "missing.txt",
        ),
        (
            vec!["run", "betweenness", &s, "--weighted"],
            "import the graph with --weighted",
        ),
        (
            vec!["run", "coloring", &s, "--weighted"],
            "--weighted applies to pagerank and betweenness",
        ),
    ] {
        let o = bin().current_dir(p).args(&args).output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(want), "{args:?}: {e}");
    }
}

/// A triangle 10 - 20 - 30 whose direct edge 10 - 30 is heavier than the
/// way through 20: weighted, 20 carries that pair; by hops, nothing does.
#[test]
fn weighted_betweenness_follows_weights() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("w.txt"), "10 20 1\n20 30 1.5\n10 30 5\n").unwrap();
    ok_in(
        p,
        &[
            "import",
            "w.txt",
            "--out",
            "w.oc",
            "--undirected",
            "--weighted",
        ],
    );
    ok_in(
        p,
        &[
            "run",
            "betweenness",
            "w.oc",
            "--weighted",
            "--out",
            "w1.txt",
        ],
    );
    ok_in(p, &["run", "betweenness", "w.oc", "--out", "h.txt"]);
    let (w, h) = (values(p, "w1.txt"), values(p, "h.txt"));
    assert_eq!((w[&10], w[&20], w[&30]), (0.0, 1.0, 0.0));
    assert!(h.values().all(|&x| x == 0.0), "{h:?}");
    let o = bin()
        .current_dir(p)
        .args([
            "run",
            "betweenness",
            "w.oc",
            "--weighted",
            "--engine",
            "stream",
        ])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("--engine external"),
        "{e}"
    );
}
