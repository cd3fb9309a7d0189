//! Tests of the io layer, run on both backends and, where possible, on both a
//! disk filesystem (direct reads) and tmpfs: the shared helpers (test
//! directories, files of known bytes, random reads checked against them);
//! the tests are in the submodules.

use super::*;
use crate::mem::Budget;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

mod basics;
mod ends;
mod queue;
mod reads;
mod writes;

const BACKENDS: [Backend; 2] = [Backend::Uring, Backend::Sync];

/// A directory for this module's tests under the target dir.
fn disk_dir() -> tempfile::TempDir {
    crate::io::disk_test_dir("outcore-io-test")
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
    let f = r.open(path, "test").unwrap();
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
