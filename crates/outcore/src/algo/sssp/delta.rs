//! The default delta-stepping bucket width (Meyer & Sanders' `Θ(1/d)` in
//! units of the mean weight): a sample's mean edge weight divided by the
//! mean degree, read through the select engine before the first phase.

use crate::engine::select::run::slot_batches;
use crate::engine::select::SelectEngine;
use crate::error::{Error, Result};
use crate::store::csr::Slot;

/// Vertices sampled for the default delta.
const DELTA_SAMPLE: u64 = 256;

/// The default bucket width: the mean weight of the lists of up to
/// [`DELTA_SAMPLE`] vertices spread over the id range and `source`, divided
/// by `mean_degree`; 1.0 without a positive finite weight in the sample.
pub(super) fn estimate_delta<T: Slot>(
    eng: &mut SelectEngine,
    n: u64,
    source: T,
    mean_degree: f64,
    max_deg: u64,
    bad: &dyn Fn(T, T, f64) -> Error,
) -> Result<f64> {
    let k = DELTA_SAMPLE.min(n);
    let mut vs: Vec<T> = (0..k)
        .map(|i| T::of((i as u128 * n as u128 / k as u128) as u64))
        .collect();
    vs.push(source);
    vs.sort_unstable();
    vs.dedup();
    let (mut sum, mut count) = (0f64, 0u64);
    for r in slot_batches(&mut [&mut *eng], &[max_deg], &vs)? {
        eng.for_each_weighted(&vs[r], |v, nbrs, ws| {
            for (&u, &w) in nbrs.iter().zip(ws) {
                if w.is_nan() || w < 0.0 {
                    return Err(bad(v, u, w));
                }
                if w.is_finite() {
                    sum += w;
                    count += 1;
                }
            }
            Ok(())
        })?;
    }
    let mean = if count > 0 { sum / count as f64 } else { 0.0 };
    if mean <= 0.0 || !mean.is_finite() {
        return Ok(1.0);
    }
    let delta = if mean_degree > 0.0 {
        mean / mean_degree
    } else {
        mean
    };
    Ok(if delta > 0.0 && delta.is_finite() {
        delta
    } else {
        mean
    })
}
