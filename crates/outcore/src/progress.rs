//! Progress on long work (indicatif): on a terminal a bar with position,
//! percentage, rate and ETA when the total is known (a spinner with the
//! message otherwise); when stderr is not a terminal a plain line every few
//! seconds with the same figures; nothing when quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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

/// What a bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (shown as KiB/MiB/GiB, rates per second).
    Bytes,
    /// Steps such as iterations or blocks (shown as `k/N`).
    Steps,
    /// Items such as vertices or edges.
    Items,
}

/// Time between plain lines when stderr is not a terminal: 5 s, or
/// `OUTCORE_PROGRESS_SECONDS`.
fn plain_every() -> Duration {
    static EVERY: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *EVERY.get_or_init(|| {
        let s = std::env::var("OUTCORE_PROGRESS_SECONDS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(5.0);
        Duration::from_secs_f64(s)
    })
}

/// A progress reporter for one phase.
pub struct Progress {
    label: String,
    start: Instant,
    bar: Option<ProgressBar>,
    /// Plain lines (not a terminal, not quiet).
    plain: bool,
    last: Instant,
    unit: Unit,
    total: Option<u64>,
    pos: u64,
    msg: String,
}

impl Progress {
    /// Starts a phase called `label` whose total is not known.
    pub fn new(label: impl Into<String>) -> Progress {
        Self::make(label.into(), None, Unit::Items)
    }

    /// Starts a phase of `total` `unit`s: a bar on a terminal.
    pub fn bar(label: impl Into<String>, total: u64, unit: Unit) -> Progress {
        Self::make(label.into(), Some(total), unit)
    }

    fn make(label: String, total: Option<u64>, unit: Unit) -> Progress {
        let now = Instant::now();
        let quiet = quiet();
        let tty = !quiet && stderr_is_tty();
        let bar = tty.then(|| {
            let b = match total {
                Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            b.set_style(style(total.is_some(), unit));
            b.set_prefix(label.clone());
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Progress {
            label,
            start: now,
            bar,
            plain: !quiet && !tty,
            last: now,
            unit,
            total,
            pos: 0,
            msg: String::new(),
        }
    }

    /// Seconds since the phase started.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Sets the position (of the total given to [`bar`](Progress::bar)).
    #[inline]
    pub fn set(&mut self, pos: u64) {
        self.pos = pos;
        if let Some(b) = &self.bar {
            b.set_position(pos);
        } else if self.plain {
            self.plain_line(None::<fn() -> String>);
        }
    }

    /// Changes the total (when it becomes known or grows).
    pub fn set_total(&mut self, total: u64) {
        self.total = Some(total);
        if let Some(b) = &self.bar {
            b.set_length(total);
            b.set_style(style(true, self.unit));
        }
    }

    /// Reports a message; `msg` is only built when a line is due.
    #[inline]
    pub fn tick(&mut self, msg: impl FnOnce() -> String) {
        if let Some(b) = &self.bar {
            if self.last.elapsed() >= Duration::from_millis(100) {
                self.last = Instant::now();
                b.set_message(msg());
            }
        } else if self.plain {
            self.plain_line(Some(msg));
        }
    }

    fn plain_line(&mut self, msg: Option<impl FnOnce() -> String>) {
        let now = Instant::now();
        if now - self.last < plain_every() {
            return;
        }
        self.last = now;
        if let Some(m) = msg {
            self.msg = m();
        }
        eprintln!("{}", self.line());
    }

    /// `label: [pos/total, pct, rate, ETA] msg [elapsed]`.
    fn line(&self) -> String {
        let secs = self.elapsed();
        let mut figures = Vec::new();
        let show = |x: u64| match self.unit {
            Unit::Bytes => crate::size::format_size(x),
            _ => x.to_string(),
        };
        if let Some(t) = self.total {
            figures.push(format!("{}/{}", show(self.pos), show(t)));
            if t > 0 {
                figures.push(format!("{:.0}%", 100.0 * self.pos as f64 / t as f64));
            }
            if self.pos > 0 && secs > 0.0 {
                let rate = self.pos as f64 / secs;
                figures.push(match self.unit {
                    Unit::Bytes => format!("{}/s", crate::size::format_size(rate as u64)),
                    _ => format!("{rate:.1}/s"),
                });
                figures.push(format!(
                    "ETA {:.0}s",
                    t.saturating_sub(self.pos) as f64 / rate
                ));
            }
        }
        let figures = if figures.is_empty() {
            String::new()
        } else {
            format!("[{}] ", figures.join(", "))
        };
        format!("{}: {figures}{} [{secs:.1}s]", self.label, self.msg)
    }

    /// Ends the phase with a final line.
    pub fn done(self, msg: impl FnOnce() -> String) {
        if quiet() {
            return;
        }
        let line = format!("{}: {} [{:.1}s]", self.label, msg(), self.elapsed());
        match &self.bar {
            Some(b) => {
                b.finish_and_clear();
                eprintln!("{line}");
            }
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            if !b.is_finished() {
                b.finish_and_clear();
            }
        }
    }
}

fn style(known: bool, unit: Unit) -> ProgressStyle {
    let t = match (known, unit) {
        (true, Unit::Bytes) => {
            "{prefix}: [{bar:30}] {bytes}/{total_bytes} {percent}% {bytes_per_sec} ETA {eta} {msg}"
        }
        (true, Unit::Steps) => {
            "{prefix}: [{bar:30}] {pos}/{len} {percent}% ETA {eta} {msg} [{elapsed}]"
        }
        (true, Unit::Items) => {
            "{prefix}: [{bar:30}] {human_pos}/{human_len} {percent}% {per_sec} ETA {eta} {msg}"
        }
        (false, _) => "{spinner} {prefix}: {msg} [{elapsed}]",
    };
    ProgressStyle::with_template(t)
        .expect("a valid template")
        .progress_chars("=> ")
}
