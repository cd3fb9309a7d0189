//! Per-run I/O statistics.

/// What a [`super::Reader`] has done since it was created.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct IoStats {
    /// Bytes delivered by successful completions (short reads count what was read),
    /// plus the bytes [`super::read_range`] read.
    pub bytes_read: u64,
    /// Bytes written by successful write completions.
    pub bytes_written: u64,
    /// Requests completed (successfully or not), plus the reads made by
    /// [`super::read_range`].
    pub requests: u64,
    /// Seconds spent blocked waiting for I/O (in `Reader::wait` and `read_range`).
    pub wait_seconds: f64,
}

impl IoStats {
    /// Adds another run's numbers to these.
    pub fn add(&mut self, other: &IoStats) {
        self.bytes_read += other.bytes_read;
        self.bytes_written += other.bytes_written;
        self.requests += other.requests;
        self.wait_seconds += other.wait_seconds;
    }

    /// Average read throughput while blocked, in bytes per second (0 if no waiting).
    pub fn bytes_per_wait_second(&self) -> f64 {
        if self.wait_seconds > 0.0 {
            self.bytes_read as f64 / self.wait_seconds
        } else {
            0.0
        }
    }
}

impl std::ops::Sub for IoStats {
    type Output = IoStats;

    /// The difference between two snapshots (later - earlier), e.g. for one phase of a run.
    fn sub(self, earlier: IoStats) -> IoStats {
        IoStats {
            bytes_read: self.bytes_read.saturating_sub(earlier.bytes_read),
            bytes_written: self.bytes_written.saturating_sub(earlier.bytes_written),
            requests: self.requests.saturating_sub(earlier.requests),
            wait_seconds: (self.wait_seconds - earlier.wait_seconds).max(0.0),
        }
    }
}
