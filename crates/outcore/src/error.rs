//! Errors as values with context (path, line, what was expected).

use std::path::{Path, PathBuf};

/// Every fallible operation in outcore returns this error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operating-system I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The device holding `path` ran out of space.
    #[error("{}: disk full (no space left on device)", path.display())]
    DiskFull { path: PathBuf },
    /// A malformed input line.
    #[error("{}:{line}: {expected}; found `{text}`", path.display())]
    Parse {
        path: PathBuf,
        /// 1-based line number (or 1-based record number for binary inputs).
        line: u64,
        /// The offending text, shortened to at most 120 characters.
        text: String,
        /// What the parser expected to find.
        expected: String,
    },
    /// A bad argument or an input that cannot be used as asked.
    #[error("{0}")]
    Invalid(String),
    /// A store that is corrupt, half-written or of an unknown version.
    #[error("store {}: {msg}", path.display())]
    Store { path: PathBuf, msg: String },
    /// A store path with no store there: nothing at all, an edge list, a
    /// file inside a store; the message says what to pass instead.
    #[error("{msg}")]
    NoStore { path: PathBuf, msg: String },
    /// The memory budget cannot hold what the operation needs.
    #[error("memory budget: {0}")]
    Budget(String),
    /// The user interrupted the operation (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// Shorthand for `std::result::Result<T, outcore::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it happened on; ENOSPC becomes [`Error::DiskFull`].
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Error {
        let path = path.as_ref().to_path_buf();
        if source.raw_os_error() == Some(libc::ENOSPC) {
            Error::DiskFull { path }
        } else {
            Error::Io { path, source }
        }
    }

    /// A parse error; `text` is shortened so a binary blob does not flood the terminal.
    pub fn parse(
        path: impl AsRef<Path>,
        line: u64,
        text: &[u8],
        expected: impl Into<String>,
    ) -> Error {
        let mut s = String::from_utf8_lossy(text).into_owned();
        if s.chars().count() > 120 {
            s = s.chars().take(117).collect::<String>() + "...";
        }
        Error::Parse {
            path: path.as_ref().to_path_buf(),
            line,
            text: s.trim_end_matches(['\r', '\n']).to_string(),
            expected: expected.into(),
        }
    }

    /// A corrupt or unreadable store.
    pub fn store(path: impl AsRef<Path>, msg: impl Into<String>) -> Error {
        Error::Store {
            path: path.as_ref().to_path_buf(),
            msg: msg.into(),
        }
    }

    /// A damaged file of the store at `store`: names the file (`rel`, as
    /// the manifest lists it) and what is wrong with it, and says what to
    /// do. Every reader and command that finds damage reports it here, so
    /// the advice is the same everywhere.
    pub fn damaged(store: impl AsRef<Path>, rel: &str, why: impl std::fmt::Display) -> Error {
        let store = store.as_ref();
        Error::store(
            store,
            format!(
                "store file {rel} is damaged ({why}); run `outcore verify {}` for details \
                 and re-import the graph",
                store.display()
            ),
        )
    }

    /// Damage that `outcore verify` found (the details are here): what
    /// [`Error::damaged`] says, less the advice to verify.
    pub fn damage_verified(
        store: impl AsRef<Path>,
        rel: &str,
        why: impl std::fmt::Display,
    ) -> Error {
        Error::store(
            store,
            format!("store file {rel} is damaged ({why}); re-import the graph"),
        )
    }
}

/// Attaches a path to `std::io::Result`s.
pub trait IoContext<T> {
    /// Maps the error with [`Error::io`].
    fn at(self, path: impl AsRef<Path>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl AsRef<Path>) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
