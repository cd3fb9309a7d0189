//! LDBC Graphalytics inputs: `NAME.v` (vertex ids) and `NAME.e` (edges).
//!
//! The `.e` file is a whitespace edge list (parsed like SNAP), the `.v` file
//! one id per line; both may be gzipped (`NAME.e.gz`).

use std::io;
use std::path::{Path, PathBuf};

use super::input::{check, plain_name, InputFile};
use crate::error::{Error, Result};

/// The checked vertex and edge files of LDBC inputs, each in the given order.
#[derive(Debug, Default)]
pub(crate) struct LdbcFiles {
    pub vertices: Vec<InputFile>,
    pub edges: Vec<InputFile>,
}

/// `base` with `suffix` appended to its file name.
fn with_suffix(base: &Path, suffix: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The first existing of `BASE.ext` and `BASE.ext.gz`.
fn beside(base: &Path, ext: &str) -> Option<PathBuf> {
    [format!(".{ext}"), format!(".{ext}.gz")]
        .iter()
        .map(|s| with_suffix(base, s))
        .find(|p| p.exists())
}

/// Sorts `inputs` into vertex and edge files: `*.v`, `*.e` (optionally `.gz`),
/// or a basename `NAME` standing for `NAME.v` + `NAME.e`.
pub(crate) fn resolve(inputs: &[PathBuf]) -> Result<LdbcFiles> {
    let mut out = LdbcFiles::default();
    for input in inputs {
        let name = plain_name(input);
        if name.ends_with(".v") {
            out.vertices.push(check(input)?);
        } else if name.ends_with(".e") {
            out.edges.push(check(input)?);
        } else if let Some(e) = beside(input, "e") {
            let Some(v) = beside(input, "v") else {
                let v = with_suffix(input, ".v");
                return Err(Error::io(
                    &v,
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!(
                            "no such file (LDBC input `{}` needs NAME.v beside NAME.e; \
                             give the .e file alone to read edges only)",
                            input.display()
                        ),
                    ),
                ));
            };
            out.vertices.push(check(&v)?);
            out.edges.push(check(&e)?);
        } else if input.is_file() {
            out.edges.push(check(input)?);
        } else {
            return Err(Error::io(
                input,
                io::Error::new(
                    io::ErrorKind::NotFound,
                    "no such file, and no NAME.e / NAME.v beside it (LDBC input)",
                ),
            ));
        }
    }
    if out.edges.is_empty() {
        return Err(Error::Invalid(format!(
            "LDBC input needs an edge file (NAME.e); got only vertex files: {}",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(out)
}
