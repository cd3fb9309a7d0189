//! Tests of the io layer, run on both backends and, where possible, on both a
//! disk filesystem (direct reads) and tmpfs.

use super::*;
use crate::mem::Budget;
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

const BACKENDS: [Backend; 2] = [Backend::Uring, Backend::Sync];

/// A directory under the target dir (a disk filesystem, unlike /tmp on some machines).
fn disk_dir() -> tempfile::TempDir {
    let exe = std::env::current_exe().unwrap();
    let base = exe.parent().unwrap(); // target/<profile>/deps
    tempfile::Builder::new()
        .prefix("outcore-io-test")
        .tempdir_in(base)
        .unwrap()
}

/// A directory on tmpfs, if there is one.
fn tmpfs_dir() -> Option<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    shm.is_dir()
        .then(|| {
            tempfile::Builder::new()
                .prefix("outcore-io-test")
                .tempdir_in(shm)
                .ok()
        })
        .flatten()
}

fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8 ^ (i as u8)
}

fn make_file(dir: &Path, name: &str, len: u64) -> (PathBuf, Vec<u8>) {
    let path = dir.join(name);
    let data: Vec<u8> = (0..len).map(byte_at).collect();
    let mut f = File::create(&path).unwrap();
    f.write_all(&data).unwrap();
    f.sync_all().unwrap();
    (path, data)
}

/// xorshift64*, enough for picking offsets.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn budget() -> Budget {
    Budget::new(1 << 30)
}

/// Many random aligned reads (more than depth, some past EOF, some empty),
/// submitted in random batches and collected with random `min`s.
fn random_reads(backend: Backend, path: &Path, data: &[u8], seed: u64) -> IoStats {
    random_reads_in(backend, path, data, seed, None)
}

fn random_reads_in(
    backend: Backend,
    path: &Path,
    data: &[u8],
    seed: u64,
    chunk: Option<usize>,
) -> IoStats {
    let b = budget();
    let mut r = Reader::new(Some(backend), 8).unwrap();
    if let Some(c) = chunk {
        r.set_chunk(c);
    }
    assert_eq!(r.backend(), backend);
    let f = r.open(path).unwrap();
    assert_eq!(r.file_len(f), data.len() as u64);
    let blocks = (data.len() as u64).div_ceil(ALIGN as u64);
    let mut rng = Rng(seed);
    let n = 400;
    let mut bufs = Vec::new();
    let mut reqs = Vec::new();
    for tag in 0..n {
        let block = rng.below(blocks + 3); // up to 2 blocks past the end
        let nblocks = match rng.below(10) {
            0 => 0,
            1 => 64,
            _ => 1 + rng.below(8) as usize,
        };
        let mut buf = AlignedBuf::new(nblocks * ALIGN, &b, "test").unwrap();
        buf.as_mut_slice().fill(0xEE);
        reqs.push(ReadReq {
            file: f,
            offset: block * ALIGN as u64,
            len: nblocks * ALIGN,
            buf: buf.as_mut_ptr(),
            tag,
        });
        bufs.push(buf);
    }
    // A read exactly at EOF (0 bytes) and an empty read.
    let eof = (data.len() as u64).next_multiple_of(ALIGN as u64);
    let mut tail = AlignedBuf::new(ALIGN, &b, "test").unwrap();
    reqs.push(ReadReq {
        file: f,
        offset: eof,
        len: ALIGN,
        buf: tail.as_mut_ptr(),
        tag: n,
    });
    bufs.push(tail);
    let mut done: HashMap<u64, usize> = HashMap::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < reqs.len() || r.pending() > 0 {
        if i < reqs.len() {
            let k = (1 + rng.below(40) as usize).min(reqs.len() - i);
            // SAFETY: the buffers live in `bufs` until the end of the function.
            unsafe { r.submit(&reqs[i..i + k]).unwrap() };
            i += k;
        }
        let min = rng.below(12) as usize;
        r.wait(min, &mut out).unwrap();
        assert!(out.len() >= min || r.pending() == 0);
        for c in out.drain(..) {
            let got = c.result.unwrap();
            assert!(done.insert(c.tag, got).is_none(), "tag {} twice", c.tag);
        }
    }
    assert_eq!(done.len(), reqs.len());
    let mut bytes = 0u64;
    for (q, buf) in reqs.iter().zip(&bufs) {
        let got = done[&q.tag];
        let start = (q.offset as usize).min(data.len());
        let end = (q.offset as usize + q.len).min(data.len());
        assert_eq!(
            got,
            end - start,
            "tag {} offset {} len {}",
            q.tag,
            q.offset,
            q.len
        );
        assert!(
            buf.as_slice()[..got] == data[start..end],
            "tag {} content",
            q.tag
        );
        bytes += got as u64;
    }
    let s = r.stats();
    assert_eq!(s.requests, reqs.len() as u64);
    assert_eq!(s.bytes_read, bytes);
    s
}

