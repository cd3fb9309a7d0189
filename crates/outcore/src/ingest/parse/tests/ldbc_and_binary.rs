//! The LDBC pair (`.v` and `.e` files, by name or basename, gzipped or
//! not) and the binary formats (bin32, bin64, gzipped, truncated).

use std::slice::from_ref;

use super::*;

#[test]
fn ldbc_pairs_and_basenames() {
    let d = tempfile::tempdir().unwrap();
    let v = write(d.path(), "g.v", b"1\n2\n3\n99\n");
    let ed = write(d.path(), "g.e", b"1 2 0.5\n2 3 1.5\n");
    let o = weighted();
    let want_v = vec![1, 2, 3, 99];
    let want_e = vec![ew(1, 2, 0.5), ew(2, 3, 1.5)];
    for inputs in [
        vec![v.clone(), ed.clone()],
        vec![ed.clone(), v.clone()],
        vec![d.path().join("g")],
    ] {
        let (vs, es) = read(&inputs, InputFormat::Ldbc, &o).unwrap();
        assert_eq!(vs, want_v);
        assert_eq!(es, want_e);
    }
    let (vs, es) = read(from_ref(&ed), InputFormat::Ldbc, &o).unwrap();
    assert!(vs.is_empty());
    assert_eq!(es, want_e);
    // Progress covers both files; the edge pass starts after the vertex bytes.
    let mut src = open(&[d.path().join("g")], InputFormat::Ldbc, &o).unwrap();
    let total = std::fs::metadata(&v).unwrap().len() + std::fs::metadata(&ed).unwrap().len();
    assert_eq!(src.input_bytes(), Some(total));
    src.for_each_vertex_batch(&mut |_| Ok(())).unwrap();
    src.for_each_edge_batch(&mut |_| Ok(())).unwrap();
    assert_eq!(src.bytes_consumed(), total);
    // Gzipped pair behind a basename.
    write(d.path(), "z.v.gz", &gz(b"7\n"));
    write(d.path(), "z.e.gz", &gz(b"7 8\n"));
    let (vs, es) = read(&[d.path().join("z")], InputFormat::Ldbc, &opts()).unwrap();
    assert_eq!((vs, es), (vec![7], vec![e(7, 8)]));
}

#[test]
fn ldbc_errors() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "only.e", b"1 2\n");
    let err = open(&[d.path().join("only")], InputFormat::Ldbc, &opts())
        .err()
        .unwrap();
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("only.v"),
        "{err}"
    );
    let err = open(&[d.path().join("none")], InputFormat::Ldbc, &opts())
        .err()
        .unwrap();
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("none"),
        "{err}"
    );
    let v = write(d.path(), "x.v", b"1\n");
    assert!(matches!(
        open(&[v], InputFormat::Ldbc, &opts()),
        Err(Error::Invalid(_))
    ));
    let v = write(d.path(), "bad.v", b"1\n2\n-5\n");
    let ed = write(d.path(), "bad.e", b"1 2\n");
    let (line, msg) = fail(&[v, ed], InputFormat::Ldbc, &opts());
    assert_eq!(line, 3);
    assert!(
        msg.contains("bad.v:3:") && msg.contains("negative vertex id"),
        "{msg}"
    );
}

#[test]
fn binary_formats() {
    let d = tempfile::tempdir().unwrap();
    let mut b32 = Vec::new();
    for (s, t) in [(1u32, 2u32), (u32::MAX, 0), (7, 7)] {
        b32.extend(s.to_le_bytes());
        b32.extend(t.to_le_bytes());
    }
    let p = write(d.path(), "g.bin", &b32);
    let want32 = vec![e(1, 2), e(u32::MAX as u64, 0), e(7, 7)];
    assert_eq!(edges(from_ref(&p), InputFormat::Bin32, &opts()), want32);
    let pz = write(d.path(), "g.bin.gz", &gz(&b32));
    assert_eq!(
        edges(&[p, pz], InputFormat::Bin32, &opts()),
        [want32.clone(), want32].concat()
    );
    let mut b64 = Vec::new();
    for (s, t) in [(u64::MAX, u64::MAX - 1), (0, 1 << 40)] {
        b64.extend(s.to_le_bytes());
        b64.extend(t.to_le_bytes());
    }
    let p = write(d.path(), "g.bin64", &b64);
    assert_eq!(
        edges(&[p], InputFormat::Bin64, &opts()),
        vec![e(u64::MAX, u64::MAX - 1), e(0, 1 << 40)]
    );
}

#[test]
fn binary_truncated() {
    let d = tempfile::tempdir().unwrap();
    let bytes = vec![1u8; 16 * 3 + 5];
    let p = write(d.path(), "t.bin", &bytes);
    let err = open(&[p], InputFormat::Bin64, &opts()).err().unwrap();
    match &err {
        Error::Parse { line, text, .. } => {
            assert_eq!(*line, 4);
            assert!(text.contains("5 trailing bytes"), "{err}");
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("t.bin"), "{err}");
    // Gzipped: found while streaming, after the whole records were delivered.
    let p = write(d.path(), "t.bin.gz", &gz(&bytes[..8 * 5 + 3]));
    for bs in [1, 8, 16, 4096] {
        let err = read_with(from_ref(&p), InputFormat::Bin32, &opts(), bs).unwrap_err();
        match &err {
            Error::Parse { line, text, .. } => {
                assert_eq!(*line, 6, "{err}");
                assert!(text.contains("3 trailing bytes"), "{err}");
            }
            other => panic!("{other}"),
        }
    }
}
