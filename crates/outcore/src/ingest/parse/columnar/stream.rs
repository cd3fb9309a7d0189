//! Groups read on several threads, delivered in input order: worker `w` of
//! `t` reads groups `w`, `w + t`, ... and hands their batches over a
//! channel of two; the consumer takes group `g` from worker `g % t`. At
//! most about `3 t` batches are alive at once, whatever the input size.

use std::sync::mpsc::{sync_channel, Receiver};

use crate::error::{Error, Result};

enum Msg<T> {
    Item(T),
    /// The group is done.
    End,
    Failed(Error),
}

/// What a worker does with one group: `work(g, emit)` reads group `g`,
/// passing each piece to `emit`.
pub(crate) type Work<'a, T> =
    dyn Fn(usize, &mut dyn FnMut(T) -> Result<()>) -> Result<()> + Sync + 'a;

/// Runs `work(g, emit)` for every group `g` in `0..groups` on up to
/// `threads` threads, passing what each emits to `sink`, group by group
/// in order. The first error (of a worker or of `sink`) stops everything.
pub(crate) fn ordered<T: Send>(
    groups: usize,
    threads: usize,
    work: &Work<'_, T>,
    sink: &mut dyn FnMut(T) -> Result<()>,
) -> Result<()> {
    let threads = threads.clamp(1, groups.max(1));
    std::thread::scope(|scope| {
        let mut rxs: Vec<Receiver<Msg<T>>> = Vec::with_capacity(threads);
        for w in 0..threads {
            let (tx, rx) = sync_channel::<Msg<T>>(2);
            rxs.push(rx);
            scope.spawn(move || {
                for g in (w..groups).step_by(threads) {
                    let mut emit = |t: T| {
                        tx.send(Msg::Item(t))
                            .map_err(|_| Error::Invalid("stopped".into()))
                    };
                    let done = match work(g, &mut emit) {
                        Ok(()) => Msg::End,
                        Err(e) => Msg::Failed(e),
                    };
                    let failed = matches!(done, Msg::Failed(_));
                    if tx.send(done).is_err() || failed {
                        return;
                    }
                }
            });
        }
        // The receivers are dropped on return, which stops the workers.
        let rxs = rxs;
        for g in 0..groups {
            loop {
                match rxs[g % threads].recv() {
                    Ok(Msg::Item(t)) => sink(t)?,
                    Ok(Msg::End) => break,
                    Ok(Msg::Failed(e)) => return Err(e),
                    Err(_) => return Err(Error::Invalid("a reader thread stopped".into())),
                }
            }
        }
        Ok(())
    })
}
