//! `generate`: the same edges whatever the thread count, and a generated
//! edge list imports to the same edges as the store `generate --out` builds.

use crate::{export_set, outcore};

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

/// The hidden `--csr-id-bytes 8` builds a wide store (format version 2,
/// 8-byte CSR slots) that `info` reports, `verify` passes and every
/// engine's BFS answers as on the narrow store; other widths are refused.
#[test]
fn a_wide_store_is_built_on_request_and_answers_the_same() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    for (name, bytes) in [("n.oc", "4"), ("w.oc", "8")] {
        outcore()
            .args(["generate", "kron", "--scale", "10", "--csr-id-bytes", bytes])
            .args(["--out", &p(name)])
            .assert()
            .success();
    }
    let info = outcore()
        .args(["info", "--json", &p("w.oc")])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(j["format_version"], 2);
    assert_eq!(j["csr"]["id_bytes"], 8);
    outcore().args(["verify", &p("w.oc")]).assert().success();
    for engine in ["select", "stream", "external"] {
        let mut outs = Vec::new();
        for name in ["n.oc", "w.oc"] {
            let out = p(&format!("{name}-{engine}.txt"));
            outcore()
                .args(["run", "bfs", &p(name), "--source", "0", "--engine", engine])
                .args(["--out", &out])
                .assert()
                .success();
            outs.push(std::fs::read(&out).unwrap());
        }
        assert!(!outs[0].is_empty());
        assert_eq!(outs[0], outs[1], "{engine}");
    }
    outcore()
        .args(["generate", "kron", "--scale", "8", "--csr-id-bytes", "6"])
        .args(["--out", &p("x.oc")])
        .assert()
        .failure()
        .stderr(predicates::str::contains("4 or 8 bytes"));
    assert!(!d.path().join("x.oc").exists());
}
