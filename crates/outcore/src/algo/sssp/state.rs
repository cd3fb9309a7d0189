//! Delta-stepping's vertex state: distances, "queued" flags and the bucket
//! queue; relaxation, taking a bucket's live entries, the run-ahead
//! lookahead (RASP §6.3.3) and compaction of stale entries.

use super::queue::Queue;
use crate::error::{Error, Result};
use crate::size::format_size;
use crate::store::csr::Slot;

/// Bucket index of a finite non-negative distance (saturating).
#[inline]
pub(super) fn bucket_of(d: f64, delta: f64) -> u64 {
    (d / delta) as u64
}

/// Distances, queued flags and the bucket queue; ids of type `T` (u64 on
/// a wide store).
pub(super) struct State<T: Slot> {
    pub(super) dist: Vec<f64>,
    /// Bit v: v's current distance has not been relaxed from yet; then v has
    /// exactly one live entry, in bucket `bucket_of(dist[v])`.
    pub(super) queued: Vec<u64>,
    pub(super) queued_count: u64,
    pub(super) queue: Queue<T>,
    pub(super) delta: f64,
    /// Edges relaxed in the current phase.
    pub(super) edges: u64,
}

/// The word and bit of `v`'s queued flag.
#[inline]
fn flag<T: Slot>(v: T) -> (usize, u64) {
    let v = v.get();
    ((v >> 6) as usize, 1 << (v & 63))
}

impl<T: Slot> State<T> {
    #[inline]
    fn is_queued(&self, v: T) -> bool {
        let (w, bit) = flag(v);
        self.queued[w] & bit != 0
    }

    #[inline]
    fn set_queued(&mut self, v: T, on: bool) {
        let (w, bit) = flag(v);
        let w = &mut self.queued[w];
        if on {
            *w |= bit;
            self.queued_count += 1;
        } else {
            *w &= !bit;
            self.queued_count -= 1;
        }
    }

    /// Marks `v` queued and files it in bucket `b`.
    pub(super) fn enqueue(&mut self, v: T, b: u64) -> Result<()> {
        self.set_queued(v, true);
        self.push(v, b)
    }

    fn push(&mut self, v: T, b: u64) -> Result<()> {
        if self.queue.push(b, v) {
            return Ok(());
        }
        // A charge was refused: drop stale entries and try again.
        self.compact();
        if self.queue.fit() {
            Ok(())
        } else {
            Err(Error::Budget(format!(
                "the SSSP bucket queue needs {} ({} vertices queued) and the budget has no room \
                 left; raise --memory or give the buffer pool less",
                format_size(self.queue.bytes()),
                self.queued_count
            )))
        }
    }

    /// The live entries of bucket `b`, removed from the queue and unflagged.
    pub(super) fn take(&mut self, b: u64) -> Vec<T> {
        let mut cur = self.queue.take(b);
        let delta = self.delta;
        cur.retain(|&v| {
            let (w, bit) = flag(v);
            let w = &mut self.queued[w];
            if *w & bit != 0 && bucket_of(self.dist[v.get() as usize], delta) == b {
                *w &= !bit;
                self.queued_count -= 1;
                true
            } else {
                false
            }
        });
        cur
    }

    /// Relaxes the edges `v -> nbrs` with weights `ws`.
    #[inline]
    pub(super) fn relax(
        &mut self,
        v: T,
        nbrs: &[T],
        ws: &[f64],
        bad: &dyn Fn(T, T, f64) -> Error,
    ) -> Result<()> {
        let dv = self.dist[v.get() as usize];
        self.edges += nbrs.len() as u64;
        for (&u, &w) in nbrs.iter().zip(ws) {
            if w.is_nan() || w < 0.0 {
                return Err(bad(v, u, w));
            }
            let nd = dv + w;
            let old = self.dist[u.get() as usize];
            if nd < old {
                self.dist[u.get() as usize] = nd;
                let b = bucket_of(nd, self.delta);
                if !self.is_queued(u) {
                    self.enqueue(u, b)?;
                } else if b != bucket_of(old, self.delta) {
                    // The entry in the old bucket becomes stale.
                    self.push(u, b)?;
                }
            }
        }
        Ok(())
    }

    /// Up to `k` queued vertices of the lowest buckets, smallest distance
    /// first (RASP's priority-queue run-ahead), appended to `out`.
    pub(super) fn lookahead(&self, k: usize, out: &mut Vec<T>) {
        let mut scan = 4 * k;
        let mut cand: Vec<T> = Vec::new();
        for (&b, list) in &self.queue.buckets {
            cand.clear();
            for &v in list.iter().take(scan) {
                if self.is_queued(v) && bucket_of(self.dist[v.get() as usize], self.delta) == b {
                    cand.push(v);
                }
            }
            scan = scan.saturating_sub(list.len());
            let want = k - out.len();
            if cand.len() >= want {
                cand.sort_unstable_by(|&a, &c| {
                    self.dist[a.get() as usize].total_cmp(&self.dist[c.get() as usize])
                });
                out.extend_from_slice(&cand[..want]);
                return;
            }
            out.extend_from_slice(&cand);
            if scan == 0 {
                return;
            }
        }
    }

    /// Compacts the queue when more than half of it (and over a million
    /// entries) is stale.
    pub(super) fn maybe_compact(&mut self) -> Result<()> {
        let stale = self.queue.entries - self.queued_count;
        if stale > self.queued_count.max(1 << 20) {
            self.compact();
        }
        Ok(())
    }

    /// Drops every stale entry.
    fn compact(&mut self) {
        let (queued, dist, delta) = (&self.queued, &self.dist, self.delta);
        self.queue.retain(|b, v| {
            let (w, bit) = flag(v);
            queued[w] & bit != 0 && bucket_of(dist[v.get() as usize], delta) == b
        });
    }
}
