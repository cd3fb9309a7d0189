//! Injected I/O faults (issue 12, item 2): with `OUTCORE_FAULT_IO` the I/O
//! layer fails request N on purpose (EIO, a short read, ENOSPC on a write)
//! or delays every completion. At every request index of a run, on every
//! engine, each ends in a clear error naming the file, with no output file
//! and no spill left, or (a fault past the run's last request) in the same
//! output as without faults: never a wrong result.

mod common;

use common::{bin, names, ok_in, par_map, walk};
use std::path::{Path, PathBuf};

/// Runs `args` writing `out.txt`; Ok(bytes of out.txt) or Err(stderr).
fn run(dir: &Path, args: &[&str], fault: Option<&str>) -> Result<Vec<u8>, String> {
    let mut c = bin();
    c.current_dir(dir)
        .arg("-q")
        .args(args)
        .args(["--out", "out.txt"]);
    if let Some(f) = fault {
        c.env("OUTCORE_FAULT_IO", f);
    }
    let o = c.output().unwrap();
    match o.status.success() {
        true => Ok(std::fs::read(dir.join("out.txt")).unwrap()),
        false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
    }
}

/// The import of `k.txt` into `g.oc` the import tests fault.
const IMPORT: [&str; 7] = [
    "-q",
    "import",
    "k.txt",
    "--weighted",
    "--undirected",
    "--out",
    "g.oc",
];

/// A weighted Kronecker graph of `scale` written as `to` says.
fn weighted_kron(dir: &Path, scale: &str, to: &[&str]) {
    let args = ["generate", "kron", "--scale", scale, "--weighted"];
    ok_in(dir, &[&args[..], to].concat());
}

#[test]
fn every_request_of_a_run_can_fail_and_none_gives_a_wrong_result() {
    run_faults(&[]);
}

#[test]
fn every_request_of_a_run_on_a_plain_store_can_fail_and_none_gives_a_wrong_result() {
    run_faults(&["--no-compress"]);
}

/// The run fault matrix on a store of the default (coded) layout, or of
/// the one `layout` asks for.
fn run_faults(layout: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    weighted_kron(p, "10", &[layout, &["--out", "g.oc"]].concat());
    let runs: [&[&str]; 6] = [
        &[
            "run",
            "pagerank",
            "g.oc",
            "--engine",
            "external",
            "--iterations",
            "2",
            "--memory",
            "16MiB",
        ],
        &["run", "pagerank", "g.oc", "--engine", "stream"],
        &[
            "run",
            "bfs",
            "g.oc",
            "--source",
            "max-degree",
            "--engine",
            "select",
        ],
        &["run", "sssp", "g.oc", "--source", "max-degree"],
        &["run", "kcore", "g.oc"],
        &[
            "run", "wcc", "g.oc", "--engine", "external", "--memory", "16MiB",
        ],
    ];
    let (mut failed, mut same) = (0, 0);
    for args in runs {
        let want = run(p, args, None).unwrap();
        // Faults at every request index, until one lands past the run's end.
        for kind in ["eio", "short", "enospc"] {
            for n in 0.. {
                let _ = std::fs::remove_file(p.join("out.txt"));
                let fault = format!("{kind}@{n}");
                match run(p, args, Some(&fault)) {
                    Ok(got) => {
                        assert_eq!(got, want, "{args:?} with {fault}: a different result");
                        // Request n never came: nor will any later one.
                        same += 1;
                        break;
                    }
                    Err(e) => {
                        failed += 1;
                        assert!(
                            e.starts_with("error: ") && e.contains("g.oc"),
                            "{args:?} with {fault}: the error does not name the file: {e}"
                        );
                        assert_eq!(names(p), ["g.oc"], "{args:?} with {fault} left files");
                    }
                }
                assert!(n < 2000, "{args:?}: {kind} never ran out of requests");
            }
        }
        // A slow device changes nothing but the time.
        let _ = std::fs::remove_file(p.join("out.txt"));
        assert_eq!(run(p, args, Some("slow@2")).unwrap(), want, "{args:?} slow");
        let _ = std::fs::remove_file(p.join("out.txt"));
    }
    assert!(
        failed > 100 && same > 6,
        "{failed} failed, {same} unchanged"
    );
    eprintln!("runs: {failed} faults ended in a clear error, {same} runs unchanged");
    ok_in(p, &["verify", "g.oc"]);
}

#[test]
fn a_disk_that_fills_at_any_point_of_an_import_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    weighted_kron(p, "12", &["--edges", "k.txt"]);
    let import = |full_after: Option<u64>| {
        let mut c = bin();
        c.current_dir(p).args(IMPORT);
        if let Some(b) = full_after {
            c.env("OUTCORE_FAULT_DISK_FULL_AFTER", b.to_string());
        }
        c.output().unwrap()
    };
    assert!(import(None).status.success());
    let size: u64 = walk(&p.join("g.oc"))
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    std::fs::remove_dir_all(p.join("g.oc")).unwrap();
    // The disk fills after 0 bytes, then at 40 points across the store's size.
    for k in 0..=40u64 {
        let at = size * k / 40;
        let o = import(Some(at));
        if o.status.success() {
            // Past the last write (the manifest is written apart): a whole store.
            assert!(at + 8192 >= size, "an import fit in {at} of {size} bytes");
            let v = bin()
                .current_dir(p)
                .args(["-q", "verify", "g.oc"])
                .output()
                .unwrap();
            assert!(v.status.success());
            std::fs::remove_dir_all(p.join("g.oc")).unwrap();
            continue;
        }
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("disk full") && e.contains("g.oc"),
            "full after {at}: {e}"
        );
        assert_eq!(names(p), ["k.txt"], "full after {at} left files");
    }
}

