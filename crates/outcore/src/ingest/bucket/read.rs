//! Reading one bucket file back: `O_DIRECT` chunks decoded into records,
//! in file order with the bits of their keys (the sort plans its passes from
//! them), or placed cell by cell when the buckets have [`Cells`]: their
//! files hold each spill's section of the bucket as its cells' counts, then
//! the records cell by cell, so a whole run of records goes to its cell's
//! next slots.

use super::buckets::Packing;
use super::cells::Placer;
pub(super) use super::decode::Decoder;
use crate::error::{Error, IoContext, Result};
use crate::ingest::sort::{KeyBits, Record};
use crate::io::fault;
use crate::io::AlignedBuf;
use crate::io::{open_direct, Access, ALIGN};
use std::path::Path;
use std::sync::mpsc::sync_channel;

/// Bytes per read of a bucket (rounded to whole records and blocks), the
/// most: a sorter of a small share reads in smaller chunks ([`chunk_for`]).
pub(super) const CHUNK: usize = 4 << 20;

/// The read size of a sorter of `share` bytes: a quarter of it, from 256
/// KiB to [`CHUNK`] (a share of 16 MiB or more reads [`CHUNK`]), so that a
/// sort in the few MiB a small budget leaves (results by rank at `--memory
/// 6MiB`) reads its buckets back in what it was given.
pub(super) fn chunk_for(share: u64) -> usize {
    let c = (share / 4).clamp(256 << 10, CHUNK as u64) as usize;
    c / ALIGN * ALIGN
}

/// The two aligned read buffers a loader alternates between.
pub(super) type Chunks = [AlignedBuf; 2];

/// What a loaded bucket's sort is planned from.
pub(super) enum Loaded {
    /// The bits of its keys (records in file order).
    Bits(KeyBits),
    /// The bounds of its cells (records placed cell by cell, [`Cells`]).
    Cells(Vec<usize>),
}

/// Where a bucket's decoded records go.
pub(super) enum To {
    /// Appended in file order; the bits of their keys gathered.
    Append(KeyBits),
    /// Each run to the next free slots of its cell.
    Place(Placer),
}

/// The error of a bucket file that does not hold what was written to it.
pub(super) fn damaged(path: &Path) -> Error {
    Error::Invalid(format!(
        "{}: a scratch file of the build does not hold the records written to it (a disk or memory fault?); run the import again",
        path.display()
    ))
}

/// Reads one bucket file into `out` (unsorted, or placed by cell), with
/// what its sort is planned from.
pub(super) fn read_bucket<R: Record>(
    path: &Path,
    records: u64,
    (pack, bucket): (&Packing, usize),
    direct: bool,
    mut out: Vec<R>,
    chunks: &mut Chunks,
) -> Result<(Vec<R>, Loaded)> {
    out.clear();
    let mut to = match pack.cells.as_deref() {
        Some(c) => To::Place(Placer::new(c, bucket)),
        None => To::Append(KeyBits::default()),
    };
    // Exactly: a buffer reused for a larger bucket must not double.
    out.reserve_exact(records as usize);
    let mut dec = Decoder::new(pack, bucket);
    if let To::Place(p) = &to {
        // The slots the cells' counts give are those reserved.
        if p.len() != records as usize {
            return Err(damaged(path));
        }
    }
    if records > 0 {
        let (f, _) = open_direct(path, Access::Read, !direct)?;
        let total = pack.len[bucket];
        let a = &mut chunks[0];
        // A file one chunk holds is read here: no thread to overlap with
        // (at small budgets nearly every bucket; a thread each was 10 Ks
        // of spawns in a kron-24 build at 128 MiB).
        if total <= a.len() as u64 {
            let want = total.next_multiple_of(ALIGN as u64) as usize;
            fault::read_exact_at(&f, &mut a.as_mut_slice()[..want], 0).at(path)?;
            let data = &a.as_slice()[..total as usize];
            dec.push(data, &mut out, &mut to);
        } else {
            read_stretches(path, &f, total, &mut dec, chunks, &mut out, &mut to)?;
        }
    }
    if !dec.ended(records) {
        return Err(damaged(path));
    }
    let loaded = match to {
        To::Append(bits) => Loaded::Bits(bits),
        To::Place(p) => {
            let n = records as usize;
            let bounds = p.bounds(n).ok_or_else(|| damaged(path))?;
            // SAFETY: the cells' slots are 0..n (their bounds), each cell's
            // written one by one from its start to its end (`bounds` checked
            // every cell reached its end), within the capacity reserved above.
            unsafe { out.set_len(n) };
            Loaded::Cells(bounds)
        }
    };
    Ok((out, loaded))
}

