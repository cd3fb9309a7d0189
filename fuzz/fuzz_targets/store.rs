//! The store reader on corrupted stores: a small valid store (two, in fact:
//! directed with an order map and sparse ids, undirected weighted) is
//! copied, mutated as the input says (bytes flipped, files truncated or
//! extended, the manifest edited), then opened, verified and run on. Any
//! error is fine; a panic, a hang or a huge allocation is a finding, and
//! so is a store that verifies but gives a result different from the
//! original's ("never read into a wrong result").

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::api::{self, Algorithm, RunOptions};
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::VecSource;
use outcore::mem::Budget;
use outcore::store::{Store, VertexOrder};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod common;

struct Base {
    _dir: tempfile::TempDir,
    stores: Vec<(PathBuf, Vec<String>, Vec<Vec<(u64, u64)>>)>,
}

/// BFS, WCC and k-core on the engines the planner picks for a small store
/// (tiles and CSR pages), PageRank on the external engine (its logs and
/// state files), and the results read back through the id maps.
const ALGS: [Algorithm; 4] = [
    Algorithm::Bfs,
    Algorithm::Wcc,
    Algorithm::Kcore,
    Algorithm::Pagerank,
];

/// Every vertex's (rank, value) of each algorithm on a store.
fn results(path: &Path) -> outcore::Result<Vec<Vec<(u64, u64)>>> {
    let store = Store::open(path)?;
    let budget = Budget::new(64 << 20);
    let mut all = Vec::new();
    for alg in ALGS {
        let mut o = RunOptions::new(alg);
        o.memory = 64 << 20;
        o.source = Some("max-degree".into());
        if alg == Algorithm::Pagerank {
            o.engine = "external".parse()?;
            o.iterations = 2;
        }
        let mut run = api::run(&store, &o, &budget)?;
        let scratch = api::run::scratch_dir(&store, None);
        let out = outcore::engine::results::Out {
            path: Path::new("-"),
            store: &store,
            budget: &budget,
            scratch: &scratch,
        };
        let mut rows = Vec::new();
        run.values.for_each_ranked(&out, |r, _, x| {
            rows.push((r, x));
            Ok(())
        })?;
        all.push(rows);
    }
    Ok(all)
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        outcore::progress::set_quiet(true);
        let dir = common::scratch();
        let mut stores = Vec::new();
        for (k, directed) in [(0u64, true), (1, false)] {
            // A hub, a path, a triangle and an isolated vertex.
            let mut edges: Vec<(u64, u64, f64)> = (1..40).map(|v| (7, 7 + v * 3, 1.5)).collect();
            edges.extend((200..230).map(|v| (v, v + 1, 0.25 * (v % 4) as f64 + 0.5)));
            edges.extend([(500, 501, 1.0), (501, 502, 2.0), (502, 500, 3.0)]);
            let mut src = VecSource::new(edges.into_iter().map(|(a, b, w)| (a * (k + 1), b, w)));
            src.vertices = vec![10_000];
            let path = dir.path().join(format!("s{k}.oc"));
            let opts = BuildOptions {
                directed,
                weighted: k == 1,
                order: VertexOrder::Degree,
                memory: 128 << 20,
                ..Default::default()
            };
            build_store(&mut src, &path, &opts).expect("the base store builds");
            let mut files: Vec<String> = walk(&path)
                .into_iter()
                .map(|p| {
                    p.strip_prefix(&path)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            files.sort();
            let want = results(&path).expect("the base store runs");
            stores.push((path, files, want));
        }
        Base { _dir: dir, stores }
    })
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let t = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy(&p, &t);
        } else {
            // copy_file_range can be interrupted by libFuzzer's timers.
            while let Err(e) = std::fs::copy(&p, &t) {
                assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "{e}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, mut ops)) = data.split_first() else {
        return;
    };
    let base = base();
    let (path, files, want) = &base.stores[ctl as usize % base.stores.len()];
    let dir = common::scratch();
    let store = dir.path().join("s.oc");
    copy(path, &store);
    // Each op: file index, kind, 16-bit offset, byte.
    while ops.len() >= 5 {
        let file = store.join(&files[ops[0] as usize % files.len()]);
        if std::env::var_os("OUTCORE_FUZZ_SHOW").is_some() {
            eprintln!("op {:?} on {}", &ops[..5], file.display());
        }
        let mut bytes = std::fs::read(&file).unwrap();
        let at = u16::from_le_bytes([ops[2], ops[3]]) as usize;
        match ops[1] % 4 {
            0 | 1 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] ^= ops[4].max(1);
            }
            2 => bytes.truncate(at.min(bytes.len())),
            _ => bytes.extend(std::iter::repeat_n(ops[4], (at % 64) + 1)),
        }
        std::fs::write(&file, &bytes).unwrap();
        ops = &ops[5..];
    }
    let verified = outcore::store::verify::verify(&store).is_ok();
    // Runs on the store whether or not it verified: errors, never panics.
    let got = results(&store);
    if verified {
        if let Ok(got) = got {
            assert_eq!(
                &got, want,
                "a corrupted store verified and gave another result"
            );
        }
    }
});
