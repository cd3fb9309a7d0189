//! The bucket stream's background loader: buckets read from disk and
//! decoded on one thread while the one before is sorted on a second (with
//! the rayon pool), into buffers the consumer hands back as it finishes
//! with them, so up to as many buckets as it holds buffers are ready or on
//! their way ahead of the consumer.

use super::buckets::Packing;
use super::read::{read_bucket, Chunks, Loaded};
use crate::error::Result;
use crate::ingest::sort::{sort_cells, sort_records_known, Record};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

/// What a loader loads: buckets `from..` of these files and record counts.
pub(super) struct Job {
    pub from: usize,
    pub paths: Vec<PathBuf>,
    pub records: Vec<u64>,
    pub pack: Packing,
    pub direct: bool,
}

/// A bucket loaded and sorted: its number, its records and whether they
/// were placed by cell.
pub(super) type Ready<R> = (usize, Result<(Vec<R>, bool)>);

/// A running loader.
pub(super) struct Loader<R: Record> {
    ready: Receiver<Ready<R>>,
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
            type Read<R> = (usize, Result<(Vec<R>, Loaded)>);
            let (read_tx, read_rx) = sync_channel::<Read<R>>(0);
            let sorter = std::thread::spawn(move || {
                for (b, r) in read_rx {
                    let r = r.map(|(mut v, loaded)| match loaded {
                        Loaded::Bits(bits) => {
                            sort_records_known(&mut v, &mut scratch, bits);
                            (v, false)
                        }
                        Loaded::Cells(bounds) => {
                            sort_cells(&mut v, &mut scratch, &bounds);
                            (v, true)
                        }
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

    /// The next bucket loaded and sorted (its number, its records and
    /// whether they were placed by cell); `None` when the loader ended
    /// without sending it (it panicked).
    pub fn next(&self) -> Option<Ready<R>> {
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
