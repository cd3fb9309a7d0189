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
        let path = shown(path.as_ref());
        if source.raw_os_error() == Some(libc::ENOSPC) {
            Error::DiskFull { path }
        } else {
            Error::Io { path, source }
        }
    }

    /// A parse error; `text` is shortened so a binary blob does not flood
    /// the terminal, and escaped ([`escape_text`]).
    pub fn parse(
        path: impl AsRef<Path>,
        line: u64,
        text: &[u8],
        expected: impl Into<String>,
    ) -> Error {
        let mut end = text.len();
        while end > 0 && matches!(text[end - 1], b'\r' | b'\n') {
            end -= 1;
        }
        Error::Parse {
            path: shown(path.as_ref()),
            line,
            text: escape_text(&text[..end], 120),
            expected: expected.into(),
        }
    }

    /// A corrupt or unreadable store.
    pub fn store(path: impl AsRef<Path>, msg: impl Into<String>) -> Error {
        Error::Store {
            path: shown(path.as_ref()),
            msg: msg.into(),
        }
    }

    /// A damaged file of the store at `store`: names the file (`rel`, as
    /// the manifest lists it) and what is wrong with it, and says what to
    /// do. Every reader and command that finds damage reports it here, so
    /// the advice is the same everywhere.
    pub fn damaged(store: impl AsRef<Path>, rel: &str, why: impl std::fmt::Display) -> Error {
        let store = shown(store.as_ref());
        Error::store(
            &store,
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

/// Store directories pinned open ([`crate::store::Store::open`]) are read
/// through `/proc/self/fd/N` (their `root`), which is no name to show a
/// user: each root with the path it was opened by, while it is open.
static NAMES: std::sync::Mutex<Vec<(PathBuf, PathBuf)>> = std::sync::Mutex::new(Vec::new());

/// Records that paths under `root` are to be shown under `name`.
pub(crate) fn name_root(root: &Path, name: &Path) {
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    names.retain(|(r, _)| r != root);
    names.push((root.to_path_buf(), name.to_path_buf()));
}

/// Forgets `root`'s name (its descriptor is being closed).
pub(crate) fn forget_root(root: &Path) {
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    names.retain(|(r, _)| r != root);
}

/// `path` as a user knows it: under a pinned store's name, not its root.
pub(crate) fn shown(path: &Path) -> PathBuf {
    if path.starts_with("/proc/self/fd") {
        let names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
        for (root, name) in names.iter() {
            if let Ok(rest) = path.strip_prefix(root) {
                return match rest.as_os_str().is_empty() {
                    true => name.clone(),
                    false => name.join(rest),
                };
            }
        }
    }
    path.to_path_buf()
}

/// `bytes` as printable text of at most `max` characters (`...` ending a
/// shortened one): UTF-8 as is, but control characters other than tab
/// escaped (`\0`, `\r`, `\x1b`) and bytes that are not UTF-8 shown as
/// `\xNN`, so a binary file's bytes never reach the terminal raw.
pub fn escape_text(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    // Characters written, and the length of `out` while they leave room
    // for the `...`.
    let (mut chars, mut cut) = (0, 0);
    let mut push = |piece: &str, out: &mut String| {
        chars += piece.chars().count();
        out.push_str(piece);
        if chars + 3 <= max {
            cut = out.len();
        }
        chars <= max
    };
    'all: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let piece = match c {
                '\0' => "\\0".to_string(),
                '\r' => "\\r".to_string(),
                '\n' => "\\n".to_string(),
                c if c != '\t' && (c as u32) < 0x80 && c.is_control() => {
                    format!("\\x{:02x}", c as u32)
                }
                c if c != '\t' && c.is_control() => c.escape_unicode().to_string(),
                c => c.to_string(),
            };
            if !push(&piece, &mut out) {
                break 'all;
            }
        }
        for b in chunk.invalid() {
            if !push(&format!("\\x{b:02x}"), &mut out) {
                break 'all;
            }
        }
    }
    if chars > max {
        out.truncate(cut);
        out.push_str("...");
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_shortened() {
        assert_eq!(escape_text(b"1\t2 \xc3\xa9", 120), "1\t2 \u{e9}");
        assert_eq!(
            escape_text(b"a\x00b\x1b[1m\r\xff\xfe", 120),
            r"a\0b\x1b[1m\r\xff\xfe"
        );
        assert_eq!(escape_text("\u{85}".as_bytes(), 120), r"\u{85}");
        let long = escape_text(&[b'x'; 200], 120);
        assert_eq!(long, "x".repeat(117) + "...");
        // An escape is never cut.
        let long = escape_text(&[0u8; 100], 120);
        assert_eq!(long, r"\0".repeat(58) + "...");
        assert_eq!(escape_text(&[b'y'; 120], 120), "y".repeat(120));
        let e = Error::parse("f.txt", 3, b"\x00\x01 2\r\n", "expected text");
        assert_eq!(e.to_string(), r"f.txt:3: expected text; found `\0\x01 2`");
    }
}
