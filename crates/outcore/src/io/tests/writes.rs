//! Writes on both backends: they land on disk, read back by tag, count as
//! written, and misaligned ones are refused.

use super::*;

/// Writes through both backends land on disk and read back, with the bytes
/// counted as written; misaligned writes are refused.
#[test]
fn writes_round_trip_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let budget = Budget::new(64 << 20);
    for backend in [Backend::Uring, Backend::Sync] {
        let mut r = Reader::new(Some(backend), 4).unwrap();
        let path = dir.path().join(format!("w-{backend}"));
        let f = r.create(&path, "test").unwrap();
        let mut bufs: Vec<AlignedBuf> = (0..3)
            .map(|i| {
                let mut b = AlignedBuf::new(2 * ALIGN, &budget, "test").unwrap();
                b.as_mut_slice().fill(i as u8 + 1);
                b
            })
            .collect();
        let reqs: Vec<WriteReq> = bufs
            .iter()
            .enumerate()
            .map(|(i, b)| WriteReq {
                file: f,
                offset: (i * 2 * ALIGN) as u64,
                len: 2 * ALIGN,
                buf: b.as_slice().as_ptr(),
                tag: i as u64,
            })
            .collect();
        unsafe { r.submit_writes(&reqs).unwrap() };
        let mut out = Vec::new();
        while r.pending() > 0 {
            r.wait(1, &mut out).unwrap();
        }
        assert!(out
            .iter()
            .all(|c| c.write && c.result.as_ref().unwrap() == &(2 * ALIGN)));
        assert_eq!(r.stats().bytes_written, 6 * ALIGN as u64);
        let bad = WriteReq {
            offset: 7,
            ..reqs[0]
        };
        assert!(unsafe { r.submit_writes(&[bad]) }.is_err());
        // Read back through the same reader, by tag.
        let mut back = AlignedBuf::new(6 * ALIGN, &budget, "test").unwrap();
        let req = ReadReq {
            file: f,
            offset: 0,
            len: 6 * ALIGN,
            buf: back.as_mut_ptr(),
            tag: 99,
        };
        unsafe { r.submit(&[req]).unwrap() };
        let c = r.wait_tag(99).unwrap();
        assert_eq!(c.result.unwrap(), 6 * ALIGN);
        for (i, chunk) in back.as_slice().chunks(2 * ALIGN).enumerate() {
            assert!(
                chunk.iter().all(|&x| x == i as u8 + 1),
                "{backend} chunk {i}"
            );
        }
        bufs.clear();
        drop(r);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 6 * ALIGN as u64);
    }
}
