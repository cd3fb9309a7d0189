//! Results a person can read (issue 49): `run` without `--out` shows on
//! stderr the ten top vertices of a score (or the key figures of the
//! answer) and says that `--out` writes every value; all of them agree with
//! the `--out` file, on the in-memory engines and on the external one,
//! whose values stay on disk (`--quiet` keeps the summary line alone).
//! `--source max-degree` names the vertex it chose in the summary and in
//! `--stats`.

use crate::outcore;
use assert_cmd::Command;
use std::collections::HashMap;
use std::path::Path;

fn store(dir: &Path) {
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
}

/// `outcore` without `--quiet`.
fn loud() -> Command {
    Command::cargo_bin("outcore").unwrap()
}

/// (stderr of the run without `--out`, the `--out` file's `id value` pairs).
fn both(dir: &Path, args: &[&str]) -> (String, Vec<(u64, String)>) {
    let o = loud().current_dir(dir).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: stdout carries data only");
    assert!(
        err.contains("--out FILE writes"),
        "{args:?}: no word of --out:\n{err}"
    );
    outcore()
        .current_dir(dir)
        .args(args)
        .args(["--out", "all.txt"])
        .assert()
        .success();
    let text = std::fs::read_to_string(dir.join("all.txt")).unwrap();
    let values = text
        .lines()
        .map(|l| {
            let (id, v) = l.split_once(' ').unwrap();
            (id.parse().unwrap(), v.to_string())
        })
        .collect();
    (err, values)
}

/// The `id value` lines under the `top 10` heading.
fn top_lines(err: &str) -> Vec<(u64, f64)> {
    let mut lines = err.lines().skip_while(|l| !l.starts_with("top 10 "));
    assert!(lines.next().is_some(), "no top 10 heading:\n{err}");
    lines
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let id = w.next().unwrap().parse().unwrap();
            (id, w.next().unwrap().parse().unwrap())
        })
        .collect()
}

fn num(v: &str) -> f64 {
    match v {
        "infinity" => f64::INFINITY,
        _ => v.parse().unwrap(),
    }
}

