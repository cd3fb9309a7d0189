//! A store path that is not a store (issue 49): every command that opens a
//! store says "no such store" for a path that does not exist, and for an
//! edge-list file says to import it first, with the command.

use crate::{outcore, write};

#[test]
fn missing_stores_and_edge_lists_get_errors_that_say_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "edges.txt", "1 2\n2 3\n");
    let commands: &[&[&str]] = &[
        &["run", "pagerank"],
        &["info"],
        &["verify"],
        &["export", "--out", "x.txt"],
        &["query", "khop", "--source", "1"],
        &["calibrate"],
    ];
    for cmd in commands {
        // The store goes right after the subcommand (and query's kind).
        let at = if cmd[0] == "run" || cmd[0] == "query" {
            2
        } else {
            1
        };
        let with = |store: &'static str| {
            let mut v: Vec<&str> = cmd.to_vec();
            v.insert(at, store);
            v
        };
        outcore()
            .current_dir(d.path())
            .args(with("nope.oc"))
            .assert()
            .code(1)
            .stderr("error: no such store: nope.oc\n");
        outcore()
            .current_dir(d.path())
            .args(with("edges.txt"))
            .assert()
            .code(1)
            .stderr(
                "error: edges.txt is a file, not a store; import it first: \
                 outcore import edges.txt --out edges.oc\n",
            );
    }
    assert!(!d.path().join("x.txt").exists());
    // The suggested command works.
    outcore()
        .current_dir(d.path())
        .args(["import", "edges.txt", "--out", "edges.oc"])
        .assert()
        .success();
    outcore()
        .current_dir(d.path())
        .args(["info", "edges.oc/manifest.json"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "is a file of the store edges.oc; pass the store's directory",
        ));
}
