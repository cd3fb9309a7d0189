//! Two-stage pipelines for the build's passes: each pass (degree count,
//! remap, write) was one thread doing everything while the second core sat
//! at a third of its time sorting the next bucket, so a pass now runs its
//! later half on a thread of its own, fed batches through a bounded channel
//! (batches are recycled, so no allocation per batch).

use crate::error::Result;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Batches in flight between the stages (each way).
const DEPTH: usize = 4;

/// The producing end of [`feed`]: recycled batches to fill and send.
pub(super) struct Feed<T> {
    full: Option<SyncSender<Vec<T>>>,
    empty: Receiver<Vec<T>>,
}

impl<T> Feed<T> {
    /// An empty batch; `None` when the consumer stopped (on an error).
    pub fn batch(&mut self) -> Option<Vec<T>> {
        let mut b = self.empty.recv().ok()?;
        b.clear();
        Some(b)
    }

    /// Hands a batch to the consumer; false when it stopped.
    pub fn send(&mut self, b: Vec<T>) -> bool {
        self.full.as_ref().is_some_and(|f| f.send(b).is_ok())
    }
}

/// Runs `produce` on the calling thread with a [`Feed`] whose batches
/// `consume` gets, in order, on a second thread. Returns what `produce`
/// returned and how the consumer ended (its first error stops it; the
/// producer then sees `batch` return `None`).
pub(super) fn feed<T: Send, R>(
    mut consume: impl FnMut(&[T]) -> Result<()> + Send,
    produce: impl FnOnce(&mut Feed<T>) -> R,
) -> (R, Result<()>) {
    let (full_tx, full_rx) = sync_channel::<Vec<T>>(DEPTH);
    let (empty_tx, empty_rx) = sync_channel::<Vec<T>>(DEPTH + 1);
    for _ in 0..=DEPTH {
        empty_tx.send(Vec::new()).expect("receiver alive");
    }
    std::thread::scope(|s| {
        // Made inside the scope: a panicking producer drops it while
        // unwinding, so the consumer sees the end and the scope's wait for
        // it ends (made outside, the build hung on a panic instead of
        // reporting it).
        let mut feed = Feed {
            full: Some(full_tx),
            empty: empty_rx,
        };
        let consumer = s.spawn(move || -> Result<()> {
            while let Ok(batch) = full_rx.recv() {
                consume(&batch)?;
                // The producer may have stopped: nothing to hand back to.
                let _ = empty_tx.send(batch);
            }
            Ok(())
        });
        let produced = produce(&mut feed);
        feed.full = None;
        let consumed = consumer.join().expect("pipeline stage panicked");
        (produced, consumed)
    })
}

/// Runs `produce` on the calling thread and `consume` on a second one, in
/// order: `produce` refills an empty batch and returns false at the end;
/// `consume` gets every non-empty batch. The first error of either ends
/// both and is returned (the producer's first).
pub(super) fn pipeline<T: Send>(
    mut produce: impl FnMut(&mut Vec<T>) -> Result<bool>,
    consume: impl FnMut(&[T]) -> Result<()> + Send,
) -> Result<()> {
    let (produced, consumed) = feed(consume, |f| -> Result<()> {
        while let Some(mut batch) = f.batch() {
            if !produce(&mut batch)? || !f.send(batch) {
                break;
            }
        }
        Ok(())
    });
    produced.and(consumed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn batches_arrive_in_order_and_errors_stop_both_stages() {
        let mut next = 0u32;
        let mut seen = Vec::new();
        pipeline(
            |b| {
                b.extend(next..(next + 7).min(100));
                next = (next + 7).min(100);
                Ok(!b.is_empty())
            },
            |b| {
                seen.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());

        let mut produced = 0;
        let r = pipeline(
            |b: &mut Vec<u32>| {
                produced += 1;
                b.push(1);
                Ok(true)
            },
            |_| Err(Error::Invalid("stop".into())),
        );
        assert!(matches!(r, Err(Error::Invalid(m)) if m == "stop"));
        assert!(
            produced <= 2 + DEPTH,
            "the producer stopped ({produced} batches)"
        );
        let r = pipeline(
            |_: &mut Vec<u32>| Err(Error::Invalid("bad input".into())),
            |_| Ok(()),
        );
        assert!(matches!(r, Err(Error::Invalid(m)) if m == "bad input"));
    }

    #[test]
    fn a_panicking_producer_panics_instead_of_hanging() {
        // Run on a thread so a regression fails by timeout, not by hanging
        // the test binary.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut batches = 0;
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pipeline(
                    |b: &mut Vec<u32>| {
                        batches += 1;
                        assert!(batches < 3, "producer bug");
                        b.push(1);
                        Ok(true)
                    },
                    |_| Ok(()),
                )
            }));
            let _ = tx.send(r.is_err());
        });
        let panicked = rx.recv_timeout(std::time::Duration::from_secs(30));
        assert_eq!(panicked, Ok(true), "the pipeline hung on a panic");
    }
}