#[test]
fn uring_is_available_here() {
    let r = Reader::new(Some(Backend::Uring), 32).unwrap();
    assert_eq!(r.backend(), Backend::Uring);
    assert_eq!(Reader::new(None, 32).unwrap().backend(), Backend::Uring);
    assert_eq!(
        Reader::new(Some(Backend::Sync), 32).unwrap().backend(),
        Backend::Sync
    );
    assert!(Reader::new(None, 0).is_err());
    assert!(Reader::new(None, MAX_DEPTH + 1).is_err());
}

#[test]
fn random_reads_on_disk_are_direct_and_match() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 3 * 1024 * 1024 + 1234);
    let mut r = Reader::new(Some(Backend::Sync), 4).unwrap();
    let f = r.open(&path).unwrap();
    assert!(
        r.direct(f),
        "O_DIRECT refused on the target dir's filesystem"
    );
    for (i, b) in BACKENDS.into_iter().enumerate() {
        let s = random_reads(b, &path, &data, 42 + i as u64);
        assert!(s.bytes_read > 0);
    }
}

#[test]
fn partial_reads_are_continued() {
    // Reads capped at 8 KiB: every longer request is finished in pieces.
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 1024 * 1024 + 5000);
    for (i, b) in BACKENDS.into_iter().enumerate() {
        random_reads_in(b, &path, &data, 5 + i as u64, Some(2 * ALIGN));
    }
}

#[test]
fn random_reads_on_tmpfs_match() {
    let Some(dir) = tmpfs_dir() else {
        eprintln!("no /dev/shm: skipped");
        return;
    };
    let (path, data) = make_file(dir.path(), "f", 2 * 1024 * 1024 + 77);
    let mut r = Reader::new(Some(Backend::Sync), 4).unwrap();
    let f = r.open(&path).unwrap();
    eprintln!("tmpfs: direct = {}", r.direct(f));
    for (i, b) in BACKENDS.into_iter().enumerate() {
        random_reads(b, &path, &data, 7 + i as u64);
    }
}

#[test]
fn buffered_fallback_where_o_direct_is_refused() {
    // procfs refuses O_DIRECT at open.
    let want = std::fs::read("/proc/version").unwrap();
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 4).unwrap();
        let f = r.open(Path::new("/proc/version")).unwrap();
        assert!(!r.direct(f));
        let mut buf = AlignedBuf::new(ALIGN, &budget(), "test").unwrap();
        let req = ReadReq {
            file: f,
            offset: 0,
            len: ALIGN,
            buf: buf.as_mut_ptr(),
            tag: 9,
        };
        // SAFETY: buf outlives the wait below.
        unsafe { r.submit(&[req]).unwrap() };
        let mut out = Vec::new();
        r.wait(1, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        let n = out[0].result.as_ref().copied().unwrap();
        assert_eq!(&buf.as_slice()[..n], &want[..], "{b}");
    }
}

