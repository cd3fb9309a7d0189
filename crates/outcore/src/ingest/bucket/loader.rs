//! The bucket stream's background loader: buckets read from disk and
//! decoded on one thread while the one before is sorted on a second (with
//! the rayon pool), into buffers the consumer hands back as it finishes
//! with them, so up to as many buckets as it holds buffers are ready or on
//! their way ahead of the consumer.

use super::spill::Packing;
use crate::error::{IoContext, Result};
use crate::ingest::sort::{sort_records_known, KeyBits, Record};
use crate::io::fault;
use crate::io::AlignedBuf;
use crate::io::{open_direct, Access, ALIGN};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Bytes per read of a bucket (rounded to whole records and blocks).
pub(super) const CHUNK: usize = 4 << 20;

/// What a loader loads: buckets `from..` of these files and record counts.
pub(super) struct Job {
    pub from: usize,
    pub paths: Vec<PathBuf>,
    pub records: Vec<u64>,
    pub pack: Packing,
    pub direct: bool,
}

/// A running loader.
pub(super) struct Loader<R: Record> {
    ready: Receiver<(usize, Result<Vec<R>>)>,
    /// Where buffers go back to it (the consumer's finished buckets).
    free: SyncSender<Vec<R>>,
    /// The bucket it was started for.
    pub from: usize,
    /// Returns the sort scratch, the read buffers and the buffers it was
    /// handed but did not use.
    handle: JoinHandle<(Vec<R>, Chunks, Vec<Vec<R>>)>,
}

impl<R: Record> Loader<R> {
    /// Starts loading `job`'s buckets into `buffers` (then into those given
    /// back). `(taken, ahead)`: the bucket the consumer holds, and the most
    /// buckets this loader started ahead of it (kept up to date here).
    pub fn spawn(
        job: Job,
        buffers: Vec<Vec<R>>,
        mut scratch: Vec<R>,
        mut chunk: Chunks,
        (taken, ahead): (Arc<AtomicUsize>, Arc<AtomicUsize>),
    ) -> Loader<R> {
        let (free, free_rx) = sync_channel::<Vec<R>>(buffers.len());
        let depth = buffers.len().saturating_sub(1).max(1);
        for b in buffers {
            let _ = free.send(b);
        }
        let (ready_tx, ready) = sync_channel(depth);
        let from = job.from;
        // Two stages: this thread reads and decodes the next bucket while a
        // second one sorts the one before.
        let handle = std::thread::spawn(move || {
            type Read<R> = (usize, Result<(Vec<R>, KeyBits)>);
            let (read_tx, read_rx) = sync_channel::<Read<R>>(0);
            let sorter = std::thread::spawn(move || {
                for (b, r) in read_rx {
                    let r = r.map(|(mut v, bits)| {
                        sort_records_known(&mut v, &mut scratch, bits);
                        v
                    });
                    let failed = r.is_err();
                    if ready_tx.send((b, r)).is_err() || failed {
                        break;
                    }
                }
                scratch
            });
            let Job {
                paths,
                records,
                pack,
                direct,
                ..
            } = job;
            for (k, (path, &n)) in paths.iter().zip(&records).enumerate() {
                let Ok(out) = free_rx.recv() else { break };
                let b = from + k;
                ahead.fetch_max(b.saturating_sub(taken.load(Relaxed)), Relaxed);
                let r = read_bucket::<R>(path, n, (&pack, b), direct, out, &mut chunk);
                let failed = r.is_err();
                if read_tx.send((b, r)).is_err() || failed {
                    break;
                }
            }
            drop(read_tx);
            let scratch = sorter.join().expect("bucket sorter panicked");
            let rest = free_rx.try_iter().collect();
            (scratch, chunk, rest)
        });
        Loader {
            ready,
            free,
            from,
            handle,
        }
    }

    /// The next bucket loaded and sorted (its number and records); `None`
    /// when the loader ended without sending it (it panicked).
    pub fn next(&self) -> Option<(usize, Result<Vec<R>>)> {
        self.ready.recv().ok()
    }

    /// Hands a finished bucket's buffer back for another load; `Err` with
    /// the buffer when the loader takes no more.
    pub fn give_back(&self, v: Vec<R>) -> std::result::Result<(), Vec<R>> {
        match self.free.try_send(v) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(v) | TrySendError::Disconnected(v)) => Err(v),
        }
    }

    /// Stops it (what it loaded ahead is dropped); the sort scratch, the
    /// read buffers and the spare buffers come back.
    pub fn stop(self) -> (Vec<R>, Chunks, Vec<Vec<R>>) {
        drop((self.ready, self.free));
        self.handle.join().expect("bucket loader panicked")
    }
}

