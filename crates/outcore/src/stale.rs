//! Leftovers of killed processes: the hidden directories and files a build
//! (`.NAME.outcore-tmp-PID`, its `.scratch` and `.old`; `--order bfs`: its
//! first store, `.NAME.outcore-first-PID`), an external run
//! (`.NAME.outcore-external-PID`), a spooled standard input
//! (`.NAME.outcore-stdin-PID`) or record batches from Python
//! (`.NAME.outcore-stream-PID`) leaves beside its target when it is killed
//! with no chance to clean up (`kill -9`, a power cut). The next command on
//! the same target removes those whose process no longer exists (a note on
//! stderr says what), so repeated interrupted imports do not fill the disk.
//!
//! A store replaced by an update or `import --force` waits under the
//! writer's name plus `.old-K` while readers still pin it
//! ([`crate::store`]'s pins: a shared `flock` on the directory); it goes,
//! whichever process left it, once [`remove_unpinned`] can lock it
//! exclusively. No directory a reader pins is removed.

use crate::error::{IoContext, Result};
use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;

/// `flock(file, op)`, retried when a signal interrupts it.
pub(crate) fn flock(file: &File, op: i32) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor `file` owns.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Removes the directory tree at `path` unless a reader pins it (holds a
/// shared `flock` on it): true when it is gone (or was not there), false
/// when it is pinned and stays. The manifest goes first, so a kill
/// mid-removal leaves no directory that looks like a store.
pub fn remove_unpinned(path: &Path) -> Result<bool> {
    let dir = match File::open(path) {
        Ok(d) => d,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e).at(path),
    };
    match flock(&dir, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
        Err(e) => return Err(e).at(path),
    }
    // A store's manifest (`store::manifest::MANIFEST_FILE`, a floor above).
    let m = path.join("manifest.json");
    match std::fs::remove_file(&m) {
        Err(e) if e.kind() != ErrorKind::NotFound => return Err(e).at(&m),
        _ => {}
    }
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(e).at(path),
        _ => Ok(true),
    }
}

/// True when process `pid` exists (signal 0 reaches it, or it belongs to
/// another user).
fn alive(pid: u32) -> bool {
    if pid == 0 || pid > i32::MAX as u32 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes the entries of `dir` named `.{name}.{kind}-PID[...]` whose PID is
/// not a live process, and replaced stores (`-PID.old...`) of any process;
/// directories a reader pins stay ([`remove_unpinned`]). Returns how many
/// went.
pub fn clean(dir: &Path, name: &str, kind: &str) -> usize {
    let prefix = format!(".{name}.{kind}-");
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(pid) = digits.parse::<u32>() else {
            continue;
        };
        // A replaced store: its writer is done with it, alive or not.
        let replaced = rest[digits.len()..].starts_with(".old");
        if !replaced && (pid == std::process::id() || alive(pid)) {
            continue;
        }
        let path = e.path();
        let gone = match e.file_type() {
            Ok(t) if t.is_dir() => remove_unpinned(&path).unwrap_or(false),
            _ => std::fs::remove_file(&path).is_ok(),
        };
        if gone {
            removed += 1;
            // Replaced stores go as a matter of course, without a note.
            if !replaced && !crate::progress::quiet() {
                eprintln!(
                    "note: removed {}, left by process {pid}, which no longer runs",
                    path.display()
                );
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replaced store goes whoever left it, but not while a reader pins
    /// it (a shared lock, as `Store::open` holds), and then with the next
    /// clean.
    #[test]
    fn replaced_stores_go_once_no_reader_pins_them() {
        let d = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let (read, free) = (
            d.path().join(format!(".g.oc.outcore-tmp-{me}.old-0")),
            d.path().join(format!(".g.oc.outcore-tmp-{me}.old-1")),
        );
        for t in [&read, &free] {
            std::fs::create_dir_all(t.join("tiles")).unwrap();
            std::fs::write(t.join("manifest.json"), "{}").unwrap();
        }
        let pin = File::open(&read).unwrap();
        flock(&pin, libc::LOCK_SH).unwrap();
        assert_eq!(clean(d.path(), "g.oc", "outcore-tmp"), 1);
        assert!(read.join("manifest.json").exists() && !free.exists());
        drop(pin);
        assert_eq!(clean(d.path(), "g.oc", "outcore-tmp"), 1);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn only_the_dead_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        let me = std::process::id();
        // A pid above any pid_max: no such process.
        let dead = 2_147_483_000u32;
        for n in [
            format!(".g.oc.outcore-tmp-{dead}"),
            format!(".g.oc.outcore-tmp-{dead}.scratch"),
            format!(".g.oc.outcore-tmp-{me}"),
            ".g.oc.outcore-tmp-1".to_string(),
            format!(".h.oc.outcore-tmp-{dead}"),
            "g.oc".to_string(),
        ] {
            std::fs::create_dir(p.join(n)).unwrap();
        }
        std::fs::write(p.join(format!(".g.oc.outcore-tmp-{dead}.old")), "x").unwrap();
        assert_eq!(clean(p, "g.oc", "outcore-tmp"), 3);
        let mut left: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        // Ours, pid 1 (alive: init), another target's, the target itself.
        assert_eq!(
            left,
            [
                ".g.oc.outcore-tmp-1".to_string(),
                format!(".g.oc.outcore-tmp-{me}"),
                format!(".h.oc.outcore-tmp-{dead}"),
                "g.oc".to_string()
            ]
        );
    }
}