#[test]
fn wait_zero_does_not_block() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", 8 << 20);
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 4).unwrap();
        let f = r.open(&path).unwrap();
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
        let f = r.open(&path).unwrap();
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
        let w = r.add_file(&wpath, wfile, false, 8192);
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
        assert!(r.open(dir.path()).is_err());
        assert!(matches!(
            r.open(&dir.path().join("missing")),
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
        let f = r.open(&path).unwrap();
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

#[test]
fn large_request_in_one_piece() {
    let dir = disk_dir();
    let (path, data) = make_file(dir.path(), "f", (32 << 20) + 5);
    for b in BACKENDS {
        let mut r = Reader::new(Some(b), 2).unwrap();
        let f = r.open(&path).unwrap();
        let mut buf = AlignedBuf::new(40 << 20, &budget(), "test").unwrap();
        let q = ReadReq {
            file: f,
            offset: 0,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
            tag: 0,
        };
        // SAFETY: buf outlives the wait.
        unsafe { r.submit(&[q]).unwrap() };
        let mut out = Vec::new();
        r.wait(1, &mut out).unwrap();
        assert_eq!(*out[0].result.as_ref().unwrap(), data.len());
        assert!(buf.as_slice()[..data.len()] == data[..]);
    }
}

#[test]
fn read_range_any_alignment() {
    let disk = disk_dir();
    let shm = tmpfs_dir();
    let mut dirs = vec![disk.path().to_path_buf()];
    dirs.extend(shm.as_ref().map(|d| d.path().to_path_buf()));
    for dir in dirs {
        let (path, data) = make_file(&dir, "f", (9 << 20) + 333);
        for b in BACKENDS {
            let bud = Budget::new(64 << 20);
            let mut r = Reader::new(Some(b), 4).unwrap();
            let f = r.open(&path).unwrap();
            let mut rng = Rng(99);
            for _ in 0..50 {
                let off = rng.below(data.len() as u64);
                let len = rng.below(data.len() as u64 - off + 1) as usize;
                let len = if rng.below(3) == 0 { len.min(100) } else { len };
                let v = read_range(&mut r, f, off, len, &bud).unwrap();
                assert!(v == data[off as usize..off as usize + len], "{off} {len}");
            }
            let v = read_range(&mut r, f, 0, data.len(), &bud).unwrap();
            assert!(v == data);
            assert_eq!(bud.used(), 0);
            assert!(bud.peak() <= 4 << 20);
            assert!(read_range(&mut r, f, data.len() as u64, 0, &bud)
                .unwrap()
                .is_empty());
            let e = read_range(&mut r, f, data.len() as u64 - 10, 11, &bud).unwrap_err();
            assert!(e.to_string().contains("ends at"), "{e}");
            assert!(read_range(&mut r, 7, 0, 1, &bud).is_err());
            assert!(r.stats().requests > 50);
        }
    }
}

#[test]
fn aligned_buf_charges_the_budget() {
    let b = Budget::new(1 << 20);
    {
        let mut a = AlignedBuf::new(5000, &b, "test buffer").unwrap();
        assert_eq!(a.len(), 8192);
        assert!(!a.is_empty());
        assert_eq!(b.used(), 8192);
        assert!((a.as_mut_ptr() as usize).is_multiple_of(ALIGN));
        assert!(a.as_slice().iter().all(|&x| x == 0));
        a.as_mut_slice()[8191] = 1;
        let e = AlignedBuf::new(1 << 20, &b, "big buffer").unwrap_err();
        assert!(e.to_string().contains("big buffer needs"), "{e}");
        let z = AlignedBuf::new(0, &b, "empty").unwrap();
        assert!(z.is_empty() && z.as_slice().is_empty());
    }
    assert_eq!(b.used(), 0);
    assert_eq!(b.peak(), 8192);
    let a = AlignedBuf::new(1 << 20, &b, "all").unwrap();
    assert_eq!(b.used(), 1 << 20);
    drop(a);
    assert_eq!(b.used(), 0);
}

#[test]
fn backend_names() {
    assert_eq!("uring".parse::<Backend>().unwrap(), Backend::Uring);
    assert_eq!("sync".parse::<Backend>().unwrap(), Backend::Sync);
    assert!("aio".parse::<Backend>().is_err());
    assert_eq!(Backend::Uring.to_string(), "uring");
    assert_eq!(Backend::Sync.to_string(), "sync");
}

#[test]
fn stats_add_and_subtract() {
    let a = IoStats {
        bytes_read: 10,
        bytes_written: 3,
        requests: 2,
        wait_seconds: 1.0,
    };
    let mut b = a;
    b.add(&a);
    assert_eq!((b - a).bytes_read, 10);
    assert_eq!(b.requests, 4);
    assert!(serde_json::to_string(&b)
        .unwrap()
        .contains("\"wait_seconds\":2.0"));
}

/// Sequential throughput of a 1 GiB file, 1 MiB requests, depth 8.
/// `cargo test --release -p outcore --lib io::tests::throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn throughput() {
    const FILE: u64 = 1 << 30;
    const REQ: usize = 1 << 20;
    const DEPTH: usize = 8;
    struct Remove(PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .unwrap_or(exe.parent().unwrap())
        .to_path_buf();
    let path = target.join(format!("outcore-io-throughput-{}.bin", std::process::id()));
    let _guard = Remove(path.clone());
    {
        let mut f = std::io::BufWriter::with_capacity(REQ, File::create(&path).unwrap());
        let chunk: Vec<u8> = (0..REQ as u64).map(byte_at).collect();
        for _ in 0..FILE / REQ as u64 {
            f.write_all(&chunk).unwrap();
        }
        f.into_inner().unwrap().sync_all().unwrap();
    }
    let b = budget();
    for backend in BACKENDS {
        let mut r = Reader::new(Some(backend), DEPTH).unwrap();
        let f = r.open(&path).unwrap();
        let mut bufs: Vec<AlignedBuf> = (0..DEPTH)
            .map(|_| AlignedBuf::new(REQ, &b, "throughput").unwrap())
            .collect();
        let n = FILE / REQ as u64;
        let t = Instant::now();
        let mut next = 0u64;
        let mut out = Vec::new();
        let mut bytes = 0u64;
        let mut reqs = Vec::new();
        for (slot, buf) in bufs.iter_mut().enumerate() {
            reqs.push(ReadReq {
                file: f,
                offset: next * REQ as u64,
                len: REQ,
                buf: buf.as_mut_ptr(),
                tag: next << 8 | slot as u64,
            });
            next += 1;
        }
        // SAFETY: bufs outlive the reader's requests (drained below).
        unsafe { r.submit(&reqs).unwrap() };
        while r.pending() > 0 {
            out.clear();
            r.wait(1, &mut out).unwrap();
            reqs.clear();
            for c in &out {
                let got = *c.result.as_ref().unwrap();
                assert_eq!(got, REQ);
                bytes += got as u64;
                let slot = (c.tag & 0xff) as usize;
                assert_eq!(bufs[slot].as_slice()[7], byte_at(7));
                if next < n {
                    reqs.push(ReadReq {
                        file: f,
                        offset: next * REQ as u64,
                        len: REQ,
                        buf: bufs[slot].as_mut_ptr(),
                        tag: next << 8 | slot as u64,
                    });
                    next += 1;
                }
            }
            // SAFETY: as above; a slot's buffer is reused only after its completion.
            unsafe { r.submit(&reqs).unwrap() };
        }
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(bytes, FILE);
        let s = r.stats();
        println!(
            "{backend}: direct={} {:.0} MB/s ({:.2} s, {} requests, {:.2} s waiting)",
            r.direct(f),
            bytes as f64 / secs / 1e6,
            secs,
            s.requests,
            s.wait_seconds
        );
    }
}

/// Writes through both backends land on disk and read back, with the bytes
/// counted as written; misaligned writes are refused.
#[test]
fn writes_round_trip_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let budget = Budget::new(64 << 20);
    for backend in [Backend::Uring, Backend::Sync] {
        let mut r = Reader::new(Some(backend), 4).unwrap();
        let path = dir.path().join(format!("w-{backend}"));
        let f = r.create(&path).unwrap();
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
