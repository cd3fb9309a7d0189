//! The command line end to end: imports, bad input, atomicity, verify,
//! generation, runs, queries, vertex orders and export. One test binary:
//! the tests are grouped by topic in the modules below, and the helpers
//! they share are here.

mod budget_limit;
mod errors;
mod generate;
mod import;
mod not_a_store;
mod orders;
mod outputs;
mod partition;
mod query;
mod readable;
mod run;

use assert_cmd::Command;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn outcore() -> Command {
    let mut c = Command::cargo_bin("outcore").unwrap();
    c.arg("--quiet");
    c
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Nothing but the inputs remains: no store, no temporary directories.
fn assert_clean(dir: &Path, inputs: &[&str]) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !inputs.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn export_set(store: &Path, layout: &str, both: bool) -> BTreeSet<String> {
    let out = store.with_extension(format!("{layout}.txt"));
    let mut c = outcore();
    c.args([
        "export",
        store.to_str().unwrap(),
        "--layout",
        layout,
        "--force",
        "--out",
        out.to_str().unwrap(),
    ]);
    if both {
        c.arg("--both-directions");
    }
    c.assert().success();
    let s = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    s.lines().map(str::to_string).collect()
}
