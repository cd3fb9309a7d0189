//! `--memory` past the machine (issue 49): a budget above physical memory
//! is refused before any work, naming the RAM size and the largest budget
//! accepted, by every command that takes one; a budget up to RAM runs, and
//! what the engines and the importer allocate follows the graph, not the
//! budget (an address-space limit far below the budget stands in for a
//! machine that does not overcommit).

use crate::{assert_clean, outcore, write};
use outcore::mem::budget::usable_memory_bytes;
use outcore::size::{format_size, largest_size_arg};
use std::path::Path;

/// A kron scale-10 store `g.oc` (weighted) and its edge list `e.txt` in `dir`.
fn graph(dir: &Path) {
    for out in [["--out", "g.oc"], ["--edges", "e.txt"]] {
        outcore()
            .current_dir(dir)
            .args(["generate", "kron", "--scale", "10", "--weighted"])
            .args(out)
            .assert()
            .success();
    }
}

#[test]
fn a_budget_above_ram_is_refused_naming_the_ram() {
    let d = tempfile::tempdir().unwrap();
    graph(d.path());
    let ram = usable_memory_bytes();
    let commands: &[&[&str]] = &[
        &["run", "pagerank", "g.oc"],
        &["run", "wcc", "g.oc", "--engine", "external"],
        &["import", "e.txt", "--out", "x.oc"],
        &["generate", "kron", "--scale", "8", "--out", "y.oc"],
        &["query", "khop", "g.oc", "--source", "0"],
    ];
    for args in commands {
        for memory in ["1TiB", &format!("{}", ram + (1 << 20))] {
            let o = outcore()
                .current_dir(d.path())
                .args(*args)
                .args(["--memory", memory])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                matches!(o.status.code(), Some(1 | 2)),
                "{args:?} --memory {memory}: {:?}\n{err}",
                o.status
            );
            assert!(
                err.contains(&format_size(ram)) && err.contains(&largest_size_arg(ram)),
                "{args:?} --memory {memory}: the RAM ({}) and the largest budget ({}) not named:\n{err}",
                format_size(ram),
                largest_size_arg(ram)
            );
            assert!(
                !err.contains("backtrace") && !err.contains("memory allocation"),
                "{err}"
            );
            assert!(o.stdout.is_empty());
        }
    }
    assert_clean(d.path(), &["g.oc", "e.txt"]);
    // The largest accepted value is accepted.
    outcore()
        .current_dir(d.path())
        .args(["run", "bfs", "g.oc", "--source", "0"])
        .args(["--memory", &largest_size_arg(ram)])
        .assert()
        .success();
}

/// Runs `outcore -q ARGS` under an address-space limit of 3 GiB; Err(stderr)
/// when it fails.
fn limited(dir: &Path, args: &[&str]) -> Result<(), String> {
    let o = std::process::Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("ulimit -v 3145728 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_outcore"))
        .arg("-q")
        .args(args)
        .output()
        .unwrap();
    match o.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
    }
}

#[test]
fn what_a_large_budget_allocates_follows_the_graph() {
    let ram = usable_memory_bytes();
    if ram < 6 << 30 {
        // The address-space limit below must sit well under the budget.
        eprintln!("skipped: {} of RAM", format_size(ram));
        return;
    }
    let d = tempfile::tempdir().unwrap();
    graph(d.path());
    write(d.path(), "sources.txt", "0\n1\n");
    let memory = largest_size_arg(ram);
    let mut failed = Vec::new();
    for alg in [
        "pagerank",
        "wcc",
        "bfs",
        "sssp",
        "kcore",
        "cdlp",
        "lcc",
        "triangles",
        "coloring",
        "mis",
        "randomwalk",
        "betweenness",
    ] {
        for engine in ["auto", "external"] {
            let mut args = vec!["run", alg, "g.oc", "--memory", &memory, "--engine", engine];
            if matches!(alg, "bfs" | "sssp") {
                args.extend(["--source", "max-degree"]);
            }
            if alg == "betweenness" {
                args.extend(["--sources", "sources.txt"]);
            }
            if let Err(e) = limited(d.path(), &args) {
                failed.push(format!("{args:?}: {}", e.lines().next().unwrap_or("")));
            }
        }
    }
    for args in [
        &["import", "e.txt", "--out", "i.oc", "--weighted"][..],
        &["import", "e.txt", "--out", "o.oc", "--order", "degree"],
        &["import", "e.txt", "--out", "c.oc", "--compress"],
        &["import", "e.txt", "--out", "s.oc", "--ids", "string"],
        &["generate", "kron", "--scale", "10", "--out", "k.oc"],
        &["query", "egonet", "g.oc", "--source", "0"],
    ] {
        let args: Vec<&str> = args.iter().copied().chain(["--memory", &memory]).collect();
        if let Err(e) = limited(d.path(), &args) {
            failed.push(format!("{args:?}: {}", e.lines().next().unwrap_or("")));
        }
    }
    assert!(
        failed.is_empty(),
        "--memory {memory} under a 3 GiB address-space limit:\n{}",
        failed.join("\n")
    );
}