/// The two aligned read buffers a loader alternates between.
pub(super) type Chunks = [AlignedBuf; 2];

/// Reads one bucket file into `out` (unsorted), with the bits of its keys.
/// A reader thread fills one chunk while this one decodes the other, so the
/// disk and the decoding overlap (a file of one chunk or less is read on
/// this thread).
fn read_bucket<R: Record>(
    path: &Path,
    records: u64,
    (pack, bucket): (&Packing, usize),
    direct: bool,
    mut out: Vec<R>,
    chunks: &mut Chunks,
) -> Result<(Vec<R>, KeyBits)> {
    out.clear();
    let mut bits = KeyBits::default();
    // Exactly: a buffer reused for a larger bucket must not double.
    out.reserve_exact(records as usize);
    if records > 0 {
        let (f, _) = open_direct(path, Access::Read, !direct)?;
        let rec = pack.rec_bytes::<R>(bucket);
        let total = records * rec as u64;
        let [a, b] = chunks;
        // A file one chunk holds is read here: no thread to overlap with
        // (at small budgets nearly every bucket; a thread each was 10 Ks
        // of spawns in a kron-24 build at 128 MiB).
        if total <= a.len() as u64 {
            let want = total.next_multiple_of(ALIGN as u64) as usize;
            fault::read_exact_at(&f, &mut a.as_mut_slice()[..want], 0).at(path)?;
            let data = &a.as_slice()[..total as usize];
            decode_stretch((pack, bucket), data, &mut Vec::new(), &mut out, &mut bits);
            return Ok((out, bits));
        }
        std::thread::scope(|s| -> Result<()> {
            type Filled<'b> = (&'b mut AlignedBuf, usize, std::io::Result<()>);
            let (full_tx, full_rx) = sync_channel::<Filled<'_>>(2);
            let (empty_tx, empty_rx) = sync_channel::<&mut AlignedBuf>(2);
            empty_tx.send(a).expect("receiver alive");
            empty_tx.send(b).expect("receiver alive");
            let f = &f;
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
                decode_stretch((pack, bucket), data, &mut cut, &mut out, &mut bits);
                done += valid as u64;
                let _ = empty_tx.send(buf);
            }
            Ok(())
        })?;
    }
    Ok((out, bits))
}

/// Decodes `data`, the next stretch of bucket `bucket`'s file, into `out`
/// and adds the keys to `bits`: its first bytes complete the record the
/// stretch before ended in the middle of (`cut`, that record's first
/// bytes), and a record cut at its end is left in `cut`.
pub(super) fn decode_stretch<R: Record>(
    (pack, bucket): (&Packing, usize),
    mut data: &[u8],
    cut: &mut Vec<u8>,
    out: &mut Vec<R>,
    bits: &mut KeyBits,
) {
    let rec = pack.rec_bytes::<R>(bucket);
    if !cut.is_empty() {
        let take = (rec - cut.len()).min(data.len());
        cut.extend_from_slice(&data[..take]);
        data = &data[take..];
        if cut.len() == rec {
            let r: R = pack.decode(bucket, cut);
            bits.add(r.radix_key());
            out.push(r);
            cut.clear();
        }
    }
    let whole = data.len() / rec * rec;
    pack.decode_into(bucket, &data[..whole], out, bits);
    cut.extend_from_slice(&data[whole..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::sort::tests::Pair;
    use crate::mem::Budget;

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

    /// Writes `recs` as bucket 0 packed `width` bytes above `lo` and reads
    /// them back: the records and the bits of their keys come back.
    fn read_back<R: Record + PartialEq + std::fmt::Debug>(recs: &[R], lo: u128, width: usize) {
        let pack = Packing {
            lo: vec![lo],
            width: vec![width],
        };
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
        let (out, bits) =
            read_bucket::<R>(&path, n, (&pack, 0), false, Vec::new(), &mut chunks).unwrap();
        assert!(out == recs, "records read back differ");
        assert_eq!(
            bits,
            KeyBits::of(recs),
            "key bits of {n} records of {rec} bytes"
        );
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
}
