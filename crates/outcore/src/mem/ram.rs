//! How much memory there is: the machine's RAM, and the cgroup limit where
//! a container or a systemd slice sets a lower one. Budgets are checked
//! against it ([`super::budget::check_limit`]).

use std::path::Path;

/// Physical memory of the machine in bytes (from `sysconf`).
pub fn physical_memory_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    // SAFETY: as above.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if pages <= 0 || page <= 0 {
        return 4 << 30;
    }
    pages as u64 * page as u64
}

/// The memory this process may use: physical memory, or less where its
/// cgroup (a container, a systemd slice) sets a lower limit, which the
/// kernel enforces by killing the process. Budgets are checked against
/// this and the default budget is half of it.
pub fn usable_memory_bytes() -> u64 {
    usable_memory().0
}

/// [`usable_memory_bytes`], and whether the cgroup's limit decided it.
pub(super) fn usable_memory() -> (u64, bool) {
    let ram = physical_memory_bytes();
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    match std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|c| cgroup_limit(&c, read))
    {
        Some(limit) if limit < ram => (limit, true),
        _ => (ram, false),
    }
}

/// The memory limit of the cgroup named in `proc_cgroup` (the text of
/// `/proc/self/cgroup`), read through `read` from cgroup v2's
/// `memory.max` or v1's `memory.limit_in_bytes`: the process's own group
/// first, then the root of the mount (inside a container the group's path
/// is often the mount's root). `None` where there is no limit.
fn cgroup_limit(proc_cgroup: &str, read: impl Fn(&Path) -> Option<String>) -> Option<u64> {
    let root = Path::new("/sys/fs/cgroup");
    let mut files = Vec::new();
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            files.push(root.join(path).join("memory.max"));
            files.push(root.join("memory.max"));
        } else if controllers.split(',').any(|c| c == "memory") {
            let v1 = root.join("memory");
            files.push(v1.join(path).join("memory.limit_in_bytes"));
            files.push(v1.join("memory.limit_in_bytes"));
        }
    }
    files
        .iter()
        .filter_map(|f| read(f))
        // "max" (v2) and a page-rounded i64::MAX (v1) mean no limit.
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .filter(|&v| v < 1 << 62)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cgroup v2 and v1 limits are read from the process's group, then the
    /// mount's root; "max" and v1's huge value mean no limit.
    #[test]
    fn cgroup_limits_are_read_for_both_versions() {
        let files = |pairs: &'static [(&'static str, &'static str)]| {
            move |p: &Path| {
                let p = p.to_str().unwrap();
                pairs
                    .iter()
                    .find(|(f, _)| *f == p)
                    .map(|(_, v)| v.to_string())
            }
        };
        let v2 = files(&[("/sys/fs/cgroup/a/b/memory.max", "1073741824\n")]);
        assert_eq!(cgroup_limit("0::/a/b\n", v2), Some(1 << 30));
        let v2_root = files(&[("/sys/fs/cgroup/memory.max", "2147483648\n")]);
        assert_eq!(cgroup_limit("0::/a/b\n", v2_root), Some(2 << 30));
        let unlimited = files(&[("/sys/fs/cgroup/a/memory.max", "max\n")]);
        assert_eq!(cgroup_limit("0::/a\n", unlimited), None);
        let v1 = files(&[
            (
                "/sys/fs/cgroup/memory/x/memory.limit_in_bytes",
                "536870912\n",
            ),
            (
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
        ]);
        let proc = "5:devices:/x\n4:memory:/x\n0::/\n";
        assert_eq!(cgroup_limit(proc, v1), Some(512 << 20));
        let v1_free = files(&[(
            "/sys/fs/cgroup/memory/x/memory.limit_in_bytes",
            "9223372036854771712",
        )]);
        assert_eq!(cgroup_limit(proc, v1_free), None);
        assert!(usable_memory_bytes() <= physical_memory_bytes());
    }
}
