//! Imports that succeed: a SNAP edge list plain and gzipped, and the
//! Graphalytics LDBC examples with isolated vertices and weights; the
//! edges exported back from the store equal the input's.

use crate::{export_set, outcore, write};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

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
