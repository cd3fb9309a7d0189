//! A build's scratch directory, owned by the build: it names every file,
//! deletes the files released to it on a thread of its own, and is gone,
//! with whatever is left in it, when the build drops it.
//!
//! Unlinking a large file is not free: ext4 frees its extents in the call,
//! 8-10 ms for each of a kron-24 import's 45 MB bucket files. Done in the
//! drop of the sorter that wrote them, the 46 input buckets, the distinct
//! edges and the 71 adjacency buckets held the build's main thread 1.0-1.1 s
//! with both cores idle (`strace -T`). Released here, they are deleted
//! while the next phase runs.
//!
//! Nothing can race: no name is given twice ([`Scratch::path`]), so a
//! deletion arriving late never meets a newer file, and no deletion
//! outlives the scratch (its drop waits for the thread).

use crate::error::{IoContext, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A scratch directory; see the module docs.
pub struct Scratch {
    files: ScratchFiles,
    deleter: Option<JoinHandle<()>>,
}

/// What the sorters keep of a [`Scratch`]: where to name their files and
/// where to release them.
#[derive(Clone)]
pub struct ScratchFiles(Arc<Shared>);

struct Shared {
    dir: PathBuf,
    /// Names given so far.
    named: AtomicU64,
    /// To the deleter thread; `None` once the scratch is dropped (or when
    /// the thread could not start): releases delete in the caller.
    queue: Mutex<Option<Sender<Vec<PathBuf>>>>,
    /// Files released and not yet deleted.
    pending: Mutex<u64>,
    idle: Condvar,
}

impl Scratch {
    /// The scratch directory `dir` (made, with its parents, if missing).
    pub fn create(dir: PathBuf) -> Result<Scratch> {
        std::fs::create_dir_all(&dir).at(&dir)?;
        Ok(Self::start(dir))
    }

    /// A new directory `.outcore-STEM-PID-N` in `base`, of the first `N`
    /// not taken.
    pub fn within(base: &Path, stem: &str) -> Result<Scratch> {
        let pid = std::process::id();
        for n in 0u32.. {
            let dir = base.join(format!(".outcore-{stem}-{pid}-{n}"));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Self::start(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(crate::error::Error::io(&dir, e)),
            }
        }
        unreachable!("a free name among 2^32")
    }

    fn start(dir: PathBuf) -> Scratch {
        let (tx, rx) = channel::<Vec<PathBuf>>();
        let shared = Arc::new(Shared {
            dir,
            named: AtomicU64::new(0),
            queue: Mutex::new(Some(tx)),
            pending: Mutex::new(0),
            idle: Condvar::new(),
        });
        let s = shared.clone();
        let deleter = std::thread::Builder::new()
            .name("outcore-scratch".into())
            .spawn(move || {
                for paths in rx {
                    s.delete(&paths);
                }
            });
        let deleter = match deleter {
            Ok(h) => Some(h),
            // Without the thread, releases delete in the caller.
            Err(_) => {
                *lock(&shared.queue) = None;
                None
            }
        };
        Scratch {
            files: ScratchFiles(shared),
            deleter,
        }
    }

    /// What sorters keep to name and release their files.
    pub fn files(&self) -> &ScratchFiles {
        &self.files
    }

    /// Waits until every file released so far is deleted.
    pub fn drain(&self) {
        let s = &self.files.0;
        let mut n = lock(&s.pending);
        while *n > 0 {
            n = s.idle.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = ScratchFiles;

    fn deref(&self) -> &ScratchFiles {
        &self.files
    }
}

impl ScratchFiles {
    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// A file name in the directory, `STEM-N.tmp`, never given before.
    pub fn path(&self, stem: &str) -> PathBuf {
        let n = self.0.named.fetch_add(1, Relaxed);
        self.0.dir.join(format!("{stem}-{n}.tmp"))
    }

    /// Deletes `paths` on the deleter thread (in the caller once the
    /// scratch is gone). Missing files are fine.
    pub fn release(&self, paths: Vec<PathBuf>) {
        if paths.is_empty() {
            return;
        }
        let s = &self.0;
        *lock(&s.pending) += paths.len() as u64;
        let queue = lock(&s.queue);
        let paths = match queue.as_ref() {
            Some(q) => match q.send(paths) {
                Ok(()) => return,
                Err(std::sync::mpsc::SendError(paths)) => paths,
            },
            None => paths,
        };
        drop(queue);
        s.delete(&paths);
    }
}

impl Shared {
    /// Deletes released `paths` and counts them done.
    fn delete(&self, paths: &[PathBuf]) {
        for p in paths {
            let _ = std::fs::remove_file(p);
        }
        let mut n = lock(&self.pending);
        *n -= paths.len() as u64;
        if *n == 0 {
            self.idle.notify_all();
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Closing the queue ends the thread once it has deleted what was
        // released; later releases delete in the caller.
        lock(&self.files.0.queue).take();
        if let Some(h) = self.deleter.take() {
            let _ = h.join();
        }
        let _ = std::fs::remove_dir_all(&self.files.0.dir);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are never given twice, and two scratches in one base take
    /// two directories.
    #[test]
    fn names_are_never_given_twice() {
        let base = tempfile::tempdir().unwrap();
        let s = Scratch::within(base.path(), "t").unwrap();
        let mut names: Vec<PathBuf> = (0..200).map(|i| s.path(["a", "b"][i % 2])).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 200, "a name given twice");
        let other = Scratch::within(base.path(), "t").unwrap();
        assert_ne!(s.dir(), other.dir());
    }

    /// Files released are deleted (missing ones skipped) by the time
    /// `drain` returns, others stay; those still pending when the scratch
    /// is dropped, released from another thread, are gone with its
    /// directory.
    #[test]
    fn releases_end_with_the_scratch() {
        let base = tempfile::tempdir().unwrap();
        let s = Scratch::within(base.path(), "t").unwrap();
        let dir = s.dir().to_path_buf();
        let paths: Vec<PathBuf> = (0..200).map(|_| s.path("f")).collect();
        for p in &paths {
            std::fs::write(p, vec![7u8; 1 << 12]).unwrap();
        }
        let mut first: Vec<PathBuf> = paths[..100].to_vec();
        first.push(s.path("never-written"));
        s.release(first);
        s.drain();
        assert!(paths[..100].iter().all(|p| !p.exists()));
        assert!(paths[100..].iter().all(|p| p.exists()));
        let files = s.files().clone();
        let late = paths[100..].to_vec();
        let t = std::thread::spawn(move || {
            for p in late {
                files.release(vec![p]);
            }
        });
        drop(s);
        t.join().unwrap();
        assert!(paths.iter().all(|p| !p.exists()), "a released file left");
        assert!(!dir.exists(), "{} left", dir.display());
    }
}
