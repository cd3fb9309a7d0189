//! Progress on long work: a redrawn line when stderr is a terminal, a line
//! every few seconds otherwise, nothing when quiet.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences all progress output (`--quiet`, tests).
pub fn set_quiet(q: bool) {
    QUIET.store(q, Ordering::Relaxed);
}

/// True when progress is silenced.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// True when stderr is a terminal.
pub fn stderr_is_tty() -> bool {
    // SAFETY: isatty has no preconditions.
    unsafe { libc::isatty(2) == 1 }
}

/// A progress reporter for one phase.
pub struct Progress {
    label: String,
    start: Instant,
    last: Instant,
    tty: bool,
    every: Duration,
    drawn: bool,
}

impl Progress {
    /// Starts a phase called `label`.
    pub fn new(label: impl Into<String>) -> Progress {
        let tty = stderr_is_tty();
        let now = Instant::now();
        Progress {
            label: label.into(),
            start: now,
            last: now,
            tty,
            every: if tty {
                Duration::from_millis(200)
            } else {
                Duration::from_secs(10)
            },
            drawn: false,
        }
    }

    /// Seconds since the phase started.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Reports progress; `msg` is only built when a line is due.
    #[inline]
    pub fn tick(&mut self, msg: impl FnOnce() -> String) {
        if QUIET.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        if now - self.last < self.every {
            return;
        }
        self.last = now;
        let line = format!("{}: {} [{:.1}s]", self.label, msg(), self.elapsed());
        if self.tty {
            eprint!("\r\x1b[2K{line}");
            self.drawn = true;
        } else {
            eprintln!("{line}");
        }
    }

    /// Ends the phase with a final line.
    pub fn done(self, msg: impl FnOnce() -> String) {
        if QUIET.load(Ordering::Relaxed) {
            return;
        }
        let line = format!("{}: {} [{:.1}s]", self.label, msg(), self.elapsed());
        if self.drawn {
            eprintln!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
    }
}
