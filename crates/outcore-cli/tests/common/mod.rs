//! Helpers the process-level tests share (each test file is its own crate
//! and uses what it needs).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_outcore"))
}

/// Runs `outcore -q ARGS` in `dir` and asserts it succeeded; its stdout.
pub fn ok_in(dir: &Path, args: &[&str]) -> String {
    let o = bin()
        .current_dir(dir)
        .arg("-q")
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every file under `dir`.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        match path.is_dir() {
            true => out.extend(walk(&path)),
            false => out.push(path),
        }
    }
    out
}

/// `f(worker, item)` for every item on `workers` threads, results in the
/// items' order; `worker` (below `workers`) tells a worker's own files
/// apart. For matrices of short commands, which wait on the disk and on
/// process start more than they compute: eight at a time take a fifth of
/// the time one at a time does, on two cores. A panic in `f` is re-raised.
pub fn par_map<I: Sync, T: Send>(
    items: &[I],
    workers: usize,
    f: impl Fn(usize, &I) -> T + Sync,
) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<T>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers.clamp(1, items.len().max(1)))
            .map(|w| {
                let (next, out, f) = (&next, &out, &f);
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { return };
                    let r = f(w, item);
                    out.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                })
            })
            .collect();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}
