//! Builds within the memory budget: a build in `--order bfs` and an import
//! of a csv of names stay within the budget plus 64 MiB of peak RSS.

use crate::bin;

/// A build in `--order bfs` stays within the budget plus 64 MiB too.
#[test]
fn a_build_in_bfs_order_stays_within_the_budget() {
    // 4.2 M vertices: the order's 20 bytes a vertex are 80 MiB of the 128;
    // uncharged, the stream engine takes them again (peak 229 MiB).
    let d = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(d.path())
        .args(["generate", "kron", "--scale", "22", "--order", "bfs"])
        .args(["--memory", "128MiB", "--out", "g.oc"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(peak_rss_mib(&err) <= 128.0 + 64.0, "{err}");
    // Its few fat levels stream the tiles, its many thin ones (a hub's
    // neighbourhood, then hundreds of small components) read lists.
    let counts: Vec<u64> = err
        .split("levels, ")
        .nth(1)
        .and_then(|s| s.split(" list by list").next())
        .unwrap_or_else(|| panic!("no level counts in: {err}"))
        .split(" over tiles and ")
        .map(|c| c.parse().unwrap())
        .collect();
    assert!(counts[0] > 0 && counts[1] > counts[0], "{err}");
}

/// The peak RSS a build reports on stderr, in MiB.
fn peak_rss_mib(err: &str) -> f64 {
    err.split("peak RSS ")
        .nth(1)
        .and_then(|s| s.split(" MiB").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in: {err}"))
}

/// Importing a csv of names at the smallest budget stays within the budget
/// plus 64 MiB of peak RSS (the process's high-water mark, as the build
/// reports it): the parse pipeline's blocks of names are sized for that.
#[test]
fn a_csv_of_names_imports_within_the_budget() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut text = String::from("source,target\n");
    for _ in 0..2_500_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text += &format!("user-{:x},\"acct {:x}\"\n", x >> 24, x & 0xFF_FFFF_FFFF);
    }
    std::fs::write(p.join("g.csv"), text).unwrap();
    let o = bin()
        .current_dir(p)
        .args([
            "-q", "import", "g.csv", "--header", "--memory", "128MiB", "--out", "g.oc",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let mib = peak_rss_mib(&err);
    assert!(
        mib > 0.0 && mib <= 128.0 + 64.0,
        "peak RSS {mib} MiB: {err}"
    );
}
