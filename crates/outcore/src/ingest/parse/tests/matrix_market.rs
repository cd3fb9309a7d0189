//! The Matrix Market parser: general and symmetric matrices (pattern,
//! integer, real), isolated vertices delivered in batches, and rejected
//! banners, size lines and entries.

use std::slice::from_ref;

use super::*;

const MTX_GENERAL: &[u8] = b"%%MatrixMarket matrix coordinate real general\n% comment\n%\n  \n4 5 3\n1 2 0.5\n3 1 -2\r\n4 5 1e2\n";

#[test]
fn mtx_general() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "m.mtx", MTX_GENERAL);
    let (vs, es) = read(from_ref(&p), InputFormat::Mtx, &weighted()).unwrap();
    assert_eq!(vs, vec![1, 2, 3, 4, 5]);
    assert_eq!(es, vec![ew(1, 2, 0.5), ew(3, 1, -2.0), ew(4, 5, 100.0)]);
    let (_, es) = read(&[p], InputFormat::Mtx, &opts()).unwrap();
    assert_eq!(es, vec![e(1, 2), e(3, 1), e(4, 5)]);
}

#[test]
fn mtx_symmetric_pattern() {
    let d = tempfile::tempdir().unwrap();
    let text = b"%%matrixmarket MATRIX Coordinate PATTERN Symmetric\n3 3 3\n2 1\n3 3\n3 1\n";
    let p = write(d.path(), "s.mtx.gz", &gz(text));
    let undirected = edges(from_ref(&p), InputFormat::Mtx, &opts());
    assert_eq!(undirected, vec![e(2, 1), e(3, 3), e(3, 1)]);
    let directed = ParseOptions {
        directed: true,
        ..opts()
    };
    assert_eq!(
        edges(from_ref(&p), InputFormat::Mtx, &directed),
        vec![e(2, 1), e(1, 2), e(3, 3), e(3, 1), e(1, 3)]
    );
    let err = open(&[p], InputFormat::Mtx, &weighted()).err().unwrap();
    assert!(
        matches!(err, Error::Invalid(_)) && err.to_string().contains("pattern"),
        "{err}"
    );
}

#[test]
fn mtx_symmetric_integer_weighted_directed() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "i.mtx",
        b"%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 7\n1 1 3\n",
    );
    let o = ParseOptions {
        weighted: true,
        directed: true,
        ..opts()
    };
    assert_eq!(
        edges(&[p], InputFormat::Mtx, &o),
        vec![ew(2, 1, 7.0), ew(1, 2, 7.0), ew(1, 1, 3.0)]
    );
}

#[test]
fn mtx_isolated_vertices_in_batches() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "big.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n100000 150000 1\n1 150000\n",
    );
    let mut src = open(&[p], InputFormat::Mtx, &opts()).unwrap();
    let mut batches = 0;
    let mut next = 1u64;
    src.for_each_vertex_batch(&mut |b| {
        batches += 1;
        assert!(b.len() <= mtx::VERTEX_BATCH);
        for &v in b {
            assert_eq!(v, next);
            next += 1;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(next, 150_001);
    assert!(batches >= 3);
    let mut es = Vec::new();
    src.for_each_edge_batch(&mut |b| {
        es.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    assert_eq!(es, vec![e(1, 150_000)]);
}

#[test]
fn mtx_rejected_headers() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], &str)] = &[
        (
            b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "array",
        ),
        (
            b"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
            "complex",
        ),
        (
            b"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
            "hermitian",
        ),
        (
            b"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
            "skew-symmetric",
        ),
        (b"1 2\n", "%%MatrixMarket"),
        (b"", "%%MatrixMarket"),
        (
            b"%%MatrixMarket matrix coordinate real general\n% only comments\n",
            "size line",
        ),
        (
            b"%%MatrixMarket matrix coordinate real general\n3 3\n",
            "size line",
        ),
        (
            b"%%MatrixMarket matrix coordinate real general\n3 3 18446744073709551616\n",
            "too large",
        ),
        // Found by fuzzing: a size beyond 2^32 made the build list
        // hundreds of trillions of isolated vertices.
        (
            b"%%MatrixMarket matrix coordinate real general\n3 444444444444444 1\n1 2 1\n",
            "at most 2^32 - 1 vertices",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let p = write(d.path(), &format!("h{i}.mtx"), text);
        let err = open(&[p], InputFormat::Mtx, &opts()).err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains(needle) && msg.contains(&format!("h{i}.mtx")),
            "case {i}: {msg}"
        );
    }
}

#[test]
fn mtx_entry_errors() {
    let d = tempfile::tempdir().unwrap();
    let head = "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n";
    let p = write(d.path(), "few.mtx", format!("{head}1 2 1\n").as_bytes());
    let (_, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert!(
        msg.contains("few.mtx") && msg.contains("declares 2 entries") && msg.contains("only 1"),
        "{msg}"
    );
    let p = write(
        d.path(),
        "more.mtx",
        format!("{head}1 2 1\n% c\n2 3 1\n\n3 1 1\n1 1 1\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert_eq!(line, 8, "{msg}");
    assert!(
        msg.contains("more.mtx") && msg.contains("only 2 entries"),
        "{msg}"
    );
    let p = write(
        d.path(),
        "range.mtx",
        format!("{head}1 2 1\n4 1 1\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &opts());
    assert_eq!(line, 5);
    assert!(msg.contains("out of range"), "{msg}");
    let p = write(
        d.path(),
        "zero.mtx",
        format!("{head}0 2 1\n1 1 1\n").as_bytes(),
    );
    assert_eq!(fail(&[p], InputFormat::Mtx, &opts()).0, 4);
    let p = write(
        d.path(),
        "noval.mtx",
        format!("{head}1 2 1\n2 2\n").as_bytes(),
    );
    let (line, msg) = fail(&[p], InputFormat::Mtx, &weighted());
    assert_eq!(line, 5);
    assert!(msg.contains("missing weight"), "{msg}");
}
