//! A damaged CSR page is detected by every engine that reads it (issue 12:
//! "a corrupted store is detected, never read into a wrong result"): one
//! byte changed in the first page of the adjacency, the offsets or the
//! weights makes each run that reads that page fail, naming the file,
//! where it had exited 0 with a wrong answer. The store is plain
//! (`--no-compress`), so that the byte changed is a slot or an offset;
//! flips.rs changes bytes of coded stores.

mod common;

use common::bin;
use std::path::Path;

fn run(dir: &Path, store: &str, args: &[&str]) -> (bool, String) {
    let o = bin()
        .current_dir(dir)
        .arg("-q")
        .args(&args[..2])
        .arg(store)
        .args(&args[2..])
        .args(match args[0] {
            "export" => &[][..],
            _ => &["--memory", "64MiB"][..],
        })
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_damaged_csr_page_fails_every_run_that_reads_it() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let o = bin()
        .current_dir(p)
        .args([
            "-q",
            "generate",
            "kron",
            "--scale",
            "12",
            "--weighted",
            "--no-compress",
            "--out",
            "g.oc",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Runs that read the adjacency and offsets from the first page on (the
    // store is in degree order: vertex 0's list starts there).
    let (ok, err) = run(
        p,
        "g.oc",
        &["run", "bfs", "--source", "max-degree", "--out", "b.txt"],
    );
    assert!(ok, "{err}");
    let levels = std::fs::read_to_string(p.join("b.txt")).unwrap();
    let hub = levels
        .lines()
        .find_map(|l| l.strip_suffix(" 0"))
        .expect("the source at level 0")
        .to_string();
    let lists: &[&[&str]] = &[
        &["run", "bfs", "--source", "max-degree", "--engine", "select"],
        &["run", "wcc", "--engine", "external"],
        &[
            "run",
            "pagerank",
            "--engine",
            "external",
            "--iterations",
            "2",
        ],
        &["run", "lcc"],
        &["query", "khop", "--source", &hub, "--hops", "1"],
        &["export", "--out=e.txt", "--layout", "csr"],
    ];
    let pagerank = |iterations| {
        let engine = ["--engine", "external", "--iterations", iterations];
        [["run", "pagerank", "--weighted"].as_slice(), &engine].concat()
    };
    let weights: &[&[&str]] = &[
        &[
            "run",
            "sssp",
            "--source",
            "max-degree",
            "--engine",
            "select",
        ],
        &[
            "run",
            "sssp",
            "--source",
            "max-degree",
            "--engine",
            "external",
        ],
        &pagerank("2"),
        // No superstep: only the pass that sums every vertex's out-weights
        // reads the weights, so its own page checks must catch the damage.
        &pagerank("0"),
        &["export", "--out=e.txt", "--layout", "csr"],
    ];
    for (file, runs) in [
        ("csr/out.adj", lists),
        ("csr/out.off", lists),
        ("weights/out.f64", weights),
    ] {
        for args in runs {
            let (ok, err) = run(p, "g.oc", args);
            assert!(ok, "{args:?} on the whole store: {err}");
        }
        let bad = format!("bad-{}.oc", file.replace('/', "-"));
        let copy = p.join(&bad);
        std::fs::create_dir(&copy).unwrap();
        for sub in ["", "csr", "degrees", "tiles", "weights"] {
            let from = p.join("g.oc").join(sub);
            if !sub.is_empty() {
                std::fs::create_dir_all(copy.join(sub)).unwrap();
            }
            for e in std::fs::read_dir(&from).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_file() {
                    std::fs::copy(e.path(), copy.join(sub).join(e.file_name())).unwrap();
                }
            }
        }
        let target = copy.join(file);
        let mut bytes = std::fs::read(&target).unwrap();
        bytes[9] ^= 0x01;
        std::fs::write(&target, bytes).unwrap();
        for args in runs {
            let (ok, err) = run(p, &bad, args);
            assert!(
                !ok && err.contains(file) && err.contains("checksum"),
                "{args:?} with {file} damaged: exit ok={ok}, stderr: {err}"
            );
        }
    }
}
