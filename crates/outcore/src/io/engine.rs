//! The two backends behind one [`Engine`]: io_uring or `pread` threads.

use super::{sync, uring, Completion, FileEntry, Req};
use crate::error::Result;

/// The running backend.
pub(super) enum Engine {
    Uring(Box<uring::UringEngine>),
    Sync(sync::SyncEngine),
}

impl Engine {
    pub(super) fn in_flight(&self) -> usize {
        match self {
            Engine::Uring(e) => e.in_flight(),
            Engine::Sync(e) => e.in_flight(),
        }
    }

    /// Starts `req` (a slot is free). io_uring: only queues the SQE.
    pub(super) fn start(&mut self, f: &FileEntry, req: Req) -> Result<()> {
        match self {
            Engine::Uring(e) => {
                e.start(f, req);
                Ok(())
            }
            Engine::Sync(e) => e.start(f, req),
        }
    }

    /// Hands started requests to the kernel without waiting.
    pub(super) fn flush(&mut self) -> Result<()> {
        match self {
            Engine::Uring(e) => e.flush(),
            Engine::Sync(_) => Ok(()),
        }
    }

    /// Moves finished requests to `out`; with `want` > 0, first blocks until
    /// at least `want` (<= in flight) have finished.
    pub(super) fn poll(&mut self, want: usize, out: &mut Vec<Completion>) -> Result<()> {
        match self {
            Engine::Uring(e) => e.poll(want, out),
            Engine::Sync(e) => e.poll(want, out),
        }
    }
}