/// The number after `word` in `text`.
fn after(text: &str, word: &str) -> f64 {
    let rest = &text[text
        .find(word)
        .unwrap_or_else(|| panic!("no `{word}` in:\n{text}"))
        + word.len()..];
    rest.trim_start()
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-' || c == '+'))
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn run_without_out_shows_the_top_ten_agreeing_with_out() {
    let d = tempfile::tempdir().unwrap();
    store(d.path());
    let scored: &[&[&str]] = &[
        &["run", "pagerank", "g.oc"],
        &["run", "pagerank", "g.oc", "--engine", "external"],
        &["run", "betweenness", "g.oc", "--samples", "50"],
        &[
            "run",
            "betweenness",
            "g.oc",
            "--samples",
            "50",
            "--engine",
            "external",
        ],
        &["run", "lcc", "g.oc"],
        &["run", "kcore", "g.oc"],
        &["run", "kcore", "g.oc", "--engine", "external"],
        &["run", "triangles", "g.oc"],
        &["run", "randomwalk", "g.oc", "--walks-per-vertex", "4"],
    ];
    for args in scored {
        let (err, values) = both(d.path(), args);
        let mut want: Vec<(u64, f64)> = values.iter().map(|(id, v)| (*id, num(v))).collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        want.truncate(10);
        let got = top_lines(&err);
        let ids = |v: &[(u64, f64)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(ids(&got), ids(&want), "{args:?}:\n{err}");
        for ((_, g), (_, w)) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-5 * w.abs(),
                "{args:?}: {g} vs {w}\n{err}"
            );
        }
    }
    // Components and communities: their number and the largest sizes,
    // each with its label.
    for (args, what) in [
        (&["run", "wcc", "g.oc"][..], "components"),
        (
            &["run", "wcc", "g.oc", "--engine", "external"],
            "components",
        ),
        (&["run", "cdlp", "g.oc"], "communities"),
    ] {
        let (err, values) = both(d.path(), args);
        let mut sizes: HashMap<u64, u64> = HashMap::new();
        for (_, label) in &values {
            *sizes.entry(label.parse().unwrap()).or_default() += 1;
        }
        let mut want: Vec<(u64, u64)> = sizes.iter().map(|(&l, &s)| (s, l)).collect();
        want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        assert!(err.contains(&format!("{} {what}", want.len())), "{err}");
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("largest {what}: ")))
            .unwrap_or_else(|| panic!("{args:?}: no largest {what}:\n{err}"));
        let got: Vec<(u64, u64)> = line[line.find(": ").unwrap() + 2..]
            .split(", ")
            .map(|part| {
                let size = part.split(' ').next().unwrap().parse().unwrap();
                (size, after(part, "(label "))
            })
            .map(|(s, l)| (s, l as u64))
            .collect();
        want.truncate(10);
        assert_eq!(got, want, "{args:?}:\n{err}");
    }
    // Reached vertices and the depth or farthest distance.
    for (args, word) in [
        (&["run", "bfs", "g.oc", "--source", "3"][..], "depth"),
        (
            &[
                "run", "bfs", "g.oc", "--source", "3", "--engine", "external",
            ],
            "depth",
        ),
        (
            &["run", "sssp", "g.oc", "--source", "3"],
            "farthest at distance",
        ),
        (
            &[
                "run", "sssp", "g.oc", "--source", "3", "--engine", "external",
            ],
            "farthest at distance",
        ),
    ] {
        let (err, values) = both(d.path(), args);
        let reached: Vec<f64> = values
            .iter()
            .map(|(_, v)| num(v))
            .filter(|x| x.is_finite() && *x < i64::MAX as f64)
            .collect();
        assert!(
            err.contains(&format!("{} vertices reached", reached.len())),
            "{err}"
        );
        let far = reached.iter().cloned().fold(0.0, f64::max);
        let shown = after(&err, word);
        assert!(
            (shown - far).abs() <= 1e-5 * far,
            "{args:?}: {shown} vs {far}\n{err}"
        );
    }
    let (err, values) = both(d.path(), &["run", "coloring", "g.oc"]);
    let colours = values.iter().map(|(_, v)| num(v) as u64 + 1).max().unwrap();
    assert!(err.contains(&format!("{colours} colours")), "{err}");
    let (err, values) = both(d.path(), &["run", "mis", "g.oc"]);
    let size = values.iter().filter(|(_, v)| v == "1").count();
    assert!(
        err.contains(&format!("{size} vertices in the set")),
        "{err}"
    );
    let (err, values) = both(d.path(), &["run", "triangles", "g.oc"]);
    let total: u64 = values
        .iter()
        .map(|(_, v)| v.parse::<u64>().unwrap())
        .sum::<u64>()
        / 3;
    assert!(err.contains(&format!("{total} triangles")), "{err}");
}

#[test]
fn max_degree_names_the_vertex_it_chose() {
    let d = tempfile::tempdir().unwrap();
    store(d.path());
    outcore()
        .current_dir(d.path())
        .args(["export", "g.oc", "--layout", "csr", "--out", "csr.txt"])
        .assert()
        .success();
    // The oracle: the highest out-degree, of several the smallest id.
    let mut degree: HashMap<u64, u64> = HashMap::new();
    for l in std::fs::read_to_string(d.path().join("csr.txt"))
        .unwrap()
        .lines()
    {
        *degree
            .entry(l.split(' ').next().unwrap().parse().unwrap())
            .or_default() += 1;
    }
    let (&hub, _) = degree
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .unwrap();
    for alg in ["bfs", "sssp"] {
        let o = outcore()
            .current_dir(d.path())
            .args([
                "run",
                alg,
                "g.oc",
                "--source",
                "max-degree",
                "--stats",
                "s.json",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains(&format!("from {hub} (max-degree)")),
            "{alg}: {err}"
        );
        let j: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.path().join("s.json")).unwrap()).unwrap();
        assert_eq!(j["source_vertex"], hub, "{alg}: {j}");
        assert_eq!(j["parameters"]["source"], "max-degree");
    }
}