/// Every file of a store but its manifest (whose timings differ), by name.
fn store_files(store: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walk(store)
        .into_iter()
        .filter(|f| !f.ends_with("manifest.json"))
        .map(|f| {
            (
                f.strip_prefix(store).unwrap().to_path_buf(),
                std::fs::read(&f).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Imports run at once by the import fault matrix, each in a directory of
/// its own.
const WORKERS: usize = 8;

#[test]
fn every_request_of_an_import_can_fail_and_none_gives_a_wrong_result() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // Small sort buffers: the import spills as a large one would (bucket
    // files in the scratch directory beside the store, written and read).
    let args = [&IMPORT[..], &["--sort-buffer", "16KiB"]].concat();
    weighted_kron(p, "8", &["--edges", "k.txt"]);
    let dirs: Vec<PathBuf> = (0..WORKERS)
        .map(|w| {
            let dir = p.join(format!("w{w}"));
            std::fs::create_dir(&dir).unwrap();
            std::fs::hard_link(p.join("k.txt"), dir.join("k.txt")).unwrap();
            dir
        })
        .collect();
    let import = |dir: &Path, fault: Option<&str>| {
        let mut c = bin();
        c.current_dir(dir).args(&args);
        if let Some(f) = fault {
            c.env("OUTCORE_FAULT_IO", f);
        }
        let o = c.output().unwrap();
        let got = match o.status.success() {
            true => {
                ok_in(dir, &["verify", "g.oc"]);
                let files = store_files(&dir.join("g.oc"));
                std::fs::remove_dir_all(dir.join("g.oc")).unwrap();
                Ok(files)
            }
            false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
        };
        assert_eq!(names(dir), ["k.txt"], "{fault:?} left files");
        got
    };
    // `kind@n` for each n of `ns`, WORKERS imports at a time, in order of n.
    let faulted = |kind: &str, ns: std::ops::Range<u64>| {
        let ns: Vec<u64> = ns.collect();
        let runs = par_map(&ns, WORKERS, |w, n| {
            let fault = format!("{kind}@{n}");
            let got = import(&dirs[w], Some(&fault));
            (fault, got)
        });
        runs.into_iter()
    };
    let want = import(&dirs[0], None).unwrap();
    assert!(want.len() > 4);
    // Which files the failed requests were for: the input, the spill (the
    // scratch directory beside the store) and the store being written.
    let mut named = std::collections::BTreeSet::new();
    let mut tally = std::collections::BTreeMap::<String, usize>::new();
    let mut check = |fault: &str, e: &str| {
        *tally
            .entry(fault.split('@').next().unwrap().into())
            .or_default() += 1;
        assert!(
            e.starts_with("error: ") && (e.contains("g.oc") || e.contains("k.txt")),
            "{fault}: the error does not name the file: {e}"
        );
        named.insert(match e {
            _ if e.contains(".g.oc.scratch") => "spill",
            _ if e.contains("g.oc") => "store",
            _ => "input",
        });
    };
    // EIO at every request until one lands past the import's end: that
    // count of requests bounds the short reads.
    let mut requests = None;
    for from in (0..5000).step_by(WORKERS) {
        for (n, (fault, got)) in (from..).zip(faulted("eio", from..from + WORKERS as u64)) {
            match got {
                Ok(got) => {
                    assert!(got == want, "{fault}: another store");
                    requests = Some(n);
                    break;
                }
                Err(e) => check(&fault, &e),
            }
        }
        if requests.is_some() {
            break;
        }
    }
    let requests = requests.expect("the import never ran out of requests");
    // A short read is read on from, or an error; never another store.
    let mut read_on = 0;
    for (fault, got) in faulted("short", 0..requests) {
        match got {
            Ok(got) => {
                assert!(got == want, "{fault}: another store");
                read_on += 1;
            }
            Err(e) => check(&fault, &e),
        }
    }
    // ENOSPC at every write: the spill's and the store's.
    let mut writes = None;
    for from in (0..5000).step_by(WORKERS) {
        for (n, (fault, got)) in (from..).zip(faulted("enospc", from..from + WORKERS as u64)) {
            match got {
                Ok(got) => {
                    assert!(got == want, "{fault}: another store");
                    writes = Some(n);
                    break;
                }
                Err(e) => {
                    assert!(e.contains("disk full"), "{fault}: {e}");
                    check(&fault, &e);
                }
            }
        }
        if writes.is_some() {
            break;
        }
    }
    let writes = writes.expect("the import never ran out of writes");
    // A slow device changes nothing but the time.
    assert!(import(&dirs[0], Some("slow@1")).unwrap() == want, "slow");
    eprintln!(
        "import: {requests} requests, {writes} writes; errors by fault {tally:?}; {read_on} short@N runs gave the same store"
    );
    assert!(requests > 100, "{requests} requests");
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["input", "spill", "store"]
    );
}
