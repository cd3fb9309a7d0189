//! Two-stage pipelines for the build's passes: each pass (degree count,
//! remap, write) was one thread doing everything while the second core sat
//! at a third of its time sorting the next bucket, so a pass now runs its
//! later half on a thread of its own, fed batches through a bounded channel
//! (batches are recycled, so no allocation per batch).

use crate::error::Result;
use std::sync::mpsc::sync_channel;

/// Batches in flight between the stages (each way).
const DEPTH: usize = 4;

/// Runs `produce` on the calling thread and `consume` on a second one, in
/// order: `produce` refills an empty batch and returns false at the end;
/// `consume` gets every non-empty batch. The first error of either ends
/// both and is returned (the producer's first).
pub(super) fn pipeline<T: Send>(
    mut produce: impl FnMut(&mut Vec<T>) -> Result<bool>,
    mut consume: impl FnMut(&[T]) -> Result<()> + Send,
) -> Result<()> {
    let (full_tx, full_rx) = sync_channel::<Vec<T>>(DEPTH);
    let (empty_tx, empty_rx) = sync_channel::<Vec<T>>(DEPTH + 1);
    for _ in 0..=DEPTH {
        empty_tx.send(Vec::new()).expect("receiver alive");
    }
    std::thread::scope(|s| {
        let consumer = s.spawn(move || -> Result<()> {
            while let Ok(batch) = full_rx.recv() {
                consume(&batch)?;
                // The producer may have stopped: nothing to hand back to.
                let _ = empty_tx.send(batch);
            }
            Ok(())
        });
        let produced = (|| -> Result<()> {
            // The consumer ended early (an error) when a channel is closed.
            while let Ok(mut batch) = empty_rx.recv() {
                batch.clear();
                if !produce(&mut batch)? {
                    break;
                }
                if full_tx.send(batch).is_err() {
                    break;
                }
            }
            Ok(())
        })();
        drop(full_tx);
        let consumed = consumer.join().expect("pipeline stage panicked");
        produced.and(consumed)
    })
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
}
