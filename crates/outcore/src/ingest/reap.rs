//! Scratch files deleted in the background.
//!
//! Unlinking a large file is not free: ext4 frees its extents in the call,
//! 8-10 ms for each of a kron-24 import's 45 MB bucket files. Done in the
//! drop of the sorter that wrote them, the 46 input buckets, the distinct
//! edges and the 71 adjacency buckets held the build's main thread 1.0-1.1 s
//! with both cores idle (`strace -T`). Here a reaper thread deletes them
//! while the next phase runs.
//!
//! Nothing is left behind: a build's scratch directory waits for every
//! queued deletion ([`wait_removed`]) before it is removed, and a file still
//! queued then is removed with its directory anyway.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Condvar, Mutex, OnceLock};

struct Reaper {
    queue: Sender<Vec<PathBuf>>,
    /// Files queued and not yet removed.
    pending: Mutex<u64>,
    idle: Condvar,
}

impl Reaper {
    /// Removes queued `paths` and counts them done.
    fn remove(&self, paths: &[PathBuf]) {
        #[cfg(test)]
        let _held = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        for p in paths {
            let _ = std::fs::remove_file(p);
        }
        let mut n = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        *n -= paths.len() as u64;
        if *n == 0 {
            self.idle.notify_all();
        }
    }
}

/// Held by a test, keeps the reaper from removing anything until it is
/// let go: a deletion arriving late, when a file of the same name may
/// exist again, is what such a test provokes.
#[cfg(test)]
pub static HOLD: Mutex<()> = Mutex::new(());

fn reaper() -> &'static Reaper {
    static REAPER: OnceLock<&'static Reaper> = OnceLock::new();
    REAPER.get_or_init(|| {
        let (tx, rx) = channel::<Vec<PathBuf>>();
        let r: &'static Reaper = Box::leak(Box::new(Reaper {
            queue: tx,
            pending: Mutex::new(0),
            idle: Condvar::new(),
        }));
        // Without the thread, the channel is closed and `remove_later`
        // removes the files itself.
        let _ = std::thread::Builder::new()
            .name("outcore-reaper".into())
            .spawn(move || {
                for paths in rx {
                    r.remove(&paths);
                }
            });
        r
    })
}

/// Removes `paths` on the reaper thread (in the caller when it cannot run).
/// Missing files are fine.
pub fn remove_later(paths: Vec<PathBuf>) {
    if paths.is_empty() {
        return;
    }
    let r = reaper();
    *r.pending.lock().unwrap_or_else(|e| e.into_inner()) += paths.len() as u64;
    if let Err(std::sync::mpsc::SendError(paths)) = r.queue.send(paths) {
        r.remove(&paths);
    }
}

/// Waits until every file queued so far (by any build of this process) is
/// removed.
pub fn wait_removed() {
    let r = reaper();
    let mut n = r.pending.lock().unwrap_or_else(|e| e.into_inner());
    while *n > 0 {
        n = r.idle.wait(n).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queued files are gone once `wait_removed` returns, missing ones are
    /// skipped, and other files stay.
    #[test]
    fn queued_files_are_removed_by_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..50).map(|i| dir.path().join(format!("f{i}"))).collect();
        for p in &paths {
            std::fs::write(p, vec![7u8; 1 << 16]).unwrap();
        }
        let keep = dir.path().join("keep");
        std::fs::write(&keep, b"x").unwrap();
        let mut queued = paths.clone();
        queued.push(dir.path().join("never-existed"));
        remove_later(queued);
        wait_removed();
        for p in &paths {
            assert!(!p.exists(), "{} left", p.display());
        }
        assert!(keep.exists());
    }
}
