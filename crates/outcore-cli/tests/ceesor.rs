//! The real p2p-Gnutella31 (tests/data, SNAP): `--compress=small` with the
//! automatic order stores its out-adjacency in fewer bits an edge than
//! CEESOR's 11.73 (../shared/papers/003, Table 2), auto picking the input's
//! own order over degree and Cuthill-McKee; the plain, `fast` and `small`
//! stores answer alike.

use assert_cmd::Command;
use std::path::Path;

fn outcore() -> Command {
    let mut c = Command::cargo_bin("outcore").unwrap();
    c.arg("--quiet");
    c
}

fn data() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/p2p-Gnutella31.txt.gz");
    p.to_str().unwrap().to_string()
}

fn info(s: &str) -> serde_json::Value {
    outcore().args(["verify", s]).assert().success();
    let out = outcore().args(["info", "--json", s]).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn bits(j: &serde_json::Value, layout: &str) -> f64 {
    j["layouts"][layout]["bits_per_edge"].as_f64().unwrap()
}

#[test]
fn gnutella_codes_under_ceesors_bits_and_answers_alike() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    let mut outputs = Vec::new();
    for (name, args) in [
        ("plain", &["--order", "degree"][..]),
        ("fast", &["--compress"][..]),
        ("small", &["--compress=small"][..]),
    ] {
        let s = p(&format!("{name}.oc"));
        outcore()
            .args(["import", &data(), "--out", &s, "--memory", "256MiB"])
            .args(args)
            .assert()
            .success();
        let j = info(&s);
        assert_eq!(j["vertices"], 62_586);
        if name == "small" {
            assert_eq!(j["vertex_order"], "original");
            assert_eq!(j["layouts"]["csr_out"]["compression"], "page-huff");
            let b = bits(&j, "csr_out");
            assert!(b < 11.73, "csr_out {b} bits an edge");
            assert!(bits(&j, "csr_in") < 14.0);
            let text = outcore().args(["info", &s]).output().unwrap().stdout;
            let text = String::from_utf8_lossy(&text);
            assert!(text.contains("page-huff-coded: out 11.0"), "{text}");
        }
        if name == "fast" {
            assert_eq!(j["vertex_order"], "original");
            assert_eq!(j["layouts"]["csr_out"]["compression"], "page-svb");
        }
        let mut got = Vec::new();
        for (alg, extra, engine) in [
            ("wcc", &[][..], "select"),
            ("bfs", &["--source", "0"][..], "select"),
            ("kcore", &[][..], "select"),
            ("pagerank", &["--iterations", "5"][..], "select"),
            ("lcc", &[][..], "external"),
        ] {
            let out = p(&format!("{name}-{alg}.txt"));
            outcore()
                .args(["run", alg, &s, "--engine", engine, "--memory", "64MiB"])
                .args(extra)
                .args(["--out", &out])
                .assert()
                .success();
            let mut lines: Vec<String> = std::fs::read_to_string(&out)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            lines.sort();
            got.push((alg, lines));
        }
        outputs.push(got);
    }
    for other in &outputs[1..] {
        for ((alg, want), (_, have)) in outputs[0].iter().zip(other) {
            assert_eq!(want.len(), have.len(), "{alg}");
            for (w, h) in want.iter().zip(have) {
                let (wi, wv) = w.split_once(' ').unwrap();
                let (hi, hv) = h.split_once(' ').unwrap();
                assert_eq!(wi, hi, "{alg}");
                let (a, b): (f64, f64) = (wv.parse().unwrap(), hv.parse().unwrap());
                assert!(
                    (a - b).abs() <= 1e-9 * a.abs().max(1e-12),
                    "{alg} {w} vs {h}"
                );
            }
        }
    }
}
