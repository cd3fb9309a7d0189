//! The shell experience: stdout carries data only, a closed pipe ends a
//! command quietly with exit 0, and errors say each thing once. One test
//! binary: the tests are grouped by topic in the modules below, and the
//! helpers they share are here.

mod budget;
mod input;
mod messages;
mod output;
mod recovery;
mod runs;

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_outcore"))
}

fn store(dir: &std::path::Path) -> std::path::PathBuf {
    let s = dir.join("k.oc");
    let st = bin()
        .args(["--quiet", "generate", "kron", "--scale", "14", "--out"])
        .arg(&s)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert!(st.stdout.is_empty(), "generate writes no data to stdout");
    s
}