/// Reads a bucket file of `total` bytes in chunks: a reader thread fills
/// one while this one decodes the other, so the disk and the decoding
/// overlap.
fn read_stretches<R: Record>(
    path: &Path,
    f: &std::fs::File,
    total: u64,
    dec: &mut Decoder<&Packing>,
    [a, b]: &mut Chunks,
    out: &mut Vec<R>,
    to: &mut To,
) -> Result<()> {
    std::thread::scope(|s| -> Result<()> {
        type Filled<'b> = (&'b mut AlignedBuf, usize, std::io::Result<()>);
        let (full_tx, full_rx) = sync_channel::<Filled<'_>>(2);
        let (empty_tx, empty_rx) = sync_channel::<&mut AlignedBuf>(2);
        empty_tx.send(a).expect("receiver alive");
        empty_tx.send(b).expect("receiver alive");
        s.spawn(move || {
            let mut at = 0u64;
            while at < total {
                let Ok(buf) = empty_rx.recv() else { return };
                let want = (total - at)
                    .next_multiple_of(ALIGN as u64)
                    .min(buf.len() as u64);
                let r = fault::read_exact_at(f, &mut buf.as_mut_slice()[..want as usize], at);
                let (valid, failed) = (want.min(total - at) as usize, r.is_err());
                if full_tx.send((buf, valid, r)).is_err() || failed {
                    return;
                }
                at += want;
            }
        });
        let mut done = 0u64;
        while done < total {
            let (buf, valid, r) = full_rx
                .recv()
                .expect("the reader sends until the end or an error");
            r.at(path)?;
            dec.push(&buf.as_slice()[..valid], out, to);
            done += valid as u64;
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::cells::Cells;
    use super::*;
    use crate::ingest::sort::tests::Pair;
    use crate::mem::Budget;
    use std::sync::Arc;

    /// A record that is its key alone (the decoder's 8-byte-load path).
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct K(u64);

    impl Record for K {
        const BYTES: usize = 8;
        type Key = u64;
        fn key(&self) -> u64 {
            self.0
        }
        fn radix_key(&self) -> u128 {
            self.0 as u128
        }
        fn encode(&self, out: &mut [u8]) {
            out.copy_from_slice(&self.0.to_le_bytes());
        }
        const KEY_BYTES: usize = 8;
        fn from_key(key: u128, _: &[u8]) -> Self {
            K(key as u64)
        }
        fn decode(b: &[u8]) -> Self {
            K(u64::from_le_bytes(b.try_into().unwrap()))
        }
    }

    /// Reads `bytes` back as bucket 0's file of `n` records, as `pack`
    /// says.
    fn load_file<R: Record>(
        mut bytes: Vec<u8>,
        n: u64,
        pack: &mut Packing,
    ) -> Result<(Vec<R>, Loaded)> {
        pack.len = vec![bytes.len() as u64];
        bytes.resize(bytes.len().next_multiple_of(ALIGN), 0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bucket");
        std::fs::write(&path, &bytes).unwrap();
        let budget = Budget::new(1 << 30);
        let mut chunks = [
            AlignedBuf::new(CHUNK, &budget, "test").unwrap(),
            AlignedBuf::new(CHUNK, &budget, "test").unwrap(),
        ];
        read_bucket::<R>(&path, n, (pack, 0), false, Vec::new(), &mut chunks)
    }

    /// Writes `recs` as bucket 0 packed `width` bytes above `lo` into a
    /// file and reads it back.
    fn load<R: Record>(recs: &[R], lo: u128, width: usize) -> Result<(Vec<R>, Loaded)> {
        let mut pack = Packing {
            lo: vec![lo],
            width: vec![width],
            ..Packing::default()
        };
        let rec = pack.code(0).rec_bytes::<R>();
        let mut bytes = vec![0u8; recs.len() * rec];
        for (r, c) in recs.iter().zip(bytes.chunks_exact_mut(rec)) {
            pack.code(0).encode(r, c);
        }
        load_file(bytes, recs.len() as u64, &mut pack)
    }

    /// `recs` in sections of bucket 0 with cells (`sections` of them, the
    /// records cut evenly between them), as a spill writes them; the
    /// cells' counts are set.
    fn sections(recs: &[K], cells: &mut Cells, pack: &Packing, sections: usize) -> Vec<u8> {
        let per = 1 << cells.bits;
        let mut bytes = Vec::new();
        for part in recs.chunks(recs.len().div_ceil(sections)) {
            let mut runs = vec![Vec::new(); per];
            for r in part {
                let c = cells.of(0, r.0 as u128);
                let code = cells.code(pack, 0, c);
                let mut b = vec![0u8; code.rec_bytes::<K>()];
                code.encode(r, &mut b);
                runs[c].extend_from_slice(&b);
                cells.count[c] += 1;
            }
            let mut head = [0u8; 5];
            for (c, run) in runs.iter().enumerate() {
                let n = (run.len() / cells.code(pack, 0, c).rec_bytes::<K>()) as u32;
                let len = crate::base::leb128::put(&mut head, n as u64);
                bytes.extend_from_slice(&head[..len]);
            }
            runs.iter().for_each(|r| bytes.extend_from_slice(r));
        }
        bytes
    }

    /// Reads `recs` back in file order: the records and the bits of their
    /// keys come back.
    fn read_back<R: Record + PartialEq + std::fmt::Debug>(recs: &[R], lo: u128, width: usize) {
        let (out, loaded) = load(recs, lo, width).unwrap();
        assert!(out == recs, "records read back differ");
        let Loaded::Bits(bits) = loaded else {
            panic!("no cells: read in file order")
        };
        let n = recs.len();
        assert_eq!(bits, KeyBits::of(recs), "key bits of {n} records");
    }

    /// Keys below 2^36 with bit 0 set, except: the record cut by the first
    /// chunk's end alone has bit 38, the last one alone lacks bit 0 (the
    /// two decoded one by one, not by the 8-byte loads).
    fn keys(rec: usize) -> Vec<u64> {
        let n = CHUNK / rec + 1000;
        let mut x = 7u64;
        let mut k: Vec<u64> = (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 28) | 1
            })
            .collect();
        k[CHUNK / rec] = 1 << 38 | 1;
        k[n - 1] = 2;
        k
    }

    /// The bits a bucket's decoder gathers for the sort are exactly those of
    /// its keys, for the records cut across chunks and the last ones too (a
    /// wrong bit leaves the sort's output unsorted or costs a pass).
    #[test]
    fn decoded_key_bits_are_the_keys_bits() {
        // 5-byte packed keys: records cut by the chunk's end.
        let k = keys(5);
        read_back(&k.iter().map(|&k| K(k)).collect::<Vec<_>>(), 0, 5);
        // With a payload: every record decoded one by one.
        let p: Vec<Pair> = keys(9).iter().map(|&k| Pair(k, k as u32)).collect();
        read_back(&p, 0, 5);
        // Unpacked 8-byte keys above a base.
        let k = keys(8);
        read_back(&k.iter().map(|&k| K(k + 3)).collect::<Vec<_>>(), 3, 8);
    }

    /// With cells, every record is placed in its cell's slots in file
    /// order (records cut across chunks too, sections after sections), and
    /// the bounds are the cells' counts; a file that does not match the
    /// counts is an error, never a bucket with slots left unwritten.
    #[test]
    fn records_are_placed_in_their_cells() {
        let k: Vec<K> = keys(5).iter().map(|&k| K(k)).collect();
        // Bucket 0 spans keys 0..2^36 in 16 cells of 2^32 keys (the key
        // with bit 38 goes to the last): 4 bytes a key inside, 5 in the
        // first and last cells.
        let fresh = || Cells::new(&[(0, (1 << 36) - 1)], 16 * 4096);
        let mut pack = Packing {
            lo: vec![0],
            width: vec![5],
            ..Packing::default()
        };
        let mut cells = fresh();
        assert_eq!((cells.bits, cells.shift[0]), (4, 32));
        let widths: Vec<usize> = (0..16).map(|c| cells.code(&pack, 0, c).width).collect();
        assert_eq!(widths[..3], [5, 4, 4]);
        assert_eq!(widths[15], 5);
        let bytes = sections(&k, &mut cells, &pack, 3);
        assert!(
            bytes.len() < k.len() * 5 - k.len() / 2,
            "keys not stored above their cells"
        );
        let mut expect = k.clone();
        expect.sort_by_key(|r| (r.0 >> 32).min(15));
        let mut bounds = vec![0];
        for &n in &cells.count {
            bounds.push(bounds.last().unwrap() + n as usize);
        }
        let counts = cells.count.clone();
        let n = k.len() as u64;
        pack.cells = Some(Arc::new(cells));
        let (out, loaded) = load_file::<K>(bytes.clone(), n, &mut pack).unwrap();
        assert!(out == expect, "records not in their cells in file order");
        match loaded {
            Loaded::Cells(b) => assert_eq!(b, bounds),
            Loaded::Bits(_) => panic!("cells not used"),
        }
        // Read in file order (a nested sorter's feed): the sections' runs.
        let mut dec = Decoder::new(&pack, 0);
        let (mut got, mut to) = (Vec::<K>::new(), To::Append(KeyBits::default()));
        for part in bytes.chunks(1000) {
            dec.push(part, &mut got, &mut to);
        }
        assert!(dec.ended(n));
        let mut sorted = got.clone();
        sorted.sort_by_key(|r| (r.0 >> 32).min(15));
        assert!(sorted == expect && got != expect, "not the sections' order");
        // One record counted in the wrong cell, or the file cut short: the
        // load fails.
        let mut cells = fresh();
        assert!(counts[3] > 0 && counts[4] > 0);
        cells.count = counts.clone();
        cells.count[3] += 1;
        cells.count[4] -= 1;
        pack.cells = Some(Arc::new(cells));
        let r = load_file::<K>(bytes.clone(), n, &mut pack);
        assert!(r.is_err(), "a miscounted cell was read as a bucket");
        let mut cells = fresh();
        cells.count = counts;
        pack.cells = Some(Arc::new(cells));
        let r = load_file::<K>(bytes[..bytes.len() - 5].to_vec(), n, &mut pack);
        assert!(r.is_err(), "a file cut short was read as a bucket");
    }
}
