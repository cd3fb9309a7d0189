//! Where a store may be built: checked before any work, so an import never
//! runs for minutes to fail at the end or replace what it must not.

use crate::error::{Error, Result};
use crate::outfile::{check_parent, same_file};
use std::path::{Path, PathBuf};

/// Checks, before any work, that a store can be built at `dest` from
/// `inputs`: its directory exists and is writable; an existing `dest` is
/// refused unless `force`, and even then unless it is a store (a directory
/// with an outcore manifest, or an empty one): `--force` never replaces a
/// plain file, a directory of other files, an input, or a store holding an
/// input.
pub fn check_store_dest(dest: &Path, force: bool, inputs: &[PathBuf]) -> Result<()> {
    let fail = |why: String| Err(Error::Invalid(format!("{}: {why}", dest.display())));
    for input in inputs.iter().filter(|i| i.as_os_str() != "-") {
        if same_file(input, dest) {
            return fail(format!(
                "is the input {}; a store cannot replace its input: choose another --out",
                input.display()
            ));
        }
        let inside = match (input.canonicalize(), dest.canonicalize()) {
            (Ok(i), Ok(d)) => i.starts_with(d),
            _ => false,
        };
        if inside {
            return fail(format!(
                "holds the input {}, which replacing it would delete: choose another --out",
                input.display()
            ));
        }
    }
    if dest.file_name().is_none() {
        return fail("not a valid store path".into());
    }
    check_parent(dest)?;
    let Ok(meta) = std::fs::symlink_metadata(dest) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return fail(
            "is a file, not a store; --force replaces only a store: remove it or choose another --out"
                .into(),
        );
    }
    let empty = std::fs::read_dir(dest).is_ok_and(|mut d| d.next().is_none());
    let ours = [
        super::manifest::MANIFEST_FILE,
        super::partition::PARTITION_FILE,
    ];
    if !empty && !ours.iter().any(|f| dest.join(f).exists()) {
        return fail(
            "exists and is not an outcore store; refusing to replace it even with --force".into(),
        );
    }
    match force {
        true => Ok(()),
        false => fail("already exists; pass --force to replace it".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_destinations_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        let err = |r: Result<()>| r.unwrap_err().to_string();
        std::fs::write(p("e.txt"), "1 2\n").unwrap();
        let inputs = [p("e.txt")];
        assert!(check_store_dest(&p("g.oc"), false, &inputs).is_ok());
        assert!(err(check_store_dest(&p("e.txt"), true, &inputs)).contains("is the input"));
        assert!(err(check_store_dest(&p("e.txt"), true, &[])).contains("not a store"));
        std::fs::create_dir(p("g.oc")).unwrap();
        assert!(
            check_store_dest(&p("g.oc"), true, &[]).is_ok(),
            "empty: fine"
        );
        assert!(err(check_store_dest(&p("g.oc"), false, &[])).contains("pass --force"));
        std::fs::write(p("g.oc/notes"), "x").unwrap();
        assert!(err(check_store_dest(&p("g.oc"), true, &[])).contains("not an outcore store"));
        std::fs::write(p("g.oc/manifest.json"), "{}").unwrap();
        assert!(check_store_dest(&p("g.oc"), true, &[]).is_ok());
        let held = [p("g.oc/notes")];
        assert!(err(check_store_dest(&p("g.oc"), true, &held)).contains("holds the input"));
    }
}
