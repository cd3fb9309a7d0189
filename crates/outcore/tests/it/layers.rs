//! The floors run one way: a module never imports from a higher layer
//! (base < io, mem < store < ingest < gen < engine < algo < api). This reads
//! every `crate::` path in the library's code (comments skipped) and fails on
//! an import that runs back up, or on an entry of `KNOWN` that no longer
//! occurs, so the list of known exceptions can only shrink.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and its floor. The single files at the top
/// (errors, cancel, progress, sizes, output files) sit on the ground floor
/// with `base/`.
const FLOORS: &[(&str, u8)] = &[
    ("base", 0),
    ("cancel", 0),
    ("error", 0),
    ("outfile", 0),
    ("progress", 0),
    ("size", 0),
    ("stale", 0),
    ("io", 1),
    ("mem", 1),
    ("store", 2),
    ("ingest", 3),
    ("gen", 4),
    ("engine", 5),
    ("algo", 6),
    ("api", 7),
];

/// Imports that still run back up, as `file: from -> to`; each is work
/// owed (issue 50, item 5; issue 51, item 3). Remove an entry with its fix.
const KNOWN: &[&str] = &[];

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|&(_, f)| f)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules named by `crate::` paths in `code`, including
/// each branch of a `crate::{a::x, b::y}` group.
fn imported(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start => {
                        found.insert(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.remove("");
    found
}

fn code_of(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_module_imports_from_a_higher_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut upward = BTreeSet::new();
    for path in &files {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
        let Some(from) = floor(top) else { continue };
        for to in imported(&code_of(path)) {
            if floor(&to).is_some_and(|f| f > from) {
                upward.insert(format!("{rel}: {top} -> {to}"));
            }
        }
    }
    let known: BTreeSet<String> = KNOWN.iter().map(|s| s.to_string()).collect();
    let new: Vec<_> = upward.difference(&known).collect();
    let gone: Vec<_> = known.difference(&upward).collect();
    assert!(
        new.is_empty(),
        "imports from a higher floor (move the code down, or the shared part below both): {new:#?}"
    );
    assert!(gone.is_empty(), "fixed, so remove from KNOWN: {gone:#?}");
}

#[test]
fn groups_and_plain_paths_are_both_read() {
    let code = "use crate::{engine::x, store::{a, b}, io};\nlet y = crate::algo::f();";
    let got: Vec<_> = imported(code).into_iter().collect();
    assert_eq!(got, ["algo", "engine", "io", "store"]);
}
