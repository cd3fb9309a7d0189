//! What a store path names when it is not a store, for the error that
//! says what to pass instead (issue 49): every command opens stores through
//! [`super::Manifest::read`], which calls [`not_a_store`].

use super::manifest::MANIFEST_FILE;
use crate::error::Error;
use std::path::{Path, PathBuf};

/// The error for a store path that is not a directory, saying what to do:
/// nothing there; a file of a store (pass its directory); any other file,
/// taken for an edge list (import it first, with the command).
pub(crate) fn not_a_store(path: &Path) -> Error {
    let shown = path.display();
    let msg = if std::fs::symlink_metadata(path).is_err() {
        format!("no such store: {shown}")
    } else if let Some(store) = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty() && p.join(MANIFEST_FILE).is_file())
    {
        format!(
            "{shown} is a file of the store {}; pass the store's directory: {}",
            store.display(),
            store.display()
        )
    } else {
        format!(
            "{shown} is a file, not a store; import it first: outcore import {} --out {}",
            shell_word(&path.to_string_lossy()),
            shell_word(&store_name(path).to_string_lossy())
        )
    };
    Error::NoStore {
        path: path.to_path_buf(),
        msg,
    }
}

/// Where an import of the edge list `path` might put its store: beside it,
/// its name without `.gz` and its extension, plus `.oc`.
fn store_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = name.strip_suffix(".gz").unwrap_or(&name);
    let stem = match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    };
    let candidate = path.with_file_name(format!("{stem}.oc"));
    match candidate == path {
        true => path.with_file_name(format!("{name}.oc")),
        false => candidate,
    }
}

/// `text` as one shell word: as is when plain, else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c);
    match !text.is_empty() && text.chars().all(plain) {
        true => text.to_string(),
        false => format!("'{}'", text.replace('\'', "'\\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_store_names_and_shell_words() {
        let name = |p: &str| store_name(Path::new(p)).to_string_lossy().into_owned();
        assert_eq!(name("edges.txt"), "edges.oc");
        assert_eq!(name("d/edges.csv.gz"), "d/edges.oc");
        assert_eq!(name("edges"), "edges.oc");
        assert_eq!(name("g.oc"), "g.oc.oc");
        assert_eq!(name(".hidden"), ".hidden.oc");
        assert_eq!(shell_word("a/b-c.txt"), "a/b-c.txt");
        assert_eq!(shell_word("my edges.txt"), "'my edges.txt'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
