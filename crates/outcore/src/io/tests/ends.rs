//! Where a file ends (issue 49): on both backends, page reads of a file
//! whose size is not a whole number of pages return exactly its bytes and
//! zeros after them, never what the buffer held or a direct read's
//! padding; a file cut short while open is an error naming its role,
//! never a shorter result.

use super::*;
use proptest::prelude::*;

/// Reads runs `(first page, pages)` of `path` (filled with 0xEE first);
/// returns each run's buffer and completion.
fn read_runs(r: &mut Reader, f: usize, runs: &[(u64, usize)]) -> Vec<(AlignedBuf, Completion)> {
    let b = budget();
    let mut bufs: Vec<AlignedBuf> = runs
        .iter()
        .map(|&(_, k)| {
            let mut buf = AlignedBuf::new(k * ALIGN, &b, "test").unwrap();
            buf.as_mut_slice().fill(0xEE);
            buf
        })
        .collect();
    let reqs: Vec<ReadReq> = runs
        .iter()
        .zip(bufs.iter_mut())
        .enumerate()
        .map(|(tag, (&(p, k), buf))| ReadReq {
            file: f,
            offset: p * ALIGN as u64,
            len: k * ALIGN,
            buf: buf.as_mut_ptr(),
            tag: tag as u64,
        })
        .collect();
    // SAFETY: the buffers outlive the wait for every request below.
    unsafe { r.submit(&reqs).unwrap() };
    let mut out = Vec::new();
    r.wait(reqs.len(), &mut out).unwrap();
    assert_eq!(out.len(), reqs.len());
    out.sort_by_key(|c| c.tag);
    bufs.into_iter().zip(out).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Runs of pages anywhere in (and past) a file of any size read its
    /// bytes, then zeros to the end of the run.
    #[test]
    fn a_partial_last_page_reads_its_bytes_and_zeros(
        size in 1u64..(24 * ALIGN as u64),
        runs in proptest::collection::vec((0u64..26, 1usize..4), 1..10),
    ) {
        let dir = disk_dir();
        let (path, data) = make_file(dir.path(), "f", size);
        for b in BACKENDS {
            let mut r = Reader::new(Some(b), 4).unwrap();
            let f = r.open(&path, "offsets").unwrap();
            for (i, (buf, c)) in read_runs(&mut r, f, &runs).into_iter().enumerate() {
                let (p, k) = runs[i];
                let start = ((p * ALIGN as u64) as usize).min(data.len());
                let end = (((p + k as u64) * ALIGN as u64) as usize).min(data.len());
                let got = c.result.unwrap();
                prop_assert_eq!(got, end - start, "{} run {:?}", b, runs[i]);
                prop_assert!(buf.as_slice()[..got] == data[start..end], "{b}: bytes");
                prop_assert!(buf.as_slice()[got..].iter().all(|&x| x == 0), "{b}: zeros past the end");
            }
        }
    }

    /// A file cut short after it was opened: a read that wants bytes it
    /// had fails naming the role; reads below the cut are whole.
    #[test]
    fn a_file_cut_short_while_open_is_an_error(
        size in (2 * ALIGN as u64)..(16 * ALIGN as u64),
        cut in 1u64..(2 * ALIGN as u64),
    ) {
        let dir = disk_dir();
        for b in BACKENDS {
            let (path, data) = make_file(dir.path(), "f", size);
            let mut r = Reader::new(Some(b), 4).unwrap();
            let f = r.open(&path, "adjacency").unwrap();
            let cut = size - cut;
            File::options().write(true).open(&path).unwrap().set_len(cut).unwrap();
            let pages = size.div_ceil(ALIGN as u64);
            let below = cut / ALIGN as u64;
            let mut runs = vec![(below, (pages - below) as usize)];
            if below > 0 {
                runs.push((0, below as usize));
            }
            let done = read_runs(&mut r, f, &runs);
            let e = done[0].1.result.as_ref().unwrap_err();
            prop_assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
            prop_assert!(e.to_string().starts_with("adjacency: "), "{e}");
            if let Some((buf, c)) = done.get(1) {
                let n = *c.result.as_ref().unwrap();
                prop_assert_eq!(n, below as usize * ALIGN);
                prop_assert!(buf.as_slice() == &data[..n]);
            }
        }
    }
}
