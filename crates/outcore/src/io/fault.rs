//! Fault injection for tests (issue 12): a device that fails on purpose,
//! chosen by `OUTCORE_FAULT_IO` in the environment, applied to the
//! completions every [`super::Reader`] of the process hands out (io_uring
//! and the portable backend alike). Requests are numbered from 0 in the
//! order their completions are delivered.
//!
//! - `eio@N`: request N fails with EIO (a read or a write);
//! - `short@N`: read N returns half of what it read (a short read that is
//!   not at the end of the file);
//! - `enospc@N`: the N-th write (writes counted apart) fails with ENOSPC;
//! - `slow@MS`: every completion is delayed by MS milliseconds.
//!
//! Callers must turn each into a clear error naming the file, or (a short
//! read) read the rest; never a wrong result.

use super::Completion;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Eio(u64),
    Short(u64),
    Enospc(u64),
    Slow(u64),
}

fn plan() -> Option<Fault> {
    static PLAN: OnceLock<Option<Fault>> = OnceLock::new();
    *PLAN.get_or_init(|| {
        let v = std::env::var("OUTCORE_FAULT_IO").ok()?;
        let (kind, n) = v.split_once('@')?;
        let n: u64 = n.parse().ok()?;
        match kind {
            "eio" => Some(Fault::Eio(n)),
            "short" => Some(Fault::Short(n)),
            "enospc" => Some(Fault::Enospc(n)),
            "slow" => Some(Fault::Slow(n)),
            _ => None,
        }
    })
}

static REQUESTS: AtomicU64 = AtomicU64::new(0);
static WRITES: AtomicU64 = AtomicU64::new(0);

/// Applies the planned fault, if any, to a completion being delivered.
#[inline]
pub(crate) fn apply(c: &mut Completion) {
    let Some(fault) = plan() else {
        return;
    };
    let i = REQUESTS.fetch_add(1, Ordering::Relaxed);
    let w = match c.write {
        true => WRITES.fetch_add(1, Ordering::Relaxed),
        false => u64::MAX,
    };
    match fault {
        Fault::Eio(n) if i == n => c.result = Err(std::io::Error::from_raw_os_error(libc::EIO)),
        Fault::Short(n) if i == n && !c.write => {
            if let Ok(b) = &mut c.result {
                *b /= 2;
            }
        }
        Fault::Enospc(n) if w == n => {
            c.result = Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        }
        Fault::Slow(ms) => std::thread::sleep(std::time::Duration::from_millis(ms)),
        _ => {}
    }
}
