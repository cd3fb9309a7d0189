//! Pins: an open store holds its directory until it closes (DESIGN.md,
//! "Pins").
//!
//! An update or `import --force` replaces a store by exchanging a new
//! directory for the old one ([`super::file::StoreDir::commit`]). A reader
//! of the old one (a run in another process, a Python `Store`) keeps
//! reading it: [`Pin`] holds the directory open under a shared `flock`,
//! and every file the store opens later is opened through the descriptor
//! (`/proc/self/fd/N/REL`, [`Pin::root`]), so it resolves in the directory
//! that was opened wherever that has moved since. The writer moves the old
//! directory to a trash name and removes it only when it can lock it
//! exclusively, that is when no reader pins it
//! ([`crate::stale::remove_unpinned`]); else the next writer on the same
//! target removes it ([`crate::stale::clean`]).

use crate::error::{IoContext, Result};
use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A store directory held open with a shared lock.
#[derive(Debug)]
pub(crate) struct Pin {
    /// Held for its descriptor (named by `root`) and its lock.
    _dir: File,
    root: PathBuf,
}

/// Whether `/proc/self/fd` names the process's descriptors (Linux with
/// procfs mounted); without it files are opened by the store's path, and
/// the lock still keeps writers from removing the directory.
fn proc_fds() -> bool {
    static PROC: OnceLock<bool> = OnceLock::new();
    *PROC.get_or_init(|| Path::new("/proc/self/fd").is_dir())
}

impl Pin {
    /// Opens and locks (shared) the directory at `path`: the one that is
    /// there once the lock is held (a writer may exchange it meanwhile).
    pub(crate) fn open(path: &Path) -> Result<Pin> {
        let mut tries = 0;
        loop {
            let dir = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY)
                .open(path)
                .at(path)?;
            crate::stale::flock(&dir, libc::LOCK_SH).at(path)?;
            let held = dir.metadata().at(path)?;
            match std::fs::metadata(path) {
                Ok(now) if (now.dev(), now.ino()) == (held.dev(), held.ino()) => {
                    let root = match proc_fds() {
                        true => PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd())),
                        false => path.to_path_buf(),
                    };
                    crate::error::name_root(&root, path);
                    return Ok(Pin { _dir: dir, root });
                }
                // Replaced (or, without an atomic exchange, briefly absent)
                // between the open and the lock: open what is there now.
                Ok(_) | Err(_) if tries < 1000 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Ok(_) => {
                    let e = std::io::Error::other("the store kept being replaced while it opened");
                    return Err(e).at(path);
                }
                Err(e) => return Err(e).at(path),
            }
        }
    }

    /// The directory's path for opening its files: `/proc/self/fd/N`.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        // Before the descriptor closes (and its number can be reused).
        super::checked::forget_files(&self.root);
        crate::error::forget_root(&self.root);
    }
}
