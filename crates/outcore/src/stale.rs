//! Leftovers of killed processes: the hidden directories and files a build
//! (`.NAME.outcore-tmp-PID`, its `.scratch` and `.old`; `--order bfs`: its
//! first store, `.NAME.outcore-first-PID`), an external run
//! (`.NAME.outcore-external-PID`), a spooled standard input
//! (`.NAME.outcore-stdin-PID`) or record batches from Python
//! (`.NAME.outcore-stream-PID`) leaves beside its target when it is killed
//! with no chance to clean up (`kill -9`, a power cut). The next command on
//! the same target removes those whose process no longer exists (a note on
//! stderr says what), so repeated interrupted imports do not fill the disk.

use std::path::Path;

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
/// not a live process; returns how many went.
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
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let path = e.path();
        let gone = match e.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if gone.is_ok() {
            removed += 1;
            if !crate::progress::quiet() {
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
