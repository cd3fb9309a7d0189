//! Delta-stepping's vertex state: distances and the bucket queue
//! ([`Buckets`], priority `bucket_of(dist, delta)`); relaxation, taking a
//! bucket's live entries, the run-ahead lookahead (RASP §6.3.3).

use crate::engine::frontier::Buckets;
use crate::error::{Error, Result};
use crate::store::csr::Slot;

/// Bucket index of a finite non-negative distance (saturating).
#[inline]
pub(crate) fn bucket_of(d: f64, delta: f64) -> u64 {
    (d / delta) as u64
}

/// Distances and the bucket queue; ids of type `T` (u64 on a wide store).
pub(super) struct State<T: Slot> {
    pub(super) dist: Vec<f64>,
    pub(super) queue: Buckets<T>,
    pub(super) delta: f64,
    /// Edges relaxed in the current phase.
    pub(super) edges: u64,
}

impl<T: Slot> State<T> {
    /// Queues `v` at its current distance.
    pub(super) fn enqueue(&mut self, v: T) -> Result<()> {
        let (dist, delta) = (&self.dist, self.delta);
        let b = bucket_of(dist[v.get() as usize], delta);
        self.queue
            .update(v, b, b, |u| bucket_of(dist[u.get() as usize], delta))
    }

    /// The live entries of bucket `b`, removed from the queue and unflagged.
    pub(super) fn take(&mut self, b: u64) -> Vec<T> {
        let (dist, delta) = (&self.dist, self.delta);
        self.queue
            .take(b, |u| bucket_of(dist[u.get() as usize], delta))
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
        let delta = self.delta;
        for (&u, &w) in nbrs.iter().zip(ws) {
            if w.is_nan() || w < 0.0 {
                return Err(bad(v, u, w));
            }
            let nd = dv + w;
            let old = self.dist[u.get() as usize];
            if nd < old {
                self.dist[u.get() as usize] = nd;
                let dist = &self.dist;
                let (b, was) = (bucket_of(nd, delta), bucket_of(old, delta));
                self.queue
                    .update(u, b, was, |x| bucket_of(dist[x.get() as usize], delta))?;
            }
        }
        Ok(())
    }

    /// Up to `k` queued vertices of the lowest buckets, smallest distance
    /// first (RASP's priority-queue run-ahead), appended to `out`.
    pub(super) fn lookahead(&self, k: usize, out: &mut Vec<T>) {
        let (dist, delta) = (&self.dist, self.delta);
        self.queue.lookahead(
            k,
            out,
            |u| bucket_of(dist[u.get() as usize], delta),
            |a, c| dist[a.get() as usize].total_cmp(&dist[c.get() as usize]),
        );
    }

    /// Compacts the queue when more than half of it (and over a million
    /// entries) is stale.
    pub(super) fn maybe_compact(&mut self) {
        let (dist, delta) = (&self.dist, self.delta);
        self.queue
            .maybe_compact(|u| bucket_of(dist[u.get() as usize], delta));
    }
}
