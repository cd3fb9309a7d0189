//! Reading one bucket file back: `O_DIRECT` chunks decoded into records,
//! in file order with the bits of their keys (the sort plans its passes from
//! them), or placed cell by cell when the buckets have [`Cells`].
//!
//! [`Cells`]: super::cells::Cells

use super::cells::Placer;
use super::spill::Packing;
use crate::error::{Error, IoContext, Result};
use crate::ingest::sort::{KeyBits, Record};
use crate::io::fault;
use crate::io::AlignedBuf;
use crate::io::{open_direct, Access, ALIGN};
use std::path::Path;
use std::sync::mpsc::sync_channel;

/// Bytes per read of a bucket (rounded to whole records and blocks).
pub(super) const CHUNK: usize = 4 << 20;

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
    /// Each to the next free slot of its cell.
    Place(Placer),
}

impl To {
    #[inline]
    fn put<R: Record>(&mut self, out: &mut Vec<R>, r: R) {
        match self {
            To::Append(bits) => {
                bits.add(r.radix_key());
                out.push(r);
            }
            To::Place(p) => p.put(out.spare_capacity_mut(), r),
        }
    }
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
    let mut to = match pack.cells.as_deref().and_then(|c| Placer::new(c, bucket)) {
        Some(p) => To::Place(p),
        None => To::Append(KeyBits::default()),
    };
    // Exactly: a buffer reused for a larger bucket must not double.
    out.reserve_exact(records as usize);
    if records > 0 {
        let (f, _) = open_direct(path, Access::Read, !direct)?;
        let rec = pack.rec_bytes::<R>(bucket);
        let total = records * rec as u64;
        let a = &mut chunks[0];
        // A file one chunk holds is read here: no thread to overlap with
        // (at small budgets nearly every bucket; a thread each was 10 Ks
        // of spawns in a kron-24 build at 128 MiB).
        if total <= a.len() as u64 {
            let want = total.next_multiple_of(ALIGN as u64) as usize;
            fault::read_exact_at(&f, &mut a.as_mut_slice()[..want], 0).at(path)?;
            let data = &a.as_slice()[..total as usize];
            decode_stretch((pack, bucket), data, &mut Vec::new(), &mut out, &mut to);
        } else {
            read_stretches(path, &f, total, (pack, bucket), chunks, &mut out, &mut to)?;
        }
    }
    let loaded = match to {
        To::Append(bits) => Loaded::Bits(bits),
        To::Place(p) => {
            let n = records as usize;
            let bounds = p.bounds(n).ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: a scratch file of the build does not hold the records written to it (a disk or memory fault?); run the import again",
                    path.display()
                ))
            })?;
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
    (pack, bucket): (&Packing, usize),
    [a, b]: &mut Chunks,
    out: &mut Vec<R>,
    to: &mut To,
) -> Result<()> {
    let rec = pack.rec_bytes::<R>(bucket);
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
        // A record cut by a chunk's end: its first bytes.
        let mut cut = Vec::with_capacity(rec);
        while done < total {
            let (buf, valid, r) = full_rx
                .recv()
                .expect("the reader sends until the end or an error");
            r.at(path)?;
            let data = &buf.as_slice()[..valid];
            decode_stretch((pack, bucket), data, &mut cut, out, to);
            done += valid as u64;
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}

/// Decodes `data`, the next stretch of bucket `bucket`'s file, into `out`
/// as `to` says: its first bytes complete the record the stretch before
/// ended in the middle of (`cut`, that record's first bytes), and a record
/// cut at its end is left in `cut`.
pub(super) fn decode_stretch<R: Record>(
    (pack, bucket): (&Packing, usize),
    mut data: &[u8],
    cut: &mut Vec<u8>,
    out: &mut Vec<R>,
    to: &mut To,
) {
    let rec = pack.rec_bytes::<R>(bucket);
    if !cut.is_empty() {
        let take = (rec - cut.len()).min(data.len());
        cut.extend_from_slice(&data[..take]);
        data = &data[take..];
        if cut.len() == rec {
            to.put(out, pack.decode::<R>(bucket, cut));
            cut.clear();
        }
    }
    let whole = data.len() / rec * rec;
    match to {
        To::Append(bits) => pack.decode_into(bucket, &data[..whole], out, bits),
        To::Place(p) => {
            let slots = out.spare_capacity_mut();
            pack.decode_each(bucket, &data[..whole], |r| p.put(slots, r));
        }
    }
    cut.extend_from_slice(&data[whole..]);
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

    /// Writes `recs` as bucket 0 packed `width` bytes above `lo` into a
    /// file and reads it back as `pack` says (its `lo` and `width` set here).
    fn load<R: Record>(
        recs: &[R],
        lo: u128,
        width: usize,
        mut pack: Packing,
    ) -> Result<(Vec<R>, Loaded)> {
        pack.lo = vec![lo];
        pack.width = vec![width];
        let rec = pack.rec_bytes::<R>(0);
        let mut bytes = vec![0u8; recs.len() * rec];
        for (r, c) in recs.iter().zip(bytes.chunks_exact_mut(rec)) {
            pack.encode(0, r, c);
        }
        bytes.resize(bytes.len().next_multiple_of(ALIGN), 0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bucket");
        std::fs::write(&path, &bytes).unwrap();
        let budget = Budget::new(1 << 30);
        let mut chunks = [
            AlignedBuf::new(CHUNK, &budget, "test").unwrap(),
            AlignedBuf::new(CHUNK, &budget, "test").unwrap(),
        ];
        let n = recs.len() as u64;
        read_bucket::<R>(&path, n, (&pack, 0), false, Vec::new(), &mut chunks)
    }

    /// Reads `recs` back in file order: the records and the bits of their
    /// keys come back.
    fn read_back<R: Record + PartialEq + std::fmt::Debug>(recs: &[R], lo: u128, width: usize) {
        let (out, loaded) = load(recs, lo, width, Packing::default()).unwrap();
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
    /// order (records cut across chunks too), and the bounds are the cells'
    /// counts; a file that does not match the counts is an error, never a
    /// bucket with slots left unwritten.
    #[test]
    fn records_are_placed_in_their_cells() {
        let k: Vec<K> = keys(5).iter().map(|&k| K(k)).collect();
        // Bucket 0 spans keys 0..2^36 in 16 cells of 2^32 keys (the key
        // with bit 38 goes to the last).
        let mut cells = Cells::new(&[(0, (1 << 36) - 1)], 16 * 4096);
        assert_eq!((cells.bits, cells.shift[0]), (4, 32));
        for r in &k {
            let c = cells.of(0, r.0 as u128);
            cells.count[c] += 1;
        }
        let pack = |cells: Cells| Packing {
            cells: Some(Arc::new(cells)),
            ..Packing::default()
        };
        let mut expect = k.clone();
        expect.sort_by_key(|r| (r.0 >> 32).min(15));
        let mut bounds = vec![0];
        for &n in &cells.count {
            bounds.push(bounds.last().unwrap() + n as usize);
        }
        let counts = cells.count.clone();
        let (out, loaded) = load(&k, 0, 5, pack(cells)).unwrap();
        assert!(out == expect, "records not in their cells in file order");
        match loaded {
            Loaded::Cells(b) => assert_eq!(b, bounds),
            Loaded::Bits(_) => panic!("cells not used"),
        }
        // One record counted in the wrong cell: the load fails.
        let mut cells = Cells::new(&[(0, (1 << 36) - 1)], 16 * 4096);
        assert!(counts[3] > 0 && counts[4] > 0);
        cells.count = counts;
        cells.count[3] += 1;
        cells.count[4] -= 1;
        let r = load(&k, 0, 5, pack(cells));
        assert!(r.is_err(), "a miscounted cell was read as a bucket");
    }
}
