//! A reader's queue of requests: `wait(0)` does not block, bad requests
//! are refused (or fail in their completion) instead of panicking, and
//! dropping a reader with reads in flight waits for them.

use std::fs::OpenOptions;
use std::time::Duration;

use super::*;

#[test]
fn wait_zero_does_not_block() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 8 << 20);
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 4).unwrap();
        let f = r.open(&path, "test").unwrap();
        let mut out = Vec::new();
        // Nothing pending: returns at once, whatever min is.
        r.wait(5, &mut out).unwrap();
        assert!(out.is_empty());
        let mut bufs: Vec<AlignedBuf> = (0..16)
            .map(|_| AlignedBuf::new(512 << 10, &budget(), "test").unwrap())
            .collect();
        let reqs: Vec<ReadReq> = bufs
            .iter_mut()
            .enumerate()
            .map(|(i, buf)| ReadReq {
                file: f,
                offset: (i * (512 << 10)) as u64,
                len: 512 << 10,
                buf: buf.as_mut_ptr(),
                tag: i as u64,
            })
            .collect();
        // SAFETY: bufs outlive the reads (drained below).
        unsafe { r.submit(&reqs).unwrap() };
        assert_eq!(r.pending(), 16);
        let t = Instant::now();
        r.wait(0, &mut out).unwrap();
        let quick = t.elapsed();
        assert!(out.len() <= 16);
        assert!(
            quick < Duration::from_millis(200),
            "{b}: wait(0) took {quick:?}"
        );
        while r.pending() > 0 {
            r.wait(1, &mut out).unwrap();
        }
        assert_eq!(out.len(), 16);
        for c in &out {
            assert_eq!(*c.result.as_ref().unwrap(), 512 << 10);
            let i = c.tag as usize;
            assert!(bufs[i].as_slice() == &data[i * (512 << 10)..(i + 1) * (512 << 10)]);
        }
        let s = r.stats();
        assert_eq!((s.requests, s.bytes_read), (16, 8 << 20));
    }
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let dir = disk_dir();
    let (path, _) = make_file(dir.path(), "f", 64 << 10);
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 4).unwrap();
        let f = r.open(&path, "test").unwrap();
        let mut buf = AlignedBuf::new(2 * ALIGN, &budget(), "test").unwrap();
        let good = ReadReq {
            file: f,
            offset: 0,
            len: ALIGN,
            buf: buf.as_mut_ptr(),
            tag: 1,
        };
        let bad = [
            ReadReq {
                offset: 100,
                ..good
            },
            ReadReq { len: 100, ..good },
            ReadReq {
                buf: buf.as_mut_ptr().wrapping_add(8),
                ..good
            },
            ReadReq {
                buf: std::ptr::null_mut(),
                ..good
            },
            ReadReq { file: 5, ..good },
            ReadReq {
                offset: u64::MAX - 4095,
                ..good
            },
        ];
        for q in bad {
            // SAFETY: refused before anything is queued.
            let e = unsafe { r.submit(&[good, q]) }.unwrap_err();
            assert!(matches!(e, Error::Invalid(_)), "{e}");
            assert_eq!(r.pending(), 0, "a refused batch queues nothing");
        }
        // A file opened write-only: the read fails in the completion.
        let wpath = dir.path().join("w");
        let wfile = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&wpath)
            .unwrap();
        let w = r.add_file(&wpath, wfile, false, 8192, "test");
        let q = ReadReq { file: w, ..good };
        // SAFETY: buf outlives the wait.
        unsafe { r.submit(&[q, good]).unwrap() };
        let mut out = Vec::new();
        r.wait(2, &mut out).unwrap();
        out.sort_by_key(|c| c.result.is_ok());
        let err = out[0].result.as_ref().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EBADF), "{b}: {err}");
        assert_eq!(*out[1].result.as_ref().unwrap(), ALIGN);
        let e = Error::io(r.path(w), std::io::Error::from_raw_os_error(libc::EBADF));
        assert!(e.to_string().contains("/w:"), "{e}");
        // Directories and missing files are refused at open.
        assert!(r.open(dir.path(), "test").is_err());
        assert!(matches!(
            r.open(&dir.path().join("missing"), "test"),
            Err(Error::Io { .. })
        ));
    }
}

#[test]
fn dropping_a_busy_reader_waits_for_its_reads() {
    let dir = disk_dir();
    let (path, _) = make_file(dir.path(), "f", 4 << 20);
    for b in BACKENDS {
        let mut bufs: Vec<AlignedBuf> = (0..64)
            .map(|_| AlignedBuf::new(64 << 10, &budget(), "test").unwrap())
            .collect();
        let mut r = Reader::new(Some(b), 8).unwrap();
        let f = r.open(&path, "test").unwrap();
        let reqs: Vec<ReadReq> = bufs
            .iter_mut()
            .enumerate()
            .map(|(i, buf)| ReadReq {
                file: f,
                offset: (i * (64 << 10)) as u64,
                len: 64 << 10,
                buf: buf.as_mut_ptr(),
                tag: i as u64,
            })
            .collect();
        // SAFETY: bufs outlive the reader (dropped first).
        unsafe { r.submit(&reqs).unwrap() };
        drop(r);
        drop(bufs);
    }
}
