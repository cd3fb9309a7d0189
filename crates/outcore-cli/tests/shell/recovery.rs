//! Damage and recovery: a killed build's temporary directory is removed by
//! the next build, and a corrupted vertex-order map fails a query rather
//! than answering for another vertex.

use crate::bin;

/// `kill -9` during a build leaves its hidden temporary directory; the next
/// build of the same store removes it (the process is gone) and succeeds.
#[test]
fn a_killed_build_is_cleaned_up_by_the_next() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("outcore-tmp"))
            .collect()
    };
    let mut child = bin()
        .current_dir(p)
        .args(["-q", "generate", "kron", "--scale", "20", "--out", "g.oc"])
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while leftovers().is_empty() && t.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SIGKILL: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !leftovers().is_empty(),
        "the killed build left its directory"
    );
    assert!(!p.join("g.oc").exists(), "no store from a killed build");
    let o = bin()
        .current_dir(p)
        .args(["generate", "kron", "--scale", "10", "--out", "g.oc"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no longer runs"));
    assert!(leftovers().is_empty(), "{:?}", leftovers());
}

/// A flipped bit in `order.bin` (the vertex order's map, read by queries
/// with positioned reads, not checksummed per read) is detected by the
/// query: an error naming the corruption, never another vertex's answer.
#[test]
fn a_corrupted_order_map_fails_a_query() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // A star around 5 and a path: skewed, so the store is ordered by degree.
    let mut text: String = (100..140).map(|i| format!("5 {i}\n")).collect();
    text += "1 2\n2 3\n3 4\n";
    std::fs::write(p.join("g.txt"), text).unwrap();
    let o = bin()
        .current_dir(p)
        .args([
            "-q",
            "import",
            "g.txt",
            "--undirected",
            "--order",
            "degree",
            "--out",
            "g.oc",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let khop = || {
        bin()
            .current_dir(p)
            .args([
                "-q", "query", "khop", "g.oc", "--source", "2", "--hops", "1",
            ])
            .output()
            .unwrap()
    };
    let good = khop();
    assert!(good.status.success());
    assert_eq!(String::from_utf8_lossy(&good.stdout), "1\n2\n3\n");
    // Flip one bit of the source's entry in order.bin.
    let store = outcore::store::Store::open(&p.join("g.oc")).unwrap();
    let v = outcore::store::IdLookup::open(&store)
        .unwrap()
        .dense_of_text("2")
        .unwrap()
        .unwrap();
    let f = p.join("g.oc/order.bin");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[4 * v as usize] ^= 1;
    std::fs::write(&f, bytes).unwrap();
    let bad = khop();
    assert!(
        !bad.status.success(),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("corrupted"));
}
