//! Any single flipped byte in any store file is detected (issue 12, item
//! 5): `verify` fails, and every run and query either fails naming the
//! store or answers exactly as on the undamaged store (it did not read the
//! byte). Bytes are flipped at three random offsets (a fixed seed, printed)
//! in every file of three stores: plain and weighted in degree order (an order
//! map), coded tiles and CSR pages, and string ids.

mod common;

use common::{bin, ok_in, par_map, walk};
use std::path::Path;

/// The runs asked of each damaged store, each writing `out.txt`, and a
/// k-hop query from a vertex of the store.
const RUNS: [&[&str]; 7] = [
    &["run", "pagerank", "--iterations", "3"],
    &[
        "run",
        "pagerank",
        "--engine",
        "external",
        "--iterations",
        "2",
    ],
    &["run", "bfs", "--source", "max-degree", "--engine", "select"],
    &["run", "wcc"],
    &["run", "sssp", "--source", "max-degree"],
    &["run", "kcore"],
    &["run", "lcc"],
];

/// `outcore -q ARGS[..2] STORE ARGS[2..] --out OUT`: Ok(output) or Err(stderr).
fn run(dir: &Path, store: &str, args: &[&str], out: &str) -> Result<Vec<u8>, String> {
    let out = dir.join(out);
    let _ = std::fs::remove_file(&out);
    let o = bin()
        .current_dir(dir)
        .arg("-q")
        .args(&args[..2])
        .arg(store)
        .args(&args[2..])
        .args(["--memory", "64MiB", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    match o.status.success() {
        true => Ok(std::fs::read(&out).unwrap()),
        false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
    }
}

/// xorshift64*: offsets that are random yet the same in every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

fn flips_in(dir: &Path, make: &[&str], source: &str, seed: u64) -> (usize, usize) {
    ok_in(dir, make);
    let store = dir.join("g.oc");
    let khop = ["query", "khop", "--source", source, "--hops", "2"];
    let runs: Vec<&[&str]> = RUNS.into_iter().chain([&khop[..]]).collect();
    // The runs and the query of one flip run at once, each to a file of
    // its own (they wait on process start and the disk more than they
    // compute).
    let all = |dir: &Path| {
        par_map(&runs, runs.len(), |i, a| {
            run(dir, "g.oc", a, &format!("out{i}.txt"))
        })
    };
    let want: Vec<Vec<u8>> = all(dir)
        .into_iter()
        .zip(&runs)
        .map(|(r, a)| r.unwrap_or_else(|e| panic!("{a:?}: {e}")))
        .collect();
    let mut files: Vec<_> = walk(&store);
    files.sort();
    let mut rng = Rng(seed);
    let (mut flips, mut refused) = (0, 0);
    for file in &files {
        let rel = file.strip_prefix(&store).unwrap().display().to_string();
        let bytes = std::fs::read(file).unwrap();
        if bytes.is_empty() {
            continue;
        }
        for _ in 0..3 {
            let at = rng.below(bytes.len() as u64) as usize;
            let mut bad = bytes.clone();
            bad[at] ^= 1 << rng.below(8);
            std::fs::write(file, &bad).unwrap();
            flips += 1;
            let v = bin()
                .current_dir(dir)
                .args(["-q", "verify", "g.oc"])
                .output()
                .unwrap();
            assert!(
                !v.status.success(),
                "{make:?}: verify passed with byte {at} of {rel} flipped"
            );
            for ((args, want), got) in runs.iter().zip(&want).zip(all(dir)) {
                match got {
                    Ok(got) => assert!(
                        &got == want,
                        "{make:?}: {args:?} answered otherwise with byte {at} of {rel} flipped"
                    ),
                    Err(e) => {
                        refused += 1;
                        assert!(
                            e.starts_with("error: ") && e.contains("g.oc"),
                            "{args:?}, byte {at} of {rel}: {e}"
                        );
                    }
                }
            }
            std::fs::write(file, &bytes).unwrap();
        }
    }
    ok_in(dir, &["verify", "g.oc"]);
    std::fs::remove_dir_all(&store).unwrap();
    (flips, refused)
}

#[test]
fn a_flipped_byte_in_any_store_file_is_detected() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let seed = 0x5eed_f11b;
    eprintln!("seed {seed:#x}");
    let kron = ["generate", "kron", "--scale", "10", "--weighted"];
    let plain = [&kron[..], &["--no-compress", "--out", "g.oc"]].concat();
    let coded = [&kron[..], &["--compress", "--out", "g.oc"]].concat();
    // String ids: the names' files and their map.
    let names: String = (0..600u64)
        .map(|i| format!("u{},u{},{}\n", i * 7 % 211, (i * 13 + 5) % 307, i % 5 + 1))
        .collect();
    std::fs::write(p.join("names.csv"), names).unwrap();
    let named = [
        "import",
        "names.csv",
        "--ids",
        "string",
        "--weighted",
        "--out",
        "g.oc",
    ];
    let mut total = (0, 0);
    let stores = [(&plain[..], "1"), (&coded[..], "1"), (&named[..], "u5")];
    for (k, (make, source)) in stores.into_iter().enumerate() {
        let (flips, refused) = flips_in(p, make, source, seed + k as u64);
        total = (total.0 + flips, total.1 + refused);
    }
    eprintln!(
        "{} bytes flipped; verify refused each; {} of {} runs and queries refused, the rest answered as before",
        total.0,
        total.1,
        total.0 * (RUNS.len() + 1)
    );
}
