//! Cooperative cancellation: a Ctrl-C handler sets the flag, long loops poll it
//! and return [`Error::Interrupted`], and the normal error path cleans up
//! (so an interrupted build leaves no half-written store).

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Requests cancellation of running work (call from a signal handler).
pub fn request() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Fails with [`Error::Interrupted`] once cancellation was requested.
#[inline]
pub fn check() -> Result<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

/// Clears a request, once the interrupted work has unwound (a library
/// caller such as the Python package goes on after it).
pub fn reset() {
    INTERRUPTED.store(false, Ordering::SeqCst);
}
