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
