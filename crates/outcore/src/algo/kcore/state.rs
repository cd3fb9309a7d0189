//! The h-index iteration's vertex state: core-number estimates and the
//! active set (a [`Dense`] frontier); taking a batch of them in id order, lowering
//! their estimates to the h-index of their neighbours' (in parallel) and
//! activating the neighbours that may follow.

use crate::algo::vertex::kcore::h_of_counts;
use crate::engine::frontier::Dense;
use crate::engine::select::simple::{Scratch, Simple};
use crate::store::csr::Slot;
use rayon::prelude::*;

/// Estimates and the active set (a dense frontier scanned in id order).
pub(super) struct State {
    pub(super) est: Vec<u32>,
    pub(super) active: Dense,
}

impl State {
    /// Lowers the estimate of every vertex of `vs` (ascending) to the h-index
    /// of its neighbours (`g`: the batch's simple lists) and
    /// activates the neighbours that may follow; returns how many estimates
    /// dropped.
    ///
    /// The h-indices of a batch are computed in parallel from the estimates
    /// before the batch (Jacobi inside a batch, Gauss-Seidel across
    /// batches), then applied; the activation test then sees the new
    /// estimates, so a neighbour in the same batch is activated if it
    /// counted a vertex that dropped.
    pub(super) fn update<T: Slot>(&mut self, vs: &[T], g: &Simple<T>) -> u64 {
        let chunk = (vs.len() / (8 * rayon::current_num_threads())).max(64);
        let est = &self.est;
        let hs: Vec<u32> = vs
            .par_chunks(chunk)
            .enumerate()
            .flat_map_iter(|(c, part)| {
                let mut sc = Scratch::default();
                let mut counts = Vec::new();
                let base = c * chunk;
                part.iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        g.neighbours(base + k, v, &mut sc);
                        h_index(est, sc.set(), est[v.get() as usize], &mut counts)
                    })
                    .collect::<Vec<u32>>()
            })
            .collect();
        // (index in vs, old estimate, new estimate)
        let mut dropped: Vec<(usize, u32, u32)> = Vec::new();
        for (i, (&v, &h)) in vs.iter().zip(&hs).enumerate() {
            let old = self.est[v.get() as usize];
            if h < old {
                self.est[v.get() as usize] = h;
                dropped.push((i, old, h));
            }
        }
        // u counted v while est(v) >= est(u); it no longer does if est(u) > h.
        let est = &self.est;
        let wake: Vec<Vec<T>> = dropped
            .par_chunks((dropped.len() / (8 * rayon::current_num_threads())).max(64))
            .map(|part| {
                let mut sc = Scratch::default();
                let mut out = Vec::new();
                for &(i, old, h) in part {
                    g.neighbours(i, vs[i], &mut sc);
                    out.extend(sc.set().iter().copied().filter(|&u| {
                        let eu = est[u.get() as usize];
                        eu > h && eu <= old
                    }));
                }
                out
            })
            .collect();
        for u in wake.into_iter().flatten() {
            self.active.activate(u);
        }
        dropped.len() as u64
    }
}

/// The largest h <= `cap` such that at least h of `nbrs` have an estimate
/// >= h (`counts`: zeroed scratch, left zeroed).
pub(super) fn h_index<T: Slot>(est: &[u32], nbrs: &[T], cap: u32, counts: &mut Vec<u32>) -> u32 {
    let k = (nbrs.len() as u64).min(cap as u64) as usize;
    if k == 0 {
        return 0;
    }
    if counts.len() < k + 1 {
        counts.resize(k + 1, 0);
    }
    let counts = &mut counts[..=k];
    for &u in nbrs {
        let e = est[u.get() as usize] as usize;
        counts[e.min(k)] += 1;
    }
    h_of_counts(counts)
}
